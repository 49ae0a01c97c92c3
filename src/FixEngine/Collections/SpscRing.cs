using System;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Threading;

namespace FixEngine.Collections;

// Design:
// - Bounded single-producer/single-consumer queue over a power-of-two array, indexed with a mask.
//   Positions are 64-bit counters that only grow; slot = position & mask; count = tail - head.
// - _producer (RingSide) is written only by the producer: Position = tail (next slot to fill),
//   OtherCache = last head it saw. _consumer is written only by the consumer: Position = head (next
//   slot to read), OtherCache = last tail it saw. Each side is padded to FalseSharingRange on both
//   sides, so producer writes never invalidate the consumer's line and vice versa.
// - Publication: the producer writes the slot, then Volatile.Write(tail) (release) so the slot is
//   visible before the new tail. The consumer reads tail with Volatile.Read (acquire) before reading
//   slots. Symmetrically the consumer clears the slot, then Volatile.Write(head) (release) hands the
//   slot back; the producer's Volatile.Read(head) (acquire) orders its next slot write after that.
// - Each side reads the other's position only when its cached copy says the ring is full/empty, so in
//   steady state the shared lines are touched once per batch, not once per item.
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
    private RingSide _producer;
    private RingSide _consumer;

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
            long head = Volatile.Read(ref _consumer.Position);
            long tail = Volatile.Read(ref _producer.Position);
            long count = tail - head;
            return count <= 0 ? 0 : (int)Math.Min(count, _slots.Length);
        }
    }

    /// <summary>Adds an item if there is space. Producer thread only.</summary>
    /// <param name="item">The item to add (copied into the ring).</param>
    /// <returns><see langword="true"/> if added; <see langword="false"/> if the ring is full.</returns>
    public bool TryEnqueue(in T item)
    {
        long tail = _producer.Position;
        if (tail - _producer.OtherCache >= _slots.Length)
        {
            // Acquire: slot reuse must happen after the consumer finished with it.
            _producer.OtherCache = Volatile.Read(ref _consumer.Position);
            if (tail - _producer.OtherCache >= _slots.Length)
            {
                return false;
            }
        }
        SlotAt(tail).Item = item;
        // Release: the slot write above becomes visible before the new tail.
        Volatile.Write(ref _producer.Position, tail + 1);
        return true;
    }

    /// <summary>Removes the oldest item if there is one. Consumer thread only.</summary>
    /// <param name="item">The removed item, or default when the ring is empty.</param>
    /// <returns><see langword="true"/> if an item was removed; <see langword="false"/> if the ring is empty.</returns>
    public bool TryDequeue(out T item)
    {
        long head = _consumer.Position;
        if (head >= _consumer.OtherCache)
        {
            // Acquire: pairs with the producer's release of tail, so the slot contents are visible.
            _consumer.OtherCache = Volatile.Read(ref _producer.Position);
            if (head >= _consumer.OtherCache)
            {
                item = default!;
                return false;
            }
        }
        ref Slot slot = ref SlotAt(head);
        item = slot.Item;
        if (RuntimeHelpers.IsReferenceOrContainsReferences<T>())
        {
            slot.Item = default!; // do not keep the object alive from the ring
        }
        // Release: the slot read/clear above completes before the producer may reuse the slot.
        Volatile.Write(ref _consumer.Position, head + 1);
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
        long head = _consumer.Position;
        long available = _consumer.OtherCache - head;
        if (available <= 0)
        {
            _consumer.OtherCache = Volatile.Read(ref _producer.Position);
            available = _consumer.OtherCache - head;
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
                Volatile.Write(ref _consumer.Position, head + done);
            }
        }
        return done;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private ref Slot SlotAt(long position) =>
        ref Unsafe.Add(ref MemoryMarshal.GetArrayDataReference(_slots), (nint)(position & _mask));

    private struct Slot
    {
        public T Item;
    }
}
