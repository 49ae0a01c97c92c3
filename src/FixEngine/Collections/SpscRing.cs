using System;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Threading;

namespace FixEngine.Collections;

// Design:
// - Bounded single-producer/single-consumer queue over a power-of-two array, indexed with a mask.
//   Positions are 64-bit counters that only grow; slot = position & mask; count = tail - head.
// - Six PaddedLongs, each value alone on its cache line (no line shared with another field, the
//   object header or a neighbouring object) and 128 bytes from the next (never in one prefetch pair):
//     _tail       producer writes (next slot to fill), consumer reads when its cache runs out
//     _headCache  producer only: the last _released it read (stale, never ahead of the real one)
//     _released   consumer writes (slots before it are free again), producer reads when its cache
//                 says full
//     _head       consumer only (next slot to read); Count reads it from any thread
//     _tailCache  consumer only: the last tail it read (stale, never ahead of the real tail)
//     _chasePauses consumer only: spin iterations before its next tail refresh (0, 1 or 3, see below)
//   The cache fields are written and read by one thread only, so their lines stay in that core's cache
//   in the modified state; a side touches its own lines, the slot, and the other side's position
//   only when its cache says it cannot make progress (once per batch in steady state, not per item).
//   _slots, _mask and _releaseMask are written in the constructor only and read by both sides.
// - Lazy release: TryDequeue hands consumed slots back (writes _released) once per ReleaseBatch items
//   (capacity / 16, 1 to 64) and whenever it finds the ring empty; Drain once per call. PERF: with a
//   per-item release, a producer polling a full ring would pull the consumer's position line on every poll
//   and get one free slot per poll, so both sides would stall on that line and on the slot lines they share
//   item by item; with the release batched, each poll frees ReleaseBatch slots (whole cache lines) and
//   the consumer's line stays in its cache between releases. The cost: a producer can find the ring full
//   while up to ReleaseBatch - 1 consumed slots are not handed back yet (the consumer is busy then, so it
//   releases them within ReleaseBatch items or when it runs dry).
// - Chase back-off. A tail refresh that finds fewer than ReleaseBatch items means the consumer has caught up
//   with the producer. Each refresh pulls the producer's tail line and the slot line it is filling to the
//   consumer's core; the producer's next store to each must fetch the line back, and since x64 stores
//   become visible in order, every store queued behind it waits too. With the consumer refreshing every few
//   items this slows the producer to the consumer's pace, so the consumer never falls behind again. So the
//   refresh after a small one first spins (Thread.SpinWait): 1 iteration after the first small refresh, 3
//   after each further one in a row, none after a refresh that found a batch or an empty ring (_chasePauses).
//   The producer fills whole lines meanwhile. What a refresh finds is always handed out at once (never a
//   false "empty"); the spin only delays the next look at the tail, by at most 3 spin iterations, and only
//   while the producer keeps publishing: the first item after an empty ring is seen without delay.
// - PERF evidence for both (SpscRingThroughputBenchmarks, SpscRingPingPongBenchmarks, before and after, and
//   the variants tried and not kept): docs/benchmarks/toolkit-codec-notes.md, "SpscRing".
// - Publication: the producer writes the slot, then Volatile.Write(_tail) (release) so the slot is
//   visible before the new tail. The consumer reads _tail with Volatile.Read (acquire) before reading
//   slots. Symmetrically the consumer reads (and clears) slots, then Volatile.Write(_released)
//   (release) hands them back; the producer's Volatile.Read(_released) (acquire) orders its next
//   write of those slots after the consumer's reads. Each side reads its own position and its cache
//   with plain loads (it is their only writer). On x64 both barriers are compiler-only: plain movs.
// - Slots are a struct wrapping T (PERF: storing T directly into a T[] where T is a reference type
//   makes every store a covariant array store check; the wrapper's element type is a value type, so
//   the JIT emits a plain write barrier. Same trick as DefaultObjectPool.ObjectWrapper).

