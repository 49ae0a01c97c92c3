using System;
using System.Buffers;
using System.IO.Pipelines;
using System.Threading.Tasks;
using FixEngine.Codec;
using FixEngine.Session;
using FixEngine.Transport;

namespace FixEngine.Testing;

/// <summary>Runs one <see cref="FixSession"/> over an <see cref="IDuplexPipe"/>: outbound messages are written to the
/// pipe's output, inbound bytes are framed from its input and handed to the session.</summary>
/// <remarks>
/// Design: one owner thread (the caller of <see cref="PumpInbound"/>, which is also the session's thread). Sends write
/// into <see cref="PipeWriter"/> and flush at once; a flush that does not complete synchronously (the reader is behind
/// the pipe's pause threshold) is back-pressure, so the message is refused whole (<see cref="SendResult.Backpressure"/>)
/// before any byte is written and the session keeps it in its backlog, as with a socket. Inbound framing is the
/// transport's: <see cref="FixFramer"/> cuts complete frames, a frame error skips the bytes the framer names and reports
/// them to <see cref="FixSession.OnGarbled"/>. A frame split across pipe segments is copied into a scratch buffer once.
/// Not a hot path: the socket transports are; this one allocates a little per read.
/// </remarks>
internal sealed class PipeSessionConnection : ISessionConnection
{
    private readonly IDuplexPipe _pipe;
    private readonly int _maxBodyLength;
    private FixSession? _session;
    private ValueTask<FlushResult> _pendingFlush;
    private bool _closed;
    private bool _reading;
    private byte[] _scratch = [];

    public PipeSessionConnection(IDuplexPipe pipe, int maxBodyLength)
    {
        _pipe = pipe;
        _maxBodyLength = maxBodyLength;
    }

    /// <summary>Why the connection closed, or null while open.</summary>
    public string? CloseReason { get; private set; }

    public bool IsClosed => _closed;

    /// <summary>Connects <paramref name="session"/> (an initiator sends its Logon now).</summary>
    public void Attach(FixSession session, long epochNs)
    {
        _session = session;
        session.OnConnected(this, epochNs);
    }

    public SendResult Send(ReadOnlySpan<byte> message)
    {
        if (_closed) return SendResult.Closed;
        if (!_pendingFlush.IsCompleted) return SendResult.Backpressure;
        PipeWriter output = _pipe.Output;
        message.CopyTo(output.GetSpan(message.Length));
        output.Advance(message.Length);
        _pendingFlush = output.FlushAsync();
        if (_pendingFlush.IsCompleted && _pendingFlush.Result.IsCompleted) Close("the reading side of the pipe completed");
        return SendResult.Sent;
    }

    public void Disconnect(string reason) => Close(reason);

    /// <summary>Frames every complete inbound message available now and hands each to the session.</summary>
    /// <returns>Frames handled (messages and frame errors).</returns>
    public int PumpInbound(long epochNs)
    {
        if (_closed || _session is null) return 0;
        PipeReader input = _pipe.Input;
        if (!input.TryRead(out ReadResult read)) return 0;
        _reading = true;
        ReadOnlySequence<byte> buffer = read.Buffer;
        int handled = 0;
        long consumed = 0;
        ReadOnlySpan<byte> data;
        if (buffer.IsSingleSegment)
        {
            data = buffer.FirstSpan;
        }
        else
        {
            if (_scratch.Length < buffer.Length) _scratch = new byte[Math.Max(buffer.Length, _scratch.Length * 2)];
            buffer.CopyTo(_scratch);
            data = _scratch.AsSpan(0, (int)buffer.Length);
        }
        while (consumed < data.Length && !_closed)
        {
            ReadOnlySpan<byte> rest = data.Slice((int)consumed);
            FrameResult frame = FixFramer.Frame(rest, _maxBodyLength);
            if (frame.Status == FrameStatus.NeedMoreData) break;
            consumed += frame.Length;
            handled++;
            if (frame.Status == FrameStatus.Complete) _session.OnMessage(rest.Slice(0, frame.Length), epochNs);
            else _session.OnGarbled(rest.Slice(0, frame.Length), frame.Describe(), epochNs);
        }
        bool ended = read.IsCompleted && consumed == buffer.Length;
        input.AdvanceTo(buffer.GetPosition(consumed), buffer.End);
        _reading = false;
        if (ended && !_closed)
        {
            Close("the peer closed the pipe");
            _session.OnDisconnected("the peer closed the pipe", epochNs);
        }
        else if (_closed)
        {
            input.Complete();
        }
        return handled;
    }

    private void Close(string reason)
    {
        if (_closed) return;
        _closed = true;
        CloseReason = reason;
        _pipe.Output.Complete();
        // A close from inside a message callback completes the input once the read in progress is given back.
        if (!_reading) _pipe.Input.Complete();
    }
}
