using System;
using System.Collections.Generic;
using System.Text;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Session;
using FixEngine.Store;
using FixEngine.Testing;
using FixEngine.Tests.Session;
using FixEngine.Transport;

namespace FixEngine.Tests.Engine;

/// <summary>Issue 35: the agent's sweep passes a quiet session after one compare (FixSession.IsQuietAt; EngineAgent's
/// design note, "quiet sessions"). Each test runs the agent on this thread with a fake clock, a duty cycle a millisecond,
/// and checks that what a visit does still happens on time with the quiet visits in force: a Heartbeat at HeartBtInt, a
/// TestRequest at 1.2 x HeartBtInt after the peer's last message, the disconnect at 2.4 x, the logon and logout
/// timeouts, the session's end time and logout time, the new period's store reset, a handed-over message, a backlog
/// flushed and the receive pause lifted, a transport's close.</summary>
public sealed class QuietVisitTests
{
    private const long CycleNs = 1_000_000;
    private const long Ms = 1_000_000;
    private const long Second = 1_000_000_000L;

    [Fact]
    public void AnIdleSessionsVisitsPassAndItsHeartbeatTestRequestAndDisconnectComeOnTime()
    {
        using var rig = new Rig();
        long logonNs = rig.Clock.EpochNs;
        rig.LogOn(heartBtInt: 2);
        long visits = rig.Slot.ServiceVisits;
        long heartbeat = rig.RunUntilSent("0", 3 * Second) - logonNs;
        long testRequest = rig.RunUntilSent("1", 3 * Second) - logonNs;
        long disconnect = rig.RunUntil(() => !rig.Session.IsConnected, 3 * Second) - logonNs;
        long quiet = rig.Agent.QuietVisits;
        AssertAt(2 * Second, heartbeat, "Heartbeat");
        AssertAt(24 * Second / 10, testRequest, "TestRequest");
        AssertAt(48 * Second / 10, disconnect, "disconnect");
        // Every visit but those around the three events passed the session after the compare.
        long total = rig.Slot.ServiceVisits - visits;
        Assert.True(quiet > total * 9 / 10, $"{quiet} quiet visits of {total}");
    }

    [Fact]
    public void ThePeersMessageMovesTheTestRequestLater()
    {
        using var rig = new Rig();
        long logonNs = rig.Clock.EpochNs;
        rig.LogOn(heartBtInt: 2);
        rig.Run(1500 * Ms);
        long heardNs = rig.Clock.EpochNs;
        rig.Deliver(Peer("0", 2, heardNs, ""));
        long heartbeat = rig.RunUntilSent("0", 3 * Second) - logonNs;
        long testRequest = rig.RunUntilSent("1", 4 * Second) - heardNs;
        AssertAt(2 * Second, heartbeat, "Heartbeat");
        AssertAt(24 * Second / 10, testRequest, "TestRequest after the peer's Heartbeat");
    }

    [Theory]
    [InlineData(ConnectionType.Acceptor)]
    [InlineData(ConnectionType.Initiator)]
    public void WithoutALogonTheSessionDisconnectsAtLogonTimeout(ConnectionType type)
    {
        using var rig = new Rig(Settings(type) with { LogonTimeout = 3 });
        rig.Run(50 * Ms); // quiet while disconnected
        long connectedNs = rig.Clock.EpochNs;
        rig.Connect();
        Assert.Equal(type == ConnectionType.Initiator ? SessionState.LogonSent : SessionState.AwaitingLogon, rig.Session.State);
        long disconnect = rig.RunUntil(() => !rig.Session.IsConnected, 4 * Second) - connectedNs;
        AssertAt(3 * Second, disconnect, "logon timeout");
        Assert.True(rig.Agent.QuietVisits > 2_000, $"{rig.Agent.QuietVisits} quiet visits");
    }

