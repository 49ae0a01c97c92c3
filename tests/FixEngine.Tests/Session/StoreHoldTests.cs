using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.Linq;
using System.Threading;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Logging;
using FixEngine.PostgreSQL;
using FixEngine.Session;
using FixEngine.Store;
using FixEngine.Tests.Infrastructure;
using FixEngine.Tests.Store;

namespace FixEngine.Tests.Session;

/// <summary>Keeps a session's events with their level (owner thread).</summary>
public sealed class RecordingSessionLog : ISessionLog
{
    public readonly List<(LogLevel Level, string Text)> Events = [];

    public void OnIncoming(ReadOnlySpan<byte> message, long epochNs)
    {
    }

    public void OnOutgoing(ReadOnlySpan<byte> message, long epochNs)
    {
    }

    public void OnEvent(string text, long epochNs) => Events.Add((LogLevel.Information, text));

    public void OnEvent(LogLevel level, string text, long epochNs) => Events.Add((level, text));
}

/// <summary>A memory store whose medium can be switched away: every write throws <see cref="Failing"/> while it is
/// set, and <see cref="IMessageStore.CurrentFailure"/> reports it (as the PostgreSQL store does while the database is away).</summary>
internal sealed class SwitchableStore : IMessageStore
{
    private readonly MemoryMessageStore _inner = new(1, 1 << 20);

    public MessageStoreException? Failing { get; set; }

    public MessageStoreException? CurrentFailure => Failing;

    private void Check()
    {
        if (Failing is MessageStoreException failure) throw failure;
    }

    public int NextSenderMsgSeqNum => _inner.NextSenderMsgSeqNum;
    public int NextTargetMsgSeqNum => _inner.NextTargetMsgSeqNum;
    public long CreationTimeEpochNs => _inner.CreationTimeEpochNs;
    public int LastProcessedInboundSeqNum => _inner.LastProcessedInboundSeqNum;
    public StoreRecoveryReport? LastRecoveryReport => null;
    public void SetNextSenderMsgSeqNum(int value) { Check(); _inner.SetNextSenderMsgSeqNum(value); }
    public void SetNextTargetMsgSeqNum(int value) { Check(); _inner.SetNextTargetMsgSeqNum(value); }
    public void IncrNextSenderMsgSeqNum() { Check(); _inner.IncrNextSenderMsgSeqNum(); }
    public void IncrNextTargetMsgSeqNum() { Check(); _inner.IncrNextTargetMsgSeqNum(); }
    public void SetLastProcessedInboundSeqNum(int value) { Check(); _inner.SetLastProcessedInboundSeqNum(value); }
    public void Append(int seqNum, ReadOnlySpan<byte> message) { Check(); _inner.Append(seqNum, message); }
    public void AppendAndIncrement(int seqNum, ReadOnlySpan<byte> message) { Check(); _inner.AppendAndIncrement(seqNum, message); }
    public void AppendAndIncrement(int seqNum, ReadOnlySpan<byte> message, int processedInboundSeqNum) { Check(); _inner.AppendAndIncrement(seqNum, message, processedInboundSeqNum); }
    public int ReadRange<THandler>(int beginSeqNo, int endSeqNo, ref THandler handler) where THandler : struct, IStoredMessageHandler => _inner.ReadRange(beginSeqNo, endSeqNo, ref handler);
    public void Reset(long nowEpochNs) { Check(); _inner.Reset(nowEpochNs); }
    public void Flush() => Check();
    public void Refresh() => _inner.Refresh();
    public void Dispose() => _inner.Dispose();
}

/// <summary>The database goes away mid-session (the test's own database stops taking connections and its connections
/// are terminated): under PostgreSQLStoreFailurePolicy=Hold the session holds and resumes, under Logout it logs out
/// with the reason, and a store fenced by a takeover stops the session without a Logout.</summary>
public sealed class StoreHoldTests
{
    private static void SendOrder(FixSession session, long token) =>
        Assert.True(TrySendOrder(session, token), "the session refused order " + token);

