using System;
using System.Buffers.Binary;

namespace FixEngine.Store;

/// <summary>Record types of the <see cref="FileMessageStore"/> journal.</summary>
internal enum JournalRecordType : byte
{
    /// <summary>An outbound message stored under SeqNum; sequence numbers unchanged.</summary>
    Message = 1,

    /// <summary>An outbound message stored under SeqNum, and NextSenderMsgSeqNum = SeqNum + 1.</summary>
    MessageAndIncrement = 2,

    /// <summary>NextSenderMsgSeqNum = SeqNum; no payload.</summary>
    SenderSeqNum = 3,

    /// <summary>NextTargetMsgSeqNum = SeqNum; no payload.</summary>
    TargetSeqNum = 4,

    /// <summary>Both sequence numbers = 1, messages dropped; payload = 8-byte creation time (ns since the Unix epoch).</summary>
    Reset = 5,
}

/// <summary>Layout of one journal record (all integers little-endian).</summary>
/// <remarks>
/// <code>
///  0        4      5          8        12       16
///  +--------+------+----------+--------+--------+------------------------+---------+
///  | length | type | reserved | seqNum | crc32c | payload (length bytes) | padding |
///  +--------+------+----------+--------+--------+------------------------+---------+
///   int32    byte   3 x 0x00   int32    uint32                            0x00 up to a multiple of 8
/// </code>
/// The CRC-32C covers bytes [0, 12) followed by the payload and padding, so a torn write anywhere in the record, a
/// stale tail or a flipped bit is detected. Records never straddle a reset: reset truncates the file first.
/// </remarks>
internal static class JournalFormat
{
    public const int HeaderSize = 16;
    public const int ResetPayloadSize = 8;

    public static int RecordSize(int payloadLength) => HeaderSize + ((payloadLength + 7) & ~7);

    /// <summary>Writes a complete record (header, payload, zero padding, CRC) into <paramref name="destination"/>.</summary>
    public static int Write(Span<byte> destination, JournalRecordType type, int seqNum, ReadOnlySpan<byte> payload)
    {
        int size = RecordSize(payload.Length);
        Span<byte> record = destination.Slice(0, size);
        BinaryPrimitives.WriteInt32LittleEndian(record, payload.Length);
        record[4] = (byte)type;
        record[5] = 0;
        record[6] = 0;
        record[7] = 0;
        BinaryPrimitives.WriteInt32LittleEndian(record.Slice(8), seqNum);
        payload.CopyTo(record.Slice(HeaderSize));
        record.Slice(HeaderSize + payload.Length).Clear();
        BinaryPrimitives.WriteUInt32LittleEndian(record.Slice(12), ComputeCrc(record));
        return size;
    }

    /// <summary>CRC of a whole record as laid out above (the CRC field itself is skipped).</summary>
    public static uint ComputeCrc(ReadOnlySpan<byte> record)
    {
        uint crc = Crc32C.Update(uint.MaxValue, record.Slice(0, 12));
        return ~Crc32C.Update(crc, record.Slice(HeaderSize));
    }
}
