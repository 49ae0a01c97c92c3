using System;
using System.Net.Sockets;
using FixEngine.Codec;

namespace FixEngine.Benchmarks.RoundTrip;

/// <summary>Handles the frames a <see cref="FixStreamReader"/> cuts out of a byte stream.</summary>
internal interface IFrameHandler
{
    /// <summary>One complete, checksum-valid message; <paramref name="frame"/> is valid during the call only.</summary>
    void OnFrame(ReadOnlySpan<byte> frame);

    /// <summary>Bytes the framer rejected (skipped).</summary>
    void OnFrameError(FrameStatus status);
}

/// <summary>Reads a blocking socket into one reusable buffer and hands out FIX frames in place.</summary>
/// <remarks>
/// Single-threaded (the receive thread owns it). Allocation-free after construction: frames are sliced from the
/// receive buffer, a partial frame is moved to the front when the buffer's tail runs short.
/// <code>
///   buffer: [ consumed | start .. complete frames .. partial frame | end .. free ]
/// </code>
/// </remarks>
internal sealed class FixStreamReader
{
    private readonly byte[] _buffer;
    private int _start;
    private int _end;

    public FixStreamReader(int capacity = 64 * 1024) => _buffer = new byte[capacity];

    /// <summary>Receives and dispatches until the peer closes; returns normally on close.</summary>
    public void Run<THandler>(Socket socket, THandler handler) where THandler : IFrameHandler
    {
        while (true)
        {
            if (_end == _buffer.Length)
            {
                if (_start == 0)
                {
                    // A frame larger than the buffer cannot happen with MaxBodyLength well below the capacity; drop it.
                    handler.OnFrameError(FrameStatus.BodyLengthTooLarge);
                    _end = 0;
                }
                else
                {
                    Compact();
                }
            }
            int received = socket.Receive(_buffer.AsSpan(_end), SocketFlags.None);
            if (received == 0) return;
            _end += received;
            Dispatch(handler);
        }
    }

    /// <summary>Appends bytes as if received and dispatches them (for the self-check).</summary>
    public void Feed<THandler>(ReadOnlySpan<byte> bytes, THandler handler) where THandler : IFrameHandler
    {
        if (_buffer.Length - _end < bytes.Length) Compact();
        bytes.CopyTo(_buffer.AsSpan(_end));
        _end += bytes.Length;
        Dispatch(handler);
    }

    private void Dispatch<THandler>(THandler handler) where THandler : IFrameHandler
    {
        while (_start < _end)
        {
            FrameResult frame = FixFramer.Frame(_buffer.AsSpan(_start, _end - _start), OrderFlowMessages.MaxBodyLength);
            if (frame.Status == FrameStatus.NeedMoreData) break;
            if (frame.IsComplete)
            {
                handler.OnFrame(_buffer.AsSpan(_start, frame.Length));
            }
            else
            {
                handler.OnFrameError(frame.Status);
            }
            _start += frame.Length;
        }
        if (_start == _end)
        {
            _start = 0;
            _end = 0;
        }
        else if (_start > _buffer.Length / 2)
        {
            Compact();
        }
    }

    private void Compact()
    {
        int pending = _end - _start;
        _buffer.AsSpan(_start, pending).CopyTo(_buffer);
        _start = 0;
        _end = pending;
    }
}
