using System;
using System.Buffers;
using System.Threading;
using Microsoft.Extensions.ObjectPool;

namespace FixEngine.Buffers;

// Design:
// - One encoded message shared by several holders (e.g. many sessions' send queues) without copying.
//   The writer rents it (count = 1), fills WritableSpan, calls SetLength, then AddRef()s once per extra
//   holder before handing it over. Each holder calls Release() when done; the release that takes the
//   count to zero returns the byte array to its ArrayPool and this object to its RefCountedBufferPool.
// - _refCount is the only field written concurrently (Interlocked: full fence, so every holder's reads
//   of the bytes happen before the last release recycles them). _array/_length are written only while
//   a single owner holds the buffer (after Rent, before sharing), and published to other threads by
//   whatever hand-off the holders use (queues, rings), which must itself be a release/acquire pair.
// - A release past zero throws (a holder released twice). Once the object has been rented again such a
//   late release cannot be told apart from a legitimate one: holders must drop their reference on release.

/// <summary>A pooled, reference-counted byte buffer holding one encoded message shared by several holders.</summary>
/// <remarks>
/// <see cref="AddRef"/> and <see cref="Release"/> are thread-safe; reading the bytes is safe from any holder;
/// writing is for the single owner before the buffer is shared. No member allocates (the pool allocates only when empty).
/// <para>Part of FixEngine's reusable low-latency toolkit (with the other types of Buffers, Collections, Timing and
/// Hosting): public and supported for trading code to use on its own threads, independently of the FIX layers.</para>
/// </remarks>
public sealed class RefCountedBuffer
{
    private readonly RefCountedBufferPool _owner;
    private byte[]? _array;
    private int _length;
    private int _refCount;

    internal RefCountedBuffer(RefCountedBufferPool owner) => _owner = owner;

    /// <summary>Current number of holders (0 when back in the pool).</summary>
    public int RefCount => Volatile.Read(ref _refCount);

    /// <summary>Length of the message in bytes, set by <see cref="SetLength"/>.</summary>
    public int Length => _length;

    /// <summary>Capacity of the rented array.</summary>
    public int Capacity => _array?.Length ?? 0;

    /// <summary>The message bytes.</summary>
    /// <exception cref="ObjectDisposedException">The buffer is back in the pool.</exception>
    public ReadOnlySpan<byte> Span => new(ArrayOrThrow(), 0, _length);

    /// <summary>The message bytes as memory (e.g. for a socket send).</summary>
    /// <exception cref="ObjectDisposedException">The buffer is back in the pool.</exception>
    public ReadOnlyMemory<byte> Memory => new(ArrayOrThrow(), 0, _length);

    /// <summary>The whole rented array, for the owner to encode into before sharing.</summary>
    /// <exception cref="ObjectDisposedException">The buffer is back in the pool.</exception>
    public Span<byte> WritableSpan => ArrayOrThrow();

    /// <summary>Sets the message length after encoding into <see cref="WritableSpan"/>.</summary>
    /// <param name="length">0 to <see cref="Capacity"/>.</param>
    /// <exception cref="ArgumentOutOfRangeException">The length exceeds the capacity.</exception>
    public void SetLength(int length)
    {
        if ((uint)length > (uint)ArrayOrThrow().Length)
        {
            Internal.ThrowHelper.ThrowArgumentOutOfRange(nameof(length), length, "Length exceeds the buffer capacity.");
        }
        _length = length;
    }

    /// <summary>Adds a holder.</summary>
    /// <exception cref="InvalidOperationException">The buffer was already fully released.</exception>
    public void AddRef()
    {
        if (Interlocked.Increment(ref _refCount) <= 1)
        {
            Interlocked.Decrement(ref _refCount);
            Internal.ThrowHelper.ThrowInvalidOperation("AddRef on a RefCountedBuffer that was already fully released.");
        }
    }

    /// <summary>Removes a holder; the last one returns the array and this object to their pools.</summary>
    /// <exception cref="InvalidOperationException">More releases than holders.</exception>
    public void Release()
    {
        int count = Interlocked.Decrement(ref _refCount);
        if (count == 0)
        {
            _owner.ReturnToPool(this);
        }
        else if (count < 0)
        {
            Interlocked.Increment(ref _refCount);
            Internal.ThrowHelper.ThrowInvalidOperation("RefCountedBuffer released more times than it was referenced.");
        }
    }

    internal void Initialize(byte[] array)
    {
        _array = array;
        _length = 0;
        Volatile.Write(ref _refCount, 1);
    }

    internal byte[]? Detach()
    {
        byte[]? array = _array;
        _array = null;
        _length = 0;
        return array;
    }

    private byte[] ArrayOrThrow()
    {
        byte[]? array = _array;
        if (array is null)
        {
            throw new ObjectDisposedException(nameof(RefCountedBuffer), "The RefCountedBuffer is back in its pool.");
        }
        return array;
    }
}

/// <summary>Rents <see cref="RefCountedBuffer"/> instances backed by an <see cref="ArrayPool{T}"/>.</summary>
/// <remarks>
/// Thread-safe. Objects are recycled through <see cref="DefaultObjectPool{T}"/> with a reset policy and arrays through
/// the array pool, so steady-state rent/release allocates nothing.
/// <para>Part of FixEngine's reusable low-latency toolkit (with the other types of Buffers, Collections, Timing and
/// Hosting): public and supported for trading code to use on its own threads, independently of the FIX layers.</para>
/// </remarks>
public sealed class RefCountedBufferPool
{
    private readonly ArrayPool<byte> _arrayPool;
    private readonly ObjectPool<RefCountedBuffer> _objects;

    /// <summary>Creates a pool.</summary>
    /// <param name="arrayPool">Where arrays come from; <see cref="ArrayPool{T}.Shared"/> when null.</param>
    /// <param name="maximumRetained">Most idle <see cref="RefCountedBuffer"/> objects kept.</param>
    public RefCountedBufferPool(ArrayPool<byte>? arrayPool = null, int maximumRetained = 256)
    {
        if (maximumRetained < 1)
        {
            Internal.ThrowHelper.ThrowArgumentOutOfRange(nameof(maximumRetained), maximumRetained, "maximumRetained must be at least 1.");
        }
        _arrayPool = arrayPool ?? ArrayPool<byte>.Shared;
        _objects = new DefaultObjectPool<RefCountedBuffer>(new Policy(this), maximumRetained);
    }

    /// <summary>Rents a buffer of at least <paramref name="minimumLength"/> bytes with a reference count of 1.</summary>
    /// <param name="minimumLength">Bytes needed.</param>
    /// <returns>The buffer; <see cref="RefCountedBuffer.Length"/> is 0 until set.</returns>
    public RefCountedBuffer Rent(int minimumLength)
    {
        if (minimumLength < 0)
        {
            Internal.ThrowHelper.ThrowNegativeLength(nameof(minimumLength), minimumLength);
        }
        RefCountedBuffer buffer = _objects.Get();
        buffer.Initialize(_arrayPool.Rent(minimumLength));
        return buffer;
    }

    internal void ReturnToPool(RefCountedBuffer buffer) => _objects.Return(buffer);

    private sealed class Policy : IPooledObjectPolicy<RefCountedBuffer>
    {
        private readonly RefCountedBufferPool _owner;

        public Policy(RefCountedBufferPool owner) => _owner = owner;

        public RefCountedBuffer Create() => new(_owner);

        public bool Return(RefCountedBuffer obj)
        {
            byte[]? array = obj.Detach();
            if (array is not null)
            {
                _owner._arrayPool.Return(array);
            }
            return true;
        }
    }
}
