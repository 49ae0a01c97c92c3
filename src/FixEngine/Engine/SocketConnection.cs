using System;
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
/// flag and reason, which the transport may set from any thread. Allocation-free per message: frames are handed over as
/// spans of the transport's receive buffer.
/// </remarks>
internal sealed class SocketConnection : ISessionConnection, IConnectionHandler
{
    private readonly FixEngineHost _host;
    private TransportConnection? _connection;
    private volatile SessionSlot? _slot;
    private volatile bool _closed;
    private volatile string? _closeReason;

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

    public void Close(string reason)
    {
        if (_closed) return;
        _closeReason ??= reason;
        _closed = true;
        _connection?.Close(DisconnectReason.Local, reason);
    }

    public int Poll(long nowNs) => _closed || _connection is null ? 0 : _connection.Poll(nowNs);

    void IConnectionHandler.OnMessage(TransportConnection connection, ReadOnlySpan<byte> message)
    {
        if (!_closed) _host.OnFrame(this, message);
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
