using System;
using System.IO;
using FixEngine.Store;

namespace FixEngine.Tests.Store;

/// <summary>File-store specifics: sync policies, naming, exclusivity, limits.</summary>
public sealed class FileMessageStoreTests : IDisposable
{
    private readonly TempDirectory _directory = new();

    public void Dispose() => _directory.Dispose();

    private FileMessageStore Open(FileMessageStoreOptions options, string name = "s") => new(_directory.Path, name, 5, options);

    [Fact]
    public void PerMessageSyncsOutboundRecordsAndLetsTargetSequenceRideOnTheNextSync()
    {
        using FileMessageStore store = Open(new FileMessageStoreOptions { SyncPolicy = FileStoreSyncPolicy.PerMessage });
        Assert.Equal(0, store.UnsyncedRecordCount);
        store.AppendAndIncrement(1, StoreTestData.Message(1));
        Assert.Equal(0, store.UnsyncedRecordCount);
        store.IncrNextTargetMsgSeqNum();
        Assert.Equal(1, store.UnsyncedRecordCount);
        store.Append(2, StoreTestData.Message(2));
        Assert.Equal(0, store.UnsyncedRecordCount);
        store.IncrNextSenderMsgSeqNum();
        Assert.Equal(0, store.UnsyncedRecordCount);
    }

    [Fact]
    public void PerMessageAlsoSyncsTheProcessedMarkBeforeReturning()
    {
        using FileMessageStore store = Open(new FileMessageStoreOptions { SyncPolicy = FileStoreSyncPolicy.PerMessage });
        store.IncrNextTargetMsgSeqNum();
        Assert.Equal(1, store.UnsyncedRecordCount);
        store.SetLastProcessedInboundSeqNum(1);
        Assert.Equal(0, store.UnsyncedRecordCount);
        store.IncrNextTargetMsgSeqNum();
        store.AppendAndIncrement(1, StoreTestData.Message(1), 2);
        Assert.Equal(0, store.UnsyncedRecordCount);
    }

    [Theory]
    [InlineData(StoreRecoveryPolicy.RecoverAndGapFill)]
    [InlineData(StoreRecoveryPolicy.Refuse)]
    public void ASharedStoreRecoversInMemoryOnlyAndNeverChangesTheFile(StoreRecoveryPolicy policy)
    {
        string path;
        long secondRecord;
        using (FileMessageStore writer = Open(new FileMessageStoreOptions { SyncPolicy = FileStoreSyncPolicy.OS }, "shared-damage"))
        {
            writer.AppendAndIncrement(1, StoreTestData.Message(1));
            secondRecord = writer.JournalLengthInBytes;
            for (int seq = 2; seq <= 4; seq++) writer.AppendAndIncrement(seq, StoreTestData.Message(seq));
            path = writer.JournalPath;
        }
        byte[] bytes = File.ReadAllBytes(path);
        bytes[secondRecord + 40 + 50] ^= 0x04;
        File.WriteAllBytes(path, bytes);
        var options = new FileMessageStoreOptions { SyncPolicy = FileStoreSyncPolicy.OS, SharedAccess = true, Recovery = policy };
        if (policy == StoreRecoveryPolicy.Refuse)
        {
            Assert.True(Assert.Throws<MessageStoreException>(() => Open(options, "shared-damage")).RecoveryReport!.Refused);
        }
        else
        {
            using FileMessageStore standby = Open(options, "shared-damage");
            Assert.False(standby.LastRecoveryReport!.FileRepaired);
            Assert.Null(standby.LastRecoveryReport.PreservedCopyPath);
            Assert.Equal(5, standby.NextSenderMsgSeqNum);
            Assert.Equal([1, 3, 4], StoreTestData.ReadAll(standby).ConvertAll(m => m.SeqNum));
        }
        Assert.Equal(bytes, File.ReadAllBytes(path));
    }

    [Fact]
    public void BatchedSyncsAfterTheConfiguredRecordCount()
    {
        using FileMessageStore store = Open(new FileMessageStoreOptions { SyncPolicy = FileStoreSyncPolicy.Batched, BatchRecordCount = 3, BatchIntervalNs = long.MaxValue });
        store.AppendAndIncrement(1, StoreTestData.Message(1));
        store.IncrNextTargetMsgSeqNum();
        Assert.Equal(2, store.UnsyncedRecordCount);
        store.AppendAndIncrement(2, StoreTestData.Message(2));
        Assert.Equal(0, store.UnsyncedRecordCount);
    }

