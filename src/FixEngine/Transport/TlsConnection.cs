using System;
using System.Buffers;
using System.IO;
using System.IO.Pipelines;
using System.Net;
using System.Net.Security;
using System.Net.Sockets;
using System.Security.Authentication;
using System.Threading;
using System.Threading.Tasks;

namespace FixEngine.Transport;

// Design:
// - Not the zero-allocation path: SslStream is async, so receive and send run as async loops (the loops' state
//   machines, the pipes' segment leases and SslStream's own operations may allocate). Framing, garbage limits,
//   handler-error handling and close reasons are the shared TransportConnection code, so TLS behaves exactly like
//   TCP for the handler.
// - Receive: a System.IO.Pipelines PipeReader over the SslStream (StreamPipeReader; segments of
//   min(InitialReceiveBufferBytes, 16 KiB) rented from the options' BufferPool). One async loop (holding an in-flight
//   count until it ends) reads it and hands the ReadOnlySequence to DispatchFrames: a frame within one segment goes
//   to the handler in place; only a frame that straddles two segments is copied, into the pooled receive buffer.
//   AdvanceTo(consumed, examined: end): an incomplete frame stays in the pipe and the next read waits for new bytes.
//   The framer's bound (see TransportConnection.Receive.cs) keeps the unconsumed bytes below MaxReceiveBufferBytes, so
//   the pipe holds at most that plus the segment being read into: a 100 MB BodyLength is rejected after its header
//   and its body skipped as it arrives.
// - Send: callers write into a System.IO.Pipelines Pipe under _sendLock (one writer at a time); an async loop
//   reads the pipe and writes to the SslStream. _queuedBytes (Interlocked) bounds what waits: a message that
//   would exceed SendQueueBytes gets Backpressure. The send loop holds an in-flight count until it ends.
// - Close: completes the send pipe's writer, shuts down/disposes the stream and socket (aborting pending reads and
//   writes); each loop completes its reader (returning the segments) before it leaves, and the teardown runs when
//   both have left.

/// <summary>A FIX connection over TLS (SslStream), with the same handler and send contract as <see cref="TcpConnection"/>.</summary>
/// <remarks>
/// Receive callbacks run on thread-pool threads. Sends always return <see cref="SendResult.Queued"/> (bytes go out
/// asynchronously), <see cref="SendResult.Backpressure"/>, <see cref="SendResult.TooLarge"/> or <see cref="SendResult.Closed"/>.
/// This path may allocate (async I/O); use plain TCP (e.g. behind a TLS terminator) for the zero-allocation path.
/// </remarks>
public sealed class TlsConnection : TransportConnection
{
    /// <summary>Largest TLS record payload: one SslStream read returns at most this many bytes.</summary>
    private const int MaxTlsRecordBytes = 16 * 1024;

    /// <summary>Free bytes below which the receive pipe starts a new segment for the next read (at most a quarter of a segment).</summary>
    private const int MinimumReadBytes = 1024;

    private readonly Socket _socket;
    private readonly SslStream _ssl;
    private readonly Pipe _pipe;
    private readonly PipeReader _receiveReader;
    private readonly Lock _sendLock = new();
    private readonly int _queueCapacity;
    private readonly int _initialSendBytes;
    private readonly EndPoint? _remote;
    private readonly EndPoint? _local;
    private byte[]? _sendBuffer;
    private int _queuedBytes;
    private int _started;
    private bool _writerCompleted;

    private TlsConnection(Socket socket, SslStream ssl, TcpConnectionOptions options, IConnectionHandler? handler)
        : base(options, handler)
    {
        _socket = socket;
        _ssl = ssl;
        _queueCapacity = options.SendQueueBytes;
        _initialSendBytes = options.InitialSendBufferBytes;
        _pipe = new Pipe(new PipeOptions(pauseWriterThreshold: 0, useSynchronizationContext: false));
        int segmentBytes = Math.Min(options.InitialReceiveBufferBytes, MaxTlsRecordBytes);
        _receiveReader = PipeReader.Create(ssl, new StreamPipeReaderOptions(
            pool: new ArrayPoolMemoryPool(options.BufferPool ?? ArrayPool<byte>.Shared),
            bufferSize: segmentBytes,
            minimumReadSize: Math.Min(MinimumReadBytes, segmentBytes / 4),
            leaveOpen: true));
        _remote = socket.RemoteEndPoint;
        _local = socket.LocalEndPoint;
    }

    /// <inheritdoc/>
    public override EndPoint? RemoteEndPoint => _remote;

    /// <inheritdoc/>
    public override EndPoint? LocalEndPoint => _local;

    /// <inheritdoc/>
    public override int QueuedSendBytes => Volatile.Read(ref _queuedBytes);

    /// <summary>The negotiated protocol.</summary>
    public SslProtocols SslProtocol => _ssl.SslProtocol;

    /// <summary>Whether the peer presented a certificate.</summary>
    public bool HasRemoteCertificate => _ssl.RemoteCertificate is not null;

