using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.IO;
using System.Net;
using System.Net.Sockets;
using System.Security.Authentication;
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

/// <summary>Runs FIX sessions on sockets: acceptors (many sessions per port, routed by CompIDs) and initiators (reconnect,
/// failover), over TCP (busy-poll or completion receive) or TLS.</summary>
/// <remarks>
/// <para>Design: one engine agent (an <see cref="AgentRunner"/> thread with the engine-wide idle strategy and CPU affinity,
/// see <see cref="EngineOptions"/>) owns the timers, the cross-thread outboxes, the connection bookkeeping and, for
/// busy-poll sessions, the sockets. Its duty cycle drains the queue of newly accepted/connected sockets, polls each
/// busy-poll <see cref="TcpConnection"/> (which frames bytes and calls the session inline), closes connections that sent
/// no Logon in time, then services each session: notices a connection the transport closed, runs its timers and outbox
/// (<see cref="FixSession.Poll"/>), and at stop logs it out. Accepting runs on a <see cref="TcpAcceptor"/> or
/// <see cref="TlsAcceptor"/> per listening port; connecting runs on the thread pool (<see cref="TcpConnector"/>,
/// <see cref="TlsConnection.ConnectAsync"/>); both hand connections to the agent through a
/// <see cref="ConcurrentQueue{T}"/>.</para>
/// <para>Receive modes (<c>ReceiveMode</c>, <c>SocketUseSSL</c>): a busy-poll session is touched only by the agent, with no
/// lock. A completion-mode or TLS session is processed inline on the socket completion thread for inbound messages and
/// on the agent for timers and the outbox, so each such session has a gate (a <see cref="Monitor"/> on a private object)
/// taken by whichever thread runs that session's logic: never two threads in one session at once, and application
/// callbacks for it run under its gate. The mode of an acceptor connection is that of its listening port, decided
/// before the Logon says which session it is: every session on one SocketAcceptPort must agree on the receive mode, the
/// SSL keys and the socket options (the constructor throws a <see cref="ConfigException"/> naming the key and the two
/// sessions otherwise). Initiators use their own settings.</para>
/// <para>Flow control: a session whose transport refuses messages (its bounded send queue is full) keeps them in order
/// in its send backlog (see <see cref="FixSession.SendBacklogBytes"/>); when that backlog is large and still draining
/// the session asks to stop reading (<see cref="FixSession.IsReceivePauseRequested"/>): the receiving thread pauses the
/// receive of that session's connection (TCP or TLS) right after the message whose answer crossed the threshold, and
/// after each duty cycle the agent pauses or resumes it as the session asks, so TCP flow control slows the peer down
/// instead of the backlog growing.</para>
/// <para>Time: the agent gets monotonic <c>nowNs</c> from the clock (<see cref="EngineOptions.Clock"/>) and derives epoch
/// time from it with one anchor (refreshed once a second), so the epoch clock is not read per duty cycle; a completion
/// thread reads the monotonic clock once per message and applies the same anchor. Sessions are given the time, never
/// read it.</para>
/// <para>Public members are thread-safe unless stated. Start-up allocates; the duty cycle and the receive paths of busy-poll
/// and completion-mode TCP and of TLS do not in steady state.</para>
/// </remarks>
public sealed class FixEngineHost : IDisposable
{
    private const long NsPerSecond = 1_000_000_000L;

    private readonly List<SessionSlot> _slots = [];
    private readonly List<FixSession> _sessions = [];
    private readonly List<SessionSlot> _initiators = [];
    private readonly Dictionary<string, SessionSlot> _routes = new(StringComparer.Ordinal);
    private readonly List<Listener> _listeners = [];
    private readonly List<SocketConnection> _connections = [];
    private readonly ConcurrentQueue<SocketConnection> _incoming = new();
    private readonly List<IDisposable> _owned = [];
    private readonly SessionFactory _factory = new();
    private readonly FixMessageIndex _routingIndex = new(64);
    private readonly object _routeGate = new();
    private readonly IClock _clock;
    private readonly AgentRunner _runner;
    private readonly long _pendingLogonTimeoutNs;
    private readonly Action<string>? _console;
    private readonly bool _prewarm;
    private volatile int _stopState;
    private long _currentEpochNs;
    private long _epochOffsetNs;
    private long _nextAnchorNs;

