using System;
using System.Buffers;
using System.Threading;

namespace FixEngine.Transport;

// Design:
// - The bounded circular byte queue behind a connection's send path (TCP: the bytes the socket refused; TLS: the
//   plaintext waiting to be encrypted), one implementation for both. A mutable struct kept in a field of its connection,
//   so it costs no indirection on the send path.
// - Every member runs under the connection's send lock, except Count, which other threads read (QueuedSendBytes): the
//   count is published with Volatile.Write after the bytes are copied.
// - The array is exactly Capacity bytes, rented from the connection's pool on first use (or by Rent, for Prewarm) and
//   returned by Release at teardown. The caller checks Free before Enqueue, so a message is queued whole or not at all.

/// <summary>A circular byte queue of fixed capacity over a pooled array (a mutable struct: keep it in a field).</summary>
internal struct SendByteQueue(ArrayPool<byte> pool, int capacity)
{
    private readonly ArrayPool<byte> _pool = pool;
    private byte[]? _array;
    private int _head;
    private int _count;

    /// <summary>The most bytes it holds.</summary>
    public readonly int Capacity { get; } = capacity;

    /// <summary>Bytes queued (any thread).</summary>
    public int Count => Volatile.Read(ref _count);

    /// <summary>Room left (under the lock).</summary>
    public readonly int Free => Capacity - _count;

    /// <summary>True once the array is rented.</summary>
    public readonly bool IsRented => _array is not null;

    /// <summary>Rents the array now (Prewarm), if not yet rented.</summary>
    public void Rent() => _array ??= _pool.Rent(Capacity);

    /// <summary>Copies <paramref name="data"/> to the tail; the caller checked <see cref="Free"/>.</summary>
    public void Enqueue(ReadOnlySpan<byte> data)
    {
        byte[] array = _array ??= _pool.Rent(Capacity);
        int tail = _head + _count;
        if (tail >= Capacity)
        {
            tail -= Capacity;
        }
        int first = Math.Min(data.Length, Capacity - tail);
        data.Slice(0, first).CopyTo(array.AsSpan(tail));
        data.Slice(first).CopyTo(array);
        Volatile.Write(ref _count, _count + data.Length);
    }

    /// <summary>The contiguous run at the head, at most <paramref name="max"/> bytes (the queue is not empty).</summary>
    public readonly void Head(int max, out byte[] array, out int offset, out int length)
    {
        array = _array!;
        offset = _head;
        length = Math.Min(Math.Min(_count, Capacity - _head), max);
    }

    /// <summary>Drops <paramref name="count"/> bytes from the head (they were sent or encrypted).</summary>
    public void Dequeue(int count)
    {
        int head = _head + count;
        _head = head >= Capacity ? head - Capacity : head;
        int remaining = _count - count;
        if (remaining == 0)
        {
            _head = 0;
        }
        Volatile.Write(ref _count, remaining);
    }

    /// <summary>Empties the queue and returns the array to the pool (teardown).</summary>
    public void Release()
    {
        byte[]? array = _array;
        _array = null;
        _head = 0;
        Volatile.Write(ref _count, 0);
        if (array is not null)
        {
            _pool.Return(array);
        }
    }
}