    private static bool TrySendOrder(FixSession session, long token) =>
        session.TrySendFromAnyThread(MsgTypes.NewOrderSingle, token, token, static (ref FixWriter w, scoped in long id) =>
        {
            w.Write(FixTags.ClOrdID, id);
            w.Write(FixTags.Symbol, "EURUSD"u8);
        });

    private static SessionHarness LoggedOn(IMessageStore store, DurableApp app, StoreFailurePolicy policy, RecordingSessionLog? log = null)
    {
        var h = new SessionHarness("FIX.4.4", s => s with { ResetOnLogon = false, StoreFailurePolicy = policy }, store, application: app, log: log);
        h.Logon();
        return h;
    }

    /// <summary>Polls the session on a clock that advances 10 ms per step (real time passes too: the store's lease
    /// thread is what notices the database is back) until <paramref name="condition"/> holds; bounded, not timed.</summary>
    private static void PollUntil(SessionHarness h, Func<bool> condition, string what)
    {
        var clock = Stopwatch.StartNew();
        while (!condition())
        {
            if (clock.Elapsed > TimeSpan.FromSeconds(60)) Assert.Fail("timed out waiting until " + what);
            h.Now += 10_000_000L;
            h.Session.Poll(h.Now);
            Thread.Sleep(10);
        }
    }

    private static List<Sent> SentMessages(SessionHarness h) => h.Connection.Sent.Select(b => new Sent(b)).ToList();

    private static int[] StoredSeqNums(PostgresTestDatabase db, string session)
    {
        int count = (int)db.Scalar<long>("SELECT count(*) FROM fixengine_test_messages WHERE session_id = $1", session);
        if (count == 0) return [];
        return db.Scalar<int[]>("SELECT array_agg(seq_num ORDER BY seq_num) FROM fixengine_test_messages WHERE session_id = $1", session);
    }

    [Fact]
    public void AnOrderWhoseAnswerCannotBeStoredIsNotConsumedAndIsDeliveredAgainFlaggedAfterResuming()
    {
        var store = new SwitchableStore();
        var app = new DurableApp();
        using SessionHarness h = LoggedOn(store, app, StoreFailurePolicy.Hold);
        var away = new PostgresStoreException(PostgresStoreFailure.Unavailable, "test: the database is away");
        Assert.True(away.MayRecover);
        store.Failing = away;
        // The application answers inside FromApp; its Send fails, it lets the exception go: the order is not consumed.
        h.Receive("35=D|34=2|11=A1|55=EURUSD|54=1|60=" + h.Time() + "|38=100|40=1");
        Assert.Same(away, Assert.Single(app.Held));
        Assert.IsType<PostgresStoreException>(app.SendError);
        Assert.Equal(2, h.Session.NextTargetMsgSeqNum);
        Assert.True(h.Session.IsStoreHeld);
        h.ExpectNothing();
        Assert.False(h.Connection.Disconnected);
        // While holding, the next order is not even handed to the application.
        h.Receive("35=D|34=3|11=A2|55=EURUSD|54=1|60=" + h.Time() + "|38=100|40=1");
        Assert.Single(app.Delivered);
        store.Failing = null;
        h.Now += SessionHarness.Second;
        h.Session.Poll(h.Now);
        Assert.False(h.Session.IsStoreHeld);
        Assert.Equal(1, app.Resumed);
        // Resumed: both are asked for again and come back flagged; each is delivered (and answered) once more.
        Sent resendRequest = h.Expect("2");
        Assert.Equal("2", resendRequest[7]);
        h.Receive("35=D|34=2|43=Y|122=" + h.Time() + "|11=A1|55=EURUSD|54=1|60=" + h.Time() + "|38=100|40=1");
        h.Receive("35=D|34=3|43=Y|122=" + h.Time() + "|11=A2|55=EURUSD|54=1|60=" + h.Time() + "|38=100|40=1");
        Assert.Equal(new[] { ("A1", false), ("A1", true), ("A2", true) }, app.Delivered);
        Assert.Equal("3", h.Expect("8")[34]);
        Assert.Equal("4", h.Expect("8")[34]);
        h.ExpectNothing();
        Assert.Equal(4, h.Session.NextTargetMsgSeqNum);
    }