    [Fact]
    public void AfterOurLogoutTheSessionDisconnectsAtLogoutTimeout()
    {
        using var rig = new Rig(Settings(ConnectionType.Acceptor) with { LogoutTimeout = 2 });
        rig.LogOn(heartBtInt: 30);
        rig.Run(500 * Ms);
        long logoutNs = rig.Clock.EpochNs;
        using (SessionScope scope = rig.Slot.Enter(rig.Clock.EpochNs)) rig.Session.Logout("bye", scope.EpochNs);
        Assert.Equal("5", rig.Connection.LastType);
        long disconnect = rig.RunUntil(() => !rig.Session.IsConnected, 3 * Second) - logoutNs;
        AssertAt(2 * Second, disconnect, "logout timeout");
        Assert.True(rig.Agent.QuietVisits > 1_500, $"{rig.Agent.QuietVisits} quiet visits");
    }

    [Fact]
    public void TheSessionLogsOutAtItsEndTime()
    {
        // 12:00:00 now; the session time ends at 12:00:05.
        using var rig = new Rig(Settings(ConnectionType.Acceptor) with { NonStopSession = false, StartTime = new TimeOnly(8, 0), EndTime = new TimeOnly(12, 0, 5) });
        long startNs = rig.Clock.EpochNs;
        rig.LogOn(heartBtInt: 30);
        long logout = rig.RunUntilSent("5", 6 * Second) - startNs;
        AssertAt(5 * Second, logout, "Logout at the end time", slack: 2 * CycleNs);
        Assert.True(rig.Agent.QuietVisits > 4_000, $"{rig.Agent.QuietVisits} quiet visits");
    }

    [Fact]
    public void TheSessionLogsOutAtItsLogoutTime()
    {
        using var rig = new Rig(Settings(ConnectionType.Acceptor) with
        {
            NonStopSession = false, StartTime = new TimeOnly(8, 0), EndTime = new TimeOnly(20, 0), LogonTime = new TimeOnly(8, 0), LogoutTime = new TimeOnly(12, 0, 3),
        });
        long startNs = rig.Clock.EpochNs;
        rig.LogOn(heartBtInt: 30);
        long logout = rig.RunUntilSent("5", 4 * Second) - startNs;
        AssertAt(3 * Second, logout, "Logout at the logout time", slack: 2 * CycleNs);
        Assert.True(rig.Agent.QuietVisits > 2_500, $"{rig.Agent.QuietVisits} quiet visits");
    }

    [Fact]
    public void ADisconnectedSessionsStoreIsResetWhenTheNextPeriodStarts()
    {
        // 12:00:00 now, outside the session time; the next period starts at 12:00:04.
        using var rig = new Rig(Settings(ConnectionType.Acceptor) with { NonStopSession = false, StartTime = new TimeOnly(12, 0, 4), EndTime = new TimeOnly(20, 0) });
        long startNs = rig.Clock.EpochNs;
        long created = rig.Session.Store.CreationTimeEpochNs;
        long reset = rig.RunUntil(() => rig.Session.Store.CreationTimeEpochNs != created, 5 * Second) - startNs;
        AssertAt(4 * Second, reset, "store reset at the period's start", slack: 2 * CycleNs);
        Assert.True(rig.Agent.QuietVisits > 3_500, $"{rig.Agent.QuietVisits} quiet visits");
    }

    [Fact]
    public void AMessageHandedOverToAQuietSessionIsSentOnTheNextDutyCycle()
    {
        using var rig = new Rig(sendersEnter: false);
        rig.LogOn(heartBtInt: 30);
        rig.Run(100 * Ms);
        long quiet = rig.Agent.QuietVisits;
        Assert.True(quiet > 90, $"{quiet} quiet visits");
        Assert.True(rig.Session.TrySendFromAnyThread(MsgTypes.NewOrderSingle, 0, static (ref FixWriter w, scoped in int _) => w.Write(FixTags.ClOrdID, "1"u8)));
        Assert.Equal("A", rig.Connection.LastType); // this thread never enters: the agent sends it
        rig.Cycle();
        Assert.Equal("D", rig.Connection.LastType);
    }

