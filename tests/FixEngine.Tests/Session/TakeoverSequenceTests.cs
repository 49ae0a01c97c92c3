using System;
using System.Linq;
using System.Threading;
using FixEngine.Config;
using FixEngine.Logging;
using FixEngine.PostgreSQL;
using FixEngine.Store;
using FixEngine.Tests.Infrastructure;
using FixEngine.Tests.Store;

namespace FixEngine.Tests.Session;

/// <summary>A memory store that says what a PostgreSQL store taken over from a dead primary says:
/// <see cref="IMessageStore.MayHaveLostTail"/>.</summary>
internal sealed class TailReportingStore(bool mayHaveLostTail, int nextSender) : IMessageStore
{
    private readonly MemoryMessageStore _inner = Create(nextSender);

    private static MemoryMessageStore Create(int nextSender)
    {
        var store = new MemoryMessageStore(1, 1 << 20);
        for (int seq = 1; seq < nextSender; seq++) store.AppendAndIncrement(seq, Order(seq));
        return store;
    }

    /// <summary>An order as the session would have stored it (ISLD to TW44).</summary>
    private static byte[] Order(int seq)
    {
        string body = $"35=D\u000134={seq}\u000149=ISLD\u000152=20260105-12:00:00.000\u000156=TW44\u000111=ORD{seq}\u000155=EURUSD\u000154=1\u0001"
            + "60=20260105-12:00:00.000\u000138=100\u000140=1\u0001";
        string head = $"8=FIX.4.4\u00019={body.Length}\u0001";
        int sum = (head + body).Sum(c => c) % 256;
        return System.Text.Encoding.ASCII.GetBytes(head + body + $"10={sum:D3}\u0001");
    }

    public bool MayHaveLostTail => mayHaveLostTail;
    public int NextSenderMsgSeqNum => _inner.NextSenderMsgSeqNum;
    public int NextTargetMsgSeqNum => _inner.NextTargetMsgSeqNum;
    public long CreationTimeEpochNs => _inner.CreationTimeEpochNs;
    public int LastProcessedInboundSeqNum => _inner.LastProcessedInboundSeqNum;
    public StoreRecoveryReport? LastRecoveryReport => null;
    public void SetNextSenderMsgSeqNum(int value) => _inner.SetNextSenderMsgSeqNum(value);
    public void SetNextTargetMsgSeqNum(int value) => _inner.SetNextTargetMsgSeqNum(value);
    public void IncrNextSenderMsgSeqNum() => _inner.IncrNextSenderMsgSeqNum();
    public void IncrNextTargetMsgSeqNum() => _inner.IncrNextTargetMsgSeqNum();
    public void SetLastProcessedInboundSeqNum(int value) => _inner.SetLastProcessedInboundSeqNum(value);
    public void Append(int seqNum, ReadOnlySpan<byte> message) => _inner.Append(seqNum, message);
    public void AppendAndIncrement(int seqNum, ReadOnlySpan<byte> message) => _inner.AppendAndIncrement(seqNum, message);
    public void AppendAndIncrement(int seqNum, ReadOnlySpan<byte> message, int processedInboundSeqNum) => _inner.AppendAndIncrement(seqNum, message, processedInboundSeqNum);
    public int ReadRange<THandler>(int beginSeqNo, int endSeqNo, ref THandler handler) where THandler : struct, IStoredMessageHandler => _inner.ReadRange(beginSeqNo, endSeqNo, ref handler);
    public void Reset(long nowEpochNs) => _inner.Reset(nowEpochNs);
    public void Flush() => _inner.Flush();
    public void Refresh() => _inner.Refresh();
    public void Dispose() => _inner.Dispose();
}

/// <summary>After a takeover whose store may have lost its last sent messages, the counterparty's expectation
/// (NextExpectedMsgSeqNum(789) of its Logon, or the "MsgSeqNum too low, expecting N" of the Logout refusing ours) moves
/// the sender number forward, once, with a warning; never backward, and never when the store reports no possible loss.</summary>
public sealed class TakeoverSequenceTests
{
    private static SessionHarness Acceptor(IMessageStore store, RecordingSessionLog log, string beginString = "FIX.4.4") =>
        new(beginString, s => s with { ResetOnLogon = false }, store, log: log);

