using System;
using System.Buffers;
using System.Runtime.CompilerServices;

namespace FixEngine.Store;

/// <summary>The file store's map from sequence number to journal record position: 4 bytes per message for the
/// normal run of consecutive sequence numbers, in segments rented from the shared array pools as it grows.</summary>
/// <remarks>
/// Not thread-safe (owned by one store). The main part is append-only in ascending sequence order (the journal order of
/// a session's outbound messages): segments of <see cref="SegmentSize"/> entries, each a base record position and one
/// 32-bit offset per entry; the sequence numbers are implicit (first + i) until a segment sees a gap, when it rents a
/// sequence number array (8 bytes per entry from then on in that segment). A record too far from its segment's base for
/// 32 bits (only when a replacement lands gigabytes later) switches that segment to 64-bit positions. A message stored
/// under a number below the last one that is not already indexed (rare: a sender number moved back over a gap) goes
/// to a small sorted overlay; reads merge the two. The index keeps record starts, not lengths: the record's head in the
/// journal carries the length and CRCs, read with the message. Entries whose head cannot be read that way (format 1
/// records, a record known only by its trailer in a journal this store may not repair) carry their payload position
/// and length explicitly (a per-segment length array, rented on first need).
/// Nothing is rented before the first message; <see cref="Clear"/> returns every segment except the reserved ones to
/// the pools, so an idle or freshly reset session holds at most its reservation.
/// </remarks>
internal sealed class JournalIndex
{
    public const int SegmentShift = 10;
    public const int SegmentSize = 1 << SegmentShift;
    private const int SegmentMask = SegmentSize - 1;

    private struct Segment
    {
        public uint[]? Offsets;
        public int[]? SeqNums;
        public long[]? Wide;
        public int[]? Lengths;
        public long Base;
        public int First;
    }

    private readonly int _reservedSegments;
    private Segment[] _segments = [];
    private int _segmentCount;
    private int _count;
    private int _lastSeq;
    private MessageIndex? _overlay;
    private bool _hasExplicitLengths;

    /// <param name="reservedEntries">Entries whose segments are rented up front and kept across <see cref="Clear"/>
    /// (0: none; rounded up to whole segments).</param>
    public JournalIndex(int reservedEntries)
    {
        _reservedSegments = (int)(((long)Math.Max(0, reservedEntries) + SegmentSize - 1) >> SegmentShift);
        if (_reservedSegments > 0)
        {
            _segments = new Segment[_reservedSegments];
            for (int i = 0; i < _reservedSegments; i++) _segments[i].Offsets = ArrayPool<uint>.Shared.Rent(SegmentSize);
        }
    }

    /// <summary>The number of messages indexed.</summary>
    public int Count => _count + (_overlay?.Count ?? 0);

    /// <summary>The number of entries in the ascending main part (<see cref="MainSeqNumAt"/>, <see cref="MainPositionAt"/>).</summary>
    public int MainCount => _count;

    /// <summary>True when some entry since the last clear was set with an explicit length.</summary>
    public bool HasExplicitLengths => _hasExplicitLengths;

    /// <summary>The out-of-order entries (null when there never were any since the last clear).</summary>
    public MessageIndex? Overlay => _overlay is { Count: > 0 } ? _overlay : null;

    /// <summary>Bytes of pooled arrays this index holds (segments, sequence arrays, overlay).</summary>
    public long RetainedBytes
    {
        get
        {
            long bytes = 0;
            for (int i = 0; i < _segments.Length; i++)
            {
                ref Segment s = ref _segments[i];
                if (s.Offsets is not null) bytes += s.Offsets.Length * 4L;
                if (s.SeqNums is not null) bytes += s.SeqNums.Length * 4L;
                if (s.Wide is not null) bytes += s.Wide.Length * 8L;
                if (s.Lengths is not null) bytes += s.Lengths.Length * 4L;
            }
            return bytes + (_overlay?.RetainedBytes ?? 0);
        }
    }

    public int MainSeqNumAt(int index)
    {
        ref Segment s = ref _segments[index >> SegmentShift];
        int slot = index & SegmentMask;
        return s.SeqNums is null ? s.First + slot : s.SeqNums[slot];
    }

    public long MainPositionAt(int index)
    {
        ref Segment s = ref _segments[index >> SegmentShift];
        int slot = index & SegmentMask;
        return s.Wide is null ? s.Base + s.Offsets![slot] : s.Wide[slot];
    }

    /// <summary>-1 when the main entry is a record start (length in its head), else the payload length (the position
    /// is then the payload's).</summary>
    public int MainLengthAt(int index)
    {
        int[]? lengths = _segments[index >> SegmentShift].Lengths;
        return lengths is null ? -1 : lengths[index & SegmentMask];
    }

    /// <summary>Records that message <paramref name="seqNum"/>'s record starts at <paramref name="position"/> (or, with
    /// <paramref name="length"/> at least 0, that its payload of that length starts there).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Set(int seqNum, long position, int length = -1)
    {
        if (length < 0 && (_count == 0 || seqNum > _lastSeq))
        {
            Append(seqNum, position);
            return;
        }
        SetSlow(seqNum, position, length);
    }

