using System;
using System.Collections.Generic;
using System.Linq;
using FixEngine.Store;

namespace FixEngine.Tests.Store;

/// <summary>Behaviour every <see cref="IMessageStore"/> must show; one small subclass per implementation.</summary>
public abstract class MessageStoreContractTests : IDisposable
{
    protected const long CreationTimeNs = 1_700_000_000_000_000_000L;
    private readonly List<IMessageStore> _stores = new();

    protected abstract IMessageStore CreateStoreCore(long creationTimeEpochNs);

    /// <summary>Closes <paramref name="store"/> and opens the same session again; null when the store is not persistent.</summary>
    protected virtual IMessageStore? ReopenCore(IMessageStore store) => null;

    protected IMessageStore CreateStore(long creationTimeEpochNs = CreationTimeNs) => Track(CreateStoreCore(creationTimeEpochNs));

    protected IMessageStore? Reopen(IMessageStore store)
    {
        IMessageStore? reopened = ReopenCore(store);
        return reopened is null ? null : Track(reopened);
    }

    private IMessageStore Track(IMessageStore store)
    {
        _stores.Add(store);
        return store;
    }

    public virtual void Dispose()
    {
        foreach (IMessageStore store in _stores) store.Dispose();
    }

    [Fact]
    public void NewStoreStartsAtSequenceOneWithGivenCreationTime()
    {
        IMessageStore store = CreateStore();
        Assert.Equal(1, store.NextSenderMsgSeqNum);
        Assert.Equal(1, store.NextTargetMsgSeqNum);
        Assert.Equal(CreationTimeNs, store.CreationTimeEpochNs);
        Assert.Equal(0, store.LastProcessedInboundSeqNum);
        Assert.Null(store.LastRecoveryReport);
        Assert.Empty(StoreTestData.ReadAll(store));
    }

    [Fact]
    public void AppendWithAProcessedMarkSetsMessageSenderAndMarkTogether()
    {
        IMessageStore store = CreateStore();
        store.AppendAndIncrement(1, StoreTestData.Message(1), processedInboundSeqNum: 7);
        Assert.Equal(2, store.NextSenderMsgSeqNum);
        Assert.Equal(7, store.LastProcessedInboundSeqNum);
        Assert.Equal(StoreTestData.Message(1), Assert.Single(StoreTestData.ReadAll(store)).Bytes);
        // The plain overloads keep the mark; only an explicit set or a reset moves it.
        store.AppendAndIncrement(2, StoreTestData.Message(2));
        store.IncrNextTargetMsgSeqNum();
        store.SetNextSenderMsgSeqNum(10);
        Assert.Equal(7, store.LastProcessedInboundSeqNum);
        store.SetLastProcessedInboundSeqNum(8);
        Assert.Equal(8, store.LastProcessedInboundSeqNum);
        store.SetLastProcessedInboundSeqNum(3);
        Assert.Equal(3, store.LastProcessedInboundSeqNum);
        Assert.Equal(10, store.NextSenderMsgSeqNum);
    }

    [Fact]
    public void InvalidProcessedMarksAreRejectedAndChangeNothing()
    {
        IMessageStore store = CreateStore();
        store.SetLastProcessedInboundSeqNum(4);
        Assert.Equal("value", Assert.Throws<ArgumentOutOfRangeException>(() => store.SetLastProcessedInboundSeqNum(-1)).ParamName);
        Assert.Equal("processedInboundSeqNum",
            Assert.Throws<ArgumentOutOfRangeException>(() => store.AppendAndIncrement(1, new byte[3], -1)).ParamName);
        Assert.Equal("seqNum", Assert.Throws<ArgumentOutOfRangeException>(() => store.AppendAndIncrement(0, new byte[3], 5)).ParamName);
        Assert.Equal(4, store.LastProcessedInboundSeqNum);
        Assert.Equal(1, store.NextSenderMsgSeqNum);
        Assert.Empty(StoreTestData.ReadAll(store));
    }

    [Fact]
    public void ResetClearsTheProcessedMark()
    {
        IMessageStore store = CreateStore();
        store.AppendAndIncrement(1, StoreTestData.Message(1), 5);
        store.Reset(CreationTimeNs + 1);
        Assert.Equal(0, store.LastProcessedInboundSeqNum);
    }

    [Fact]
    public void ProcessedMarkSurvivesReopenWithTheMessageThatCarriedIt()
    {
        IMessageStore store = CreateStore();
        store.AppendAndIncrement(1, StoreTestData.Message(1), 11);
        store.IncrNextTargetMsgSeqNum();
        IMessageStore? reopened = Reopen(store);
        if (reopened is null) return;
        Assert.Equal(11, reopened.LastProcessedInboundSeqNum);
        Assert.Equal(2, reopened.NextSenderMsgSeqNum);
        Assert.Equal(2, reopened.NextTargetMsgSeqNum);
        reopened.SetLastProcessedInboundSeqNum(12);
        IMessageStore? again = Reopen(reopened);
        Assert.NotNull(again);
        Assert.Equal(12, again.LastProcessedInboundSeqNum);
        Assert.Null(again.LastRecoveryReport);
    }

