using System;
using System.Collections.Generic;
using System.Net;
using System.Net.Security;
using System.Net.Sockets;
using System.Runtime.CompilerServices;
using System.Security.Authentication;
using System.Security.Cryptography.X509Certificates;
using System.Threading;
using System.Threading.Tasks;

namespace FixEngine.Transport;

// Design:
// - No async state machines and no pipes, ours or SslStream's: the receive path calls SslStream.ReadAsync(Memory<byte>)
//   on the pooled receive buffer, the send path SslStream.WriteAsync(ReadOnlyMemory<byte>) on the pooled send queue and
//   Socket.SendAsync on the pooled ciphertext buffer, and each looks at the returned ValueTask. One that completed
//   synchronously is consumed inline and the loop goes on; one that is pending gets a continuation cached in the
//   constructor (ConfiguredValueTaskAwaiter.UnsafeOnCompleted(Action): no execution-context capture, and no allocation
//   for a ValueTask backed by an IValueTaskSource or a Task), which re-enters the same loop on the completing thread.
// - SslStream runs over a TlsSocketStream, not a NetworkStream. Its reads go to Socket.ReceiveAsync (a pending one is
//   backed by the socket's cached event args; SslStream's read path uses the pooling method builder): no allocation.
//   Its writes, once the connection exists, land in this connection's ciphertext buffer (CaptureCiphertext), so
//   SslStream.WriteAsync always completes synchronously and the writer sends the ciphertext itself, and a full socket
//   only delays a Socket.SendAsync. PERF: a write that pends inside SslStream allocates there; this keeps TLS at 0 B per
//   message, throttled or not, on every thread (TlsAllocationTests; history in docs/benchmarks/engine-transport-notes.md).
//   SslStream's own buffers come from ArrayPool<byte>.Shared and allocate only when that pool misses (transient,
//   while its per-thread and per-core caches fill).
// - Receive: the shared TCP framing path: SslStream decrypts straight into the pooled receive buffer
//   (GetReceiveSpace: compacted and grown exactly as for TCP, so the MaxReceiveBufferBytes bound holds), and
//   OnBytesReceived frames and dispatches in place. ReceiveLoop mirrors TcpConnection's completion loop: one read
//   outstanding, the loop holds one in-flight count from BeginReceive until it stops. _read is written by the loop
//   before the continuation is registered and read by the continuation (the value-task source's completion orders them).
// - Receive pause: the shared ReceivePause state machine in TransportConnection: before issuing the next read the loop
//   parks and leaves. A resume that found it parked queues the loop's restart to the thread pool (a work item made once
//   per connection: no allocation), not inline as TCP's completion mode does: a peer that keeps writing keeps SslStream's
//   reads completing synchronously, and the engine resumes from its agent thread, which must get back to its duty cycle
//   to apply the next pause (measurements: docs/benchmarks/engine-transport-notes.md). Decrypted bytes SslStream already
//   holds stay there; no socket read happens while parked, so TCP flow control reaches the peer.
// - Send: a circular plaintext queue (SendByteQueue, bounded by SendQueueBytes, its array growing on demand from
//   InitialSendQueueBytes) and a linear ciphertext buffer, both rented on first use or by Prewarm, under the send lock
//   (the queue and the lock are TransportConnection's, as for TCP). A message that does not fit in the queue's free space gets Backpressure before any byte is
//   queued. The caller that finds no writer (_writing false) becomes the writer on its own thread (no thread hop): it
//   takes an in-flight count and loops: ciphertext waiting -> Socket.SendAsync of all of it; else plaintext waiting ->
//   SslStream.WriteAsync of the queue's contiguous head (at most MaxPlaintextPerWrite), which encrypts into the
//   ciphertext buffer; else it gives the token back. While a send is pending, later sends only queue, and its completion
//   goes on draining on the completing thread. SslStream sees one write at a time (the token), beside one read. Bytes
//   being sent stay in the ciphertext buffer until their send completes, so nothing overwrites them (a buffer that must
//   grow meanwhile keeps the old array in _retiredCiphertext until then). QueuedSendBytes = plaintext + ciphertext.
// - SslStream may write on its own inside a read (a post-handshake message it must answer): CaptureCiphertext then finds
//   no writer and queues one to the thread pool (this thread is inside SslStream), or leaves the bytes to the writer.
// - Close: OnCloseRequested shuts down (orderly) or sets linger 0 (abort), then disposes the SslStream (and with it the
//   socket), which fails the pending read and send; their continuations see the failure, ignore it (closing) and
//   leave. ReleaseResources (nothing in flight) returns the queue and the ciphertext buffer; the base, the receive buffer.

