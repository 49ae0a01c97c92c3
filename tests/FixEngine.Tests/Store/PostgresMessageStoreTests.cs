using System;
using System.Diagnostics;
using System.Linq;
using System.Net;
using System.Net.Sockets;
using System.Threading;
using FixEngine.PostgreSQL;
using FixEngine.Store;
using FixEngine.Tests.Infrastructure;
using Npgsql;

namespace FixEngine.Tests.Store;

/// <summary>Lease, fencing, failures and sharing of <see cref="PostgresMessageStore"/> against the real server.</summary>
public sealed class PostgresMessageStoreTests : IDisposable
{
    private readonly TempDirectory _journals = new();

    public void Dispose() => _journals.Dispose();

    private static PostgresMessageStoreOptions ShortLease(PostgresSyncPolicy policy, string? journals = null) =>
        PostgresTestSupport.Options(policy, journals) with { LeaseDuration = TimeSpan.FromSeconds(1) };

    // Long enough that a renewal delayed by a loaded CI machine does not end the primary's lease before the test wants.
    private static PostgresMessageStoreOptions TakeoverLease(PostgresSyncPolicy policy) =>
        PostgresTestSupport.Options(policy) with { LeaseDuration = TimeSpan.FromSeconds(4) };

    /// <summary>Waits (bounded, not timed) until <paramref name="condition"/> holds.</summary>
    private static void WaitUntil(Func<bool> condition, string what)
    {
        var clock = Stopwatch.StartNew();
        while (!condition())
        {
            if (clock.Elapsed > TimeSpan.FromSeconds(60)) Assert.Fail("timed out waiting until " + what);
            Thread.Sleep(10);
        }
    }

    [PostgresTheory]
    [InlineData(PostgresSyncPolicy.PerMessage)]
    [InlineData(PostgresSyncPolicy.GroupCommit)]
    public void StandbyTakesOverAfterTheLeaseExpiresAndTheDatabaseRefusesTheStalePrimary(PostgresSyncPolicy policy)
    {
        string session = PostgresTestSupport.NewSessionId("takeover");
        using var primary = new PostgresMessageStore(session, 100, TakeoverLease(policy) with { HolderId = "primary" });
        for (int seq = 1; seq <= 5; seq++) primary.AppendAndIncrement(seq, StoreTestData.Message(seq));
        primary.IncrNextTargetMsgSeqNum();
        primary.Flush();

        // While the primary renews, a standby that will not wait is refused, naming the holder.
        var held = Assert.Throws<PostgresStoreException>(() =>
            new PostgresMessageStore(session, 200, TakeoverLease(policy) with { HolderId = "standby", LeaseAcquireTimeout = TimeSpan.Zero }));
        Assert.Equal(PostgresStoreFailure.LeaseHeld, held.Failure);
        Assert.Contains("'primary'", held.Message);

        // The primary hangs: it stops renewing, and (paused right after its last check) does not notice it.
        primary.SuspendLeaseRenewal();
        primary.DisableLocalLeaseCheck();
        using var standby = new PostgresMessageStore(session, 200, TakeoverLease(policy) with { HolderId = "standby" });
        Assert.True(standby.FencingToken > primary.FencingToken);
        Assert.Equal(6, standby.NextSenderMsgSeqNum);
        Assert.Equal(2, standby.NextTargetMsgSeqNum);
        Assert.Equal(100, standby.CreationTimeEpochNs);
        Assert.Equal(Enumerable.Range(1, 5), StoreTestData.ReadAll(standby).Select(m => m.SeqNum));

        // The stale primary wakes up and writes: the database refuses it.
        PostgresStoreException refused;
        if (policy == PostgresSyncPolicy.PerMessage)
        {
            refused = Assert.Throws<PostgresStoreException>(() => primary.AppendAndIncrement(6, StoreTestData.Message(666)));
        }
        else
        {
            primary.AppendAndIncrement(6, StoreTestData.Message(666));
            refused = Assert.Throws<PostgresStoreException>(primary.Flush);
        }
        Assert.Equal(PostgresStoreFailure.Fenced, refused.Failure);
        Assert.True(refused.IsTerminal);
        Assert.Contains($"fencing token {primary.FencingToken} refused", refused.Message);
        Assert.Contains($"current token {standby.FencingToken}", refused.Message);
        Assert.False(primary.HoldsLease);
        Assert.Throws<PostgresStoreException>(() => primary.SetNextSenderMsgSeqNum(50));

        // Nothing of the stale write reached the database; the standby carries on from 6.
        Assert.Equal(0L, PostgresTestSupport.Scalar<long>("SELECT count(*) FROM fixengine_test_messages WHERE session_id = $1 AND seq_num = 6", session));
        Assert.Equal(6, PostgresTestSupport.Scalar<int>("SELECT next_sender_seq_num FROM fixengine_test_sessions WHERE session_id = $1", session));
        standby.AppendAndIncrement(6, StoreTestData.Message(6));
        standby.Flush();
        Assert.Equal(StoreTestData.Message(6), PostgresTestSupport.Scalar<byte[]>(
            "SELECT body FROM fixengine_test_messages WHERE session_id = $1 AND seq_num = 6", session));
    }

