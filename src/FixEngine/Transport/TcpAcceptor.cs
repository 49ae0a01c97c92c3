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
