using System;
using System.Numerics;
using System.Runtime.Intrinsics;

namespace FixEngine.Codec;

/// <summary>Outcome of <see cref="FixFramer.Frame"/>.</summary>
public enum FrameStatus : byte
{
    /// <summary>A whole message with a valid CheckSum starts at offset 0; <see cref="FrameResult.Length"/> is its size.</summary>
    Complete,

    /// <summary>The bytes so far are a valid prefix of a message: read more and call again (Length is 0).</summary>
    NeedMoreData,

    /// <summary>The buffer does not start with <c>8=</c>; skip <see cref="FrameResult.Length"/> bytes.</summary>
    Garbage,

    /// <summary><c>8=</c> is not followed by a value that starts with <c>FIX</c> and ends with an SOH within the allowed length.</summary>
    BadBeginString,

    /// <summary>The second field is not <c>9=</c> followed by 1..9 digits and SOH.</summary>
    BadBodyLength,

    /// <summary>BodyLength exceeds the caller's maximum; rejected before the body is buffered.</summary>
    BodyLengthTooLarge,

    /// <summary>The declared BodyLength does not end at <c>10=</c>; the message is skipped through the next CheckSum field.</summary>
    BodyLengthMismatch,

    /// <summary>The CheckSum field at the declared end is not exactly three digits followed by SOH.</summary>
    BadCheckSum,

    /// <summary>The declared CheckSum differs from the computed one; the whole message is skipped.</summary>
    CheckSumMismatch,
}

/// <summary>Result of framing one message at the start of a buffer.</summary>
/// <remarks>
/// A plain value: no allocation, safe to copy between threads. For errors <see cref="Length"/> is always
/// greater than zero so a caller that discards <see cref="Length"/> bytes always makes progress.
/// </remarks>
public readonly struct FrameResult
{
    internal FrameResult(FrameStatus status, int length, int errorOffset, int bodyLength, int bodyOffset,
        int checkSumOffset, int declaredCheckSum, int computedCheckSum)
    {
        Status = status;
        Length = length;
        ErrorOffset = errorOffset;
        BodyLength = bodyLength;
        BodyOffset = bodyOffset;
        CheckSumOffset = checkSumOffset;
        DeclaredCheckSum = declaredCheckSum;
        ComputedCheckSum = computedCheckSum;
    }

    /// <summary>What was found.</summary>
    public FrameStatus Status { get; }

    /// <summary>Bytes of the complete frame, or bytes to discard for an error; 0 for <see cref="FrameStatus.NeedMoreData"/>.</summary>
    public int Length { get; }

    /// <summary>Offset in the buffer of the defect (the first byte that made the frame invalid); -1 when there is none.</summary>
    public int ErrorOffset { get; }

    /// <summary>Declared BodyLength, or -1 when it was not parsed.</summary>
    public int BodyLength { get; }

    /// <summary>Offset of the first body byte (after <c>9=nnn SOH</c>), or -1 when it was not reached.</summary>
    public int BodyOffset { get; }

    /// <summary>Offset of <c>10=</c> at the declared body end, or -1 when it was not found there.</summary>
    public int CheckSumOffset { get; }

    /// <summary>CheckSum value as sent (0..999), or -1 when it was not parsed.</summary>
    public int DeclaredCheckSum { get; }

    /// <summary>CheckSum computed over the bytes before <c>10=</c>, or -1 when it was not computed.</summary>
    public int ComputedCheckSum { get; }

    /// <summary>True when <see cref="Status"/> is <see cref="FrameStatus.Complete"/>.</summary>
    public bool IsComplete => Status == FrameStatus.Complete;

    /// <summary>True for every status that asks the caller to discard <see cref="Length"/> bytes.</summary>
    public bool IsError => Status >= FrameStatus.Garbage;

    /// <summary>Human-readable description of the result, for logs on the error path.</summary>
    /// <returns>A new string (allocates).</returns>
    public string Describe() => Status switch
    {
        FrameStatus.Complete => $"complete message of {Length} bytes (BodyLength {BodyLength}, CheckSum {DeclaredCheckSum:000})",
        FrameStatus.NeedMoreData => "incomplete message: need more data",
        FrameStatus.Garbage => $"garbage: buffer does not start with '8=', skipping {Length} bytes",
        FrameStatus.BadBeginString => $"bad BeginString (8) at offset {ErrorOffset}, skipping {Length} bytes",
        FrameStatus.BadBodyLength => $"bad BodyLength (9) at offset {ErrorOffset}: second field must be 9=<digits>, skipping {Length} bytes",
        FrameStatus.BodyLengthTooLarge => $"BodyLength {BodyLength} at offset {ErrorOffset} exceeds the maximum, skipping {Length} bytes",
        FrameStatus.BodyLengthMismatch => $"BodyLength {BodyLength} at offset {ErrorOffset} does not end at the CheckSum (10) field, skipping {Length} bytes",
        FrameStatus.BadCheckSum => $"bad CheckSum (10) format at offset {ErrorOffset}: expected three digits, skipping {Length} bytes",
        FrameStatus.CheckSumMismatch => $"CheckSum (10) mismatch at offset {ErrorOffset}: declared {DeclaredCheckSum}, computed {ComputedCheckSum}, skipping {Length} bytes",
        _ => Status.ToString(),
    };

    /// <inheritdoc/>
    public override string ToString() => Describe();
}

