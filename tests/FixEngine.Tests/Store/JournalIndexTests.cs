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
    public void AConsecutiveRunCostsFourBytesPerMessage()
    {
        var index = new JournalIndex(0);
        Assert.Equal(0, index.RetainedBytes);
        for (int seq = 1; seq <= 100_000; seq++) index.Set(seq, seq * 240L);
        Assert.Equal(98 * JournalIndex.SegmentSize * 4, index.RetainedBytes);
        Assert.Equal(50_000, index.MainSeqNumAt(index.MainLowerBound(50_000)));
        Assert.Equal(50_000 * 240L, index.MainPositionAt(index.MainLowerBound(50_000)));
        index.Release();
    }
}
