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

/// <summary>The local address and port a connecting socket is bound to, and the settings keys that chose them (named in
/// errors).</summary>
/// <param name="EndPoint">The local address (Any for only a port) and port (0: the system picks one).</param>
/// <param name="Keys">The settings keys, e.g. <c>SocketConnectSourceHost2, SocketConnectSourcePort2</c>.</param>
internal sealed record LocalBinding(IPEndPoint EndPoint, string Keys);

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
    /// <param name="local">The local address and port to connect from, or null for <see cref="TcpConnectionOptions.LocalAddress"/>
    /// (or the system's choice).</param>
    public static async Task<TcpConnection> ConnectAsync(EndPoint remoteEndPoint, TimeSpan timeout, TcpConnectionOptions options, IConnectionHandler handler,
        CancellationToken cancellationToken = default, LocalBinding? local = null)
    {
        ArgumentNullException.ThrowIfNull(remoteEndPoint);
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(handler);
        Socket socket = remoteEndPoint is IPEndPoint ip
            ? await ConnectPolledAsync(ip, timeout, options, cancellationToken, local).ConfigureAwait(false)
            : await ConnectSocketAsync(remoteEndPoint, timeout, options, cancellationToken, local).ConfigureAwait(false);
        SocketError error = Wrap(socket, options, handler, out TcpConnection? connection);
        if (error != SocketError.Success)
        {
            throw CreateException(remoteEndPoint, timeout, error);
        }
        return connection!;
    }

    /// <summary>Connects a raw socket (for TLS, and under <see cref="ConnectAsync"/>), throwing <see cref="TransportConnectException"/> on failure.</summary>
    internal static async Task<Socket> ConnectSocketAsync(EndPoint remoteEndPoint, TimeSpan timeout, TcpConnectionOptions options, CancellationToken cancellationToken,
        LocalBinding? local = null)
    {
        Socket socket = CreateCheckedSocket(remoteEndPoint, options, local);
        using CancellationTokenSource timeoutSource = TimeoutSource(timeout, cancellationToken);
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
            throw CreateException(remoteEndPoint, timeout, ex.SocketErrorCode, local);
        }
        catch
        {
            socket.Dispose();
            throw;
        }
    }

    /// <summary>Connects to an address without the runtime's socket engine, throwing <see cref="TransportConnectException"/>
    /// on failure: a non-blocking connect, a first look with <c>poll(2)</c> that waits up to 1 ms on this thread (a loopback
    /// or LAN connect is done by then), then looks spaced by timer waits (1, 2, 4 ... 50 ms) that hold no thread.</summary>
    /// <remarks>PERF: a socket that ran one asynchronous operation (<c>Socket.ConnectAsync</c> included) stays registered
    /// with the runtime's epoll engine for the rest of its life, and from then on every inbound segment wakes the engine's
    /// thread and queues a thread-pool work item that finds nothing to do, although a dedicated or busy-poll connection
    /// reads with its own <c>poll</c>/<c>recv</c>: two extra thread wake-ups per inbound message, a large share of an
    /// initiator's round trip on a small machine (measured in docs/benchmarks/roundtrip-comparison.md).</remarks>
    internal static async Task<Socket> ConnectPolledAsync(IPEndPoint remoteEndPoint, TimeSpan timeout, TcpConnectionOptions options, CancellationToken cancellationToken,
        LocalBinding? local = null)
    {
        Socket socket = CreateCheckedSocket(remoteEndPoint, options, local);
        using CancellationTokenSource timeoutSource = TimeoutSource(timeout, cancellationToken);
        SocketError error;
        try
        {
            error = StartNonBlockingConnect(socket, remoteEndPoint);
            int waitMs = 1;
            for (int look = 0; error == SocketError.InProgress; look++)
            {
                if (look > 0)
                {
                    await Task.Delay(waitMs, timeoutSource.Token).ConfigureAwait(false);
                    waitMs = Math.Min(waitMs * 2, 50);
                }
                error = ConnectOutcome(socket, look == 0 ? 1_000 : 0);
            }
        }
        catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
        {
            error = SocketError.TimedOut;
        }
        catch
        {
            socket.Dispose();
            throw;
        }
        if (error != SocketError.Success)
        {
            socket.Dispose();
            throw CreateException(remoteEndPoint, timeout, error, local);
        }
        socket.NoDelay = options.NoDelay;
        return socket;
    }

    /// <summary>Starts a non-blocking connect: <see cref="SocketError.Success"/> (done at once), <see cref="SocketError.InProgress"/>
    /// (watch it with <see cref="ConnectOutcome"/>) or why it failed.</summary>
    private static SocketError StartNonBlockingConnect(Socket socket, IPEndPoint remoteEndPoint)
    {
        socket.Blocking = false;
        try
        {
            socket.Connect(remoteEndPoint);
            return SocketError.Success;
        }
        catch (SocketException ex) when (ex.SocketErrorCode is SocketError.WouldBlock or SocketError.InProgress)
        {
            return SocketError.InProgress;
        }
        catch (SocketException ex)
        {
            return ex.SocketErrorCode;
        }
    }

    /// <summary>A non-blocking connect's outcome after waiting up to <paramref name="waitMicros"/> for it (poll(2)):
    /// <see cref="SocketError.InProgress"/> while it is still under way.</summary>
    private static SocketError ConnectOutcome(Socket socket, int waitMicros)
    {
        try
        {
            if (!socket.Poll(waitMicros, SelectMode.SelectWrite) && !socket.Poll(0, SelectMode.SelectError))
            {
                return SocketError.InProgress;
            }
            // SO_ERROR: the connect's outcome (translated to a SocketError by the runtime).
            var error = (SocketError)(int)socket.GetSocketOption(SocketOptionLevel.Socket, SocketOptionName.Error)!;
            // Reading Connected completes the socket object's own record of the non-blocking connect.
            return error == SocketError.Success && !socket.Connected ? SocketError.NotConnected : error;
        }
        catch (SocketException ex)
        {
            return ex.SocketErrorCode;
        }
    }

    /// <summary>A non-blocking connect, then a wait for it on this thread (Socket.Poll), so the caller that blocks anyway
    /// does not also need a thread-pool thread to run a completion callback: under a starved pool that callback could
    /// arrive after the timeout and turn a connect that succeeded into TimedOut.</summary>
    private static SocketError ConnectBlocking(Socket socket, IPEndPoint remoteEndPoint, TimeSpan timeout)
    {
        SocketError error = StartNonBlockingConnect(socket, remoteEndPoint);
        if (error != SocketError.InProgress) return error;
        error = ConnectOutcome(socket, (int)Math.Min(int.MaxValue, (long)timeout.TotalMicroseconds));
        return error == SocketError.InProgress ? SocketError.TimedOut : error;
    }

    /// <summary>The asynchronous connects' common start: checks the arguments and options, then creates the socket.</summary>
    private static Socket CreateCheckedSocket(EndPoint remoteEndPoint, TcpConnectionOptions options, LocalBinding? binding)
    {
        ArgumentNullException.ThrowIfNull(remoteEndPoint);
        ArgumentNullException.ThrowIfNull(options);
        options.Validate();
        Socket socket = CreateSocket(remoteEndPoint);
        binding ??= options.LocalAddress is { } address ? new LocalBinding(new IPEndPoint(address, 0), "SocketLocalHost") : null;
        if (binding is not null)
        {
            IPEndPoint local = binding.EndPoint;
            try
            {
                // A fixed source port: SO_REUSEADDR lets a reconnect bind it while the previous connection from it is in
                // TIME_WAIT (Unix; on Windows the option would let another socket take the port, so it is not set there).
                if (local.Port != 0 && !OperatingSystem.IsWindows()) socket.SetSocketOption(SocketOptionLevel.Socket, SocketOptionName.ReuseAddress, true);
                // Port 0: the system picks the source port; the address is the one the counterparty sees.
                socket.Bind(local);
            }
            catch (SocketException ex)
            {
                socket.Dispose();
                throw new TransportConnectException(remoteEndPoint, ex.SocketErrorCode,
                    $"Connection to {remoteEndPoint} from {Describe(local)} ({binding.Keys}) failed: cannot bind that {(local.Port == 0 ? "address" : "address and port")} ({ex.SocketErrorCode}).");
            }
        }
        return socket;
    }

    private static string Describe(IPEndPoint local) => local.Port == 0 ? local.Address.ToString() : local.ToString();

    /// <summary>A token source cancelled by <paramref name="cancellationToken"/> or after <paramref name="timeout"/> (the caller disposes it).</summary>
    private static CancellationTokenSource TimeoutSource(TimeSpan timeout, CancellationToken cancellationToken)
    {
        var source = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        source.CancelAfter(timeout);
        return source;
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
            // The handshake completed, then the peer reset the connection before it was set up (an acceptor refusing
            // it): the socket options or the peer address then fail with ENOTCONN or EINVAL (Linux). Say what happened.
            return ex.SocketErrorCode is SocketError.NotConnected or SocketError.InvalidArgument or SocketError.ConnectionAborted
                ? SocketError.ConnectionReset
                : ex.SocketErrorCode;
        }
    }

    private static TransportConnectException CreateException(EndPoint remoteEndPoint, TimeSpan timeout, SocketError error, LocalBinding? local)
    {
        if (local is null || local.EndPoint.Port == 0) return CreateException(remoteEndPoint, timeout, error);
        // A fixed source port: the system refuses a connection whose address pair is still in TIME_WAIT from the last one.
        TransportConnectException e = CreateException(remoteEndPoint, timeout, error);
        return new TransportConnectException(remoteEndPoint, error, e.Message.TrimEnd('.') + $" (from {local.EndPoint}, {local.Keys}"
            + (error == SocketError.AddressNotAvailable ? "; the last connection between these two address/port pairs may still be in TIME_WAIT" : "") + ").");
    }

    private static TransportConnectException CreateException(EndPoint remoteEndPoint, TimeSpan timeout, SocketError error) => error switch
    {
        SocketError.ConnectionRefused => new TransportConnectException(remoteEndPoint, error, $"Connection to {remoteEndPoint} refused (nothing listening)."),
        SocketError.TimedOut => new TransportConnectException(remoteEndPoint, error, $"Connection to {remoteEndPoint} timed out after {timeout.TotalMilliseconds:0} ms."),
        _ => new TransportConnectException(remoteEndPoint, error, $"Connection to {remoteEndPoint} failed: {error}."),
    };
}