    // The race CompletionAllocationTests hit (a fill 30 s = HeartBtInt late): a Poll evaluates its span, a sender hands
    // a message over and empties the span, then the Poll writes its span. Built here with the test seam.
    [Fact]
    public void AQuietSpanWrittenAfterAHandOverDoesNotHideTheMessage()
    {
        using var rig = new Rig(sendersEnter: false);
        rig.LogOn(heartBtInt: 30);
        rig.Run(100 * Ms);
        Assert.True(rig.Session.TrySendFromAnyThread(MsgTypes.NewOrderSingle, 0, static (ref FixWriter w, scoped in int _) => w.Write(FixTags.ClOrdID, "1"u8)));
        rig.Session.SetQuietSpanForTesting(rig.Clock.EpochNs, rig.Clock.EpochNs + 30 * Second);
        Assert.False(rig.Session.IsQuietAt(rig.Clock.EpochNs + Ms));
        rig.Cycle();
        Assert.Equal("D", rig.Connection.LastType);
    }

    [Fact]
    public void ABacklogIsFlushedAndTheReceivePauseLiftedWhileTheSessionIsNotQuiet()
    {
        using var rig = new Rig();
        rig.LogOn(heartBtInt: 30);
        rig.Run(10 * Ms);
        // The transport takes nothing: 1.2 MB wait in the session's backlog, which asks to stop reading.
        rig.Connection.Full = true;
        string text = new('x', 4000);
        using (SessionScope scope = rig.Slot.Enter(rig.Clock.EpochNs))
        {
            for (int i = 0; i < 300; i++) rig.Session.Send(MsgTypes.NewOrderSingle, text, static (ref FixWriter w, scoped in string t) => w.Write(FixTags.Text, t), scope.EpochNs);
        }
        Assert.True(rig.Session.IsReceivePauseRequested);
        rig.Cycle();
        Assert.True(rig.Connection.ReceivePaused, "the agent did not pause the receive");
        rig.Run(50 * Ms);
        long quiet = rig.Agent.QuietVisits;
        rig.Connection.Full = false;
        rig.Cycle();
        Assert.Equal(300, rig.Connection.Count("D"));
        Assert.False(rig.Session.IsReceivePauseRequested);
        Assert.False(rig.Connection.ReceivePaused, "the agent did not lift the receive pause");
        Assert.Equal(quiet, rig.Agent.QuietVisits); // no visit passed while the backlog waited
        rig.Run(10 * Ms);
        Assert.True(rig.Agent.QuietVisits > quiet, "the session did not become quiet again");
    }

    [Fact]
    public void ATransportsCloseIsNoticedOnTheNextDutyCycle()
    {
        using var rig = new Rig();
        rig.LogOn(heartBtInt: 30);
        rig.Run(100 * Ms);
        rig.Connection.CloseByPeer(rig.Session);
        Assert.True(rig.Session.IsConnected);
        rig.Cycle();
        Assert.False(rig.Session.IsConnected);
    }

    [Fact]
    public void APeerMessageWhileQuietIsFollowedByAFullVisit()
    {
        using var rig = new Rig();
        rig.LogOn(heartBtInt: 30);
        rig.Run(100 * Ms);
        Assert.True(rig.Session.IsQuietAt(rig.Clock.EpochNs + CycleNs));
        rig.Deliver(Peer("0", 2, rig.Clock.EpochNs, ""));
        Assert.False(rig.Session.IsQuietAt(rig.Clock.EpochNs + CycleNs));
        long quiet = rig.Agent.QuietVisits;
        rig.Cycle();
        Assert.Equal(quiet, rig.Agent.QuietVisits);
        Assert.True(rig.Session.IsQuietAt(rig.Clock.EpochNs + CycleNs));
    }