/// <summary>A FIX connection over TLS (SslStream), with the same handler, send and receive-pause contract as <see cref="TcpConnection"/>.</summary>
/// <remarks>
/// Receive callbacks run on the thread that completed the read: a thread-pool (socket completion) thread, or the thread
/// that started receiving (<see cref="Start"/>, or the acceptor's) for data that was already waiting; after
/// <see cref="TransportConnection.ResumeReceive"/>, a thread-pool thread. Sends return
/// <see cref="SendResult.Queued"/> (when no send is in flight the caller encrypts and sends the queue itself, so the
/// bytes have often left when it returns), <see cref="SendResult.Backpressure"/>, <see cref="SendResult.TooLarge"/>
/// or <see cref="SendResult.Closed"/>. Steady-state receive, dispatch and send allocate nothing, also while the peer
/// reads slowly (measured on every thread, SslStream included, by the TLS allocation test); the handshake allocates.
/// </remarks>
internal sealed partial class TlsConnection : TransportConnection
{
    /// <summary>Most plaintext handed to SslStream in one write (four TLS records): bounds the ciphertext buffer.</summary>
    private const int MaxPlaintextPerWrite = 64 * 1024;

    /// <summary>The ciphertext buffer: one write's records with room for their headers, padding and tags, and for records
    /// SslStream writes on its own.</summary>
    private const int CiphertextBufferBytes = MaxPlaintextPerWrite + 16 * 1024;

    private readonly Socket _socket;
    private readonly SslStream _ssl;
    private readonly EndPoint? _remote;
    private readonly EndPoint? _local;
    private readonly Action _onReadCompleted;
    private readonly Action _onEncryptCompleted;
    private readonly Action _onSendCompleted;
    private readonly WorkItem _resumeWorkItem;
    private readonly WorkItem _flushWorkItem;
    private int _started;
    // A client that presented a certificate: a TLS 1.3 acceptor checks it only after our handshake is done, and so does a
    // TLS 1.2 acceptor that validates once its side of the handshake is complete (.NET's SslStream on Linux), so a
    // rejection shows as the connection ending before any byte arrives (RejectedCertificateReason).
    private readonly string? _clientCertificateCheckedLate;
    private readonly string? _protocol;

    // Receive loop only (one read outstanding).
    private ConfiguredValueTaskAwaitable<int>.ConfiguredValueTaskAwaiter _read;
    private bool _receivedAny;

    // Guarded by _sendLock (TransportConnection.Send.cs), with the plaintext queue; _ciphertextPending is also read by any
    // thread (QueuedSendBytes, an acquire read).
    private byte[]? _ciphertext;
    private int _ciphertextStart;
    private int _ciphertextEnd;
    private int _ciphertextPending;
    private List<byte[]>? _retiredCiphertext;
    private bool _writing;
    private bool _sendInFlight;

    // The writer only (whoever set _writing).
    private ConfiguredValueTaskAwaitable.ConfiguredValueTaskAwaiter _encrypt;
    private ConfiguredValueTaskAwaitable<int>.ConfiguredValueTaskAwaiter _send;
    private int _encryptLength;
    private long _pendingSends;

    private TlsConnection(Socket socket, TlsSocketStream stream, SslStream ssl, TcpConnectionOptions options, IConnectionHandler? handler)
        : base(options, handler)
    {
        _socket = socket;
        _ssl = ssl;
        _remote = socket.RemoteEndPoint;
        _local = socket.LocalEndPoint;
        _onReadCompleted = () => ReceiveLoop(completed: true);
        _onEncryptCompleted = () => WriteLoop(WriteStep.EncryptCompleted);
        _onSendCompleted = () => WriteLoop(WriteStep.SendCompleted);
        _resumeWorkItem = new WorkItem(() => ReceiveLoop(completed: false));
        _flushWorkItem = new WorkItem(() => WriteLoop(WriteStep.Next));
        if (!ssl.IsServer && ssl.LocalCertificate is { } own)
        {
            _clientCertificateCheckedLate = own.Subject;
#pragma warning disable SYSLIB0039 // naming the protocol negotiated, not enabling it
            _protocol = ssl.SslProtocol switch
            {
                SslProtocols.Tls13 => "TLS 1.3",
                SslProtocols.Tls12 => "TLS 1.2",
                SslProtocols other => other.ToString(),
            };
#pragma warning restore SYSLIB0039
        }
        // From here on SslStream's writes land in the ciphertext buffer (the handshake's went to the socket).
        stream.Attach(this);
    }

