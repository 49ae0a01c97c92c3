using System;
using System.Buffers;
using System.Net;
using System.Runtime.CompilerServices;
using System.Threading;
using FixEngine.Codec;
using FixEngine.Hosting;

namespace FixEngine.Transport;

// Design:
// - The send side every transport shares: the encode buffer handed to the session (GetSendSpan/Commit), the bounded
//   send queue (_sendQueue, a SendByteQueue: TCP keeps the bytes the socket refused in it, TLS the plaintext waiting to
//   be encrypted) and the one lock around it, _sendLock. TCP and TLS supply only how queued bytes leave (TrySend and
//   their drains) and what else their send side holds (PrewarmSendUnderLock, ReleaseSendUnderLock).
// - The rule, one for both: the queue and every field of a subclass's send state are touched only under _sendLock,
//   except the queue's Count (QueuedSendBytes), which any thread reads, and its Capacity (SendQueueBytes, fixed at
//   construction: the one bound on a message, for the encode buffer and every send). Who contends for the lock: the threading rules
//   in docs/architecture.md ("Who owns what", transport send side).
// - _sendLock is a Monitor on a private object, not a System.Threading.Lock: a contended Lock allocates its wait event
//   on the managed heap the first time, a Monitor does not.
//   PERF: an uncontended enter/exit is tens of ns against a multi-µs send syscall (docs/benchmarks/transport-pingpong.md).
internal abstract partial class TransportConnection
{
    /// <summary>Guards <see cref="_sendQueue"/> and the subclass's send state (see the design notes).</summary>
    private protected readonly object _sendLock = new();

    /// <summary>The bounded send queue (a mutable struct: used in place, under <see cref="_sendLock"/>).</summary>
    private protected SendByteQueue _sendQueue;

    /// <summary>Bytes waiting to leave: the send queue plus what the transport holds beyond it (TLS: ciphertext). Any thread.</summary>
    public int QueuedSendBytes => _sendQueue.Count + QueuedBeyondSendQueue;

    /// <summary>Bytes the transport holds beyond the send queue (TLS: ciphertext not yet sent); any thread.</summary>
    private protected virtual int QueuedBeyondSendQueue => 0;

    /// <summary>True once the send queue's first array is rented (by <see cref="Prewarm"/> or the first queued byte); for tests.</summary>
    internal bool HasSendQueue => SendQueueArrayBytes != 0;

    /// <summary>Bytes of the send queue's array rented now (0 when none); for tests.</summary>
    internal int SendQueueArrayBytes
    {
        get
        {
            lock (_sendLock)
            {
                return _sendQueue.ArrayBytes;
            }
        }
    }

    /// <summary>Rents the send queue's first array (and the subclass's other send resources) now; any thread.</summary>
    internal void PrewarmSendBuffers()
    {
        lock (_sendLock)
        {
            if (!IsClosing)
            {
                _sendQueue.Rent();
                PrewarmSendUnderLock();
            }
        }
    }

    /// <summary>Rents the subclass's other send resources for <see cref="Prewarm"/>. Under the send lock, not closing.</summary>
    private protected virtual void PrewarmSendUnderLock()
    {
    }

    /// <summary>Teardown (nothing in flight): returns the send queue's arrays and the subclass's send resources.</summary>
    private void ReleaseSend()
    {
        lock (_sendLock)
        {
            _sendQueue.Release();
            ReleaseSendUnderLock();
        }
    }

    /// <summary>Returns the subclass's other send resources at teardown. Under the send lock.</summary>
    private protected virtual void ReleaseSendUnderLock()
    {
    }

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
        // The encode buffer is bounded by the send queue's capacity (SendQueueBytes): a message larger than the queue
        // could never be sent. Capacity is fixed at construction, so it is read without the send lock.
        int maxBytes = _sendQueue.Capacity;
        if ((uint)sizeHint > (uint)maxBytes)
        {
            Internal.ThrowHelper.ThrowArgumentOutOfRange(nameof(sizeHint), sizeHint, $"Messages are limited to SendQueueBytes ({maxBytes}).");
        }
        int size = Math.Max(_initialSendBytes, _sendBuffer?.Length ?? 0);
        while (size < sizeHint)
        {
            size = (int)Math.Min((long)size * 2, maxBytes);
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