    [Fact]
    public void AnAcceptorWhoseStoreMayHaveLostItsTailAnswersTheLogonAtTheNumberTheCounterpartyExpects()
    {
        var log = new RecordingSessionLog();
        using SessionHarness h = Acceptor(new TailReportingStore(true, nextSender: 6), log);
        h.Receive("35=A|34=1|98=0|108=30|789=11");
        Assert.Equal("11", h.Expect("A")[34]);
        Assert.Equal(12, h.Session.NextSenderMsgSeqNum);
        Assert.Contains(log.Events, e => e.Level == LogLevel.Warning && e.Text.Contains("expects MsgSeqNum 11") && e.Text.Contains("store's next was 6"));
        // The skipped numbers have no stored body: a resend request for them is one GapFill, then the stored ones.
        h.Receive("35=2|34=2|7=4|16=0");
        Sent resent4 = h.Expect("D");
        Assert.Equal("4", resent4[34]);
        Assert.Equal("Y", resent4[43]);
        Assert.Equal("5", h.Expect("D")[34]);
        Sent gapFill = h.Expect("4");
        Assert.Equal("6", gapFill[34]);
        Assert.Equal("Y", gapFill[123]);
        Assert.Equal("12", gapFill[36]);
        h.ExpectNothing();
    }

    [Fact]
    public void TheNumberNeverMovesBackNorWithoutAPossibleLossNorTwice()
    {
        // The counterparty expects less than we have: no move (it asks for what it missed).
        var log = new RecordingSessionLog();
        using (SessionHarness h = Acceptor(new TailReportingStore(true, nextSender: 6), log))
        {
            h.Receive("35=A|34=1|98=0|108=30|789=4");
            Assert.Equal("6", h.Expect("A")[34]);
            Assert.Equal(7, h.Session.NextSenderMsgSeqNum);
            Assert.DoesNotContain(log.Events, e => e.Text.Contains("moved up"));
        }

        // A store that reports no possible loss: the counterparty's number is not trusted over it.
        log = new RecordingSessionLog();
        using (SessionHarness h = Acceptor(new TailReportingStore(false, nextSender: 6), log))
        {
            h.Receive("35=A|34=1|98=0|108=30|789=11");
            Assert.Equal("6", h.Expect("A")[34]);
            Assert.Contains(log.Events, e => e.Level == LogLevel.Warning && e.Text.Contains("not moved"));
        }

        // Once logged on, a later Logon's 789 (after a reconnect) does not move it again.
        log = new RecordingSessionLog();
        using (SessionHarness h = Acceptor(new TailReportingStore(true, nextSender: 6), log))
        {
            h.Receive("35=A|34=1|98=0|108=30|789=11");
            Assert.Equal("11", h.Expect("A")[34]);
            h.Receive("35=5|34=2");
            h.Connect();
            h.Receive("35=A|34=3|98=0|108=30|789=40");
            Assert.Equal("13", h.Expect("A")[34]);
        }
    }

    [Fact]
    public void AnAcceptorReplaysOnlyWhatThePeerMissedBeforeItsLogon()
    {
        using var h = new SessionHarness("FIX.4.4", s => s with { ResetOnLogon = false, EnableNextExpectedMsgSeqNum = true },
            new TailReportingStore(false, nextSender: 6));
        // The peer expects exactly our Logon's number: nothing to replay (not even a GapFill of that Logon).
        h.Receive("35=A|34=1|98=0|108=30|789=6");
        Assert.Equal("6", h.Expect("A")[34]);
        h.ExpectNothing();
        h.Receive("35=5|34=2");
        Assert.Equal("7", h.Expect("5")[34]);
        // It missed 5..7 (an order, our Logon and our Logout): those are replayed after our new Logon (34=8), which is not.
        h.Connect();
        h.Receive("35=A|34=3|98=0|108=30|789=5");
        Assert.Equal("8", h.Expect("A")[34]);
        Sent order = h.Expect("D");
        Assert.Equal("5", order[34]);
        Assert.Equal("Y", order[43]);
        Sent gapFill = h.Expect("4");
        Assert.Equal("6", gapFill[34]);
        Assert.Equal("8", gapFill[36]);
        h.ExpectNothing();
    }

