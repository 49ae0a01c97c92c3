using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using FixEngine.Store;
using FixEngine.Tests.Infrastructure;

namespace FixEngine.Tests.Store;

/// <summary>The index checkpoint beside the journal: reopening reads it instead of replaying the journal, and no
/// damage to it (cut, flipped bytes, stale, foreign) nor to the journal ever loses or misnumbers a message. Every
/// scenario compares the store against the same journal opened without a checkpoint (a full replay).</summary>
public sealed class IndexCheckpointTests : IDisposable
{
    private readonly TempDirectory _directory = new();

    public void Dispose() => _directory.Dispose();

    private static FileMessageStoreOptions Options(bool checkpoint = true, StoreRecoveryPolicy recovery = StoreRecoveryPolicy.Refuse) =>
        new() { SyncPolicy = FileStoreSyncPolicy.OS, IndexCheckpoint = checkpoint, Recovery = recovery };

    private string Journal(string name) => _directory.File(name + FileMessageStore.JournalExtension);

    // Messages 1..count, with a processed mark and target moves along the way; lengths vary so offsets are irregular.
    private static void Write(FileMessageStore store, int from, int to)
    {
        for (int seq = from; seq <= to; seq++)
        {
            store.AppendAndIncrement(seq, StoreTestData.Message(seq, 60 + seq % 173), processedInboundSeqNum: seq / 2);
            if (seq % 97 == 0) store.IncrNextTargetMsgSeqNum();
        }
    }

    private sealed record Snapshot(int NextSender, int NextTarget, int Processed, long Creation, List<(int SeqNum, byte[] Bytes)> Messages);

    private static Snapshot Take(FileMessageStore store) =>
        new(store.NextSenderMsgSeqNum, store.NextTargetMsgSeqNum, store.LastProcessedInboundSeqNum, store.CreationTimeEpochNs, StoreTestData.ReadAll(store));

    private static void AssertSame(Snapshot expected, Snapshot actual)
    {
        Assert.Equal(expected.NextSender, actual.NextSender);
        Assert.Equal(expected.NextTarget, actual.NextTarget);
        Assert.Equal(expected.Processed, actual.Processed);
        Assert.Equal(expected.Creation, actual.Creation);
        Assert.Equal(expected.Messages.Count, actual.Messages.Count);
        for (int i = 0; i < expected.Messages.Count; i++)
        {
            Assert.Equal(expected.Messages[i].SeqNum, actual.Messages[i].SeqNum);
            Assert.True(expected.Messages[i].Bytes.AsSpan().SequenceEqual(actual.Messages[i].Bytes), $"message {expected.Messages[i].SeqNum} differs");
        }
    }

    // What a full replay of a copy of the journal (no checkpoint) gives: the reference for every scenario.
    private Snapshot Reference(string journal, StoreRecoveryPolicy recovery = StoreRecoveryPolicy.RecoverAndGapFill)
    {
        string copy = _directory.File("reference-" + Guid.NewGuid().ToString("N") + FileMessageStore.JournalExtension);
        File.Copy(journal, copy);
        using var store = new FileMessageStore(copy, 99, Options(checkpoint: false, recovery));
        return Take(store);
    }

    [Fact]
    public void ReopenReadsTheCheckpointAndKeepsEveryMessage()
    {
        string journal = Journal("clean");
        using (var store = new FileMessageStore(journal, 1, Options())) Write(store, 1, 5_000);
        Assert.True(new FileInfo(journal + FileMessageStore.IndexExtension).Length > 5_000 * 4);

        Snapshot expected = Reference(journal);
        using var reopened = new FileMessageStore(journal, 2, Options());
        Assert.Equal(reopened.JournalLengthInBytes, reopened.CheckpointedJournalBytes);
        Assert.Null(reopened.LastRecoveryReport);
        AssertSame(expected, Take(reopened));
        Assert.Equal(5_001, reopened.NextSenderMsgSeqNum);
        // 3 bytes per message in 1,024-entry segments (the last one partly filled).
        Assert.Equal(5 * 1024 * 3, reopened.IndexRetainedBytes);
    }

