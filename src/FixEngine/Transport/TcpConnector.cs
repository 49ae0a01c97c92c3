using System;
using System.Net;
using System.Net.Sockets;
using System.Threading;
using System.Threading.Tasks;

namespace FixEngine.Transport;

/// <summary>A failed outbound connect: refused, timed out, unreachable.</summary>
internal sealed class TransportConnectException : Exception
{
    /// <summary>Creates the exception.</summary>
    /// <param name="remoteEndPoint">Where the connect went.</param>
    /// <param name="socketError">Why it failed (<see cref="SocketError.TimedOut"/> for the connect timeout).</param>
    /// <param name="message">The description.</param>
    public TransportConnectException(EndPoint remoteEndPoint, SocketError socketError, string message)
        : base(message)
    {
        RemoteEndPoint = remoteEndPoint;
        SocketError = socketError;
    }

    /// <summary>Where the connect went.</summary>
    public EndPoint RemoteEndPoint { get; }

    /// <summary>Why it failed.</summary>
    public SocketError SocketError { get; }
}

/// <summary>Opens outbound TCP connections with a timeout.</summary>
/// <remarks>
/// Thread-safe. The blocking variants wait for the connect on the calling thread (no thread-pool thread is needed).
/// The returned connection is not receiving yet: call <see cref="TransportConnection.Start"/> (completion mode)
/// or poll it (busy-poll mode) from its owning thread. Connecting allocates (not a hot path); the blocking variants block
/// the caller for up to the timeout, so an agent thread should use <see cref="ConnectAsync"/> and check the task each duty cycle.
/// </remarks>
internal static class TcpConnector
{
    /// <summary>Connects, throwing on failure.</summary>
    /// <param name="remoteEndPoint">An <see cref="IPEndPoint"/> or <see cref="DnsEndPoint"/>.</param>
    /// <param name="timeout">How long to wait for the handshake.</param>
    /// <param name="options">Connection options.</param>
    /// <param name="handler">Receives messages and the disconnect.</param>
    /// <returns>The connection (not started).</returns>
    /// <exception cref="TransportConnectException">Refused, timed out or otherwise failed; <see cref="TransportConnectException.SocketError"/> says which.</exception>
    public static TcpConnection Connect(EndPoint remoteEndPoint, TimeSpan timeout, TcpConnectionOptions options, IConnectionHandler handler)
    {
        SocketError error = TryConnect(remoteEndPoint, timeout, options, handler, out TcpConnection? connection);
        if (error != SocketError.Success)
        {
            throw CreateException(remoteEndPoint, timeout, error);
        }
        return connection!;
    }

    /// <summary>Connects without throwing for network failures.</summary>
    /// <param name="remoteEndPoint">An <see cref="IPEndPoint"/> or <see cref="DnsEndPoint"/>.</param>
    /// <param name="timeout">How long to wait for the handshake.</param>
    /// <param name="options">Connection options.</param>
    /// <param name="handler">Receives messages and the disconnect.</param>
    /// <param name="connection">The connection (not started) on success.</param>
    /// <returns><see cref="SocketError.Success"/>, or why it failed (<see cref="SocketError.ConnectionRefused"/>, <see cref="SocketError.TimedOut"/>, ...).</returns>
    public static SocketError TryConnect(EndPoint remoteEndPoint, TimeSpan timeout, TcpConnectionOptions options, IConnectionHandler handler,
        out TcpConnection? connection)
    {
        ArgumentNullException.ThrowIfNull(remoteEndPoint);
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(handler);
        options.Validate();
        connection = null;
        Socket socket = CreateSocket(remoteEndPoint);
        if (remoteEndPoint is IPEndPoint ip)
        {
            SocketError result = ConnectBlocking(socket, ip, timeout);
            if (result != SocketError.Success)
            {
                socket.Dispose();
                return result;
            }
            return Wrap(socket, options, handler, out connection);
        }
        using var done = new ManualResetEventSlim(false);
        using var args = new SocketAsyncEventArgs { RemoteEndPoint = remoteEndPoint };
        args.Completed += (_, _) => done.Set();
        try
        {
            if (socket.ConnectAsync(args) && !done.Wait(timeout))
            {
                // Closing the socket aborts the connect; wait for the completion so the args can be disposed safely.
                socket.Dispose();
                done.Wait();
                return SocketError.TimedOut;
            }
        }
        catch (SocketException ex)
        {
            socket.Dispose();
            return ex.SocketErrorCode;
        }
        if (args.SocketError != SocketError.Success)
        {
            socket.Dispose();
            return args.SocketError;
        }
        return Wrap(socket, options, handler, out connection);
    }

