using System;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Threading;

namespace FixEngine.Collections;

// Design:
// - Bounded single-producer/single-consumer queue over a power-of-two array, indexed with a mask.
//   Positions are 64-bit counters that only grow; slot = position & mask; count = tail - head.
// - Four PaddedLongs, each value alone on its cache line (no line shared with another field, the
//   object header or a neighbouring object) and 128 bytes from the next (never in one prefetch pair):
//     _tail       producer writes (next slot to fill), consumer reads when its cache runs out
//     _headCache  producer only: the last head it read (stale, never ahead of the real head)
//     _head       consumer writes (next slot to read), producer reads when its cache says full
//     _tailCache  consumer only: the last tail it read (stale, never ahead of the real tail)
//   The cache fields are written and read by one thread only, so their lines stay in that core's cache
//   in the modified state; a side touches its own two lines, the slot, and the other side's position
//   only when its cache says it cannot make progress (once per batch in steady state, not per item).
//   Keeping a side's cache in its own PaddedLong rather than beside its position costs one more line
//   per side, but that line never leaves its owner's L1, so the cost is an L1 load.
//   _slots and _mask are written in the constructor only and read by both sides.
// - Publication: the producer writes the slot, then Volatile.Write(_tail) (release) so the slot is
//   visible before the new tail. The consumer reads _tail with Volatile.Read (acquire) before reading
//   slots. Symmetrically the consumer reads (and clears) the slot, then Volatile.Write(_head)
//   (release) hands it back; the producer's Volatile.Read(_head) (acquire) orders its next write of
//   that slot after the consumer's read. Each side reads its own position and its cache with plain
//   loads (it is their only writer). On x64 both barriers are compiler-only: plain movs.
// - Slots are a struct wrapping T (PERF: storing T directly into a T[] where T is a reference type
//   makes every store a covariant array store check; the wrapper's element type is a value type, so
//   the JIT emits a plain write barrier. Same trick as DefaultObjectPool.ObjectWrapper).

/// <summary>A bounded, lock-free single-producer/single-consumer ring of <typeparamref name="T"/>.</summary>
/// <typeparam name="T">The item type.</typeparam>
/// <remarks>
/// Exactly one thread may call the producer members (<see cref="TryEnqueue"/>) and exactly one
/// (possibly different) thread the consumer members (<see cref="TryDequeue"/>, <see cref="Drain{THandler}"/>).
/// <see cref="Count"/> may be read from any thread and is approximate. No member allocates.
/// </remarks>
public sealed class SpscRing<T>
{
    /// <summary>The largest supported capacity.</summary>
    public const int MaxCapacity = 1 << 30;

    private readonly Slot[] _slots;
    private readonly long _mask;
    private PaddedLong _tail;
    private PaddedLong _headCache;
    private PaddedLong _head;
    private PaddedLong _tailCache;

    /// <summary>Creates a ring holding at most <paramref name="capacity"/> items.</summary>
    /// <param name="capacity">A power of two between 2 and <see cref="MaxCapacity"/>.</param>
    /// <exception cref="ArgumentOutOfRangeException">The capacity is not a power of two in range.</exception>
    public SpscRing(int capacity)
    {
        if (capacity < 2 || capacity > MaxCapacity || !int.IsPow2(capacity))
        {
            CollectionsThrowHelper.ThrowCapacityNotPowerOfTwo(nameof(capacity), capacity, 2, MaxCapacity);
        }
        _slots = new Slot[capacity];
        _mask = capacity - 1;
    }

    /// <summary>The number of slots.</summary>
    public int Capacity => _slots.Length;

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
        if (tail - _headCache.Value >= _slots.Length && !RefreshHeadCache(tail))
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
        if (head >= _tailCache.Value && RefreshTailCache() <= head)
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
        // Release: the slot read/clear above completes before the producer may reuse the slot.
        _head.VolatileValue = head + 1;
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
            available = RefreshTailCache() - head;
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
                // Release: every slot read above completes before the producer may reuse those slots.
                _head.VolatileValue = head + done;
            }
        }
        return done;
    }

    /// <summary>Re-reads the consumer position; returns whether a slot is free for <paramref name="tail"/>.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private bool RefreshHeadCache(long tail)
    {
        // Acquire: the write of a reused slot must happen after the consumer finished reading it.
        long head = _head.VolatileValue;
        _headCache.Value = head;
        return tail - head < _slots.Length;
    }

    /// <summary>Re-reads the producer position into the consumer's cache and returns it.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private long RefreshTailCache()
    {
        // Acquire: pairs with the producer's release of _tail, so the slots before it are visible.
        long tail = _tail.VolatileValue;
        _tailCache.Value = tail;
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
