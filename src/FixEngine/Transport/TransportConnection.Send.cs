using System;
using System.Buffers;
using System.Net;
using System.Runtime.CompilerServices;
using System.Threading;
using FixEngine.Codec;
using FixEngine.Hosting;

namespace FixEngine.Transport;

// The send side every transport shares: the encode buffer handed to the session and the send entry points.
internal abstract partial class TransportConnection
{
    /// <summary>A span of at least <paramref name="sizeHint"/> bytes to encode one message into; then call <see cref="Commit"/>.</summary>
    /// <param name="sizeHint">Bytes needed (at most <see cref="TcpConnectionOptions.SendQueueBytes"/>).</param>
    /// <returns>The connection's encode buffer; valid until <see cref="Commit"/> or the next call.</returns>
    /// <exception cref="ArgumentOutOfRangeException">The hint is negative or above the send queue size.</exception>
    public Span<byte> GetSendSpan(int sizeHint)
    {
        byte[]? buffer = _sendBuffer;
        if (buffer is null || buffer.Length < sizeHint)
        {
            buffer = GrowSendBuffer(sizeHint);
        }
        return buffer;
    }

    /// <summary>Sends the first <paramref name="length"/> bytes written into the span from <see cref="GetSendSpan"/>.</summary>
    /// <param name="length">Bytes written.</param>
    /// <returns>The send result; on <see cref="SendResult.Backpressure"/> nothing was sent and the bytes stay in the encode buffer.</returns>
    public SendResult Commit(int length)
    {
        byte[]? buffer = _sendBuffer;
        if (buffer is null || (uint)length > (uint)buffer.Length)
        {
            Internal.ThrowHelper.ThrowArgumentOutOfRange(nameof(length), length, "Commit length exceeds the span returned by GetSendSpan.");
        }
        return TrySend(new ReadOnlySpan<byte>(buffer, 0, length));
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private byte[] GrowSendBuffer(int sizeHint)
    {
        if ((uint)sizeHint > (uint)_maxSendBytes)
        {
            Internal.ThrowHelper.ThrowArgumentOutOfRange(nameof(sizeHint), sizeHint, $"Messages are limited to SendQueueBytes ({_maxSendBytes}).");
        }
        int size = Math.Max(_initialSendBytes, _sendBuffer?.Length ?? 0);
        while (size < sizeHint)
        {
            size = (int)Math.Min((long)size * 2, _maxSendBytes);
        }
        byte[] bigger = GC.AllocateUninitializedArray<byte>(size);
        _sendBuffer = bigger;
        return bigger;
    }

    /// <summary>Sends pre-encoded bytes (e.g. a shared <see cref="FixEngine.Buffers.RefCountedBuffer"/>); copied only if the socket does not take them all.</summary>
    /// <param name="message">The bytes.</param>
    /// <returns>The send result.</returns>
    public abstract SendResult TrySend(ReadOnlySpan<byte> message);
}