/// <summary>Finds message boundaries in a byte stream and verifies BodyLength and CheckSum.</summary>
/// <remarks>
/// Stateless and thread-safe; never allocates and never throws on any input. Semantics follow QuickFIX so the
/// session acceptance scripts behave the same way:
/// <code>
///   8=FIX.4.4|9=65|35=A|34=1|49=S|52=20260101-00:00:00.000|56=T|98=0|108=30|10=062|
///   ^          ^   ^                                                   ^      ^
///   0          |   BodyOffset                        BodyOffset+BodyLength    CheckSumOffset + 7 = Length
///              ErrorOffset of BodyLength errors      = CheckSumOffset
/// </code>
/// When the bytes at the declared body end are not <c>10=</c>, BodyLength is wrong: the frame is skipped through
/// the first <c>SOH 10=ddd SOH</c> at or after the declared end minus one (a short BodyLength discards just that
/// message; a long one that runs into the next message discards both).
/// </remarks>
public static class FixFramer
{
    /// <summary>Longest BeginString value accepted (FIXT.1.1 is 8 bytes).</summary>
    public const int MaxBeginStringLength = 16;

    /// <summary>Most BodyLength digits accepted (values up to 999,999,999).</summary>
    public const int MaxBodyLengthDigits = 9;

    /// <summary>Size of <c>10=ddd SOH</c>.</summary>
    public const int TrailerLength = 7;

    private const byte Soh = AsciiParsing.Soh;

    /// <summary>SOH - '0' as a byte (0x01 - 0x30 wraps to 0xD1).</summary>
    private const uint SohMinusZero = 0xD1;

    private static ReadOnlySpan<byte> FrameStart => "8=FIX"u8;

    /// <summary><c>8=FIX</c> as the low five bytes of a little-endian word.</summary>
    private const ulong FrameStartWord = '8' | ('=' << 8) | ('F' << 16) | ((ulong)'I' << 24) | ((ulong)'X' << 32);

    private static ReadOnlySpan<byte> SohCheckSumTag => "\u000110="u8;

    /// <summary>Frames the message at the start of <paramref name="buffer"/>.</summary>
    /// <param name="buffer">Received bytes; the candidate message must start at offset 0.</param>
    /// <param name="maxBodyLength">Largest BodyLength accepted; larger ones fail without waiting for the body.</param>
    /// <returns>The status with the frame length or the number of bytes to skip.</returns>
    public static FrameResult Frame(ReadOnlySpan<byte> buffer, int maxBodyLength)
    {
        int bodyEnd = TryFrameWellFormed(buffer, maxBodyLength, out int bodyLength, out int bodyOffset, out int declared);
        if (bodyEnd < 0) return FrameGeneral(buffer, maxBodyLength);
        int computed = AsciiParsing.Sum(buffer.Slice(0, bodyEnd));
        int frameLength = bodyEnd + TrailerLength;
        return declared == computed
            ? new FrameResult(FrameStatus.Complete, frameLength, -1, bodyLength, bodyOffset, bodyEnd, declared, computed)
            : new FrameResult(FrameStatus.CheckSumMismatch, frameLength, bodyEnd + 3, bodyLength, bodyOffset, bodyEnd, declared, computed);
    }