    /// <inheritdoc/>
    public override EndPoint? RemoteEndPoint => _remote;

    /// <inheritdoc/>
    public override EndPoint? LocalEndPoint => _local;

    /// <summary>Ciphertext waiting to be sent: <see cref="TransportConnection.QueuedSendBytes"/> is the plaintext queue plus this.</summary>
    private protected override int QueuedBeyondSendQueue => Volatile.Read(ref _ciphertextPending);

    /// <inheritdoc/>
    /// <remarks>Ciphertext in the socket; what SslStream has read ahead and not yet decrypted is not counted.</remarks>
    public override int UnreadBytes => UnreadSocketBytes(_socket);

    /// <summary>The negotiated protocol.</summary>
    public SslProtocols SslProtocol => _ssl.SslProtocol;

    /// <summary>Whether the peer presented a certificate.</summary>
    public bool HasRemoteCertificate => _ssl.RemoteCertificate is not null;

    /// <inheritdoc/>
    public override void Start()
    {
        if (Interlocked.Exchange(ref _started, 1) != 0)
        {
            Internal.ThrowHelper.ThrowInvalidOperation($"{Name} was already started.");
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
            ReceiveLoop(completed: false);
        }
    }

    private protected override int PollCore(long nowNs) => 0;

    // The loop had parked: restart it on the thread pool, not inline (see the design note).
    private protected override void RestartReceiveLoop() => ThreadPool.UnsafeQueueUserWorkItem(_resumeWorkItem, preferLocal: false);

    /// <summary>The receive loop: reads into the receive buffer and dispatches, until a read is pending (its completion
    /// calls this again with <paramref name="completed"/> true), the peer closes, an error, a close or a pause. Holds the
    /// in-flight count taken by <see cref="BeginReceive"/> or <see cref="TransportConnection.ResumeReceive"/> until it stops.</summary>
    private void ReceiveLoop(bool completed)
    {
        while (true)
        {
            if (completed)
            {
                int received;
                try
                {
                    received = _read.GetResult();
                }
                catch (Exception ex)
                {
                    CloseForException(ex, "receive");
                    break;
                }
                if (received == 0)
                {
                    if (RejectedCertificateReason() is string rejected)
                    {
                        Close(DisconnectReason.PeerClosed, rejected);
                    }
                    else
                    {
                        OnPeerClosed();
                    }
                    break;
                }
                _receivedAny = true;
                OnBytesReceived(received);
            }
            if (IsClosing)
            {
                break;
            }
            if (TryParkReceive())
            {
                // Paused: read nothing more; ResumeReceive restarts the loop. Leaving releases the in-flight count.
                break;
            }
            GetReceiveSpace(out byte[] buffer, out int offset, out int count);
            try
            {
                _read = _ssl.ReadAsync(new Memory<byte>(buffer, offset, count)).ConfigureAwait(false).GetAwaiter();
            }
            catch (Exception ex)
            {
                CloseForException(ex, "receive");
                break;
            }
            if (!_read.IsCompleted)
            {
                _read.UnsafeOnCompleted(_onReadCompleted);
                return;
            }
            completed = true;
        }
        Exit();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void CloseForException(Exception ex, string operation)
    {
        if (IsClosing)
        {
            return;
        }
        SocketError error = (ex as SocketException ?? ex.InnerException as SocketException)?.SocketErrorCode ?? SocketError.SocketError;
        if (operation == "receive" && RejectedCertificateReason() is string rejected)
        {
            Close(error == SocketError.ConnectionReset ? DisconnectReason.PeerReset : DisconnectReason.SocketError,
                $"{rejected} ({(error == SocketError.ConnectionReset ? "connection reset" : ex.Message.TrimEnd('.'))})");
        }
        else if (error == SocketError.ConnectionReset)
        {
            Close(DisconnectReason.PeerReset, $"connection reset by peer on {operation}");
        }
        else
        {
            Close(DisconnectReason.SocketError, $"{ex.GetType().Name} on {operation}: {ex.Message}");
        }
    }

    /// <summary>Why a client's connection ended before the acceptor sent a single byte, when that is how an acceptor rejects
    /// our client certificate after the handshake (TLS 1.3 always; TLS 1.2 where the acceptor checks it once its side of
    /// the handshake is done, as .NET does): its refusal, alert or not, reaches us only on the first read; else null.</summary>
    private string? RejectedCertificateReason()
    {
        if (_clientCertificateCheckedLate is not { } subject || _receivedAny || IsClosing) return null;
        EndedForOurCertificate = true;
        return $"the acceptor ended the connection before sending anything after the {_protocol} handshake: most likely it rejected our client certificate '{subject}' (it checked it after the handshake had completed on our side)";
    }

    /// <summary>The connection ended as an acceptor ends one whose client certificate it rejected (see
    /// <see cref="RejectedCertificateReason"/>); read by the engine agent once the connection is closed.</summary>
    internal bool EndedForOurCertificate { get; private set; }

    private protected override void OnCloseRequested(DisconnectReason reason, bool abortive)
    {
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
    }

    private protected override void ReleaseResources()
    {
        _ssl.Dispose();
        _socket.Dispose();
    }

    private protected override void ReleaseSendUnderLock()
    {
        byte[]? ciphertext = _ciphertext;
        _ciphertext = null;
        _ciphertextStart = 0;
        _ciphertextEnd = 0;
        _ciphertextPending = 0;
        if (ciphertext is not null)
        {
            _pool.Return(ciphertext);
        }
        ReturnRetiredCiphertext();
    }

    /// <summary>Work queued to the thread pool without allocating (made once per connection): restarting a parked receive
    /// loop, or a writer for records SslStream wrote on its own.</summary>
    private sealed class WorkItem(Action action) : IThreadPoolWorkItem
    {
        public void Execute() => action();
    }
}

/// <summary>One handshake's certificate validation: runs the configured check and keeps the reason it refused, so the
/// failure names it (<see cref="TlsHandshakeException"/>) instead of the platform's "rejected by the provided
/// RemoteCertificateValidationCallback".</summary>
internal sealed class CertificateCheck(TlsOptions tls, bool server, string? expectedName)
{
    private string? _failure;

