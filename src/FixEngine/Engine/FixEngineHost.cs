using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Net;
using System.Net.Sockets;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Hosting;
using FixEngine.Session;
using FixEngine.Timing;
using FixEngine.Transport;

namespace FixEngine.Engine;

/// <summary>Runs FIX sessions on sockets: acceptors (many sessions per port, routed by CompIDs) and initiators (reconnect, failover).</summary>
/// <remarks>
/// Design: one engine agent (an <see cref="AgentRunner"/> thread, idle strategy and CPU affinity from the settings)
/// owns every session and socket. Its duty cycle drains the queue of newly accepted/connected sockets, polls each
/// busy-poll <see cref="TcpConnection"/> (which frames bytes and calls the session inline), then runs each session's
/// timers and cross-thread outbox. Accepting runs on a <see cref="TcpAcceptor"/> per listening port (SAEA accept
/// completions); connecting runs on the thread pool (<see cref="TcpConnector.ConnectAsync"/>); both hand connections to
/// the agent through a <see cref="ConcurrentQueue{T}"/>, and a connection receives nothing until the agent polls it.
/// Sessions therefore stay single-threaded. The <c>ReceiveMode</c> setting is not used yet: every connection is
/// busy-polled by the agent.
/// Public members are thread-safe unless stated. Start-up allocates; the duty cycle does not in steady state.
/// </remarks>
public sealed class FixEngineHost : IDisposable
{
    private readonly List<FixSession> _sessions = [];
    private readonly Dictionary<string, FixSession> _routes = new(StringComparer.Ordinal);
    private readonly List<Listener> _listeners = [];
    private readonly List<InitiatorState> _initiators = [];
    private readonly List<SocketConnection> _connections = [];
    private readonly ConcurrentQueue<(SocketConnection Connection, InitiatorState? Initiator)> _incoming = new();
    private readonly SessionFactory _factory = new();
    private readonly FixMessageIndex _routingIndex = new(64);
    private readonly IEpochClock _clock;
    private readonly AgentRunner _runner;
    private readonly int _maxMessageSize;
    private readonly long _pendingLogonTimeoutNs;
    private readonly Action<string>? _console;
    private readonly TcpConnectionOptions _transportOptions;
    private volatile int _stopState;
    private long _currentEpochNs;

    /// <summary>Builds every session of <paramref name="settings"/> (nothing runs until <see cref="Start"/>).</summary>
    /// <param name="settings">Session settings (from <see cref="SettingsFile"/> or code).</param>
    /// <param name="application">Application callbacks shared by all sessions.</param>
    /// <param name="clock">Epoch clock; the system clock when null.</param>
    /// <param name="console">Receives one line per engine event (connections, logons), or null.</param>
    public FixEngineHost(IReadOnlyList<SessionSettings> settings, IApplication application, IEpochClock? clock = null, Action<string>? console = null)
    {
        ArgumentNullException.ThrowIfNull(settings);
        ArgumentNullException.ThrowIfNull(application);
        if (settings.Count == 0) throw new ArgumentException("no sessions configured", nameof(settings));
        _clock = clock ?? EpochClock.Shared;
        _console = console;
        long now = _clock.EpochNs;
        int maxMessageSize = 0;
        int logonTimeout = 10;
        var ports = new Dictionary<int, Listener>();
        foreach (SessionSettings s in settings)
        {
            FixSession session = _factory.Create(s, application, now);
            _sessions.Add(session);
            maxMessageSize = Math.Max(maxMessageSize, s.MaxMessageSize);
            logonTimeout = Math.Max(logonTimeout, s.LogonTimeout);
            if (s.ConnectionType == ConnectionType.Acceptor)
            {
                _routes.Add(RouteKey(s.BeginString!, s.SenderCompID!, s.TargetCompID!), session);
                int port = s.SocketAcceptPort!.Value;
                if (!ports.ContainsKey(port))
                {
                    var listener = new Listener(this, s.SocketAcceptHost, port, s.SocketReuseAddress);
                    ports.Add(port, listener);
                    _listeners.Add(listener);
                }
            }
            else
            {
                _initiators.Add(new InitiatorState(session, s.SocketConnectEndpoints));
            }
        }
        _maxMessageSize = maxMessageSize;
        _transportOptions = new TcpConnectionOptions
        {
            ReceiveMode = Transport.ReceiveMode.BusyPoll,
            MaxMessageBodyLength = maxMessageSize,
            MaxReceiveBufferBytes = Math.Max(4 << 20, maxMessageSize * 2 + 1024),
            NoDelay = settings[0].SocketNodelay,
        };
        _pendingLogonTimeoutNs = logonTimeout * 1_000_000_000L;

        SessionSettings first = settings[0];
        var options = new AgentRunnerOptions
        {
            ThreadName = "fix-engine",
            IdleStrategy = first.IdleStrategy switch
            {
                IdleStrategyKind.BusySpin => new BusySpinIdleStrategy(),
                IdleStrategyKind.Yielding => new YieldingIdleStrategy(),
                IdleStrategyKind.Blocking => new SleepingIdleStrategy(1),
                _ => new BackoffIdleStrategy(),
            },
            CpuAffinity = first.CpuAffinity.Count > 0 ? [.. first.CpuAffinity] : null,
        };
        _runner = new AgentRunner(new EngineAgent(this), options);
    }