/// <summary>A bounded, lock-free single-producer/single-consumer ring of <typeparamref name="T"/>.</summary>
/// <typeparam name="T">The item type.</typeparam>
/// <remarks>
/// Exactly one thread may call the producer members (<see cref="TryEnqueue"/>) and exactly one
/// (possibly different) thread the consumer members (<see cref="TryDequeue"/>, <see cref="Drain{THandler}"/>).
/// <see cref="Count"/> may be read from any thread and is approximate. The consumer hands slots back to the producer in
/// groups of <see cref="ReleaseBatch"/> and whenever it finds the ring empty, so <see cref="TryEnqueue"/> may report a
/// full ring while fewer than <see cref="ReleaseBatch"/> consumed slots are still held. A consumer that keeps finding
/// only a few new items (it has caught up with a producer that is still publishing) spins briefly, at most three
/// <see cref="Thread.SpinWait(int)"/> iterations, before it looks for more, so that the producer can fill whole cache
/// lines; items it has seen are always returned at once. No member allocates.
/// <para>Part of FixEngine's reusable low-latency toolkit (with the other types of Buffers, Collections, Timing and
/// Hosting): public and supported for trading code to use on its own threads, independently of the FIX layers.</para>
/// </remarks>
public sealed class SpscRing<T>
{
    /// <summary>The largest supported capacity.</summary>
    public const int MaxCapacity = 1 << 30;

    private const int MaxChasePauses = 3;

    private readonly Slot[] _slots;
    private readonly long _mask;
    private readonly long _releaseMask;
    private PaddedLong _tail;
    private PaddedLong _headCache;
    private PaddedLong _released;
    private PaddedLong _head;
    private PaddedLong _tailCache;
    private PaddedLong _chasePauses;

    /// <summary>Creates a ring holding at most <paramref name="capacity"/> items.</summary>
    /// <param name="capacity">A power of two between 2 and <see cref="MaxCapacity"/>.</param>
    /// <exception cref="ArgumentOutOfRangeException">The capacity is not a power of two in range.</exception>
    public SpscRing(int capacity)
    {
        if (capacity < 2 || capacity > MaxCapacity || !int.IsPow2(capacity))
        {
            Internal.ThrowHelper.ThrowCapacityNotPowerOfTwo(nameof(capacity), capacity, 2, MaxCapacity);
        }
        _slots = new Slot[capacity];
        _mask = capacity - 1;
        _releaseMask = Math.Clamp(capacity / 16, 1, 64) - 1;
    }

    /// <summary>The number of slots.</summary>
    public int Capacity => _slots.Length;

    /// <summary>
    /// How many items <see cref="TryDequeue"/> takes before handing their slots back to the producer: capacity / 16,
    /// between 1 and 64 (it also hands back everything when it finds the ring empty, and <see cref="Drain{THandler}"/>
    /// after every call).
    /// </summary>
    public int ReleaseBatch => (int)_releaseMask + 1;

    /// <summary>Approximate number of items in the ring; exact when neither side is active.</summary>
    /// <remarks>Safe from any thread; the value may be stale by the time it is used.</remarks>
    public int Count
    {
        get
        {
            long head = _head.VolatileValue;
            long tail = _tail.VolatileValue;
            long count = tail - head;
            return count <= 0 ? 0 : (int)Math.Min(count, _slots.Length);
        }
    }

    /// <summary>Adds an item if there is space. Producer thread only.</summary>
    /// <param name="item">The item to add (copied into the ring).</param>
    /// <returns><see langword="true"/> if added; <see langword="false"/> if the ring is full.</returns>
    public bool TryEnqueue(in T item)
    {
        long tail = _tail.Value;
        // tail - head > mask: all Capacity (= mask + 1) slots in use; _mask is loaded for the slot index anyway.
        if (tail - _headCache.Value > _mask && !RefreshHeadCache(tail))
        {
            return false;
        }
        SlotAt(tail).Item = item;
        // Release: the slot write above becomes visible before the new tail.
        _tail.VolatileValue = tail + 1;
        return true;
    }