    public bool Validate(object sender, X509Certificate? certificate, X509Chain? chain, SslPolicyErrors errors)
    {
        if (tls.CertificateValidator is { } validator)
        {
            _failure = validator(certificate, chain, errors);
            return _failure is null;
        }
        if (tls.RemoteCertificateValidation is { } callback)
        {
            if (callback(sender, certificate, chain, errors)) return true;
            _failure = TlsFailures.DescribeCertificate(certificate, chain, errors, expectedName);
            return false;
        }
        // The platform's own rule: a server that does not require a client certificate accepts a client without one.
        if (server && !tls.RequireClientCertificate && certificate is null) return true;
        if (errors == SslPolicyErrors.None) return true;
        _failure = TlsFailures.DescribeCertificate(certificate, chain, errors, expectedName);
        return false;
    }

    /// <summary>The exception to throw for a failed handshake: named when the reason is known, else the original.</summary>
    public Exception Named(Exception error, TlsOptions options, bool timedOut)
    {
        string side = server ? "client" : "server";
        if (_failure is string failure) return new TlsHandshakeException($"{side} certificate refused: {failure}", error);
        // The acceptor's alert during the handshake (a TLS 1.2 server that checks our certificate before its Finished).
        if (!server && TlsFailures.PeerAlert(error) is string alert)
        {
            string? subject = tls.ClientCertificates is { Count: > 0 } own ? own[0].Subject : null;
            bool aboutOurCertificate = alert is "bad certificate" or "unknown ca" or "certificate unknown" or "certificate expired"
                or "certificate revoked" or "unsupported certificate" or "access denied" or "certificate required";
            return new TlsHandshakeException(aboutOurCertificate
                ? (subject is null ? $"the acceptor requires a client certificate and we have none (TLS alert '{alert}')" : $"the acceptor rejected our client certificate '{subject}' (TLS alert '{alert}')")
                : $"the acceptor sent TLS alert '{alert}' ({TlsFailures.DescribeHandshake(error, options.EnabledProtocols)})", error);
        }
        if (timedOut) return new TlsHandshakeException($"timed out after {options.HandshakeTimeout.TotalSeconds:0.###} s", error);
        if (error is AuthenticationException or System.IO.IOException) return new TlsHandshakeException(TlsFailures.DescribeHandshake(error, options.EnabledProtocols), error);
        return error;
    }
}
