using System;
using System.Buffers;
using System.IO.Pipelines;
using System.Threading;
using System.Threading.Tasks;
using FixEngine.Codec;
using FixEngine.Session;
using FixEngine.Transport;

namespace FixEngine.Engine;

/// <summary>Receives the frames a <see cref="PipeSessionConnection"/> cuts from its input.</summary>
internal interface IPipeFrameHandler
{
    /// <summary>A complete frame (CheckSum and BodyLength verified); the bytes are valid during the call.</summary>
    void OnFrame(ReadOnlySpan<byte> frame, long epochNs);

    /// <summary>Bytes that are not a valid frame, skipped.</summary>
    void OnFrameError(in FrameResult error, ReadOnlySpan<byte> skipped, long epochNs);
}

/// <summary>Runs one <see cref="FixSession"/> over an <see cref="IDuplexPipe"/>: outbound messages are written to the
/// pipe's output, inbound bytes are framed from its input and handed to a <see cref="IPipeFrameHandler"/> (the session).</summary>
/// <remarks>
/// <para>Design: two users. The testing pair (<c>FixSessionTestPair</c>, FixEngine.Testing) runs it on one thread with
/// <see cref="PumpInbound"/>. The engine (<see cref="Engine.PipeEngineConnection"/>, a hosting server's connection such as
/// Kestrel's) reads on the server's thread with <see cref="Deliver"/> and sends under the session's gate from whichever
/// thread runs the session; there <see cref="Close"/> may come from any thread, so it only marks the connection closed and
/// wakes the reader (<see cref="PipeReader.CancelPendingRead"/>), and the reader completes both pipe ends
/// (<see cref="CompleteTransport"/>) once it has stopped, under the gate. While the session asks to stop reading, the
/// engine's read loop parks on <see cref="ReadPause"/> (no read outstanding, so the server's pipe fills and TCP flow
/// control slows the peer); the agent resumes it once the backlog has drained, and <see cref="Close"/> resumes it too, so
/// a parked loop always sees the close.</para>
/// <para>Sends write into the <see cref="PipeWriter"/> and flush at once; a flush that does not complete synchronously
/// (the reader, or the socket behind a server's pipe, is behind the pipe's pause threshold) is back-pressure: the next
/// message is refused whole (<see cref="SendResult.Backpressure"/>) before any byte is written and the session keeps it
/// in its backlog, as with a socket. Inbound framing is the transport's: <see cref="FixFramer"/> cuts complete frames, a
/// frame error skips the bytes the framer names. A frame split across pipe segments is copied into a scratch buffer once.</para>
/// <para>The socket transports stay the fast path; this one copies a frame that spans segments and allocates when the
/// scratch buffer grows (measured in docs/benchmarks/pipe-transport.md).</para>
/// </remarks>
internal sealed class PipeSessionConnection : ISessionConnection
{
    private readonly IDuplexPipe _pipe;
    private readonly bool _deferCompletion;
    private readonly AwaitableReceivePause _receivePause = new();
    private FixSession? _session;
    private SessionHandler? _handler;
    private ValueTask<FlushResult> _pendingFlush;
    private int _closed;
    private bool _reading;
    private bool _completed;
    private byte[] _scratch = [];
    private string? _closeReason;

    /// <param name="pipe">The transport.</param>
    /// <param name="maxBodyLength">The largest BodyLength(9) framed (larger is a frame error).</param>
    /// <param name="deferCompletion">True when the reading thread completes the pipe ends (<see cref="CompleteTransport"/>)
    /// and <see cref="Close"/> may be called from any thread; false for single-threaded use.</param>
    public PipeSessionConnection(IDuplexPipe pipe, int maxBodyLength, bool deferCompletion = false)
    {
        _pipe = pipe;
        MaxBodyLength = maxBodyLength;
        _deferCompletion = deferCompletion;
    }

    /// <summary>The largest BodyLength(9) framed; the reading thread may raise it (after a Logon bound the connection).</summary>
    public int MaxBodyLength { get; set; }

    /// <summary>Why the connection closed, or null while open.</summary>
    public string? CloseReason => Volatile.Read(ref _closeReason);

    /// <summary>Closed or closing (any thread).</summary>
    public bool IsClosed => Volatile.Read(ref _closed) != 0;

    /// <summary>The pipe's input (the reading thread).</summary>
    public PipeReader Input => _pipe.Input;

    /// <summary>The reading loop's receive pause: it parks there while the session asks to stop reading; the agent
    /// resumes it (<see cref="AwaitableReceivePause.Resume"/>) once the pause is over, and <see cref="Close"/> does.</summary>
    public AwaitableReceivePause ReadPause => _receivePause;

    /// <summary>Single-threaded use: connects <paramref name="session"/> (an initiator sends its Logon now).</summary>
    public void Attach(FixSession session, long epochNs)
    {
        _session = session;
        _handler = new SessionHandler(session);
        session.OnConnected(this, epochNs);
    }

