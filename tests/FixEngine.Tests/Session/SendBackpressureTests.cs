using System;
using System.Collections.Generic;
using FixEngine.Codec;
using FixEngine.Session;
using FixEngine.Tests.Infrastructure;
using FixEngine.Transport;

namespace FixEngine.Tests.Session;

/// <summary>A transport whose bounded send queue is full answers Backpressure and takes nothing. These tests fill the
/// fake transport (<see cref="FakeConnection.FreeBytes"/>) and check that the session never drops a message it has
/// stored and numbered: it holds them back in order and sends them once the transport takes bytes again.</summary>
public sealed class SendBackpressureTests
{
    private static void SendOrder(SessionHarness h, long id) =>
        h.Session.Send(MsgTypes.NewOrderSingle, id, static (ref FixWriter w, scoped in long clOrdId) =>
        {
            w.Write(FixTags.ClOrdID, clOrdId);
            w.Write(FixTags.Symbol, "EURUSD"u8);
            w.Write(FixTags.Side, '1');
            w.Write(FixTags.OrderQty, 100L);
            w.Write(FixTags.OrdType, '1');
        }, h.Now);

    private static bool TrySendOrderFromAnyThread(SessionHarness h, long id) =>
        h.Session.TrySendFromAnyThread(MsgTypes.NewOrderSingle, id, static (ref FixWriter w, scoped in long clOrdId) =>
        {
            w.Write(FixTags.ClOrdID, clOrdId);
            w.Write(FixTags.Symbol, "EURUSD"u8);
            w.Write(FixTags.Side, '1');
            w.Write(FixTags.OrderQty, 100L);
            w.Write(FixTags.OrdType, '1');
        });

    /// <summary>Reads every unread outbound NewOrderSingle and checks ClOrdIDs first..last with MsgSeqNum = ClOrdID + offset.</summary>
    private static void ExpectOrders(SessionHarness h, long first, long last, int seqOffset, bool possDup = false)
    {
        for (long id = first; id <= last; id++)
        {
            Sent m = h.Expect("D");
            Assert.True(m[11] == id.ToString(System.Globalization.CultureInfo.InvariantCulture), $"expected ClOrdID {id}, got {m.Text}");
            Assert.True(m[34] == (id + seqOffset).ToString(System.Globalization.CultureInfo.InvariantCulture), $"expected MsgSeqNum {id + seqOffset}, got {m.Text}");
            Assert.Equal(possDup ? "Y" : null, m[43]);
        }
    }

    [Fact]
    public void MessagesRefusedByAFullTransportAreSentLaterInOrder()
    {
        using var h = new SessionHarness("FIX.4.4");
        h.Logon();
        h.Connection.FreeBytes = 0;
        for (long id = 1; id <= 50; id++) SendOrder(h, id);
        h.Session.Poll(h.Now);
        h.ExpectNothing();
        // Stored and numbered (Logon 1, orders 2..51) although nothing could be written yet.
        Assert.Equal(52, h.Session.NextSenderMsgSeqNum);

        h.Connection.FreeBytes = null;
        h.Session.Poll(h.Now);
        ExpectOrders(h, 1, 50, seqOffset: 1);
        h.ExpectNothing();
    }

    [Fact]
    public void TransportBackpressureIsCountedOnceAndTheBacklogDrainsInSteps()
    {
        using var h = new SessionHarness("FIX.4.4");
        h.Logon();
        h.Connection.FreeBytes = 0;
        for (long id = 1; id <= 50; id++) SendOrder(h, id);
        // Only the first order met the full transport; the others went behind it without trying.
        Assert.Equal(1, h.Connection.Refused);
        Assert.Equal(1, h.Session.SendBackpressureCount);
        long backlog = h.Session.SendBacklogBytes;
        Assert.True(backlog > 50 * 80, $"backlog {backlog} B for 50 orders");
        Assert.Equal(backlog, h.Session.SendBacklogHighWaterBytes);

        // The transport frees room for about ten orders per poll: they leave oldest first.
        int messageLength = (int)(backlog / 50) + 2;
        long sent = 0;
        for (int poll = 0; poll < 20 && h.Session.SendBacklogBytes > 0; poll++)
        {
            h.Connection.FreeBytes = 10L * messageLength;
            h.Session.Poll(h.Now);
            Assert.True(h.Connection.SentCount - sent <= 11, "one poll sent more than the transport took");
            sent = h.Connection.SentCount;
        }
        Assert.Equal(0, h.Session.SendBacklogBytes);
        ExpectOrders(h, 1, 50, seqOffset: 1);
    }

