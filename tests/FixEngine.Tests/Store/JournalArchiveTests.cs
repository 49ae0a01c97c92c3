using System;
using System.IO;
using System.Linq;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Store;
using FixEngine.Tests.Infrastructure;

namespace FixEngine.Tests.Store;

/// <summary>FileStoreArchivePath: a reset moves the finished journal to the archive folder, named by its creation
/// date, instead of emptying it; the archived file opens as that incarnation's history.</summary>
public sealed class JournalArchiveTests : IDisposable
{
    private readonly TempDirectory _directory = new();

    public void Dispose() => _directory.Dispose();

    [Fact]
    public void EachResetMovesTheFinishedJournalToTheArchiveByDate()
    {
        string archive = _directory.File("archive");
        var options = new FileMessageStoreOptions { SyncPolicy = FileStoreSyncPolicy.OS, ArchiveDirectory = archive };
        long day1 = new DateTimeOffset(2026, 12, 4, 6, 0, 0, TimeSpan.Zero).ToUnixTimeMilliseconds() * 1_000_000;
        long day2 = day1 + 86_400_000_000_000;
        long day3 = day2 + 86_400_000_000_000;
        using (var store = new FileMessageStore(_directory.Path, "FIX.4.4:A->B", day1, options))
        {
            for (int seq = 1; seq <= 300; seq++) store.AppendAndIncrement(seq, StoreTestData.Message(seq));
            store.Reset(day2);
            Assert.Equal(Path.Combine(archive, "FIX.4.4_A-_B.20261204T060000Z.journal"), store.LastArchivedJournalPath);
            for (int seq = 1; seq <= 5; seq++) store.AppendAndIncrement(seq, StoreTestData.Message(1_000 + seq));
            store.Reset(day3);
            store.AppendAndIncrement(1, StoreTestData.Message(9_999));
            Assert.Equal(1, store.MessageCount);
            Assert.Equal(day3, store.CreationTimeEpochNs);
        }
        Assert.Equal(new[] { "FIX.4.4_A-_B.20261204T060000Z.journal", "FIX.4.4_A-_B.20261205T060000Z.journal" },
            Directory.GetFiles(archive).Select(Path.GetFileName).Order(StringComparer.Ordinal).ToArray());

        // Each archived journal is that day's history, whole.
        using (var first = new FileMessageStore(Path.Combine(archive, "FIX.4.4_A-_B.20261204T060000Z.journal"), 0, new FileMessageStoreOptions { IndexCheckpoint = false }))
        {
            Assert.Equal(day1, first.CreationTimeEpochNs);
            Assert.Equal(301, first.NextSenderMsgSeqNum);
            var messages = StoreTestData.ReadAll(first);
            Assert.Equal(300, messages.Count);
            Assert.Equal(StoreTestData.Message(300), messages[^1].Bytes);
        }
        using (var second = new FileMessageStore(Path.Combine(archive, "FIX.4.4_A-_B.20261205T060000Z.journal"), 0, new FileMessageStoreOptions { IndexCheckpoint = false }))
        {
            Assert.Equal(day2, second.CreationTimeEpochNs);
            Assert.Equal(Enumerable.Range(1_001, 5).Select(i => StoreTestData.Message(i)), StoreTestData.ReadAll(second).Select(m => m.Bytes));
        }
        // The live journal holds day 3 only, and reopens so.
        using var live = new FileMessageStore(_directory.Path, "FIX.4.4:A->B", 0, options);
        Assert.Equal(day3, live.CreationTimeEpochNs);
        Assert.Equal(StoreTestData.Message(9_999), Assert.Single(StoreTestData.ReadAll(live)).Bytes);
    }

    [Fact]
    public void AnArchiveThatCannotBeWrittenFailsTheResetAndKeepsTheJournal()
    {
        string blocker = _directory.File("not-a-folder");
        File.WriteAllText(blocker, "x");
        var options = new FileMessageStoreOptions { SyncPolicy = FileStoreSyncPolicy.OS, ArchiveDirectory = Path.Combine(blocker, "archive") };
        using var store = new FileMessageStore(_directory.Path, "S", 1, options);
        store.AppendAndIncrement(1, StoreTestData.Message(1));
        MessageStoreException e = Assert.Throws<MessageStoreException>(() => store.Reset(2));
        Assert.Contains("was not reset", e.Message);
        Assert.Contains(blocker, e.Message);
        Assert.Equal(2, store.NextSenderMsgSeqNum);
        Assert.Single(StoreTestData.ReadAll(store));
    }

    [Fact]
    public void TheSettingReachesTheFileStore()
    {
        const string Text = """
            [DEFAULT]
            ConnectionType=acceptor
            SocketAcceptPort=5001
            StartTime=00:00:00
            EndTime=00:00:00
            SenderCompID=ISLD
            FileStorePath=store
            FileStoreArchivePath=store/archive
            FileStoreIndexCheckpoint=Y
            [SESSION]
            BeginString=FIX.4.2
            TargetCompID=TW
            """;
        SessionSettings settings = Assert.Single(SettingsFile.Parse(Text));
        Assert.Equal("store/archive", settings.FileStoreArchivePath);
        Assert.Equal("store/archive", SettingsMessageStoreFactory.FileOptions(settings, sharedAccess: false).ArchiveDirectory);
        Assert.True(SettingsMessageStoreFactory.FileOptions(settings, sharedAccess: false).IndexCheckpoint);
    }
}