    [Fact]
    public void OnlyFailuresThatMayPassAreHeldAndADiskFailureStillEndsTheSessionUnderHold()
    {
        Assert.True(new PostgresStoreException(PostgresStoreFailure.Unavailable, "x").MayRecover);
        Assert.True(new PostgresStoreException(PostgresStoreFailure.QueueFull, "x").MayRecover);
        Assert.False(new PostgresStoreException(PostgresStoreFailure.Fenced, "x").MayRecover);
        var lost = new PostgresStoreException(PostgresStoreFailure.LeaseLost, "x");
        Assert.False(lost.MayRecover);
        Assert.True(lost.IsTerminal);
        var mayReturn = new PostgresStoreException(PostgresStoreFailure.LeaseLost, "x") { LeaseMayReturn = true };
        Assert.True(mayReturn.MayRecover);
        Assert.False(mayReturn.IsTerminal);
        var disk = new MessageStoreException("disk full", "/data/store.journal", MessageStoreOperation.Append);
        Assert.False(disk.MayRecover);

        var store = new SwitchableStore();
        var app = new DurableApp();
        using SessionHarness h = LoggedOn(store, app, StoreFailurePolicy.Hold);
        store.Failing = disk;
        h.Now += 31 * SessionHarness.Second;
        h.Session.Poll(h.Now);
        Assert.False(h.Session.IsStoreHeld);
        Assert.Empty(app.Held);
        Assert.Same(disk, Assert.Single(app.StoreFailures));
        h.ExpectNothing(); // no Logout: the store cannot number it
        Assert.True(h.Connection.Disconnected);
    }

    [Fact]
    public void LoggingOutWhileHoldingSendsNoLogoutAndConnectionsWaitForTheStore()
    {
        var store = new SwitchableStore();
        var app = new DurableApp();
        using SessionHarness h = LoggedOn(store, app, StoreFailurePolicy.Hold);
        store.Failing = new PostgresStoreException(PostgresStoreFailure.QueueFull, "test: the queue is full");
        h.Now += 31 * SessionHarness.Second;
        h.Session.Poll(h.Now);
        Assert.True(h.Session.IsStoreHeld);
        // The heartbeat that found the store away was not sent; a Logout cannot be stored either.
        h.Session.Logout("operator", h.Now);
        Assert.True(h.Connection.Disconnected);
        h.ExpectNothing();
        h.Connect();
        Assert.True(h.Connection.Disconnected);
        store.Failing = null;
        h.Connect();
        Assert.False(h.Connection.Disconnected);
        Assert.False(h.Session.IsStoreHeld);
        h.Receive("35=A|34=2|98=0|108=30");
        Assert.Equal("2", h.Expect("A")[34]);
    }

