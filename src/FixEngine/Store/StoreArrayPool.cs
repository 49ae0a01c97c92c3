using System;
using System.Numerics;
using System.Threading;

namespace FixEngine.Store;

/// <summary>The stores' own pool of growth arrays (arena chunks, index arrays), allocated on the pinned object heap.</summary>
/// <remarks>
/// Thread-safe (a lock per size class; taken only when a store grows, resets or is disposed, never per message).
/// Lengths are powers of two from 16 elements, like <see cref="System.Buffers.ArrayPool{T}.Shared"/>'s buckets.
/// PERF: when the pool has no array of the size asked for, a new one is allocated with
/// <see cref="GC.AllocateUninitializedArray{T}(int, bool)"/> on the pinned object heap instead of gen0: a store's growth
/// arrays live as long as its history, and small ones allocated in gen0 survive and are copied by gen0 and gen1
/// collections (at 10,000 sessions the memory store's growth caused the acceptor's gen0 collections in the busy window).
/// The pinned heap is never compacted and is collected with gen2. A returned array is kept for the next store that
/// grows, up to a bound per size class (16 MiB of arrays, at most 4,096 and at least 8 arrays); beyond it the array is
/// left to the collector. Arrays longer than 2^30 elements are allocated at the exact length and never pooled.
/// Rented arrays are not cleared: callers read only what they wrote.
/// </remarks>
internal static class StoreArrayPool<T> where T : unmanaged
{
    private const int MinShift = 4;
    private const int MaxShift = 30;
    private const long BytesKeptPerSize = 16L << 20;

    private static readonly Bucket[] s_buckets = CreateBuckets();

    /// <summary>An array of at least <paramref name="minimumLength"/> elements (a power of two up to 2^30), pooled or new.</summary>
    public static T[] Rent(int minimumLength)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(minimumLength);
        int shift = Math.Max(MinShift, 32 - BitOperations.LeadingZeroCount((uint)Math.Max(minimumLength - 1, 1)));
        if (shift > MaxShift) return GC.AllocateUninitializedArray<T>(minimumLength, pinned: true);
        return s_buckets[shift - MinShift].TryPop() ?? GC.AllocateUninitializedArray<T>(1 << shift, pinned: true);
    }

    /// <summary>Gives <paramref name="array"/> back for the next <see cref="Rent"/>; arrays of other lengths (or past
    /// the bound) are left to the collector.</summary>
    public static void Return(T[] array)
    {
        int length = array.Length;
        if (length < 1 << MinShift || !BitOperations.IsPow2(length)) return;
        int shift = BitOperations.Log2((uint)length);
        if (shift > MaxShift) return;
        s_buckets[shift - MinShift].TryPush(array);
    }

    /// <summary>Arrays of <paramref name="length"/> elements held by the pool (for tests).</summary>
    internal static int PooledCount(int length) =>
        BitOperations.IsPow2(length) && length >= 1 << MinShift && length <= 1 << MaxShift
            ? s_buckets[BitOperations.Log2((uint)length) - MinShift].Count
            : 0;

    private static Bucket[] CreateBuckets()
    {
        var buckets = new Bucket[MaxShift - MinShift + 1];
        for (int shift = MinShift; shift <= MaxShift; shift++)
        {
            long arrayBytes = (1L << shift) * System.Runtime.CompilerServices.Unsafe.SizeOf<T>();
            buckets[shift - MinShift] = new Bucket((int)Math.Clamp(BytesKeptPerSize / arrayBytes, 8, 4096));
        }
        return buckets;
    }

    private sealed class Bucket(int capacity)
    {
        private readonly Lock _lock = new();
        private T[]?[] _arrays = [];
        private int _count;

        public int Count => Volatile.Read(ref _count);

        public T[]? TryPop()
        {
            lock (_lock)
            {
                if (_count == 0) return null;
                T[]? array = _arrays[--_count];
                _arrays[_count] = null;
                return array;
            }
        }

        public void TryPush(T[] array)
        {
            lock (_lock)
            {
                if (_count == capacity) return;
                if (_count == _arrays.Length) Array.Resize(ref _arrays, Math.Min(capacity, Math.Max(8, _arrays.Length * 2)));
                _arrays[_count++] = array;
            }
        }
    }
}
