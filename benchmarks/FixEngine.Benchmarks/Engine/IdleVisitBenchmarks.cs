using System;
using System.Collections.Generic;
using System.Text;
using BenchmarkDotNet.Attributes;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Session;
using FixEngine.Store;
using FixEngine.Transport;

namespace FixEngine.Benchmarks.Engine;

/// <summary>Cost of the engine agent's visit of one idle logged-on session (issue 35: CPU per idle session): the
/// agent's paced sweep visits every session once per sweep interval (at most 100 ms) to run its timers, whether or not
/// any is due. <see cref="Sessions"/> gated acceptor sessions (as completion-mode sessions are), logged on with
/// HeartBtInt=3600 (each peer sends a Heartbeat every 1,800 s of the agent's clock, so a visit finds a timer due once
/// in 36,000); each sweep moves the agent's clock on by
/// 100 ms (and a millisecond at a time after that, when the paced slices' credit runs short) and runs duty cycles until
/// it has visited every session once (slices of at most
/// <see cref="EngineAgent.MaxSliceItems"/>), so a visit is one session in a list of <see cref="Sessions"/>: with
/// 10,000 their objects no longer fit in the caches, as at scale.</summary>
/// <remarks>
/// <para>The connections are the benchmark's (a closed flag and a receive-pause flag in a separate object, as the
/// transport's are); the engine's own connection objects are visited separately by the sweep and are not measured.</para>
/// <para>Run: <c>dotnet benchmarks/FixEngine.Benchmarks/bin/Release/net10.0/FixEngine.Benchmarks.dll --filter '*IdleVisitBenchmarks*' --job short</c>.
/// Results: docs/benchmarks/2026-12-06-scale.md, "2026-12-07: an idle session's visit".</para>
/// </remarks>
[MemoryDiagnoser]
public class IdleVisitBenchmarks
{
    private const long StepNs = 100_000_000L;
    private const int HeartBtInt = 3600;

    private BenchClock _clock = null!;
    private EngineAgent _agent = null!;
    private List<SessionSlot> _slots = null!;
    private IdleConnection[] _connections = null!;
    private FixEngine.Timing.IdleWakeup _wakeup = null!;
    private long _startEpochNs;
    private long _peerHeardEpochNs;
    private int _peerSeq = 1;

    /// <summary>Sessions on the agent (1,000: their objects mostly in the caches; 10,000: as at scale).</summary>
    [Params(1_000, 10_000)]
    public int Sessions { get; set; } = 10_000;

    [GlobalSetup]
    public void Setup()
    {
        _clock = new BenchClock(nowNs: 1_000_000_000L, epochNs: new DateTimeOffset(2026, 1, 5, 12, 0, 0, TimeSpan.Zero).ToUnixTimeMilliseconds() * 1_000_000L);
        _startEpochNs = _clock.EpochNs;
        _peerHeardEpochNs = _clock.EpochNs;
        _wakeup = new FixEngine.Timing.IdleWakeup();
        _slots = new List<SessionSlot>(Sessions);
        _agent = new EngineAgent(_slots, new EpochAnchor(_clock), new EngineConsole(null), logonTimeoutSeconds: 10, wakeup: _wakeup);
        _connections = new IdleConnection[Sessions];
        for (int i = 0; i < Sessions; i++)
        {
            var session = new FixSession(new SessionSettings
            {
                ConnectionType = ConnectionType.Acceptor, BeginString = "FIX.4.4", SenderCompID = "EXEC", TargetCompID = "C" + i,
                SocketAcceptPort = 7001, NonStopSession = true, UseDataDictionary = false,
            }, new NullApplication(), new MemoryMessageStore(0));
            session.AgentWakeup = _wakeup;
            var slot = new SessionSlot(session, guarded: true, () => _clock.EpochNs);
            session.AgentServiceRequest = () => _agent.RequestService(slot);
            _agent.AddInitial(slot);
            _connections[i] = new IdleConnection();
            using SessionScope scope = slot.Enter(_clock.EpochNs);
            slot.Connect(_connections[i], scope.EpochNs);
            slot.Session.OnMessage(Message("A", "C" + i, 1, _clock.EpochNs, "98=0\u0001108=" + HeartBtInt + "\u0001"), scope.EpochNs);
            if (!slot.Session.IsLoggedOn) throw new InvalidOperationException($"session {i} did not log on");
        }
        _agent.DoWork(_clock.NowNs); // the first duty cycle sweeps all; later ones are slices
        RunSweep();
    }

    /// <summary>One sweep: every session visited once, 100 ms of the agent's clock after the last.</summary>
    [Benchmark(OperationsPerInvoke = 10_000)]
    public long IdleVisit()
    {
        // OperationsPerInvoke is a constant: a smaller Sessions is swept as often as makes 10,000 visits.
        long visits = 0;
        for (int n = 0; n < 10_000 / Sessions; n++) visits += RunSweep();
        return visits;
    }

