using System;
using System.IO;
using FixEngine.Store;

namespace FixEngine.Tests.Store;

/// <summary>A reset of a journal that holds a single record without a message (a new journal's, or the last reset's) writes
/// the reset record over it instead of truncating the file; a journal with more is truncated as before. Either way the
/// journal reopens as the new incarnation.</summary>
public sealed class ResetInPlaceTests : IDisposable
{
    private const long T0 = 1_000_000_000_000L;
    private readonly TempDirectory _directory = new();

    public void Dispose() => _directory.Dispose();

    private static readonly int OneRecord = JournalFormat.RecordSize(JournalRecordType.Reset, 0);

    [Theory]
    [InlineData(FileStoreSyncPolicy.OS)]
    [InlineData(FileStoreSyncPolicy.PerMessage)]
    public void ANewJournalIsResetInPlaceAndReopensAsTheNewIncarnation(FileStoreSyncPolicy sync)
    {
        string path = _directory.File("fresh.journal");
        var options = new FileMessageStoreOptions { SyncPolicy = sync };
        using (var store = new FileMessageStore(path, T0, options))
        {
            Assert.Equal(OneRecord, new FileInfo(path).Length);
            store.Reset(T0 + 1);
            Assert.Equal(OneRecord, store.JournalLengthInBytes);
            Assert.Equal(OneRecord, new FileInfo(path).Length);
            store.Reset(T0 + 2);
            Assert.Equal(OneRecord, new FileInfo(path).Length);
            Assert.Equal(T0 + 2, store.CreationTimeEpochNs);
            Assert.Equal(0, store.Truncations);
        }
        using (var reopened = new FileMessageStore(path, T0 + 99, options))
        {
            Assert.Equal(T0 + 2, reopened.CreationTimeEpochNs);
            Assert.Equal(1, reopened.NextSenderMsgSeqNum);
            Assert.Equal(1, reopened.NextTargetMsgSeqNum);
            Assert.Equal(0, reopened.MessageCount);
            // The traffic after the reset goes after the overwritten record.
            reopened.AppendAndIncrement(1, StoreTestData.Message(1));
            reopened.IncrNextTargetMsgSeqNum();
        }
        using var last = new FileMessageStore(path, T0 + 100, options);
        Assert.Equal(2, last.NextSenderMsgSeqNum);
        Assert.Equal(2, last.NextTargetMsgSeqNum);
        Assert.Equal(1, last.MessageCount);
        Assert.Equal(T0 + 2, last.CreationTimeEpochNs);
    }

    [Fact]
    public void AJournalWithMoreThanOneRecordIsTruncated()
    {
        string path = _directory.File("used.journal");
        using (var store = new FileMessageStore(path, T0, new FileMessageStoreOptions()))
        {
            store.IncrNextTargetMsgSeqNum();
            store.Reset(T0 + 1);
            Assert.Equal(1, store.Truncations);
            Assert.Equal(OneRecord, new FileInfo(path).Length);
            for (int seq = 1; seq <= 5; seq++) store.AppendAndIncrement(seq, StoreTestData.Message(seq));
            Assert.True(new FileInfo(path).Length > OneRecord);
            store.Reset(T0 + 2);
            Assert.Equal(2, store.Truncations);
            Assert.Equal(OneRecord, new FileInfo(path).Length);
            Assert.Equal(0, store.MessageCount);
        }
        using var reopened = new FileMessageStore(path, T0 + 99, new FileMessageStoreOptions());
        Assert.Equal(T0 + 2, reopened.CreationTimeEpochNs);
        Assert.Equal(1, reopened.NextSenderMsgSeqNum);
        Assert.Equal(0, reopened.MessageCount);
    }
}