    [Fact]
    public void OutboxIsNotDrainedIntoAFullTransportSoItsProducerSeesBackpressure()
    {
        using var h = new SessionHarness("FIX.4.4");
        h.Logon();
        h.Connection.FreeBytes = 0;
        const int attempts = 100_000;
        long accepted = 0;
        while (accepted < attempts && TrySendOrderFromAnyThread(h, accepted + 1))
        {
            accepted++;
            if (accepted % 64 == 0) h.Session.Poll(h.Now);
        }
        // The outbox ring (1 MiB) filled: the producer was told to retry instead of its orders being dropped.
        Assert.True(accepted < attempts, $"all {accepted} orders were accepted while the transport took nothing");

        h.Connection.FreeBytes = null;
        for (int i = 0; i < 10_000 && h.Connection.SentCount < accepted + 1; i++) h.Session.Poll(h.Now);
        ExpectOrders(h, 1, accepted, seqOffset: 1);
        h.ExpectNothing();
        Assert.Equal(accepted + 2, h.Session.NextSenderMsgSeqNum);
    }

    [Fact]
    public void ALongReplayIsReadFromTheStoreInStepsAndDeliveredWhole()
    {
        using var h = new SessionHarness("FIX.4.4");
        h.Logon();
        const int orders = 3_000;
        for (long id = 1; id <= orders; id++) SendOrder(h, id);
        ExpectOrders(h, 1, orders, seqOffset: 1);

        // The peer asks for everything again while our transport is full.
        h.Connection.FreeBytes = 0;
        h.Receive("35=2|34=2|7=2|16=0");
        Assert.True(h.Session.IsReplayPending);
        Assert.True(h.Session.SendBacklogBytes <= OutboundFlowControl.ReplayBudgetBytes + 1024, $"replay copied {h.Session.SendBacklogBytes} B at once");
        h.ExpectNothing();

        for (int poll = 0; poll < 10_000 && (h.Session.IsReplayPending || h.Session.SendBacklogBytes > 0); poll++)
        {
            h.Connection.FreeBytes = 16 * 1024;
            h.Session.Poll(h.Now);
        }
        Assert.False(h.Session.IsReplayPending);
        Assert.Equal(0, h.Session.SendBacklogBytes);
        Assert.True(h.Session.SendBacklogHighWaterBytes <= OutboundFlowControl.ReplayBudgetBytes + 1024, $"backlog reached {h.Session.SendBacklogHighWaterBytes} B");
        // Every order again, PossDup, in order.
        ExpectOrders(h, 1, orders, seqOffset: 1, possDup: true);
        h.ExpectNothing();
        Assert.Equal(1, h.Session.ResendRequestsReceived);
    }

    /// <summary>A transport that takes everything does not let one ResendRequest monopolise the thread: each step of the
    /// replay resends at most <see cref="FixSession.ReplayMessagesPerStep"/> messages, and the next step runs from Poll,
    /// so the engine agent (busy-poll: every session on one thread) gets back to its other sessions in between.</summary>
    [Fact]
    public void AReplayIntoAFreeTransportRunsInBoundedStepsAndDeliversEveryMessageInOrder()
    {
        using var h = new SessionHarness("FIX.4.4");
        h.Logon();
        const int orders = 1_000;
        for (long id = 1; id <= orders; id++) SendOrder(h, id);
        ExpectOrders(h, 1, orders, seqOffset: 1);

        long before = h.Connection.SentCount;
        h.Receive("35=2|34=2|7=2|16=0");
        Assert.Equal(FixSession.ReplayMessagesPerStep, h.Connection.SentCount - before);
        Assert.True(h.Session.IsReplayPending);
        int polls = 0;
        while (h.Session.IsReplayPending && polls < 1_000)
        {
            long sent = h.Connection.SentCount;
            h.Session.Poll(h.Now);
            polls++;
            Assert.True(h.Connection.SentCount - sent <= FixSession.ReplayMessagesPerStep, $"poll {polls} resent {h.Connection.SentCount - sent} messages in one step");
        }
        Assert.False(h.Session.IsReplayPending);
        Assert.Equal((orders + FixSession.ReplayMessagesPerStep - 1) / FixSession.ReplayMessagesPerStep - 1, polls);
        ExpectOrders(h, 1, orders, seqOffset: 1, possDup: true);
        h.ExpectNothing();
    }

