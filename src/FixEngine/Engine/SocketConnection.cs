using System;
using System.Net.Sockets;
using FixEngine.Codec;
using FixEngine.Session;

namespace FixEngine.Engine;

/// <summary>A non-blocking TCP socket polled by the engine agent: frames inbound bytes, writes outbound bytes in order.</summary>
/// <remarks>
/// Design: owned by the engine agent thread; every member is called on that thread. Receive uses the non-throwing
/// <c>Socket.Receive(Span, SocketFlags, out SocketError)</c> on a reusable buffer (no allocation when idle or in
/// steady state). A send the kernel does not take in full is kept in a bounded backlog flushed on the next poll; when
/// the backlog is full <see cref="Send"/> reports <see cref="SendResult.Backpressured"/>. This adapter stands in for
/// FixEngine.Transport (not merged when the engine was written) behind <see cref="ISessionConnection"/>.
/// </remarks>
internal sealed class SocketConnection : ISessionConnection
{
    private const int InitialReceiveBuffer = 64 * 1024;

    private readonly Socket _socket;
    private readonly int _maxBodyLength;
    private readonly int _maxBacklog;
    private byte[] _receive;
    private int _start;
    private int _end;
    private byte[] _backlog;
    private int _backlogLength;
    private bool _closed;

    public SocketConnection(Socket socket, int maxMessageSize, long createdNs)
    {
        _socket = socket;
        _socket.Blocking = false;
        _socket.NoDelay = true;
        _maxBodyLength = maxMessageSize;
        _maxBacklog = Math.Max(maxMessageSize * 4, 4 << 20);
        _receive = new byte[InitialReceiveBuffer];
        _backlog = new byte[64 * 1024];
        CreatedNs = createdNs;
        try
        {
            RemoteEndPoint = socket.RemoteEndPoint?.ToString() ?? "?";
        }
        catch (SocketException)
        {
            RemoteEndPoint = "?";
        }
    }

    public Session.Session? Session { get; set; }

    public long CreatedNs { get; }

    public string RemoteEndPoint { get; }

    public bool IsClosed => _closed;

    public string? CloseReason { get; private set; }

    public SendResult Send(ReadOnlySpan<byte> message)
    {
        if (_closed) return SendResult.Closed;
        if (_backlogLength > 0) return AppendBacklog(message);
        int sent = _socket.Send(message, SocketFlags.None, out SocketError error);
        if (error is SocketError.Success or SocketError.WouldBlock)
        {
            if (sent < message.Length) return AppendBacklog(message.Slice(Math.Max(sent, 0)));
            return SendResult.Sent;
        }
        Close("send failed: " + error);
        return SendResult.Closed;
    }

    private SendResult AppendBacklog(ReadOnlySpan<byte> bytes)
    {
        int needed = _backlogLength + bytes.Length;
        if (needed > _maxBacklog) return SendResult.Backpressured;
        if (needed > _backlog.Length) Array.Resize(ref _backlog, Math.Min(_maxBacklog, Math.Max(needed, _backlog.Length * 2)));
        bytes.CopyTo(_backlog.AsSpan(_backlogLength));
        _backlogLength = needed;
        return SendResult.Sent;
    }

    private int FlushBacklog()
    {
        if (_backlogLength == 0) return 0;
        int sent = _socket.Send(_backlog.AsSpan(0, _backlogLength), SocketFlags.None, out SocketError error);
        if (error is not (SocketError.Success or SocketError.WouldBlock))
        {
            Close("send failed: " + error);
            return 1;
        }
        if (sent > 0)
        {
            Buffer.BlockCopy(_backlog, sent, _backlog, 0, _backlogLength - sent);
            _backlogLength -= sent;
        }
        return sent > 0 ? 1 : 0;
    }

    public void Disconnect(string reason) => Close(reason);

    public void Close(string reason)
    {
        if (_closed) return;
        _closed = true;
        CloseReason = reason;
        try
        {
            if (_backlogLength > 0) _socket.Send(_backlog.AsSpan(0, _backlogLength), SocketFlags.None, out _);
            _socket.Shutdown(SocketShutdown.Both);
        }
        catch (SocketException)
        {
        }
        catch (ObjectDisposedException)
        {
        }
        _socket.Close();
    }

    /// <summary>Flushes the backlog, reads what the kernel has and hands complete frames to <paramref name="sink"/>.</summary>
    public int Poll(FixEngineHost sink, long nowNs)
    {
        if (_closed) return 0;
        int work = FlushBacklog();
        if (_closed) return work;
        if (_end == _receive.Length)
        {
            if (_start > 0)
            {
                Buffer.BlockCopy(_receive, _start, _receive, 0, _end - _start);
                _end -= _start;
                _start = 0;
            }
            else
            {
                Array.Resize(ref _receive, _receive.Length * 2);
            }
        }
        int n = _socket.Receive(_receive.AsSpan(_end), SocketFlags.None, out SocketError error);
        if (error == SocketError.WouldBlock) return work;
        if (error != SocketError.Success || n == 0)
        {
            Close(n == 0 && error == SocketError.Success ? "peer closed the connection" : "receive failed: " + error);
            return work + 1;
        }
        _end += n;
        work++;
        while (!_closed && _start < _end)
        {
            ReadOnlySpan<byte> available = _receive.AsSpan(_start, _end - _start);
            FrameResult frame = FixFramer.Frame(available, _maxBodyLength);
            if (frame.Status == FrameStatus.NeedMoreData) break;
            if (frame.IsComplete)
            {
                _start += frame.Length;
                sink.OnFrame(this, available.Slice(0, frame.Length), nowNs);
            }
            else
            {
                _start += frame.Length;
                sink.OnFrameError(this, available.Slice(0, frame.Length), frame, nowNs);
            }
        }
        if (_start == _end)
        {
            _start = 0;
            _end = 0;
        }
        return work;
    }
}