    /// <summary>Loads a QuickFIX-style settings file and builds the engine.</summary>
    /// <param name="path">The .cfg file.</param>
    /// <param name="application">Application callbacks.</param>
    /// <param name="console">Event lines, or null.</param>
    /// <returns>The engine (not started).</returns>
    public static FixEngineHost FromSettingsFile(string path, IApplication application, Action<string>? console = null)
        => new(SettingsFile.Load(path), application, null, console);

    /// <summary>All sessions, in configuration order. Session members must only be used on the engine thread
    /// (inside application callbacks), except <see cref="FixSession.TrySendFromAnyThread{TState}"/>.</summary>
    public IReadOnlyList<FixSession> Sessions => _sessions;

    /// <summary>The ports the acceptors listen on (useful with port 0), available after <see cref="Start"/>.</summary>
    public IReadOnlyList<int> AcceptorPorts
    {
        get
        {
            var ports = new List<int>();
            foreach (Listener l in _listeners) ports.Add(l.BoundPort);
            return ports;
        }
    }

    /// <summary>Binds the acceptor ports and starts the engine thread.</summary>
    public void Start()
    {
        foreach (Listener l in _listeners) l.Start();
        _runner.Start();
    }

    /// <summary>Logs every session out (waiting up to <paramref name="timeout"/> for the replies), then stops the engine thread.</summary>
    /// <param name="timeout">Longest wait for orderly logouts.</param>
    public void Stop(TimeSpan timeout)
    {
        if (Interlocked.CompareExchange(ref _stopState, 1, 0) != 0) return;
        foreach (Listener l in _listeners) l.Stop();
        var deadline = DateTime.UtcNow + timeout;
        while (_stopState != 2 && DateTime.UtcNow < deadline && _runner.IsRunning) Thread.Sleep(10);
        _runner.Stop(TimeSpan.FromSeconds(5));
    }

    /// <summary>Stops the engine (2 s logout wait) and releases sessions, stores and logs.</summary>
    public void Dispose()
    {
        Stop(TimeSpan.FromSeconds(2));
        _runner.Dispose();
        foreach (FixSession s in _sessions) s.Dispose();
        _factory.Dispose();
    }

    /// <summary>The epoch time of the current duty cycle (engine thread).</summary>
    internal long CurrentEpochNs => _currentEpochNs;

    private void Print(string line) => _console?.Invoke(line);

    private static string RouteKey(string beginString, string ourSender, string ourTarget) => beginString + "\u0001" + ourSender + "\u0001" + ourTarget;

