using System;
using System.Buffers;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace FixEngine.Store;

/// <summary>The file store's map from sequence number to journal record position: 3 bytes per message for the
/// normal run of consecutive sequence numbers, in segments rented from the shared array pools as it grows.</summary>
/// <remarks>
/// Not thread-safe (owned by one store). The main part is append-only in ascending sequence order (the journal order of
/// a session's outbound messages): segments of <see cref="SegmentSize"/> entries, each a base record position and one
/// 24-bit offset per entry, in 8-byte units (journal records start 8 bytes apart: every record is padded to a
/// multiple of 8), so a segment spans up to 128 MiB of journal. A segment whose entries do not all lie a multiple of 8
/// from its base (records after a hole, which is not padded, or format 1 records) keeps 24-bit offsets in bytes (16 MiB)
/// instead; a record that fits neither (a segment of messages averaging above 128 KiB, a replacement landing far
/// later, an entry before the base) switches that segment to 64-bit positions. The sequence numbers are implicit
/// (first + i) until a segment sees a gap, when it rents a sequence number array (4 more bytes per entry in that
/// segment). A message stored under a number below the last one that is not already indexed (rare: a sender number
/// moved back over a gap) goes to a small sorted overlay; reads merge the two. The index keeps record starts, not
/// lengths: the record's head in the journal carries the length and CRCs, read with the message. Entries whose head
/// cannot be read that way (format 1 records, a record known only by its trailer in a journal this store may not
/// repair) carry their payload position and length explicitly (a per-segment length array, rented on first need).
/// Nothing is rented before the first message; <see cref="Clear"/> returns every segment except the reserved ones to
/// the pools, so an idle or freshly reset session holds at most its reservation.
/// </remarks>
internal sealed class JournalIndex
{
    public const int SegmentShift = 10;
    public const int SegmentSize = 1 << SegmentShift;
    private const int SegmentMask = SegmentSize - 1;

    /// <summary>The largest offset a narrow entry holds, in its segment's units.</summary>
    private const uint NarrowMax = (1u << 24) - 1;

    /// <summary>Offset units of a narrow segment: 8 bytes (log2) while every entry lies a multiple of 8 from the base.</summary>
    private const byte AlignedShift = 3;

    private struct Segment
    {
        public Offset24[]? Offsets;
        public int[]? SeqNums;
        public long[]? Wide;
        public int[]? Lengths;
        public long Base;
        public int First;
        public byte Shift;
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
            for (int i = 0; i < _reservedSegments; i++) _segments[i].Offsets = ArrayPool<Offset24>.Shared.Rent(SegmentSize);
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
                if (s.Offsets is not null) bytes += s.Offsets.Length * (long)Offset24.Size;
                if (s.SeqNums is not null) bytes += s.SeqNums.Length * 4L;
                if (s.Wide is not null) bytes += s.Wide.Length * 8L;
                if (s.Lengths is not null) bytes += s.Lengths.Length * 4L;
            }
            return bytes + (_overlay?.RetainedBytes ?? 0);
        }
    }

    /// <summary>Segments of the main part that hold 64-bit positions (their span or alignment fits no narrow offset).</summary>
    internal int WideSegments
    {
        get
        {
            int wide = 0;
            for (int i = 0; i < _segmentCount; i++)
            {
                if (_segments[i].Wide is not null) wide++;
            }
            return wide;
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public int MainSeqNumAt(int index)
    {
        ref Segment s = ref _segments[index >> SegmentShift];
        int slot = index & SegmentMask;
        return s.SeqNums is null ? s.First + slot : s.SeqNums[slot];
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public long MainPositionAt(int index)
    {
        ref Segment s = ref _segments[index >> SegmentShift];
        int slot = index & SegmentMask;
        return s.Wide is null ? s.Base + ((long)s.Offsets![slot].Value << s.Shift) : s.Wide[slot];
    }

    /// <summary>-1 when the main entry is a record start (length in its head), else the payload length (the position
    /// is then the payload's).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
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
            fresh.Offsets ??= ArrayPool<Offset24>.Shared.Rent(SegmentSize);
            fresh.Base = position;
            fresh.First = seqNum;
            fresh.Shift = AlignedShift;
            fresh.Offsets[0] = default;
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
        StorePosition(ref s, slot, position, filled: slot);
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

    // filled: the number of entries of the segment that hold a position (the others are stale pool contents), not
    // counting `slot` when it is the one being appended.
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void StorePosition(ref Segment s, int slot, long position, int filled)
    {
        if (s.Wide is not null)
        {
            s.Wide[slot] = position;
            return;
        }
        long offset = position - s.Base;
        int shift = s.Shift;
        if ((ulong)offset >> shift <= NarrowMax && (offset & ((1L << shift) - 1)) == 0)
        {
            s.Offsets![slot] = new Offset24((uint)(offset >> shift));
            return;
        }
        Refit(ref s, slot, position, filled);
    }

    // A position the segment's narrow offsets cannot hold: byte units if everything fits 24 bits that way, else 64-bit.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Refit(ref Segment s, int slot, long position, int filled)
    {
        Offset24[] offsets = s.Offsets!;
        int shift = s.Shift;
        long offset = position - s.Base;
        if (shift != 0 && (ulong)offset <= NarrowMax)
        {
            bool fits = true;
            for (int i = 0; i < filled && fits; i++) fits = i == slot || offsets[i].Value << shift <= NarrowMax;
            if (fits)
            {
                for (int i = 0; i < filled; i++) offsets[i] = new Offset24(offsets[i].Value << shift);
                s.Shift = 0;
                offsets[slot] = new Offset24((uint)offset);
                return;
            }
        }
        long[] wide = ArrayPool<long>.Shared.Rent(SegmentSize);
        for (int i = 0; i < filled; i++) wide[i] = s.Base + ((long)offsets[i].Value << shift);
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

    // Entries of segment `segment` that hold a position.
    private int Filled(int segment) => segment == _segmentCount - 1 ? ((_count - 1) & SegmentMask) + 1 : SegmentSize;

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
            int segment = index >> SegmentShift;
            ref Segment s = ref _segments[segment];
            StorePosition(ref s, index & SegmentMask, position, Filled(segment));
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
        int filled = Filled(lo);
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
                ArrayPool<Offset24>.Shared.Return(s.Offsets);
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
                ArrayPool<Offset24>.Shared.Return(offsets);
                _segments[i].Offsets = null;
            }
        }
    }
}

/// <summary>An unsigned 24-bit value in 3 bytes (little-endian), so an array of them costs 3 bytes per entry.</summary>
[StructLayout(LayoutKind.Sequential, Pack = 1)]
internal readonly struct Offset24
{
    public const int Size = 3;

    private readonly byte _b0;
    private readonly byte _b1;
    private readonly byte _b2;

    /// <param name="value">At most 2^24 - 1; higher bits are dropped.</param>
    public Offset24(uint value)
    {
        _b0 = (byte)value;
        _b1 = (byte)(value >> 8);
        _b2 = (byte)(value >> 16);
    }

    public uint Value
    {
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        get => _b0 | ((uint)_b1 << 8) | ((uint)_b2 << 16);
    }
}