    [Fact]
    public void BatchedDoWorkSyncsOnceTheOldestUnsyncedRecordIsOldEnough()
    {
        using FileMessageStore store = Open(new FileMessageStoreOptions { SyncPolicy = FileStoreSyncPolicy.Batched, BatchRecordCount = 1000, BatchIntervalNs = 1_000 });
        Assert.Equal(0, store.DoWork(100));
        store.AppendAndIncrement(1, StoreTestData.Message(1));
        Assert.Equal(0, store.DoWork(5_000));
        store.AppendAndIncrement(2, StoreTestData.Message(2));
        Assert.Equal(0, store.DoWork(5_999));
        Assert.Equal(2, store.UnsyncedRecordCount);
        Assert.Equal(1, store.DoWork(6_000));
        Assert.Equal(0, store.UnsyncedRecordCount);
        Assert.Equal(0, store.DoWork(100_000));
    }

    [Fact]
    public void OsPolicyNeverSyncsUntilFlush()
    {
        using FileMessageStore store = Open(new FileMessageStoreOptions { SyncPolicy = FileStoreSyncPolicy.OS });
        for (int seq = 1; seq <= 5; seq++) store.AppendAndIncrement(seq, StoreTestData.Message(seq));
        Assert.Equal(0, store.DoWork(long.MaxValue));
        Assert.Equal(5, store.UnsyncedRecordCount);
        store.Flush();
        Assert.Equal(0, store.UnsyncedRecordCount);
    }

    [Theory]
    [InlineData(FileStoreSyncPolicy.OS, 1)]
    [InlineData(FileStoreSyncPolicy.Batched, 1)]
    [InlineData(FileStoreSyncPolicy.PerMessage, 0)]
    public void AResetIsForcedToDiskAsThePolicySays(FileStoreSyncPolicy policy, int unsyncedAfterReset)
    {
        // Issue 35: a reset (every logon with ResetOnLogon=Y) forced an fsync whatever the policy; under OS and Batched
        // its record now waits in the page cache like any other (what a lost one leaves behind opens as a fresh
        // incarnation: FileMessageStoreRecoveryTests).
        using FileMessageStore store = Open(new FileMessageStoreOptions { SyncPolicy = policy, BatchRecordCount = 1000, BatchIntervalNs = long.MaxValue });
        store.AppendAndIncrement(1, StoreTestData.Message(1));
        store.Flush();
        store.Reset(7);
        Assert.Equal(unsyncedAfterReset, store.UnsyncedRecordCount);
        Assert.Equal((1, 1), (store.NextSenderMsgSeqNum, store.NextTargetMsgSeqNum));
        store.Flush();
        Assert.Equal(0, store.UnsyncedRecordCount);
    }

    [Fact]
    public void JournalPathReplacesUnsafeCharactersOfTheSessionId()
    {
        string path = FileMessageStore.GetJournalPath("/var/fix", "FIX.4.4:BANK->CLIENT/1 x");
        Assert.Equal(Path.Combine("/var/fix", "FIX.4.4_BANK-_CLIENT_1_x.journal"), path);
        using FileMessageStore store = new(_directory.Path, "FIX.4.4:A->B", 1, new FileMessageStoreOptions { SyncPolicy = FileStoreSyncPolicy.OS });
        Assert.True(File.Exists(Path.Combine(_directory.Path, "FIX.4.4_A-_B.journal")));
    }

    [Fact]
    public void ASecondStoreCannotOpenAJournalThatIsInUse()
    {
        using FileMessageStore first = Open(new FileMessageStoreOptions { SyncPolicy = FileStoreSyncPolicy.OS }, "busy");
        MessageStoreException error = Assert.Throws<MessageStoreException>(() => Open(new FileMessageStoreOptions(), "busy"));
        Assert.Equal(MessageStoreOperation.Open, error.Operation);
        Assert.Equal(first.JournalPath, error.StorePath);
        Assert.Contains(first.JournalPath, error.Message);
        Assert.IsAssignableFrom<IOException>(error.InnerException);
        first.AppendAndIncrement(1, StoreTestData.Message(1));
    }

    [Fact]
    public void SharedStoresOpenOneJournalAndAStandbyRefreshSeesTheWritersState()
    {
        var shared = new FileMessageStoreOptions { SyncPolicy = FileStoreSyncPolicy.OS, SharedAccess = true };
        using FileMessageStore standby = Open(shared, "warm");
        Assert.Equal(0, standby.JournalLengthInBytes);
        using (FileMessageStore writer = Open(shared, "warm"))
        {
            for (int seq = 1; seq <= 3; seq++) writer.AppendAndIncrement(seq, StoreTestData.Message(seq));
            writer.SetNextTargetMsgSeqNum(7);
        }
        Assert.Equal(1, standby.NextSenderMsgSeqNum);
        standby.Refresh();
        Assert.Equal(4, standby.NextSenderMsgSeqNum);
        Assert.Equal(7, standby.NextTargetMsgSeqNum);
        Assert.Equal(new byte[][] { StoreTestData.Message(1), StoreTestData.Message(2), StoreTestData.Message(3) }, StoreTestData.ReadAll(standby).ConvertAll(m => m.Bytes));
        // The standby, now the writer, continues the journal.
        standby.AppendAndIncrement(4, StoreTestData.Message(4));
        standby.Dispose();
        using FileMessageStore reopened = Open(new FileMessageStoreOptions(), "warm");
        Assert.Equal(5, reopened.NextSenderMsgSeqNum);
        Assert.Equal(4, StoreTestData.ReadAll(reopened).Count);
    }

