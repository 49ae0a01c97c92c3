using System;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Threading;

namespace FixEngine.Collections;

/// <summary>Outcome of <see cref="SpscByteRing.Claim"/>.</summary>
public enum ByteRingClaimStatus
{
    /// <summary>Space was claimed; write into it and call <see cref="SpscByteRing.Commit()"/>.</summary>
    Claimed = 0,

    /// <summary>Not enough free space right now; retry after the consumer releases records.</summary>
    Full = 1,

    /// <summary>The length is negative or above <see cref="SpscByteRing.MaxRecordLength"/>; it will never fit.</summary>
    TooLarge = 2,
}

// Design:
// - Variable-length records in a power-of-two byte[] (allocated on the pinned object heap so it never
//   moves). Positions are 64-bit byte counters that only grow; offset = position & mask.
// - Record layout, every record starting on an 8-byte boundary:
//
//     offset+0   int32 length   payload bytes (not counting header or alignment)
//     offset+4   int32 kind     1 = data, 2 = wrap padding (fills the rest of the buffer)
//     offset+8   payload ...    then zero to 7 unused bytes up to the next multiple of 8
//
//   A record never straddles the end of the buffer: when it would, the producer writes a padding
//   record covering the bytes to the end and puts the record at offset 0. Padding and record are
//   published together, so the consumer never sees a padding record without the record after it.
// - Max record: a record of aligned size S may need (bytes to end) + S free bytes; for that to be
//   possible whatever the offset, S <= Capacity / 2, so MaxRecordLength = Capacity / 2 - HeaderLength.
// - _producer (ProducerSide) is written only by the producer: Position (tail), OtherCache (stale head)
//   and the claim in progress. _consumer (ConsumerSide) only by the consumer: Position (head),
//   OtherCache (stale tail) and the record being read. Each side keeps its fields on one line with
//   FalseSharingRange padding before and after, away from the read-only _buffer/_mask and each other.
// - Publication: the producer writes header + payload, then Volatile.Write(tail) (release). The consumer's
//   Volatile.Read(tail) (acquire) precedes its header/payload reads. The consumer finishes reading a
//   record in place, then Volatile.Write(head) (release) returns the bytes; the producer's
//   Volatile.Read(head) (acquire) precedes any overwrite.

/// <summary>A bounded single-producer/single-consumer ring of variable-length byte records, written and read in place.</summary>
/// <remarks>
/// One producer thread calls <see cref="Claim"/>/<see cref="TryClaim"/> then <see cref="Commit()"/>; one consumer thread
/// calls <see cref="TryRead"/> then <see cref="Release"/>, or <see cref="Read{THandler}"/>. Records arrive complete and
/// in order. No member allocates.
/// <para>Part of FixEngine's reusable low-latency toolkit (with the other types of Buffers, Collections, Timing and
/// Hosting): public and supported for trading code to use on its own threads, independently of the FIX layers.</para>
/// </remarks>
public sealed class SpscByteRing
{
    /// <summary>Bytes of header in front of every record.</summary>
    public const int HeaderLength = 8;

    /// <summary>Record alignment in bytes.</summary>
    public const int Alignment = 8;

    /// <summary>The smallest supported capacity in bytes.</summary>
    public const int MinCapacity = 64;

    /// <summary>The largest supported capacity in bytes.</summary>
    public const int MaxCapacity = 1 << 30;

    private const int KindData = 1;
    private const int KindPadding = 2;

    private readonly byte[] _buffer;
    private readonly int _mask;
    private readonly int _maxRecordLength;

    private ProducerSide _producer;
    private ConsumerSide _consumer;

