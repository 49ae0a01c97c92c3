using System;
using System.Collections.Generic;
using System.Threading;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Session;
using FixEngine.Tests.Infrastructure;
using FixEngine.Timing;
using static FixEngine.Tests.Engine.EngineTestSupport;

namespace FixEngine.Tests.Engine;

public sealed class CompletionModeTests
{
    private static IReadOnlyList<SessionSettings> Acceptor(int port, string extra = "", string mode = "Completion") => SettingsFile.Parse($"""
        [DEFAULT]
        ConnectionType=acceptor
        SocketAcceptPort={port}
        NonStopSession=Y
        UseDataDictionary=N
        ResetOnLogon=Y
        ReceiveMode={mode}
        IdleStrategy=Yielding
        {extra}
        [SESSION]
        BeginString=FIX.4.4
        SenderCompID=EXEC
        TargetCompID=CLIENT
        """, "acceptor");

    private static IReadOnlyList<SessionSettings> Initiator(int port, int heartBtInt = 30, string extra = "", string mode = "Completion") => SettingsFile.Parse($"""
        [DEFAULT]
        ConnectionType=initiator
        SocketConnectHost=127.0.0.1
        SocketConnectPort={port}
        HeartBtInt={heartBtInt}
        ReconnectInterval=1
        NonStopSession=Y
        UseDataDictionary=N
        ResetOnLogon=Y
        ReceiveMode={mode}
        IdleStrategy=Yielding
        {extra}
        [SESSION]
        BeginString=FIX.4.4
        SenderCompID=CLIENT
        TargetCompID=EXEC
        """, "initiator");

    [Theory]
    [InlineData("Completion")]
    [InlineData("Dedicated")]
    public void CompletionModeAcceptorAndInitiatorRoundTripTenThousandOrdersInOrder(string mode)
    {
        const int Orders = 10_000;
        int port = 0;
        var filler = new FillerApp();
        var client = new ClientApp();
        using var acceptor = new FixEngineHost(Acceptor(port, mode: mode), filler);
        acceptor.Start();
        port = EngineTestSupport.PortOf(acceptor);
        using var initiator = new FixEngineHost(Initiator(port, mode: mode), client);
        initiator.Start();
        Assert.True(client.LoggedOn.Wait(Wait), "initiator did not log on");
        Assert.True(filler.LoggedOn.Wait(Wait), "acceptor did not log on");
        FixSession session = client.Session!;

        // Pipelined: the orders go through the initiator's outbox (drained by its agent) while fills come back on
        // completion threads on both sides.
        for (int i = 0; i < Orders; i++) SendOrder(session, i);
        Assert.True(WaitFor(() => Volatile.Read(ref client.Fills) == Orders), $"{Volatile.Read(ref client.Fills)} of {Orders} fills");

        initiator.Stop(TimeSpan.FromSeconds(5));
        FixSession acceptorSession = acceptor.Sessions[0];
        Assert.False(session.IsConnected, "initiator state " + session.State);
        Assert.True(WaitFor(() => Volatile.Read(ref filler.Logouts) == 1), "the logout handshake did not reach the acceptor");

        Assert.Equal(Orders, filler.Orders);
        filler.AssertClean();
        client.AssertClean();
        Assert.Equal(1, filler.Logons);
        Assert.Equal(1, client.Logons);
        Assert.Equal(1, filler.CountAdmin("5"));
        Assert.Equal(1, client.CountAdmin("5"));
        // Logon + orders (+ heartbeats, none expected at HeartBtInt=30) + Logout, with no number lost or reused.
        Assert.Equal(session.NextSenderMsgSeqNum, acceptorSession.NextTargetMsgSeqNum);
        Assert.Equal(acceptorSession.NextSenderMsgSeqNum, session.NextTargetMsgSeqNum);
        Assert.True(session.NextSenderMsgSeqNum >= Orders + 3, "initiator next sender " + session.NextSenderMsgSeqNum);
    }

