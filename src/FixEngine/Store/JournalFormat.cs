using System;
using System.Buffers.Binary;
using System.Runtime.CompilerServices;

namespace FixEngine.Store;

/// <summary>Record types of the <see cref="FileMessageStore"/> journal (format 2; <see cref="LaidOutMessage"/> since 2026-12).</summary>
internal enum JournalRecordType : byte
{
    /// <summary>An outbound message stored under SeqNum; the state is the state after storing it.</summary>
    Message = 1,

    /// <summary>A change of sequence numbers or of the processed-inbound mark; no payload.</summary>
    State = 2,

    /// <summary>A new session incarnation: messages dropped, state as given (1, 1, 0, creation time); no payload.</summary>
    Reset = 3,

    /// <summary>A damaged region neutralised by recovery: its payload is the old bytes, unchecked; its state is ignored.</summary>
    Hole = 4,

    /// <summary>As <see cref="Message"/>, its payload the message's <see cref="ResendLayout"/> (8 bytes) followed by the
    /// message: written for every message whose layout is known; the payload CRC covers both.</summary>
    LaidOutMessage = 5,
}

/// <summary>The sequence state every journal record carries, so the last readable record alone restores it.</summary>
internal struct JournalState
{
    public int NextSender;
    public int NextTarget;
    public int ProcessedInbound;
    public long CreationTimeNs;

    public static JournalState Fresh(long creationTimeNs) => new() { NextSender = 1, NextTarget = 1, ProcessedInbound = 0, CreationTimeNs = creationTimeNs };
}

/// <summary>A decoded record head or trailer (the two copies carry the same fields).</summary>
internal struct JournalSlot
{
    public JournalRecordType Type;
    public int Length;
    public int SeqNum;
    public JournalState State;
    public uint PayloadCrc;
}

/// <summary>Layout of one journal record, format 2 (all integers little-endian).</summary>
/// <remarks>
/// <code>
///  record:  head (40) | payload (length bytes) | zero padding to a multiple of 8 | trailer (40)
///
///  head / trailer ("slot"):
///   0     3      4        8        12           16           20          24              32           36      40
///   +-----+------+--------+--------+------------+------------+-----------+---------------+------------+-------+
///   |magic| type | length | seqNum | nextSender | nextTarget | processed | creationTimeNs| payloadCrc | crc   |
///   +-----+------+--------+--------+------------+------------+-----------+---------------+------------+-------+
///    F1 58 4A (head, "\xF1XJ") or F1 58 54 (trailer, "\xF1XT")
/// </code>
/// Every record carries the whole sequence state (the state after the record) twice, in the head and in the trailer,
/// each copy with its own CRC-32C over bytes [3, 36); the payload has its own CRC-32C (payloadCrc). So:
/// a torn write that keeps the head keeps the state; a damaged head is restored from the trailer (and the payload
/// checked against the trailer's payloadCrc); a damaged payload loses only that message's body, never a sequence
/// number. The magics make a record findable when recovery scans forward past damage: it tries every byte offset
/// and accepts a slot only if magic, type, length and CRC all agree.
/// Hole records span exactly HeadSize + length + TrailerSize bytes (no padding) so they can cover any damaged region.
/// A message record is <see cref="JournalRecordType.Message"/> (payload: the message) or, since 2026-12, for a message
/// whose <see cref="ResendLayout"/> is known, <see cref="JournalRecordType.LaidOutMessage"/> (payload: the 8-byte layout,
/// then the message); both are read, and a journal may mix them.
/// Format 1 journals (16-byte header: length, type, 3 zero bytes, seqNum, CRC over header and payload) are still
/// read; new records are always format 2.
/// </remarks>
internal static class JournalFormat
{
    public const int HeadSize = 40;
    public const int TrailerSize = 40;
    public const int Overhead = HeadSize + TrailerSize;
    public const byte Magic0 = 0xF1;
    public const byte Magic1 = (byte)'X';
    public const byte HeadMagic2 = (byte)'J';
    public const byte TrailerMagic2 = (byte)'T';
    private const int CrcStart = 3;
    private const int CrcOffset = 36;