    /// <summary>Builds every session of <paramref name="settings"/> (nothing runs until <see cref="Start"/>).</summary>
    /// <param name="settings">Session settings (from <see cref="SettingsFile"/> or code).</param>
    /// <param name="application">Application callbacks shared by all sessions.</param>
    /// <param name="clock">Epoch clock; the system clock when null. An <see cref="IClock"/> also drives the agent's
    /// monotonic time; a plain epoch clock is used for both.</param>
    /// <param name="console">Receives one line per engine event (connections, logons), or null.</param>
    /// <exception cref="ConfigException">Invalid settings, sessions that disagree on an engine-wide or per-port key, or a certificate that cannot be loaded.</exception>
    public FixEngineHost(IReadOnlyList<SessionSettings> settings, IApplication application, IEpochClock? clock = null, Action<string>? console = null)
        : this(settings, application, new EngineOptions { Clock = clock is null ? null : clock as IClock ?? new EpochOnlyClock(clock), Console = console })
    {
    }

    /// <summary>Builds every session of <paramref name="settings"/> with engine-wide <paramref name="options"/> (nothing runs until <see cref="Start"/>).</summary>
    /// <param name="settings">Session settings (from <see cref="SettingsFile"/> or code).</param>
    /// <param name="application">Application callbacks shared by all sessions.</param>
    /// <param name="options">Idle strategy, CPU affinity, clock and console of the engine.</param>
    /// <exception cref="ConfigException">Invalid settings, sessions that disagree on an engine-wide or per-port key, or a certificate that cannot be loaded.</exception>
    public FixEngineHost(IReadOnlyList<SessionSettings> settings, IApplication application, EngineOptions options)
    {
        ArgumentNullException.ThrowIfNull(settings);
        ArgumentNullException.ThrowIfNull(application);
        ArgumentNullException.ThrowIfNull(options);
        if (settings.Count == 0) throw new ArgumentException("no sessions configured", nameof(settings));
        foreach (SessionSettings s in settings)
        {
            ArgumentNullException.ThrowIfNull(s, nameof(settings));
            s.Validate();
        }
        _clock = options.Clock ?? SystemClock.Instance;
        _console = options.Console;
        _prewarm = options.PrewarmConnections;
        IdleStrategy = EngineConfiguration.ResolveIdleStrategy(settings, options);
        int[] cpus = EngineConfiguration.ResolveCpuAffinity(settings, options);
        CpuAffinity = cpus;
        Reanchor();

        var ports = new Dictionary<int, List<SessionSettings>>();
        int logonTimeout = 10;
        foreach (SessionSettings s in settings)
        {
            logonTimeout = Math.Max(logonTimeout, s.LogonTimeout);
            if (s.ConnectionType != ConnectionType.Acceptor) continue;
            int port = s.SocketAcceptPort!.Value;
            if (!ports.TryGetValue(port, out List<SessionSettings>? list)) ports.Add(port, list = []);
            list.Add(s);
        }
        foreach ((int port, List<SessionSettings> list) in ports) EngineConfiguration.CheckPort(port, list);
        _pendingLogonTimeoutNs = logonTimeout * NsPerSecond;

        try
        {
            var listeners = new Dictionary<int, Listener>();
            foreach ((int port, List<SessionSettings> list) in ports)
            {
                int maxMessageSize = 0;
                foreach (SessionSettings s in list) maxMessageSize = Math.Max(maxMessageSize, s.MaxMessageSize);
                SessionSettings first = list[0];
                TlsOptions? tls = first.SocketUseSSL ? EngineTls.ForAcceptor(first, _owned) : null;
                var listener = new Listener(this, first.SocketAcceptHost, port, EngineConfiguration.TransportOptions(first, maxMessageSize), tls);
                listeners.Add(port, listener);
                _listeners.Add(listener);
            }

            long now = EpochNow();
            foreach (SessionSettings s in settings)
            {
                FixSession session = _factory.Create(s, application, now);
                _sessions.Add(session);
                if (s.ConnectionType == ConnectionType.Acceptor)
                {
                    var slot = new SessionSlot(session, listeners[s.SocketAcceptPort!.Value].Guarded, initiator: null);
                    _slots.Add(slot);
                    _routes.Add(RouteKey(s.BeginString!, s.SenderCompID!, s.TargetCompID!), slot);
                }
                else
                {
                    TcpConnectionOptions transport = EngineConfiguration.TransportOptions(s, s.MaxMessageSize);
                    EngineTls.InitiatorTls? tls = s.SocketUseSSL ? EngineTls.ForInitiator(s, _owned) : null;
                    var slot = new SessionSlot(session, transport.ReceiveMode == ReceiveMode.Completion, new InitiatorState(s.SocketConnectEndpoints, transport, tls));
                    _slots.Add(slot);
                    _initiators.Add(slot);
                }
            }
        }
        catch
        {
            foreach (FixSession session in _sessions) session.Dispose();
            _factory.Dispose();
            ReleaseOwned();
            throw;
        }

        var runnerOptions = new AgentRunnerOptions
        {
            ThreadName = "fix-engine",
            IdleStrategy = IdleStrategy switch
            {
                IdleStrategyKind.BusySpin => new BusySpinIdleStrategy(),
                IdleStrategyKind.Yielding => new YieldingIdleStrategy(),
                IdleStrategyKind.Blocking => new SleepingIdleStrategy(1),
                _ => new BackoffIdleStrategy(),
            },
            CpuAffinity = cpus.Length > 0 ? cpus : null,
            Clock = _clock,
        };
        _runner = new AgentRunner(new EngineAgent(this), runnerOptions);
    }