    [PostgresFact]
    public void HoldingSendsNothingKeepsTheConnectionAndResumesLosingNothingReportedStored()
    {
        using var db = new PostgresTestDatabase();
        string id = PostgresTestSupport.NewSessionId("hold");
        // A lease long enough that the outage below never reaches 3/4 of it (the connection is kept).
        var store = new PostgresMessageStore(id, 100, PostgresTestSupport.Options(PostgresSyncPolicy.PerMessage) with
        {
            ConnectionString = db.ConnectionString,
            LeaseDuration = TimeSpan.FromSeconds(20),
            ResumeAfterLeaseLost = true,
        });
        var app = new DurableApp();
        var log = new RecordingSessionLog();
        using SessionHarness h = LoggedOn(store, app, StoreFailurePolicy.Hold, log);
        for (long token = 1; token <= 5; token++) SendOrder(h.Session, token);
        h.Session.Poll(h.Now);
        Assert.Equal(5, app.Stored.Count);

        db.Block();
        // Handed over before the session noticed: accepted, and never lost.
        for (long token = 6; token <= 8; token++) SendOrder(h.Session, token);
        int sentBeforeHold = h.Connection.Sent.Count;
        h.Session.Poll(h.Now);
        Assert.True(h.Session.IsStoreHeld);
        PostgresStoreException reason = Assert.IsType<PostgresStoreException>(Assert.Single(app.Held));
        Assert.Equal(PostgresStoreFailure.Unavailable, reason.Failure);
        Assert.Contains(db.Name, reason.Message);
        Assert.Same(reason, h.Session.StoreHoldReason);
        Assert.Contains(log.Events, e => e.Level == LogLevel.Warning && e.Text.Contains("Holding (StoreFailurePolicy=Hold)"));
        Assert.Equal(5, app.Stored.Count);
        Assert.Empty(app.NotStored);
        Assert.Null(h.Session.StoreFailure);

        // New messages are refused while holding: false from any thread, an exception naming the hold from Send.
        Assert.False(TrySendOrder(h.Session, 9));
        InvalidOperationException refused = Assert.Throws<InvalidOperationException>(() =>
            h.Session.Send(MsgTypes.NewOrderSingle, 0, static (ref FixWriter w, scoped in int _) => w.Write(FixTags.ClOrdID, 99)));
        Assert.Contains("is holding", refused.Message);
        Assert.Contains("OnStoreResumed", refused.Message);

        // The peer's order and heartbeats keep coming for longer than HeartBtInt: nothing is processed or sent
        // (no heartbeat, no TestRequest: each would need a stored number), and the connection stays.
        h.Receive("35=D|34=2|11=IN1|55=EURUSD|54=1|60=" + h.Time() + "|38=100|40=1");
        for (int i = 0; i < 4; i++)
        {
            h.Now += 20 * SessionHarness.Second;
            h.Receive("35=0|34=" + (3 + i));
            h.Session.Poll(h.Now);
        }
        Assert.Empty(app.Delivered);
        Assert.Equal(sentBeforeHold, h.Connection.Sent.Count);
        Assert.False(h.Connection.Disconnected);
        Assert.True(h.Session.IsStoreHeld);

        db.Unblock();
        PollUntil(h, () => !h.Session.IsStoreHeld, "the session resumes");
        Assert.Equal(1, app.Resumed);
        Assert.Contains(log.Events, e => e.Text.Contains("takes writes again"));
        PollUntil(h, () => app.Stored.Count == 8, "the held hand-overs are stored");
        Assert.True(TrySendOrder(h.Session, 10));
        PollUntil(h, () => app.Stored.Count == 9, "a new order is stored");

        // On resume the session first asked for what it left unprocessed (from 34=2 on), then sent the held orders.
        List<Sent> afterHold = SentMessages(h).Skip(sentBeforeHold).ToList();
        Sent resendRequest = afterHold.First(m => m[35] == "2");
        Assert.Equal("2", resendRequest[7]);
        Assert.Equal("0", resendRequest[16]);
        // The peer resends the order (PossDupFlag=Y) and gap-fills its heartbeats: the order is delivered once, flagged.
        h.Receive("35=D|34=2|43=Y|122=" + h.Time() + "|11=IN1|55=EURUSD|54=1|60=" + h.Time() + "|38=100|40=1");
        h.Receive("35=4|34=3|43=Y|122=" + h.Time() + "|123=Y|36=7");
        Assert.Equal(new[] { ("IN1", true) }, app.Delivered);
        Assert.Equal(7, h.Session.NextTargetMsgSeqNum);

        // Nothing reported stored was lost, every number sent is in the database, and the numbers have no hole.
        store.Flush();
        int next = db.Scalar<int>("SELECT next_sender_seq_num FROM fixengine_test_sessions WHERE session_id = $1", id);
        Assert.Equal(h.Session.NextSenderMsgSeqNum, next);
        Assert.Equal(Enumerable.Range(1, next - 1), StoredSeqNums(db, id));
        Dictionary<string, Sent> sentBySeq = SentMessages(h).ToDictionary(m => m[34]!);
        Assert.Equal(next - 1, sentBySeq.Count);
        Assert.Equal(new long[] { 1, 2, 3, 4, 5, 6, 7, 8, 10 }, app.Stored.Select(s => s.Token).Order());
        foreach ((long token, int seq) in app.Stored)
        {
            Assert.Equal(token.ToString(CultureInfo.InvariantCulture), sentBySeq[seq.ToString(CultureInfo.InvariantCulture)][11]);
        }
        Assert.Empty(app.NotStored);
        Assert.Empty(app.StoreFailures);
    }

