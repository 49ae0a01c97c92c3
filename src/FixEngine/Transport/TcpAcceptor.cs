using System;
using System.Net;
using System.Net.Sockets;
using System.Threading;

namespace FixEngine.Transport;

// Design:
// - One listening socket and one reused accept SocketAsyncEventArgs. AcceptLoop posts AcceptAsync and loops
//   (no recursion) while accepts complete synchronously; asynchronous completions re-enter it on the
//   completion thread. Only one accept is ever outstanding, so the accept handler is never called concurrently.
// - Stop sets _stopped and disposes the listener, which aborts the pending accept; the loop then disposes the
//   accept args. Connections already handed out are owned by their handlers and are not closed by Stop.
// - Out of descriptors (EMFILE/ENFILE: SocketError.TooManyOpenSockets): the connection stays in the kernel's backlog,
//   so accepting again at once fails again at once, a spin on the accept thread. The loop instead says so through
//   AcceptFailed (at most once per OutOfDescriptorsReportNs) and posts the next accept OutOfDescriptorsPauseMs later,
//   from a timer; the backlog holds the waiting connections (or the peers time out and retry).

/// <summary>Listens on a TCP end point and hands every accepted connection to an <see cref="IAcceptHandler"/>.</summary>
/// <remarks>
/// IPv4 or IPv6; bound to <see cref="IPAddress.IPv6Any"/> it is dual-mode (accepts IPv4 too). <see cref="Start"/> and
/// <see cref="Stop"/> are thread-safe. Accepting allocates the new socket and connection (not a hot path).
/// </remarks>
internal sealed class TcpAcceptor : IDisposable
{
    private readonly IPEndPoint _endPoint;
    private readonly TcpConnectionOptions _options;
    private readonly IAcceptHandler _acceptHandler;
    private readonly int _backlog;
    private Socket? _listener;
    private SocketAsyncEventArgs? _acceptArgs;
    private int _started;
    private int _stopped;
    private long _accepted;
    private long _refused;
    private long _acceptErrors;
    private long _outOfDescriptors;
    private long _lastOutOfDescriptorsReport = long.MinValue;
    private Timer? _retryTimer;

    /// <summary>How long accepting pauses after the process ran out of descriptors.</summary>
    internal const int OutOfDescriptorsPauseMs = 50;

    /// <summary>Least time between two reports of running out of descriptors.</summary>
    internal const long OutOfDescriptorsReportNs = 10_000_000_000L;

    /// <summary>Told (on the accepting thread) when accepting failed because the process has no descriptor left: the text
    /// names the limit; at most once per 10 s. Set before <see cref="Start"/>.</summary>
    public Action<string>? AcceptFailed { get; init; }

    /// <summary>Accepts that failed because the process had no descriptor left.</summary>
    public long OutOfDescriptorFailures => Interlocked.Read(ref _outOfDescriptors);

    /// <summary>Creates an acceptor (not yet listening).</summary>
    /// <param name="endPoint">Address and port to bind (port 0 picks a free one; see <see cref="LocalEndPoint"/>).</param>
    /// <param name="options">Options for every accepted connection.</param>
    /// <param name="acceptHandler">Supplies each connection's handler.</param>
    /// <param name="backlog">Listen backlog (capped by the OS, on Linux at net.core.somaxconn).</param>
    public TcpAcceptor(IPEndPoint endPoint, TcpConnectionOptions options, IAcceptHandler acceptHandler, int backlog = SocketSetup.DefaultBacklog)
    {
        ArgumentNullException.ThrowIfNull(endPoint);
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(acceptHandler);
        ArgumentOutOfRangeException.ThrowIfNegative(backlog);
        options.Validate();
        _endPoint = endPoint;
        _options = options;
        _acceptHandler = acceptHandler;
        _backlog = backlog;
    }

    /// <summary>Creates an acceptor with a delegate as the accept handler.</summary>
    /// <param name="endPoint">Address and port to bind.</param>
    /// <param name="options">Options for every accepted connection.</param>
    /// <param name="onAccepted">Returns each connection's handler, or null to refuse it.</param>
    /// <param name="backlog">Listen backlog (capped by the OS, on Linux at net.core.somaxconn).</param>
    public TcpAcceptor(IPEndPoint endPoint, TcpConnectionOptions options, Func<TcpConnection, IConnectionHandler?> onAccepted, int backlog = SocketSetup.DefaultBacklog)
        : this(endPoint, options, new DelegateAcceptHandler(onAccepted ?? throw new ArgumentNullException(nameof(onAccepted))), backlog)
    {
    }

    /// <summary>The bound end point (with the actual port) once started; the requested one before.</summary>
    public IPEndPoint LocalEndPoint => (IPEndPoint?)_listener?.LocalEndPoint ?? _endPoint;

    /// <summary>SO_REUSEADDR as the listening socket has it (after <see cref="Start"/>); for tests.</summary>
    internal bool ListenerReuseAddress => _listener is { } l && SocketSetup.GetReuseAddress(l);

    /// <summary>SO_REUSEPORT as the listening socket has it (after <see cref="Start"/>); for tests.</summary>
    internal bool ListenerReusePort => _listener is { } l && SocketSetup.GetReusePort(l);

    /// <summary>Connections accepted and given a handler.</summary>
    public long AcceptedCount => Interlocked.Read(ref _accepted);

    /// <summary>Connections refused by the accept handler (null handler or exception).</summary>
    public long RefusedCount => Interlocked.Read(ref _refused);

    /// <summary>Failed accept operations (e.g. out of file descriptors); accepting continues.</summary>
    public long AcceptErrorCount => Interlocked.Read(ref _acceptErrors);

