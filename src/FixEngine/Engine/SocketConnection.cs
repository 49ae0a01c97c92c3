using System;
using System.Threading;
using FixEngine.Codec;
using FixEngine.Session;
using FixEngine.Transport;

namespace FixEngine.Engine;

/// <summary>Adapts a transport connection (busy-poll or completion <see cref="TcpConnection"/>, or <see cref="TlsConnection"/>)
/// to the session's <see cref="ISessionConnection"/>.</summary>
/// <remarks>
/// Design: <see cref="IConnectionHandler"/> callbacks arrive on the agent thread (busy-poll: inline in <see cref="Poll"/>)
/// or on socket completion threads (completion mode, TLS: <see cref="Guarded"/>), never overlapping for one connection;
/// the host takes the session's gate for guarded ones. The accept thread (or the connect task) constructs the adapter
/// and queues it to the agent. <see cref="Slot"/> is written once, when the connection is bound to its session (routing
/// on the receiving thread, or before the connect task queues it) and read by the agent, hence volatile; so are the close
/// flag and reason, which the transport may set from any thread. Closing lingers: when the session closes while its last
/// bytes (a Logout, a Reject) still wait in the transport's send queue (a send the socket
/// did not take at once is queued, TCP or TLS), the connection is marked closed for the session at once and the agent closes the transport once the queue
/// has drained or <see cref="LingerNs"/> has passed (<see cref="PollLinger"/>). Allocation-free per message: frames are
/// handed over as spans of the transport's receive buffer.
/// </remarks>
internal sealed class SocketConnection : ISessionConnection, IConnectionHandler
{
    /// <summary>Longest wait for queued bytes to leave before a session-initiated close goes ahead anyway.</summary>
    public const long LingerNs = 2_000_000_000L;

    private readonly FixEngineHost _host;
    private TransportConnection? _connection;
    private volatile SessionSlot? _slot;
    private volatile bool _closed;
    private volatile string? _closeReason;
    private long _lingerUntilNs;

    public SocketConnection(FixEngineHost host, long createdNs, bool guarded)
    {
        _host = host;
        CreatedNs = createdNs;
        Guarded = guarded;
    }

    /// <summary>True when callbacks run on completion threads (completion mode, TLS), so the session gate is taken.</summary>
    public bool Guarded { get; }

    /// <summary>The session this connection is bound to; null until an acceptor connection's Logon is routed.</summary>
    public SessionSlot? Slot
    {
        get => _slot;
        set => _slot = value;
    }

    public long CreatedNs { get; }

    public string RemoteEndPoint => _connection?.RemoteEndPoint?.ToString() ?? "?";

    public bool IsClosed => _closed;

    public string? CloseReason => _closeReason;

    public void Attach(TransportConnection connection) => _connection = connection;

    /// <summary>The transport connection (tests check what it has rented).</summary>
    internal TransportConnection? Transport => _connection;

    public void Start()
    {
        try
        {
            _connection?.Start();
        }
        catch (Exception e) when (e is InvalidOperationException or ObjectDisposedException)
        {
            Close("start failed: " + e.Message);
        }
    }

    public SendResult Send(ReadOnlySpan<byte> message)
    {
        TransportConnection? c = _connection;
        return _closed || c is null ? SendResult.Closed : c.TrySend(message);
    }

    public void Disconnect(string reason) => Close(reason);

    /// <summary>True while a close waits for queued bytes to be sent (the agent finishes it).</summary>
    public bool IsLingering => Volatile.Read(ref _lingerUntilNs) != 0;

    public void Close(string reason)
    {
        if (_closed) return;
        _closeReason ??= reason;
        _closed = true;
        TransportConnection? c = _connection;
        if (c is null) return;
        if (c.QueuedSendBytes == 0 || c.IsClosing)
        {
            c.Close(DisconnectReason.Local, reason);
            return;
        }
        Volatile.Write(ref _lingerUntilNs, _host.EpochNow() + LingerNs);
    }

    /// <summary>Closes the transport now, lingering or not (engine stop).</summary>
    public void CloseNow(string reason)
    {
        Close(reason);
        Volatile.Write(ref _lingerUntilNs, 0);
        _connection?.Close(DisconnectReason.Local, _closeReason);
    }

    /// <summary>Agent: finishes a lingering close once the send queue is empty or the linger time is over.</summary>
    public void PollLinger(long nowNs)
    {
        long until = Volatile.Read(ref _lingerUntilNs);
        if (until == 0) return;
        TransportConnection? c = _connection;
        if (c is null || c.QueuedSendBytes == 0 || c.IsClosing || nowNs >= until)
        {
            Volatile.Write(ref _lingerUntilNs, 0);
            c?.Close(DisconnectReason.Local, _closeReason);
        }
    }

    /// <summary>Agent: pauses or resumes reading inbound messages as the session asks (its outbound backlog is large and
    /// draining, see <see cref="FixSession.IsReceivePauseRequested"/>). A completion-mode TCP resume dispatches waiting
    /// messages on the calling thread (TLS restarts its loop on the thread pool), so the agent calls this outside the
    /// session's gate.</summary>
    /// <remarks>Compares with the transport's own state, not a copy: the receiving thread also pauses (see
    /// <see cref="IConnectionHandler.OnMessage"/> here), and only the agent resumes.</remarks>
    public void SetReceivePaused(bool paused)
    {
        TransportConnection? c = _connection;
        if (c is null || paused == c.IsReceivePaused) return;
        if (paused) c.PauseReceive();
        else c.ResumeReceive();
    }

    public int Poll(long nowNs) => _closed || _connection is null ? 0 : _connection.Poll(nowNs);

    void IConnectionHandler.OnMessage(TransportConnection connection, ReadOnlySpan<byte> message)
    {
        if (_closed) return;
        _host.OnFrame(this, message);
        // Inbound flow control without waiting for the agent's duty cycle: when the answer to this message took the
        // session's backlog past its pause threshold, stop reading at the next socket read (on a loaded machine the agent
        // may apply the request only after the receive loop has read megabytes more). The agent resumes.
        if (_slot is { } slot && slot.Session.IsReceivePauseRequested) connection.PauseReceive();
    }

    void IConnectionHandler.OnFrameError(TransportConnection connection, in FrameResult error, ReadOnlySpan<byte> skipped)
    {
        if (!_closed) _host.OnFrameError(this, skipped, error);
    }

    void IConnectionHandler.OnDisconnected(TransportConnection connection, DisconnectReason reason, string? detail)
    {
        _closeReason ??= detail is null ? reason.ToString() : reason + ": " + detail;
        _closed = true;
    }
}
