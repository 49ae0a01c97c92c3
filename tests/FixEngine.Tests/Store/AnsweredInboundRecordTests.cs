using System;
using FixEngine.Store;

namespace FixEngine.Tests.Store;

/// <summary>An answer to the inbound message the session expects (AppendAndIncrement with a processed mark equal to the
/// next target number) carries the inbound number as consumed in its record, so the session's IncrNextTargetMsgSeqNum
/// after it writes nothing: one record per answered message, and the state after a reopen is the same wherever the
/// process stopped.</summary>
public sealed class AnsweredInboundRecordTests : IDisposable
{
    private const long CreationTimeNs = 1_000_000_000_000L;
    private readonly TempDirectory _directory = new();

    public void Dispose() => _directory.Dispose();

    private static FileMessageStoreOptions Options(FileStoreSyncPolicy sync = FileStoreSyncPolicy.OS) => new() { SyncPolicy = sync };

    [Theory]
    [InlineData(FileStoreSyncPolicy.OS)]
    [InlineData(FileStoreSyncPolicy.Batched)]
    [InlineData(FileStoreSyncPolicy.PerMessage)]
    public void AnAnsweredInboundMessageIsOneRecordAndReopensConsumed(FileStoreSyncPolicy sync)
    {
        string path = _directory.File("answer.journal");
        using (var store = new FileMessageStore(path, CreationTimeNs, Options(sync)))
        {
            for (int inbound = 1; inbound <= 20; inbound++)
            {
                Assert.Equal(inbound, store.NextTargetMsgSeqNum);
                int outSeq = store.NextSenderMsgSeqNum;
                store.AppendAndIncrement(outSeq, StoreTestData.Message(outSeq), inbound);
                // In memory the inbound number moves only with the session's increment.
                Assert.Equal(inbound, store.NextTargetMsgSeqNum);
                Assert.Equal(inbound, store.LastProcessedInboundSeqNum);
                long length = store.JournalLengthInBytes;
                store.IncrNextTargetMsgSeqNum();
                Assert.Equal(length, store.JournalLengthInBytes);
                Assert.Equal(inbound + 1, store.NextTargetMsgSeqNum);
            }
        }
        using (var reopened = new FileMessageStore(path, CreationTimeNs + 1, Options(sync)))
        {
            Assert.Equal(21, reopened.NextTargetMsgSeqNum);
            Assert.Equal(21, reopened.NextSenderMsgSeqNum);
            Assert.Equal(20, reopened.LastProcessedInboundSeqNum);
            Assert.Equal(20, reopened.MessageCount);
            Assert.Equal(CreationTimeNs, reopened.CreationTimeEpochNs);
        }
    }

    [Fact]
    public void AStopBetweenTheAnswerAndTheIncrementReopensWithTheMessageConsumed()
    {
        string path = _directory.File("stop.journal");
        byte[] answer = StoreTestData.Message(1);
        using (var store = new FileMessageStore(path, CreationTimeNs, Options()))
        {
            store.AppendAndIncrement(1, answer, 1);
            // The process stops here: the increment that follows an answer is never called.
        }
        using var reopened = new FileMessageStore(path, CreationTimeNs, Options());
        Assert.Equal(2, reopened.NextTargetMsgSeqNum);
        Assert.Equal(1, reopened.LastProcessedInboundSeqNum);
        Assert.Equal(2, reopened.NextSenderMsgSeqNum);
        var collector = CollectingHandler.Create();
        Assert.Equal(1, reopened.ReadRange(1, 1, ref collector));
        Assert.Equal(answer, collector.Messages[0].Bytes);
    }

    [Fact]
    public void OtherTargetNumbersAreWrittenAsBefore()
    {
        string path = _directory.File("other.journal");
        using (var store = new FileMessageStore(path, CreationTimeNs, Options()))
        {
            // A heartbeat received (no answer), a message answering nothing, then an answer to a number the session
            // does not expect (not the next target): each increment writes its record.
            long length = store.JournalLengthInBytes;
            store.IncrNextTargetMsgSeqNum();
            Assert.True(store.JournalLengthInBytes > length);
            store.AppendAndIncrement(1, StoreTestData.Message(1));
            length = store.JournalLengthInBytes;
            store.IncrNextTargetMsgSeqNum();
            Assert.True(store.JournalLengthInBytes > length);
            store.AppendAndIncrement(2, StoreTestData.Message(2), 1);
            length = store.JournalLengthInBytes;
            store.IncrNextTargetMsgSeqNum();
            Assert.True(store.JournalLengthInBytes > length);
            // An increment past the answer's: written too.
            store.AppendAndIncrement(3, StoreTestData.Message(3), 4);
            store.IncrNextTargetMsgSeqNum();
            length = store.JournalLengthInBytes;
            store.IncrNextTargetMsgSeqNum();
            Assert.True(store.JournalLengthInBytes > length);
            Assert.Equal(6, store.NextTargetMsgSeqNum);
        }
        using var reopened = new FileMessageStore(path, CreationTimeNs, Options());
        Assert.Equal(6, reopened.NextTargetMsgSeqNum);
        Assert.Equal(4, reopened.LastProcessedInboundSeqNum);
        Assert.Equal(4, reopened.NextSenderMsgSeqNum);
    }

    [Fact]
    public void TheFirstIncrementAfterAReopenIsWritten()
    {
        string path = _directory.File("reopen.journal");
        using (var store = new FileMessageStore(path, CreationTimeNs, Options()))
        {
            store.AppendAndIncrement(1, StoreTestData.Message(1), 1);
        }
        using (var store = new FileMessageStore(path, CreationTimeNs, Options()))
        {
            Assert.Equal(2, store.NextTargetMsgSeqNum);
            long length = store.JournalLengthInBytes;
            store.SetNextTargetMsgSeqNum(2);
            Assert.True(store.JournalLengthInBytes > length);
            store.IncrNextTargetMsgSeqNum();
        }
        using var last = new FileMessageStore(path, CreationTimeNs, Options());
        Assert.Equal(3, last.NextTargetMsgSeqNum);
    }

    [Fact]
    public void AParkedJournalStaysClosedForTheIncrementAfterAnAnswer()
    {
        if (!OperatingSystem.IsLinux()) return;
        using var store = new FileMessageStore(_directory.Path, "parked", CreationTimeNs, Options());
        store.AppendAndIncrement(1, StoreTestData.Message(1), 1);
        Assert.True(store.TryPark());
        long uses = store.Uses;
        store.IncrNextTargetMsgSeqNum();
        Assert.True(store.IsParked);
        Assert.Equal(0, store.Reopens);
        Assert.Equal(uses, store.Uses);
        Assert.Equal(2, store.NextTargetMsgSeqNum);
        // The next increment has a state of its own: the journal is opened again and the record written.
        store.IncrNextTargetMsgSeqNum();
        Assert.False(store.IsParked);
        Assert.Equal(1, store.Reopens);
    }

    [Fact]
    public void ADisposedStoreStillRefusesTheIncrement()
    {
        var store = new FileMessageStore(_directory.File("disposed.journal"), CreationTimeNs, Options());
        store.AppendAndIncrement(1, StoreTestData.Message(1), 1);
        store.Dispose();
        Assert.Throws<ObjectDisposedException>(store.IncrNextTargetMsgSeqNum);
    }
}
