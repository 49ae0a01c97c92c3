using System;
using System.Buffers;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Threading;
using FixEngine.Codec;

namespace FixEngine.Transport;

// Design (receive side; the lifecycle is in TransportConnection.cs):
// - Everything here belongs to the single receiving thread (the busy-poll owner, the completion loop, or the TLS
//   receive loop; one receive is outstanding at a time, so they never overlap). The counters, the receive buffer's
//   capacity and the body-length limit are written by that thread only (plain stores of aligned values; the teardown,
//   which runs once that thread has left, sets the capacity to 0) and read by other threads with Volatile.Read;
//   _handlerErrors is also written by the teardown thread, so it is Interlocked.
// - One receive buffer and one framing and dispatch core for every transport: TCP receives from the socket, and TLS
//   has SslStream decrypt, into the pooled receive buffer at GetReceiveSpace (which compacts and grows it), then
//   OnBytesReceived runs DispatchFrames: FixFramer cuts messages in place and the handler gets each one as a span of
//   the bytes received, no copy.
// - Buffer bound: FixFramer returns NeedMoreData only for a prefix of at most MaxMessageBodyLength + 54 bytes
//   (8=, a 16-byte BeginString, 9=, 9 digits and the trailer search slack; TransportBufferBoundTests checks it) and
//   TcpConnectionOptions.Validate requires MaxReceiveBufferBytes >= MaxMessageBodyLength + FrameOverheadBytes (64).
//   So an incomplete frame always fits: the buffer grows (doubling) while a frame is incomplete but is never full
//   at its maximum. There is no "too large for the buffer" outcome: a BodyLength above MaxMessageBodyLength is a
//   frame error (BodyLengthTooLarge) found after the header, before the body is buffered.
// - Handler exceptions never leave the receive loop: the callback's exception is counted in _handlerErrors and closes
//   the connection with DisconnectReason.HandlerError. MessagesReceived counts messages whose OnMessage returned; a
//   message whose handler threw is a handler error, not a message received. FrameErrors counts every frame error
//   found, whether or not OnFrameError then threw.

internal abstract partial class TransportConnection
{
    // Receiving thread only.
    private byte[]? _receiveBuffer;
    private int _receiveCapacity;
    private int _receiveStart;
    private int _receiveEnd;
    private int _consecutiveFrameErrors;
    private long _consecutiveGarbageBytes;
    private long _messagesReceived;
    private long _bytesReceived;
    private long _frameErrors;
    private long _handlerErrors;

    /// <summary>Messages delivered to the handler whose <see cref="IConnectionHandler.OnMessage"/> returned normally (written by the receiving thread).</summary>
    /// <remarks>A message whose handler threw is counted in <see cref="HandlerErrors"/> instead.</remarks>
    public long MessagesReceived => Volatile.Read(ref _messagesReceived);

    /// <summary>Bytes received (written by the receiving thread).</summary>
    public long BytesReceived => Volatile.Read(ref _bytesReceived);

    /// <summary>Frame errors found and reported to <see cref="IConnectionHandler.OnFrameError"/> (written by the receiving thread).</summary>
    public long FrameErrors => Volatile.Read(ref _frameErrors);

    /// <summary>Handler callbacks that threw.</summary>
    /// <remarks>
    /// An exception from <see cref="IConnectionHandler.OnMessage"/> or <see cref="IConnectionHandler.OnFrameError"/> never
    /// escapes the receive loop: it is counted here and closes the connection with <see cref="DisconnectReason.HandlerError"/>
    /// (the detail names the callback and the exception), so this is at most 1 for those. An exception from
    /// <see cref="IConnectionHandler.OnDisconnected"/> is counted here too and otherwise ignored.
    /// </remarks>
    public long HandlerErrors => Interlocked.Read(ref _handlerErrors);

    /// <summary>Current receive buffer capacity in bytes (0 before the first receive and after teardown).</summary>
    /// <remarks>TCP and TLS receive into this buffer (TLS: SslStream decrypts into it). It never exceeds
    /// <see cref="TcpConnectionOptions.MaxReceiveBufferBytes"/>.</remarks>
    public int ReceiveBufferCapacity => Volatile.Read(ref _receiveCapacity);

    /// <summary>The largest BodyLength accepted now: <see cref="TcpConnectionOptions.PreLogonMaxMessageBodyLength"/> until
    /// <see cref="SetSessionLimits"/>, then the session's (written by the receiving thread).</summary>
    public int MaxMessageBodyLength => Volatile.Read(ref _maxBodyLength);