    /// <summary>Connects over TCP and performs the client handshake.</summary>
    /// <param name="remoteEndPoint">The server.</param>
    /// <param name="timeout">Connect timeout (the handshake has <see cref="TlsOptions.HandshakeTimeout"/>).</param>
    /// <param name="options">Connection options.</param>
    /// <param name="tls">TLS options.</param>
    /// <param name="handler">Receives messages and the disconnect.</param>
    /// <param name="cancellationToken">Cancels the attempt.</param>
    /// <returns>The connection, not yet receiving (call <see cref="Start"/>).</returns>
    /// <exception cref="TransportConnectException">The TCP connect failed.</exception>
    /// <exception cref="AuthenticationException">The handshake failed.</exception>
    public static async Task<TlsConnection> ConnectAsync(EndPoint remoteEndPoint, TimeSpan timeout, TcpConnectionOptions options, TlsOptions tls,
        IConnectionHandler handler, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(tls);
        ArgumentNullException.ThrowIfNull(handler);
        Socket socket = await TcpConnector.ConnectSocketAsync(remoteEndPoint, timeout, options, cancellationToken).ConfigureAwait(false);
        var ssl = new SslStream(new NetworkStream(socket, ownsSocket: true), leaveInnerStreamOpen: false);
        try
        {
            using var timeoutSource = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
            timeoutSource.CancelAfter(tls.HandshakeTimeout);
            await ssl.AuthenticateAsClientAsync(new SslClientAuthenticationOptions
            {
                TargetHost = tls.TargetHost ?? (remoteEndPoint as DnsEndPoint)?.Host ?? (remoteEndPoint as IPEndPoint)?.Address.ToString(),
                ClientCertificates = tls.ClientCertificates,
                EnabledSslProtocols = tls.EnabledProtocols,
                RemoteCertificateValidationCallback = tls.RemoteCertificateValidation,
            }, timeoutSource.Token).ConfigureAwait(false);
        }
        catch
        {
            await ssl.DisposeAsync().ConfigureAwait(false);
            throw;
        }
        return new TlsConnection(socket, ssl, options, handler);
    }

    /// <summary>Performs the server handshake on an accepted socket.</summary>
    /// <param name="socket">The accepted socket (owned by the connection from now on).</param>
    /// <param name="options">Connection options.</param>
    /// <param name="tls">TLS options (<see cref="TlsOptions.ServerCertificate"/> required).</param>
    /// <param name="handler">The handler, or null to set it later through an acceptor.</param>
    /// <param name="cancellationToken">Cancels the handshake.</param>
    /// <returns>The connection, not yet receiving.</returns>
    /// <exception cref="AuthenticationException">The handshake failed.</exception>
    public static async Task<TlsConnection> AuthenticateAsServerAsync(Socket socket, TcpConnectionOptions options, TlsOptions tls,
        IConnectionHandler? handler, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(socket);
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(tls);
        if (tls.ServerCertificate is null)
        {
            TransportThrowHelper.ThrowInvalidOperation("TlsOptions.ServerCertificate is required on the server side.");
        }
        options.Validate();
        socket.NoDelay = options.NoDelay;
        var ssl = new SslStream(new NetworkStream(socket, ownsSocket: true), leaveInnerStreamOpen: false);
        try
        {
            using var timeoutSource = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
            timeoutSource.CancelAfter(tls.HandshakeTimeout);
            await ssl.AuthenticateAsServerAsync(new SslServerAuthenticationOptions
            {
                ServerCertificate = tls.ServerCertificate,
                ClientCertificateRequired = tls.RequireClientCertificate,
                EnabledSslProtocols = tls.EnabledProtocols,
                RemoteCertificateValidationCallback = tls.RemoteCertificateValidation,
            }, timeoutSource.Token).ConfigureAwait(false);
        }
        catch
        {
            await ssl.DisposeAsync().ConfigureAwait(false);
            throw;
        }
        return new TlsConnection(socket, ssl, options, handler);
    }

    /// <inheritdoc/>
    public override void Start()
    {
        if (Interlocked.Exchange(ref _started, 1) != 0)
        {
            TransportThrowHelper.ThrowInvalidOperation($"{Name} was already started.");
        }
        if (TryClaimReceiveStart())
        {
            BeginReceive();
        }
    }

    private protected override void BeginReceive()
    {
        if (TryEnter())
        {
            _ = ReceiveLoopAsync();
        }
        if (TryEnter())
        {
            _ = SendLoopAsync();
        }
    }

    /// <inheritdoc/>
    public override int Poll(long nowNs) => 0;

    /// <inheritdoc/>
    public override Span<byte> GetSendSpan(int sizeHint)
    {
        if ((uint)sizeHint > (uint)_queueCapacity)
        {
            TransportThrowHelper.ThrowArgumentOutOfRange(nameof(sizeHint), sizeHint, $"Messages are limited to SendQueueBytes ({_queueCapacity}).");
        }
        byte[]? buffer = _sendBuffer;
        if (buffer is null || buffer.Length < sizeHint)
        {
            buffer = new byte[Math.Max(sizeHint, Math.Max(_initialSendBytes, (_sendBuffer?.Length ?? 0) * 2))];
            _sendBuffer = buffer;
        }
        return buffer;
    }