    /// <summary>
    /// Fast path for the common case: a whole, well-formed frame is buffered. Returns the offset of <c>10=</c>
    /// (the declared body end), or -1 whenever anything is unusual, so that <see cref="FrameGeneral"/> decides
    /// (and reports) exactly as before.
    /// </summary>
    /// <remarks>
    /// <code>
    ///   8=FIX.4.4|9=157|35=D|...|10=062|
    ///   ^ ^        ^ ^   ^         ^  ^
    ///   | |        | |   bodyOffset  bodyEnd (SOH 1 0 = checked as one 32-bit word at bodyEnd - 1)
    ///   | |        | BodyLength digits: one 64-bit SWAR read, first non-digit must be SOH
    ///   | |        p: '9=' checked as one 16-bit word
    ///   | BeginString: first SOH of the 16 bytes at offset 2 (one vector compare)
    ///   '8=' checked as one 16-bit word
    /// </code>
    /// PERF: replaces the IndexOf call and per-digit loops of the general path (FixReadBenchmarks.Frame, with the
    /// masked-tail checksum: docs/benchmarks/toolkit-codec-notes.md).
    /// </remarks>
    private static int TryFrameWellFormed(ReadOnlySpan<byte> buffer, int maxBodyLength, out int bodyLength, out int bodyOffset, out int declared)
    {
        bodyLength = 0;
        bodyOffset = 0;
        declared = 0;
        // Room for 8= plus a 16-byte BeginString window plus 9= plus an 8-byte BodyLength window.
        const int MinLength = 2 + 16 + 2 + 8;
        if (!Vector128.IsHardwareAccelerated || buffer.Length < MinLength) return -1;
        // 8=FIX: the low five bytes of one 64-bit read (the buffer has at least MinLength bytes).
        if ((AsciiParsing.ReadUInt64(buffer, 0) & 0xFF_FFFF_FFFFUL) != FrameStartWord) return -1;
        uint sohs = AsciiParsing.SohMask16(buffer, 2);
        if ((sohs & 1) != 0 || sohs == 0) return -1; // empty BeginString, or no SOH in the window
        int p = 2 + BitOperations.TrailingZeroCount(sohs) + 1;
        if (AsciiParsing.ReadUInt16(buffer, p) != ('9' | ('=' << 8))) return -1;
        int digitsStart = p + 2;
        ulong word = AsciiParsing.ReadUInt64(buffer, digitsStart);
        uint lowDigits = (uint)word - 0x3030_3030u;
        int digitBits = AsciiParsing.LeadingDigitBits4(lowDigits);
        int digits;
        int declaredBodyLength;
        if (digitBits != 0 && (byte)(word >> digitBits) == Soh)
        {
            // PERF: 1..4 digits (BodyLength below 10,000) in 32-bit SWAR, no 64-bit constants (FixReadBenchmarks.Frame,
            // with the SWAR CheckSum below: docs/benchmarks/toolkit-codec-notes.md).
            digits = digitBits >> 3;
            declaredBodyLength = (int)AsciiParsing.ParseLeadingDigits4(lowDigits, digitBits);
        }
        else
        {
            digits = AsciiParsing.LeadingDigitCount(word);
            if (digits == 0 || digits == 8 || AsciiParsing.ByteAt(word, digits) != Soh) return -1;
            declaredBodyLength = (int)AsciiParsing.ParseLeadingDigits(word, digits);
        }
        if (declaredBodyLength > maxBodyLength) return -1;
        int bodyStart = digitsStart + digits + 1;
        int bodyEnd = bodyStart + declaredBodyLength;
        if (bodyEnd > buffer.Length - TrailerLength) return -1;
        // SOH '1' '0' '=' just before and at the declared body end.
        if (AsciiParsing.ReadUInt32(buffer, bodyEnd - 1) != (Soh | ('1' << 8) | ('0' << 16) | ('=' << 24))) return -1;
        // Three digits then SOH: d0 d1 d2 SOH read as one word; SOH minus '0' wraps to 0xD1. The lowest byte that is
        // not a digit gets a high-nibble bit (see AsciiParsing.LeadingDigitCount); no borrow reaches the SOH byte
        // when the three below it are digits.
        uint value = AsciiParsing.ReadUInt32(buffer, bodyEnd + 3) - 0x3030_3030u;
        if (((value | (value + 0x0606_0606u)) & 0x00F0_F0F0u) != 0 || (value >> 24) != SohMinusZero) return -1;
        bodyLength = declaredBodyLength;
        bodyOffset = bodyStart;
        declared = (int)AsciiParsing.ParseLeadingDigits4(value, 24);
        return bodyEnd;
    }