    [Fact]
    public void IncrementsAndSetsAreIndependentPerDirection()
    {
        IMessageStore store = CreateStore();
        store.IncrNextSenderMsgSeqNum();
        store.IncrNextSenderMsgSeqNum();
        store.IncrNextTargetMsgSeqNum();
        Assert.Equal(3, store.NextSenderMsgSeqNum);
        Assert.Equal(2, store.NextTargetMsgSeqNum);
        store.SetNextSenderMsgSeqNum(100);
        store.SetNextTargetMsgSeqNum(7);
        Assert.Equal(100, store.NextSenderMsgSeqNum);
        Assert.Equal(7, store.NextTargetMsgSeqNum);
        store.SetNextSenderMsgSeqNum(5);
        Assert.Equal(5, store.NextSenderMsgSeqNum);
    }

    [Theory]
    [InlineData(0)]
    [InlineData(-1)]
    [InlineData(int.MinValue)]
    public void InvalidSequenceNumbersAreRejectedWithTheParameterName(int value)
    {
        IMessageStore store = CreateStore();
        Assert.Equal("value", Assert.Throws<ArgumentOutOfRangeException>(() => store.SetNextSenderMsgSeqNum(value)).ParamName);
        Assert.Equal("value", Assert.Throws<ArgumentOutOfRangeException>(() => store.SetNextTargetMsgSeqNum(value)).ParamName);
        Assert.Equal("seqNum", Assert.Throws<ArgumentOutOfRangeException>(() => store.Append(value, new byte[3])).ParamName);
        Assert.Equal("seqNum", Assert.Throws<ArgumentOutOfRangeException>(() => store.AppendAndIncrement(value, new byte[3])).ParamName);
        Assert.Equal(1, store.NextSenderMsgSeqNum);
        Assert.Equal(1, store.NextTargetMsgSeqNum);
    }

    [Fact]
    public void IncrementPastIntMaxValueThrows()
    {
        IMessageStore store = CreateStore();
        store.SetNextSenderMsgSeqNum(int.MaxValue);
        Assert.Throws<InvalidOperationException>(store.IncrNextSenderMsgSeqNum);
        Assert.Throws<InvalidOperationException>(() => store.AppendAndIncrement(int.MaxValue, new byte[1]));
    }

    [Fact]
    public void AppendDoesNotMoveTheSenderSequenceButAppendAndIncrementDoes()
    {
        IMessageStore store = CreateStore();
        store.Append(1, StoreTestData.Message(1));
        Assert.Equal(1, store.NextSenderMsgSeqNum);
        store.IncrNextSenderMsgSeqNum();
        store.AppendAndIncrement(2, StoreTestData.Message(2));
        Assert.Equal(3, store.NextSenderMsgSeqNum);
        store.AppendAndIncrement(10, StoreTestData.Message(10));
        Assert.Equal(11, store.NextSenderMsgSeqNum);
    }

    [Fact]
    public void ReadRangeDeliversMessagesInOrderWithExactBytes()
    {
        IMessageStore store = CreateStore();
        for (int seq = 1; seq <= 50; seq++) store.AppendAndIncrement(seq, StoreTestData.Message(seq, 20 + seq * 3));
        List<(int SeqNum, byte[] Bytes)> all = StoreTestData.ReadAll(store);
        Assert.Equal(Enumerable.Range(1, 50), all.Select(m => m.SeqNum));
        foreach ((int seq, byte[] bytes) in all) Assert.Equal(StoreTestData.Message(seq, 20 + seq * 3), bytes);
        List<(int SeqNum, byte[] Bytes)> middle = StoreTestData.ReadAll(store, 10, 12);
        Assert.Equal([10, 11, 12], middle.Select(m => m.SeqNum));
        Assert.Equal(StoreTestData.Message(11, 53), middle[1].Bytes);
    }

    [Fact]
    public void ReadRangeSkipsGapsAndTreatsEndZeroAsInfinity()
    {
        IMessageStore store = CreateStore();
        foreach (int seq in new[] { 1, 2, 5, 9, 10, 200 }) store.Append(seq, StoreTestData.Message(seq));
        Assert.Equal([2, 5], StoreTestData.ReadAll(store, 2, 8).Select(m => m.SeqNum));
        Assert.Equal([9, 10, 200], StoreTestData.ReadAll(store, 6, 0).Select(m => m.SeqNum));
        Assert.Equal([1, 2, 5, 9, 10, 200], StoreTestData.ReadAll(store, 0, 0).Select(m => m.SeqNum));
        Assert.Equal([1, 2], StoreTestData.ReadAll(store, -5, 4).Select(m => m.SeqNum));
        Assert.Equal([200], StoreTestData.ReadAll(store, 11, int.MaxValue).Select(m => m.SeqNum));
    }

