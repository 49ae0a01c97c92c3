using System;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.PostgreSQL;
using FixEngine.Session;
using FixEngine.Store;
using FixEngine.Tests.Infrastructure;

namespace FixEngine.Tests.Store;

/// <summary>The PostgreSQL store's settings keys (kept by the core as written, read by FixEngine.PostgreSQL), and the
/// session factory building the store from them.</summary>
public sealed class PostgresStoreSettingsTests
{
    private const string Session = """
        [DEFAULT]
        ConnectionType=acceptor
        SocketAcceptPort=5001
        StartTime=00:00:00
        EndTime=00:00:00
        SenderCompID=ISLD
        [SESSION]
        BeginString=FIX.4.2
        TargetCompID=TW
        """;

    private sealed class NoApp : IApplication
    {
        public FromAppResult FromApp(FixSession session, FixMessage message) => FromAppResult.Accepted;
    }

    [Fact]
    public void SettingsCarryTheConnectionStringPrefixSyncPolicyAndLease()
    {
        SessionSettings defaultSettings = Assert.Single(SettingsFile.Parse(Session));
        PostgresStoreSettings defaults = PostgresStoreSettings.Parse(defaultSettings);
        Assert.Null(defaults.ConnectionString);
        Assert.Equal("fixengine_", defaults.TablePrefix);
        Assert.Equal(PostgresSyncPolicy.PerMessage, defaults.Sync);
        Assert.Equal(10, defaults.LeaseTimeout);
        Assert.Equal(StoreFailurePolicy.Logout, defaultSettings.StoreFailurePolicy);
        SessionSettings s = Assert.Single(SettingsFile.Parse(Session + """

            PostgreSQLStoreConnectionString=Host=db1;Port=5432;Database=fix;Username=fix
            PostgreSQLStoreTablePrefix=venue_a_
            PostgreSQLStoreSync=groupcommit
            PostgreSQLStoreLeaseTimeout=4
            PostgreSQLStoreFailurePolicy=hold
            """));
        PostgresStoreSettings pg = PostgresStoreSettings.Parse(s);
        Assert.Equal("Host=db1;Port=5432;Database=fix;Username=fix", pg.ConnectionString);
        Assert.Equal("venue_a_", pg.TablePrefix);
        Assert.Equal(PostgresSyncPolicy.GroupCommit, pg.Sync);
        Assert.Equal(4, pg.LeaseTimeout);
        Assert.Equal(StoreFailurePolicy.Hold, s.StoreFailurePolicy);
        // Written back as read: the settings file round trip keeps the package's keys.
        string written = SettingsFile.ToSettingsText(s);
        Assert.Contains("PostgreSQLStoreConnectionString=Host=db1;Port=5432;Database=fix;Username=fix", written);
        Assert.Contains("PostgreSQLStoreSync=groupcommit", written);
        Assert.Equal(pg, PostgresStoreSettings.Parse(Assert.Single(SettingsFile.Parse(written))));
    }

    [Fact]
    public void SettingsBuiltInCodeCarryTheKeysToo()
    {
        SessionSettings file = Assert.Single(SettingsFile.Parse(Session));
        SessionSettings s = (file with { Origin = null }).WithExtensionSetting("PostgreSQLStoreConnectionString", "Host=db1")
            .WithExtensionSetting("postgresqlstoresync", "LocalJournalFirst");
        ConfigException e = Assert.Throws<ConfigException>(() => PostgresStoreSettings.Parse(s));
        Assert.Equal("PostgreSQLStoreSync: LocalJournalFirst needs FileStorePath (the folder of the local journal)", e.Message);
        Assert.Throws<ArgumentException>(() => file.WithExtensionSetting("PostgreSQLStoreSnyc", "PerMessage"));
    }

    // The core keeps the values as written; the package checks them, naming the file, line and key, before any store opens.
    [Theory]
    [InlineData("PostgreSQLStoreSync=Sometimes", "PostgreSQLStoreSync", "PerMessage, GroupCommit, LocalJournalFirst")]
    [InlineData("PostgreSQLStoreLeaseTimeout=0", "PostgreSQLStoreLeaseTimeout", "at least 1")]
    [InlineData("PostgreSQLStoreLeaseTimeout=ten", "PostgreSQLStoreLeaseTimeout", "not an integer")]
    [InlineData("PostgreSQLStoreTablePrefix=Fix-Engine", "PostgreSQLStoreTablePrefix", "lower-case")]
    [InlineData("PostgreSQLStoreConnectionString=Host=db1\nPostgreSQLStoreSync=LocalJournalFirst", "PostgreSQLStoreSync", "FileStorePath")]
    public void BadValuesNameTheKey(string lines, string key, string reason)
    {
        SessionSettings settings = Assert.Single(SettingsFile.Parse(Session + "\n" + lines, "venue.cfg"));
        ConfigException e = Assert.Throws<ConfigException>(() => PostgresMessageStoreFactory.Instance.Validate(settings));
        Assert.Equal(key, e.Key);
        Assert.Equal("venue.cfg", e.FileName);
        Assert.Equal(settings.Origin!.LineOf(key), e.LineNumber);
        Assert.True(e.LineNumber >= 10, "the line of the key in the file");
        Assert.Contains(reason, e.Message);
        // The engine checks every session's store settings when it is built: nothing is opened or bound.
        ConfigException atStart = Assert.Throws<ConfigException>(() => new FixEngineHost([settings], new NoApp(),
            new EngineOptions { MessageStoreFactory = PostgresMessageStoreFactory.Instance }));
        Assert.Equal(e.Message, atStart.Message);
    }

