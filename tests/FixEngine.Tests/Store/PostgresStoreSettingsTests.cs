using System;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Session;
using FixEngine.Store;
using FixEngine.Tests.Infrastructure;

namespace FixEngine.Tests.Store;

/// <summary>The PostgreSQL store's settings keys, and the session factory building the store from them.</summary>
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
        SessionSettings defaults = Assert.Single(SettingsFile.Parse(Session));
        Assert.Null(defaults.PostgreSQLStoreConnectionString);
        Assert.Equal("fixengine_", defaults.PostgreSQLStoreTablePrefix);
        Assert.Equal(PostgresSyncPolicy.PerMessage, defaults.PostgreSQLStoreSync);
        Assert.Equal(10, defaults.PostgreSQLStoreLeaseTimeout);
        Assert.Equal(StoreFailurePolicy.Logout, defaults.PostgreSQLStoreFailurePolicy);
        SessionSettings s = Assert.Single(SettingsFile.Parse(Session + """

            PostgreSQLStoreConnectionString=Host=db1;Port=5432;Database=fix;Username=fix
            PostgreSQLStoreTablePrefix=venue_a_
            PostgreSQLStoreSync=groupcommit
            PostgreSQLStoreLeaseTimeout=4
            PostgreSQLStoreFailurePolicy=hold
            """));
        Assert.Equal("Host=db1;Port=5432;Database=fix;Username=fix", s.PostgreSQLStoreConnectionString);
        Assert.Equal("venue_a_", s.PostgreSQLStoreTablePrefix);
        Assert.Equal(PostgresSyncPolicy.GroupCommit, s.PostgreSQLStoreSync);
        Assert.Equal(4, s.PostgreSQLStoreLeaseTimeout);
        Assert.Equal(StoreFailurePolicy.Hold, s.PostgreSQLStoreFailurePolicy);
    }

    [Theory]
    [InlineData("PostgreSQLStoreSync=Sometimes", "PostgreSQLStoreSync", "PerMessage, GroupCommit, LocalJournalFirst")]
    [InlineData("PostgreSQLStoreLeaseTimeout=0", "PostgreSQLStoreLeaseTimeout", "at least 1")]
    [InlineData("PostgreSQLStoreFailurePolicy=Wait", "PostgreSQLStoreFailurePolicy", "Logout, Hold")]
    [InlineData("PostgreSQLStoreTablePrefix=Fix-Engine", "PostgreSQLStoreTablePrefix", "lower-case")]
    [InlineData("PostgreSQLStoreConnectionString=Host=db1\nPostgreSQLStoreSync=LocalJournalFirst", "PostgreSQLStoreSync", "FileStorePath")]
    public void BadValuesNameTheKey(string lines, string key, string reason)
    {
        ConfigException e = Assert.Throws<ConfigException>(() => SettingsFile.Parse(Session + "\n" + lines, "venue.cfg"));
        Assert.Equal(key, e.Key);
        Assert.Contains(reason, e.Message);
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
        using var factory = new SessionFactory();
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
        Assert.StartsWith("Host=db.example.internal;", s.PostgreSQLStoreConnectionString);
        Assert.Equal(PostgresSyncPolicy.PerMessage, s.PostgreSQLStoreSync);
        Assert.Equal(10, s.PostgreSQLStoreLeaseTimeout);
        Assert.Equal(StoreFailurePolicy.Hold, s.PostgreSQLStoreFailurePolicy);
        Assert.Equal("FIX.4.4:EXEC->CLIENT", s.SessionId.ToString());
    }
}
