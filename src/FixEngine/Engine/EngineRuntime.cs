using System;
using System.Collections.Generic;
using System.IO.Pipelines;
using System.Net;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Diagnostics;
using FixEngine.Hosting;
using FixEngine.Session;
using FixEngine.Timing;
using FixEngine.Transport;

namespace FixEngine.Engine;

/// <summary>The running engine behind the <see cref="FixEngineHost"/> façade: its sessions, ports, agent and
/// hosted connections. Each internal member is the body of the façade member of the same name, whose documentation
/// says what it does; threads and ownership are drawn in docs/architecture.md.</summary>
/// <remarks>
/// <para>Design: it builds the sessions and the parts that run them, each with one
/// owner thread (internal types, named here for readers of the source): the engine agent (<c>EngineAgent</c>: one <see cref="AgentRunner"/> thread with the engine-wide
/// idle strategy and CPU affinity, see <see cref="EngineOptions"/>) runs the duty cycle, the timers and outboxes, the
/// connection bookkeeping and, for busy-poll sessions, the sockets; a <c>Listener</c> per acceptor port accepts on
/// its acceptor's thread; an <c>AcceptorRouter</c> binds an accepted connection to its session by the Logon's
/// CompIDs on the receiving thread; an <c>InitiatorConnector</c> per initiator connects on the thread pool; the
/// <c>EpochAnchor</c> gives everyone epoch time. The path of a message, with its threads, is drawn in
/// docs/architecture.md.</para>
/// <para>Receive modes (<c>ReceiveMode</c>, <c>SocketUseSSL</c>): a busy-poll session is touched only by the agent, with no
/// lock. A dedicated-mode, completion-mode or TLS session is processed inline on its receiving thread for inbound messages and
/// on the agent for timers and the outbox, so each such session has a gate taken by whichever thread runs that session's
/// logic (<c>SessionSlot.Enter</c>, the one way into a session): never two threads in one session at once, and
/// application callbacks for it run under its gate. The mode of an acceptor connection is that of its listening port,
/// decided before the Logon says which session it is: every session on one SocketAcceptPort must agree on the receive
/// mode, the SSL keys and the socket options (the constructor throws a <see cref="ConfigException"/> naming the key and
/// the two sessions otherwise). Initiators use their own settings.</para>
/// <para>Flow control: a session whose transport refuses messages (its bounded send queue is full) keeps them in order
/// in its send backlog (see <see cref="FixSession.SendBacklogBytes"/>); when that backlog is large and still draining
/// the session asks to stop reading (<c>FixSession.IsReceivePauseRequested</c>), and the receiving thread (after
/// each message) and the agent (after each duty cycle) pause or resume the connection's receive as it asks, so TCP flow
/// control slows the peer down instead of the backlog growing. A hosted connection's read loop
/// (<see cref="RunAcceptorConnectionAsync"/>) pauses itself after a read and waits, without a timer, until the agent
/// resumes it or the connection closes.</para>
/// <para>Time: the agent gets monotonic <c>nowNs</c> from the clock (<see cref="EngineOptions.Clock"/>) and derives epoch
/// time (<c>epochNs</c>) from it with one anchor (refreshed once a second), so the epoch clock is not read per duty cycle;
/// a receiving thread (dedicated or completion) reads the monotonic clock once per message and applies the same anchor. Sessions are given
/// epoch time, never read it, and the engine never reads it back from them.</para>
/// <para>Dynamic sessions: <see cref="AddSession"/> and <see cref="RemoveSession"/> change the sessions of a running engine
/// (from any thread but the engine's own and a session callback, for a removal); an
/// <see cref="EngineOptions.UnknownSessionHandler"/> creates sessions for Logons from CompIDs not configured in advance.
/// The session is built (its store opened) on the caller's thread and handed to the agent, which alone changes the list
/// of sessions it services; lookups (<see cref="TryGetSession"/>, <see cref="TrySend{TState}"/>, <see cref="Sessions"/>)
/// read an immutable snapshot replaced on each change, so the message paths take no lock for it.</para>
/// </remarks>
internal sealed partial class EngineRuntime
{
    // Control plane (constructor, Start, Stop, AddSession, RemoveSession, an unknown session's creation, Dispose): under
    // _control. The snapshots below are replaced (copy-on-write) under it and read without a lock by anyone.
    private readonly object _control = new();
    private readonly List<SessionSlot> _all = [];
    private readonly Dictionary<int, Port> _ports = [];
    private readonly List<IDisposable> _owned = [];
    private readonly SessionFactory _factory;
    private readonly EngineAgent _agent;
    private readonly AgentRunner _runner;
    private readonly AcceptorRouter _router;
    private readonly IdleWakeup _agentWakeup = new();
    private readonly PipeConnections _hosted = new();
    private readonly TimeSpan _pendingLogonTimeout;
    private readonly int _preLogonMaxBodyLength;
    private readonly FixEngineMetrics _metrics;
    private readonly IApplication _application;
    private readonly EngineOptions _options;
    private readonly EpochAnchor _time;
    private readonly EngineConsole _console;
    private readonly bool _prewarm;
    private volatile FixSession[] _sessions = [];
    private volatile Dictionary<SessionId, SessionSlot> _byId = [];
    private bool _started;
    private bool _stopped;
    private bool _disposed;