    [PostgresFact]
    public void AGroupCommitTakeoverLosesExactlyTheUncommittedTail()
    {
        string session = PostgresTestSupport.NewSessionId("tail");
        using var primary = new PostgresMessageStore(session, 100, TakeoverLease(PostgresSyncPolicy.GroupCommit));
        for (int seq = 1; seq <= 10; seq++) primary.AppendAndIncrement(seq, StoreTestData.Message(seq));
        primary.Flush();
        // The primary dies with 11..15 applied locally (and maybe sent) but not committed.
        primary.SuspendWriter();
        for (int seq = 11; seq <= 15; seq++) primary.AppendAndIncrement(seq, StoreTestData.Message(seq));
        Assert.Equal(5, primary.PendingChanges);
        primary.SuspendLeaseRenewal();
        primary.DisableLocalLeaseCheck();

        using var standby = new PostgresMessageStore(session, 200, TakeoverLease(PostgresSyncPolicy.GroupCommit));
        // What docs/postgres-store.md says: the standby resumes after the last commit; 11..15 are lost to it and must be
        // gap-filled if the counterparty asks for them.
        Assert.Equal(11, standby.NextSenderMsgSeqNum);
        Assert.Equal(Enumerable.Range(1, 10), StoreTestData.ReadAll(standby).Select(m => m.SeqNum));
        // The stale primary's queue, committed late, is refused whole.
        primary.ResumeWriter();
        Assert.Equal(PostgresStoreFailure.Fenced, Assert.Throws<PostgresStoreException>(primary.Flush).Failure);
        Assert.Equal(10L, PostgresTestSupport.Scalar<long>("SELECT count(*) FROM fixengine_test_messages WHERE session_id = $1", session));
    }

    [PostgresFact]
    public void APrimaryThatCannotRenewItsLeaseStopsOnItsOwn()
    {
        string session = PostgresTestSupport.NewSessionId("selffence");
        // 8 s, not 1 s: the store must keep its lease through the set-up below even when a loaded machine does not
        // schedule the renewal thread for a second (a 1 s lease self-fenced inside the Flush beside CPU hogs).
        var options = PostgresTestSupport.Options(PostgresSyncPolicy.GroupCommit) with { LeaseDuration = TimeSpan.FromSeconds(8) };
        using var primary = new PostgresMessageStore(session, 100, options);
        primary.AppendAndIncrement(1, StoreTestData.Message(1));
        primary.Flush();
        primary.SuspendLeaseRenewal();
        WaitUntil(() => !primary.HoldsLease, "the primary gives up its lease");
        var lost = Assert.Throws<PostgresStoreException>(() => primary.AppendAndIncrement(2, StoreTestData.Message(2)));
        Assert.Equal(PostgresStoreFailure.LeaseLost, lost.Failure);
        Assert.Contains("not renewed within 6000 ms", lost.Message);
        Assert.Equal(2, primary.NextSenderMsgSeqNum);
    }

