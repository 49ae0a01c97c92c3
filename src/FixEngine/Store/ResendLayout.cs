using System;
using System.Buffers.Binary;
using System.Runtime.CompilerServices;
using FixEngine.Codec;

namespace FixEngine.Store;

/// <summary>Where a resend finds the parts of a stored message, worked out once when the message is stored (the file
/// store keeps it in the message's journal record, <see cref="JournalRecordType.LaidOutMessage"/>), so a resend neither
/// reads the stored header nor sums the body again.</summary>
/// <remarks>
/// <para>Known only for a message whose header, after 8, 9 and 35, holds nothing but the fields a resend writes itself
/// (34, 43, 49, 52, 56, 122) and at least one SendingTime(52), whose BodyLength ends exactly at a <c>10=ddd|</c> trailer
/// closing the message, and whose first body field is well formed: the messages a session encodes. The fields are read
/// by <see cref="StoredFields.ReadField"/>, the resend's own header read, so both agree on every message the layout
/// describes. The session still checks, per message, that the first body field is not a header field of its
/// dictionary.</para>
/// <para>8 bytes, little-endian: <c>bodyStart u16 | sendingTimeStart u16 | msgTypeStart u8 | msgTypeLength u8 |
/// sendingTimeLength u8 | bodySum u8</c>. BodySum is the byte sum (mod 256) of the body, from bodyStart to the trailer,
/// taken from the stored CheckSum(10) less the header's sum (a message whose CheckSum is wrong gets a wrong BodySum and is
/// resent with a wrong CheckSum, as it was first sent): the CheckSum of a resend is the new header's sum plus it. All
/// offsets are into the stored message.</para>
/// </remarks>
internal readonly struct ResendLayout
{
    public const int Size = 8;

    public ResendLayout(int bodyStart, int sendingTimeStart, int sendingTimeLength, int msgTypeStart, int msgTypeLength, byte bodySum)
    {
        BodyStart = (ushort)bodyStart;
        SendingTimeStart = (ushort)sendingTimeStart;
        SendingTimeLength = (byte)sendingTimeLength;
        MsgTypeStart = (byte)msgTypeStart;
        MsgTypeLength = (byte)msgTypeLength;
        BodySum = bodySum;
    }

    /// <summary>The first body field (the trailer when the body is empty); 0 when no layout is known.</summary>
    public ushort BodyStart { get; }

    /// <summary>SendingTime(52)'s value, its first occurrence.</summary>
    public ushort SendingTimeStart { get; }

    public byte SendingTimeLength { get; }

    /// <summary>MsgType(35)'s value.</summary>
    public byte MsgTypeStart { get; }

    public byte MsgTypeLength { get; }

    /// <summary>Byte sum (mod 256) of the body: from <see cref="BodyStart"/> to the trailer.</summary>
    public byte BodySum { get; }

    /// <summary>True when the layout was recorded with the message.</summary>
    public bool IsKnown => BodyStart != 0;

    /// <summary>Works out the layout of <paramref name="message"/>; false (and no layout) when the message is not one
    /// the layout describes (see the remarks on the type).</summary>
    public static bool TryCompute(ReadOnlySpan<byte> message, out ResendLayout layout)
    {
        layout = default;
        var soh = new StoredSohCursor(message);
        int next = StoredFields.ReadFrame(message, ref soh, out int trailer, out int msgTypeStart);
        if (next < 0) return false;
        int msgTypeLength = next - 1 - msgTypeStart;
        int sendingTimeStart = -1;
        int sendingTimeLength = 0;
        int pos = next;
        while (pos < trailer)
        {
            next = StoredFields.ReadField(message, ref soh, pos, trailer, out int tag, out int valueStart);
            if (next < 0) return false;
            if (!IsRewrittenOnResend(tag)) break;
            if (tag == FixTags.SendingTime && sendingTimeStart < 0)
            {
                sendingTimeStart = valueStart;
                sendingTimeLength = next - 1 - valueStart;
            }
            pos = next;
        }
        if (sendingTimeStart < 0 || pos > ushort.MaxValue || msgTypeStart > byte.MaxValue || msgTypeLength > byte.MaxValue
            || sendingTimeLength > byte.MaxValue) return false;
        // The body's sum from the CheckSum the encoder wrote (the sum of everything before the trailer) less the header's,
        // so storing a message sums its ~60 header bytes, not its body.
        int d0 = message[trailer + 3] - '0', d1 = message[trailer + 4] - '0', d2 = message[trailer + 5] - '0';
        if ((uint)d0 > 9 || (uint)d1 > 9 || (uint)d2 > 9) return false;
        byte bodySum = (byte)(d0 * 100 + d1 * 10 + d2 - AsciiParsing.Sum(message.Slice(0, pos)));
        layout = new ResendLayout(pos, sendingTimeStart, sendingTimeLength, msgTypeStart, msgTypeLength, bodySum);
        return true;
    }

    /// <summary>The layout of a message its encoder has just finished: <paramref name="msgTypeStart"/>,
    /// <paramref name="sendingTimeStart"/> and <paramref name="bodyStart"/> (the first field after TargetCompID(56)) as the
    /// encoder placed them before the message was finished, which moves everything after BodyLength(9) by the
    /// difference between the BodyLength digits it reserved and those it wrote; BodySum from the message's CheckSum less the header's sum, as
    /// <see cref="TryCompute"/> has it. Not known (default) when the finished message is not laid out that way.</summary>
    public static ResendLayout FromEncoder(ReadOnlySpan<byte> message, int msgTypeStart, int msgTypeLength, int sendingTimeStart, int sendingTimeLength, int bodyStart)
    {
        int length = message.Length;
        int beginEnd = message.IndexOf(AsciiParsing.Soh);
        if (beginEnd < 0 || beginEnd + 4 >= length) return default;
        int bodyLengthEnd = message.Slice(beginEnd + 1).IndexOf(AsciiParsing.Soh);
        if (bodyLengthEnd < 0) return default;
        int shift = msgTypeStart - (beginEnd + 1 + bodyLengthEnd + 4);
        msgTypeStart -= shift;
        sendingTimeStart -= shift;
        bodyStart -= shift;
        int trailer = length - FixFramer.TrailerLength;
        if (bodyStart < 1 || trailer < bodyStart || msgTypeLength > byte.MaxValue || bodyStart > trailer || bodyStart > ushort.MaxValue || msgTypeStart > byte.MaxValue || sendingTimeLength > byte.MaxValue
            || sendingTimeStart + sendingTimeLength >= bodyStart || message[bodyStart - 1] != AsciiParsing.Soh) return default;
        int d0 = message[trailer + 3] - '0', d1 = message[trailer + 4] - '0', d2 = message[trailer + 5] - '0';
        if ((uint)d0 > 9 || (uint)d1 > 9 || (uint)d2 > 9 || message[trailer] != (byte)'1' || message[trailer + 1] != (byte)'0'
            || message[trailer + 2] != (byte)'=') return default;
        byte bodySum = (byte)(d0 * 100 + d1 * 10 + d2 - AsciiParsing.Sum(message.Slice(0, bodyStart)));
        return new ResendLayout(bodyStart, sendingTimeStart, sendingTimeLength, msgTypeStart, msgTypeLength, bodySum);
    }

    /// <summary>True when this layout, from <see cref="FromEncoder"/>, holds for <paramref name="message"/>: its fields
    /// sit where it says (35= before MsgType, 52= before SendingTime, a field boundary before the body). Cheap checks,
    /// no scan.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool FitsEncoded(ReadOnlySpan<byte> message) =>
        IsKnown && MsgTypeLength != 0 && FitsMessage(message.Length) && SendingTimeStart >= 3 && MsgTypeStart >= 4
        && message[SendingTimeStart - 3] == (byte)'5' && message[SendingTimeStart - 2] == (byte)'2' && message[SendingTimeStart - 1] == (byte)'='
        && message[SendingTimeStart - 4] == AsciiParsing.Soh && message[SendingTimeStart + SendingTimeLength] == AsciiParsing.Soh
        && message[MsgTypeStart - 4] == AsciiParsing.Soh && message[MsgTypeStart - 3] == (byte)'3' && message[MsgTypeStart - 2] == (byte)'5'
        && message[MsgTypeStart - 1] == (byte)'=' && message[MsgTypeStart + MsgTypeLength] == AsciiParsing.Soh
        && message[BodyStart - 1] == AsciiParsing.Soh;

    /// <summary>The header fields a resend writes itself (its new header and OrigSendingTime): the stored ones are dropped.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool IsRewrittenOnResend(int tag) =>
        tag is FixTags.MsgSeqNum or FixTags.PossDupFlag or FixTags.SenderCompID or FixTags.SendingTime or FixTags.TargetCompID or FixTags.OrigSendingTime;

    public void Write(Span<byte> destination)
    {
        BinaryPrimitives.WriteUInt16LittleEndian(destination, BodyStart);
        BinaryPrimitives.WriteUInt16LittleEndian(destination.Slice(2), SendingTimeStart);
        destination[4] = MsgTypeStart;
        destination[5] = MsgTypeLength;
        destination[6] = SendingTimeLength;
        destination[7] = BodySum;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static ResendLayout Read(ReadOnlySpan<byte> source) =>
        new(BinaryPrimitives.ReadUInt16LittleEndian(source), BinaryPrimitives.ReadUInt16LittleEndian(source.Slice(2)), source[6], source[4], source[5], source[7]);

    /// <summary>True when the layout fits a stored message of <paramref name="length"/> bytes (its offsets fall inside the
    /// header, before the trailer).</summary>
    public bool FitsMessage(int length)
    {
        int trailer = length - FixFramer.TrailerLength;
        return BodyStart != 0 && BodyStart <= trailer && MsgTypeStart + MsgTypeLength < BodyStart && SendingTimeStart + SendingTimeLength < BodyStart;
    }
}
