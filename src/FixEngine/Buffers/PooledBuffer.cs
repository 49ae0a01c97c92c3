using System;
using System.Buffers;
using System.Collections.Generic;
using System.Diagnostics;

namespace FixEngine.Buffers;

/// <summary>A scoped rental of a byte array from an <see cref="ArrayPool{T}"/>, returned on <see cref="Dispose"/>.</summary>
/// <remarks>
/// <para>Use as <c>using var buffer = PooledBuffer.Rent(4096);</c>. The array may be longer than
/// <see cref="Length"/>; <see cref="Span"/> and <see cref="Memory"/> are cut to <see cref="Length"/>.</para>
/// <para>Copy semantics: this is a struct, so a copy refers to the same array. Dispose exactly one of the
/// copies, exactly once, and stop using all copies afterwards. Disposing the same variable twice is a
/// no-op; disposing two copies returns the array twice, which corrupts the pool. DEBUG builds of the
/// engine track outstanding arrays and throw on a double return or on access through a returned copy
/// (as long as the pool has not handed the same array out again); tests pass a leak-tracking pool to
/// <see cref="Rent(int, ArrayPool{byte})"/>.</para>
/// <para>Not thread-safe; rent and return on any thread. Allocates nothing beyond what the pool does
/// (the shared pool allocates only when its buckets are empty).</para>
/// <para>Part of FixEngine's reusable low-latency toolkit (with the other types of Buffers, Collections, Timing and
/// Hosting): public and supported for trading code to use on its own threads, independently of the FIX layers.</para>
/// </remarks>
public struct PooledBuffer : IDisposable
{
    private byte[]? _array;
    private readonly ArrayPool<byte>? _pool;
    private readonly int _length;

    private PooledBuffer(byte[] array, int length, ArrayPool<byte> pool)
    {
        _array = array;
        _length = length;
        _pool = pool;
    }

    /// <summary>Rents at least <paramref name="length"/> bytes from <see cref="ArrayPool{T}.Shared"/>.</summary>
    /// <param name="length">Bytes needed; <see cref="Length"/> is exactly this.</param>
    /// <returns>The rental; dispose it to return the array.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="length"/> is negative.</exception>
    public static PooledBuffer Rent(int length) => Rent(length, ArrayPool<byte>.Shared);

    /// <summary>Rents at least <paramref name="length"/> bytes from <paramref name="pool"/>.</summary>
    /// <param name="length">Bytes needed; <see cref="Length"/> is exactly this.</param>
    /// <param name="pool">The pool to rent from and return to (tests pass a leak-tracking pool).</param>
    /// <returns>The rental; dispose it to return the array.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="length"/> is negative.</exception>
    /// <exception cref="ArgumentNullException"><paramref name="pool"/> is null.</exception>
    public static PooledBuffer Rent(int length, ArrayPool<byte> pool)
    {
        ArgumentNullException.ThrowIfNull(pool);
        if (length < 0)
        {
            Internal.ThrowHelper.ThrowNegativeLength(nameof(length), length);
        }
        byte[] array = pool.Rent(length);
        DebugTracker.OnRent(array);
        return new PooledBuffer(array, length, pool);
    }

    /// <summary>Requested length in bytes.</summary>
    public readonly int Length => _length;

    /// <summary>Whether this copy still holds its array (false after <see cref="Dispose"/> or for <c>default</c>).</summary>
    public readonly bool IsRented => _array is not null;

    /// <summary>The whole rented array (may be longer than <see cref="Length"/>).</summary>
    /// <exception cref="ObjectDisposedException">The buffer was returned.</exception>
    public readonly byte[] Array
    {
        get
        {
            byte[]? array = _array;
            if (array is null)
            {
                Internal.ThrowHelper.ThrowPooledBufferUseAfterReturn();
            }
            DebugTracker.CheckOutstanding(array);
            return array;
        }
    }

    /// <summary>The first <see cref="Length"/> bytes of the array.</summary>
    /// <exception cref="ObjectDisposedException">The buffer was returned.</exception>
    public readonly Span<byte> Span => new(Array, 0, _length);

    /// <summary>The first <see cref="Length"/> bytes of the array as memory.</summary>
    /// <exception cref="ObjectDisposedException">The buffer was returned.</exception>
    public readonly Memory<byte> Memory => new(Array, 0, _length);

    /// <summary>Returns the array to its pool. Idempotent for this variable; see the remarks about copies.</summary>
    /// <exception cref="InvalidOperationException">DEBUG builds: another copy already returned the array.</exception>
    public void Dispose()
    {
        byte[]? array = _array;
        if (array is null)
        {
            return;
        }
        _array = null;
        DebugTracker.OnReturn(array);
        _pool!.Return(array);
    }

    /// <summary>DEBUG-only bookkeeping of arrays currently rented through PooledBuffer.</summary>
    private static class DebugTracker
    {
        private static readonly HashSet<byte[]> s_outstanding = new(ReferenceEqualityComparer.Instance);

        [Conditional("DEBUG")]
        public static void OnRent(byte[] array) => Update(array, Change.Rent);

        [Conditional("DEBUG")]
        public static void OnReturn(byte[] array)
        {
            if (!Update(array, Change.Return)) Internal.ThrowHelper.ThrowPooledBufferDoubleReturn();
        }

        [Conditional("DEBUG")]
        public static void CheckOutstanding(byte[] array)
        {
            if (!Update(array, Change.Check)) Internal.ThrowHelper.ThrowPooledBufferUseAfterReturn();
        }

        private enum Change
        {
            Rent,
            Return,
            Check,
        }

        // The one place the set is read or changed, under its lock. False when a returned or checked array is not
        // outstanding. The pool's one shared empty array is never tracked.
        private static bool Update(byte[] array, Change change)
        {
            if (array.Length == 0) return true;
            lock (s_outstanding)
            {
                return change switch
                {
                    Change.Rent => s_outstanding.Add(array) || true,
                    Change.Return => s_outstanding.Remove(array),
                    _ => s_outstanding.Contains(array),
                };
            }
        }
    }
}