    /// <summary>Connects asynchronously (for callers on an agent thread that must not block).</summary>
    /// <param name="remoteEndPoint">An <see cref="IPEndPoint"/> or <see cref="DnsEndPoint"/>.</param>
    /// <param name="timeout">How long to wait for the handshake.</param>
    /// <param name="options">Connection options.</param>
    /// <param name="handler">Receives messages and the disconnect.</param>
    /// <param name="cancellationToken">Cancels the attempt.</param>
    /// <returns>The connection (not started).</returns>
    /// <exception cref="TransportConnectException">Refused, timed out or otherwise failed.</exception>
    /// <exception cref="OperationCanceledException">The token was cancelled.</exception>
    public static async Task<TcpConnection> ConnectAsync(EndPoint remoteEndPoint, TimeSpan timeout, TcpConnectionOptions options, IConnectionHandler handler,
        CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(remoteEndPoint);
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(handler);
        Socket socket = await ConnectSocketAsync(remoteEndPoint, timeout, options, cancellationToken).ConfigureAwait(false);
        SocketError error = Wrap(socket, options, handler, out TcpConnection? connection);
        if (error != SocketError.Success)
        {
            throw CreateException(remoteEndPoint, timeout, error);
        }
        return connection!;
    }

    /// <summary>Connects a raw socket (for TLS, and under <see cref="ConnectAsync"/>), throwing <see cref="TransportConnectException"/> on failure.</summary>
    internal static async Task<Socket> ConnectSocketAsync(EndPoint remoteEndPoint, TimeSpan timeout, TcpConnectionOptions options, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(remoteEndPoint);
        ArgumentNullException.ThrowIfNull(options);
        options.Validate();
        Socket socket = CreateSocket(remoteEndPoint);
        using var timeoutSource = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        timeoutSource.CancelAfter(timeout);
        try
        {
            await socket.ConnectAsync(remoteEndPoint, timeoutSource.Token).ConfigureAwait(false);
            socket.NoDelay = options.NoDelay;
            return socket;
        }
        catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
        {
            socket.Dispose();
            throw CreateException(remoteEndPoint, timeout, SocketError.TimedOut);
        }
        catch (SocketException ex)
        {
            socket.Dispose();
            throw CreateException(remoteEndPoint, timeout, ex.SocketErrorCode);
        }
        catch
        {
            socket.Dispose();
            throw;
        }
    }

    /// <summary>A non-blocking connect, then a wait for it on this thread (Socket.Poll), so the caller that blocks anyway
    /// does not also need a thread-pool thread to run a completion callback: under a starved pool that callback could
    /// arrive after the timeout and turn a connect that succeeded into TimedOut.</summary>
    private static SocketError ConnectBlocking(Socket socket, IPEndPoint remoteEndPoint, TimeSpan timeout)
    {
        socket.Blocking = false;
        try
        {
            socket.Connect(remoteEndPoint);
            return SocketError.Success;
        }
        catch (SocketException ex) when (ex.SocketErrorCode is SocketError.WouldBlock or SocketError.InProgress)
        {
        }
        catch (SocketException ex)
        {
            return ex.SocketErrorCode;
        }
        try
        {
            if (!socket.Poll(timeout, SelectMode.SelectWrite) && !socket.Poll(0, SelectMode.SelectError))
            {
                return SocketError.TimedOut;
            }
            // SO_ERROR: the connect's outcome (translated to a SocketError by the runtime).
            return (SocketError)(int)socket.GetSocketOption(SocketOptionLevel.Socket, SocketOptionName.Error)!;
        }
        catch (SocketException ex)
        {
            return ex.SocketErrorCode;
        }
    }

    private static Socket CreateSocket(EndPoint remoteEndPoint) => remoteEndPoint.AddressFamily is AddressFamily.InterNetwork or AddressFamily.InterNetworkV6
        ? new Socket(remoteEndPoint.AddressFamily, SocketType.Stream, ProtocolType.Tcp)
        : new Socket(SocketType.Stream, ProtocolType.Tcp);

    private static SocketError Wrap(Socket socket, TcpConnectionOptions options, IConnectionHandler handler, out TcpConnection? connection)
    {
        try
        {
            connection = new TcpConnection(socket, options, handler);
            return SocketError.Success;
        }
        catch (SocketException ex)
        {
            socket.Dispose();
            connection = null;
            return ex.SocketErrorCode;
        }
    }

    private static TransportConnectException CreateException(EndPoint remoteEndPoint, TimeSpan timeout, SocketError error) => error switch
    {
        SocketError.ConnectionRefused => new TransportConnectException(remoteEndPoint, error, $"Connection to {remoteEndPoint} refused (nothing listening)."),
        SocketError.TimedOut => new TransportConnectException(remoteEndPoint, error, $"Connection to {remoteEndPoint} timed out after {timeout.TotalMilliseconds:0} ms."),
        _ => new TransportConnectException(remoteEndPoint, error, $"Connection to {remoteEndPoint} failed: {error}."),
    };
}
