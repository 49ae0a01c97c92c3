using System;
using System.Collections.Generic;
using System.Linq;
using FixEngine.Store;

namespace FixEngine.Tests.Store;

/// <summary>The file store's compact index against a sorted map: runs, gaps, replacements, out-of-order entries,
/// positions far apart, explicit lengths, clears.</summary>
public sealed class JournalIndexTests
{
    private static List<(int Seq, long Position, int Length)> Entries(JournalIndex index, int from = 1)
    {
        var result = new List<(int, long, int)>();
        int i = index.MainLowerBound(from);
        MessageIndex? overlay = index.Overlay;
        int j = overlay?.LowerBound(from) ?? 0;
        while (i < index.MainCount || (overlay is not null && j < overlay.Count))
        {
            if (i < index.MainCount && (overlay is null || j >= overlay.Count || index.MainSeqNumAt(i) < overlay.SeqNumAt(j)))
            {
                result.Add((index.MainSeqNumAt(i), index.MainPositionAt(i), index.MainLengthAt(i)));
                i++;
            }
            else
            {
                result.Add((overlay!.SeqNumAt(j), overlay.PositionAt(j), overlay.LengthAt(j)));
                j++;
            }
        }
        return result;
    }

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    public void MatchesASortedMapUnderRandomOperations(int seed)
    {
        var random = new Random(seed);
        var index = new JournalIndex(seed == 2 ? 3000 : 0);
        for (int round = 0; round < 3; round++)
        {
            var model = new SortedDictionary<int, (long, int)>();
            long position = 0;
            int seq = 0;
            for (int op = 0; op < 6_000; op++)
            {
                int kind = random.Next(100);
                int target;
                if (kind < 80) target = ++seq;                              // the normal run
                else if (kind < 88) target = seq += 1 + random.Next(50);     // a gap
                else target = 1 + random.Next(Math.Max(1, seq));            // a replacement or an out-of-order entry
                position += kind == 99 ? 5L << 30 : 80 + random.Next(300);   // now and then 5 GiB further
                int length = random.Next(50) == 0 ? random.Next(1000) : -1;
                index.Set(target, position, length);
                model[target] = (position, length);
            }
            var expected = model.Select(kv => (kv.Key, kv.Value.Item1, kv.Value.Item2)).ToList();
            Assert.Equal(expected, Entries(index));
            Assert.Equal(model.Count, index.Count);
            foreach (int from in new[] { 1, seq / 3, seq / 2, seq, seq + 1, random.Next(seq) + 1 })
            {
                Assert.Equal(expected.Where(e => e.Key >= from).ToList(), Entries(index, from));
            }
            index.Clear();
            Assert.Equal(0, index.Count);
            Assert.Empty(Entries(index));
        }
        index.Release();
        Assert.Equal(0, index.RetainedBytes);
    }

    [Fact]
    public void AConsecutiveRunCostsThreeBytesPerMessage()
    {
        var index = new JournalIndex(0);
        Assert.Equal(0, index.RetainedBytes);
        for (int seq = 1; seq <= 100_000; seq++) index.Set(seq, seq * 240L);
        Assert.Equal(98 * JournalIndex.SegmentSize * 3, index.RetainedBytes);
        Assert.Equal(0, index.WideSegments);
        Assert.Equal(50_000, index.MainSeqNumAt(index.MainLowerBound(50_000)));
        Assert.Equal(50_000 * 240L, index.MainPositionAt(index.MainLowerBound(50_000)));
        index.Release();
        Assert.Equal(0, index.RetainedBytes);
    }

    // Record sizes: aligned (every format 2 record), unaligned (after a hole, format 1), each small and large enough that
    // a segment's span exceeds what its 24-bit offsets reach (128 MiB in 8-byte units, 16 MiB in bytes).
    [Theory]
    [InlineData(312, 0)]                // 1,024 x 312 B: narrow, 8-byte units
    [InlineData(131_072, 0)]            // 128 KiB records: a segment spans 128 MiB - 128 KiB, within reach
    [InlineData(131_208, 3)]            // 1,023 x 131,208 B is beyond 128 MiB: each full segment goes wide at its last entry
    [InlineData((1 << 20) + 80, 3)]     // 1 MiB messages: wide from the 129th entry of each full segment
    [InlineData(229, 0)]                // unaligned small records: narrow, byte units
    [InlineData(16_411, 3)]             // unaligned, 1,023 x 16,411 B is beyond 16 MiB: wide at the last entry
    public void PositionsRoundTripExactlyAcrossSegmentBoundariesAndTheFallbacks(int recordSize, int wideSegments)
    {
        var index = new JournalIndex(0);
        const int count = 3 * JournalIndex.SegmentSize + 17;
        long start = 5L << 32; // far from 0: the base is a full 64-bit position
        var positions = new long[count];
        for (int i = 0; i < count; i++)
        {
            positions[i] = start + (long)i * recordSize;
            index.Set(i + 1, positions[i]);
        }
        for (int i = 0; i < count; i++)
        {
            Assert.Equal(i + 1, index.MainSeqNumAt(i));
            Assert.Equal(positions[i], index.MainPositionAt(i));
            Assert.Equal(-1, index.MainLengthAt(i));
            Assert.Equal(i, index.MainLowerBound(i + 1));
        }
        Assert.Equal(wideSegments, index.WideSegments);
        // 3 bytes per entry in every segment, plus 8 per entry in a wide one.
        Assert.Equal(4L * JournalIndex.SegmentSize * 3 + wideSegments * JournalIndex.SegmentSize * 8L, index.RetainedBytes);
        index.Release();
        Assert.Equal(0, index.RetainedBytes);
    }