    [Theory]
    [InlineData(201, 0)]
    [InlineData(300, 400)]
    [InlineData(3, 4)]
    [InlineData(9, 5)]
    public void ReadRangeOutsideStoredMessagesDeliversNothing(int begin, int end)
    {
        IMessageStore store = CreateStore();
        foreach (int seq in new[] { 1, 2, 5, 9, 10, 200 }) store.Append(seq, StoreTestData.Message(seq));
        Assert.Empty(StoreTestData.ReadAll(store, begin, end));
    }

    [Fact]
    public void HandlerCanStopTheReadEarly()
    {
        IMessageStore store = CreateStore();
        for (int seq = 1; seq <= 10; seq++) store.AppendAndIncrement(seq, StoreTestData.Message(seq));
        var handler = CollectingHandler.Create(stopAfter: 3);
        Assert.Equal(3, store.ReadRange(4, 0, ref handler));
        Assert.Equal([4, 5, 6], handler.Messages.Select(m => m.SeqNum));
    }

    [Fact]
    public void OutOfOrderAppendsAreReadInSequenceOrderAndLaterAppendsReplace()
    {
        IMessageStore store = CreateStore();
        store.Append(5, StoreTestData.Message(5));
        store.Append(3, StoreTestData.Message(3));
        store.Append(4, StoreTestData.Message(4));
        store.Append(1, StoreTestData.Message(1));
        store.Append(4, StoreTestData.Message(44, 77));
        List<(int SeqNum, byte[] Bytes)> all = StoreTestData.ReadAll(store);
        Assert.Equal([1, 3, 4, 5], all.Select(m => m.SeqNum));
        Assert.Equal(StoreTestData.Message(44, 77), all[2].Bytes);
        Assert.Equal(StoreTestData.Message(5), all[3].Bytes);
    }

    [Fact]
    public void EmptyAndLargeMessagesRoundTrip()
    {
        IMessageStore store = CreateStore();
        byte[] large = StoreTestData.Message(2, (3 << 20) + 5);
        store.AppendAndIncrement(1, ReadOnlySpan<byte>.Empty);
        store.AppendAndIncrement(2, large);
        store.AppendAndIncrement(3, StoreTestData.Message(3));
        store.AppendAndIncrement(4, StoreTestData.Message(4, 100_001));
        List<(int SeqNum, byte[] Bytes)> all = StoreTestData.ReadAll(store);
        Assert.Equal(4, all.Count);
        Assert.Empty(all[0].Bytes);
        Assert.Equal(large, all[1].Bytes);
        Assert.Equal(StoreTestData.Message(3), all[2].Bytes);
        Assert.Equal(StoreTestData.Message(4, 100_001), all[3].Bytes);
    }

    [Fact]
    public void ManyMessagesOfVaryingSizeRoundTrip()
    {
        IMessageStore store = CreateStore();
        const int Count = 20_000;
        for (int seq = 1; seq <= Count; seq++)
        {
            store.AppendAndIncrement(seq, StoreTestData.Message(seq, 40 + (seq * 37 % 500)));
            store.IncrNextTargetMsgSeqNum();
        }
        Assert.Equal(Count + 1, store.NextSenderMsgSeqNum);
        Assert.Equal(Count + 1, store.NextTargetMsgSeqNum);
        var sum = new SummingHandler();
        Assert.Equal(Count, store.ReadRange(1, 0, ref sum));
        long expected = 0;
        for (int seq = 1; seq <= Count; seq++) expected += 40 + (seq * 37 % 500);
        Assert.Equal(expected, sum.TotalBytes);
        List<(int SeqNum, byte[] Bytes)> slice = StoreTestData.ReadAll(store, 12_345, 12_350);
        Assert.Equal(6, slice.Count);
        foreach ((int seq, byte[] bytes) in slice) Assert.Equal(StoreTestData.Message(seq, 40 + (seq * 37 % 500)), bytes);
    }

    [Fact]
    public void ResetDropsMessagesRestartsSequencesAndSetsCreationTime()
    {
        IMessageStore store = CreateStore();
        for (int seq = 1; seq <= 5; seq++) store.AppendAndIncrement(seq, StoreTestData.Message(seq));
        store.SetNextTargetMsgSeqNum(9);
        store.Reset(CreationTimeNs + 42);
        Assert.Equal(1, store.NextSenderMsgSeqNum);
        Assert.Equal(1, store.NextTargetMsgSeqNum);
        Assert.Equal(CreationTimeNs + 42, store.CreationTimeEpochNs);
        Assert.Empty(StoreTestData.ReadAll(store));
        store.AppendAndIncrement(1, StoreTestData.Message(1001));
        List<(int SeqNum, byte[] Bytes)> all = StoreTestData.ReadAll(store);
        Assert.Single(all);
        Assert.Equal(StoreTestData.Message(1001), all[0].Bytes);
    }

