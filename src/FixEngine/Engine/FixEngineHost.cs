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
public sealed class FixEngineHost : IDisposable
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

    /// <summary>One listening port: the listener, the settings it was built from (per-port keys are checked against
    /// them) and the sessions on it.</summary>
    private sealed class Port(Listener listener, SessionSettings reference, int maxMessageSize)
    {
        public Listener Listener { get; } = listener;

        public SessionSettings Reference { get; } = reference;

        public int MaxMessageSize { get; } = maxMessageSize;

        public int Sessions { get; set; }
    }

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
        if (settings.Count == 0) throw new ArgumentException("no sessions configured (a settings file needs at least one [SESSION] section)", nameof(settings));
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

    /// <summary>Binds the acceptor ports and starts the engine thread.</summary>
    /// <remarks>Returns once the ports are bound and the engine thread runs; initiators connect and log on in the
    /// background.</remarks>
    public void Start()
    {
        lock (_control)
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            foreach (Port p in _ports.Values) p.Listener.Start();
            _started = true;
            _runner.Start();
        }
    }

    /// <summary>Binds the acceptor ports and starts the engine thread (see <see cref="Start"/>); for a generic host's
    /// <c>IHostedService.StartAsync</c>.</summary>
    /// <param name="cancellationToken">Checked before starting.</param>
    /// <returns>A task complete once the ports are bound and the engine thread runs (binding and starting a thread do not
    /// wait on the network, so this completes synchronously).</returns>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled before the start.</exception>
    public Task StartAsync(CancellationToken cancellationToken = default)
    {
        if (cancellationToken.IsCancellationRequested) return Task.FromCanceled(cancellationToken);
        Start();
        return Task.CompletedTask;
    }

    /// <summary>Logs every session out (waiting up to <paramref name="timeout"/> for the replies), then stops the engine thread.</summary>
    /// <param name="timeout">Longest wait for orderly logouts.</param>
    /// <remarks>Blocks the calling thread; <see cref="StopAsync(TimeSpan, CancellationToken)"/> waits without holding one.</remarks>
    public void Stop(TimeSpan timeout)
    {
        lock (_control)
        {
            _stopped = true;
            if (!_agent.BeginStop()) return;
            foreach (Port p in _ports.Values) p.Listener.Stop();
        }
        // The agent signals once no session is connected (or once it has closed).
        if (_runner.IsRunning) _agent.WaitLoggedOut(timeout);
        _runner.Stop(TimeSpan.FromSeconds(5));
        _hosted.CloseAll("engine stopped");
    }

    /// <summary>Logs every session out and stops the engine thread, without blocking a thread while the Logouts are
    /// answered: stops accepting, asks each logged-on session to send a Logout, waits (asynchronously) until no session
    /// is connected or <paramref name="timeout"/> has passed or <paramref name="cancellationToken"/> is cancelled, then
    /// closes what is still connected and stops the engine thread.</summary>
    /// <param name="timeout">Longest wait for orderly logouts; <see cref="Timeout.InfiniteTimeSpan"/> to wait for the
    /// token alone.</param>
    /// <param name="cancellationToken">Ends the wait for logouts early (e.g. the host's shutdown timeout): the remaining
    /// connections are closed at once. The task still completes normally.</param>
    /// <returns>A task complete once the engine thread has closed every connection (at most about 5 s after the wait
    /// for logouts ends, unless an application callback blocks the engine thread): true when no session was still
    /// connected when the wait ended (every Logout was answered), false when some were closed without it.</returns>
    /// <remarks>Messages handed over with <see cref="FixSession.TrySendFromAnyThread{TState}(ReadOnlySpan{byte}, long, in TState, BodyWriter{TState})"/>
    /// are stored (and sent while connected) before the Logout, as with <see cref="Stop"/>. A second call waits for the
    /// stop in progress.</remarks>
    public Task<bool> StopAsync(TimeSpan timeout, CancellationToken cancellationToken = default)
    {
        if (timeout != Timeout.InfiniteTimeSpan) ArgumentOutOfRangeException.ThrowIfLessThan(timeout, TimeSpan.Zero);
        bool began;
        lock (_control)
        {
            _stopped = true;
            began = _agent.BeginStop();
        }
        if (!began)
        {
            // Already stopping: wait for that stop (until the agent has closed); an engine that never ran had nothing to log out.
            if (_runner.IsRunning) return AwaitOtherStopAsync(cancellationToken);
            return Task.FromResult(!_agent.ClosedTask.IsCompleted || _agent.AllLoggedOut);
        }
        return StopCoreAsync(timeout, cancellationToken);
    }

    private async Task<bool> AwaitOtherStopAsync(CancellationToken cancellationToken)
    {
        await _agent.ClosedTask.WaitAsync(cancellationToken).ConfigureAwait(false);
        return _agent.AllLoggedOut;
    }

    /// <summary>Logs every session out and stops the engine thread, waiting for the Logouts without blocking a thread
    /// until <paramref name="cancellationToken"/> is cancelled (see <see cref="StopAsync(TimeSpan, CancellationToken)"/>).</summary>
    /// <param name="cancellationToken">Ends the wait for logouts: the remaining connections are closed at once.</param>
    /// <returns>A task complete once the engine thread has closed every connection: true when every Logout was answered.</returns>
    public Task<bool> StopAsync(CancellationToken cancellationToken) => StopAsync(Timeout.InfiniteTimeSpan, cancellationToken);

    private async Task<bool> StopCoreAsync(TimeSpan timeout, CancellationToken cancellationToken)
    {
        lock (_control)
        {
            foreach (Port p in _ports.Values) p.Listener.Stop();
        }
        bool loggedOut = true;
        if (_runner.IsRunning)
        {
            try
            {
                await _agent.LoggedOutTask.WaitAsync(timeout, cancellationToken).ConfigureAwait(false);
            }
            catch (TimeoutException)
            {
                // Some peers did not answer in time: their connections are closed below.
                loggedOut = false;
            }
            catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
            {
                // Out of time (the host is shutting down): close what is left now.
                loggedOut = false;
            }
            // Asks the engine thread to finish its duty cycle and close (connections, sessions); Join(0) does not wait.
            _runner.Stop(TimeSpan.Zero);
            try
            {
                await _agent.ClosedTask.WaitAsync(TimeSpan.FromSeconds(5), CancellationToken.None).ConfigureAwait(false);
            }
            catch (TimeoutException)
            {
                // An application callback blocks the engine thread; Dispose waits for it again.
            }
        }
        _hosted.CloseAll("engine stopped");
        return loggedOut;
    }

    /// <summary>Runs one inbound acceptor connection that a hosting server accepted (Kestrel through
    /// <see cref="AspNetCore.FixConnectionHandler"/>, or any <see cref="IDuplexPipe"/>): its Logon is routed to the
    /// acceptor session with its CompIDs, as on the engine's own listener, and the session runs over the pipe until the
    /// connection ends.</summary>
    /// <param name="transport">The connection's pipe (Kestrel's <c>ConnectionContext.Transport</c>); the engine completes
    /// both ends when it is done.</param>
    /// <param name="remoteEndPoint">The peer, for the log; null if unknown.</param>
    /// <param name="connectionClosed">The server's signal that the connection is gone (Kestrel's
    /// <c>ConnectionContext.ConnectionClosed</c>).</param>
    /// <param name="closingRequested">The server's request to end the connection gracefully (Kestrel's
    /// <c>IConnectionLifetimeNotificationFeature.ConnectionClosedRequested</c>, at its shutdown): a logged-on session
    /// sends a Logout and the connection ends when the peer answers or after <c>LogoutTimeout</c>.</param>
    /// <returns>A task that completes when the connection has ended (Logout, error, peer or engine stop); it does not
    /// fault for the connection's errors, which are logged as its close reason.</returns>
    /// <remarks>
    /// <para>Sessions are acceptor sessions of this engine; with <see cref="EngineOptions.ListenOnAcceptorPorts"/> false
    /// the engine binds no port itself and the server's listener (with its TLS, connection limits and filters) is the
    /// only way in. A session on a port the engine also listens on must not use <c>ReceiveMode=BusyPoll</c> (the
    /// connection is then refused with that reason).</para>
    /// <para>Before its Logon a connection may send at most <c>PreLogonMaxMessageSize</c> per message, 4 KiB of leading
    /// garbage, and must send its Logon within the engine's pending-Logon timeout. After it, the session's own limits apply.
    /// The pipe path costs more than the engine's socket transports (see docs/benchmarks/pipe-transport.md).</para>
    /// </remarks>
    /// <exception cref="ArgumentNullException"><paramref name="transport"/> is null.</exception>
    public async Task RunAcceptorConnectionAsync(IDuplexPipe transport, string? remoteEndPoint = null, CancellationToken connectionClosed = default, CancellationToken closingRequested = default)
    {
        ArgumentNullException.ThrowIfNull(transport);
        var connection = new PipeEngineConnection(transport, remoteEndPoint ?? "?", _preLogonMaxBodyLength, _router, _time);
        if (_agent.IsStopping || !_hosted.TryAdd(connection))
        {
            connection.Close("engine stopping");
            await transport.Output.CompleteAsync().ConfigureAwait(false);
            await transport.Input.CompleteAsync().ConfigureAwait(false);
            _console.Refused(connection.RemoteEndPoint, "engine stopping");
            return;
        }
        _console.Accepted(connection.RemoteEndPoint);
        try
        {
            await connection.RunAsync(_pendingLogonTimeout, connectionClosed, closingRequested, _console).ConfigureAwait(false);
        }
        finally
        {
            _hosted.Remove(connection);
        }
    }

    /// <summary>Stops the engine (2 s logout wait) and releases sessions, stores, logs, certificates and the engine
    /// thread's wake-up event.</summary>
    /// <remarks>Sessions read earlier stay safe to call: <see cref="FixSession.TrySendFromAnyThread{TState}(ReadOnlySpan{byte}, long, in TState, BodyWriter{TState})"/>
    /// returns false (the session is disposed) and never throws for the disposed engine. Each session's log is handed back
    /// to <see cref="EngineOptions.SessionLogFactory"/> (<see cref="ISessionLogFactory.Release"/>); the engine's own
    /// log factory is closed.</remarks>
    public void Dispose()
    {
        Stop(TimeSpan.FromSeconds(2));
        // False when an application callback still blocks the engine thread after 5 s: it may still park on the wake-up.
        bool agentEnded = _runner.Stop(TimeSpan.FromSeconds(5));
        SessionSlot[] slots;
        lock (_control)
        {
            if (_disposed) return;
            _disposed = true;
            slots = [.. _all];
        }
        // Outside the control lock: a callback still running under a session's gate may be waiting for it (AddSession).
        foreach (SessionSlot slot in slots)
        {
            using (slot.Enter(0))
            {
                slot.Session.Dispose();
                ReleaseLog(slot.Session, engineDisposing: true);
            }
        }
        lock (_control)
        {
            _factory.Dispose();
            ReleaseOwned();
        }
        // Last: application threads may still signal it (a hand-off racing this Dispose), which IdleWakeup ignores once
        // disposed; only the engine thread parks on it, so it is disposed only once that thread has ended.
        if (agentEnded) _agentWakeup.Dispose();
    }

    // After the session was disposed (inside its gate): hands its log back to the log factory, once. A failing user factory
    // is reported, never thrown into RemoveSession's caller after the removal or out of Dispose.
    private void ReleaseLog(FixSession session, bool engineDisposing = false)
    {
        try
        {
            _factory.Release(session, engineDisposing);
        }
        catch (Exception e)
        {
            _console.LogReleaseFailed(session.Id, e);
        }
    }

    // Under _control: builds the session, its slot and (for a new acceptor port) its listener, then publishes it.
    private SessionSlot Add(SessionSettings settings)
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        if (_stopped || _agent.IsStopping) throw new InvalidOperationException($"cannot add session {settings.SessionId}: the engine is stopping or stopped");
        SessionId id = settings.SessionId;
        if (_byId.ContainsKey(id)) throw new ArgumentException($"the engine already runs session {id}", nameof(settings));
        bool acceptor = settings.ConnectionType == ConnectionType.Acceptor;
        if (acceptor && _router.Contains(settings))
        {
            throw new ArgumentException($"the engine already has an acceptor session for {settings.BeginString} {settings.SenderCompID}->{settings.TargetCompID}", nameof(settings));
        }
        foreach (ConfigWarning warning in SettingsFile.Warnings([settings])) _console.Warning(warning);
        Port? newPort = null;
        // Hosted acceptors (ListenOnAcceptorPorts = false): the server that owns the port hands the connections over.
        if (acceptor && _options.ListenOnAcceptorPorts)
        {
            int portNumber = settings.SocketAcceptPort!.Value;
            if (_ports.TryGetValue(portNumber, out Port? port))
            {
                EngineConfiguration.CheckPort(portNumber, [port.Reference, settings]);
                if (settings.MaxMessageSize > port.MaxMessageSize)
                {
                    throw SettingsOrigin.Error(settings, nameof(SessionSettings.MaxMessageSize),
                        $"session {id}: {settings.MaxMessageSize} is larger than the {port.MaxMessageSize} SocketAcceptPort {portNumber} was opened with");
                }
            }
            else
            {
                newPort = NewPort(portNumber, settings, settings.MaxMessageSize);
            }
        }
        FixSession session;
        SessionSlot slot;
        try
        {
            session = _factory.Create(settings, _application, _time.EpochNow());
            session.AgentWakeup = _agentWakeup;
            session.Latency = _metrics.CreateSessionLatency(session.Id, _time.EpochNow);
            try
            {
                slot = NewSlot(session, newPort);
                if (newPort is not null && _started) newPort.Listener.Start();
            }
            catch
            {
                session.Dispose();
                ReleaseLog(session);
                throw;
            }
        }
        catch
        {
            newPort?.Listener.Stop();
            throw;
        }
        if (newPort is not null)
        {
            _ports.Add(settings.SocketAcceptPort!.Value, newPort);
            if (_started) _console.Listening(newPort.Listener.BoundPort);
        }
        _all.Add(slot);
        Publish();
        _agent.Submit(new SessionChange(slot, remove: false));
        if (acceptor)
        {
            _ports[settings.SocketAcceptPort!.Value].Sessions++;
            _router.Add(settings, slot);
        }
        _console.SessionAdded(id);
        return slot;
    }

    // Under _control: the snapshots read without a lock.
    private void Publish()
    {
        var byId = new Dictionary<SessionId, SessionSlot>(_all.Count);
        var sessions = new FixSession[_all.Count];
        for (int i = 0; i < _all.Count; i++)
        {
            byId.Add(_all[i].Session.Id, _all[i]);
            sessions[i] = _all[i].Session;
        }
        _byId = byId;
        _sessions = sessions;
    }

    private Port NewPort(int port, SessionSettings first, int maxMessageSize)
    {
        TlsOptions? tls = first.SocketUseSSL ? EngineTls.ForAcceptor(first, _owned) : null;
        IPAddress[] addresses = Listener.DefaultAddresses(HostResolver.ResolveAcceptHost(first));
        var gate = new UnauthenticatedGate(port, first.MaxUnauthenticatedConnections, first.MaxUnauthenticatedConnectionsPerAddress, _console);
        var listener = new Listener(addresses, port, EngineConfiguration.TransportOptions(first, maxMessageSize), tls, _router, _agent, _time, _console, gate, first);
        return new Port(listener, first, maxMessageSize);
    }

    private SessionSlot NewSlot(FixSession session, Port? newPort = null)
    {
        SessionSettings s = session.Settings;
        if (s.ConnectionType == ConnectionType.Acceptor)
        {
            // A hosted connection's thread (no engine listener on the port) enters the session through its gate, so such a
            // session always has one.
            Port? port = newPort ?? (_ports.TryGetValue(s.SocketAcceptPort!.Value, out Port? existing) ? existing : null);
            var acceptorSlot = new SessionSlot(session, port?.Listener.Guarded ?? true);
            acceptorSlot.EnableDirectSend(_time);
            return acceptorSlot;
        }
        TcpConnectionOptions transport = EngineConfiguration.TransportOptions(s, s.MaxMessageSize);
        EngineTls.InitiatorTls? tls = s.SocketUseSSL ? EngineTls.ForInitiator(s, _owned) : null;
        var slot = new SessionSlot(session, InitiatorConnector.IsGuarded(transport, tls is not null));
        slot.Initiator = new InitiatorConnector(slot, s.SocketConnectEndpoints, transport, tls, _agent, _time, _console, _prewarm, _options.ResolveHost);
        slot.EnableDirectSend(_time);
        return slot;
    }

    // The receiving thread of a connection whose Logon names a session the engine does not run (AcceptorRouter.Route):
    // asks the application's handler, and makes the session it supplies (or answers with a Logout and closes).
    private SessionSlot? CreateUnknownSession(SessionConnection connection, ReadOnlySpan<byte> logon, long epochNs)
    {
        var index = new FixMessageIndex(64);
        index.Parse(logon);
        var m = new FixMessage(logon, index);
        m.TryGetSpan(FixTags.BeginString, out ReadOnlySpan<byte> beginBytes);
        m.TryGetSpan(FixTags.SenderCompID, out ReadOnlySpan<byte> theirSender);
        m.TryGetSpan(FixTags.TargetCompID, out ReadOnlySpan<byte> theirTarget);
        string begin = Encoding.ASCII.GetString(beginBytes);
        var id = new SessionId(begin, Encoding.ASCII.GetString(theirTarget), Encoding.ASCII.GetString(theirSender));
        string remote = connection.RemoteEndPoint;
        if (!m.TryGetSpan(FixTags.MsgType, out ReadOnlySpan<byte> msgType) || !msgType.SequenceEqual("A"u8))
        {
            connection.Close($"no session for {begin} {id.TargetCompID}->{id.SenderCompID} (first message is not a Logon)");
            return null;
        }
        string reason;
        lock (_control)
        {
            // Another connection may have created it meanwhile.
            if (_router.Find(id.BeginString, id.SenderCompID, id.TargetCompID) is SessionSlot existing) return existing;
            if (_stopped || _agent.IsStopping || _disposed)
            {
                connection.Close("engine stopping");
                return null;
            }
            UnknownSessionDecision decision;
            try
            {
                decision = _options.UnknownSessionHandler!(new UnknownLogon(id, connection.AcceptPort, connection.Transport.RemoteEndPoint, logon));
            }
            catch (Exception e)
            {
                decision = UnknownSessionDecision.Refuse($"the unknown-session handler failed: {e.GetType().Name}: {e.Message}");
            }
            if (decision.Settings is SessionSettings supplied)
            {
                SessionSettings settings = supplied.SocketAcceptPort is null && supplied.ConnectionType == ConnectionType.Acceptor
                    ? supplied with { SocketAcceptPort = connection.AcceptPort }
                    : supplied;
                string? wrong = Mismatch(settings, id, connection.AcceptPort);
                if (wrong is null)
                {
                    try
                    {
                        settings.Validate();
                        SessionSlot slot = Add(settings);
                        _console.Accepted($"{remote}: unknown session {id} created by the UnknownSessionHandler");
                        return slot;
                    }
                    catch (Exception e)
                    {
                        // Whatever stops the session from being made (settings, store, certificates) refuses this Logon
                        // and never escapes into the receiving thread's loop.
                        wrong = $"the settings supplied for it cannot be used: {e.Message}";
                    }
                }
                reason = wrong;
            }
            else
            {
                reason = decision.RefusalReason ?? "unknown session";
            }
        }
        RefuseLogon(connection, begin, id, reason, epochNs);
        return null;
    }

    private static string? Mismatch(SessionSettings s, SessionId id, int port)
    {
        if (s.ConnectionType != ConnectionType.Acceptor) return "the settings supplied for it are not an acceptor's (ConnectionType)";
        if (s.BeginString != id.BeginString || s.SenderCompID != id.SenderCompID || s.TargetCompID != id.TargetCompID)
        {
            return $"the settings supplied for it are for {s.BeginString} {s.SenderCompID}->{s.TargetCompID}, not {id.BeginString} {id.SenderCompID}->{id.TargetCompID}";
        }
        if (s.SocketAcceptPort != port) return $"the settings supplied for it name SocketAcceptPort {s.SocketAcceptPort}, but the Logon arrived on port {port}";
        return null;
    }

    // Answers a refused Logon with a Logout (MsgSeqNum 1, Text = the reason) and closes once it has left; the agent logs the
    // close with the peer's address and this reason.
    private void RefuseLogon(SessionConnection connection, string beginString, SessionId id, string reason, long epochNs)
    {
        string text = reason.Replace('\u0001', ' ').Replace('\r', ' ').Replace('\n', ' ');
        Span<byte> buffer = stackalloc byte[1024];
        var w = new FixWriter(buffer);
        w.Begin(Encoding.ASCII.GetBytes(beginString), "5"u8);
        w.Write(FixTags.MsgSeqNum, 1);
        w.Write(FixTags.SenderCompID, id.SenderCompID);
        w.Write(FixTags.TargetCompID, id.TargetCompID);
        w.WriteTimestamp(FixTags.SendingTime, epochNs, TimestampPrecision.Millis);
        w.Write(FixTags.Text, text.Length > 512 ? text[..512] : text);
        if (w.TryFinish(out int length)) connection.Send(buffer[..length]);
        connection.Close($"Logon for unknown session {id} refused: {text}");
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