    /// <summary>Creates a ring of <paramref name="capacity"/> bytes.</summary>
    /// <param name="capacity">A power of two between <see cref="MinCapacity"/> and <see cref="MaxCapacity"/>.</param>
    /// <exception cref="ArgumentOutOfRangeException">The capacity is not a power of two in range.</exception>
    public SpscByteRing(int capacity)
    {
        if (capacity < MinCapacity || capacity > MaxCapacity || !int.IsPow2(capacity))
        {
            Internal.ThrowHelper.ThrowCapacityNotPowerOfTwo(nameof(capacity), capacity, MinCapacity, MaxCapacity);
        }
        _buffer = GC.AllocateArray<byte>(capacity, pinned: true);
        _mask = capacity - 1;
        _maxRecordLength = capacity / 2 - HeaderLength;
    }

    /// <summary>Capacity in bytes.</summary>
    public int Capacity => _buffer.Length;

    /// <summary>The longest record payload that can ever be claimed: <c>Capacity / 2 - HeaderLength</c>.</summary>
    public int MaxRecordLength => _maxRecordLength;

    /// <summary>Approximate bytes in use (headers, padding and alignment included). Safe from any thread.</summary>
    public int UsedBytes
    {
        get
        {
            long head = Volatile.Read(ref _consumer.Position);
            long tail = Volatile.Read(ref _producer.Position);
            long used = tail - head;
            return used <= 0 ? 0 : (int)Math.Min(used, _buffer.Length);
        }
    }

    /// <summary>Bytes a record with a payload of <paramref name="length"/> bytes occupies (header and alignment included).</summary>
    /// <param name="length">Payload length.</param>
    /// <returns>The aligned record size.</returns>
    public static int RecordSize(int length) => (HeaderLength + length + (Alignment - 1)) & ~(Alignment - 1);

    /// <summary>Claims <paramref name="length"/> contiguous bytes for one record. Producer thread only.</summary>
    /// <param name="length">Payload length, 0 to <see cref="MaxRecordLength"/>.</param>
    /// <param name="span">Where to write the payload; valid until <see cref="Commit()"/>.</param>
    /// <returns><see langword="true"/> if claimed; <see langword="false"/> if the ring is full or the length is too large
    /// (use <see cref="Claim"/> to tell which).</returns>
    public bool TryClaim(int length, out Span<byte> span) => Claim(length, out span) == ByteRingClaimStatus.Claimed;

    /// <summary>Claims <paramref name="length"/> contiguous bytes for one record and says why when it cannot. Producer thread only.</summary>
    /// <param name="length">Payload length, 0 to <see cref="MaxRecordLength"/>.</param>
    /// <param name="span">Where to write the payload; valid until <see cref="Commit()"/>.</param>
    /// <returns>The claim status.</returns>
    /// <exception cref="InvalidOperationException">The previous claim was not committed.</exception>
    public ByteRingClaimStatus Claim(int length, out Span<byte> span)
    {
        if (_producer.Claimed)
        {
            Internal.ThrowHelper.ThrowInvalidOperation("The previous claim on this SpscByteRing was not committed.");
        }
        if ((uint)length > (uint)_maxRecordLength)
        {
            span = default;
            return ByteRingClaimStatus.TooLarge;
        }

        int size = RecordSize(length);
        long tail = _producer.Position;
        int offset = (int)(tail & _mask);
        int toEnd = _buffer.Length - offset;
        int padding = size > toEnd ? toEnd : 0;
        long end = tail + padding + size;
        if (end - _producer.OtherCache > _buffer.Length)
        {
            // Acquire: the consumer has finished with every byte before head.
            _producer.OtherCache = Volatile.Read(ref _consumer.Position);
            if (end - _producer.OtherCache > _buffer.Length)
            {
                span = default;
                return ByteRingClaimStatus.Full;
            }
        }

        ref byte start = ref MemoryMarshal.GetArrayDataReference(_buffer);
        if (padding != 0)
        {
            WriteHeader(ref Unsafe.Add(ref start, offset), toEnd - HeaderLength, KindPadding);
            offset = 0;
        }
        WriteHeader(ref Unsafe.Add(ref start, offset), length, KindData);
        _producer.ClaimTail = tail + padding;
        _producer.ClaimOffset = offset;
        _producer.ClaimLength = length;
        _producer.Claimed = true;
        span = MemoryMarshal.CreateSpan(ref Unsafe.Add(ref start, offset + HeaderLength), length);
        return ByteRingClaimStatus.Claimed;
    }