    [Fact]
    public void FlushAndRefreshKeepTheState()
    {
        IMessageStore store = CreateStore();
        store.AppendAndIncrement(1, StoreTestData.Message(1));
        store.IncrNextTargetMsgSeqNum();
        store.Flush();
        store.Refresh();
        Assert.Equal(2, store.NextSenderMsgSeqNum);
        Assert.Equal(2, store.NextTargetMsgSeqNum);
        Assert.Equal(StoreTestData.Message(1), Assert.Single(StoreTestData.ReadAll(store)).Bytes);
    }

    [Fact]
    public void UseAfterDisposeThrowsObjectDisposed()
    {
        IMessageStore store = CreateStore();
        store.Dispose();
        store.Dispose();
        Assert.Throws<ObjectDisposedException>(() => store.Append(1, new byte[1]));
        var handler = new SummingHandler();
        Assert.Throws<ObjectDisposedException>(() => store.ReadRange(1, 0, ref handler));
    }

    [Fact]
    public void ReopenRestoresSequencesMessagesAndCreationTime()
    {
        IMessageStore store = CreateStore();
        for (int seq = 1; seq <= 30; seq++)
        {
            store.AppendAndIncrement(seq, StoreTestData.Message(seq, 100 + seq));
            store.IncrNextTargetMsgSeqNum();
        }
        store.Append(31, StoreTestData.Message(31));
        store.SetNextTargetMsgSeqNum(77);
        IMessageStore? reopened = Reopen(store);
        if (reopened is null) return;
        Assert.Equal(31, reopened.NextSenderMsgSeqNum);
        Assert.Equal(77, reopened.NextTargetMsgSeqNum);
        Assert.Equal(CreationTimeNs, reopened.CreationTimeEpochNs);
        List<(int SeqNum, byte[] Bytes)> all = StoreTestData.ReadAll(reopened);
        Assert.Equal(Enumerable.Range(1, 31), all.Select(m => m.SeqNum));
        Assert.Equal(StoreTestData.Message(31), all[30].Bytes);
        Assert.Equal(StoreTestData.Message(7, 107), all[6].Bytes);
        reopened.AppendAndIncrement(32, StoreTestData.Message(32));
        IMessageStore? again = Reopen(reopened);
        Assert.NotNull(again);
        Assert.Equal(33, again.NextSenderMsgSeqNum);
        Assert.Equal(32, StoreTestData.ReadAll(again).Count);
    }

    [Fact]
    public void ResetSurvivesReopen()
    {
        IMessageStore store = CreateStore();
        for (int seq = 1; seq <= 5; seq++) store.AppendAndIncrement(seq, StoreTestData.Message(seq));
        store.Reset(CreationTimeNs + 1000);
        store.AppendAndIncrement(1, StoreTestData.Message(500));
        IMessageStore? reopened = Reopen(store);
        if (reopened is null) return;
        Assert.Equal(CreationTimeNs + 1000, reopened.CreationTimeEpochNs);
        Assert.Equal(2, reopened.NextSenderMsgSeqNum);
        Assert.Equal(1, reopened.NextTargetMsgSeqNum);
        Assert.Equal(StoreTestData.Message(500), Assert.Single(StoreTestData.ReadAll(reopened)).Bytes);
    }
}

public sealed class MemoryMessageStoreContractTests : MessageStoreContractTests
{
    protected override IMessageStore CreateStoreCore(long creationTimeEpochNs) => new MemoryMessageStore(creationTimeEpochNs, chunkSizeInBytes: 64 * 1024);
}

public sealed class FileMessageStoreContractTests : MessageStoreContractTests
{
    private readonly TempDirectory _directory = new();
    private int _sessionCounter;

    protected override IMessageStore CreateStoreCore(long creationTimeEpochNs) =>
        new FileMessageStore(_directory.Path, "FIX.4.4:SENDER->TARGET" + (++_sessionCounter), creationTimeEpochNs,
            new FileMessageStoreOptions { SyncPolicy = FileStoreSyncPolicy.OS });

    protected override IMessageStore? ReopenCore(IMessageStore store)
    {
        var file = (FileMessageStore)store;
        file.Dispose();
        var reopened = new FileMessageStore(file.JournalPath, nowEpochNs: 1, new FileMessageStoreOptions { SyncPolicy = FileStoreSyncPolicy.OS });
        Assert.Null(reopened.LastRecoveryReport);
        return reopened;
    }

    public override void Dispose()
    {
        base.Dispose();
        _directory.Dispose();
    }
}
