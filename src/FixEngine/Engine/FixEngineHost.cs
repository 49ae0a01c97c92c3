using System;
using System.Collections.Generic;
using System.Net;
using System.Threading;
using FixEngine.Config;
using FixEngine.Diagnostics;
using FixEngine.Hosting;
using FixEngine.Session;
using FixEngine.Timing;
using FixEngine.Transport;

namespace FixEngine.Engine;

/// <summary>Runs FIX sessions on sockets: acceptors (many sessions per port, routed by CompIDs) and initiators (reconnect,
/// failover), over TCP (dedicated-thread, completion or busy-poll receive) or TLS.</summary>
/// <remarks>
/// <para>Design: this class is the public façade; it builds the sessions and the parts that run them, each with one
/// owner thread: the engine agent (<see cref="EngineAgent"/>: one <see cref="AgentRunner"/> thread with the engine-wide
/// idle strategy and CPU affinity, see <see cref="EngineOptions"/>) runs the duty cycle, the timers and outboxes, the
/// connection bookkeeping and, for busy-poll sessions, the sockets; a <see cref="Listener"/> per acceptor port accepts on
/// its acceptor's thread; an <see cref="AcceptorRouter"/> binds an accepted connection to its session by the Logon's
/// CompIDs on the receiving thread; an <see cref="InitiatorConnector"/> per initiator connects on the thread pool; the
/// <see cref="EpochAnchor"/> gives everyone epoch time. The path of a message, with its threads, is drawn in
/// docs/architecture.md.</para>
/// <para>Receive modes (<c>ReceiveMode</c>, <c>SocketUseSSL</c>): a busy-poll session is touched only by the agent, with no
/// lock. A dedicated-mode, completion-mode or TLS session is processed inline on its receiving thread for inbound messages and
/// on the agent for timers and the outbox, so each such session has a gate taken by whichever thread runs that session's
/// logic (<see cref="SessionSlot.Enter"/>, the one way into a session): never two threads in one session at once, and
/// application callbacks for it run under its gate. The mode of an acceptor connection is that of its listening port,
/// decided before the Logon says which session it is: every session on one SocketAcceptPort must agree on the receive
/// mode, the SSL keys and the socket options (the constructor throws a <see cref="ConfigException"/> naming the key and
/// the two sessions otherwise). Initiators use their own settings.</para>
/// <para>Flow control: a session whose transport refuses messages (its bounded send queue is full) keeps them in order
/// in its send backlog (see <see cref="FixSession.SendBacklogBytes"/>); when that backlog is large and still draining
/// the session asks to stop reading (<see cref="FixSession.IsReceivePauseRequested"/>), and the receiving thread (after
/// each message) and the agent (after each duty cycle) pause or resume the connection's receive as it asks, so TCP flow
/// control slows the peer down instead of the backlog growing.</para>
/// <para>Time: the agent gets monotonic <c>nowNs</c> from the clock (<see cref="EngineOptions.Clock"/>) and derives epoch
/// time (<c>epochNs</c>) from it with one anchor (refreshed once a second), so the epoch clock is not read per duty cycle;
/// a receiving thread (dedicated or completion) reads the monotonic clock once per message and applies the same anchor. Sessions are given
/// epoch time, never read it, and the engine never reads it back from them.</para>
/// <para>Public members are thread-safe unless stated. Start-up allocates; the duty cycle and the receive paths of busy-poll,
/// dedicated and completion-mode TCP and of TLS do not in steady state.</para>
/// </remarks>
public sealed class FixEngineHost : IDisposable
{
    private readonly List<SessionSlot> _slots = [];
    private readonly List<FixSession> _sessions = [];
    private readonly List<Listener> _listeners = [];
    private readonly List<IDisposable> _owned = [];
    private readonly SessionFactory _factory;
    private readonly Dictionary<SessionId, SessionSlot> _byId = [];
    private readonly EngineAgent _agent;
    private readonly AgentRunner _runner;
    private readonly IdleWakeup _agentWakeup = new();