    /// <summary>Receiving thread (e.g. inside <see cref="IConnectionHandler.OnMessage"/> for the Logon that bound the
    /// connection to its session): lifts the pre-Logon limit to <paramref name="maxMessageBodyLength"/> (at most
    /// <see cref="TcpConnectionOptions.MaxMessageBodyLength"/>) and sets whether BodyLength and CheckSum errors refuse a frame.</summary>
    /// <param name="maxMessageBodyLength">The session's largest BodyLength.</param>
    /// <param name="validateLengthAndChecksum">False delivers a frame whose BodyLength misses its CheckSum field or whose
    /// CheckSum is wrong as a message (QuickFIX's <c>ValidateLengthAndChecksum=N</c>).</param>
    internal void SetSessionLimits(int maxMessageBodyLength, bool validateLengthAndChecksum)
    {
        _maxBodyLength = Math.Clamp(maxMessageBodyLength, 1, _maxBodyLimit);
        _baseReceiveBytes = _initialReceiveBytes;
        _validateLengthAndChecksum = validateLengthAndChecksum;
    }

    // The receive buffer's resting size: the initial size, or under a pre-Logon limit just what its largest frame needs.
    private int BaseReceiveBytes(int maxBodyLength) =>
        maxBodyLength < _maxBodyLimit ? Math.Max(256, Math.Min(_initialReceiveBytes, maxBodyLength + TcpConnectionOptions.FrameOverheadBytes)) : _initialReceiveBytes;