    // ---- engine thread ----

    private int DoWork()
    {
        long now = _clock.EpochNs;
        _currentEpochNs = now;
        int work = 0;
        while (_incoming.TryDequeue(out (SocketConnection Connection, InitiatorState? Initiator) item))
        {
            work++;
            SocketConnection connection = item.Connection;
            _connections.Add(connection);
            connection.Start();
            if (item.Initiator is InitiatorState init)
            {
                init.Connecting = false;
                connection.Session = init.Session;
                Print($"Connected to {connection.RemoteEndPoint} for {init.Session.Id}");
                init.Session.OnConnected(connection, now);
            }
            else
            {
                Print($"Accepted connection from {connection.RemoteEndPoint}");
            }
        }

        for (int i = 0; i < _connections.Count; i++)
        {
            SocketConnection c = _connections[i];
            work += c.Poll(now);
            if (!c.IsClosed && c.Session is null && now - c.CreatedNs > _pendingLogonTimeoutNs) c.Close("no Logon received");
        }
        for (int i = _connections.Count - 1; i >= 0; i--)
        {
            SocketConnection c = _connections[i];
            if (!c.IsClosed) continue;
            _connections.RemoveAt(i);
            if (c.Session is FixSession s)
            {
                bool wasLoggedOn = s.IsLoggedOn;
                s.OnDisconnected(c.CloseReason ?? "closed", now);
                if (wasLoggedOn || s.State == SessionState.Disconnected) Print($"Disconnected {s.Id}: {c.CloseReason}");
            }
        }

        foreach (FixSession s in _sessions) work += s.Poll(now);

        if (_stopState != 0)
        {
            bool any = false;
            foreach (FixSession s in _sessions)
            {
                if (!s.IsConnected) continue;
                any = true;
                if (s.State == SessionState.LoggedOn) s.Logout("Engine stopping", now);
                else if (s.State is SessionState.AwaitingLogon or SessionState.LogonSent) s.Disconnect("engine stopping", now);
            }
            if (!any && _stopState == 1) _stopState = 2;
            return work;
        }

        foreach (InitiatorState init in _initiators)
        {
            FixSession s = init.Session;
            if (s.IsConnected || init.Connecting || !s.IsSessionTime(now) || now < init.NextAttemptNs) continue;
            if (init.Endpoints.Count == 0) continue;
            SocketEndpoint ep = init.Endpoints[init.NextEndpoint];
            init.NextEndpoint = (init.NextEndpoint + 1) % init.Endpoints.Count;
            init.NextAttemptNs = now + s.Settings.ReconnectInterval * 1_000_000_000L;
            init.Connecting = true;
            Print($"Connecting {s.Id} to {ep}");
            StartConnect(init, ep);
            work++;
        }
        return work;
    }

    private void StartConnect(InitiatorState init, SocketEndpoint ep)
    {
        Task.Run(async () =>
        {
            var adapter = new SocketConnection(this, _clock.EpochNs);
            try
            {
                IPAddress address = IPAddress.TryParse(ep.Host, out IPAddress? ip) ? ip : (await Dns.GetHostAddressesAsync(ep.Host).ConfigureAwait(false))[0];
                TcpConnection connection = await TcpConnector.ConnectAsync(new IPEndPoint(address, ep.Port), TimeSpan.FromSeconds(10), _transportOptions, adapter).ConfigureAwait(false);
                adapter.Attach(connection);
                _incoming.Enqueue((adapter, init));
            }
            catch (Exception e) when (e is SocketException or OperationCanceledException or TransportConnectException or IndexOutOfRangeException)
            {
                Print($"Connect to {ep} failed: {e.Message}");
                init.Connecting = false;
            }
        });
    }

    internal void OnFrame(SocketConnection connection, ReadOnlySpan<byte> frame, long now)
    {
        if (connection.Session is FixSession session)
        {
            session.OnMessage(frame, now);
            return;
        }
        Route(connection, frame, now);
    }