    internal EngineRuntime(IReadOnlyList<SessionSettings> settings, IApplication application, EngineOptions options)
    {
        ArgumentNullException.ThrowIfNull(settings);
        ArgumentNullException.ThrowIfNull(application);
        ArgumentNullException.ThrowIfNull(options);
        if (settings.Count == 0) throw new ArgumentException("no sessions configured (a settings file needs at least one [SESSION] section)", nameof(settings));
        foreach (SessionSettings s in settings) ArgumentNullException.ThrowIfNull(s, nameof(settings));
        _application = application;
        _options = options;
        IClock clock = options.Clock ?? SystemClock.Instance;
        _prewarm = options.PrewarmConnections;
        _console = new EngineConsole(options.Console);
        // ContinueInitializationOnError=Y: a session whose settings or files fail is left out (and reported), the others
        // start; every session failing still fails the start.
        foreach (SkippedSession skipped in SettingsFile.SkippedOf(settings)) Skip(skipped);
        settings = WithoutFailing(settings, static s => s.Validate());
        foreach (ConfigWarning warning in SettingsFile.Warnings(settings)) _console.Warning(warning);
        _time = new EpochAnchor(clock);
        IdleStrategy = EngineConfiguration.ResolveIdleStrategy(settings, options);
        int[] cpus = EngineConfiguration.ResolveCpuAffinity(settings, options);
        CpuAffinity = cpus;

        _factory = new SessionFactory(options.MessageStoreFactory, options.SessionLogFactory);
        // Store settings and data dictionaries are checked before any port or store is opened.
        settings = WithoutFailing(settings, _factory.ValidateStoreAndDictionaries);
        Dictionary<int, List<SessionSettings>> ports = EngineConfiguration.AcceptorPorts(settings);
        int logonTimeoutSeconds = EngineConfiguration.PendingLogonTimeoutSeconds(settings);
        _pendingLogonTimeout = TimeSpan.FromSeconds(logonTimeoutSeconds);
        _agent = new EngineAgent([], _time, _console, logonTimeoutSeconds, options.MemoryReclaimSurgeConnections, _agentWakeup);
        _router = new AcceptorRouter(_agent, _console, _prewarm);
        if (options.UnknownSessionHandler is not null) _router.Unknown = CreateUnknownSession;
        bool listen = options.ListenOnAcceptorPorts;
        int preLogon = 64;
        foreach (SessionSettings s in settings)
        {
            if (s.ConnectionType == ConnectionType.Acceptor) preLogon = Math.Max(preLogon, Math.Min(s.PreLogonMaxMessageSize, s.MaxMessageSize));
        }
        _preLogonMaxBodyLength = preLogon;

        JournalHandleBudget? journals = JournalHandleBudget.Create(settings, _console, options.OpenFilesLimitForTesting);
        _agent.Journals = journals;
        var sessions = new List<FixSession>();
        var byId = new Dictionary<SessionId, SessionSlot>();
        try
        {
            foreach ((int port, List<SessionSettings> list) in ports)
            {
                // Hosted acceptors (ListenOnAcceptorPorts = false): a server such as Kestrel owns the port.
                if (!listen) continue;
                int maxMessageSize = 0;
                foreach (SessionSettings s in list) maxMessageSize = Math.Max(maxMessageSize, s.MaxMessageSize);
                _ports.Add(port, NewPort(port, list[0], maxMessageSize));
            }

            long epochNs = _time.EpochNow();
            Exception? firstFailure = null;
            foreach (SessionSettings s in settings)
            {
                FixSession? session = null;
                SessionSlot slot;
                try
                {
                    session = _factory.Create(s, application, epochNs);
                    sessions.Add(session);
                    slot = NewSlot(session);
                    // Parked only once the session is kept: a session left out below closes its store instead.
                    journals?.ParkNew(session);
                }
                catch (Exception e) when (s.ContinueInitializationOnError && e is ConfigException or Store.MessageStoreException)
                {
                    // Its store cannot be opened, or its initiator certificate loaded: leave it out.
                    if (session is not null)
                    {
                        sessions.Remove(session);
                        session.Dispose();
                        ReleaseLog(session);
                    }
                    firstFailure ??= e;
                    Skip(new SkippedSession(s.SessionId.ToString(), e));
                    continue;
                }
                _all.Add(slot);
                byId.Add(session.Id, slot);
                _agent.AddInitial(slot);
                if (s.ConnectionType == ConnectionType.Acceptor)
                {
                    // Hosted acceptors (ListenOnAcceptorPorts = false) have no engine port: a server such as Kestrel owns it.
                    if (_ports.TryGetValue(s.SocketAcceptPort!.Value, out Port? port)) port.Sessions++;
                    _router.Add(s, slot);
                }
            }
            if (sessions.Count == 0 && firstFailure is not null) System.Runtime.ExceptionServices.ExceptionDispatchInfo.Throw(firstFailure);
            // A port whose every session was left out is not listened on (unless unknown sessions may come to it).
            foreach ((int number, Port port) in new List<KeyValuePair<int, Port>>(_ports))
            {
                if (port.Sessions == 0 && options.UnknownSessionHandler is null)
                {
                    port.Listener.Stop();
                    _ports.Remove(number);
                }
            }
        }
        catch
        {
            foreach (FixSession session in sessions)
            {
                session.Dispose();
                ReleaseLog(session, engineDisposing: true);
            }
            _factory.Dispose();
            ReleaseOwned();
            throw;
        }
        _sessions = [.. sessions];
        _byId = byId;
        foreach (int port in _ports.Keys) RefreshAllowList(port);

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
        _metrics = new FixEngineMetrics(() => _sessions, options.MeterFactory);
        _owned.Add(_metrics);
        // Latency histograms: each session records into them only while a listener is enabled for them.
        foreach (FixSession session in _sessions)
        {
            session.Latency = _metrics.CreateSessionLatency(session.Id, _time.EpochNow);
            session.EventTap = EventTap;
        }
    }