    /// <summary>Loads a QuickFIX-style settings file and builds the engine.</summary>
    /// <param name="path">The .cfg file.</param>
    /// <param name="application">Application callbacks.</param>
    /// <param name="console">Event lines, or null.</param>
    /// <returns>The engine (not started).</returns>
    public static FixEngineHost FromSettingsFile(string path, IApplication application, Action<string>? console = null)
        => new(SettingsFile.Load(path), application, new EngineOptions { Console = console });

    /// <summary>Loads a QuickFIX-style settings file and builds the engine with engine-wide options.</summary>
    /// <param name="path">The .cfg file.</param>
    /// <param name="application">Application callbacks.</param>
    /// <param name="options">Idle strategy, CPU affinity, clock and console of the engine.</param>
    /// <returns>The engine (not started).</returns>
    public static FixEngineHost FromSettingsFile(string path, IApplication application, EngineOptions options)
        => new(SettingsFile.Load(path), application, options);

    /// <summary>All sessions, in configuration order.</summary>
    /// <remarks>A session's members must only be used by the thread running it: inside that session's own application
    /// callbacks (the agent thread for busy-poll sessions; a socket completion thread, under the session's gate, for
    /// completion-mode and TLS sessions), except <see cref="FixSession.TrySendFromAnyThread{TState}"/> (one producer
    /// thread per session). In completion mode two sessions' callbacks may run at the same time on different threads,
    /// so a callback must not use another session directly.</remarks>
    public IReadOnlyList<FixSession> Sessions => _sessions;

    /// <summary>The agent's idle strategy in force (from <see cref="EngineOptions"/> or the sessions' common setting).</summary>
    public IdleStrategyKind IdleStrategy { get; }

    /// <summary>The CPUs the agent thread is pinned to; empty when not pinned.</summary>
    public IReadOnlyList<int> CpuAffinity { get; }

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

    /// <summary>Stops the engine (2 s logout wait) and releases sessions, stores, logs and certificates.</summary>
    public void Dispose()
    {
        Stop(TimeSpan.FromSeconds(2));
        _runner.Stop(TimeSpan.FromSeconds(5));
        foreach (SessionSlot slot in _slots)
        {
            if (slot.Gate is object gate)
            {
                lock (gate) slot.Session.Dispose();
            }
            else
            {
                slot.Session.Dispose();
            }
        }
        _factory.Dispose();
        ReleaseOwned();
    }

    /// <summary>The epoch time of the current duty cycle (engine thread).</summary>
    internal long CurrentEpochNs => _currentEpochNs;

    /// <summary>Epoch now from the monotonic clock and the anchor (any thread).</summary>
    internal long EpochNow() => _clock.NowNs + Volatile.Read(ref _epochOffsetNs);

    private void ReleaseOwned()
    {
        foreach (IDisposable d in _owned) d.Dispose();
        _owned.Clear();
    }

    // Epoch = monotonic + offset, the offset read from the clock once a second of monotonic time (so an adjusted system
    // clock is followed within a second) instead of once per duty cycle. Agent thread (and the constructor).
    private void Reanchor()
    {
        long monotonic = _clock.NowNs;
        long epoch = _clock.EpochNs;
        Volatile.Write(ref _epochOffsetNs, epoch - monotonic);
        _nextAnchorNs = monotonic + NsPerSecond;
    }

