using System;
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