    internal IReadOnlyList<FixSession> Sessions => _sessions;

    private readonly List<SkippedSession> _skipped = [];

    /// <summary>The sessions left out at start-up under ContinueInitializationOnError=Y.</summary>
    internal IReadOnlyList<SkippedSession> Skipped => _skipped;

    private void Skip(SkippedSession skipped)
    {
        _skipped.Add(skipped);
        _console.SessionSkipped(skipped);
    }

    // The settings whose check passes; a session with ContinueInitializationOnError=Y whose check fails is left out
    // (reported); any other failure propagates, and so does the first when every session fails.
    private IReadOnlyList<SessionSettings> WithoutFailing(IReadOnlyList<SessionSettings> settings, Action<SessionSettings> check)
    {
        List<SessionSettings>? kept = null;
        Exception? first = null;
        for (int i = 0; i < settings.Count; i++)
        {
            SessionSettings s = settings[i];
            try
            {
                check(s);
                kept?.Add(s);
            }
            catch (Exception e) when (s.ContinueInitializationOnError && e is ConfigException or Store.MessageStoreException)
            {
                if (kept is null)
                {
                    kept = [];
                    for (int j = 0; j < i; j++) kept.Add(settings[j]);
                }
                first ??= e;
                Skip(new SkippedSession(s.SessionId.ToString(), e));
            }
        }
        if (kept is null) return settings;
        if (kept.Count == 0) System.Runtime.ExceptionServices.ExceptionDispatchInfo.Throw(first!);
        return kept;
    }

    /// <summary>The engine's event lines (EngineOptions.Console).</summary>
    internal EngineConsole Console => _console;

    /// <summary>Observers of every session's events (the admin console's live tail); every session holds it.</summary>
    internal SessionEventTap EventTap { get; } = new();

    /// <summary>Tests: the engine thread's wake-up (disposed by <see cref="Dispose"/>).</summary>
    internal IdleWakeup AgentWakeup => _agentWakeup;