    private void Print(string line) => _console?.Invoke(line);

    private static string RouteKey(string beginString, string ourSender, string ourTarget) => beginString + "\u0001" + ourSender + "\u0001" + ourTarget;

    // ---- engine thread ----

    private int DoWork(long nowNs)
    {
        if (nowNs >= _nextAnchorNs) Reanchor();
        long now = nowNs + _epochOffsetNs;
        _currentEpochNs = now;
        int work = 0;
        while (_incoming.TryDequeue(out SocketConnection? connection))
        {
            work++;
            _connections.Add(connection);
            if (connection.Slot is SessionSlot slot && slot.Initiator is InitiatorState init)
            {
                init.Connecting = false;
                Print($"Connected to {connection.RemoteEndPoint} for {slot.Session.Id}");
                if (slot.Gate is object gate)
                {
                    lock (gate) Connected(slot.Session, connection, Math.Max(now, slot.Session.NowNs));
                }
                else
                {
                    Connected(slot.Session, connection, now);
                }
                // After OnConnected (the Logon is out): a completion-mode connection may deliver the answer at once.
                connection.Start();
            }
            else
            {
                // Completion-mode and TLS acceptor connections were started by the accept callback.
                if (!connection.Guarded) connection.Start();
                Print($"Accepted connection from {connection.RemoteEndPoint}");
            }
        }

        for (int i = 0; i < _connections.Count; i++)
        {
            SocketConnection c = _connections[i];
            if (!c.Guarded) work += c.Poll(nowNs);
            if (!c.IsClosed && c.Slot is null && now - c.CreatedNs > _pendingLogonTimeoutNs) c.Close("no Logon received");
            c.PollLinger(now);
        }
        for (int i = _connections.Count - 1; i >= 0; i--)
        {
            SocketConnection c = _connections[i];
            if (c.IsClosed && !c.IsLingering) _connections.RemoveAt(i);
        }

        bool stopping = _stopState != 0;
        bool anyConnected = false;
        for (int i = 0; i < _slots.Count; i++)
        {
            SessionSlot slot = _slots[i];
            if (slot.Gate is object gate)
            {
                lock (gate) work += ServiceSession(slot.Session, now, stopping, ref anyConnected);
            }
            else
            {
                work += ServiceSession(slot.Session, now, stopping, ref anyConnected);
            }
            // Inbound flow control, outside the gate (a completion-mode resume dispatches waiting messages on this
            // thread, taking the gate itself). Reading the session's connection outside its gate may see one a duty
            // cycle stale: pausing or resuming a connection the session has just dropped is harmless.
            if (slot.Session.Connection is SocketConnection sc) sc.SetReceivePaused(slot.Session.IsReceivePauseRequested);
        }
        if (stopping)
        {
            if (!anyConnected && _stopState == 1) _stopState = 2;
            return work;
        }

        for (int i = 0; i < _initiators.Count; i++)
        {
            SessionSlot slot = _initiators[i];
            InitiatorState init = slot.Initiator!;
            FixSession s = slot.Session;
            // IsConnected may be read while a completion thread disconnects the session: a stale true only delays the
            // attempt by a duty cycle; only this thread attaches initiator connections.
            if (init.Connecting || s.IsConnected || !s.IsSessionTime(now) || now < init.NextAttemptNs) continue;
            if (init.Endpoints.Count == 0) continue;
            SocketEndpoint ep = init.Endpoints[init.NextEndpoint];
            init.NextEndpoint = (init.NextEndpoint + 1) % init.Endpoints.Count;
            init.NextAttemptNs = now + s.Settings.ReconnectInterval * NsPerSecond;
            init.Connecting = true;
            Print($"Connecting {s.Id} to {ep}{(init.Tls is null ? "" : " (TLS)")}");
            StartConnect(slot, ep);
            work++;
        }
        return work;
    }