    [Fact]
    public void AfterAKillTheRecordsAfterTheLastBlockAreReplayedFromTheJournal()
    {
        string journal = Journal("killed");
        using (var store = new FileMessageStore(journal, 1, Options())) Write(store, 1, 3_000);
        var second = new FileMessageStore(journal, 2, Options());
        Write(second, 3_001, 7_777);
        second.AbandonForTesting();

        Snapshot expected = Reference(journal);
        using var reopened = new FileMessageStore(journal, 3, Options());
        Assert.InRange(reopened.CheckpointedJournalBytes, 1, reopened.JournalLengthInBytes - 1);
        Snapshot actual = Take(reopened);
        AssertSame(expected, actual);
        Assert.Equal(7_777, actual.Messages.Count);
        Assert.Equal(7_778, actual.NextSender);
        // The replayed tail went into the checkpoint: the next open reads it all.
        reopened.Dispose();
        using var again = new FileMessageStore(journal, 4, Options());
        Assert.Equal(again.JournalLengthInBytes, again.CheckpointedJournalBytes);
        AssertSame(actual, Take(again));
    }

    [Fact]
    public void ACheckpointCutAnywhereOrWithAnyByteFlippedNeverChangesWhatOpens()
    {
        string journal = Journal("cut");
        using (var store = new FileMessageStore(journal, 1, Options())) Write(store, 1, 4_500);
        string index = journal + FileMessageStore.IndexExtension;
        byte[] good = File.ReadAllBytes(index);
        Snapshot expected = Reference(journal);
        var random = new Random(35);
        var lengths = new List<int> { 0, 1, 15, 16, 17, 88, good.Length - 1, good.Length - 4 };
        for (int i = 0; i < 12; i++) lengths.Add(random.Next(good.Length));
        foreach (int length in lengths)
        {
            File.WriteAllBytes(index, good.AsSpan(0, length).ToArray());
            using var store = new FileMessageStore(journal, 2, Options());
            AssertSame(expected, Take(store));
        }
        var offsets = new List<int> { 0, 8, 12, 16, 20, 40, 48, 60, 16 + 72 + 5, good.Length - 1 };
        for (int i = 0; i < 25; i++) offsets.Add(random.Next(good.Length));
        foreach (int offset in offsets)
        {
            byte[] bad = (byte[])good.Clone();
            bad[offset] ^= (byte)(1 + random.Next(255));
            File.WriteAllBytes(index, bad);
            using var store = new FileMessageStore(journal, 2, Options());
            // Every byte is under a CRC: the block it lands in, and every block after it, is not believed.
            Assert.True(store.CheckpointedJournalBytes < store.JournalLengthInBytes, $"a flipped byte at {offset} was believed");
            AssertSame(expected, Take(store));
        }
    }

    [Fact]
    public void AStaleOrForeignCheckpointIsNotBelievedBeyondWhatTheJournalConfirms()
    {
        string journal = Journal("stale");
        string index = journal + FileMessageStore.IndexExtension;
        using (var store = new FileMessageStore(journal, 1, Options())) Write(store, 1, 2_000);
        byte[] early = File.ReadAllBytes(index);
        using (var store = new FileMessageStore(journal, 1, Options())) Write(store, 2_001, 6_000);
        Snapshot expected = Reference(journal);

        // Stale: the checkpoint of 2,000 messages over a journal of 6,000.
        File.WriteAllBytes(index, early);
        using (var store = new FileMessageStore(journal, 2, Options()))
        {
            Assert.InRange(store.CheckpointedJournalBytes, 1, store.JournalLengthInBytes - 1);
            AssertSame(expected, Take(store));
        }

        // Foreign: another session's checkpoint (same message numbers, different journal).
        string other = Journal("other");
        using (var store = new FileMessageStore(other, 7, Options())) Write(store, 1, 6_000);
        File.Copy(other + FileMessageStore.IndexExtension, index, overwrite: true);
        using (var store = new FileMessageStore(journal, 2, Options()))
        {
            Assert.Equal(0, store.CheckpointedJournalBytes);
            AssertSame(expected, Take(store));
        }

        // After a reset the old incarnation's checkpoint describes nothing.
        byte[] beforeReset = File.ReadAllBytes(index);
        using (var store = new FileMessageStore(journal, 2, Options()))
        {
            store.Reset(50);
            Write(store, 1, 10);
        }
        File.WriteAllBytes(index, beforeReset);
        using (var store = new FileMessageStore(journal, 3, Options()))
        {
            Assert.Equal(0, store.CheckpointedJournalBytes);
            Snapshot actual = Take(store);
            Assert.Equal(10, actual.Messages.Count);
            Assert.Equal(50, actual.Creation);
        }
    }

