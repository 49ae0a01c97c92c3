using System;
using System.Buffers;
using System.Runtime.CompilerServices;

namespace FixEngine.Store;

/// <summary>Sorted map from sequence number to (position, length) held in three parallel arrays.</summary>
/// <remarks>
/// Not thread-safe (owned by one store). Appends in ascending order, the normal case, are O(1) amortised; an
/// out-of-order or replacing append is a binary search plus an array shift. Lookups by range use a binary search, so
/// gaps and sparse sequence numbers (after SequenceReset) cost nothing.
/// PERF: three arrays instead of an array of structs keep the binary search on a dense int[] (4 bytes per entry).
/// The arrays are rented from the shared array pools, first when the first entry arrives (unless a capacity is
/// reserved), and swapped for twice the size as the index grows; <see cref="Release"/> returns them.
/// </remarks>
internal sealed class MessageIndex
{
    /// <summary>Entries preallocated when no capacity is given.</summary>
    public const int DefaultCapacity = 256;

    private int[] _seqNums = [];
    private long[] _positions = [];
    private int[] _lengths = [];
    private int _count;

    /// <param name="initialCapacity">Entries to rent up front (16 bytes each; 0: none until the first entry); the
    /// arrays double beyond it.</param>
    public MessageIndex(int initialCapacity = DefaultCapacity)
    {
        if (initialCapacity > 0) Rent(Math.Max(initialCapacity, 16));
    }

    public int Count => _count;

    /// <summary>Bytes of pooled arrays held.</summary>
    public long RetainedBytes => _seqNums.Length * 16L;

    public int SeqNumAt(int index) => _seqNums[index];

    public long PositionAt(int index) => _positions[index];

    public int LengthAt(int index) => _lengths[index];

    /// <summary>Records that message <paramref name="seqNum"/> lives at <paramref name="position"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Set(int seqNum, long position, int length)
    {
        int count = _count;
        if ((uint)count < (uint)_seqNums.Length && (count == 0 || _seqNums[count - 1] < seqNum))
        {
            _seqNums[count] = seqNum;
            _positions[count] = position;
            _lengths[count] = length;
            _count = count + 1;
            return;
        }
        SetSlow(seqNum, position, length);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void SetSlow(int seqNum, long position, int length)
    {
        int index = LowerBound(seqNum);
        if (index < _count && _seqNums[index] == seqNum)
        {
            _positions[index] = position;
            _lengths[index] = length;
            return;
        }
        if (_count == _seqNums.Length) Grow();
        int tail = _count - index;
        if (tail > 0)
        {
            Array.Copy(_seqNums, index, _seqNums, index + 1, tail);
            Array.Copy(_positions, index, _positions, index + 1, tail);
            Array.Copy(_lengths, index, _lengths, index + 1, tail);
        }
        _seqNums[index] = seqNum;
        _positions[index] = position;
        _lengths[index] = length;
        _count++;
    }

    private void Grow() => Rent(Math.Max(16, _seqNums.Length * 2));

    private void Rent(int capacity)
    {
        int[] seqNums = ArrayPool<int>.Shared.Rent(capacity);
        long[] positions = ArrayPool<long>.Shared.Rent(capacity);
        int[] lengths = ArrayPool<int>.Shared.Rent(capacity);
        // The shared pools round every element type up to the same power of two, so the three lengths agree.
        Array.Copy(_seqNums, seqNums, _count);
        Array.Copy(_positions, positions, _count);
        Array.Copy(_lengths, lengths, _count);
        ReturnArrays();
        _seqNums = seqNums;
        _positions = positions;
        _lengths = lengths;
    }

    private void ReturnArrays()
    {
        if (_seqNums.Length != 0) ArrayPool<int>.Shared.Return(_seqNums);
        if (_positions.Length != 0) ArrayPool<long>.Shared.Return(_positions);
        if (_lengths.Length != 0) ArrayPool<int>.Shared.Return(_lengths);
        _seqNums = [];
        _positions = [];
        _lengths = [];
    }

    /// <summary>Drops every entry and returns the arrays to the pools (the index rents again when it is next used).</summary>
    public void Release()
    {
        _count = 0;
        ReturnArrays();
    }

    /// <summary>Index of the first entry whose sequence number is at least <paramref name="seqNum"/> (Count if none).</summary>
    public int LowerBound(int seqNum)
    {
        int count = _count;
        if (count == 0 || _seqNums[0] >= seqNum) return 0;
        if (_seqNums[count - 1] < seqNum) return count;
        int found = Array.BinarySearch(_seqNums, 0, count, seqNum);
        return found >= 0 ? found : ~found;
    }

    /// <summary>Drops every entry; keeps the arrays for reuse.</summary>
    public void Clear() => _count = 0;
}