    [PostgresFact]
    public void ACleanShutdownReleasesTheLeaseForAnImmediateTakeover()
    {
        string session = PostgresTestSupport.NewSessionId("release");
        var options = PostgresTestSupport.Options(PostgresSyncPolicy.GroupCommit) with { LeaseDuration = TimeSpan.FromMinutes(5) };
        using (var primary = new PostgresMessageStore(session, 100, options))
        {
            for (int seq = 1; seq <= 100; seq++) primary.AppendAndIncrement(seq, StoreTestData.Message(seq));
        }
        // A five-minute lease, yet the standby does not wait for it: dispose committed the queue and released the lease.
        using var standby = new PostgresMessageStore(session, 200, options with { LeaseAcquireTimeout = TimeSpan.Zero });
        Assert.Equal(101, standby.NextSenderMsgSeqNum);
        Assert.Equal(100, StoreTestData.ReadAll(standby).Count);
    }

    [Fact]
    public void AnUnreachableDatabaseAtStartNamesHostPortAndDatabase()
    {
        using System.Net.Sockets.Socket closed = FixEngine.Tests.Engine.EngineTestSupport.ClosedPort(out int port);
        var options = new PostgresMessageStoreOptions
        {
            ConnectionString = $"Host=127.0.0.1;Port={port};Database=trading_store;Username=fix;Timeout=3",
        };
        var ex = Assert.Throws<PostgresStoreException>(() => new PostgresMessageStore("FIX.4.4:A->B", 1, options));
        Assert.Equal(PostgresStoreFailure.Unavailable, ex.Failure);
        Assert.Contains($"127.0.0.1:{port}", ex.Message);
        Assert.Contains("'trading_store'", ex.Message);
        Assert.Contains("FIX.4.4:A->B", ex.Message);
    }

    [PostgresFact]
    public void ASchemaFromANewerVersionIsRefusedNamingBothVersions()
    {
        string prefix = "fe_newer_" + Guid.NewGuid().ToString("N")[..8] + "_";
        using (NpgsqlConnection connection = PostgresTestSupport.Connect())
        using (var command = new NpgsqlCommand($"CREATE TABLE {prefix}schema_version (version integer NOT NULL); INSERT INTO {prefix}schema_version VALUES (7)", connection))
        {
            command.ExecuteNonQuery();
        }
        var ex = Assert.Throws<PostgresStoreException>(() =>
            new PostgresMessageStore("FIX.4.4:A->B", 1, PostgresTestSupport.Options(PostgresSyncPolicy.PerMessage, prefix: prefix)));
        Assert.Equal(PostgresStoreFailure.SchemaVersion, ex.Failure);
        Assert.Contains("version 7", ex.Message);
        Assert.Contains($"version {PostgresMessageStoreOptions.SchemaVersion}", ex.Message);
        Assert.Equal(0L, PostgresTestSupport.Scalar<long>("SELECT count(*) FROM information_schema.tables WHERE table_name = $1", prefix + "sessions"));
    }

    [PostgresFact]
    public void TheSchemaIsCreatedOnFirstUseAndVersioned()
    {
        string prefix = "fe_fresh_" + Guid.NewGuid().ToString("N")[..8] + "_";
        using (new PostgresMessageStore("FIX.4.4:A->B", 1, PostgresTestSupport.Options(PostgresSyncPolicy.PerMessage, prefix: prefix)))
        {
        }
        Assert.Equal(PostgresMessageStoreOptions.SchemaVersion, PostgresTestSupport.Scalar<int>($"SELECT max(version) FROM {prefix}schema_version"));
        // A second engine opening another session reuses it.
        using var second = new PostgresMessageStore("FIX.4.4:C->D", 1, PostgresTestSupport.Options(PostgresSyncPolicy.PerMessage, prefix: prefix));
        Assert.Equal(1L, PostgresTestSupport.Scalar<long>($"SELECT count(*) FROM {prefix}schema_version"));
        Assert.Equal(2L, PostgresTestSupport.Scalar<long>($"SELECT count(*) FROM {prefix}sessions"));
    }