    /// <summary>True for the two record types that store a message (<see cref="JournalRecordType.Message"/>,
    /// <see cref="JournalRecordType.LaidOutMessage"/>).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool IsMessage(JournalRecordType type) => type is JournalRecordType.Message or JournalRecordType.LaidOutMessage;

    /// <summary>Bytes of a message record's payload before the message itself.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int MessageOffset(JournalRecordType type) => type == JournalRecordType.LaidOutMessage ? ResendLayout.Size : 0;

    public static int RecordSize(JournalRecordType type, int payloadLength) =>
        Overhead + (type == JournalRecordType.Hole ? payloadLength : (payloadLength + 7) & ~7);

    /// <summary>Writes a complete record (head, payload, zero padding, trailer) into <paramref name="destination"/>.</summary>
    /// <returns>The record size in bytes.</returns>
    public static int Write(Span<byte> destination, JournalRecordType type, int seqNum, ReadOnlySpan<byte> payload, in JournalState state) =>
        Write(destination, type, seqNum, default, payload, state);

    /// <summary>Writes a complete record whose payload is <paramref name="prefix"/> followed by <paramref name="payload"/>
    /// (the payload CRC covers both).</summary>
    /// <returns>The record size in bytes.</returns>
    public static int Write(Span<byte> destination, JournalRecordType type, int seqNum, ReadOnlySpan<byte> prefix, ReadOnlySpan<byte> payload, in JournalState state)
    {
        int payloadLength = prefix.Length + payload.Length;
        int padded = (payloadLength + 7) & ~7;
        int size = Overhead + padded;
        Span<byte> record = destination.Slice(0, size);
        prefix.CopyTo(record.Slice(HeadSize));
        payload.CopyTo(record.Slice(HeadSize + prefix.Length));
        record.Slice(HeadSize + payloadLength, padded - payloadLength).Clear();
        uint payloadCrc = payloadLength == 0 ? 0 : Crc32C.Compute(record.Slice(HeadSize, payloadLength));
        WriteSlot(record, HeadMagic2, type, payloadLength, seqNum, state, payloadCrc);
        record.Slice(0, HeadSize).CopyTo(record.Slice(HeadSize + padded));
        record[HeadSize + padded + 2] = TrailerMagic2;
        return size;
    }

    /// <summary>Writes one slot (head when <paramref name="magic2"/> is <see cref="HeadMagic2"/>, else trailer).</summary>
    public static void WriteSlot(Span<byte> slot, byte magic2, JournalRecordType type, int length, int seqNum, in JournalState state, uint payloadCrc)
    {
        slot[0] = Magic0;
        slot[1] = Magic1;
        slot[2] = magic2;
        slot[3] = (byte)type;
        BinaryPrimitives.WriteInt32LittleEndian(slot.Slice(4), length);
        BinaryPrimitives.WriteInt32LittleEndian(slot.Slice(8), seqNum);
        BinaryPrimitives.WriteInt32LittleEndian(slot.Slice(12), state.NextSender);
        BinaryPrimitives.WriteInt32LittleEndian(slot.Slice(16), state.NextTarget);
        BinaryPrimitives.WriteInt32LittleEndian(slot.Slice(20), state.ProcessedInbound);
        BinaryPrimitives.WriteInt64LittleEndian(slot.Slice(24), state.CreationTimeNs);
        BinaryPrimitives.WriteUInt32LittleEndian(slot.Slice(32), payloadCrc);
        BinaryPrimitives.WriteUInt32LittleEndian(slot.Slice(CrcOffset), Crc32C.Compute(slot.Slice(CrcStart, CrcOffset - CrcStart)));
    }

    /// <summary>True when <paramref name="bytes"/> starts with the magic of a head (or a trailer).</summary>
    public static bool HasMagic(ReadOnlySpan<byte> bytes, byte magic2) => bytes[0] == Magic0 && bytes[1] == Magic1 && bytes[2] == magic2;