    /// <inheritdoc/>
    public override SendResult Commit(int length)
    {
        byte[]? buffer = _sendBuffer;
        if (buffer is null || (uint)length > (uint)buffer.Length)
        {
            TransportThrowHelper.ThrowArgumentOutOfRange(nameof(length), length, "Commit length exceeds the span returned by GetSendSpan.");
        }
        return TrySend(new ReadOnlySpan<byte>(buffer, 0, length));
    }

    /// <inheritdoc/>
    public override SendResult TrySend(ReadOnlySpan<byte> message)
    {
        if (message.Length > _queueCapacity)
        {
            return SendResult.TooLarge;
        }
        lock (_sendLock)
        {
            if (IsClosing || _writerCompleted)
            {
                return SendResult.Closed;
            }
            if (Volatile.Read(ref _queuedBytes) + message.Length > _queueCapacity)
            {
                return SendResult.Backpressure;
            }
            PipeWriter writer = _pipe.Writer;
            message.CopyTo(writer.GetSpan(message.Length));
            writer.Advance(message.Length);
            Interlocked.Add(ref _queuedBytes, message.Length);
            // No pause threshold: the flush completes synchronously and only signals the send loop.
            _ = writer.FlushAsync();
        }
        return SendResult.Queued;
    }

    private async Task ReceiveLoopAsync()
    {
        PipeReader reader = _receiveReader;
        // Bytes the last AdvanceTo left unconsumed: the start of an incomplete frame.
        long pending = 0;
        try
        {
            while (!IsClosing)
            {
                ReadResult result = await reader.ReadAsync().ConfigureAwait(false);
                if (result.IsCanceled || IsClosing)
                {
                    break;
                }
                ReadOnlySequence<byte> data = result.Buffer;
                AddBytesReceived(data.Length - pending);
                long consumed = DispatchFrames(data);
                pending = data.Length - consumed;
                // Everything was examined: the next read completes only when new bytes arrive.
                reader.AdvanceTo(data.GetPosition(consumed), data.End);
                if (result.IsCompleted)
                {
                    OnPeerClosed(pending);
                    break;
                }
            }
        }
        catch (Exception ex)
        {
            CloseForException(ex, "receive");
        }
        finally
        {
            // Returns the pipe's segments to the pool; the SslStream is left to the close (leaveOpen).
            await reader.CompleteAsync().ConfigureAwait(false);
            Exit();
        }
    }

    private async Task SendLoopAsync()
    {
        PipeReader reader = _pipe.Reader;
        try
        {
            while (true)
            {
                ReadResult result = await reader.ReadAsync().ConfigureAwait(false);
                ReadOnlySequence<byte> buffer = result.Buffer;
                foreach (ReadOnlyMemory<byte> segment in buffer)
                {
                    await _ssl.WriteAsync(segment).ConfigureAwait(false);
                }
                int length = (int)buffer.Length;
                reader.AdvanceTo(buffer.End);
                Interlocked.Add(ref _queuedBytes, -length);
                if (result.IsCompleted || result.IsCanceled)
                {
                    break;
                }
            }
        }
        catch (Exception ex)
        {
            CloseForException(ex, "send");
        }
        finally
        {
            await reader.CompleteAsync().ConfigureAwait(false);
            Exit();
        }
    }

    private void CloseForException(Exception ex, string operation)
    {
        if (IsClosing)
        {
            return;
        }
        SocketError error = (ex as SocketException ?? ex.InnerException as SocketException)?.SocketErrorCode ?? SocketError.SocketError;
        if (error == SocketError.ConnectionReset)
        {
            Close(DisconnectReason.PeerReset, $"connection reset by peer on {operation}");
        }
        else
        {
            Close(DisconnectReason.SocketError, $"{ex.GetType().Name} on {operation}: {ex.Message}");
        }
    }

    private protected override void OnCloseRequested(DisconnectReason reason, bool abortive)
    {
        lock (_sendLock)
        {
            if (!_writerCompleted)
            {
                _writerCompleted = true;
                _pipe.Writer.Complete();
            }
        }
        try
        {
            if (abortive)
            {
                _socket.LingerState = new LingerOption(true, 0);
            }
            else
            {
                _socket.Shutdown(SocketShutdown.Send);
            }
        }
        catch (SocketException)
        {
            // Already reset: nothing to shut down.
        }
        catch (ObjectDisposedException)
        {
        }
        _ssl.Dispose();
        _socket.Dispose();
        _pipe.Reader.CancelPendingRead();
    }

    private protected override void ReleaseResources()
    {
        _ssl.Dispose();
        _socket.Dispose();
    }
}