    /// <summary>Every framing rule, byte by byte; internal so that tests can compare the fast path with it.</summary>
    internal static FrameResult FrameGeneral(ReadOnlySpan<byte> buffer, int maxBodyLength)
    {
        int length = buffer.Length;
        if (length < 2)
        {
            if (length == 0 || buffer[0] == (byte)'8') return NeedMore();
            return Error(FrameStatus.Garbage, SkipToNextFrame(buffer, 1), 0);
        }
        if (buffer[0] != (byte)'8' || buffer[1] != (byte)'=')
        {
            return Error(FrameStatus.Garbage, SkipToNextFrame(buffer, 1), 0);
        }
        // A frame starts with 8=FIX, the start the resynchronisation looks for (SkipToNextFrame keeps a trailing 8=, 8=F or
        // 8=FI for the next read): a buffer that starts 8=FI8=FIX... is refused here as it would have been skipped past had
        // it arrived in one piece, so the frames found never depend on how TCP cut the stream.
        int prefixLength = Math.Min(length, FrameStart.Length);
        int mismatch = buffer.Slice(0, prefixLength).CommonPrefixLength(FrameStart);
        if (mismatch < prefixLength) return Error(FrameStatus.BadBeginString, SkipToNextFrame(buffer, 1), mismatch);
        if (length < FrameStart.Length) return NeedMore();

        // 8=<value>SOH
        int beginLimit = Math.Min(length, 2 + MaxBeginStringLength + 1);
        int beginSoh = buffer.Slice(2, beginLimit - 2).IndexOf(Soh);
        if (beginSoh < 0)
        {
            return beginLimit == length && length < 2 + MaxBeginStringLength + 1
                ? NeedMore()
                : Error(FrameStatus.BadBeginString, SkipToNextFrame(buffer, 1), 2);
        }
        if (beginSoh == 0) return Error(FrameStatus.BadBeginString, SkipToNextFrame(buffer, 1), 2);

        // 9=<digits>SOH
        int p = 2 + beginSoh + 1;
        if (length < p + 2)
        {
            if (length > p && buffer[p] != (byte)'9') return Error(FrameStatus.BadBodyLength, SkipToNextFrame(buffer, 1), p);
            return NeedMore();
        }
        if (buffer[p] != (byte)'9' || buffer[p + 1] != (byte)'=')
        {
            return Error(FrameStatus.BadBodyLength, SkipToNextFrame(buffer, 1), p);
        }
        int digitsStart = p + 2;
        int q = digitsStart;
        int bodyLength = 0;
        while (true)
        {
            if (q >= length) return NeedMore();
            byte b = buffer[q];
            if (b == Soh) break;
            uint digit = (uint)(b - '0');
            if (digit > 9 || q - digitsStart >= MaxBodyLengthDigits)
            {
                return Error(FrameStatus.BadBodyLength, SkipToNextFrame(buffer, 1), q);
            }
            bodyLength = bodyLength * 10 + (int)digit;
            q++;
        }
        if (q == digitsStart) return Error(FrameStatus.BadBodyLength, SkipToNextFrame(buffer, 1), digitsStart);
        int bodyOffset = q + 1;
        if (bodyLength > maxBodyLength)
        {
            return new FrameResult(FrameStatus.BodyLengthTooLarge, SkipToNextFrame(buffer, 1), digitsStart, bodyLength, bodyOffset, -1, -1, -1);
        }

        // 10=ddd SOH at the declared end?
        int bodyEnd = bodyOffset + bodyLength;
        int available = length - bodyEnd;
        bool atTrailer;
        if (available >= 3)
        {
            atTrailer = buffer[bodyEnd - 1] == Soh && buffer[bodyEnd] == (byte)'1' && buffer[bodyEnd + 1] == (byte)'0' && buffer[bodyEnd + 2] == (byte)'=';
        }
        else
        {
            if (available <= 0) return NeedMore();
            atTrailer = false;
            if (buffer[bodyEnd - 1] == Soh && "10="u8.StartsWith(buffer.Slice(bodyEnd))) return NeedMore();
        }
        if (atTrailer) return FrameTrailer(buffer, bodyLength, bodyOffset, bodyEnd);
        return FrameMismatch(buffer, maxBodyLength, bodyLength, bodyOffset, bodyEnd, digitsStart);
    }