    [PostgresFact]
    public void HoldingPastTheLeaseDisconnectsWithoutALogoutAndResumesWhenItsOwnLeaseComesBack()
    {
        using var db = new PostgresTestDatabase();
        string id = PostgresTestSupport.NewSessionId("holdlease");
        var store = new PostgresMessageStore(id, 100, PostgresTestSupport.Options(PostgresSyncPolicy.GroupCommit) with
        {
            ConnectionString = db.ConnectionString,
            LeaseDuration = TimeSpan.FromSeconds(2),
            ResumeAfterLeaseLost = true,
        });
        long token = store.FencingToken;
        var app = new DurableApp();
        using SessionHarness h = LoggedOn(store, app, StoreFailurePolicy.Hold);
        for (long t = 1; t <= 3; t++) SendOrder(h.Session, t);
        h.Session.Poll(h.Now);
        store.Flush();

        db.Block();
        PollUntil(h, () => store.Fault?.Failure == PostgresStoreFailure.LeaseLost, "the store gives up its lease");
        // The session notices at its next write (here the heartbeat due after HeartBtInt) and holds: disconnected
        // without a Logout, so a standby that takes the lease could log on.
        h.Now += 31 * SessionHarness.Second;
        h.Session.Poll(h.Now);
        Assert.True(h.Session.IsStoreHeld);
        PostgresStoreException reason = Assert.IsType<PostgresStoreException>(Assert.Single(app.Held));
        Assert.Equal(PostgresStoreFailure.LeaseLost, reason.Failure);
        Assert.True(reason.MayRecover);
        Assert.False(reason.IsTerminal);
        Assert.True(h.Connection.Disconnected);
        Assert.Contains("lease lost", h.Connection.Reason);
        Assert.DoesNotContain(SentMessages(h), m => m[35] == "5");
        Assert.False(TrySendOrder(h.Session, 4));
        // No connection is taken while holding.
        h.Connect();
        Assert.True(h.Connection.Disconnected);

        db.Unblock();
        PollUntil(h, () => !h.Session.IsStoreHeld, "the session resumes");
        Assert.Equal(1, app.Resumed);
        Assert.True(store.HoldsLease);
        Assert.Equal(token, store.FencingToken);
        Assert.Equal(token, db.Scalar<long>("SELECT fencing_token FROM fixengine_test_sessions WHERE session_id = $1", id));

        // The counterparty logs on again and the session goes on where it stopped.
        h.Connect();
        h.Receive("35=A|34=2|98=0|108=30");
        Sent logon = h.Expect("A");
        Assert.Equal("5", logon[34]);
        SendOrder(h.Session, 4);
        h.Session.Poll(h.Now);
        Assert.Equal(4, app.Stored.Count);
        store.Flush();
        Assert.Equal(Enumerable.Range(1, 6), StoredSeqNums(db, id));
        Assert.Empty(app.NotStored);
        Assert.Empty(app.StoreFailures);
    }

    [PostgresFact]
    public void AHoldEndsInTheTerminalFailureWhenAStandbyTookTheSessionMeanwhile()
    {
        string id = PostgresTestSupport.NewSessionId("holdfenced");
        PostgresMessageStoreOptions options = PostgresTestSupport.Options(PostgresSyncPolicy.PerMessage) with
        {
            LeaseDuration = TimeSpan.FromSeconds(1),
            ResumeAfterLeaseLost = true,
        };
        var primary = new PostgresMessageStore(id, 100, options);
        var app = new DurableApp();
        using SessionHarness h = LoggedOn(primary, app, StoreFailurePolicy.Hold);
        // The primary's network to the database is cut: its lease lapses, the session holds and disconnects.
        primary.SuspendLeaseRenewal();
        PollUntil(h, () => primary.Fault?.Failure == PostgresStoreFailure.LeaseLost, "the primary gives up its lease");
        h.Now += 31 * SessionHarness.Second;
        h.Session.Poll(h.Now);
        Assert.True(h.Session.IsStoreHeld);
        Assert.True(h.Connection.Disconnected);
        // A standby takes the session over; then the primary's network comes back.
        using var standby = new PostgresMessageStore(id, 100, options with { ResumeAfterLeaseLost = false });
        Assert.True(standby.FencingToken > primary.FencingToken);
        primary.ResumeLeaseRenewal();
        PollUntil(h, () => !h.Session.IsStoreHeld, "the hold ends");

        // Its renewal finds the standby's token: the lease does not come back, the hold ends in the terminal failure.
        PostgresStoreException failure = Assert.IsType<PostgresStoreException>(Assert.Single(app.StoreFailures));
        Assert.Equal(PostgresStoreFailure.Fenced, failure.Failure);
        Assert.Same(failure, h.Session.StoreFailure);
        Assert.Equal(0, app.Resumed);
        Assert.False(primary.HoldsLease);
        Assert.True(standby.HoldsLease);
        h.Connect();
        Assert.True(h.Connection.Disconnected);
        Assert.Equal(standby.FencingToken, PostgresTestSupport.Scalar<long>("SELECT fencing_token FROM fixengine_test_sessions WHERE session_id = $1", id));
    }