    /// <summary>Diagnostics (the scale harness's trace, tests): the engine agent, for its sweep counters.</summary>
    internal EngineAgent Agent => _agent;

    /// <summary>Diagnostics (benchmarks, tests): how many times a thread waited for the session's gate (see
    /// <see cref="SessionSlot.GateWaits"/>); 0 for an unknown session.</summary>
    internal long GateWaitsOf(SessionId id) => _byId.TryGetValue(id, out SessionSlot? slot) ? slot.GateWaits : 0;

    internal bool TryGetSession(SessionId id, [System.Diagnostics.CodeAnalysis.NotNullWhen(true)] out FixSession? session)
    {
        bool found = _byId.TryGetValue(id, out SessionSlot? slot);
        session = slot?.Session;
        return found;
    }

    internal bool TrySend<TState>(SessionId id, ReadOnlySpan<byte> msgType, scoped in TState state, BodyWriter<TState> body)
        where TState : allows ref struct
    {
        if (!_byId.TryGetValue(id, out SessionSlot? slot)) throw new ArgumentException($"no session {id} in this engine", nameof(id));
        return slot.Session.TrySendFromAnyThread(msgType, in state, body);
    }

    internal FixSession AddSession(SessionSettings settings)
    {
        ArgumentNullException.ThrowIfNull(settings);
        settings.Validate();
        lock (_control)
        {
            return Add(settings).Session;
        }
    }

    internal bool RemoveSession(SessionId id)
    {
        SessionSlot? slot;
        SessionChange change;
        bool wait;
        lock (_control)
        {
            if (!_byId.TryGetValue(id, out slot)) return false;
            if (_agent.ThreadId == Environment.CurrentManagedThreadId)
            {
                throw new InvalidOperationException($"RemoveSession({id}) was called on the engine thread (a busy-poll session's callback); call it from another thread");
            }
            foreach (SessionSlot other in _all)
            {
                if (other.Session.IsHeldByCurrentThread)
                {
                    throw new InvalidOperationException($"RemoveSession({id}) was called inside a callback of session {other.Session.Id}; call it from another thread");
                }
            }
            SessionSettings s = slot.Session.Settings;
            slot.Removed = true;
            if (s.ConnectionType == ConnectionType.Acceptor)
            {
                _router.Remove(s);
                int portNumber = s.SocketAcceptPort!.Value;
                if (_ports.TryGetValue(portNumber, out Port? port) && --port.Sessions == 0 && _options.UnknownSessionHandler is null)
                {
                    port.Listener.Stop();
                    _ports.Remove(portNumber);
                }
            }
            _all.Remove(slot);
            if (s.ConnectionType == ConnectionType.Acceptor) RefreshAllowList(s.SocketAcceptPort!.Value);
            Publish();
            change = new SessionChange(slot, remove: true);
            _agent.Submit(change);
            wait = _runner.IsRunning;
        }
        if (wait && !change.Done.Wait(TimeSpan.FromSeconds(slot.Session.Settings.LogoutTimeout + 10)))
        {
            throw new TimeoutException($"the engine thread did not finish removing {id} in time");
        }
        using (slot.Enter(_time.EpochNow()))
        {
            slot.Session.Dispose();
            // Inside the gate, after the session's last line (its Logout, its disconnect): nothing writes to its log any
            // more. The log factory writes what is left and closes the session's files (FileSessionLogFactory).
            ReleaseLog(slot.Session);
        }
        _console.SessionRemoved(id);
        return true;
    }

    internal IdleStrategyKind IdleStrategy { get; }

    internal IReadOnlyList<int> CpuAffinity { get; }

    internal bool TryGetAcceptorPort(SessionId id, out int port)
    {
        port = 0;
        if (!_byId.TryGetValue(id, out SessionSlot? slot) || slot.Session.Settings.SocketAcceptPort is not int configured) return false;
        lock (_control)
        {
            if (!_ports.TryGetValue(configured, out Port? p) || p.Listener.BoundPort == 0) return false;
            port = p.Listener.BoundPort;
            return true;
        }
    }

    internal IReadOnlyList<int> AcceptorPorts
    {
        get
        {
            var ports = new List<int>();
            lock (_control)
            {
                foreach (Port p in _ports.Values) ports.Add(p.Listener.BoundPort);
            }
            return ports;
        }
    }
}