    // One session's agent work; under its gate when it has one.
    private int ServiceSession(FixSession session, long now, bool stopping, ref bool anyConnected)
    {
        int work = 0;
        // Inbound processing on a completion thread may have stamped a later time; keep the session's time monotonic.
        now = Math.Max(now, session.NowNs);
        if (session.Connection is SocketConnection c && c.IsClosed)
        {
            bool wasLoggedOn = session.IsLoggedOn;
            session.OnDisconnected(c.CloseReason ?? "closed", now);
            if (wasLoggedOn || session.State == SessionState.Disconnected) Print($"Disconnected {session.Id}: {c.CloseReason}");
            work++;
        }
        work += session.Poll(now);
        if (stopping && session.IsConnected)
        {
            anyConnected = true;
            if (session.State == SessionState.LoggedOn) session.Logout("Engine stopping", now);
            else if (session.State is SessionState.AwaitingLogon or SessionState.LogonSent) session.Disconnect("engine stopping", now);
        }
        return work;
    }

    private void StartConnect(SessionSlot slot, SocketEndpoint ep)
    {
        InitiatorState init = slot.Initiator!;
        Task.Run(async () =>
        {
            var adapter = new SocketConnection(this, EpochNow(), slot.Gate is not null) { Slot = slot };
            try
            {
                IPAddress address = IPAddress.TryParse(ep.Host, out IPAddress? ip) ? ip : (await Dns.GetHostAddressesAsync(ep.Host).ConfigureAwait(false))[0];
                var remote = new IPEndPoint(address, ep.Port);
                TransportConnection connection = init.Tls is EngineTls.InitiatorTls tls
                    ? await TlsConnection.ConnectAsync(remote, TimeSpan.FromSeconds(10), init.TransportOptions, tls.For(ep.Host), adapter).ConfigureAwait(false)
                    : await TcpConnector.ConnectAsync(remote, TimeSpan.FromSeconds(10), init.TransportOptions, adapter).ConfigureAwait(false);
                adapter.Attach(connection);
                // Still owned by this task (the agent gets it through the queue): rent its buffers now.
                if (_prewarm) connection.Prewarm();
                if (_stopState != 0)
                {
                    adapter.Close("engine stopping");
                    init.Connecting = false;
                    return;
                }
                _incoming.Enqueue(adapter);
            }
            catch (Exception e) when (e is SocketException or OperationCanceledException or TransportConnectException or IndexOutOfRangeException
                or AuthenticationException or IOException)
            {
                Print($"Connect to {ep} failed: {e.Message}");
                init.Connecting = false;
            }
        });
    }

    // ---- receiving thread: the agent (busy-poll) or a socket completion thread (completion mode, TLS) ----

    internal void OnFrame(SocketConnection connection, ReadOnlySpan<byte> frame)
    {
        SessionSlot? slot = connection.Slot;
        if (!connection.Guarded)
        {
            long now = _currentEpochNs;
            if (slot is null) Route(connection, frame, now);
            else if (ReferenceEquals(slot.Session.Connection, connection)) slot.Session.OnMessage(frame, now);
            return;
        }
        // A completion thread has no duty-cycle time: one monotonic clock read per message, with the agent's anchor.
        long nowNs = EpochNow();
        if (slot is null)
        {
            Route(connection, frame, nowNs);
            return;
        }
        lock (slot.Gate!)
        {
            // The session may have dropped this connection (and taken another) while this callback waited for the gate.
            if (ReferenceEquals(slot.Session.Connection, connection)) slot.Session.OnMessage(frame, nowNs);
        }
    }

    internal void OnFrameError(SocketConnection connection, ReadOnlySpan<byte> bytes, FrameResult result)
    {
        SessionSlot? slot = connection.Slot;
        if (slot is null)
        {
            connection.Close("garbled data before Logon: " + result.Describe());
            return;
        }
        if (slot.Gate is not object gate)
        {
            if (ReferenceEquals(slot.Session.Connection, connection)) slot.Session.OnGarbled(bytes, result.Describe(), _currentEpochNs);
            return;
        }
        long now = EpochNow();
        lock (gate)
        {
            if (ReferenceEquals(slot.Session.Connection, connection)) slot.Session.OnGarbled(bytes, result.Describe(), now);
        }
    }

