using System;
using FixEngine.PostgreSQL;
using FixEngine.Store;
using FixEngine.Tests.Infrastructure;
using Npgsql;

namespace FixEngine.Tests.Store;

internal static class PostgresTestSupport
{
    /// <summary>A session id no other test uses, so tests share the tables (as engines do) without seeing each other.</summary>
    public static string NewSessionId(string name) => $"FIX.4.4:{name}->{Guid.NewGuid():N}";

    public static PostgresMessageStoreOptions Options(PostgresSyncPolicy policy, string? journalDirectory = null, string prefix = "fixengine_test_") => new()
    {
        ConnectionString = PostgresTestServer.ConnectionString,
        TablePrefix = prefix,
        SyncPolicy = policy,
        LeaseDuration = TimeSpan.FromSeconds(10),
        LeaseAcquireTimeout = TimeSpan.FromSeconds(30),
        LocalJournalDirectory = journalDirectory,
        GroupCommitInterval = TimeSpan.FromMilliseconds(1),
        InitialCapacityInBytes = 4 << 20,
    };

    public static NpgsqlConnection Connect()
    {
        var connection = new NpgsqlConnection(PostgresTestServer.ConnectionString);
        connection.Open();
        return connection;
    }

    public static T Scalar<T>(string sql, params object[] values)
    {
        using NpgsqlConnection connection = Connect();
        using var command = new NpgsqlCommand(sql, connection);
        foreach (object v in values) command.Parameters.Add(new NpgsqlParameter { Value = v });
        return (T)command.ExecuteScalar()!;
    }
}

/// <summary>A database of its own on the test server, which a test can make unreachable (new connections refused,
/// existing ones terminated, as a database failover or a network cut does) without touching other tests' database.</summary>
internal sealed class PostgresTestDatabase : IDisposable
{
    public PostgresTestDatabase()
    {
        Name = "fixengine_t_" + Guid.NewGuid().ToString("N");
        Admin($"CREATE DATABASE {Name}");
        ConnectionString = new NpgsqlConnectionStringBuilder(PostgresTestServer.ConnectionString) { Database = Name }.ConnectionString;
    }

    public string Name { get; }

    public string ConnectionString { get; }

    /// <summary>The database refuses new connections and every open one is terminated.</summary>
    public void Block()
    {
        Admin($"ALTER DATABASE {Name} ALLOW_CONNECTIONS false");
        Admin($"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{Name}' AND pid <> pg_backend_pid()");
    }

    /// <summary>The database takes connections again.</summary>
    public void Unblock() => Admin($"ALTER DATABASE {Name} ALLOW_CONNECTIONS true");

    public T Scalar<T>(string sql, params object[] values)
    {
        using var connection = new NpgsqlConnection(ConnectionString);
        connection.Open();
        using var command = new NpgsqlCommand(sql, connection);
        foreach (object v in values) command.Parameters.Add(new NpgsqlParameter { Value = v });
        return (T)command.ExecuteScalar()!;
    }

    private static void Admin(string sql)
    {
        using NpgsqlConnection connection = PostgresTestSupport.Connect();
        using var command = new NpgsqlCommand(sql, connection);
        command.ExecuteNonQuery();
    }

    public void Dispose() => Admin($"DROP DATABASE IF EXISTS {Name} WITH (FORCE)");
}

[RequiresPostgres]
public sealed class PostgresPerMessageStoreContractTests : PostgresStoreContractTestsBase
{
    protected override PostgresSyncPolicy Policy => PostgresSyncPolicy.PerMessage;
}

[RequiresPostgres]
public sealed class PostgresGroupCommitStoreContractTests : PostgresStoreContractTestsBase
{
    protected override PostgresSyncPolicy Policy => PostgresSyncPolicy.GroupCommit;
}

[RequiresPostgres]
public sealed class PostgresLocalJournalFirstStoreContractTests : PostgresStoreContractTestsBase
{
    protected override PostgresSyncPolicy Policy => PostgresSyncPolicy.LocalJournalFirst;
}

/// <summary>The store contract against the real server, once per sync policy; reopening goes through the database.</summary>
public abstract class PostgresStoreContractTestsBase : MessageStoreContractTests
{
    private readonly TempDirectory _journals = new();

    protected abstract PostgresSyncPolicy Policy { get; }

    protected override IMessageStore CreateStoreCore(long creationTimeEpochNs) =>
        new PostgresMessageStore(PostgresTestSupport.NewSessionId("contract"), creationTimeEpochNs, PostgresTestSupport.Options(Policy, _journals.Path));

    protected override IMessageStore? ReopenCore(IMessageStore store)
    {
        var pg = (PostgresMessageStore)store;
        pg.Dispose();
        // A different creation time: the reopened store must take the session's from the database, not this one.
        return new PostgresMessageStore(pg.SessionId, 1, PostgresTestSupport.Options(Policy, _journals.Path));
    }

    public override void Dispose()
    {
        base.Dispose();
        _journals.Dispose();
    }
}