    /// <summary>Builds every session of <paramref name="settings"/> (nothing runs until <see cref="Start"/>).</summary>
    /// <param name="settings">Session settings (from <see cref="SettingsFile"/> or code).</param>
    /// <param name="application">Application callbacks shared by all sessions.</param>
    /// <param name="clock">Epoch clock; the system clock when null. An <see cref="IClock"/> also drives the agent's
    /// monotonic time; a plain epoch clock is used for both.</param>
    /// <param name="console">Receives one line per engine event (connections, logons), or null.</param>
    /// <exception cref="ConfigException">Invalid settings, sessions that disagree on an engine-wide or per-port key, or a certificate that cannot be loaded.</exception>
    /// <exception cref="Store.MessageStoreException">A session's file store cannot be opened (unwritable or read-only
    /// folder, a journal another process holds, an I/O error) or its journal is damaged and FileStoreRecovery=Refuse.</exception>
    public FixEngineHost(IReadOnlyList<SessionSettings> settings, IApplication application, IEpochClock? clock = null, Action<string>? console = null)
        : this(settings, application, new EngineOptions { Clock = clock is null ? null : clock as IClock ?? new EpochOnlyClock(clock), Console = console })
    {
    }

    /// <summary>Builds every session of <paramref name="settings"/> with engine-wide <paramref name="options"/> (nothing runs until <see cref="Start"/>).</summary>
    /// <param name="settings">Session settings (from <see cref="SettingsFile"/> or code).</param>
    /// <param name="application">Application callbacks shared by all sessions.</param>
    /// <param name="options">Idle strategy, CPU affinity, clock and console of the engine.</param>
    /// <exception cref="ConfigException">Invalid settings, sessions that disagree on an engine-wide or per-port key, or a certificate that cannot be loaded.</exception>
    /// <exception cref="Store.MessageStoreException">A session's file store cannot be opened (unwritable or read-only
    /// folder, a journal another process holds, an I/O error) or its journal is damaged and FileStoreRecovery=Refuse.</exception>
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
        IClock clock = options.Clock ?? SystemClock.Instance;
        bool prewarm = options.PrewarmConnections;
        var console = new EngineConsole(options.Console);
        foreach (ConfigWarning warning in SettingsFile.Warnings(settings)) console.Warning(warning);
        var time = new EpochAnchor(clock);
        IdleStrategy = EngineConfiguration.ResolveIdleStrategy(settings, options);
        int[] cpus = EngineConfiguration.ResolveCpuAffinity(settings, options);
        CpuAffinity = cpus;

        _factory = new SessionFactory(options.MessageStoreFactory, options.SessionLogFactory);
        Dictionary<int, List<SessionSettings>> ports = EngineConfiguration.AcceptorPorts(settings);
        _agent = new EngineAgent(_slots, time, console, EngineConfiguration.PendingLogonTimeoutSeconds(settings), prewarm);
        var router = new AcceptorRouter(_agent, console, prewarm);