    /// <summary>
    /// Claims one record the size of <typeparamref name="T"/> and returns a reference to it, or a null reference when
    /// the ring is full. Producer thread only; write the fields in place, then call <see cref="Commit()"/>.
    /// </summary>
    /// <typeparam name="T">An unmanaged type of at most <see cref="MaxRecordLength"/> bytes whose alignment is at most 8
    /// (records start on 8-byte boundaries); the record's payload is its bytes.</typeparam>
    /// <returns>The record, valid until <see cref="Commit()"/>; <see cref="Unsafe.IsNullRef{T}(ref readonly T)"/> is true
    /// when the ring is full.</returns>
    /// <exception cref="InvalidOperationException">The previous claim was not committed.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><typeparamref name="T"/> is larger than <see cref="MaxRecordLength"/>.</exception>
    /// <remarks>
    /// Same record and protocol as <see cref="Claim"/> with a length of <c>Unsafe.SizeOf&lt;T&gt;()</c>, for fixed-size
    /// records: the size is a JIT-time constant and, when the record fits before the end of the buffer, the claim is one
    /// compare, one header store and the claim bookkeeping. Writing through the reference stores each field straight
    /// into the ring (a <typeparamref name="T"/> built on the stack and copied would be read back with wide loads
    /// that cannot forward from the narrower field stores).
    /// </remarks>
    public ref T ClaimRefOrNullRef<T>()
        where T : unmanaged
    {
        int size = RecordSize(Unsafe.SizeOf<T>());
        long tail = _producer.Position;
        int offset = (int)tail & _mask;
        // PERF: one test covers "no claim in progress, fits before the end, space known free" on the common path;
        // wrap padding, a stale head and misuse go off line. LogCallBenchmarks.FixLogTwoArgs.
        if (_producer.Claimed | size > _buffer.Length - offset | tail + size - _producer.OtherCache > _buffer.Length)
        {
            return ref ClaimRefOrNullRefSlow<T>();
        }
        ref byte at = ref Unsafe.Add(ref MemoryMarshal.GetArrayDataReference(_buffer), offset);
        WriteHeader(ref at, Unsafe.SizeOf<T>(), KindData);
        _producer.ClaimTail = tail;
        _producer.ClaimOffset = offset;
        _producer.ClaimLength = Unsafe.SizeOf<T>();
        _producer.Claimed = true;
        return ref Unsafe.As<byte, T>(ref Unsafe.Add(ref at, HeaderLength));
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private ref T ClaimRefOrNullRefSlow<T>()
        where T : unmanaged
    {
        if (Unsafe.SizeOf<T>() > _maxRecordLength)
        {
            Internal.ThrowHelper.ThrowArgumentOutOfRange(nameof(T), Unsafe.SizeOf<T>(), "The record type is larger than MaxRecordLength.");
        }
        if (Claim(Unsafe.SizeOf<T>(), out Span<byte> span) != ByteRingClaimStatus.Claimed)
        {
            return ref Unsafe.NullRef<T>();
        }
        return ref Unsafe.As<byte, T>(ref MemoryMarshal.GetReference(span));
    }

    /// <summary>Publishes the claimed record with its full claimed length. Producer thread only.</summary>
    /// <exception cref="InvalidOperationException">Nothing is claimed.</exception>
    public void Commit() => Commit(_producer.ClaimLength);

    /// <summary>Publishes the claimed record, shortened to <paramref name="length"/> bytes. Producer thread only.</summary>
    /// <param name="length">Bytes actually written, 0 to the claimed length.</param>
    /// <exception cref="InvalidOperationException">Nothing is claimed.</exception>
    /// <exception cref="ArgumentOutOfRangeException">The length exceeds the claimed length.</exception>
    public void Commit(int length)
    {
        if (!_producer.Claimed)
        {
            Internal.ThrowHelper.ThrowInvalidOperation("Commit called on an SpscByteRing with no claimed record.");
        }
        if ((uint)length > (uint)_producer.ClaimLength)
        {
            Internal.ThrowHelper.ThrowArgumentOutOfRange(nameof(length), length, "Commit length exceeds the claimed length.");
        }
        if (length != _producer.ClaimLength)
        {
            WriteHeader(ref Unsafe.Add(ref MemoryMarshal.GetArrayDataReference(_buffer), _producer.ClaimOffset), length, KindData);
        }
        _producer.Claimed = false;
        // Release: header and payload become visible before the new tail.
        Volatile.Write(ref _producer.Position, _producer.ClaimTail + RecordSize(length));
    }

    /// <summary>Gives up the current claim without publishing anything. Producer thread only.</summary>
    /// <remarks>A wrap padding record written by the claim is dropped too (it was never published).</remarks>
    public void Abandon() => _producer.Claimed = false;

    /// <summary>Reads the oldest record in place. Consumer thread only; call <see cref="Release"/> when done with it.</summary>
    /// <param name="record">The record payload, valid until <see cref="Release"/>.</param>
    /// <returns><see langword="true"/> if a record was available.</returns>
    /// <exception cref="InvalidOperationException">The previous record was not released.</exception>
    public bool TryRead(out ReadOnlySpan<byte> record)
    {
        if (_consumer.ReadPending)
        {
            Internal.ThrowHelper.ThrowInvalidOperation("The previous record read from this SpscByteRing was not released.");
        }
        long head = _consumer.Position;
        if (!TryLocate(ref head, out int offset, out int length))
        {
            record = default;
            return false;
        }
        record = MemoryMarshal.CreateReadOnlySpan(
            ref Unsafe.Add(ref MemoryMarshal.GetArrayDataReference(_buffer), offset + HeaderLength), length);
        _consumer.ReleaseTo = head + RecordSize(length);
        _consumer.ReadPending = true;
        return true;
    }

    /// <summary>Returns the space of the record obtained by <see cref="TryRead"/> to the producer. Consumer thread only.</summary>
    /// <exception cref="InvalidOperationException">No record is being read.</exception>
    public void Release()
    {
        if (!_consumer.ReadPending)
        {
            Internal.ThrowHelper.ThrowInvalidOperation("Release called on an SpscByteRing with no record being read.");
        }
        _consumer.ReadPending = false;
        // Release: in-place reads of the record complete before the producer may overwrite it.
        Volatile.Write(ref _consumer.Position, _consumer.ReleaseTo);
    }

    /// <summary>Gives back the record obtained by <see cref="TryRead"/> without consuming it: the next
    /// <see cref="TryRead"/> returns the same record again. Consumer thread only.</summary>
    /// <exception cref="InvalidOperationException">No record is being read.</exception>
    public void Unread()
    {
        if (!_consumer.ReadPending)
        {
            Internal.ThrowHelper.ThrowInvalidOperation("Unread called on an SpscByteRing with no record being read.");
        }
        _consumer.ReadPending = false;
    }

    /// <summary>Hands up to <paramref name="limit"/> records to <paramref name="handler"/> in place, in order. Consumer thread only.</summary>
    /// <typeparam name="THandler">A struct handler, passed by ref (no delegate, devirtualised).</typeparam>
    /// <param name="handler">Receives each record.</param>
    /// <param name="limit">Maximum number of records.</param>
    /// <returns>The number of records handled.</returns>
    /// <remarks>
    /// Space is released once, after the batch. If the handler throws, the records handled so far
    /// (including the one that threw) are released and the exception propagates.
    /// </remarks>
    public int Read<THandler>(ref THandler handler, int limit)
        where THandler : struct, IByteRecordHandler
    {
        if (_consumer.ReadPending)
        {
            Internal.ThrowHelper.ThrowInvalidOperation("The previous record read from this SpscByteRing was not released.");
        }
        long start = _consumer.Position;
        long head = start;
        int done = 0;
        ref byte data = ref MemoryMarshal.GetArrayDataReference(_buffer);
        try
        {
            while (done < limit && TryLocate(ref head, out int offset, out int length))
            {
                ReadOnlySpan<byte> record = MemoryMarshal.CreateReadOnlySpan(ref Unsafe.Add(ref data, offset + HeaderLength), length);
                head += RecordSize(length);
                done++;
                handler.OnRecord(record);
            }
        }
        finally
        {
            if (head != start)
            {
                Volatile.Write(ref _consumer.Position, head);
            }
        }
        return done;
    }

    /// <summary>Releases every published record without reading it. Consumer thread only.</summary>
    /// <returns>The number of bytes released (headers, padding and alignment included).</returns>
    /// <exception cref="InvalidOperationException">A record read with <see cref="TryRead"/> was not released.</exception>
    public long DiscardAll()
    {
        if (_consumer.ReadPending)
        {
            Internal.ThrowHelper.ThrowInvalidOperation("The previous record read from this SpscByteRing was not released.");
        }
        long head = _consumer.Position;
        // Acquire/release as in Read: nothing is read, so the release only hands the bytes back.
        long tail = Volatile.Read(ref _producer.Position);
        _consumer.OtherCache = tail;
        if (tail != head)
        {
            Volatile.Write(ref _consumer.Position, tail);
        }
        return tail - head;
    }

    /// <summary>Finds the data record at or after <paramref name="head"/>, skipping wrap padding.</summary>
    private bool TryLocate(ref long head, out int offset, out int length)
    {
        while (true)
        {
            if (head >= _consumer.OtherCache)
            {
                // Acquire: pairs with the producer's release of tail; header and payload are visible.
                _consumer.OtherCache = Volatile.Read(ref _producer.Position);
                if (head >= _consumer.OtherCache)
                {
                    offset = 0;
                    length = 0;
                    return false;
                }
            }
            offset = (int)(head & _mask);
            ref byte header = ref Unsafe.Add(ref MemoryMarshal.GetArrayDataReference(_buffer), offset);
            length = Unsafe.ReadUnaligned<int>(ref header);
            int kind = Unsafe.ReadUnaligned<int>(ref Unsafe.Add(ref header, sizeof(int)));
            if (kind != KindPadding)
            {
                return true;
            }
            head += _buffer.Length - offset;
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void WriteHeader(ref byte at, int length, int kind)
    {
        Unsafe.WriteUnaligned(ref at, length);
        Unsafe.WriteUnaligned(ref Unsafe.Add(ref at, sizeof(int)), kind);
    }

    [StructLayout(LayoutKind.Explicit, Size = Padding.FalseSharingRange + 40 + Padding.FalseSharingRange)]
    internal struct ProducerSide
    {
        [FieldOffset(Padding.FalseSharingRange)]
        public long Position;

        [FieldOffset(Padding.FalseSharingRange + 8)]
        public long OtherCache;

        [FieldOffset(Padding.FalseSharingRange + 16)]
        public long ClaimTail;

        [FieldOffset(Padding.FalseSharingRange + 24)]
        public int ClaimOffset;

        [FieldOffset(Padding.FalseSharingRange + 28)]
        public int ClaimLength;

        [FieldOffset(Padding.FalseSharingRange + 32)]
        public bool Claimed;
    }

    [StructLayout(LayoutKind.Explicit, Size = Padding.FalseSharingRange + 32 + Padding.FalseSharingRange)]
    internal struct ConsumerSide
    {
        [FieldOffset(Padding.FalseSharingRange)]
        public long Position;

        [FieldOffset(Padding.FalseSharingRange + 8)]
        public long OtherCache;

        [FieldOffset(Padding.FalseSharingRange + 16)]
        public long ReleaseTo;

        [FieldOffset(Padding.FalseSharingRange + 24)]
        public bool ReadPending;
    }
}