    internal void OnFrameError(SocketConnection connection, ReadOnlySpan<byte> bytes, FrameResult result, long now)
    {
        if (connection.Session is FixSession session) session.OnGarbled(bytes, result.Describe(), now);
        else connection.Close("garbled data before Logon: " + result.Describe());
    }

    // Acceptor: the first message picks the session by (BeginString, TargetCompID, SenderCompID).
    private void Route(SocketConnection connection, ReadOnlySpan<byte> frame, long now)
    {
        _routingIndex.Parse(frame);
        var m = new FixMessage(frame, _routingIndex);
        if (!m.TryGetSpan(FixTags.BeginString, out ReadOnlySpan<byte> begin)
            || !m.TryGetSpan(FixTags.SenderCompID, out ReadOnlySpan<byte> theirSender)
            || !m.TryGetSpan(FixTags.TargetCompID, out ReadOnlySpan<byte> theirTarget))
        {
            connection.Close("first message lacks BeginString or CompIDs");
            return;
        }
        string key = RouteKey(Encoding.ASCII.GetString(begin), Encoding.ASCII.GetString(theirTarget), Encoding.ASCII.GetString(theirSender));
        if (!_routes.TryGetValue(key, out FixSession? session))
        {
            Print($"Refused {connection.RemoteEndPoint}: no session for {Encoding.ASCII.GetString(begin)} {Encoding.ASCII.GetString(theirSender)}->{Encoding.ASCII.GetString(theirTarget)}");
            connection.Close("unknown session");
            return;
        }
        if (session.IsConnected)
        {
            Print($"Refused {connection.RemoteEndPoint}: {session.Id} is already connected");
            connection.Close("session already connected");
            return;
        }
        if (!session.IsSessionTime(now))
        {
            connection.Close("outside the session schedule");
            return;
        }
        connection.Session = session;
        session.OnConnected(connection, now);
        session.OnMessage(frame, now);
        if (session.IsLoggedOn) Print($"Logon {session.Id} from {connection.RemoteEndPoint}");
    }

    private sealed class EngineAgent(FixEngineHost host) : IAgent
    {
        public string Name => "fix-engine";

        public int DoWork(long nowNs) => host.DoWork();

        public void OnClose()
        {
            foreach (SocketConnection c in host._connections) c.Close("engine stopped");
            long now = host._clock.EpochNs;
            foreach (FixSession s in host._sessions) s.OnDisconnected("engine stopped", now);
        }
    }

    private sealed class InitiatorState(FixSession session, IReadOnlyList<SocketEndpoint> endpoints)
    {
        public FixSession Session { get; } = session;

        public IReadOnlyList<SocketEndpoint> Endpoints { get; } = endpoints;

        public int NextEndpoint;
        public long NextAttemptNs;
        public volatile bool Connecting;
    }

    private sealed class Listener(FixEngineHost host, string? address, int port, bool reuseAddress)
    {
        private TcpAcceptor? _acceptor;

        public int BoundPort { get; private set; }

        public void Start()
        {
            _ = reuseAddress; // TcpAcceptor always sets SO_REUSEADDR.
            IPAddress ip = string.IsNullOrEmpty(address) ? IPAddress.Any : IPAddress.Parse(address);
            _acceptor = new TcpAcceptor(new IPEndPoint(ip, port), host._transportOptions, OnAccepted);
            _acceptor.Start();
            BoundPort = _acceptor.LocalEndPoint.Port;
        }

        // Accept thread: wrap and hand over to the engine agent, which starts and polls it. The connection receives
        // nothing until the acceptor has set the returned handler, even if the agent polls it first.
        private IConnectionHandler OnAccepted(TcpConnection connection)
        {
            var adapter = new SocketConnection(host, host._clock.EpochNs);
            adapter.Attach(connection);
            host._incoming.Enqueue((adapter, null));
            return adapter;
        }

        public void Stop() => _acceptor?.Stop();
    }
}