    [Fact]
    public void AnInitiatorRefusedAsTooLowMovesUpToTheExpectedNumberAndLogsOnNextTime()
    {
        var log = new RecordingSessionLog();
        using var h = new SessionHarness("FIX.4.4", s => s with { ConnectionType = ConnectionType.Initiator, ResetOnLogon = false, HeartBtInt = 30,
            SocketConnectHost = "127.0.0.1", SocketConnectPort = 5001 }, new TailReportingStore(true, nextSender: 6), log: log);
        Assert.Equal("6", h.Expect("A")[34]);
        h.Receive("35=5|34=11|58=MsgSeqNum too low, expecting 11 but received 6");
        Assert.True(h.Connection.Disconnected);
        Assert.Equal(11, h.Session.NextSenderMsgSeqNum);
        Assert.Contains(log.Events, e => e.Level == LogLevel.Warning && e.Text.Contains("Text(58) of the Logout"));
        h.Connect();
        Assert.Equal("11", h.Expect("A")[34]);
    }

    [Fact]
    public void AStandbyAcceptorRefusedAsTooLowWithout789LearnsTheNumberOnceAndLogsOnNextTime()
    {
        // Issue 34 item 4: the counterparty sends no NextExpectedMsgSeqNum(789); it refuses our Logon reply by Logout.
        var log = new RecordingSessionLog();
        using SessionHarness h = Acceptor(new TailReportingStore(true, nextSender: 6), log);
        h.Receive("35=A|34=1|98=0|108=30");
        Assert.Equal("6", h.Expect("A")[34]);
        h.Receive("35=5|34=2|58=MsgSeqNum too low, expecting 1474 but received 6");
        Assert.Equal("1474", h.Expect("5")[34]);
        Assert.True(h.Connection.Disconnected);
        Assert.Contains(log.Events, e => e.Level == LogLevel.Warning && e.Text.Contains("expects MsgSeqNum 1474") && e.Text.Contains("Text(58)"));
        h.Connect();
        h.Receive("35=A|34=3|98=0|108=30");
        Assert.Equal("1475", h.Expect("A")[34]);
        // The counterparty accepts it and trades: a later refusal text moves nothing any more.
        h.Receive("35=0|34=4");
        h.Receive("35=5|34=5|58=MsgSeqNum too low, expecting 9999 but received 1475");
        Assert.Equal("1476", h.Expect("5")[34]);
        Assert.Equal(1477, h.Session.NextSenderMsgSeqNum);
    }

    [Fact]
    public void ARefusalBeyondMaxSenderSeqNumCatchUpOrNamingANumberWeNeverSentMovesNothing()
    {
        var log = new RecordingSessionLog();
        using (var h = new SessionHarness("FIX.4.4", s => s with { ResetOnLogon = false, MaxSenderSeqNumCatchUp = 100 }, new TailReportingStore(true, nextSender: 6), log: log))
        {
            h.Receive("35=A|34=1|98=0|108=30");
            Assert.Equal("6", h.Expect("A")[34]);
            h.Receive("35=5|34=2|58=MsgSeqNum too low, expecting 1474 but received 6");
            Assert.Equal("7", h.Expect("5")[34]);
            Assert.Contains(log.Events, e => e.Level == LogLevel.Error && e.Text.Contains("exceeds MaxSenderSeqNumCatchUp=100"));
        }
        using (SessionHarness h = Acceptor(new TailReportingStore(true, nextSender: 6), new RecordingSessionLog()))
        {
            h.Receive("35=A|34=1|98=0|108=30");
            Assert.Equal("6", h.Expect("A")[34]);
            h.Receive("35=5|34=2|58=MsgSeqNum too low, expecting 1474 but received 900");
            Assert.Equal("7", h.Expect("5")[34]);
        }
    }

