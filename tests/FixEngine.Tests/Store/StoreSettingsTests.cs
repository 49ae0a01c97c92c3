using System;
using System.IO;
using System.Linq;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Session;
using FixEngine.Store;
using FixEngine.Tests.Session;

namespace FixEngine.Tests.Store;

/// <summary>The store settings reach the store through a settings file and the session factory, and a recovery is
/// written to the session log.</summary>
public sealed class StoreSettingsTests : IDisposable
{
    private readonly TempDirectory _directory = new();

    public void Dispose() => _directory.Dispose();

    private SessionSettings Settings(string recovery)
    {
        string store = _directory.File("store");
        string logs = _directory.File("logs");
        return SettingsFile.Parse($"""
            [DEFAULT]
            ConnectionType=acceptor
            SocketAcceptPort=5001
            NonStopSession=Y
            FileStorePath={store}
            FileLogPath={logs}
            FileStoreRecovery={recovery}
            [SESSION]
            BeginString=FIX.4.2
            SenderCompID=S
            TargetCompID=T
            """).Single();
    }

    /// <summary>Writes a journal for the session with four messages and flips a byte in the body of message 2.</summary>
    private static string DamagedJournal(SessionSettings settings)
    {
        string path = FileMessageStore.GetJournalPath(settings.FileStorePath!, settings.SessionId.ToString());
        long bodyOffset;
        using (var store = new FileMessageStore(path, 1))
        {
            store.AppendAndIncrement(1, StoreTestData.Message(1));
            bodyOffset = store.JournalLengthInBytes + 40 + 100;
            for (int seq = 2; seq <= 4; seq++) store.AppendAndIncrement(seq, StoreTestData.Message(seq));
        }
        byte[] bytes = File.ReadAllBytes(path);
        bytes[bodyOffset] ^= 0x40;
        File.WriteAllBytes(path, bytes);
        return path;
    }

    [Fact]
    public void FileStoreRecoveryIsParsedAndRefuseIsTheDefault()
    {
        Assert.Equal(StoreRecoveryPolicy.RecoverAndGapFill, Settings("RecoverAndGapFill").FileStoreRecovery);
        Assert.Equal(StoreRecoveryPolicy.Refuse, Settings("refuse").FileStoreRecovery);
        ConfigException error = Assert.Throws<ConfigException>(() => Settings("Sometimes"));
        Assert.Contains("FileStoreRecovery", error.Message);
    }

    [Fact]
    public void TheFactoryRefusesADamagedJournalUnderRefuseWithAMessageStoreException()
    {
        SessionSettings settings = Settings("Refuse");
        string journal = DamagedJournal(settings);
        using var factory = new SessionFactory();
        MessageStoreException error = Assert.Throws<MessageStoreException>(() => factory.Create(settings, new EchoApp(), 5));
        Assert.Equal(journal, error.StorePath);
        Assert.Equal(2, error.RecoveryReport!.Damages.Single().LostMessageSeqNum);
    }

    [Fact]
    public void TheFactoryRecoversUnderRecoverAndGapFillAndLogsTheReport()
    {
        SessionSettings settings = Settings("RecoverAndGapFill");
        DamagedJournal(settings);
        string log;
        using (var factory = new SessionFactory())
        {
            using FixSession session = factory.Create(settings, new EchoApp(), 5);
            StoreRecoveryReport report = session.Store.LastRecoveryReport!;
            Assert.Equal(2, report.Damages.Single().LostMessageSeqNum);
            Assert.Equal(5, session.NextSenderMsgSeqNum);
            Assert.Equal(3, report.MessagesKept);
            log = Path.Combine(settings.FileLogPath!, "fixengine.log");
        }
        string text = File.ReadAllText(log);
        Assert.Contains("Store recovery of", text);
        Assert.Contains("body of MsgSeqNum 2 lost", text);
    }

    [Fact]
    public void TheApplicationIsToldOfARecoveryOnceWithTheReport()
    {
        SessionSettings settings = Settings("RecoverAndGapFill");
        string journal = DamagedJournal(settings);
        var app = new DurableApp();
        using (var factory = new SessionFactory())
        {
            using FixSession session = factory.Create(settings, app, 5);
            // Raised when the session is built, before any connection, with the store's own report.
            StoreRecoveryReport report = Assert.Single(app.Recovered);
            Assert.Same(session.Store.LastRecoveryReport, report);
            Assert.Equal(journal, report.StorePath);
            Assert.True(report.LostData);
            JournalDamage damage = report.Damages.Single();
            Assert.Equal(JournalDamageResolution.BodyLost, damage.Resolution);
            Assert.Equal(2, damage.LostMessageSeqNum);
            Assert.True(File.Exists(report.PreservedCopyPath));
        }

        // The journal was repaired: opening it again recovers nothing and tells nothing.
        var again = new DurableApp();
        using (var factory = new SessionFactory())
        {
            using FixSession session = factory.Create(settings, again, 7);
            Assert.Null(session.Store.LastRecoveryReport);
            Assert.Empty(again.Recovered);
        }
    }
}