    [PostgresFact]
    public void LosingTheConnectionMidSessionRaisesAndKeepsWhatWasStored()
    {
        string session = PostgresTestSupport.NewSessionId("lost");
        using var store = new PostgresMessageStore(session, 100, PostgresTestSupport.Options(PostgresSyncPolicy.PerMessage));
        for (int seq = 1; seq <= 10; seq++) store.AppendAndIncrement(seq, StoreTestData.Message(seq));
        // The server drops every connection of this store (as a failover or a network cut does).
        Assert.True(PostgresTestSupport.Scalar<long>(
            "SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1) t", "fixengine " + session) >= 1);
        var ex = Assert.Throws<PostgresStoreException>(() => store.AppendAndIncrement(11, StoreTestData.Message(11)));
        Assert.Equal(PostgresStoreFailure.Unavailable, ex.Failure);
        Assert.False(ex.IsTerminal);
        Assert.Equal(11, store.NextSenderMsgSeqNum);
        Assert.Equal(10, StoreTestData.ReadAll(store).Count);
        // Everything reported as stored is in the database.
        Assert.Equal(10L, PostgresTestSupport.Scalar<long>("SELECT count(*) FROM fixengine_test_messages WHERE session_id = $1", session));
        // The next call reconnects.
        store.AppendAndIncrement(11, StoreTestData.Message(11));
        Assert.Equal(11L, PostgresTestSupport.Scalar<long>("SELECT count(*) FROM fixengine_test_messages WHERE session_id = $1", session));
    }

    [PostgresFact]
    public void GroupCommitRetriesAcrossALostConnection()
    {
        string session = PostgresTestSupport.NewSessionId("retry");
        using var store = new PostgresMessageStore(session, 100, PostgresTestSupport.Options(PostgresSyncPolicy.GroupCommit));
        for (int seq = 1; seq <= 10; seq++) store.AppendAndIncrement(seq, StoreTestData.Message(seq));
        store.Flush();
        PostgresTestSupport.Scalar<long>(
            "SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1) t", "fixengine " + session);
        for (int seq = 11; seq <= 20; seq++) store.AppendAndIncrement(seq, StoreTestData.Message(seq));
        store.Flush();
        Assert.Equal(20L, PostgresTestSupport.Scalar<long>("SELECT count(*) FROM fixengine_test_messages WHERE session_id = $1", session));
        Assert.Equal(21, PostgresTestSupport.Scalar<int>("SELECT next_sender_seq_num FROM fixengine_test_sessions WHERE session_id = $1", session));
    }

    [PostgresFact]
    public void ManySessionsShareOneDatabaseWithoutSeeingEachOther()
    {
        var stores = Enumerable.Range(0, 8)
            .Select(i => new PostgresMessageStore(PostgresTestSupport.NewSessionId("many" + i), i, PostgresTestSupport.Options(
                i % 2 == 0 ? PostgresSyncPolicy.GroupCommit : PostgresSyncPolicy.PerMessage)))
            .ToArray();
        try
        {
            for (int seq = 1; seq <= 20; seq++)
            {
                for (int i = 0; i < stores.Length; i++) stores[i].AppendAndIncrement(seq, StoreTestData.Message(seq * 100 + i));
            }
            foreach (PostgresMessageStore store in stores) store.Dispose();
            for (int i = 0; i < stores.Length; i++)
            {
                using var reopened = new PostgresMessageStore(stores[i].SessionId, 0, PostgresTestSupport.Options(PostgresSyncPolicy.PerMessage));
                Assert.Equal(i, reopened.CreationTimeEpochNs);
                var all = StoreTestData.ReadAll(reopened);
                Assert.Equal(20, all.Count);
                Assert.Equal(StoreTestData.Message(700 + i), all[6].Bytes);
            }
        }
        finally
        {
            foreach (PostgresMessageStore store in stores) store.Dispose();
        }
    }

    [PostgresFact]
    public void LocalJournalFirstRebuildsAStaleJournalFromTheDatabase()
    {
        string session = PostgresTestSupport.NewSessionId("journal");
        string hostA = System.IO.Path.Combine(_journals.Path, "a");
        string hostB = System.IO.Path.Combine(_journals.Path, "b");
        using (var a = new PostgresMessageStore(session, 100, PostgresTestSupport.Options(PostgresSyncPolicy.LocalJournalFirst, hostA)))
        {
            for (int seq = 1; seq <= 5; seq++) a.AppendAndIncrement(seq, StoreTestData.Message(seq));
        }
        using (var b = new PostgresMessageStore(session, 200, PostgresTestSupport.Options(PostgresSyncPolicy.LocalJournalFirst, hostB)))
        {
            Assert.Equal(6, b.NextSenderMsgSeqNum);
            Assert.Equal(5, StoreTestData.ReadAll(b).Count);
            for (int seq = 6; seq <= 8; seq++) b.AppendAndIncrement(seq, StoreTestData.Message(seq));
        }
        // Host A's journal stops at 5; the database (written by B since) wins.
        using var again = new PostgresMessageStore(session, 300, PostgresTestSupport.Options(PostgresSyncPolicy.LocalJournalFirst, hostA));
        Assert.Equal(9, again.NextSenderMsgSeqNum);
        Assert.Equal(100, again.CreationTimeEpochNs);
        Assert.Equal(Enumerable.Range(1, 8), StoreTestData.ReadAll(again).Select(m => m.SeqNum));
    }