    [Fact]
    public void AJournalCutInsideTheCheckpointedPartOpensAsAFullReplayWould()
    {
        string journal = Journal("journalcut");
        using (var store = new FileMessageStore(journal, 1, Options())) Write(store, 1, 5_000);
        byte[] journalBytes = File.ReadAllBytes(journal);
        byte[] indexBytes = File.ReadAllBytes(journal + FileMessageStore.IndexExtension);
        var random = new Random(7);
        foreach (long cut in new long[] { journalBytes.Length - 1, journalBytes.Length - 41, journalBytes.Length / 2, 100, random.Next(journalBytes.Length), random.Next(journalBytes.Length) })
        {
            File.WriteAllBytes(journal, journalBytes.AsSpan(0, (int)cut).ToArray());
            File.WriteAllBytes(journal + FileMessageStore.IndexExtension, indexBytes);
            Snapshot expected = Reference(journal);
            using var store = new FileMessageStore(journal, 2, Options());
            Assert.True(store.CheckpointedJournalBytes <= cut);
            AssertSame(expected, Take(store));
            Assert.True(expected.Messages.Count <= 5_000);
        }
    }

    [Fact]
    public void DamageInTheReplayedTailIsHandledByTheRecoveryPolicy()
    {
        string journal = Journal("taildamage");
        using (var store = new FileMessageStore(journal, 1, Options())) Write(store, 1, 2_000);
        long checkpointed = new FileInfo(journal).Length;
        var store2 = new FileMessageStore(journal, 2, Options());
        Write(store2, 2_001, 3_000);
        store2.AbandonForTesting();
        // A flipped byte in the body of message 2,500 (after the checkpointed part), valid records after it.
        byte[] damaged = File.ReadAllBytes(journal);
        int at = damaged.AsSpan().IndexOf(StoreTestData.Message(2_500, 60 + 2_500 % 173));
        Assert.True(at > checkpointed);
        damaged[at + 30] ^= 0x5A;
        File.WriteAllBytes(journal, damaged);
        MessageStoreException refused = Assert.Throws<MessageStoreException>(() => new FileMessageStore(journal, 3, Options()));
        Assert.Contains("damaged at byte offset", refused.Message);
        Assert.Equal(damaged, File.ReadAllBytes(journal));

        Snapshot expected = Reference(journal);
        using var recovered = new FileMessageStore(journal, 3, Options(recovery: StoreRecoveryPolicy.RecoverAndGapFill));
        Assert.NotNull(recovered.LastRecoveryReport);
        Snapshot actual = Take(recovered);
        AssertSame(expected, actual);
        Assert.Equal(2_999, actual.Messages.Count);
        recovered.Dispose();
        // The repaired journal got a fresh checkpoint.
        using var again = new FileMessageStore(journal, 4, Options());
        Assert.Equal(again.JournalLengthInBytes, again.CheckpointedJournalBytes);
        AssertSame(actual, Take(again));
    }

    [Fact]
    public void AMessageDamagedInsideTheCheckpointedPartIsSkippedOnReadNeverMisnumbered()
    {
        string journal = Journal("middamage");
        using (var store = new FileMessageStore(journal, 1, Options())) Write(store, 1, 3_000);
        List<(int SeqNum, byte[] Bytes)> before;
        using (var store = new FileMessageStore(journal, 1, Options(checkpoint: false))) before = StoreTestData.ReadAll(store);
        // Damage the body of message 1,234 (found by its bytes) after the checkpoint was written.
        byte[] bytes = File.ReadAllBytes(journal);
        byte[] body = StoreTestData.Message(1_234, 60 + 1_234 % 173);
        int at = bytes.AsSpan().IndexOf(body);
        Assert.True(at > 0);
        bytes[at + 30] ^= 0x21;
        File.WriteAllBytes(journal, bytes);

        using var reopened = new FileMessageStore(journal, 2, Options());
        Assert.Equal(reopened.JournalLengthInBytes, reopened.CheckpointedJournalBytes);
        List<(int SeqNum, byte[] Bytes)> after = StoreTestData.ReadAll(reopened);
        Assert.Equal(1, reopened.DamagedMessagesSkipped);
        Assert.Equal(before.Where(m => m.SeqNum != 1_234).Select(m => m.SeqNum), after.Select(m => m.SeqNum));
        foreach ((int seq, byte[] message) in after) Assert.Equal(StoreTestData.Message(seq, 60 + seq % 173), message);
        Assert.Equal(3_001, reopened.NextSenderMsgSeqNum);
    }

