using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using FixEngine.Store;

namespace FixEngine.Tests.Store;

/// <summary>Crash safety: a journal cut or damaged anywhere recovers exactly the records written completely before the damage.</summary>
public sealed class FileMessageStoreRecoveryTests : IDisposable
{
    private const long CreationTimeNs = 1_000_000_000_000L;
    private const long ReopenTimeNs = 999;
    private static readonly FileMessageStoreOptions s_os = new() { SyncPolicy = FileStoreSyncPolicy.OS };
    private readonly TempDirectory _directory = new();
    private int _copyCounter;

    private sealed record Snapshot(long Boundary, int Sender, int Target, long CreationTimeNs, Dictionary<int, byte[]> Messages);

    public void Dispose() => _directory.Dispose();

    /// <summary>Writes a mix of every record type and returns the journal bytes plus the state after each record.</summary>
    private (byte[] Journal, List<Snapshot> Snapshots) WriteScript()
    {
        string path = _directory.File("script.journal");
        var snapshots = new List<Snapshot>();
        var messages = new Dictionary<int, byte[]>();
        using (var store = new FileMessageStore(path, CreationTimeNs, s_os))
        {
            void Take() => snapshots.Add(new Snapshot(store.JournalLengthInBytes, store.NextSenderMsgSeqNum, store.NextTargetMsgSeqNum,
                store.CreationTimeEpochNs, new Dictionary<int, byte[]>(messages)));
            void Put(int seq, int length, bool increment)
            {
                byte[] message = StoreTestData.Message(seq, length);
                if (increment) store.AppendAndIncrement(seq, message);
                else store.Append(seq, message);
                messages[seq] = message;
            }

            Take();
            Put(1, 200, true); Take();
            store.IncrNextTargetMsgSeqNum(); Take();
            Put(2, 13, false); Take();
            store.IncrNextSenderMsgSeqNum(); Take();
            Put(3, 1000, true); Take();
            store.SetNextTargetMsgSeqNum(10); Take();
            Put(4, 0, true); Take();
            Put(5, 8, true); Take();
            store.SetNextSenderMsgSeqNum(20); Take();
            Put(20, 333, true); Take();
        }
        byte[] journal = File.ReadAllBytes(path);
        Assert.Equal(snapshots[^1].Boundary, journal.Length);
        return (journal, snapshots);
    }

    private string CopyOf(ReadOnlySpan<byte> bytes)
    {
        string path = _directory.File($"copy{++_copyCounter}.journal");
        File.WriteAllBytes(path, bytes.ToArray());
        return path;
    }

    private static void AssertState(Snapshot expected, FileMessageStore store)
    {
        Assert.Equal(expected.Sender, store.NextSenderMsgSeqNum);
        Assert.Equal(expected.Target, store.NextTargetMsgSeqNum);
        Assert.Equal(expected.CreationTimeNs, store.CreationTimeEpochNs);
        List<(int SeqNum, byte[] Bytes)> all = StoreTestData.ReadAll(store);
        Assert.Equal(expected.Messages.Keys.Order(), all.Select(m => m.SeqNum));
        foreach ((int seq, byte[] bytes) in all) Assert.Equal(expected.Messages[seq], bytes);
    }

    private static Snapshot Fresh() => new(0, 1, 1, ReopenTimeNs, new Dictionary<int, byte[]>());

    /// <summary>Opens the damaged copy, checks the recovered state, then proves appends and a reopen still work.</summary>
    private static void AssertRecoversTo(string path, Snapshot expected, long damagedLength)
    {
        int nextSeq;
        using (var store = new FileMessageStore(path, ReopenTimeNs, s_os))
        {
            AssertState(expected, store);
            Assert.Equal(damagedLength - expected.Boundary, store.DiscardedBytes);
            if (damagedLength == expected.Boundary)
            {
                Assert.Equal(JournalStopReason.None, store.RecoveryStopReason);
                Assert.Equal(-1, store.RecoveryStopOffset);
            }
            else
            {
                Assert.NotEqual(JournalStopReason.None, store.RecoveryStopReason);
                Assert.Equal(expected.Boundary, store.RecoveryStopOffset);
            }
            Assert.Equal(store.JournalLengthInBytes, new FileInfo(path).Length);
            nextSeq = store.NextSenderMsgSeqNum;
            store.AppendAndIncrement(nextSeq, StoreTestData.Message(nextSeq, 77));
        }
        using (var reopened = new FileMessageStore(path, ReopenTimeNs + 1, s_os))
        {
            Assert.Equal(0, reopened.DiscardedBytes);
            Assert.Equal(nextSeq + 1, reopened.NextSenderMsgSeqNum);
            Assert.Equal(expected.Target, reopened.NextTargetMsgSeqNum);
            Assert.Equal(expected.CreationTimeNs, reopened.CreationTimeEpochNs);
            List<(int SeqNum, byte[] Bytes)> all = StoreTestData.ReadAll(reopened);
            Assert.Equal(expected.Messages.Count + (expected.Messages.ContainsKey(nextSeq) ? 0 : 1), all.Count);
            Assert.Equal(StoreTestData.Message(nextSeq, 77), all.Single(m => m.SeqNum == nextSeq).Bytes);
        }
    }

    private static IEnumerable<long> CutsInside(long start, long end)
    {
        foreach (long delta in new long[] { 1, 4, 5, 8, 12, 15, 16, 17, (end - start) / 2, end - start - 1 })
        {
            if (delta > 0 && start + delta < end) yield return start + delta;
        }
    }