    [Fact]
    public void WithoutAPossibleLossARefusalDoesNotMoveTheInitiator()
    {
        var log = new RecordingSessionLog();
        using var h = new SessionHarness("FIX.4.4", s => s with { ConnectionType = ConnectionType.Initiator, ResetOnLogon = false, HeartBtInt = 30,
            SocketConnectHost = "127.0.0.1", SocketConnectPort = 5001 }, new TailReportingStore(false, nextSender: 6), log: log);
        h.Expect("A");
        h.Receive("35=5|34=11|58=MsgSeqNum too low, expecting 11 but received 6");
        Assert.Equal(7, h.Session.NextSenderMsgSeqNum);
    }

    [PostgresFact]
    public void AStandbyThatTookOverAGroupCommitSessionFromADeadPrimaryFollowsTheCounterparty()
    {
        string id = PostgresTestSupport.NewSessionId("tail");
        // A 4 s lease: the standby waits that long for the dead primary's lease, and its own lease must be renewed within
        // 3 s (3/4) of the last renewal; with a 1 s lease (750 ms) a busy machine can miss that.
        PostgresMessageStoreOptions options = PostgresTestSupport.Options(PostgresSyncPolicy.GroupCommit) with { LeaseDuration = TimeSpan.FromSeconds(4) };
        var primary = new PostgresMessageStore(id, 100, options);
        for (int seq = 1; seq <= 5; seq++) primary.AppendAndIncrement(seq, StoreTestData.Message(seq));
        primary.Flush();
        // Sent but never committed: the primary dies (stops renewing) with them in its queue.
        primary.SuspendWriter();
        for (int seq = 6; seq <= 10; seq++) primary.AppendAndIncrement(seq, StoreTestData.Message(seq));
        primary.DisableLocalLeaseCheck();
        primary.SuspendLeaseRenewal();

        using (var standby = new PostgresMessageStore(id, 100, options))
        {
            Assert.True(standby.MayHaveLostTail);
            Assert.Equal(6, standby.NextSenderMsgSeqNum);
            var log = new RecordingSessionLog();
            using SessionHarness h = Acceptor(standby, log);
            h.Receive("35=A|34=1|98=0|108=30|789=11");
            Assert.Equal("11", h.Expect("A")[34]);
            Assert.Contains(log.Events, e => e.Level == LogLevel.Warning && e.Text.Contains("expects MsgSeqNum 11"));
            // 6..10 are lost, 11 is our Logon (admin): one GapFill to 12.
            h.Receive("35=2|34=2|7=6|16=0");
            Sent gapFill = h.Expect("4");
            Assert.Equal("6", gapFill[34]);
            Assert.Equal("12", gapFill[36]);
            h.ExpectNothing();
            standby.Flush();
            Assert.Equal(12, PostgresTestSupport.Scalar<int>("SELECT next_sender_seq_num FROM fixengine_test_sessions WHERE session_id = $1", id));

            // The dead primary's late commit of its queue is refused, so it cannot undo the move.
            primary.ResumeWriter();
            var clock = System.Diagnostics.Stopwatch.StartNew();
            while (primary.Fault?.Failure != PostgresStoreFailure.Fenced)
            {
                Assert.True(clock.Elapsed < TimeSpan.FromSeconds(60), "the stale primary's commit was not refused");
                Thread.Sleep(10);
            }
            primary.Dispose();
            Assert.Equal(12, PostgresTestSupport.Scalar<int>("SELECT next_sender_seq_num FROM fixengine_test_sessions WHERE session_id = $1", id));
        }

        // The standby stopped cleanly (lease released, everything committed): the next holder reports no possible loss.
        using var next = new PostgresMessageStore(id, 100, options);
        Assert.False(next.MayHaveLostTail);
        Assert.Equal(12, next.NextSenderMsgSeqNum);
    }
}
