using System;
using System.Net;
using System.Net.Sockets;
using System.Threading;
using System.Threading.Tasks;

namespace FixEngine.Transport;

/// <summary>What a <see cref="TlsAcceptor"/> tells its owner about connections before and during the handshake.</summary>
/// <remarks>Called on the thread that accepted the connection or ran its handshake; may be called concurrently.</remarks>
public sealed class TlsAcceptorEvents
{
    /// <summary>Asked for every TCP connection before its handshake starts: false closes it at once (e.g. too many
    /// connections without a Logon). When it returns true, exactly one of the accept callback (handshake done) or
    /// <see cref="HandshakeFailed"/> follows.</summary>
    public Func<EndPoint?, bool>? Admit { get; init; }

    /// <summary>A handshake failed: the peer's address and the reason (a plaintext client, a refused or missing certificate,
    /// a protocol mismatch, a timeout, the peer closing).</summary>
    public Action<EndPoint?, string>? HandshakeFailed { get; init; }
}

/// <summary>Listens for TCP connections, performs the TLS server handshake and hands each <see cref="TlsConnection"/> to a callback.</summary>
/// <remarks>
/// Handshakes run concurrently on thread-pool threads; the callback may be called concurrently for different connections.
/// The callback returns the handler (null refuses the connection); the connection receives only after <see cref="TransportConnection.Start"/>.
/// Before the handshake the first bytes are peeked: a client that does not start with a TLS handshake record (a plaintext
/// FIX client) is refused with that reason. A handshake (including that wait) lasts at most <see cref="TlsOptions.HandshakeTimeout"/>.
/// </remarks>
internal sealed class TlsAcceptor : IDisposable
{
    private readonly IPEndPoint _endPoint;
    private readonly TcpConnectionOptions _options;
    private readonly TlsOptions _tls;
    private readonly Func<TlsConnection, IConnectionHandler?> _onAccepted;
    private readonly int _backlog;
    private readonly TlsAcceptorEvents? _events;
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
    /// <param name="events">Admission before the handshake and handshake failures, or null.</param>
    public TlsAcceptor(IPEndPoint endPoint, TcpConnectionOptions options, TlsOptions tls, Func<TlsConnection, IConnectionHandler?> onAccepted,
        int backlog = SocketSetup.DefaultBacklog, TlsAcceptorEvents? events = null)
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
        _events = events;
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
        Socket listener = SocketSetup.Listen(_endPoint, _backlog, _options.ReuseAddress, _options.ReusePort);
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
        EndPoint? remote;
        try
        {
            remote = socket.RemoteEndPoint;
        }
        catch (SocketException)
        {
            remote = null;
        }
        catch (ObjectDisposedException)
        {
            remote = null;
        }
        bool admitted;
        try
        {
            admitted = _events?.Admit is not { } admit || admit(remote);
        }
        catch (Exception)
        {
            admitted = false;
        }
        if (!admitted)
        {
            socket.Dispose();
            return;
        }
        TlsConnection connection;
        try
        {
            await ExpectClientHelloAsync(socket).ConfigureAwait(false);
            connection = await TlsConnection.AuthenticateAsServerAsync(socket, _options, _tls, handler: null, _stop.Token).ConfigureAwait(false);
        }
        catch (Exception e)
        {
            Interlocked.Increment(ref _handshakeFailures);
            socket.Dispose();
            string reason = _stop.IsCancellationRequested ? "the acceptor stopped" : TlsFailures.DescribeHandshake(e, _tls.EnabledProtocols);
            try
            {
                _events?.HandshakeFailed?.Invoke(remote, reason);
            }
            catch (Exception)
            {
                // The owner's logging must not end the accept path.
            }
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

    // Waits (up to the handshake timeout) for the client's first bytes without consuming them: a TLS handshake record
    // starts with 0x16. Anything else (a plaintext "8=FIX..." Logon) or nothing at all is refused with that reason.
    private async Task ExpectClientHelloAsync(Socket socket)
    {
        byte[] first = new byte[16];
        int n;
        using (var timeout = CancellationTokenSource.CreateLinkedTokenSource(_stop.Token))
        {
            timeout.CancelAfter(_tls.HandshakeTimeout);
            try
            {
                n = await socket.ReceiveAsync(first, SocketFlags.Peek, timeout.Token).ConfigureAwait(false);
            }
            catch (OperationCanceledException) when (!_stop.IsCancellationRequested)
            {
                throw new TlsHandshakeException($"timed out after {_tls.HandshakeTimeout.TotalSeconds:0.###} s: the client sent no TLS handshake");
            }
        }
        if (n == 0) throw new TlsHandshakeException("the client closed the connection before its TLS handshake");
        if (first[0] == 0x16) return;
        if (first[0] == (byte)'8' && n > 1 && first[1] == (byte)'=')
        {
            throw new TlsHandshakeException($"plaintext FIX from the client ('{Printable(first.AsSpan(0, n))}'...): it is not using TLS");
        }
        throw new TlsHandshakeException($"not a TLS handshake: the client's first bytes are '{Printable(first.AsSpan(0, n))}'");
    }

    private static string Printable(ReadOnlySpan<byte> bytes)
    {
        var chars = new char[bytes.Length];
        for (int i = 0; i < bytes.Length; i++) chars[i] = bytes[i] is >= 0x20 and < 0x7f ? (char)bytes[i] : bytes[i] == 1 ? '|' : '.';
        return new string(chars);
    }
}