    [Fact]
    public void NextDueNsIsWhereCheckFirstAnswers()
    {
        var random = new Random(35);
        for (int round = 0; round < 2_000; round++)
        {
            int hbi = random.Next(1, 40);
            var monitor = new HeartbeatMonitor(hbi);
            long t = random.NextInt64(0, 1_000) * Ms;
            monitor.Restart(t);
            // A random history of sends, receipts and TestRequests, each acted on as the session does.
            for (int step = 0; step < 5; step++)
            {
                t += random.NextInt64(0, hbi * 1_500L) * Ms;
                switch (random.Next(4))
                {
                    case 0: monitor.OnSent(t, admin: false); break;
                    case 1: monitor.OnReceived(t, admin: false); break;
                    case 2: if (monitor.Check(t) == HeartbeatDue.TestRequest) monitor.OnTestRequestSent(); break;
                }
            }
            long due = monitor.NextDueNs();
            Assert.True(due > t || monitor.Check(t) != HeartbeatDue.None, $"round {round}: due {due} before now {t} with nothing to do");
            if (due <= t) continue;
            Assert.Equal(HeartbeatDue.None, monitor.Check(due - 1));
            Assert.Equal(HeartbeatDue.None, monitor.Check(t + (due - t) / 2));
            Assert.NotEqual(HeartbeatDue.None, monitor.Check(due));
        }
        Assert.Equal(long.MaxValue, new HeartbeatMonitor(0).NextDueNs());
    }

    // Parking until the next deadline (issue 32; EngineAgent's design note, parking): the rig's "parked" cycles advance the
    // clock to the agent's NextDeadlineNs, as the runner's park does, with the longest park out of the way.

    [Fact]
    public void AQuietAgentParksUntilTheHeartbeatTestRequestAndDisconnectAndNotLonger()
    {
        using var rig = new Rig();
        rig.Agent.MaxParkNs = 3_600 * Second;
        long logonNs = rig.Clock.EpochNs;
        rig.LogOn(heartBtInt: 2);
        // The deadline is the Heartbeat's: HeartBtInt after the Logon reply, not the longest park, not a millisecond.
        Assert.Equal(rig.Clock.NowNs + (logonNs + 2 * Second - rig.Clock.EpochNs), rig.Agent.NextDeadlineNs);
        int cycles = 0;
        long heartbeat = rig.RunParkedUntil(() => rig.Connection.Types.Contains("0"), 3 * Second, ref cycles) - logonNs;
        long testRequest = rig.RunParkedUntil(() => rig.Connection.Types.Contains("1"), 3 * Second, ref cycles) - logonNs;
        long disconnect = rig.RunParkedUntil(() => !rig.Session.IsConnected, 3 * Second, ref cycles) - logonNs;
        AssertAt(2 * Second, heartbeat, "Heartbeat", slack: 0);
        AssertAt(24 * Second / 10, testRequest, "TestRequest", slack: 0);
        AssertAt(48 * Second / 10, disconnect, "disconnect", slack: 0);
        // One duty cycle per event: the agent never woke for nothing in 4.8 s (it did 4,800 times at a 1 ms park).
        Assert.Equal(3, cycles);
        // Disconnected, nothing is ever due: the longest park.
        Assert.Equal(rig.Clock.NowNs + 3_600 * Second, rig.Agent.NextDeadlineNs);
    }

    [Fact]
    public void AParkedAgentDisconnectsASessionWithoutALogonAtLogonTimeout()
    {
        using var rig = new Rig(Settings(ConnectionType.Acceptor) with { LogonTimeout = 3 });
        rig.Agent.MaxParkNs = 3_600 * Second;
        long connectedNs = rig.Clock.EpochNs;
        rig.Connect();
        int cycles = 0;
        long disconnect = rig.RunParkedUntil(() => !rig.Session.IsConnected, 4 * Second, ref cycles) - connectedNs;
        AssertAt(3 * Second, disconnect, "logon timeout", slack: 0);
        Assert.True(cycles <= 2, $"{cycles} duty cycles");
    }

