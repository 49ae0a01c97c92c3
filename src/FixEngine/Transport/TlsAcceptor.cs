using System;
using System.Net;
using System.Net.Sockets;
using System.Threading;
using System.Threading.Tasks;

namespace FixEngine.Transport;

/// <summary>Listens for TCP connections, performs the TLS server handshake and hands each <see cref="TlsConnection"/> to a callback.</summary>
/// <remarks>
/// Handshakes run concurrently on thread-pool threads; the callback may be called concurrently for different connections.
/// The callback returns the handler (null refuses the connection); the connection receives only after <see cref="TransportConnection.Start"/>.
/// </remarks>
internal sealed class TlsAcceptor : IDisposable
{
    private readonly IPEndPoint _endPoint;
    private readonly TcpConnectionOptions _options;
    private readonly TlsOptions _tls;
    private readonly Func<TlsConnection, IConnectionHandler?> _onAccepted;
    private readonly int _backlog;
    private readonly CancellationTokenSource _stop = new();
    private Socket? _listener;
    private long _accepted;
    private long _handshakeFailures;

    /// <summary>Creates the acceptor (not yet listening).</summary>
    /// <param name="endPoint">Address and port (0 = any free port).</param>
    /// <param name="options">Connection options.</param>
    /// <param name="tls">TLS options with <see cref="TlsOptions.ServerCertificate"/>.</param>
    /// <param name="onAccepted">Returns the handler for each authenticated connection, or null to refuse it.</param>
    /// <param name="backlog">Listen backlog (capped by the OS, on Linux at net.core.somaxconn).</param>
    public TlsAcceptor(IPEndPoint endPoint, TcpConnectionOptions options, TlsOptions tls, Func<TlsConnection, IConnectionHandler?> onAccepted, int backlog = SocketSetup.DefaultBacklog)
    {
        ArgumentNullException.ThrowIfNull(endPoint);
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(tls);
        ArgumentNullException.ThrowIfNull(onAccepted);
        ArgumentOutOfRangeException.ThrowIfNegative(backlog);
        options.Validate();
        _endPoint = endPoint;
        _options = options;
        _tls = tls;
        _onAccepted = onAccepted;
        _backlog = backlog;
    }

    /// <summary>The bound end point once started.</summary>
    public IPEndPoint LocalEndPoint => (IPEndPoint?)_listener?.LocalEndPoint ?? _endPoint;

    /// <summary>Connections authenticated and given a handler.</summary>
    public long AcceptedCount => Interlocked.Read(ref _accepted);

    /// <summary>Handshakes that failed or timed out.</summary>
    public long HandshakeFailureCount => Interlocked.Read(ref _handshakeFailures);

    /// <summary>Binds, listens and starts accepting.</summary>
    public void Start()
    {
        Socket listener = SocketSetup.Listen(_endPoint, _backlog);
        _listener = listener;
        _ = AcceptLoopAsync(listener);
    }

    /// <summary>Stops accepting and closes the listener; authenticated connections stay open.</summary>
    public void Stop()
    {
        if (!_stop.IsCancellationRequested)
        {
            _stop.Cancel();
            _listener?.Dispose();
        }
    }

    /// <summary>Same as <see cref="Stop"/>.</summary>
    public void Dispose() => Stop();

    private async Task AcceptLoopAsync(Socket listener)
    {
        while (!_stop.IsCancellationRequested)
        {
            Socket socket;
            try
            {
                socket = await listener.AcceptAsync(_stop.Token).ConfigureAwait(false);
            }
            catch (Exception ex) when (ex is OperationCanceledException or ObjectDisposedException or SocketException)
            {
                if (_stop.IsCancellationRequested)
                {
                    return;
                }
                continue;
            }
            _ = HandshakeAsync(socket);
        }
    }

    private async Task HandshakeAsync(Socket socket)
    {
        TlsConnection connection;
        try
        {
            connection = await TlsConnection.AuthenticateAsServerAsync(socket, _options, _tls, handler: null, _stop.Token).ConfigureAwait(false);
        }
        catch (Exception)
        {
            Interlocked.Increment(ref _handshakeFailures);
            socket.Dispose();
            return;
        }
        IConnectionHandler? handler;
        try
        {
            handler = _onAccepted(connection);
        }
        catch (Exception)
        {
            handler = null;
        }
        if (handler is null)
        {
            connection.Abort("refused by the accept handler");
            return;
        }
        connection.SetHandler(handler);
        Interlocked.Increment(ref _accepted);
    }
}
