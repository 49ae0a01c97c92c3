using System;
using System.Buffers.Binary;
using FixEngine.Codec;
using FixEngine.Collections;

namespace FixEngine.Session;

// Design:
// - The hand-off behind FixSession.TrySendFromAnyThread: any number of producer threads, one consumer (the session's
//   owner thread, which numbers, stores and sends each record in FixSession.DrainOutbox).
// - The ring is an SpscByteRing (single producer), so producers serialise on _producers (a Monitor on a private object:
//   uncontended one interlocked operation to enter and one to leave; its contention path does not allocate, whereas
//   System.Threading.Lock allocates its wait event the first time it is contended). Each producer encodes its body
//   straight into the ring under the lock, so nothing is copied twice.
// - _closed (written and read under _producers) refuses producers once the engine stops or the store failed.
// - The consumer side (Ring.TryRead/Release/Unread) is the owner thread's alone and takes no lock.
// - Record layout: [1 byte MsgType length][MsgType][8 bytes token][8 bytes hand-off time, epoch ns or 0 when the send
//   histogram has no listener; both little-endian][body fields].
// - PERF: a single-producer path without the lock saves a few ns per message (HandOffBenchmarks; numbers in
//   docs/benchmarks/hostile-input.md). It is not offered: the saving is lost in a round trip, and a single-producer
//   contract broken by a second thread would corrupt the ring.

/// <summary>The multi-producer hand-off of application messages to a session's owner thread.</summary>
internal sealed class SendHandOff
{
    /// <summary>Longest MsgType a record carries.</summary>
    public const int MsgTypeMax = 16;

    /// <summary>The first claim for a record; a body that does not fit is written again into a claim of the largest size.</summary>
    public const int FirstClaimBytes = 4096;

    private readonly object _producers = new();
    private bool _closed;

    /// <param name="capacityBytes">Ring capacity, a power of two (see <see cref="SpscByteRing"/>).</param>
    public SendHandOff(int capacityBytes) => Ring = new SpscByteRing(capacityBytes);

    /// <summary>The ring; the consumer (owner thread) reads it directly.</summary>
    public SpscByteRing Ring { get; }

    /// <summary>Refuses every later <see cref="TryHandOver"/> (any thread; idempotent).</summary>
    public void Close()
    {
        lock (_producers) _closed = true;
    }

    /// <summary>Any thread: encodes one record (<paramref name="msgType"/>, <paramref name="token"/>, and the body
    /// <paramref name="body"/> writes from <paramref name="state"/>) under the producers' lock, in at most
    /// <paramref name="maxRecordBytes"/> (the largest record the consumer can frame, at most <see cref="SpscByteRing.MaxRecordLength"/>).</summary>
    /// <returns>False when closed, the ring is full, or the body does not fit in <paramref name="maxRecordBytes"/>.</returns>
    public bool TryHandOver<TState>(ReadOnlySpan<byte> msgType, long token, scoped in TState state, BodyWriter<TState> body, int maxRecordBytes, long handedAtNs = 0)
        where TState : allows ref struct
    {
        lock (_producers)
        {
            return !_closed && TryWriteUnsynchronized(msgType, token, in state, body, maxRecordBytes, handedAtNs);
        }
    }

    /// <summary>The record write itself, without the lock: the caller must be the ring's only producer at this moment
    /// (<see cref="TryHandOver"/> holds the lock; the hand-off benchmark measures it alone as the single-producer path).</summary>
    internal bool TryWriteUnsynchronized<TState>(ReadOnlySpan<byte> msgType, long token, scoped in TState state, BodyWriter<TState> body, int maxRecordBytes, long handedAtNs = 0)
        where TState : allows ref struct
    {
        // A claim of the largest possible record needs half the ring free; most messages fit in the small claim,
        // so the ring holds many more of them. A body that outgrows it is written again into the large one.
        int claim = Math.Min(maxRecordBytes, FirstClaimBytes);
        while (true)
        {
            if (!Ring.TryClaim(claim, out Span<byte> span)) return false;
            if (TryWriteRecord(span, msgType, token, handedAtNs, in state, body)) return true;
            if (claim == maxRecordBytes) return false;
            claim = maxRecordBytes;
        }
    }

    // Into a claimed record: commits it (true) or abandons it (false: the body did not fit).
    private bool TryWriteRecord<TState>(Span<byte> span, ReadOnlySpan<byte> msgType, long token, long handedAtNs, scoped in TState state, BodyWriter<TState> body)
        where TState : allows ref struct
    {
        span[0] = (byte)msgType.Length;
        msgType.CopyTo(span.Slice(1));
        int tokenAt = 1 + msgType.Length;
        BinaryPrimitives.WriteInt64LittleEndian(span.Slice(tokenAt), token);
        BinaryPrimitives.WriteInt64LittleEndian(span.Slice(tokenAt + sizeof(long)), handedAtNs);
        int bodyStart = tokenAt + 2 * sizeof(long);
        var w = new FixWriter(span.Slice(bodyStart));
        try
        {
            body(ref w, in state);
        }
        catch
        {
            Ring.Abandon();
            throw;
        }
        if (w.Failed)
        {
            Ring.Abandon();
            return false;
        }
        Ring.Commit(bodyStart + w.Written);
        return true;
    }

    /// <summary>Consumer: the MsgType, token and body fields of a record read from <see cref="Ring"/>.</summary>
    public static void Parse(ReadOnlySpan<byte> record, out ReadOnlySpan<byte> msgType, out long token, out ReadOnlySpan<byte> fields) =>
        Parse(record, out msgType, out token, out _, out fields);

    /// <summary>Consumer: the MsgType, token, hand-off time (0: not measured) and body fields of a record.</summary>
    public static void Parse(ReadOnlySpan<byte> record, out ReadOnlySpan<byte> msgType, out long token, out long handedAtNs, out ReadOnlySpan<byte> fields)
    {
        int typeLength = record[0];
        msgType = record.Slice(1, typeLength);
        token = BinaryPrimitives.ReadInt64LittleEndian(record.Slice(1 + typeLength));
        handedAtNs = BinaryPrimitives.ReadInt64LittleEndian(record.Slice(1 + typeLength + sizeof(long)));
        fields = record.Slice(1 + typeLength + 2 * sizeof(long));
    }
}