    [Fact]
    public void ASharedStoreLeavesATornTailForTheWriterInsteadOfTruncating()
    {
        string path;
        long validLength;
        using (FileMessageStore writer = Open(new FileMessageStoreOptions { SyncPolicy = FileStoreSyncPolicy.OS }, "torn"))
        {
            writer.AppendAndIncrement(1, StoreTestData.Message(1));
            path = writer.JournalPath;
            validLength = writer.JournalLengthInBytes;
            writer.AppendAndIncrement(2, StoreTestData.Message(2));
        }
        // Half of record 2, as if the writer were in the middle of appending it (its head is complete).
        using (var file = new FileStream(path, FileMode.Open, FileAccess.ReadWrite)) file.SetLength(validLength + 100);
        long physical = new FileInfo(path).Length;
        using (FileMessageStore shared = Open(new FileMessageStoreOptions { SyncPolicy = FileStoreSyncPolicy.OS, SharedAccess = true }, "torn"))
        {
            JournalDamage damage = Assert.Single(shared.LastRecoveryReport!.Damages);
            Assert.Equal(JournalDamageReason.TornTail, damage.Reason);
            Assert.False(shared.LastRecoveryReport.FileRepaired);
            Assert.Equal(validLength, shared.JournalLengthInBytes);
            // A write in progress is not taken as done: the sequence number is that of the last complete record.
            Assert.Equal(2, shared.NextSenderMsgSeqNum);
            shared.Refresh();
            Assert.Equal(physical, new FileInfo(path).Length);
        }
        using (FileMessageStore exclusive = Open(new FileMessageStoreOptions { SyncPolicy = FileStoreSyncPolicy.OS }, "torn"))
        {
            // The exclusive owner keeps the torn record's sequence state (never rewinds) and writes it down.
            Assert.Equal(3, exclusive.NextSenderMsgSeqNum);
            Assert.Single(StoreTestData.ReadAll(exclusive));
            Assert.Equal(2, exclusive.LastRecoveryReport!.Damages[0].LostMessageSeqNum);
            Assert.Equal(exclusive.JournalLengthInBytes, new FileInfo(path).Length);
        }
    }

    [Fact]
    public void MessageAboveTheConfiguredMaximumIsRejectedAndTheStoreStaysUsable()
    {
        using FileMessageStore store = Open(new FileMessageStoreOptions { SyncPolicy = FileStoreSyncPolicy.OS, MaxMessageLengthInBytes = 1000 });
        ArgumentException error = Assert.Throws<ArgumentException>(() => store.AppendAndIncrement(1, new byte[1001]));
        Assert.Contains("1001", error.Message);
        store.AppendAndIncrement(1, new byte[1000]);
        Assert.Equal(2, store.NextSenderMsgSeqNum);
        Assert.Single(StoreTestData.ReadAll(store));
    }

    [Fact]
    public void NewJournalStartsWithAResetRecordHoldingTheCreationTime()
    {
        using FileMessageStore store = Open(new FileMessageStoreOptions { SyncPolicy = FileStoreSyncPolicy.OS });
        Assert.Equal(80, store.JournalLengthInBytes);
        Assert.Equal(5, store.CreationTimeEpochNs);
        Assert.Null(store.LastRecoveryReport);
    }

    [Fact]
    public void InvalidOptionsAreRejected()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => Open(new FileMessageStoreOptions { BatchRecordCount = 0 }));
        Assert.Throws<ArgumentOutOfRangeException>(() => Open(new FileMessageStoreOptions { MaxMessageLengthInBytes = 0 }));
        Assert.Throws<ArgumentOutOfRangeException>(() => Open(new FileMessageStoreOptions { Recovery = (StoreRecoveryPolicy)9 }));
    }

    [Fact]
    public void TheStoreAndTheSettingsShareOneSyncDefault()
    {
        Assert.Equal(FileStoreSyncPolicy.OS, new FileMessageStoreOptions().SyncPolicy);
        Assert.Equal(FileStoreSyncPolicy.OS, new FixEngine.Config.SessionSettings().FileStoreSync);
        Assert.Equal(StoreRecoveryPolicy.Refuse, new FileMessageStoreOptions().Recovery);
        Assert.Equal(StoreRecoveryPolicy.Refuse, new FixEngine.Config.SessionSettings().FileStoreRecovery);
    }

    [Fact]
    public void Crc32CMatchesTheStandardCheckValue()
    {
        Assert.Equal(0xE3069283u, Crc32C.Compute("123456789"u8));
        Assert.Equal(0u, Crc32C.Compute(ReadOnlySpan<byte>.Empty));
        Assert.Equal(0x8A9136AAu, Crc32C.Compute(new byte[32]));
    }
}