        try
        {
            var listeners = new Dictionary<int, Listener>();
            foreach ((int port, List<SessionSettings> list) in ports)
            {
                int maxMessageSize = 0;
                foreach (SessionSettings s in list) maxMessageSize = Math.Max(maxMessageSize, s.MaxMessageSize);
                SessionSettings first = list[0];
                TlsOptions? tls = first.SocketUseSSL ? EngineTls.ForAcceptor(first, _owned) : null;
                IPAddress[] addresses = Listener.DefaultAddresses(HostResolver.ResolveAcceptHost(first));
                var gate = new UnauthenticatedGate(port, first.MaxUnauthenticatedConnections, first.MaxUnauthenticatedConnectionsPerAddress, console);
                var listener = new Listener(addresses, port, EngineConfiguration.TransportOptions(first, maxMessageSize), tls, router, _agent, time, console, gate);
                listeners.Add(port, listener);
                _listeners.Add(listener);
            }

            long epochNs = time.EpochNow();
            foreach (SessionSettings s in settings)
            {
                FixSession session = _factory.Create(s, application, epochNs);
                _sessions.Add(session);
                if (s.ConnectionType == ConnectionType.Acceptor)
                {
                    var slot = new SessionSlot(session, listeners[s.SocketAcceptPort!.Value].Guarded);
                    _slots.Add(slot);
                    _byId.Add(session.Id, slot);
                    router.Add(s, slot);
                }
                else
                {
                    TcpConnectionOptions transport = EngineConfiguration.TransportOptions(s, s.MaxMessageSize);
                    EngineTls.InitiatorTls? tls = s.SocketUseSSL ? EngineTls.ForInitiator(s, _owned) : null;
                    var slot = new SessionSlot(session, InitiatorConnector.IsGuarded(transport, tls is not null));
                    slot.Initiator = new InitiatorConnector(slot, s.SocketConnectEndpoints, transport, tls, _agent, time, console, prewarm, options.ResolveHost);
                    _slots.Add(slot);
                    _byId.Add(session.Id, slot);
                    _agent.AddInitiator(slot.Initiator);
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

        // Application threads hand messages to the agent (TrySendFromAnyThread): they end its idle park.
        foreach (FixSession session in _sessions) session.AgentWakeup = _agentWakeup;
        var runnerOptions = new AgentRunnerOptions
        {
            ThreadName = "fix-engine",
            IdleStrategy = IdleStrategy switch
            {
                IdleStrategyKind.BusySpin => new BusySpinIdleStrategy(),
                IdleStrategyKind.Yielding => new YieldingIdleStrategy(),
                IdleStrategyKind.Blocking => new SleepingIdleStrategy(1, _agentWakeup),
                _ => new BackoffIdleStrategy(wakeup: _agentWakeup),
            },
            CpuAffinity = cpus.Length > 0 ? cpus : null,
            Clock = clock,
        };
        _runner = new AgentRunner(_agent, runnerOptions);
        // Observable instruments only: publishing costs the message path nothing (see FixEngineMetrics).
        _owned.Add(new FixEngineMetrics(() => _sessions, options.MeterFactory));
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
    /// callbacks (the agent thread for busy-poll sessions; the connection's receive thread or a socket completion thread,
    /// under the session's gate, for dedicated, completion-mode and TLS sessions), except
    /// <see cref="FixSession.TrySendFromAnyThread{TState}(ReadOnlySpan{byte}, long, in TState, BodyWriter{TState})"/>
    /// (any thread). In dedicated and completion mode two sessions' callbacks may run at the same time on different threads,
    /// so a callback must not use another session directly.</remarks>
    public IReadOnlyList<FixSession> Sessions => _sessions;

    /// <summary>The session with <paramref name="id"/>, if this engine runs it (any thread).</summary>
    /// <param name="id">BeginString, SenderCompID, TargetCompID and qualifier, as configured.</param>
    /// <param name="session">The session, or null.</param>
    /// <returns>Whether there is one.</returns>
    public bool TryGetSession(SessionId id, [System.Diagnostics.CodeAnalysis.NotNullWhen(true)] out FixSession? session)
    {
        bool found = _byId.TryGetValue(id, out SessionSlot? slot);
        session = slot?.Session;
        return found;
    }

    /// <summary>Queues an application message for the session with <paramref name="id"/> from any thread, any number of
    /// threads at once (<see cref="FixSession.TrySendFromAnyThread{TState}(ReadOnlySpan{byte}, long, in TState, BodyWriter{TState})"/>
    /// with token 0); the session's owner then numbers, stores and sends it in order.</summary>
    /// <typeparam name="TState">State for <paramref name="body"/>.</typeparam>
    /// <param name="id">The session.</param>
    /// <param name="msgType">MsgType(35), at most 16 bytes.</param>
    /// <param name="state">Passed to <paramref name="body"/>.</param>
    /// <param name="body">Writes the body fields (on the calling thread).</param>
    /// <returns>False when the session's hand-off ring is full or the body does not fit; retry later.</returns>
    /// <exception cref="ArgumentException">No session has <paramref name="id"/>.</exception>
    /// <remarks>Allocation-free.</remarks>
    public bool TrySend<TState>(SessionId id, ReadOnlySpan<byte> msgType, scoped in TState state, BodyWriter<TState> body)
        where TState : allows ref struct
    {
        if (!_byId.TryGetValue(id, out SessionSlot? slot)) throw new ArgumentException($"no session {id} in this engine", nameof(id));
        return slot.Session.TrySendFromAnyThread(msgType, in state, body);
    }

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
        if (!_agent.BeginStop()) return;
        foreach (Listener l in _listeners) l.Stop();
        // The agent signals once no session is connected (or once it has closed).
        if (_runner.IsRunning) _agent.WaitLoggedOut(timeout);
        _runner.Stop(TimeSpan.FromSeconds(5));
    }

    /// <summary>Stops the engine (2 s logout wait) and releases sessions, stores, logs and certificates.</summary>
    public void Dispose()
    {
        Stop(TimeSpan.FromSeconds(2));
        _runner.Stop(TimeSpan.FromSeconds(5));
        foreach (SessionSlot slot in _slots)
        {
            using (slot.Enter(0)) slot.Session.Dispose();
        }
        _factory.Dispose();
        ReleaseOwned();
    }

    private void ReleaseOwned()
    {
        foreach (IDisposable d in _owned) d.Dispose();
        _owned.Clear();
    }

    /// <summary>An <see cref="IClock"/> over an epoch-only clock: monotonic time is the epoch time.</summary>
    private sealed class EpochOnlyClock(IEpochClock clock) : IClock
    {
        public long NowNs => clock.EpochNs;

        public long EpochNs => clock.EpochNs;
    }
}