    [Fact]
    public void TheLastOffsetEachUnitReachesIsNarrowAndOneUnitMoreIsWide()
    {
        const long Base = 1L << 40;
        var index = new JournalIndex(0);
        index.Set(1, Base);
        index.Set(2, Base + ((1L << 24) - 1) * 8);      // the largest 8-byte-unit offset
        Assert.Equal(0, index.WideSegments);
        index.Set(3, Base + (1L << 24) * 8);            // 128 MiB: one unit beyond
        Assert.Equal(1, index.WideSegments);
        Assert.Equal(new[] { Base, Base + ((1L << 24) - 1) * 8, Base + (1L << 24) * 8 }, Enumerable.Range(0, 3).Select(index.MainPositionAt));

        index.Clear();
        index.Set(1, Base);
        index.Set(2, Base + 8 * 1000);
        index.Set(3, Base + 8 * 1000 + 13);             // not a multiple of 8: the segment switches to byte units
        index.Set(4, Base + (1L << 24) - 1);            // the largest byte offset
        Assert.Equal(0, index.WideSegments);
        index.Set(5, Base + (1L << 24));                // beyond it
        Assert.Equal(1, index.WideSegments);
        Assert.Equal(new[] { Base, Base + 8000, Base + 8013, Base + (1L << 24) - 1, Base + (1L << 24) }, Enumerable.Range(0, 5).Select(index.MainPositionAt));

        index.Clear();
        index.Set(1, Base);
        index.Set(2, Base + (1L << 24) * 4);            // 64 MiB in 8-byte units: fine
        index.Set(3, Base + (1L << 24) * 4 + 4);        // unaligned, but the earlier entry is beyond 16 MiB in bytes: wide
        Assert.Equal(1, index.WideSegments);
        Assert.Equal(new[] { Base, Base + (1L << 26), Base + (1L << 26) + 4 }, Enumerable.Range(0, 3).Select(index.MainPositionAt));

        index.Clear();
        index.Set(1, Base);
        index.Set(2, Base - 8);                          // an entry before the base (a snapshot holding a replaced entry)
        Assert.Equal(1, index.WideSegments);
        Assert.Equal(Base - 8, index.MainPositionAt(1));
        index.Release();
    }

    [Fact]
    public void AReplacementInAFullEarlierSegmentRefitsOnlyThatSegment()
    {
        var index = new JournalIndex(JournalIndex.SegmentSize);
        const int count = 3 * JournalIndex.SegmentSize;
        var positions = new long[count];
        for (int i = 0; i < count; i++)
        {
            positions[i] = 64 + i * 320L;
            index.Set(i + 1, positions[i]);
        }
        // Message 100 replaced far later, unaligned: segment 0 can hold it in bytes; message 1,500's lands beyond 16 MiB.
        positions[99] = positions[^1] + 333;
        index.Set(100, positions[99]);
        Assert.Equal(0, index.WideSegments);
        positions[1499] = positions[^1] + (40L << 20);
        index.Set(1500, positions[1499]);
        Assert.Equal(0, index.WideSegments);       // aligned and within 128 MiB in 8-byte units
        positions[1599] = positions[1499] + 5;
        index.Set(1600, positions[1599]);
        Assert.Equal(1, index.WideSegments);       // unaligned and beyond 16 MiB: segment 1 is wide
        for (int i = 0; i < count; i++) Assert.Equal(positions[i], index.MainPositionAt(i));
        index.Clear();
        Assert.Equal(JournalIndex.SegmentSize * 3L, index.RetainedBytes); // the reserved segment stays
        index.Release();
        Assert.Equal(0, index.RetainedBytes);
    }
}