    public SendResult Send(ReadOnlySpan<byte> message)
    {
        if (IsClosed) return SendResult.Closed;
        if (!_pendingFlush.IsCompleted) return SendResult.Backpressure;
        PipeWriter output = _pipe.Output;
        try
        {
            message.CopyTo(output.GetSpan(message.Length));
            output.Advance(message.Length);
            _pendingFlush = output.FlushAsync();
        }
        catch (InvalidOperationException e)
        {
            // Someone else completed the pipe's writer (a server or user code owning the IDuplexPipe): the connection is
            // gone; no exception reaches the session's caller.
            _pendingFlush = default;
            Close("the pipe's writer was completed outside the engine: " + e.Message);
            return SendResult.Closed;
        }
        if (_pendingFlush.IsCompleted && _pendingFlush.Result.IsCompleted) Close("the reading side of the pipe completed");
        return SendResult.Sent;
    }

    public void Disconnect(string reason) => Close(reason);

    /// <summary>Closes the connection; bytes already flushed still leave. Any thread when completion is deferred.</summary>
    public void Close(string reason)
    {
        if (Interlocked.CompareExchange(ref _closeReason, reason, null) is not null) return;
        Volatile.Write(ref _closed, 1);
        if (_deferCompletion)
        {
            // The reading thread completes both ends once it has stopped reading (CompleteTransport): wake it, whether
            // it waits for bytes or is parked for a receive pause.
            _pipe.Input.CancelPendingRead();
            _receivePause.Resume();
            return;
        }
        _pipe.Output.Complete();
        // A close from inside a message callback completes the input once the read in progress is given back.
        if (!_reading) _pipe.Input.Complete();
    }

    /// <summary>Deferred completion: the reading thread, after its last read, completes the output (the server then sends
    /// what is left and closes) and the input. Called under the session's gate when the connection is bound, so no send is
    /// in progress.</summary>
    public void CompleteTransport()
    {
        if (_completed) return;
        _completed = true;
        _pipe.Output.Complete();
        _pipe.Input.Complete();
    }

    /// <summary>Frames every complete message in <paramref name="buffer"/> and hands each to <paramref name="handler"/>,
    /// stopping at an incomplete one or once the connection is closed.</summary>
    /// <returns>How many bytes were consumed (framed or skipped); the caller advances the reader by that much.</returns>
    public long Deliver(in ReadOnlySequence<byte> buffer, IPipeFrameHandler handler, long epochNs, out int frames)
    {
        frames = 0;
        ReadOnlySpan<byte> data;
        if (buffer.IsSingleSegment)
        {
            data = buffer.FirstSpan;
        }
        else
        {
            // PERF: one copy for a read that spans segments (a frame may straddle them); the scratch buffer is kept.
            if (_scratch.Length < buffer.Length) _scratch = new byte[Math.Max(buffer.Length, _scratch.Length * 2)];
            buffer.CopyTo(_scratch);
            data = _scratch.AsSpan(0, (int)buffer.Length);
        }
        int consumed = 0;
        while (consumed < data.Length && !IsClosed)
        {
            ReadOnlySpan<byte> rest = data.Slice(consumed);
            FrameResult frame = FixFramer.Frame(rest, MaxBodyLength);
            if (frame.Status == FrameStatus.NeedMoreData) break;
            consumed += frame.Length;
            frames++;
            if (frame.Status == FrameStatus.Complete) handler.OnFrame(rest.Slice(0, frame.Length), epochNs);
            else handler.OnFrameError(frame, rest.Slice(0, frame.Length), epochNs);
        }
        return consumed;
    }

    /// <summary>Single-threaded use: frames every complete inbound message available now and hands each to the session.</summary>
    /// <returns>Frames handled (messages and frame errors).</returns>
    public int PumpInbound(long epochNs)
    {
        if (IsClosed || _session is null || _handler is null) return 0;
        PipeReader input = _pipe.Input;
        if (!input.TryRead(out ReadResult read)) return 0;
        _reading = true;
        ReadOnlySequence<byte> buffer = read.Buffer;
        long consumed = Deliver(buffer, _handler, epochNs, out int handled);
        bool ended = read.IsCompleted && consumed == buffer.Length;
        input.AdvanceTo(buffer.GetPosition(consumed), buffer.End);
        _reading = false;
        if (ended && !IsClosed)
        {
            Close("the peer closed the pipe");
            _session.OnDisconnected("the peer closed the pipe", epochNs);
        }
        else if (IsClosed)
        {
            input.Complete();
        }
        return handled;
    }

    /// <summary>Hands frames straight to a session (single-threaded use).</summary>
    private sealed class SessionHandler(FixSession session) : IPipeFrameHandler
    {
        public void OnFrame(ReadOnlySpan<byte> frame, long epochNs) => session.OnMessage(frame, epochNs);

        public void OnFrameError(in FrameResult error, ReadOnlySpan<byte> skipped, long epochNs) => session.OnGarbled(skipped, error.Describe(), epochNs);
    }
}
