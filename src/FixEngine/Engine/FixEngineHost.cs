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
/// <para>The public façade of the engine: it builds the sessions and the parts that run them and hands every call to them.
/// Which thread runs what (the engine agent, receiving threads, session gates), receive modes, flow control and time are
/// described in docs/architecture.md. Every session on one SocketAcceptPort must agree on the receive mode, the SSL keys
/// and the socket options (the constructor throws a <see cref="ConfigException"/> naming the key and the two sessions
/// otherwise). <see cref="AddSession"/> and <see cref="RemoveSession"/> change the sessions of a running engine; an
/// <see cref="EngineOptions.UnknownSessionHandler"/> creates sessions for Logons from CompIDs not configured in advance.</para>
/// <para>Public members are thread-safe unless stated. Start-up allocates; the duty cycle and the receive paths of busy-poll,
/// dedicated and completion-mode TCP and of TLS do not in steady state.</para>
/// </remarks>
public sealed class FixEngineHost : IDisposable
{
    private readonly EngineRuntime _engine;

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
        _engine = new EngineRuntime(settings, application, options);
        try
        {
            // HttpAcceptPort: the web console of FixEngine.AspNetCore (an error naming the package when it is absent).
            _addOn = EngineAddOns.Create(this, settings);
        }
        catch
        {
            _engine.Dispose();
            throw;
        }
    }

    private readonly IEngineAddOn? _addOn;

    /// <summary>What the settings file started with the engine (HttpAcceptPort's console), or null.</summary>
    internal IEngineAddOn? AddOn => _addOn;

    /// <summary>The engine behind the façade (the admin console of FixEngine.AspNetCore runs operators' actions through it).</summary>
    internal EngineRuntime Runtime => _engine;

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
    /// <remarks>A session's members must only be used inside that session's own application callbacks, except
    /// <see cref="FixSession.TrySendFromAnyThread{TState}(ReadOnlySpan{byte}, long, in TState, BodyWriter{TState})"/>
    /// (any thread); two sessions' callbacks may run at once on different threads. Which thread that is, per receive
    /// mode: docs/architecture.md.</remarks>
    public IReadOnlyList<FixSession> Sessions => _engine.Sessions;

    /// <summary>The sessions left out at start-up because <c>ContinueInitializationOnError=Y</c> and their settings or
    /// files (data dictionary, message store, certificate) failed to load, each with its error (also written to the
    /// console, <see cref="EngineOptions.Console"/>, or to standard error without one); empty when every session started.</summary>
    public IReadOnlyList<SkippedSession> SkippedSessions => _engine.Skipped;

    /// <summary>Tests: the engine thread's wake-up (disposed by <see cref="Dispose"/>).</summary>
    internal IdleWakeup AgentWakeup => _engine.AgentWakeup;

    /// <summary>Diagnostics (benchmarks, tests): how many times a thread waited for the session's gate (see
    /// <see cref="SessionSlot.GateWaits"/>); 0 for an unknown session.</summary>
    internal long GateWaitsOf(SessionId id) => _engine.GateWaitsOf(id);

    /// <summary>The session with <paramref name="id"/>, if this engine runs it (any thread).</summary>
    /// <param name="id">BeginString, SenderCompID, TargetCompID and qualifier, as configured.</param>
    /// <param name="session">The session, or null.</param>
    /// <returns>Whether there is one.</returns>
    public bool TryGetSession(SessionId id, [System.Diagnostics.CodeAnalysis.NotNullWhen(true)] out FixSession? session)
        => _engine.TryGetSession(id, out session);

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
        => _engine.TrySend(id, msgType, in state, body);

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
    public FixSession AddSession(SessionSettings settings) => _engine.AddSession(settings);

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
    public bool RemoveSession(SessionId id) => _engine.RemoveSession(id);

    /// <summary>The agent's idle strategy in force (from <see cref="EngineOptions"/> or the sessions' common setting).</summary>
    public IdleStrategyKind IdleStrategy => _engine.IdleStrategy;

    /// <summary>The CPUs the agent thread is pinned to; empty when not pinned.</summary>
    public IReadOnlyList<int> CpuAffinity => _engine.CpuAffinity;

    /// <summary>The ports the acceptors listen on (useful with port 0), available after <see cref="Start"/>.</summary>
    public IReadOnlyList<int> AcceptorPorts => _engine.AcceptorPorts;

    /// <summary>The port an acceptor session listens on: its <c>SocketAcceptPort</c>, or the one the system picked for
    /// <c>SocketAcceptPort=0</c>.</summary>
    /// <param name="id">The acceptor session.</param>
    /// <param name="port">The bound port, or 0.</param>
    /// <returns>False for an initiator, an unknown session, an engine not started yet, or hosted acceptors
    /// (<see cref="EngineOptions.ListenOnAcceptorPorts"/> false).</returns>
    public bool TryGetAcceptorPort(SessionId id, out int port) => _engine.TryGetAcceptorPort(id, out port);

    /// <summary>Binds the acceptor ports and starts the engine thread.</summary>
    /// <remarks>Returns once the ports are bound and the engine thread runs; initiators connect and log on in the
    /// background.</remarks>
    /// <exception cref="ConfigException">The web console's <c>HttpAcceptPort</c> (FixEngine.AspNetCore) cannot be bound
    /// (the port is taken, or not allowed): the message names the file, line and key; the engine is stopped again.</exception>
    public void Start()
    {
        _engine.Start();
        try
        {
            _addOn?.Start();
        }
        catch
        {
            _engine.Stop(TimeSpan.Zero);
            throw;
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
    public void Stop(TimeSpan timeout) => _engine.Stop(timeout);

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
        => _engine.StopAsync(timeout, cancellationToken);

    /// <summary>Logs every session out and stops the engine thread, waiting for the Logouts without blocking a thread
    /// until <paramref name="cancellationToken"/> is cancelled (see <see cref="StopAsync(TimeSpan, CancellationToken)"/>).</summary>
    /// <param name="cancellationToken">Ends the wait for logouts: the remaining connections are closed at once.</param>
    /// <returns>A task complete once the engine thread has closed every connection: true when every Logout was answered.</returns>
    public Task<bool> StopAsync(CancellationToken cancellationToken) => StopAsync(Timeout.InfiniteTimeSpan, cancellationToken);

    /// <summary>Runs one inbound acceptor connection that a hosting server accepted (Kestrel through
    /// <c>FixConnectionHandler</c> of FixEngine.AspNetCore, or any <see cref="IDuplexPipe"/>): its Logon is routed to the
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
    public Task RunAcceptorConnectionAsync(IDuplexPipe transport, string? remoteEndPoint = null, CancellationToken connectionClosed = default, CancellationToken closingRequested = default)
        => _engine.RunAcceptorConnectionAsync(transport, remoteEndPoint, connectionClosed, closingRequested);

    /// <summary>Stops the engine (2 s logout wait) and releases sessions, stores, logs, certificates and the engine
    /// thread's wake-up event.</summary>
    /// <remarks>Sessions read earlier stay safe to call: <see cref="FixSession.TrySendFromAnyThread{TState}(ReadOnlySpan{byte}, long, in TState, BodyWriter{TState})"/>
    /// returns false (the session is disposed) and never throws for the disposed engine. Each session's log is handed back
    /// to <see cref="EngineOptions.SessionLogFactory"/> (<see cref="ISessionLogFactory.Release"/>); the engine's own
    /// log factory is closed.</remarks>
    public void Dispose()
    {
        _addOn?.Dispose();
        _engine.Dispose();
    }

    /// <summary>An <see cref="IClock"/> over an epoch-only clock: monotonic time is the epoch time.</summary>
    private sealed class EpochOnlyClock(IEpochClock clock) : IClock
    {
        public long NowNs => clock.EpochNs;

        public long EpochNs => clock.EpochNs;
    }
}
