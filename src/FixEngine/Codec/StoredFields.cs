using System;
using System.Runtime.CompilerServices;

namespace FixEngine.Codec;

// Role: the header read of stored messages, shared by the resend (FixSession.Resend) and the file store, which records
// a stored message's resend layout at append (Store/ResendLayout.cs): both read fields by the same rules.
internal static class StoredFields
{
    // One field at pos, "tag=value|", before limit: returns the offset after its SOH (tag and value start out), or -1
    // when the tag is not 1-9 digits without a leading zero followed by '=', or no SOH ends the value before limit.
    // The SOH comes from the cursor's mask (fields are read in ascending order), not from a search per field.
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public static int ReadField(ReadOnlySpan<byte> message, ref StoredSohCursor soh, int pos, int limit, out int tag, out int valueStart)
    {
        tag = 0;
        valueStart = 0;
        int i = pos;
        // Tags of 1-7 digits (all header tags): the digits and '=' from one 8-byte word.
        ulong word = AsciiParsing.ReadUInt64OrZeroPadded(message, pos);
        int digits = AsciiParsing.LeadingDigitCount(word);
        if ((uint)(digits - 1) < 7 && AsciiParsing.ByteAt(word, digits) == (byte)'=' && pos + digits < limit)
        {
            tag = (int)AsciiParsing.ParseLeadingDigits(word, digits);
            i = pos + digits;
        }
        else
        {
            while (true)
            {
                if (i >= limit) return -1;
                byte b = message[i];
                if (b == (byte)'=') break;
                uint digit = (uint)(b - '0');
                if (digit > 9 || i - pos == FixMessageIndex.MaxTagDigits) return -1;
                tag = tag * 10 + (int)digit;
                i++;
            }
        }
        if (i == pos || message[pos] == (byte)'0') return -1;
        valueStart = i + 1;
        int at = soh.Next(valueStart, limit);
        return at < 0 ? -1 : at + 1;
    }

    // The frame of a stored message: 8, 9 and 35 in that order, BodyLength ending exactly at a "10=ddd|" trailer that
    // closes the message. Returns the offset after MsgType's SOH (the trailer and MsgType's value out), or -1.
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int ReadFrame(ReadOnlySpan<byte> message, ref StoredSohCursor soh, out int trailer, out int msgTypeStart)
    {
        trailer = 0;
        msgTypeStart = 0;
        int length = message.Length;
        int next = ReadField(message, ref soh, 0, length, out int tag, out int valueStart);
        if (next < 0 || tag != FixTags.BeginString) return -1;
        next = ReadField(message, ref soh, next, length, out tag, out valueStart);
        if (next < 0 || tag != FixTags.BodyLength) return -1;
        if (!AsciiParsing.TryParseSmallUnsigned(message.Slice(valueStart, next - 1 - valueStart), out int bodyLength)) return -1;
        trailer = next + bodyLength;
        if (trailer != length - FixFramer.TrailerLength) return -1;
        if (message[trailer] != (byte)'1' || message[trailer + 1] != (byte)'0' || message[trailer + 2] != (byte)'=' || message[length - 1] != AsciiParsing.Soh) return -1;
        next = ReadField(message, ref soh, next, trailer, out tag, out msgTypeStart);
        return next < 0 || tag != FixTags.MsgType ? -1 : next;
    }
}

/// <summary>The SOH bytes of a stored message, read 64 at a time as a bit mask (<see cref="AsciiParsing.SohBlock"/>):
/// a header read pops each value's end from the mask instead of searching for it field by field.</summary>
internal ref struct StoredSohCursor
{
    private readonly ReadOnlySpan<byte> _message;
    private int _block;
    private ulong _mask;

    public StoredSohCursor(ReadOnlySpan<byte> message)
    {
        _message = message;
        _block = -1;
        _mask = 0;
    }

    /// <summary>The offset of the first SOH at or after <paramref name="from"/> and below <paramref name="limit"/>
    /// (at most the message's length), or -1. Calls go forward: <paramref name="from"/> never falls below an earlier
    /// call's.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public int Next(int from, int limit)
    {
        int block = from & ~63;
        if (block != _block)
        {
            if (block >= _message.Length) return -1;
            _block = block;
            _mask = AsciiParsing.SohBlock(_message, block);
        }
        ulong bits = _mask & (ulong.MaxValue << (from & 63));
        while (bits == 0)
        {
            block += 64;
            if (block >= limit) return -1;
            _block = block;
            bits = _mask = AsciiParsing.SohBlock(_message, block);
        }
        int at = block + System.Numerics.BitOperations.TrailingZeroCount(bits);
        return at < limit ? at : -1;
    }
}