    private static FrameResult FrameTrailer(ReadOnlySpan<byte> buffer, int bodyLength, int bodyOffset, int bodyEnd)
    {
        int valueStart = bodyEnd + 3;
        int declared = 0;
        for (int k = 0; k < 3; k++)
        {
            int i = valueStart + k;
            if (i >= buffer.Length) return NeedMore();
            uint digit = (uint)(buffer[i] - '0');
            if (digit > 9) return BadCheckSum(buffer, bodyLength, bodyOffset, bodyEnd, i);
            declared = declared * 10 + (int)digit;
        }
        int sohIndex = valueStart + 3;
        if (sohIndex >= buffer.Length) return NeedMore();
        if (buffer[sohIndex] != Soh) return BadCheckSum(buffer, bodyLength, bodyOffset, bodyEnd, sohIndex);
        int computed = AsciiParsing.Sum(buffer.Slice(0, bodyEnd));
        int frameLength = sohIndex + 1;
        return declared == computed
            ? new FrameResult(FrameStatus.Complete, frameLength, -1, bodyLength, bodyOffset, bodyEnd, declared, computed)
            : new FrameResult(FrameStatus.CheckSumMismatch, frameLength, valueStart, bodyLength, bodyOffset, bodyEnd, declared, computed);
    }

    /// <summary>
    /// The CheckSum field at the declared end is not <c>10=ddd SOH</c>: the frame is skipped up to the first byte that
    /// made it invalid (<paramref name="errorOffset"/>; through it when it is the SOH that ends a short value), and what
    /// follows is framed (or skipped as garbage up to the next <c>8=FIX</c>) on the next call. No byte after the defect
    /// is looked at, so the skip is the same however TCP cut the stream (skipping to the next SOH instead gave a
    /// different result when a truncated trailer ran into the next message, <c>10=05</c> then <c>8=FIX</c>, depending on
    /// whether that SOH had arrived yet: MutationFuzzTests).
    /// </summary>
    private static FrameResult BadCheckSum(ReadOnlySpan<byte> buffer, int bodyLength, int bodyOffset, int bodyEnd, int errorOffset) =>
        new(FrameStatus.BadCheckSum, buffer[errorOffset] == Soh ? errorOffset + 1 : errorOffset, errorOffset, bodyLength, bodyOffset, bodyEnd, -1, -1);

    private static FrameResult FrameMismatch(ReadOnlySpan<byte> buffer, int maxBodyLength, int bodyLength, int bodyOffset, int bodyEnd, int digitsStart)
    {
        // PERF: a sender that never sends the trailer cannot make us buffer without bound: past `bound` bytes the frame is
        // given up. The search for the real trailer looks only at the bytes up to that bound, so that its outcome does not
        // depend on how much of the stream happens to be buffered (a trailer found beyond the bound in a larger buffer
        // would otherwise skip differently).
        long bound = (long)bodyOffset + maxBodyLength + TrailerLength + 16;
        int window = (int)Math.Min(buffer.Length, bound + 1);
        int searchFrom = bodyEnd - 1;
        int found = searchFrom < window ? buffer.Slice(searchFrom, window - searchFrom).IndexOf(SohCheckSumTag) : -1;
        if (found >= 0)
        {
            int valueStart = searchFrom + found + 4;
            int end = valueStart < window ? buffer.Slice(valueStart, window - valueStart).IndexOf(Soh) : -1;
            if (end >= 0)
            {
                return new FrameResult(FrameStatus.BodyLengthMismatch, valueStart + end + 1, digitsStart, bodyLength, bodyOffset, -1, -1, -1);
            }
        }
        if (buffer.Length > bound)
        {
            return new FrameResult(FrameStatus.BodyLengthMismatch, SkipToNextFrame(buffer, 1), digitsStart, bodyLength, bodyOffset, -1, -1, -1);
        }
        return NeedMore();
    }

    /// <summary>Offset of the next <c>8=FIX</c> at or after <paramref name="from"/>, else the buffer length minus a trailing partial <c>8=FIX</c>.</summary>
    private static int SkipToNextFrame(ReadOnlySpan<byte> buffer, int from)
    {
        int next = buffer.Slice(from).IndexOf(FrameStart);
        if (next >= 0) return from + next;
        int length = buffer.Length;
        ReadOnlySpan<byte> start = FrameStart;
        for (int keep = Math.Min(start.Length - 1, length - from); keep > 0; keep--)
        {
            if (buffer.Slice(length - keep).SequenceEqual(start.Slice(0, keep))) return length - keep;
        }
        return length;
    }

    private static FrameResult NeedMore() => new(FrameStatus.NeedMoreData, 0, -1, -1, -1, -1, -1, -1);

    private static FrameResult Error(FrameStatus status, int skip, int errorOffset) => new(status, skip, errorOffset, -1, -1, -1, -1, -1);
}
