using System;
using System.Runtime.CompilerServices;

namespace FixEngine.Store;

/// <summary>Sorted map from sequence number to (position, length) held in three parallel arrays.</summary>
/// <remarks>
/// Not thread-safe (owned by one store). Appends in ascending order, the normal case, are O(1) amortised; an
/// out-of-order or replacing append is a binary search plus an array shift. Lookups by range use a binary search, so
/// gaps and sparse sequence numbers (after SequenceReset) cost nothing.
/// PERF: three arrays instead of an array of structs keep the binary search on a dense int[] (4 bytes per entry).
/// </remarks>
internal sealed class MessageIndex
{
    /// <summary>Entries preallocated when no capacity is given.</summary>
    public const int DefaultCapacity = 256;

    private int[] _seqNums;
    private long[] _positions;
    private int[] _lengths;
    private int _count;

    /// <param name="initialCapacity">Entries to preallocate (16 bytes each); the arrays double beyond it.</param>
    public MessageIndex(int initialCapacity = DefaultCapacity)
    {
        int capacity = Math.Max(initialCapacity, 16);
        _seqNums = new int[capacity];
        _positions = new long[capacity];
        _lengths = new int[capacity];
    }

    public int Count => _count;

    public int SeqNumAt(int index) => _seqNums[index];

    public long PositionAt(int index) => _positions[index];

    public int LengthAt(int index) => _lengths[index];

    /// <summary>Records that message <paramref name="seqNum"/> lives at <paramref name="position"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Set(int seqNum, long position, int length)
    {
        int count = _count;
        if ((count == 0 || _seqNums[count - 1] < seqNum) && (uint)count < (uint)_seqNums.Length)
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

    private void Grow()
    {
        int newCapacity = _seqNums.Length * 2;
        Array.Resize(ref _seqNums, newCapacity);
        Array.Resize(ref _positions, newCapacity);
        Array.Resize(ref _lengths, newCapacity);
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