    [Fact]
    public void GapsReplacementsAndOutOfOrderMessagesSurviveTheCheckpoint()
    {
        string journal = Journal("irregular");
        using (var store = new FileMessageStore(journal, 1, Options()))
        {
            for (int seq = 1; seq <= 3_000; seq += seq % 5 == 0 ? 3 : 1) store.AppendAndIncrement(seq, StoreTestData.Message(seq, 80));
            store.Append(2, StoreTestData.Message(20_002, 90)); // replaces 2
            store.Append(7, StoreTestData.Message(20_007, 95)); // 7 was a gap: out of order
            store.Append(2_048, StoreTestData.Message(22_048, 70));
            store.AppendAndIncrement(3_500, StoreTestData.Message(3_500, 80));
        }
        Snapshot expected = Reference(journal);
        Assert.Equal(StoreTestData.Message(20_007, 95), expected.Messages.Single(m => m.SeqNum == 7).Bytes);
        using var reopened = new FileMessageStore(journal, 2, Options());
        Assert.Equal(reopened.JournalLengthInBytes, reopened.CheckpointedJournalBytes);
        AssertSame(expected, Take(reopened));
    }

    [Fact]
    public void MessagesOfAMebibyteMakeAWideIndexSegmentThatEveryOpenRebuildsExactly()
    {
        // 1,024-entry segments hold 24-bit offsets in 8-byte units (128 MiB): 140 messages of 1 MiB in one segment go
        // beyond, so that segment (messages 1,025-2,048) keeps 64-bit positions; small messages before and after it.
        string journal = Journal("large");
        static byte[] Body(int seq) => StoreTestData.Message(seq, seq is > 1_100 and <= 1_240 ? (1 << 20) + seq : 60 + seq % 173);
        using (var store = new FileMessageStore(journal, 1, Options()))
        {
            for (int seq = 1; seq <= 2_100; seq++) store.AppendAndIncrement(seq, Body(seq));
            Assert.Equal(1, store.IndexWideSegments);
            Assert.Equal(2_100, StoreTestData.ReadAll(store).Count);
        }
        Assert.True(new FileInfo(journal).Length > 140L << 20);
        foreach (bool checkpoint in new[] { true, false, true })
        {
            using var reopened = new FileMessageStore(journal, 2, Options(checkpoint));
            if (checkpoint) Assert.Equal(reopened.JournalLengthInBytes, reopened.CheckpointedJournalBytes);
            Assert.Equal(1, reopened.IndexWideSegments);
            List<(int SeqNum, byte[] Bytes)> messages = StoreTestData.ReadAll(reopened);
            Assert.Equal(Enumerable.Range(1, 2_100), messages.Select(m => m.SeqNum));
            foreach ((int seq, byte[] bytes) in messages) Assert.True(Body(seq).AsSpan().SequenceEqual(bytes), $"message {seq} differs");
            List<(int SeqNum, byte[] Bytes)> tail = StoreTestData.ReadAll(reopened, 1_090, 1_250);
            Assert.Equal(Enumerable.Range(1_090, 161), tail.Select(m => m.SeqNum));
        }
    }

    [Fact]
    public void WithoutTheCheckpointOptionNoIndexFileIsWritten()
    {
        string journal = Journal("nocheckpoint");
        using (var store = new FileMessageStore(journal, 1, Options(checkpoint: false))) Write(store, 1, 2_000);
        Assert.False(File.Exists(journal + FileMessageStore.IndexExtension));
        using var reopened = new FileMessageStore(journal, 2, Options(checkpoint: false));
        Assert.Equal(0, reopened.CheckpointedJournalBytes);
        Assert.Equal(2_000, reopened.MessageCount);
    }
}