    [PostgresFact]
    public void UnderTheLogoutPolicyALostDatabaseEndsTheSessionWithTheReasonAndNoUnstoredLogout()
    {
        using var db = new PostgresTestDatabase();
        string id = PostgresTestSupport.NewSessionId("logout");
        var store = new PostgresMessageStore(id, 100, PostgresTestSupport.Options(PostgresSyncPolicy.PerMessage) with { ConnectionString = db.ConnectionString });
        var app = new DurableApp();
        using SessionHarness h = LoggedOn(store, app, StoreFailurePolicy.Logout);
        db.Block();
        SendOrder(h.Session, 1);
        h.Session.Poll(h.Now);

        PostgresStoreException failure = Assert.IsType<PostgresStoreException>(Assert.Single(app.StoreFailures));
        Assert.Equal(PostgresStoreFailure.Unavailable, failure.Failure);
        Assert.Same(failure, h.Session.StoreFailure);
        Assert.Empty(app.Held);
        h.ExpectNothing(); // a Logout would need a number the database cannot keep now
        Assert.True(h.Connection.Disconnected);
        Assert.Contains("message store failure", h.Connection.Reason);
        Assert.Equal(new[] { (1L, SendNotStoredReason.StoreFailed) }, app.NotStored);
        Assert.Throws<InvalidOperationException>(() => TrySendOrder(h.Session, 2));
        db.Unblock();
    }

    [PostgresFact]
    public void AStoreFencedByATakeoverStopsTheSessionWithoutALogoutEvenUnderHold()
    {
        string id = PostgresTestSupport.NewSessionId("fenced");
        PostgresMessageStoreOptions options = PostgresTestSupport.Options(PostgresSyncPolicy.PerMessage) with
        {
            LeaseDuration = TimeSpan.FromSeconds(1),
            ResumeAfterLeaseLost = true,
        };
        var primary = new PostgresMessageStore(id, 100, options);
        var app = new DurableApp();
        using SessionHarness h = LoggedOn(primary, app, StoreFailurePolicy.Hold);
        // The primary freezes past its lease (as a paused VM would) and a standby takes the session over.
        primary.DisableLocalLeaseCheck();
        primary.SuspendLeaseRenewal();
        using var standby = new PostgresMessageStore(id, 100, options with { LeaseAcquireTimeout = TimeSpan.FromSeconds(30) });
        Assert.True(standby.FencingToken > primary.FencingToken);

        SendOrder(h.Session, 1);
        h.Session.Poll(h.Now);
        PostgresStoreException failure = Assert.IsType<PostgresStoreException>(Assert.Single(app.StoreFailures));
        Assert.Equal(PostgresStoreFailure.Fenced, failure.Failure);
        Assert.False(failure.MayRecover);
        Assert.Empty(app.Held);
        Assert.False(h.Session.IsStoreHeld);
        // The standby acts for the session now: not even a Logout leaves the stale primary.
        Assert.Equal(new[] { "A" }, SentMessages(h).Select(m => m[35]!));
        Assert.True(h.Connection.Disconnected);
        Assert.Equal(new[] { (1L, SendNotStoredReason.StoreFailed) }, app.NotStored);
    }
}