    [Fact]
    public void EachReplayStepReachesTheTransportAsOneWrite()
    {
        using var h = new SessionHarness("FIX.4.4");
        h.Logon();
        const int orders = 1_000;
        for (long id = 1; id <= orders; id++) SendOrder(h, id);
        ExpectOrders(h, 1, orders, seqOffset: 1);

        long calls = h.Connection.SendCalls;
        long sent = h.Connection.SentCount;
        h.Receive("35=2|34=2|7=2|16=0");
        Assert.Equal(1, h.Connection.SendCalls - calls);
        Assert.Equal(FixSession.ReplayMessagesPerStep, h.Connection.SentCount - sent);
        int steps = 1;
        while (h.Session.IsReplayPending && steps < 1_000)
        {
            calls = h.Connection.SendCalls;
            h.Session.Poll(h.Now);
            steps++;
            Assert.Equal(1, h.Connection.SendCalls - calls);
        }
        Assert.Equal((orders + FixSession.ReplayMessagesPerStep - 1) / FixSession.ReplayMessagesPerStep, steps);
        ExpectOrders(h, 1, orders, seqOffset: 1, possDup: true);
        h.ExpectNothing();
    }

    [Fact]
    public void AReplayBatchTheTransportCannotTakeWholeGoesMessageByMessageInOrder()
    {
        using var h = new SessionHarness("FIX.4.4");
        h.Logon();
        const int orders = 300;
        for (long id = 1; id <= orders; id++) SendOrder(h, id);
        ExpectOrders(h, 1, orders, seqOffset: 1);
        // A send queue smaller than a step's batch (TooLarge), then one that takes a few messages at a time
        // (Backpressure): every message still arrives once, in order, marked as a possible duplicate.
        h.Connection.MaxSendBytes = 2_000;
        h.Receive("35=2|34=2|7=2|16=0");
        Assert.True(h.Connection.TooLarge > 0);
        for (int poll = 0; poll < 1_000 && h.Session.IsReplayPending; poll++)
        {
            h.Connection.FreeBytes = 1_500;
            h.Session.Poll(h.Now);
        }
        h.Connection.FreeBytes = null;
        h.Session.Poll(h.Now);
        Assert.False(h.Session.IsReplayPending);
        Assert.Equal(0, h.Session.SendBacklogBytes);
        Assert.True(h.Connection.Refused > 0);
        ExpectOrders(h, 1, orders, seqOffset: 1, possDup: true);
        h.ExpectNothing();
    }

    [Fact]
    public void NewOutboxMessagesWaitUntilAPendingReplayIsDone()
    {
        using var h = new SessionHarness("FIX.4.4");
        h.Logon();
        const int orders = 2_000;
        for (long id = 1; id <= orders; id++) SendOrder(h, id);
        ExpectOrders(h, 1, orders, seqOffset: 1);
        h.Connection.FreeBytes = 0;
        h.Receive("35=2|34=2|7=2|16=0");
        Assert.True(TrySendOrderFromAnyThread(h, orders + 1));
        for (int poll = 0; poll < 10_000 && h.Connection.SentCount < 2 * orders + 2; poll++)
        {
            h.Connection.FreeBytes = 16 * 1024;
            h.Session.Poll(h.Now);
        }
        ExpectOrders(h, 1, orders, seqOffset: 1, possDup: true);
        ExpectOrders(h, orders + 1, orders + 1, seqOffset: 1);
    }

