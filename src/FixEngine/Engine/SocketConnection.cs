using System;
using FixEngine.Codec;
using FixEngine.Session;
using FixEngine.Transport;
using SessionSendResult = FixEngine.Session.SendResult;
using TransportSendResult = FixEngine.Transport.SendResult;

namespace FixEngine.Engine;

/// <summary>Adapts a busy-poll <see cref="TcpConnection"/> (FixEngine.Transport) to the session's <see cref="ISessionConnection"/>.</summary>
/// <remarks>
/// Design: the engine agent thread is the only thread that polls the connection, so <see cref="IConnectionHandler"/>
/// callbacks (frames, frame errors, disconnect) arrive on the agent thread, inline in <see cref="Poll"/> or in
/// <see cref="Close"/>. The accept thread (or the connect task) only constructs the adapter and queues it to the
/// agent. Allocation-free per message: frames are handed over as spans of the transport's receive buffer.
/// </remarks>
internal sealed class SocketConnection : ISessionConnection, IConnectionHandler
{
    private readonly FixEngineHost _host;
    private TcpConnection? _connection;
    private volatile bool _closed;

    public SocketConnection(FixEngineHost host, long createdNs)
    {
        _host = host;
        CreatedNs = createdNs;
    }

    public Session.Session? Session { get; set; }

    public long CreatedNs { get; }

    public string RemoteEndPoint => _connection?.RemoteEndPoint?.ToString() ?? "?";

    public bool IsClosed => _closed;

    public string? CloseReason { get; private set; }

    public void Attach(TcpConnection connection) => _connection = connection;

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

    public SessionSendResult Send(ReadOnlySpan<byte> message)
    {
        TcpConnection? c = _connection;
        if (_closed || c is null) return SessionSendResult.Closed;
        return c.TrySend(message) switch
        {
            TransportSendResult.Sent or TransportSendResult.Queued => SessionSendResult.Sent,
            TransportSendResult.Backpressure or TransportSendResult.TooLarge => SessionSendResult.Backpressured,
            _ => SessionSendResult.Closed,
        };
    }

    public void Disconnect(string reason) => Close(reason);

    public void Close(string reason)
    {
        if (_closed) return;
        CloseReason ??= reason;
        _closed = true;
        _connection?.Close(DisconnectReason.Local, reason);
    }

    public int Poll(long nowNs) => _closed || _connection is null ? 0 : _connection.Poll(nowNs);

    void IConnectionHandler.OnMessage(TransportConnection connection, ReadOnlySpan<byte> message)
    {
        if (!_closed) _host.OnFrame(this, message, _host.CurrentEpochNs);
    }

    void IConnectionHandler.OnFrameError(TransportConnection connection, in FrameResult error, ReadOnlySpan<byte> skipped)
    {
        if (!_closed) _host.OnFrameError(this, skipped, error, _host.CurrentEpochNs);
    }

    void IConnectionHandler.OnDisconnected(TransportConnection connection, DisconnectReason reason, string? detail)
    {
        CloseReason ??= detail is null ? reason.ToString() : reason + ": " + detail;
        _closed = true;
    }
}