    /// <summary>Removes the oldest item if there is one. Consumer thread only.</summary>
    /// <param name="item">The removed item, or default when the ring is empty.</param>
    /// <returns><see langword="true"/> if an item was removed; <see langword="false"/> if the ring is empty.</returns>
    public bool TryDequeue(out T item)
    {
        long head = _head.Value;
        if (head >= _tailCache.Value && RefreshTailCacheOrRelease(head) <= head)
        {
            item = default!;
            return false;
        }
        ref Slot slot = ref SlotAt(head);
        item = slot.Item;
        if (RuntimeHelpers.IsReferenceOrContainsReferences<T>())
        {
            slot.Item = default!; // do not keep the object alive from the ring
        }
        head++;
        _head.Value = head;
        if ((head & _releaseMask) == 0)
        {
            // Release: the slot reads/clears above complete before the producer may reuse the slots.
            _released.VolatileValue = head;
        }
        return true;
    }

    /// <summary>Hands up to <paramref name="limit"/> items to <paramref name="handler"/> in order. Consumer thread only.</summary>
    /// <typeparam name="THandler">A struct handler; passed by ref so the call is devirtualised and allocation-free.</typeparam>
    /// <param name="handler">Receives each item.</param>
    /// <param name="limit">Maximum number of items to drain.</param>
    /// <returns>The number of items handed to the handler.</returns>
    /// <remarks>
    /// The consumer position is published once, after the batch. If the handler throws, the items
    /// already handled (including the one that threw) are consumed and the exception propagates.
    /// </remarks>
    public int Drain<THandler>(ref THandler handler, int limit)
        where THandler : struct, IRingHandler<T>
    {
        long head = _head.Value;
        long available = _tailCache.Value - head;
        if (available <= 0)
        {
            available = RefreshTailCacheOrRelease(head) - head;
            if (available <= 0)
            {
                return 0;
            }
        }
        int count = (int)Math.Min(available, Math.Max(limit, 0));
        int done = 0;
        try
        {
            while (done < count)
            {
                ref Slot slot = ref SlotAt(head + done);
                done++;
                handler.OnItem(in slot.Item);
                if (RuntimeHelpers.IsReferenceOrContainsReferences<T>())
                {
                    slot.Item = default!;
                }
            }
        }
        finally
        {
            if (done > 0)
            {
                _head.Value = head + done;
                // Release: every slot read above completes before the producer may reuse those slots.
                _released.VolatileValue = head + done;
            }
        }
        return done;
    }

    /// <summary>Re-reads the released position; returns whether a slot is free for <paramref name="tail"/>.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private bool RefreshHeadCache(long tail)
    {
        // Acquire: the write of a reused slot must happen after the consumer finished reading it.
        long released = _released.VolatileValue;
        _headCache.Value = released;
        return tail - released < _slots.Length;
    }

    /// <summary>
    /// Re-reads the producer position into the consumer's cache and returns it; when the ring is empty at
    /// <paramref name="head"/>, first hands every consumed slot back to the producer.
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private long RefreshTailCacheOrRelease(long head)
    {
        int pauses = (int)_chasePauses.Value;
        if (pauses != 0)
        {
            // Chase back-off (design notes): the last refresh found only a few items.
            Thread.SpinWait(pauses);
        }
        // Acquire: pairs with the producer's release of _tail, so the slots before it are visible.
        long tail = _tail.VolatileValue;
        _tailCache.Value = tail;
        long available = tail - head;
        if (available <= 0)
        {
            _chasePauses.Value = 0;
            if (_released.Value != head)
            {
                // Release: the consumer ran dry; the slots it read are free (their reads completed above).
                _released.VolatileValue = head;
            }
        }
        else
        {
            // Fewer than ReleaseBatch items: the consumer has caught up; pause before the next refresh, 1 spin iteration
            // the first time, 3 while it lasts. A batch resets it.
            _chasePauses.Value = available > _releaseMask ? 0 : pauses == 0 ? 1 : MaxChasePauses;
        }
        return tail;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private ref Slot SlotAt(long position) =>
        ref Unsafe.Add(ref MemoryMarshal.GetArrayDataReference(_slots), (nint)(position & _mask));

    private struct Slot
    {
        public T Item;
    }
}