    private void Append(int seqNum, long position, int length = -1)
    {
        int count = _count;
        int slot = count & SegmentMask;
        if (slot == 0)
        {
            int segment = count >> SegmentShift;
            if (segment == _segments.Length) GrowTable();
            ref Segment fresh = ref _segments[segment];
            fresh.Offsets ??= ArrayPool<uint>.Shared.Rent(SegmentSize);
            fresh.Base = position;
            fresh.First = seqNum;
            fresh.Offsets[0] = 0;
            if (length >= 0) StoreLength(ref fresh, 0, length);
            _segmentCount = segment + 1;
            _count = count + 1;
            _lastSeq = seqNum;
            return;
        }
        ref Segment s = ref _segments[count >> SegmentShift];
        if (s.SeqNums is null)
        {
            if (seqNum != s.First + slot) MaterialiseSeqNums(ref s, slot);
        }
        if (s.SeqNums is not null) s.SeqNums[slot] = seqNum;
        StorePosition(ref s, slot, position);
        if (length >= 0 || s.Lengths is not null) StoreLength(ref s, slot, length);
        _count = count + 1;
        _lastSeq = seqNum;
    }

    private void StoreLength(ref Segment s, int slot, int length)
    {
        if (s.Lengths is null)
        {
            if (length < 0) return;
            s.Lengths = ArrayPool<int>.Shared.Rent(SegmentSize);
            s.Lengths.AsSpan(0, SegmentSize).Fill(-1);
        }
        s.Lengths[slot] = length;
        if (length >= 0) _hasExplicitLengths = true;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void StorePosition(ref Segment s, int slot, long position)
    {
        if (s.Wide is not null)
        {
            s.Wide[slot] = position;
            return;
        }
        long offset = position - s.Base;
        if ((ulong)offset <= uint.MaxValue)
        {
            s.Offsets![slot] = (uint)offset;
            return;
        }
        Widen(ref s, slot, position);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Widen(ref Segment s, int slot, long position)
    {
        long[] wide = ArrayPool<long>.Shared.Rent(SegmentSize);
        for (int i = 0; i < SegmentSize; i++) wide[i] = s.Base + s.Offsets![i];
        wide[slot] = position;
        s.Wide = wide;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void MaterialiseSeqNums(ref Segment s, int filled)
    {
        int[] seqNums = ArrayPool<int>.Shared.Rent(SegmentSize);
        for (int i = 0; i < filled; i++) seqNums[i] = s.First + i;
        s.SeqNums = seqNums;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void GrowTable()
    {
        var table = new Segment[Math.Max(4, _segments.Length * 2)];
        Array.Copy(_segments, table, _segments.Length);
        _segments = table;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void SetSlow(int seqNum, long position, int length)
    {
        if (_count == 0 || seqNum > _lastSeq)
        {
            Append(seqNum, position, length);
            return;
        }
        int index = MainLowerBound(seqNum);
        if (index < _count && MainSeqNumAt(index) == seqNum)
        {
            ref Segment s = ref _segments[index >> SegmentShift];
            StorePosition(ref s, index & SegmentMask, position);
            StoreLength(ref s, index & SegmentMask, length);
            return;
        }
        _overlay ??= new MessageIndex(0);
        _overlay.Set(seqNum, position, length);
        if (length >= 0) _hasExplicitLengths = true;
    }

    /// <summary>Index in the main part of the first entry whose sequence number is at least <paramref name="seqNum"/>
    /// (<see cref="MainCount"/> if none).</summary>
    public int MainLowerBound(int seqNum)
    {
        int count = _count;
        if (count == 0 || _segments[0].First >= seqNum) return 0;
        if (_lastSeq < seqNum) return count;
        // The last segment whose first number is at most seqNum.
        int lo = 0;
        int hi = _segmentCount - 1;
        while (lo < hi)
        {
            int mid = (lo + hi + 1) >> 1;
            if (_segments[mid].First <= seqNum) lo = mid;
            else hi = mid - 1;
        }
        ref Segment s = ref _segments[lo];
        int filled = lo == _segmentCount - 1 ? ((count - 1) & SegmentMask) + 1 : SegmentSize;
        int baseIndex = lo << SegmentShift;
        if (s.SeqNums is null)
        {
            long slot = (long)seqNum - s.First;
            return baseIndex + (int)Math.Min(slot, filled);
        }
        int found = Array.BinarySearch(s.SeqNums, 0, filled, seqNum);
        return baseIndex + (found >= 0 ? found : ~found);
    }

    /// <summary>Drops every entry; returns all segments but the reserved ones to the pools.</summary>
    public void Clear()
    {
        for (int i = 0; i < _segmentCount; i++)
        {
            ref Segment s = ref _segments[i];
            if (s.SeqNums is not null)
            {
                ArrayPool<int>.Shared.Return(s.SeqNums);
                s.SeqNums = null;
            }
            if (s.Wide is not null)
            {
                ArrayPool<long>.Shared.Return(s.Wide);
                s.Wide = null;
            }
            if (s.Lengths is not null)
            {
                ArrayPool<int>.Shared.Return(s.Lengths);
                s.Lengths = null;
            }
            if (i >= _reservedSegments && s.Offsets is not null)
            {
                ArrayPool<uint>.Shared.Return(s.Offsets);
                s.Offsets = null;
            }
        }
        _segmentCount = 0;
        _count = 0;
        _lastSeq = 0;
        _hasExplicitLengths = false;
        _overlay?.Release();
    }

    /// <summary>Returns everything to the pools, the reservation included; the index stays usable (it rents again).</summary>
    public void Release()
    {
        Clear();
        for (int i = 0; i < _segments.Length && i < _reservedSegments; i++)
        {
            if (_segments[i].Offsets is { } offsets)
            {
                ArrayPool<uint>.Shared.Return(offsets);
                _segments[i].Offsets = null;
            }
        }
    }
}
