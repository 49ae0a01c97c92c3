using System;
using System.Buffers;
using System.Runtime.CompilerServices;
using System.Threading;

namespace FixEngine.Transport;

// Design:
// - The bounded circular byte queue behind a connection's send path (TCP: the bytes the socket refused; TLS: the
//   plaintext waiting to be encrypted), one implementation for both. A mutable struct kept in a field of its connection,
//   so it costs no indirection on the send path.
// - Every member runs under the connection's send lock, which TransportConnection.Send.cs owns, except Count, which any
//   thread reads (QueuedSendBytes) with an acquire read. The count is stored plainly under the lock: no reader touches
//   the bytes on the strength of it without taking the lock first, so it needs no release of its own.
// - Bounded by Capacity (SendQueueBytes): the caller checks Free before Enqueue, so a message is queued whole or not at
//   all. The array grows on demand: the first is InitialCapacity bytes, rented from the connection's pool on first use
//   (or by Rent, for Prewarm); a message that does not fit in the array (but within Capacity) makes it double (at least
//   to what is needed), the live bytes copied to the front of the new array, the old one back to the pool. A grown array
//   is kept until Release (teardown), so a connection that fills and drains to the same depth again rents nothing more,
//   and an idle connection that never saw back-pressure holds only the first array.
// - An operation in flight may read the head of the array outside the lock (TCP completion mode: the async send; TLS: the
//   encryption of the head). Growth under it keeps the old array in _retired instead of returning it; the connection
//   calls Dequeue only once such an operation has finished reading, so Dequeue (and Release) give it back. Arrays grown
//   into while an operation was already in flight are never read by it, so at most one array is ever retired.

/// <summary>A circular byte queue bounded by a capacity, over a pooled array that grows on demand (a mutable struct: keep
/// it in a field).</summary>
internal struct SendByteQueue
{
    private readonly ArrayPool<byte> _pool;
    private readonly int _initialCapacity;
    private byte[]? _array;
    private byte[]? _retired;
    private int _head;
    private int _count;

    /// <param name="pool">Where arrays are rented and returned.</param>
    /// <param name="capacity">The most bytes it holds.</param>
    /// <param name="initialCapacity">The first array's size (at most <paramref name="capacity"/>).</param>
    public SendByteQueue(ArrayPool<byte> pool, int capacity, int initialCapacity)
    {
        _pool = pool;
        Capacity = capacity;
        _initialCapacity = Math.Clamp(initialCapacity, 1, capacity);
    }

    /// <summary>The most bytes it holds.</summary>
    public readonly int Capacity { get; }

    /// <summary>Bytes queued (any thread).</summary>
    public int Count => Volatile.Read(ref _count);

    /// <summary>Room left within <see cref="Capacity"/> (under the lock).</summary>
    public readonly int Free => Capacity - _count;

    /// <summary>True once the array is rented.</summary>
    public readonly bool IsRented => _array is not null;

    /// <summary>Bytes of the array rented now (0 when none); for tests and footprint figures.</summary>
    public readonly int ArrayBytes => _array?.Length ?? 0;

    /// <summary>Rents the first array now (Prewarm), if none is rented yet.</summary>
    public void Rent() => _array ??= _pool.Rent(_initialCapacity);

    /// <summary>Copies <paramref name="data"/> to the tail, growing the array first when it lacks room; the caller checked
    /// <see cref="Free"/>.</summary>
    /// <param name="data">The bytes.</param>
    /// <param name="headInUse">An operation in flight may still read the current array's head (it must not go back to
    /// the pool before that operation's <see cref="Dequeue"/>).</param>
    public void Enqueue(ReadOnlySpan<byte> data, bool headInUse)
    {
        byte[] array = _array ??= _pool.Rent(_initialCapacity);
        if (array.Length - _count < data.Length)
        {
            array = Grow(_count + data.Length, headInUse);
        }
        int capacity = array.Length;
        int tail = _head + _count;
        if (tail >= capacity)
        {
            tail -= capacity;
        }
        int first = Math.Min(data.Length, capacity - tail);
        data.Slice(0, first).CopyTo(array.AsSpan(tail));
        data.Slice(first).CopyTo(array);
        _count += data.Length;
    }

    /// <summary>The contiguous run at the head, at most <paramref name="max"/> bytes (the queue is not empty).</summary>
    public readonly void Head(int max, out byte[] array, out int offset, out int length)
    {
        array = _array!;
        offset = _head;
        length = Math.Min(Math.Min(_count, array.Length - _head), max);
    }

    /// <summary>Drops <paramref name="count"/> bytes from the head (they were sent or encrypted): the operation that read
    /// them has finished, so an array retired under it goes back to the pool.</summary>
    public void Dequeue(int count)
    {
        int capacity = _array!.Length;
        int head = _head + count;
        _head = head >= capacity ? head - capacity : head;
        int remaining = _count - count;
        if (remaining == 0)
        {
            _head = 0;
        }
        _count = remaining;
        if (_retired is not null)
        {
            ReturnRetired();
        }
    }

    /// <summary>Empties the queue and returns its arrays to the pool (teardown).</summary>
    public void Release()
    {
        byte[]? array = _array;
        _array = null;
        _head = 0;
        _count = 0;
        if (array is not null)
        {
            _pool.Return(array);
        }
        if (_retired is not null)
        {
            ReturnRetired();
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private byte[] Grow(int needed, bool headInUse)
    {
        byte[] old = _array!;
        long size = Math.Max(old.Length, 1);
        while (size < needed)
        {
            size *= 2;
        }
        // Never past the bound for growth's sake (the pool may still round the array up).
        size = Math.Max(needed, Math.Min(size, Capacity));
        byte[] bigger = _pool.Rent((int)size);
        int first = Math.Min(_count, old.Length - _head);
        Buffer.BlockCopy(old, _head, bigger, 0, first);
        Buffer.BlockCopy(old, 0, bigger, first, _count - first);
        _head = 0;
        _array = bigger;
        if (headInUse && _retired is null)
        {
            _retired = old;
        }
        else
        {
            _pool.Return(old);
        }
        return bigger;
    }

    private void ReturnRetired()
    {
        byte[] retired = _retired!;
        _retired = null;
        _pool.Return(retired);
    }
}