    /// <summary>Decodes and checks one slot: magic, CRC, a known type and a length and state that make sense for it.</summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public static bool TryReadSlot(ReadOnlySpan<byte> slot, byte magic2, int maxPayloadLength, out JournalSlot result)
    {
        result = default;
        if (!HasMagic(slot, magic2)) return false;
        if (Crc32C.Compute(slot.Slice(CrcStart, CrcOffset - CrcStart)) != BinaryPrimitives.ReadUInt32LittleEndian(slot.Slice(CrcOffset))) return false;
        result.Type = (JournalRecordType)slot[3];
        result.Length = BinaryPrimitives.ReadInt32LittleEndian(slot.Slice(4));
        result.SeqNum = BinaryPrimitives.ReadInt32LittleEndian(slot.Slice(8));
        result.State.NextSender = BinaryPrimitives.ReadInt32LittleEndian(slot.Slice(12));
        result.State.NextTarget = BinaryPrimitives.ReadInt32LittleEndian(slot.Slice(16));
        result.State.ProcessedInbound = BinaryPrimitives.ReadInt32LittleEndian(slot.Slice(20));
        result.State.CreationTimeNs = BinaryPrimitives.ReadInt64LittleEndian(slot.Slice(24));
        result.PayloadCrc = BinaryPrimitives.ReadUInt32LittleEndian(slot.Slice(32));
        bool stateOk = result.State.NextSender >= 1 && result.State.NextTarget >= 1 && result.State.ProcessedInbound >= 0;
        return result.Type switch
        {
            JournalRecordType.Message => stateOk && result.SeqNum >= 1 && (uint)result.Length <= (uint)maxPayloadLength,
            JournalRecordType.LaidOutMessage => stateOk && result.SeqNum >= 1 && result.Length >= ResendLayout.Size
                && (uint)(result.Length - ResendLayout.Size) <= (uint)maxPayloadLength,
            JournalRecordType.State or JournalRecordType.Reset => stateOk && result.Length == 0,
            JournalRecordType.Hole => result.Length >= 0 && result.Length <= int.MaxValue - Overhead,
            _ => false,
        };
    }

    /// <summary>True when <paramref name="payload"/> matches the CRC a slot recorded for it.</summary>
    public static bool PayloadMatches(ReadOnlySpan<byte> payload, uint payloadCrc) => (payload.IsEmpty ? 0 : Crc32C.Compute(payload)) == payloadCrc;
}

/// <summary>Format 1 records (written before format 2): read on replay, never written.</summary>
/// <remarks>
/// <code>
///  0        4      5          8        12       16
///  | length | type | 3 x 0x00 | seqNum | crc32c | payload | padding to 8 |
/// </code>
/// Types: 1 message, 2 message and sender = seqNum + 1, 3 sender = seqNum, 4 target = seqNum, 5 reset (payload:
/// 8-byte creation time). The CRC-32C covers bytes [0, 12), then payload and padding.
/// </remarks>
internal static class JournalFormatV1
{
    public const int HeaderSize = 16;

    /// <summary>Decodes a format 1 header; returns the record size, or 0 when the bytes are not a plausible header.</summary>
    public static int TryReadHeader(ReadOnlySpan<byte> header, int maxPayloadLength, out byte type, out int seqNum, out int length)
    {
        type = header[4];
        length = BinaryPrimitives.ReadInt32LittleEndian(header);
        seqNum = BinaryPrimitives.ReadInt32LittleEndian(header.Slice(8));
        if ((header[5] | header[6] | header[7]) != 0) return 0;
        bool ok = type switch
        {
            1 => length >= 0 && length <= maxPayloadLength && seqNum >= 1,
            2 => length >= 0 && length <= maxPayloadLength && seqNum >= 1 && seqNum < int.MaxValue,
            3 or 4 => length == 0 && seqNum >= 1,
            5 => length == 8 && seqNum >= 1,
            _ => false,
        };
        return ok ? HeaderSize + ((length + 7) & ~7) : 0;
    }

    /// <summary>True when the CRC of a complete format 1 record matches.</summary>
    public static bool CrcMatches(ReadOnlySpan<byte> record) =>
        ~Crc32C.Update(Crc32C.Update(uint.MaxValue, record.Slice(0, 12)), record.Slice(HeaderSize)) == BinaryPrimitives.ReadUInt32LittleEndian(record.Slice(12));
}