    [PostgresFact]
    public void LocalJournalFirstPushesItsNewerJournalToTheDatabase()
    {
        string session = PostgresTestSupport.NewSessionId("push");
        string host = System.IO.Path.Combine(_journals.Path, "p");
        using (var a = new PostgresMessageStore(session, 100, PostgresTestSupport.Options(PostgresSyncPolicy.LocalJournalFirst, host)))
        {
            for (int seq = 1; seq <= 5; seq++) a.AppendAndIncrement(seq, StoreTestData.Message(seq));
            a.Flush();
        }
        // The database lost the last two (replication had not reached it when the host restarted).
        PostgresTestSupport.Scalar<long>(
            "WITH d AS (DELETE FROM fixengine_test_messages WHERE session_id = $1 AND seq_num > 3 RETURNING 1), " +
            "u AS (UPDATE fixengine_test_sessions SET next_sender_seq_num = 4 WHERE session_id = $1 RETURNING 1) " +
            "SELECT (SELECT count(*) FROM d) + (SELECT count(*) FROM u)", session);
        Assert.Equal(3L, PostgresTestSupport.Scalar<long>("SELECT count(*) FROM fixengine_test_messages WHERE session_id = $1", session));
        using var restarted = new PostgresMessageStore(session, 300, PostgresTestSupport.Options(PostgresSyncPolicy.LocalJournalFirst, host));
        Assert.Equal(6, restarted.NextSenderMsgSeqNum);
        Assert.Equal(5L, PostgresTestSupport.Scalar<long>("SELECT count(*) FROM fixengine_test_messages WHERE session_id = $1", session));
        Assert.Equal(6, PostgresTestSupport.Scalar<int>("SELECT next_sender_seq_num FROM fixengine_test_sessions WHERE session_id = $1", session));
    }
}

/// <summary>The session-thread path of the asynchronous policies allocates nothing per message.</summary>
[Collection(nameof(AllocationMeasurement))]
public sealed class PostgresStoreAllocationTests : IDisposable
{
    private readonly TempDirectory _journals = new();
    private readonly byte[] _message = StoreTestData.Message(1, 200);

    public void Dispose() => _journals.Dispose();

    [PostgresTheory]
    [InlineData(PostgresSyncPolicy.GroupCommit)]
    [InlineData(PostgresSyncPolicy.LocalJournalFirst)]
    public void AppendOnTheSessionThreadAllocatesNothingAfterWarmUp(PostgresSyncPolicy policy)
    {
        using var store = new PostgresMessageStore(PostgresTestSupport.NewSessionId("alloc"), 1, PostgresTestSupport.Options(policy, _journals.Path) with
        {
            InitialCapacityInBytes = 8 << 20,
            LocalJournalOptions = new FileMessageStoreOptions { SyncPolicy = FileStoreSyncPolicy.OS },
        });
        for (int seq = 1; seq <= 2000; seq++) store.AppendAndIncrement(seq, _message);
        store.Flush();
        long best = long.MaxValue;
        for (int round = 0; round < 3 && best != 0; round++)
        {
            store.Reset(2);
            store.Flush();
            long before = GC.GetAllocatedBytesForCurrentThread();
            for (int seq = 1; seq <= 2000; seq++)
            {
                store.AppendAndIncrement(seq, _message);
                store.IncrNextTargetMsgSeqNum();
            }
            best = Math.Min(best, GC.GetAllocatedBytesForCurrentThread() - before);
            store.Flush();
        }
        Assert.Equal(0, best);
        Assert.Equal(2001, store.NextSenderMsgSeqNum);
        Assert.Equal(2000L, PostgresTestSupport.Scalar<long>("SELECT count(*) FROM fixengine_test_messages WHERE session_id = $1", store.SessionId));
    }
}