    /// <summary>
    /// Timers and inbound processing of one completion-mode session run on different threads (agent, completion threads);
    /// with HeartBtInt=1 on a fake clock advanced one 1.05 s step per round trip, every step fires both agents' heartbeat
    /// timers while orders, fills, TestRequests and outbox News race them, and both sessions must keep their sequence
    /// numbers intact: no gap, no duplicate, no ResendRequest, Reject or Logout. The test waits for the initiator's heartbeat
    /// every <paramref name="heartbeatEvery"/> steps and hands a TestRequest over every <paramref name="testRequestEvery"/>
    /// steps (1, 1: every step, so the hand-off races the clock 300 times).
    /// </summary>
    [Theory]
    [InlineData("Completion", 7, 10)]
    [InlineData("Dedicated", 7, 10)]
    [InlineData("Completion", 1, 1)]
    public void TimersInterleaveWithInboundWithoutCorruptingSequenceNumbers(string mode, int heartbeatEvery, int testRequestEvery)
    {
        const int Steps = 300;
        const int News = 1_000;
        long epoch = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds() * 1_000_000L;
        var clock = new FakeClock(nowNs: 1_000_000_000_000L, epochNs: epoch);
        int port = 0;
        var filler = new FillerApp();
        var client = new ClientApp();
        using var acceptor = new FixEngineHost(Acceptor(port, mode: mode), filler, new EngineOptions { Clock = clock });
        acceptor.Start();
        port = EngineTestSupport.PortOf(acceptor);
        using var initiator = new FixEngineHost(Initiator(port, heartBtInt: 1, mode: mode), client, new EngineOptions { Clock = clock });
        initiator.Start();
        Assert.True(client.LoggedOn.Wait(Wait), "initiator did not log on");
        Assert.True(filler.LoggedOn.Wait(Wait), "acceptor did not log on");
        FixSession session = client.Session!;
        FixSession acceptorSession = filler.Session!;
        Assert.Equal(1, acceptorSession.HeartBtIntSec);

        // A second producer on the acceptor session: its outbox is drained by the acceptor's agent while the acceptor's
        // completion threads send fills and Heartbeats on the same session.
        var newsThread = new Thread(() =>
        {
            for (long n = 0; n < News; n++)
            {
                while (!acceptorSession.TrySendFromAnyThread(MsgTypes.News, n, static (ref FixWriter w, scoped in long headline) => w.Write(FixTags.Headline, headline)))
                {
                    Thread.Yield();
                }
                if ((n & 7) == 0) Thread.Yield();
            }
        }) { IsBackground = true, Name = "news-producer" };
        newsThread.Start();

        int testRequests = 0;
        // Heartbeats the acceptor had seen before the last clock advance: the heartbeat that advance makes due may arrive
        // before the next step starts (a test thread descheduled for a millisecond under load), so the count is taken
        // before the advance, not after it (read after it, the wait below would wait for a second heartbeat that the
        // frozen clock never makes due).
        int heartbeatsBeforeAdvance = 0;
        for (int i = 0; i < Steps; i++)
        {
            if (i > 0 && i % heartbeatEvery == heartbeatEvery - 1)
            {
                // Now and then let the initiator's heartbeat timer win the race with the next order, so both timers are seen.
                int heartbeats = heartbeatsBeforeAdvance;
                Assert.True(WaitFor(() => Volatile.Read(ref filler.HeartbeatsWithoutTestReqId) > heartbeats),
                    $"the initiator's heartbeat timer did not fire (step {i}; its last send {session.LastSentEpochNs - clock.EpochNs} ns from the clock, "
                    + $"{client.HeartbeatsWithTestReqId} of {testRequests} TestRequests answered)");
            }
            SendOrder(session, i);
            if (i % testRequestEvery == 0)
            {
                testRequests++;
                while (!session.TrySendFromAnyThread(MsgTypes.TestRequest, i, static (ref FixWriter w, scoped in int id) => w.Write(FixTags.TestReqID, id)))
                {
                    Thread.Yield();
                }
            }
            int expected = i + 1;
            Assert.True(WaitFor(() => Volatile.Read(ref client.Fills) >= expected), $"no fill for order {i}; client {client.Problems.Count} problems, acceptor state {acceptorSession.State}");
            // Between steps nobody has been silent for more than 1.05 s, so no TestRequest timer or heartbeat timeout fires,
            // but every step passes HeartBtInt (1 s) since each side last sent: heartbeats race the next order and fill.
            // Everything this step handed over must be out before the clock moves. TrySendFromAnyThread may return before
            // its message is sent (the thread in the session, or the agent, sends it), and a TestRequest sent after the
            // advance is sent at the new time: the initiator then has no heartbeat due until the next advance, which
            // waits for that heartbeat (reproduced by delaying the agent: the wait at step 111 failed with the initiator's last
            // send 0 ns from the frozen clock). The order is out (its fill came back); the TestRequest once it is answered.
            int answered = testRequests;
            Assert.True(WaitFor(() => Volatile.Read(ref client.HeartbeatsWithTestReqId) >= answered), $"{client.HeartbeatsWithTestReqId} of {answered} TestRequests answered by step {i}");
            heartbeatsBeforeAdvance = Volatile.Read(ref filler.HeartbeatsWithoutTestReqId);
            clock.Advance(1_050_000_000L);
        }
        Assert.True(newsThread.Join(Wait), "news producer stuck");
        Assert.True(WaitFor(() => Volatile.Read(ref client.News) == News), $"{Volatile.Read(ref client.News)} of {News} news");
        Assert.True(WaitFor(() => client.HeartbeatsWithTestReqId == testRequests), $"{client.HeartbeatsWithTestReqId} of {testRequests} TestRequests answered");

        Assert.True(session.IsLoggedOn && acceptorSession.IsLoggedOn, $"initiator {session.State}, acceptor {acceptorSession.State}");
        // Epoch time is derived from the fake monotonic time with one anchor: the agents' time is the fake epoch exactly.
        Assert.True(WaitFor(() => session.EpochNs == clock.EpochNs && acceptorSession.EpochNs == clock.EpochNs), $"session times {session.EpochNs}, {acceptorSession.EpochNs} vs clock {clock.EpochNs}");
        Assert.True(filler.HeartbeatsWithoutTestReqId > 0, "the initiator's heartbeat timer never fired");
        Assert.True(client.HeartbeatsWithoutTestReqId > 0, "the acceptor's heartbeat timer never fired");
        initiator.Stop(TimeSpan.FromSeconds(5));
        Assert.True(WaitFor(() => Volatile.Read(ref filler.Logouts) == 1), "the logout handshake did not reach the acceptor");
        filler.AssertClean();
        client.AssertClean();
        Assert.Equal(1, filler.Logons);
        Assert.Equal(1, client.Logons);
        Assert.Equal(Steps, filler.Orders);
        Assert.Equal(session.NextSenderMsgSeqNum, acceptorSession.NextTargetMsgSeqNum);
        Assert.Equal(acceptorSession.NextSenderMsgSeqNum, session.NextTargetMsgSeqNum);
    }
}