    private long RunSweep()
    {
        long before = _agent.SliceVisits;
        _clock.Advance(StepNs);
        if (_clock.EpochNs - _peerHeardEpochNs >= HeartBtInt * 1_000_000_000L / 2) PeerHeartbeats();
        // The credit of one interval pays for every item; each duty cycle visits a slice of it. The interval follows
        // the real cost of the last sweep, so the credit may run short: the clock then moves on a millisecond.
        while (_agent.SliceVisits - before < Sessions)
        {
            long visits = _agent.SliceVisits;
            _agent.DoWork(_clock.NowNs);
            if (_agent.SliceVisits == visits) _clock.Advance(1_000_000L);
        }
        return _agent.SliceVisits - before;
    }

    // Every half HeartBtInt of the agent's clock (once in 18,000 sweeps) each peer sends a Heartbeat, so a long run
    // stays logged on; our side sends its own Heartbeat every HeartBtInt, as an idle session does.
    private void PeerHeartbeats()
    {
        _peerSeq++;
        for (int i = 0; i < _slots.Count; i++)
        {
            SessionSlot slot = _slots[i];
            using SessionScope scope = slot.Enter(_clock.EpochNs);
            slot.Session.OnMessage(Message("0", "C" + i, _peerSeq, _clock.EpochNs, ""), scope.EpochNs);
        }
        _peerHeardEpochNs = _clock.EpochNs;
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        // The measurement is of idle logged-on sessions: every one must still be logged on.
        long ranNs = _clock.EpochNs - _startEpochNs;
        foreach (SessionSlot slot in _slots)
        {
            if (!slot.Session.IsLoggedOn) throw new InvalidOperationException($"{slot.Session.Id} is {slot.Session.State} after {ranNs / 1_000_000_000} s of the agent's clock");
        }
        foreach (SessionSlot slot in _slots) slot.Session.Dispose();
        _wakeup.Dispose();
    }

    private static byte[] Message(string msgType, string sender, int seq, long epochNs, string fields)
    {
        string time = DateTime.UnixEpoch.AddTicks(epochNs / 100).ToString("yyyyMMdd-HH:mm:ss.fff", System.Globalization.CultureInfo.InvariantCulture);
        string body = $"35={msgType}\u000149={sender}\u000156=EXEC\u000134={seq}\u000152={time}\u0001{fields}";
        string head = $"8=FIX.4.4\u00019={body.Length}\u0001";
        int sum = 0;
        foreach (char ch in head + body) sum += ch;
        return Encoding.ASCII.GetBytes(head + body + "10=" + (sum % 256).ToString("D3", System.Globalization.CultureInfo.InvariantCulture) + "\u0001");
    }

    private sealed class BenchClock(long nowNs, long epochNs) : FixEngine.Timing.IClock
    {
        private long _nowNs = nowNs;
        private long _epochNs = epochNs;

        public long NowNs => _nowNs;

        public long EpochNs => _epochNs;

        public void Advance(long deltaNs)
        {
            _nowNs += deltaNs;
            _epochNs += deltaNs;
        }
    }

    // The transport's state the agent reads on a visit, in its own object as a transport's is.
    private sealed class TransportState
    {
        public bool Closing;
        public bool ReceivePaused;
    }

    /// <summary>A connection that takes what it is sent (the Logon reply) and counts it; the engine's view of it as
    /// <see cref="SessionConnection"/> gives it, without a socket.</summary>
    private sealed class IdleConnection : IEngineConnection
    {
        private readonly TransportState _transport = new();

        public long SentCount { get; private set; }

        public bool Guarded => true;

        public SessionSlot? Slot { get; set; }

        public bool IsClosed => _transport.Closing;

        public string CloseReason => "closed";

        public string RemoteEndPoint => "bench";

        public SendResult Send(ReadOnlySpan<byte> message)
        {
            SentCount++;
            return SendResult.Sent;
        }

        public void Disconnect(string reason) => _transport.Closing = true;

        public void Close(string reason) => _transport.Closing = true;

        public void ReleaseAdmission()
        {
        }

        public void OnBound(FixSession session, bool prewarm)
        {
        }

        public void SyncReceivePause(FixSession session)
        {
            bool paused = session.IsReceivePauseRequested;
            if (paused != _transport.ReceivePaused) _transport.ReceivePaused = paused;
        }
    }

    private sealed class NullApplication : IApplication
    {
        public FromAppResult FromApp(FixSession session, FixEngine.Codec.FixMessage message) => FromAppResult.Accepted;
    }
}