    // Acceptor: the first message picks the session by (BeginString, TargetCompID, SenderCompID). The routing index is
    // shared, so the lookup runs under _routeGate (once per connection); the session is then attached under its gate
    // (order: route gate, then session gate; nothing takes them the other way round).
    private void Route(SocketConnection connection, ReadOnlySpan<byte> frame, long now)
    {
        SessionSlot? slot;
        lock (_routeGate)
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
            if (!_routes.TryGetValue(key, out slot))
            {
                Print($"Refused {connection.RemoteEndPoint}: no session for {Encoding.ASCII.GetString(begin)} {Encoding.ASCII.GetString(theirSender)}->{Encoding.ASCII.GetString(theirTarget)}");
                connection.Close("unknown session");
                return;
            }
        }
        if (_stopState != 0)
        {
            connection.Close("engine stopping");
            return;
        }
        if (slot.Gate is object gate)
        {
            lock (gate) Attach(slot.Session, connection, slot, frame, now);
        }
        else
        {
            Attach(slot.Session, connection, slot, frame, now);
        }
    }

    private void Attach(FixSession session, SocketConnection connection, SessionSlot slot, ReadOnlySpan<byte> frame, long now)
    {
        now = Math.Max(now, session.NowNs);
        // The previous connection may be closed without the agent having noticed yet: let the reconnect in now.
        if (session.Connection is SocketConnection previous && previous.IsClosed) session.OnDisconnected(previous.CloseReason ?? "closed", now);
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
        connection.Slot = slot;
        Connected(session, connection, now);
        session.OnMessage(frame, now);
        if (session.IsLoggedOn) Print($"Logon {session.Id} from {connection.RemoteEndPoint}");
    }

    // The session's thread (under its gate when it has one).
    private void Connected(FixSession session, SocketConnection connection, long now)
    {
        session.OnConnected(connection, now);
        if (_prewarm) session.PrewarmSendBacklog();
    }

    private sealed class EngineAgent(FixEngineHost host) : IAgent
    {
        public string Name => "fix-engine";

        public int DoWork(long nowNs) => host.DoWork(nowNs);

        public void OnClose()
        {
            while (host._incoming.TryDequeue(out SocketConnection? queued)) host._connections.Add(queued);
            foreach (SocketConnection c in host._connections) c.CloseNow("engine stopped");
            long now = host.EpochNow();
            foreach (SessionSlot slot in host._slots)
            {
                if (slot.Gate is object gate)
                {
                    lock (gate) slot.Session.OnDisconnected("engine stopped", Math.Max(now, slot.Session.NowNs));
                }
                else
                {
                    slot.Session.OnDisconnected("engine stopped", now);
                }
            }
        }
    }

    /// <summary>An <see cref="IClock"/> over an epoch-only clock: monotonic time is the epoch time.</summary>
    private sealed class EpochOnlyClock(IEpochClock clock) : IClock
    {
        public long NowNs => clock.EpochNs;

        public long EpochNs => clock.EpochNs;
    }

    private sealed class Listener(FixEngineHost host, string? address, int port, TcpConnectionOptions options, TlsOptions? tls)
    {
        private TcpAcceptor? _tcp;
        private TlsAcceptor? _tls;

        /// <summary>Completion-mode or TLS: its sessions are processed on completion threads under their gates.</summary>
        public bool Guarded { get; } = tls is not null || options.ReceiveMode == ReceiveMode.Completion;

        public int BoundPort { get; private set; }

        public void Start()
        {
            IPAddress ip = string.IsNullOrEmpty(address) ? IPAddress.Any : IPAddress.Parse(address);
            var endPoint = new IPEndPoint(ip, port);
            if (tls is not null)
            {
                _tls = new TlsAcceptor(endPoint, options, tls, connection => OnAccepted(connection));
                _tls.Start();
                BoundPort = _tls.LocalEndPoint.Port;
            }
            else
            {
                _tcp = new TcpAcceptor(endPoint, options, connection => OnAccepted(connection));
                _tcp.Start();
                BoundPort = _tcp.LocalEndPoint.Port;
            }
        }

        // Accept thread: wrap and hand over to the engine agent. A busy-poll connection receives nothing until the agent
        // polls it; a guarded one is started here and receives (on completion threads) once this handler is returned,
        // routing its Logon itself, while the agent only watches it (logon timeout, close).
        private IConnectionHandler OnAccepted(TransportConnection connection)
        {
            var adapter = new SocketConnection(host, host.EpochNow(), Guarded);
            adapter.Attach(connection);
            // Before it starts receiving: this thread still owns it.
            if (host._prewarm) connection.Prewarm();
            if (Guarded) adapter.Start();
            host._incoming.Enqueue(adapter);
            return adapter;
        }

        public void Stop()
        {
            _tcp?.Stop();
            _tls?.Stop();
        }
    }
}