    [Fact]
    public void BacklogOverItsLimitDisconnectsWithTheReasonAndTheResendRecoversEverything()
    {
        using var h = new SessionHarness("FIX.4.4", s => s with { ResetOnLogon = false });
        h.Logon();
        h.Session.SendBacklogLimitBytes = 64 * 1024;
        h.Connection.FreeBytes = 0;
        FakeConnection first = h.Connection;
        long id = 0;
        while (!first.Disconnected && id < 10_000) SendOrder(h, ++id);
        Assert.True(first.Disconnected, "the backlog grew past its limit without a disconnect");
        Assert.Contains("Send backlog limit reached", first.Reason);
        Assert.Equal(0, h.Session.SendBacklogBytes);
        Assert.False(h.Session.IsConnected);

        // Reconnect: the peer logs on again and asks for everything it missed; every order is in the store.
        h.Connect();
        h.Receive("35=A|34=2|98=0|108=30");
        h.Expect("A");
        h.Receive("35=2|34=3|7=2|16=" + (id + 1).ToString(System.Globalization.CultureInfo.InvariantCulture));
        for (int poll = 0; poll < 10_000 && h.Session.IsReplayPending; poll++) h.Session.Poll(h.Now);
        ExpectOrders(h, 1, id, seqOffset: 1, possDup: true);
        h.ExpectNothing();
    }

    [Fact]
    public void ReceivePauseIsRequestedForALargeDrainingBacklogAndWithdrawnWhenItStalls()
    {
        using var h = new SessionHarness("FIX.4.4");
        h.Logon();
        h.Connection.FreeBytes = 0;
        long id = 0;
        while (h.Session.SendBacklogBytes < OutboundFlowControl.ReceivePauseThresholdBytes + 4096) SendOrder(h, ++id);
        Assert.True(h.Session.IsReceivePauseRequested);

        // The peer reads a little within the stall bound: still paused (it reads, just slowly).
        h.Now += OutboundFlowControl.BacklogStallNs / 2;
        h.Connection.FreeBytes = 200;
        h.Session.Poll(h.Now);
        Assert.True(h.Session.IsReceivePauseRequested);

        // Then nothing for longer than the bound: the request is withdrawn, so two sides waiting for each other to read
        // cannot deadlock.
        h.Now += OutboundFlowControl.BacklogStallNs;
        h.Session.Poll(h.Now);
        Assert.False(h.Session.IsReceivePauseRequested);

        // Draining again: every order leaves, and the request stays off once the backlog is small.
        h.Connection.FreeBytes = null;
        h.Session.Poll(h.Now);
        Assert.False(h.Session.IsReceivePauseRequested);
        Assert.Equal(0, h.Session.SendBacklogBytes);
        ExpectOrders(h, 1, id, seqOffset: 1);
    }

    [Fact]
    public void APauseWhileThePeerReadsDoesNotTimeOutThePeersHeartbeat()
    {
        using var h = new SessionHarness("FIX.4.4");
        h.Logon(heartBtInt: 30);
        h.Connection.FreeBytes = 0;
        long id = 0;
        while (h.Session.SendBacklogBytes < OutboundFlowControl.ReceivePauseThresholdBytes + 64 * 1024) SendOrder(h, ++id);
        Assert.True(h.Session.IsReceivePauseRequested);
        // 100 s (over 2.4 x HeartBtInt) in which we read nothing (paused) but the peer reads a little every half second.
        for (int step = 0; step < 200; step++)
        {
            h.Now += SessionHarness.Second / 2;
            h.Connection.FreeBytes = 300;
            h.Session.Poll(h.Now);
            Assert.True(h.Session.IsConnected, $"disconnected at {step / 2.0} s: {h.Connection.Reason}");
            Assert.True(h.Session.IsReceivePauseRequested);
        }
        Assert.False(h.Connection.Disconnected);
        h.Connection.FreeBytes = null;
        h.Session.Poll(h.Now);
        ExpectOrders(h, 1, id, seqOffset: 1);
        // Heartbeats went out behind the orders (we sent nothing else for 30 s at a time), but no TestRequest.
        while (h.Read < h.Connection.Sent.Count) Assert.Equal("0", h.Next()[35]);
    }

    [Fact]
    public void DisconnectDropsTheBacklogButTheStoreKeepsItForTheResend()
    {
        using var h = new SessionHarness("FIX.4.4", s => s with { ResetOnLogon = false });
        h.Logon();
        h.Connection.FreeBytes = 0;
        for (long id = 1; id <= 20; id++) SendOrder(h, id);
        h.Session.OnDisconnected("peer closed", h.Now);
        Assert.Equal(0, h.Session.SendBacklogBytes);

        h.Connect();
        h.Receive("35=A|34=2|98=0|108=30");
        h.Expect("A");
        h.Receive("35=2|34=3|7=2|16=21");
        ExpectOrders(h, 1, 20, seqOffset: 1, possDup: true);
        h.ExpectNothing();
    }
}