    [Fact]
    public void WithoutDeadlinesTheAgentParksTheLongestParkAndABusyPollSessionKeepsItShort()
    {
        using (var rig = new Rig())
        {
            rig.Cycle();
            Assert.Equal(rig.Clock.NowNs + EngineAgent.DefaultMaxParkNs, rig.Agent.NextDeadlineNs);
            rig.Agent.MaxParkNs = 100_000_000L;
            rig.Cycle();
            Assert.Equal(rig.Clock.NowNs + 100_000_000L, rig.Agent.NextDeadlineNs);
        }
        using (var busy = new Rig(guarded: false))
        {
            busy.Agent.MaxParkNs = 100_000_000L;
            busy.Cycle();
            Assert.Equal(busy.Clock.NowNs + EngineAgent.ShortParkNs, busy.Agent.NextDeadlineNs);
        }
    }

    [Fact]
    public void EveryRouteThatHandsTheAgentWorkWakesItFromItsPark()
    {
        using var rig = new Rig(sendersEnter: false);
        rig.Agent.MaxParkNs = 3_600 * Second;
        rig.LogOn(heartBtInt: 30);
        Assert.True(rig.Agent.NextDeadlineNs - rig.Clock.NowNs > 20 * Second, "the agent should park until the Heartbeat");

        // A message handed over from an application thread: the agent wakes and sends it on its next duty cycle.
        AssertWakes(rig, "hand-over", () => Assert.True(rig.Session.TrySendFromAnyThread(MsgTypes.NewOrderSingle, 0,
            static (ref FixWriter w, scoped in int _) => w.Write(FixTags.ClOrdID, "1"u8))));
        rig.Cycle();
        Assert.Equal("D", rig.Connection.LastType);

        // A session left with a backlog by another thread (only the agent's Poll flushes it): woken, and it polls again
        // within ShortParkNs while the backlog waits.
        rig.Connection.Full = true;
        AssertWakes(rig, "backlog", () =>
        {
            using SessionScope scope = rig.Slot.Enter(rig.Clock.EpochNs);
            rig.Session.Send(MsgTypes.NewOrderSingle, "2", static (ref FixWriter w, scoped in string id) => w.Write(FixTags.ClOrdID, id), scope.EpochNs);
        });
        rig.Cycle();
        Assert.Equal(rig.Clock.NowNs + EngineAgent.ShortParkNs, rig.Agent.NextDeadlineNs);
        rig.Connection.Full = false;
        rig.Cycle();
        Assert.Equal(2, rig.Connection.Count("D"));

        // An operator's command, a session added on the running engine.
        var command = new SessionCommand<int>(rig.Slot, static (_, _) => 1);
        AssertWakes(rig, "command", () => Assert.True(rig.Agent.TrySubmit(command)));
        var added = new FixSession(Settings(ConnectionType.Acceptor) with { TargetCompID = "C2" }, new EchoApp(), new MemoryMessageStore(rig.Clock.EpochNs));
        try
        {
            var change = new SessionChange(new SessionSlot(added, guarded: true), remove: false);
            AssertWakes(rig, "session change", () => rig.Agent.Submit(change));
            rig.Cycle();
            Assert.True(command.Task.IsCompletedSuccessfully && change.Done.IsSet);

            // The transport closed by the peer, then the stop.
            AssertWakes(rig, "transport close", () => rig.Connection.CloseByPeer(rig.Session));
            rig.Cycle();
            Assert.False(rig.Session.IsConnected);
            AssertWakes(rig, "stop", () => rig.Agent.BeginStop());
            rig.Cycle();
            Assert.True(rig.Agent.AllLoggedOut);
        }
        finally
        {
            added.Dispose();
        }
    }

    // The agent parks (the rig's wakeup holds no signal), then the route runs: it must have signalled the wakeup.
    private static void AssertWakes(Rig rig, string route, Action act)
    {
        rig.Wakeup.Park(0);
        Assert.False(rig.Wakeup.IsSignalled);
        act();
        Assert.True(rig.Wakeup.IsSignalled, route + " did not wake the agent");
    }