    [Fact]
    public void AFailurePolicyThatDoesNotParseNamesTheKeyAsWritten()
    {
        ConfigException e = Assert.Throws<ConfigException>(() => SettingsFile.Parse(Session + "\nPostgreSQLStoreFailurePolicy=Wait", "venue.cfg"));
        Assert.Equal("PostgreSQLStoreFailurePolicy", e.Key);
        Assert.Contains("Logout, Hold", e.Message);
        e = Assert.Throws<ConfigException>(() => SettingsFile.Parse(Session + "\nStoreFailurePolicy=Hold\nPostgreSQLStoreFailurePolicy=Hold", "venue.cfg"));
        Assert.Contains("same setting", e.Message);
    }

    [Fact]
    public void WithoutThePackageAPostgresSessionFailsAtStartNamingTheKeyFileLineAndPackage()
    {
        SessionSettings settings = Assert.Single(SettingsFile.Parse(Session + "\nPostgreSQLStoreConnectionString=Host=db1\nPostgreSQLStoreSync=GroupCommit", "venue.cfg"));
        ConfigException e = Assert.Throws<ConfigException>(() => new FixEngineHost([settings], new NoApp(), new EngineOptions()));
        Assert.Equal("PostgreSQLStoreConnectionString", e.Key);
        Assert.Equal(10, e.LineNumber);
        Assert.StartsWith("venue.cfg(10): PostgreSQLStoreConnectionString: ", e.Message);
        Assert.Contains("reference FixEngine.PostgreSQL and use its factory", e.Message);
        Assert.DoesNotContain("\n", e.Message);
        // The same from the factory itself, and for a session added later.
        Assert.Throws<ConfigException>(() => SettingsMessageStoreFactory.Instance.Create(settings, 1));
        // The package's factory hands sessions without a connection string to the file or memory store.
        SessionSettings plain = Assert.Single(SettingsFile.Parse(Session));
        PostgresMessageStoreFactory.Instance.Validate(plain);
        using IMessageStore memory = PostgresMessageStoreFactory.Instance.Create(plain, 1);
        Assert.IsType<MemoryMessageStore>(memory);
    }

    [PostgresFact]
    public void TheSessionFactoryBuildsAPostgresStoreHoldingTheLease()
    {
        string target = "TW" + Guid.NewGuid().ToString("N")[..10];
        SessionSettings settings = Assert.Single(SettingsFile.Parse(Session.Replace("TargetCompID=TW", "TargetCompID=" + target) + $"""

            PostgreSQLStoreConnectionString={PostgresTestServer.ConnectionString}
            PostgreSQLStoreTablePrefix=fixengine_test_
            PostgreSQLStoreSync=GroupCommit
            PostgreSQLStoreLeaseTimeout=5
            PostgreSQLStoreFailurePolicy=Hold
            """));
        using var factory = new SessionFactory(PostgresMessageStoreFactory.Instance, null);
        FixSession session = factory.Create(settings, new NoApp(), 1_700_000_000_000_000_000);
        try
        {
            var store = Assert.IsType<PostgresMessageStore>(session.Store);
            Assert.Equal(PostgresSyncPolicy.GroupCommit, store.SyncPolicy);
            // A holding session's store takes its own lease back after an outage instead of stopping for good.
            Assert.True(store.ResumeAfterLeaseLost);
            Assert.True(store.HoldsLease);
            Assert.Equal(store.HolderId, PostgresTestSupport.Scalar<string>(
                "SELECT lease_holder FROM fixengine_test_sessions WHERE session_id = $1", settings.SessionId.ToString()));
        }
        finally
        {
            session.Dispose();
        }
    }

