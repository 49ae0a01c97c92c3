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

/// <summary>Runs FIX sessions on sockets: acceptors (many sessions per port, routed by CompIDs) and initiators (reconnect,
/// failover), over TCP (dedicated-thread, completion or busy-poll receive) or TLS.</summary>
/// <remarks>
/// <para>Design: this class is the public façade; it builds the sessions and the parts that run them, each with one
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
/// <para>Public members are thread-safe unless stated. Start-up allocates; the duty cycle and the receive paths of busy-poll,
/// dedicated and completion-mode TCP and of TLS do not in steady state.</para>
/// </remarks>
public sealed partial class FixEngineHost : IDisposable
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
        _application = application;
        _options = options;
        IClock clock = options.Clock ?? SystemClock.Instance;
        _prewarm = options.PrewarmConnections;
        _console = new EngineConsole(options.Console);
        foreach (ConfigWarning warning in SettingsFile.Warnings(settings)) _console.Warning(warning);
        _time = new EpochAnchor(clock);
        IdleStrategy = EngineConfiguration.ResolveIdleStrategy(settings, options);
        int[] cpus = EngineConfiguration.ResolveCpuAffinity(settings, options);
        CpuAffinity = cpus;

        _factory = new SessionFactory(options.MessageStoreFactory, options.SessionLogFactory);
        foreach (SessionSettings s in settings) _factory.ValidateStore(s);
        Dictionary<int, List<SessionSettings>> ports = EngineConfiguration.AcceptorPorts(settings);
        int logonTimeoutSeconds = EngineConfiguration.PendingLogonTimeoutSeconds(settings);
        _pendingLogonTimeout = TimeSpan.FromSeconds(logonTimeoutSeconds);
        _agent = new EngineAgent([], _time, _console, logonTimeoutSeconds, _prewarm, options.MemoryReclaimSurgeConnections);
        _router = new AcceptorRouter(_agent, _console, _prewarm);
        if (options.UnknownSessionHandler is not null) _router.Unknown = CreateUnknownSession;
        bool listen = options.ListenOnAcceptorPorts;
        int preLogon = 64;
        foreach (SessionSettings s in settings)
        {
            if (s.ConnectionType == ConnectionType.Acceptor) preLogon = Math.Max(preLogon, Math.Min(s.PreLogonMaxMessageSize, s.MaxMessageSize));
        }
        _preLogonMaxBodyLength = preLogon;

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
            foreach (SessionSettings s in settings)
            {
                FixSession session = _factory.Create(s, application, epochNs);
                sessions.Add(session);
                SessionSlot slot = NewSlot(session);
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
        foreach (FixSession session in _sessions) session.Latency = _metrics.CreateSessionLatency(session.Id, _time.EpochNow);
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

    /// <summary>All sessions, in the order they were configured or added (a snapshot: sessions added or removed later are
    /// not reflected in a list already read).</summary>
    /// <remarks>A session's members must only be used by the thread running it: inside that session's own application
    /// callbacks (the agent thread for busy-poll sessions; the connection's receive thread or a socket completion thread,
    /// under the session's gate, for dedicated, completion-mode and TLS sessions), except
    /// <see cref="FixSession.TrySendFromAnyThread{TState}(ReadOnlySpan{byte}, long, in TState, BodyWriter{TState})"/>
    /// (any thread). In dedicated and completion mode two sessions' callbacks may run at the same time on different threads,
    /// so a callback must not use another session directly.</remarks>
    public IReadOnlyList<FixSession> Sessions => _sessions;

    /// <summary>Tests: the engine thread's wake-up (disposed by <see cref="Dispose"/>).</summary>
    internal IdleWakeup AgentWakeup => _agentWakeup;

    /// <summary>Diagnostics (benchmarks, tests): how many times a thread waited for the session's gate (see
    /// <see cref="SessionSlot.GateWaits"/>); 0 for an unknown session.</summary>
    internal long GateWaitsOf(SessionId id) => _byId.TryGetValue(id, out SessionSlot? slot) ? Interlocked.Read(ref slot.GateWaits) : 0;

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

    /// <summary>Adds a session to the engine, running or not: an acceptor session on a port the engine already listens on
    /// (its per-port keys must agree with the port's) or on a new port (listened on at once when the engine runs), or an
    /// initiator session, which starts connecting.</summary>
    /// <param name="settings">The session's settings (validated here; <c>IdleStrategy</c> and <c>CpuAffinity</c> are the
    /// engine's and are not read).</param>
    /// <returns>The new session.</returns>
    /// <exception cref="ConfigException">Invalid settings, a per-port key that disagrees with the port's sessions, a
    /// <c>MaxMessageSize</c> larger than the port was opened for, or a certificate that cannot be loaded.</exception>
    /// <exception cref="ArgumentException">The engine already runs a session with this SessionID, or an acceptor session
    /// with the same BeginString and CompIDs.</exception>
    /// <exception cref="InvalidOperationException">The engine is stopping, stopped or disposed.</exception>
    /// <exception cref="Store.MessageStoreException">The session's store cannot be opened.</exception>
    /// <exception cref="System.Net.Sockets.SocketException">A new acceptor port cannot be listened on.</exception>
    /// <remarks>Any thread, including a session callback. The store is opened and the log created on the calling thread;
    /// the engine thread picks the session up on its next duty cycle.</remarks>
    public FixSession AddSession(SessionSettings settings)
    {
        ArgumentNullException.ThrowIfNull(settings);
        settings.Validate();
        lock (_control)
        {
            return Add(settings).Session;
        }
    }

    /// <summary>Removes a session from the engine: a logged-on session sends a Logout and waits for the reply (at most its
    /// LogoutTimeout), then it is disconnected, taken out of the engine (no reconnect, no Logon routed to it any more) and
    /// disposed (its store closed; messages still handed over are reported to <see cref="IApplication.OnSendNotStored"/>),
    /// and its log handed back to the log factory (<see cref="ISessionLogFactory.Release"/>: with the built-in
    /// <c>FileLogPath</c> log, everything the session logged, its Logout included, is written, then its producers are
    /// released and its per-session files closed before this returns). An acceptor port left without sessions stops
    /// listening, unless an <see cref="EngineOptions.UnknownSessionHandler"/> may still create sessions on it. The same
    /// applies to a session an <see cref="EngineOptions.UnknownSessionHandler"/> created.</summary>
    /// <param name="id">The session.</param>
    /// <returns>True once removed; false when the engine has no such session.</returns>
    /// <exception cref="InvalidOperationException">Called on the engine's thread or inside a session callback (the removal
    /// waits for the engine thread, which may be waiting for that callback): call it from another thread.</exception>
    /// <exception cref="TimeoutException">The engine thread did not finish the removal in time (it stays out of the engine).</exception>
    /// <remarks>Blocks for at most the session's LogoutTimeout plus a few seconds (plus up to 10 s for a log drain that
    /// is behind).</remarks>
    public bool RemoveSession(SessionId id)
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
                if (other.Gate is object gate && Monitor.IsEntered(gate))
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
            lock (_control)
            {
                foreach (Port p in _ports.Values) ports.Add(p.Listener.BoundPort);
            }
            return ports;
        }
    }
}