    /// <summary>Where the next receive may write: after the buffered bytes, compacting or growing the buffer when it is nearly full.</summary>
    private protected void GetReceiveSpace(out byte[] buffer, out int offset, out int count)
    {
        byte[]? array = _receiveBuffer;
        if (array is null)
        {
            array = _pool.Rent(_baseReceiveBytes);
            _receiveBuffer = array;
            _receiveCapacity = _baseReceiveBytes;
        }
        int capacity = _receiveCapacity;
        int free = capacity - _receiveEnd;
        if (free < (capacity >> 2) && _receiveStart > 0)
        {
            // PERF: the tail is at most one partial frame; moving it keeps reads large without growing.
            int pending = _receiveEnd - _receiveStart;
            Buffer.BlockCopy(array, _receiveStart, array, 0, pending);
            _receiveStart = 0;
            _receiveEnd = pending;
            free = capacity - pending;
        }
        if (free == 0)
        {
            // One incomplete frame fills the whole buffer.
            array = GrowReceiveBuffer(array, capacity);
            capacity = _receiveCapacity;
        }
        buffer = array;
        offset = _receiveEnd;
        count = capacity - _receiveEnd;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private byte[] GrowReceiveBuffer(byte[] array, int capacity)
    {
        // The buffer bound in the design note: a buffer full of one incomplete frame is below its maximum.
        Debug.Assert(capacity < _maxReceiveBytes, $"an incomplete frame of {capacity} bytes exceeds FixFramer's bound for MaxMessageBodyLength {_maxBodyLength}");
        int newCapacity = (int)Math.Min((long)capacity * 2, _maxReceiveBytes);
        byte[] bigger = _pool.Rent(newCapacity);
        Buffer.BlockCopy(array, 0, bigger, 0, _receiveEnd);
        _pool.Return(array);
        _receiveBuffer = bigger;
        _receiveCapacity = newCapacity;
        return bigger;
    }

    // A large message made the buffer grow; now that it is empty it goes back to its resting size, the large array to the
    // pool, so a connection holds a large buffer only while a large message is arriving.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private void ShrinkReceiveBuffer()
    {
        byte[]? large = _receiveBuffer;
        _receiveBuffer = _pool.Rent(_baseReceiveBytes);
        _receiveCapacity = _baseReceiveBytes;
        if (large is not null) _pool.Return(large);
    }

    /// <summary>Frames and dispatches after <paramref name="count"/> bytes landed at the offset given by <see cref="GetReceiveSpace"/>.</summary>
    /// <returns>Messages delivered; check <see cref="IsClosing"/> afterwards.</returns>
    private protected int OnBytesReceived(int count)
    {
        _bytesReceived += count;
        int end = _receiveEnd + count;
        _receiveEnd = end;
        long before = _messagesReceived;
        int start = _receiveStart + DispatchFrames(new ReadOnlySpan<byte>(_receiveBuffer, _receiveStart, end - _receiveStart));
        if (start >= end)
        {
            _receiveStart = 0;
            _receiveEnd = 0;
            if (_receiveCapacity > _baseReceiveBytes && !IsClosing) ShrinkReceiveBuffer();
        }
        else
        {
            _receiveStart = start;
        }
        return (int)(_messagesReceived - before);
    }

    /// <summary>Frames and dispatches every complete message at the start of <paramref name="data"/>, in place; stops at an incomplete frame or once closing.</summary>
    /// <returns>Bytes consumed (messages and skipped bytes).</returns>
    private protected int DispatchFrames(ReadOnlySpan<byte> data)
    {
        // The receiving thread only runs once the handler is set (see the handler gate).
        IConnectionHandler handler = _handler!;
        int consumed = 0;
        FrameStatus status = FrameStatus.NeedMoreData;
        try
        {
            while (consumed < data.Length)
            {
                ReadOnlySpan<byte> rest = data.Slice(consumed);
                FrameResult frame = FixFramer.Frame(rest, _maxBodyLength);
                status = frame.Status;
                if (status == FrameStatus.Complete)
                {
                    consumed += frame.Length;
                    _consecutiveFrameErrors = 0;
                    _consecutiveGarbageBytes = 0;
                    handler.OnMessage(this, rest.Slice(0, frame.Length));
                    // Counted once the handler returned (see HandlerErrors).
                    _messagesReceived++;
                }
                else if (status == FrameStatus.NeedMoreData)
                {
                    break;
                }
                else if (!_validateLengthAndChecksum && status is FrameStatus.CheckSumMismatch or FrameStatus.BodyLengthMismatch
                    && EndsWithCheckSumField(rest.Slice(0, frame.Length)))
                {
                    // ValidateLengthAndChecksum=N: the frame runs through its CheckSum field; deliver it as QuickFIX does.
                    consumed += frame.Length;
                    _consecutiveFrameErrors = 0;
                    _consecutiveGarbageBytes = 0;
                    handler.OnMessage(this, rest.Slice(0, frame.Length));
                    _messagesReceived++;
                }
                else
                {
                    consumed += frame.Length;
                    _frameErrors++;
                    handler.OnFrameError(this, frame, rest.Slice(0, frame.Length));
                    // A run of raw garbage split across reads counts as bytes only; malformed frames count as errors too.
                    if (status != FrameStatus.Garbage)
                    {
                        _consecutiveFrameErrors++;
                    }
                    _consecutiveGarbageBytes += frame.Length;
                    if (_consecutiveFrameErrors > _maxFrameErrors || _consecutiveGarbageBytes > _maxGarbageBytes)
                    {
                        CloseForGarbage();
                    }
                }
                if (IsClosing)
                {
                    break;
                }
            }
        }
        catch (Exception ex)
        {
            OnHandlerException(ex, status == FrameStatus.Complete ? nameof(IConnectionHandler.OnMessage) : nameof(IConnectionHandler.OnFrameError));
        }
        return consumed;
    }

    // A frame the framer cut through its CheckSum field (a BodyLength mismatch may also be a skip to the next 8=).
    private static bool EndsWithCheckSumField(ReadOnlySpan<byte> frame)
    {
        int tag = frame.LastIndexOf("\u000110="u8);
        return tag >= 0 && frame[^1] == 1 && frame.Slice(tag + 1, frame.Length - tag - 2).IndexOf((byte)1) < 0;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void OnHandlerException(Exception ex, string callback)
    {
        Interlocked.Increment(ref _handlerErrors);
        Close(DisconnectReason.HandlerError, $"connection handler threw {ex.GetType().Name} in {callback}: {ex.Message}");
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void CloseForGarbage() => Close(DisconnectReason.Garbage,
        $"too much garbage: {_consecutiveFrameErrors} consecutive frame errors skipping {_consecutiveGarbageBytes} bytes without a valid message " +
        $"(limits {_maxFrameErrors} errors, {_maxGarbageBytes} bytes)");

    /// <summary>The peer's FIN (TLS: its close_notify or FIN); reports <see cref="DisconnectReason.PeerClosedMidMessage"/> when part of a frame is buffered.</summary>
    private protected void OnPeerClosed() => OnPeerClosed(_receiveEnd - _receiveStart);

    /// <summary>The peer's FIN with <paramref name="incompleteBytes"/> of an incomplete frame buffered.</summary>
    private protected void OnPeerClosed(long incompleteBytes)
    {
        if (incompleteBytes > 0)
        {
            Close(DisconnectReason.PeerClosedMidMessage, $"peer closed mid-message: {incompleteBytes} bytes of an incomplete frame");
        }
        else
        {
            Close(DisconnectReason.PeerClosed, "peer closed the connection");
        }
    }
}
