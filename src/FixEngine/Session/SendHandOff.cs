using System;
using System.Buffers.Binary;
using System.Threading;
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
// - Memory in proportion to use: a configured session that never hands anything over holds no ring. The first hand-off
//   creates one of InitialCapacityBytes (under the lock); a producer that finds the newest ring full, or too small for
//   the record, links a ring twice as large (or large enough) behind it, up to the capacity given, and writes there
//   from then on. The consumer drains a ring before it moves to the next: every write into a ring happened before the
//   next one was linked, so "empty after seeing the link" means drained, and order holds. Once the largest ring is
//   the newest, a full one answers false (back-pressure), as a single ring of that size did. At most
//   log2(capacity / InitialCapacityBytes) + 1 rings are linked; drained ones are left to the GC. Growth allocates; a
//   session whose rings have grown to what its bursts need does not.
// - _closed (written and read under _producers) refuses producers once the engine stops or the store failed.
// - The consumer side (TryRead/Release/Unread) is the owner thread's alone and takes no lock.
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

    /// <summary>The first claim for a record; a body that does not fit is written again into a claim four times larger
    /// (up to the largest record).</summary>
    public const int FirstClaimBytes = 4096;

    /// <summary>The capacity of the ring the first hand-off creates (a session that hands nothing over has none).</summary>
    public const int InitialCapacityBytes = 16 * 1024;

    private readonly object _producers = new();
    private readonly int _maxCapacity;
    private readonly int _initialCapacity;
    private bool _closed;

    // The consumer reads _head (only it moves _head, after the first hand-off created it); producers write into _tail.
    private Segment? _head;
    private Segment? _tail;

    private sealed class Segment(int capacity)
    {
        public readonly SpscByteRing Ring = new(capacity);
        public Segment? Next;
    }

    /// <param name="capacityBytes">The largest ring capacity, a power of two (see <see cref="SpscByteRing"/>).</param>
    /// <param name="initialCapacityBytes">The first ring's capacity, a power of two at most <paramref name="capacityBytes"/>.</param>
    public SendHandOff(int capacityBytes, int initialCapacityBytes = InitialCapacityBytes)
    {
        if (!int.IsPow2(capacityBytes) || capacityBytes < SpscByteRing.MinCapacity || capacityBytes > SpscByteRing.MaxCapacity)
        {
            throw new ArgumentOutOfRangeException(nameof(capacityBytes), capacityBytes, "a power of two in SpscByteRing's range");
        }
        _maxCapacity = capacityBytes;
        _initialCapacity = Math.Clamp(initialCapacityBytes, SpscByteRing.MinCapacity, capacityBytes);
        if (!int.IsPow2(_initialCapacity)) throw new ArgumentOutOfRangeException(nameof(initialCapacityBytes), initialCapacityBytes, "a power of two");
    }

    /// <summary>The longest record the hand-off can ever take (that of the largest ring).</summary>
    public int MaxRecordLength => _maxCapacity / 2 - SpscByteRing.HeaderLength;

    /// <summary>Bytes of ring held now (0 until the first hand-off; any thread, a recent value).</summary>
    public int RetainedBytes
    {
        get
        {
            int bytes = 0;
            for (Segment? s = Volatile.Read(ref _head); s is not null; s = Volatile.Read(ref s.Next)) bytes += s.Ring.Capacity;
            return bytes;
        }
    }

    /// <summary>Approximate bytes waiting (any thread): 0 when nothing waits.</summary>
    public int UsedBytes
    {
        get
        {
            Segment? s = Volatile.Read(ref _head);
            if (s is null) return 0;
            int bytes = s.Ring.UsedBytes;
            // Usually one ring; after growth the few linked behind it (a stale head only adds drained ones).
            for (s = Volatile.Read(ref s.Next); s is not null; s = Volatile.Read(ref s.Next)) bytes += s.Ring.UsedBytes;
            return bytes;
        }
    }

    /// <summary>Consumer: the next record, in hand-off order; <see cref="Release"/> or <see cref="Unread"/> it before the next read.</summary>
    public bool TryRead(out ReadOnlySpan<byte> record)
    {
        Segment? head = Volatile.Read(ref _head);
        while (head is not null)
        {
            if (head.Ring.TryRead(out record)) return true;
            Segment? next = Volatile.Read(ref head.Next);
            if (next is null) return false;
            // The producers moved on after their last write into this ring: what is left in it now is all of it.
            if (head.Ring.TryRead(out record)) return true;
            Volatile.Write(ref _head, next);
            head = next;
        }
        record = default;
        return false;
    }

    /// <summary>Consumer: the record read is done with.</summary>
    public void Release() => _head!.Ring.Release();

    /// <summary>Consumer: the record read stays first, to be read again.</summary>
    public void Unread() => _head!.Ring.Unread();

    /// <summary>Refuses every later <see cref="TryHandOver"/> (any thread; idempotent).</summary>
    public void Close()
    {
        lock (_producers) _closed = true;
    }

    /// <summary>Any thread: encodes one record (<paramref name="msgType"/>, <paramref name="token"/>, and the body
    /// <paramref name="body"/> writes from <paramref name="state"/>) under the producers' lock, in at most
    /// <paramref name="maxRecordBytes"/> (the largest record the consumer can frame; at most <see cref="MaxRecordLength"/> is used).</summary>
    /// <returns>False when closed, the ring is full (and cannot grow yet), or the body does not fit in <paramref name="maxRecordBytes"/>.</returns>
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
        // so the ring holds many more of them. A body that outgrows it is written again into a larger one.
        maxRecordBytes = Math.Min(maxRecordBytes, MaxRecordLength);
        Segment tail = _tail ?? CreateFirstRing();
        int claim = Math.Min(maxRecordBytes, FirstClaimBytes);
        while (true)
        {
            if (claim > tail.Ring.MaxRecordLength || !tail.Ring.TryClaim(claim, out Span<byte> span))
            {
                Segment? grown = TryGrow(tail, claim);
                if (grown is null) return false;
                tail = grown;
                continue;
            }
            if (TryWriteRecord(tail.Ring, span, msgType, token, handedAtNs, in state, body)) return true;
            if (claim == maxRecordBytes) return false;
            // Four times larger each time (the body is written again), so a large record does not make a small
            // session's ring jump to the largest size.
            claim = (int)Math.Min((long)claim * 4, maxRecordBytes);
        }
    }

    private Segment CreateFirstRing()
    {
        var first = new Segment(_initialCapacity);
        _tail = first;
        Volatile.Write(ref _head, first);
        return first;
    }

    // The only producer (under the lock): links a ring twice as large (or large enough for the claim) behind the newest
    // when that one is full or too small and the largest size is not reached; else null (back-pressure).
    private Segment? TryGrow(Segment tail, int claim)
    {
        int capacity = tail.Ring.Capacity * 2;
        while (capacity < _maxCapacity && capacity / 2 - SpscByteRing.HeaderLength < claim) capacity *= 2;
        if (capacity > _maxCapacity || capacity / 2 - SpscByteRing.HeaderLength < claim) return null;
        var next = new Segment(capacity);
        _tail = next;
        Volatile.Write(ref tail.Next, next);
        return next;
    }

    // Into a claimed record: commits it (true) or abandons it (false: the body did not fit).
    private static bool TryWriteRecord<TState>(SpscByteRing ring, Span<byte> span, ReadOnlySpan<byte> msgType, long token, long handedAtNs, scoped in TState state, BodyWriter<TState> body)
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
            ring.Abandon();
            throw;
        }
        if (w.Failed)
        {
            ring.Abandon();
            return false;
        }
        ring.Commit(bodyStart + w.Written);
        return true;
    }

    /// <summary>Consumer: the MsgType, token and body fields of a record read by <see cref="TryRead"/>.</summary>
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