    /// <summary>Binds, listens and starts accepting.</summary>
    /// <exception cref="InvalidOperationException">Already started.</exception>
    /// <exception cref="SocketException">The bind or listen failed (e.g. the port is in use).</exception>
    public void Start()
    {
        if (Interlocked.Exchange(ref _started, 1) != 0)
        {
            Internal.ThrowHelper.ThrowInvalidOperation("The TcpAcceptor was already started.");
        }
        _listener = SocketSetup.Listen(_endPoint, _backlog, _options.ReuseAddress, _options.ReusePort);
        var args = new SocketAsyncEventArgs(unsafeSuppressExecutionContextFlow: true);
        args.Completed += (_, e) => AcceptLoop(e, completed: true);
        _acceptArgs = args;
        AcceptLoop(args, completed: false);
    }

    /// <summary>Stops accepting and closes the listener. Accepted connections stay open.</summary>
    public void Stop()
    {
        if (Interlocked.Exchange(ref _stopped, 1) != 0)
        {
            return;
        }
        _retryTimer?.Dispose();
        _listener?.Dispose();
    }

    /// <summary>Same as <see cref="Stop"/>.</summary>
    public void Dispose() => Stop();

    private void AcceptLoop(SocketAsyncEventArgs args, bool completed)
    {
        while (true)
        {
            if (completed)
            {
                if (args.SocketError == SocketError.Success)
                {
                    Socket socket = args.AcceptSocket!;
                    args.AcceptSocket = null;
                    OnAccepted(socket);
                }
                else if (args.SocketError is SocketError.OperationAborted or SocketError.Interrupted || Volatile.Read(ref _stopped) != 0)
                {
                    break;
                }
                else if (args.SocketError == SocketError.TooManyOpenSockets)
                {
                    Interlocked.Increment(ref _acceptErrors);
                    OutOfDescriptors(args);
                    return;
                }
                else
                {
                    Interlocked.Increment(ref _acceptErrors);
                }
            }
            if (Volatile.Read(ref _stopped) != 0)
            {
                break;
            }
            args.AcceptSocket = null;
            bool pending;
            try
            {
                pending = _listener!.AcceptAsync(args);
            }
            catch (ObjectDisposedException)
            {
                break;
            }
            if (pending)
            {
                return;
            }
            completed = true;
        }
        args.AcceptSocket?.Dispose();
        args.Dispose();
    }

    // The accepting thread: report (rate-limited) and accept again after a pause, from a timer thread.
    private void OutOfDescriptors(SocketAsyncEventArgs args)
    {
        long count = Interlocked.Increment(ref _outOfDescriptors);
        long now = System.Diagnostics.Stopwatch.GetTimestamp();
        long last = Interlocked.Read(ref _lastOutOfDescriptorsReport);
        if ((last == long.MinValue || System.Diagnostics.Stopwatch.GetElapsedTime(last, now).Ticks * 100 >= OutOfDescriptorsReportNs)
            && Interlocked.CompareExchange(ref _lastOutOfDescriptorsReport, now, last) == last)
        {
            AcceptFailed?.Invoke($"cannot accept a connection on {_endPoint}: the process has no file descriptor left (the open-files limit, ulimit -n / "
                + $"LimitNOFILE=, is {OpenFilesLimitText()}); {count} accept(s) failed so far, accepting again every {OutOfDescriptorsPauseMs} ms");
        }
        if (Volatile.Read(ref _stopped) != 0)
        {
            args.Dispose();
            return;
        }
        Timer timer = _retryTimer ??= new Timer(static state =>
        {
            var self = (TcpAcceptor)state!;
            SocketAsyncEventArgs? pending = self._acceptArgs;
            if (pending is null || Volatile.Read(ref self._stopped) != 0) return;
            self.AcceptLoop(pending, completed: false);
        }, this, Timeout.Infinite, Timeout.Infinite);
        timer.Change(OutOfDescriptorsPauseMs, Timeout.Infinite);
    }

    private static string OpenFilesLimitText()
    {
        try
        {
            foreach (string line in System.IO.File.ReadLines("/proc/self/limits"))
            {
                if (line.StartsWith("Max open files", StringComparison.Ordinal))
                {
                    string[] parts = line.Substring(14).Split(' ', StringSplitOptions.RemoveEmptyEntries);
                    if (parts.Length > 0) return parts[0];
                }
            }
        }
        catch (Exception e) when (e is System.IO.IOException or UnauthorizedAccessException)
        {
            // Not Linux, or no /proc: the limit is not known here.
        }
        return "unknown here";
    }

    private void OnAccepted(Socket socket)
    {
        if (Volatile.Read(ref _stopped) != 0)
        {
            socket.Dispose();
            return;
        }
        TcpConnection connection;
        try
        {
            connection = new TcpConnection(socket, _options, handler: null);
        }
        catch (Exception ex) when (ex is SocketException or ObjectDisposedException)
        {
            // The peer went away before its options could be applied.
            socket.Dispose();
            Interlocked.Increment(ref _acceptErrors);
            return;
        }
        IConnectionHandler? handler;
        try
        {
            handler = _acceptHandler.OnAccepted(connection);
        }
        catch (Exception)
        {
            handler = null;
        }
        if (handler is null)
        {
            Interlocked.Increment(ref _refused);
            connection.Abort("refused by the accept handler");
            return;
        }
        connection.SetHandler(handler);
        Interlocked.Increment(ref _accepted);
    }

    private sealed class DelegateAcceptHandler : IAcceptHandler
    {
        private readonly Func<TcpConnection, IConnectionHandler?> _onAccepted;

        public DelegateAcceptHandler(Func<TcpConnection, IConnectionHandler?> onAccepted) => _onAccepted = onAccepted;

        public IConnectionHandler? OnAccepted(TcpConnection connection) => _onAccepted(connection);
    }
}