    [Fact]
    public void QuickFixCppsSeparateKeysMakeTheConnectionStringWithItsDefaults()
    {
        SessionSettings s = Assert.Single(SettingsFile.Parse(Session + "\nPostgreSQLStoreHost=db7\nPostgreSQLStorePort=6543\nPostgreSQLStoreUser=fix\n"
            + "PostgreSQLStorePassword=s3cret\nPostgreSQLStoreDatabase=venue\nPostgreSQLStoreUseConnectionPool=N", "venue.cfg"));
        var built = new Npgsql.NpgsqlConnectionStringBuilder(PostgresStoreSettings.Parse(s).ConnectionString);
        Assert.Equal(("db7", 6543, "venue", "fix", "s3cret", false), (built.Host, built.Port, built.Database, built.Username, built.Password, built.Pooling));
        PostgresMessageStoreFactory.Instance.Validate(s);

        // One key is enough to store in PostgreSQL; QuickFIX C++'s defaults fill the rest (port 0 is PostgreSQL's default).
        var defaults = new Npgsql.NpgsqlConnectionStringBuilder(PostgresStoreSettings.Parse(
            Assert.Single(SettingsFile.Parse(Session + "\nPostgreSQLStorePort=0"))).ConnectionString);
        Assert.Equal(("localhost", 5432, "quickfix", "postgres"), (defaults.Host, defaults.Port, defaults.Database, defaults.Username));
        Assert.True(defaults.Pooling);
        // Loaded without the package, the keys name it as the connection string does.
        ConfigException e = Assert.Throws<ConfigException>(() => SettingsMessageStoreFactory.Instance.Validate(s));
        Assert.Contains("FixEngine.PostgreSQL", e.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("PostgreSQLStoreConnectionString=Host=db1\nPostgreSQLStoreHost=db2", "PostgreSQLStoreHost", "not both")]
    [InlineData("PostgreSQLStorePort=54x", "PostgreSQLStorePort", "'54x' is not a port")]
    [InlineData("PostgreSQLStorePort=70000", "PostgreSQLStorePort", "'70000' is not a port")]
    [InlineData("PostgreSQLStoreUseConnectionPool=maybe", "PostgreSQLStoreUseConnectionPool", "'maybe' is not Y or N")]
    public void QuickFixCppKeysThatDoNotFitNameTheKey(string lines, string key, string reason)
    {
        SessionSettings settings = Assert.Single(SettingsFile.Parse(Session + "\n" + lines, "venue.cfg"));
        ConfigException e = Assert.Throws<ConfigException>(() => PostgresStoreSettings.Parse(settings));
        Assert.StartsWith($"venue.cfg(", e.Message, StringComparison.Ordinal);
        Assert.Contains($"): {key}: ", e.Message, StringComparison.Ordinal);
        Assert.Contains(reason, e.Message, StringComparison.Ordinal);
    }

    [PostgresFact]
    public void ASessionConfiguredWithQuickFixCppsKeysStoresInPostgreSql()
    {
        var server = new Npgsql.NpgsqlConnectionStringBuilder(PostgresTestServer.ConnectionString);
        string target = "QF" + Guid.NewGuid().ToString("N")[..10];
        SessionSettings settings = Assert.Single(SettingsFile.Parse(Session.Replace("TargetCompID=TW", "TargetCompID=" + target) + $"""

            PostgreSQLStoreHost={server.Host}
            PostgreSQLStorePort={server.Port}
            PostgreSQLStoreDatabase={server.Database}
            PostgreSQLStoreUser={server.Username}
            PostgreSQLStoreTablePrefix=fixengine_test_
            """ + (string.IsNullOrEmpty(server.Password) ? "" : "\nPostgreSQLStorePassword=" + server.Password)));
        using var factory = new SessionFactory(PostgresMessageStoreFactory.Instance, null);
        FixSession session = factory.Create(settings, new NoApp(), 1_700_000_000_000_000_000);
        try
        {
            var store = Assert.IsType<PostgresMessageStore>(session.Store);
            store.AppendAndIncrement(1, StoreTestData.Message(1));
            store.Flush();
            Assert.Equal(2, PostgresTestSupport.Scalar<int>(
                "SELECT next_sender_seq_num FROM fixengine_test_sessions WHERE session_id = $1", settings.SessionId.ToString()));
        }
        finally
        {
            session.Dispose();
        }
    }
}

/// <summary>The sample primary/standby configuration loads and selects the PostgreSQL store.</summary>
public sealed class PostgresSampleConfigTests
{
    [Fact]
    public void TheSamplePrimaryStandbyConfigLoads()
    {
        string? root = null;
        for (var dir = new System.IO.DirectoryInfo(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
        {
            if (System.IO.File.Exists(System.IO.Path.Combine(dir.FullName, "FixEngine.sln")))
            {
                root = dir.FullName;
                break;
            }
        }
        Assert.NotNull(root);
        SessionSettings s = Assert.Single(SettingsFile.Load(System.IO.Path.Combine(root, "samples", "postgres-standby.cfg")));
        PostgresStoreSettings pg = PostgresStoreSettings.Parse(s);
        Assert.StartsWith("Host=db.example.internal;", pg.ConnectionString);
        Assert.Equal(PostgresSyncPolicy.PerMessage, pg.Sync);
        Assert.Equal(10, pg.LeaseTimeout);
        Assert.Equal(StoreFailurePolicy.Hold, s.StoreFailurePolicy);
        Assert.Equal("FIX.4.4:EXEC->CLIENT", s.SessionId.ToString());
    }
}