[Collection(nameof(AllocationMeasurement))]
public sealed class SendBackpressureAllocationTests
{
    [Fact]
    public void FillingAndDrainingTheBacklogAllocatesNothingAfterWarmUp()
    {
        using var h = new SessionHarness("FIX.4.4", s => s with { ResetOnLogon = false }, store: SessionHarness.ReservedStore());
        h.Logon();
        h.Connection.CaptureEnabled = false;
        long id = 0;
        long allocated = Allocations.Measure(() =>
        {
            h.Connection.FreeBytes = 0;
            for (int i = 0; i < 100; i++)
            {
                h.Session.Send(MsgTypes.NewOrderSingle, ++id, static (ref FixWriter w, scoped in long clOrdId) =>
                {
                    w.Write(FixTags.ClOrdID, clOrdId);
                    w.Write(FixTags.Symbol, "EURUSD"u8);
                }, h.Now);
            }
            h.Connection.FreeBytes = null;
            h.Session.Poll(h.Now);
        }, warmup: 20, iterations: 50);
        Assert.Equal(0, allocated);
        Assert.Equal(0, h.Session.SendBacklogBytes);
        Assert.True(h.Session.SendBackpressureCount > 0);
    }

    private static void SendSmallOrder(SessionHarness h, long id) =>
        h.Session.Send(MsgTypes.NewOrderSingle, id, static (ref FixWriter w, scoped in long clOrdId) =>
        {
            w.Write(FixTags.ClOrdID, clOrdId);
            w.Write(FixTags.Symbol, "EURUSD"u8);
        }, h.Now);

    [Fact]
    public void ReplayStepsAllocateNothingAfterWarmUp()
    {
        using var h = new SessionHarness("FIX.4.4", s => s with { ResetOnLogon = false }, store: SessionHarness.ReservedStore());
        h.Logon();
        h.Connection.CaptureEnabled = false;
        for (int i = 0; i < 2_000; i++) SendSmallOrder(h, i);
        int peerSeq = 2;
        // Each window: a ResendRequest for all 2,000 (its first step runs as it is received, unmeasured), then the
        // remaining steps from Poll, each one batch written to the transport.
        long calls = 0;
        long best = Allocations.BestWindow(
            prepare: () =>
            {
                h.Receive("35=2|34=" + peerSeq++ + "|7=2|16=0");
                calls = h.Connection.SendCalls;
            },
            window: () =>
            {
                while (h.Session.IsReplayPending) h.Session.Poll(h.Now);
            },
            rounds: 5);
        Assert.Equal(0, best);
        Assert.Equal(2_000 / FixSession.ReplayMessagesPerStep, h.Connection.SendCalls - calls);
    }

    [Fact]
    public void TheFirstBackpressureAfterPrewarmAllocatesNothing()
    {
        // Another session runs the path once first (JIT, first-use statics).
        using (var warm = new SessionHarness("FIX.4.4", s => s with { ResetOnLogon = false }))
        {
            warm.Logon();
            warm.Session.PrewarmSendBacklog();
            warm.Connection.FreeBytes = 0;
            for (int i = 0; i < 100; i++) SendSmallOrder(warm, i);
            warm.Connection.FreeBytes = null;
            warm.Session.Poll(warm.Now);
        }

        using var h = new SessionHarness("FIX.4.4", s => s with { ResetOnLogon = false });
        h.Logon();
        h.Connection.CaptureEnabled = false;
        Assert.Equal(0, h.Session.SendBacklogCapacityBytes);
        h.Session.PrewarmSendBacklog();
        Assert.True(h.Session.SendBacklogCapacityBytes >= 64 * 1024);

        h.Connection.FreeBytes = 0;
        long before = GC.GetAllocatedBytesForCurrentThread();
        for (int i = 0; i < 100; i++) SendSmallOrder(h, i);
        h.Connection.FreeBytes = null;
        h.Session.Poll(h.Now);
        long allocated = GC.GetAllocatedBytesForCurrentThread() - before;

        Assert.Equal(1, h.Session.SendBackpressureCount);
        Assert.Equal(0, h.Session.SendBacklogBytes);
        Assert.Equal(0, allocated);
    }
}