    private static void AssertAt(long dueNs, long atNs, string what, long slack = CycleNs) =>
        Assert.True(atNs >= dueNs && atNs <= dueNs + slack, $"{what} at {atNs / 1_000} µs, due at {dueNs / 1_000} µs");

    private static SessionSettings Settings(ConnectionType type) => new()
    {
        ConnectionType = type, BeginString = "FIX.4.4", SenderCompID = "EXEC", TargetCompID = "C1",
        SocketAcceptPort = type == ConnectionType.Acceptor ? 7001 : null,
        SocketConnectHost = type == ConnectionType.Initiator ? "127.0.0.1" : null,
        SocketConnectPort = type == ConnectionType.Initiator ? 7001 : null,
        NonStopSession = true, UseDataDictionary = false, HeartBtInt = type == ConnectionType.Initiator ? 30 : null,
    };

    private static byte[] Peer(string msgType, int seq, long epochNs, string fields)
    {
        string time = DateTime.UnixEpoch.AddTicks(epochNs / 100).ToString("yyyyMMdd-HH:mm:ss.fff", System.Globalization.CultureInfo.InvariantCulture);
        string body = $"35={msgType}\u000149=C1\u000156=EXEC\u000134={seq}\u000152={time}\u0001{fields}";
        string head = $"8=FIX.4.4\u00019={body.Length}\u0001";
        int sum = 0;
        foreach (char ch in head + body) sum += ch;
        return Encoding.ASCII.GetBytes(head + body + "10=" + (sum % 256).ToString("D3", System.Globalization.CultureInfo.InvariantCulture) + "\u0001");
    }

    /// <summary>One gated session (as completion-mode sessions are) on an engine agent, on a fake clock at 12:00:00 UTC.</summary>
    private sealed class Rig : IDisposable
    {
        private readonly FixEngine.Timing.IdleWakeup _wakeup = new();

        public Rig(SessionSettings? settings = null, bool sendersEnter = true, bool guarded = true)
        {
            Clock = new FakeClock(nowNs: 1_000_000_000L, epochNs: new DateTimeOffset(2026, 1, 5, 12, 0, 0, TimeSpan.Zero).ToUnixTimeMilliseconds() * 1_000_000L);
            Agent = new EngineAgent([], new EpochAnchor(Clock), new EngineConsole(null), logonTimeoutSeconds: 10, wakeup: _wakeup);
            Session = new FixSession(settings ?? Settings(ConnectionType.Acceptor), new EchoApp(), new MemoryMessageStore(Clock.EpochNs));
            Session.AgentWakeup = _wakeup;
            Slot = new SessionSlot(Session, guarded, sendersEnter ? () => Clock.EpochNs : null);
            SessionSlot slot = Slot;
            Session.AgentServiceRequest = () => Agent.RequestService(slot);
            Agent.AddInitial(Slot);
            Agent.DoWork(Clock.NowNs);
        }

        public FakeClock Clock { get; }

        public FixEngine.Timing.IdleWakeup Wakeup => _wakeup;

        /// <summary>One duty cycle at the agent's deadline, as the runner's park until it (at least 1 µs later).</summary>
        public void Parked(ref int cycles)
        {
            Clock.Advance(Math.Max(1_000, Agent.NextDeadlineNs - Clock.NowNs));
            Agent.DoWork(Clock.NowNs);
            cycles++;
        }

        /// <summary>Parked duty cycles until <paramref name="done"/>; returns the epoch time of the cycle that did it.</summary>
        public long RunParkedUntil(Func<bool> done, long maxNs, ref int cycles)
        {
            long end = Clock.NowNs + maxNs;
            while (!done())
            {
                Assert.True(Clock.NowNs < end, "not within " + maxNs / 1_000_000 + " ms");
                Parked(ref cycles);
            }
            return Clock.EpochNs;
        }