    [Fact]
    public void TruncationAtEveryRecordBoundaryAndInsideRecordsRecoversTheCompleteRecords()
    {
        (byte[] journal, List<Snapshot> snapshots) = WriteScript();
        var cuts = new SortedSet<long> { 0 };
        long previous = 0;
        foreach (Snapshot snapshot in snapshots)
        {
            cuts.Add(snapshot.Boundary);
            cuts.UnionWith(CutsInside(previous, snapshot.Boundary));
            previous = snapshot.Boundary;
        }
        Assert.True(cuts.Count > 80);
        foreach (long cut in cuts)
        {
            Snapshot expected = snapshots.LastOrDefault(s => s.Boundary <= cut) ?? Fresh();
            string path = CopyOf(journal.AsSpan(0, (int)cut));
            AssertRecoversTo(path, expected, cut);
        }
    }

    [Fact]
    public void CorruptByteInAnyRecordDiscardsThatRecordAndEverythingAfter()
    {
        (byte[] journal, List<Snapshot> snapshots) = WriteScript();
        for (int record = 1; record < snapshots.Count; record++)
        {
            long start = snapshots[record - 1].Boundary;
            long end = snapshots[record].Boundary;
            foreach (long offset in new[] { start, start + 4, start + 5, start + 8, start + 12, start + 15 }.Concat(CutsInside(start, end)).Distinct())
            {
                foreach (bool lastRecordOnly in new[] { true, false })
                {
                    byte[] damaged = journal.AsSpan(0, (int)(lastRecordOnly ? end : journal.Length)).ToArray();
                    damaged[offset] ^= 0x5A;
                    AssertRecoversTo(CopyOf(damaged), snapshots[record - 1], damaged.Length);
                }
            }
        }
    }

    [Theory]
    [InlineData(1, false)]
    [InlineData(7, false)]
    [InlineData(16, false)]
    [InlineData(17, false)]
    [InlineData(100, false)]
    [InlineData(70_000, false)]
    [InlineData(16, true)]
    [InlineData(4096, true)]
    public void GarbageOrZeroTailIsDiscarded(int tailLength, bool zeros)
    {
        (byte[] journal, List<Snapshot> snapshots) = WriteScript();
        byte[] tail = new byte[tailLength];
        if (!zeros) new Random(tailLength).NextBytes(tail);
        string path = CopyOf([.. journal, .. tail]);
        AssertRecoversTo(path, snapshots[^1], journal.Length + tailLength);
    }

    [Fact]
    public void HeaderClaimingAHugeLengthIsReportedAsBadLength()
    {
        (byte[] journal, List<Snapshot> snapshots) = WriteScript();
        byte[] tail = new byte[32];
        BitConverter.TryWriteBytes(tail.AsSpan(0), int.MaxValue);
        tail[4] = 1;
        BitConverter.TryWriteBytes(tail.AsSpan(8), 21);
        string path = CopyOf([.. journal, .. tail]);
        using (var store = new FileMessageStore(path, ReopenTimeNs, s_os))
        {
            Assert.Equal(JournalStopReason.BadLength, store.RecoveryStopReason);
            Assert.Equal(journal.Length, store.RecoveryStopOffset);
            Assert.Equal(32, store.DiscardedBytes);
        }
        AssertRecoversTo(path, snapshots[^1], journal.Length);
    }

    [Fact]
    public void JournalTruncatedMidRecordAfterTheWriterDiedRecovers()
    {
        string path = _directory.File("killed.journal");
        long boundaryAfterNine;
        using (var store = new FileMessageStore(path, CreationTimeNs, new FileMessageStoreOptions { SyncPolicy = FileStoreSyncPolicy.PerMessage }))
        {
            for (int seq = 1; seq <= 9; seq++) store.AppendAndIncrement(seq, StoreTestData.Message(seq, 500));
            boundaryAfterNine = store.JournalLengthInBytes;
            store.AppendAndIncrement(10, StoreTestData.Message(10, 500));
        }
        // The process "dies" half way through writing record 10: only part of it reached the file.
        using (var file = new FileStream(path, FileMode.Open, FileAccess.ReadWrite))
        {
            file.SetLength(boundaryAfterNine + 300);
        }
        using (var store = new FileMessageStore(path, ReopenTimeNs, s_os))
        {
            Assert.Equal(JournalStopReason.Truncated, store.RecoveryStopReason);
            Assert.Equal(300, store.DiscardedBytes);
            Assert.Equal(10, store.NextSenderMsgSeqNum);
            Assert.Equal(9, StoreTestData.ReadAll(store).Count);
            store.AppendAndIncrement(10, StoreTestData.Message(10, 123));
        }
        using (var store = new FileMessageStore(path, ReopenTimeNs, s_os))
        {
            Assert.Equal(0, store.DiscardedBytes);
            Assert.Equal(11, store.NextSenderMsgSeqNum);
            Assert.Equal(StoreTestData.Message(10, 123), StoreTestData.ReadAll(store, 10, 10).Single().Bytes);
        }
    }

    [Fact]
    public void ResetCompactsTheJournalAndACutAfterItRecoversThePostResetState()
    {
        string path = _directory.File("reset.journal");
        long afterReset;
        using (var store = new FileMessageStore(path, CreationTimeNs, s_os))
        {
            for (int seq = 1; seq <= 20; seq++) store.AppendAndIncrement(seq, StoreTestData.Message(seq));
            store.Reset(CreationTimeNs + 7);
            afterReset = store.JournalLengthInBytes;
            Assert.Equal(24, afterReset);
            store.AppendAndIncrement(1, StoreTestData.Message(1, 50));
        }
        byte[] journal = File.ReadAllBytes(path);
        var expected = new Snapshot(afterReset, 1, 1, CreationTimeNs + 7, new Dictionary<int, byte[]>());
        AssertRecoversTo(CopyOf(journal.AsSpan(0, journal.Length - 3)), expected, journal.Length - 3);
    }
}