        public EngineAgent Agent { get; }

        public FixSession Session { get; }

        public SessionSlot Slot { get; }

        public TestConnection Connection { get; private set; } = null!;

        public void Connect()
        {
            Connection = new TestConnection();
            using SessionScope scope = Slot.Enter(Clock.EpochNs);
            Slot.Connect(Connection, scope.EpochNs);
        }

        public void LogOn(int heartBtInt)
        {
            Connect();
            Deliver(Peer("A", 1, Clock.EpochNs, "98=0\u0001108=" + heartBtInt + "\u0001"));
            Assert.True(Session.IsLoggedOn);
            Cycle();
        }

        public void Deliver(byte[] message)
        {
            using SessionScope scope = Slot.Enter(Clock.EpochNs);
            Session.OnMessage(message, scope.EpochNs);
        }

        public void Cycle()
        {
            Clock.Advance(CycleNs);
            Agent.DoWork(Clock.NowNs);
        }

        public void Run(long ns)
        {
            long end = Clock.NowNs + ns;
            while (Clock.NowNs < end) Cycle();
        }

        /// <summary>Runs duty cycles until <paramref name="done"/>; returns the epoch time of the cycle that did it.</summary>
        public long RunUntil(Func<bool> done, long maxNs)
        {
            long end = Clock.NowNs + maxNs;
            while (!done())
            {
                Assert.True(Clock.NowNs < end, "not within " + maxNs / 1_000_000 + " ms");
                Cycle();
            }
            return Clock.EpochNs;
        }

        public long RunUntilSent(string msgType, long maxNs)
        {
            int seen = Connection.Types.Count;
            return RunUntil(() => Connection.Types.Count > seen && Connection.Types.IndexOf(msgType, seen) >= 0, maxNs);
        }

        public void Dispose()
        {
            Session.Dispose();
            _wakeup.Dispose();
        }
    }

    /// <summary>The engine's view of a connection (as SessionConnection gives it), without a socket: it records the
    /// MsgType of what it is sent, refuses everything while <see cref="Full"/>, and keeps the receive pause the agent sets.</summary>
    private sealed class TestConnection : IEngineConnection
    {
        public List<string> Types { get; } = [];

        public bool Full { get; set; }

        public bool ReceivePaused { get; private set; }

        public string LastType => Types[^1];

        public int Count(string msgType) => Types.FindAll(t => t == msgType).Count;

        public bool Guarded => true;

        public SessionSlot? Slot { get; set; }

        public bool IsClosed { get; private set; }

        public string CloseReason => "closed by the test";

        public string RemoteEndPoint => "test";

        public SendResult Send(ReadOnlySpan<byte> message)
        {
            if (IsClosed) return SendResult.Closed;
            if (Full) return SendResult.Backpressure;
            while (!message.IsEmpty)
            {
                FrameResult frame = FixFramer.Frame(message, int.MaxValue);
                int length = frame.IsComplete ? frame.Length : message.Length;
                string text = Encoding.ASCII.GetString(message.Slice(0, length));
                int start = text.IndexOf("\u000135=", StringComparison.Ordinal) + 4;
                Types.Add(text.Substring(start, text.IndexOf('\u0001', start) - start));
                message = message.Slice(length);
            }
            return SendResult.Sent;
        }

        public void Disconnect(string reason) => IsClosed = true;

        public void Close(string reason) => IsClosed = true;

        /// <summary>The transport closes on its own (the peer went away) and tells the session, as SessionConnection does.</summary>
        public void CloseByPeer(FixSession session)
        {
            IsClosed = true;
            session.OnTransportClosed();
        }

        public void ReleaseAdmission()
        {
        }

        public void OnBound(FixSession session, bool prewarm)
        {
        }

        public void SyncReceivePause(FixSession session) => ReceivePaused = session.IsReceivePauseRequested;
    }
}
