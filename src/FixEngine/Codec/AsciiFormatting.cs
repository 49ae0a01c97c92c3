using System;
using System.Buffers.Binary;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace FixEngine.Codec;

/// <summary>
/// The writer's formatting primitives: whole fields built in registers and stored with a few exact-width unaligned
/// stores, and digit formatting from a table of digit pairs. The field stores assume a little-endian machine (the writer
/// checks <see cref="BitConverter.IsLittleEndian"/> first); <see cref="DigitPair"/> works on any.
/// </summary>
/// <remarks>
/// Every method writes exactly the bytes it names and nothing after them: a field ending at the last byte of a buffer
/// is written without touching the byte after it (FixWriterFastPathTests checks the bytes after every field). Callers
/// guarantee the room. A word's byte 0 is the first character:
/// <code>
///   "35=D|"  as a word: 0x__01_44_3D_35_33   (byte 0 = '3', byte 4 = SOH)
/// </code>
/// PERF: the encoder is limited by the instruction stream (each field is inlined at its call site) and by the chain of
/// position updates, so a field is built in registers and stored with one to three stores instead of five to seven
/// small ones, and each field's length is known before its digits are computed (docs/benchmarks/toolkit-codec-notes.md).
/// </remarks>
internal static class AsciiFormatting
{
    private const byte Soh = AsciiParsing.Soh;

    /// <summary>"00" "01" ... "99": the two ASCII digits of 0..99 at offset 2 * value.</summary>
    private static ReadOnlySpan<byte> DigitPairs =>
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"u8;

    /// <summary>The two ASCII digits of <paramref name="value"/> (0..99), tens in byte 0.</summary>
    /// <remarks>
    /// PERF: one load where <see cref="AsciiParsing.TwoDigitsText"/> takes seven arithmetic instructions; the encoder
    /// is limited by its instruction stream, and with a constant value the JIT folds the load like the arithmetic.
    /// </remarks>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static uint DigitPair(uint value)
    {
        ushort pair = Unsafe.ReadUnaligned<ushort>(ref Unsafe.Add(ref MemoryMarshal.GetReference(DigitPairs), (nint)value * 2));
        // Byte 0 first on any machine (FixValueFormatter.TimeOfDayText also serves the general paths).
        return BitConverter.IsLittleEndian ? pair : BinaryPrimitives.ReverseEndianness(pair);
    }

    /// <summary>Reads the <paramref name="count"/> (0..7) bytes at <paramref name="source"/> into the low bytes of a word; reads nothing else.</summary>
    /// <remarks>Four or more bytes: two overlapping 4-byte loads OR-ed together (the overlap holds the same bytes).</remarks>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static ulong LoadShort(ref byte source, int count)
    {
        if (count >= 4)
        {
            return Unsafe.ReadUnaligned<uint>(ref source) | ((ulong)Unsafe.ReadUnaligned<uint>(ref Unsafe.Add(ref source, count - 4)) << (8 * (count - 4)));
        }
        if (count == 0) return 0;
        return source | ((ulong)Unsafe.Add(ref source, count >> 1) << (8 * (count >> 1))) | ((ulong)Unsafe.Add(ref source, count - 1) << (8 * (count - 1)));
    }

    /// <summary>Stores the low <paramref name="count"/> (1..8) bytes of <paramref name="word"/> with at most two stores; writes nothing else.</summary>
    /// <remarks>With a constant count (a constant tag, a constant value) the branches fold away.</remarks>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void StoreExact(ref byte destination, ulong word, int count)
    {
        if (count == 8)
        {
            Unsafe.WriteUnaligned(ref destination, word);
        }
        else if (count >= 4)
        {
            Unsafe.WriteUnaligned(ref destination, (uint)word);
            Unsafe.WriteUnaligned(ref Unsafe.Add(ref destination, count - 4), (uint)(word >> (8 * (count - 4))));
        }
        else if (count >= 2)
        {
            Unsafe.WriteUnaligned(ref destination, (ushort)word);
            Unsafe.Add(ref destination, count - 1) = (byte)(word >> (8 * (count - 1)));
        }
        else
        {
            destination = (byte)word;
        }
    }

    /// <summary>
    /// Stores <c>tag=</c> (<paramref name="prefixLength"/> 2..5 bytes) before a value that, with its SOH, takes at least
    /// two bytes: a prefix of up to 4 bytes is one 4-byte store whose spare bytes the value overwrites.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void StoreTagPrefix(ref byte destination, ulong prefix, int prefixLength)
    {
        if (prefixLength <= 4)
        {
            Unsafe.WriteUnaligned(ref destination, (uint)prefix);
            return;
        }
        StoreExact(ref destination, prefix, prefixLength);
    }

    /// <summary>
    /// Writes <c>tag=value|</c>: <paramref name="prefix"/> (the <paramref name="prefixLength"/> bytes of <c>tag=</c>, 2..5),
    /// the <paramref name="valueLength"/> (0..15) bytes at <paramref name="value"/> and SOH, prefixLength + valueLength + 1
    /// bytes in all, with at most three stores.
    /// </summary>
    /// <remarks>
    /// <code>
    ///   value of 0..7 bytes : [tag= value SOH] built in one word (two when longer than 8 bytes)
    ///   value of 8..15 bytes: [tag= head.....]            first 8 bytes, the value's head shifted in
    ///                               [head....]            only when the field is longer than 16 bytes
    ///                                  [....tail SOH]     last 8 bytes: the value's last 7 bytes and SOH
    /// </code>
    /// PERF: with a constant tag and a u8 literal the JIT folds the words to immediates, so <c>49=BROKER|</c> is two
    /// 8-byte stores of constants instead of five narrow ones.
    /// </remarks>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void WriteShortField(ref byte destination, ulong prefix, int prefixLength, ref byte value, int valueLength)
    {
        int total = prefixLength + valueLength + 1;
        if (valueLength <= 7)
        {
            ulong text = LoadShort(ref value, valueLength) | ((ulong)Soh << (8 * valueLength));
            ulong low = prefix | (text << (8 * prefixLength));
            if (total <= 8)
            {
                StoreExact(ref destination, low, total);
                return;
            }
            // 9..13 bytes: the first 8, then the last 8 taken from the 16-byte string [low][text's high bytes].
            int shift = 8 * (total - 8);
            Unsafe.WriteUnaligned(ref destination, low);
            Unsafe.WriteUnaligned(ref Unsafe.Add(ref destination, total - 8), (low >> shift) | ((text >> (64 - 8 * prefixLength)) << (64 - shift)));
            return;
        }
        ulong head = Unsafe.ReadUnaligned<ulong>(ref value);
        ulong tail = Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref value, valueLength - 8));
        Unsafe.WriteUnaligned(ref destination, prefix | (head << (8 * prefixLength)));
        if (total > 16) Unsafe.WriteUnaligned(ref Unsafe.Add(ref destination, prefixLength), head);
        Unsafe.WriteUnaligned(ref Unsafe.Add(ref destination, total - 8), (tail >> 8) | ((ulong)Soh << 56));
    }

    /// <summary>The eight ASCII digits of <paramref name="value"/> (below 10^8, zero-padded), first digit in byte 0.</summary>
    /// <remarks>
    /// Two 4-digit halves, each split into two pairs. PERF: four pair loads instead of a SWAR multiply chain (8 digit
    /// values in one word by repeated x * 10486 >> 20 and x * 103 >> 10); docs/benchmarks/toolkit-codec-notes.md.
    /// </remarks>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static ulong DigitText8(uint value)
    {
        uint high = value / 10_000;
        uint low = value - high * 10_000;
        // x * 5243 >> 19 is x / 100 for x below 10^4.
        uint a = (high * 5243) >> 19;
        uint c = (low * 5243) >> 19;
        return DigitPair(a) | ((ulong)DigitPair(high - a * 100) << 16) | ((ulong)DigitPair(c) << 32) | ((ulong)DigitPair(low - c * 100) << 48);
    }

    /// <summary>Writes the <paramref name="count"/> digits of <paramref name="value"/> (count = its digit count) and SOH.</summary>
    public static void WriteDigitsAndSoh(ref byte destination, ulong value, int count)
    {
        if (value < 100_000_000)
        {
            ulong text = DigitText8((uint)value) >> (8 * (8 - count));
            if (count < 8)
            {
                StoreExact(ref destination, text | ((ulong)Soh << (8 * count)), count + 1);
                return;
            }
            Unsafe.WriteUnaligned(ref destination, text);
            Unsafe.Add(ref destination, 8) = Soh;
            return;
        }
        if (value < 10_000_000_000_000_000UL)
        {
            ulong high = value / 100_000_000;
            int highCount = count - 8;
            StoreExact(ref destination, DigitText8((uint)high) >> (8 * (8 - highCount)), highCount);
            Unsafe.WriteUnaligned(ref Unsafe.Add(ref destination, highCount), DigitText8((uint)(value - high * 100_000_000)));
            Unsafe.Add(ref destination, count) = Soh;
            return;
        }
        AsciiParsing.WriteDigitsUnchecked(MemoryMarshal.CreateSpan(ref destination, count), 0, value, count);
        Unsafe.Add(ref destination, count) = Soh;
    }

    /// <summary>Writes a FIX decimal (<see cref="FixDecimal"/> text) and SOH; returns the bytes written.</summary>
    /// <remarks>
    /// A mantissa below 10^8 in magnitude with up to 7 decimals (prices, most quantities) is built in one or two words:
    /// <code>
    ///   10125, scale 2:  digits "00010125" → keep max(5, scale + 1) = 5 → "10125" → '.' before the last 2 → "101.25|"
    /// </code>
    /// Anything else takes <see cref="FixDecimal.FormatUnchecked"/>. The length comes from the digit count, not from
    /// the formatted digits, so the caller's next field does not wait for them (taking it from the formatted digits
    /// is measurably slower).
    /// PERF: faster than FixDecimal.FormatUnchecked and a SOH store (docs/benchmarks/toolkit-codec-notes.md).
    /// PERF: never inlined. Inlined (with the timestamp formatter below) into the first fields of a long body written
    /// through a <c>ref FixWriter</c> (a Send callback), it spent the method's JIT inlining budget and left every later
    /// field write a call; out of line, every field write stays inlined (docs/benchmarks/typed-codec.md, "Round 8").
    /// </remarks>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int WriteDecimalAndSoh(ref byte destination, long mantissa, int scale)
    {
        ulong magnitude = mantissa < 0 ? unchecked(0 - (ulong)mantissa) : (ulong)mantissa;
        if (magnitude >= 100_000_000 || (uint)scale > 7) return WriteDecimalAndSohGeneral(ref destination, mantissa, scale);
        int sign = (int)((ulong)mantissa >> 63);
        // Always store the sign byte: for a positive value the digits overwrite it.
        destination = (byte)'-';
        ref byte d = ref Unsafe.Add(ref destination, sign);
        if (scale == 0)
        {
            // An integer (quantities): digits and SOH.
            int digitCount = AsciiParsing.CountDigits((uint)magnitude);
            WriteDigitsAndSoh(ref d, magnitude, digitCount);
            return sign + digitCount + 1;
        }
        int count = Math.Max(AsciiParsing.CountDigits((uint)magnitude), scale + 1);
        ulong digits = DigitText8((uint)magnitude) >> (8 * (8 - count));
        int integerDigits = count - scale;
        ulong integerMask = (1UL << (8 * integerDigits)) - 1;
        ulong text = (digits & integerMask) | ((ulong)'.' << (8 * integerDigits)) | ((digits & ~integerMask) << 8);
        if (count <= 6)
        {
            StoreExact(ref d, text | ((ulong)Soh << (8 * (count + 1))), count + 2);
        }
        else
        {
            // count + 1 = 8 or 9 bytes of text: the first 8, then the ninth (for 8 digits) and SOH.
            Unsafe.WriteUnaligned(ref d, text);
            Unsafe.WriteUnaligned(ref Unsafe.Add(ref d, count), (ushort)((count == 8 ? digits >> 56 : text >> 56) | ((ulong)Soh << 8)));
        }
        return sign + count + 2;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int WriteDecimalAndSohGeneral(ref byte destination, long mantissa, int scale)
    {
        Span<byte> text = MemoryMarshal.CreateSpan(ref destination, FixDecimal.MaxFormattedLength + 1);
        int written = new FixDecimal(mantissa, scale).FormatUnchecked(text, 0);
        text[written] = Soh;
        return written + 1;
    }

    /// <summary>
    /// Writes a UTCTimestamp and SOH given its first 16 bytes (<c>YYYYMMDD</c> and <c>-HH:MM:S</c>), the last seconds
    /// digit and the nanoseconds within the second; <see cref="FixValueFormatter.UtcTimestampLength"/> + 1 bytes.
    /// </summary>
    /// <remarks>
    /// <code>
    ///   [YYYYMMDD][-HH:MM:S][S.mmm|]       millis: three stores (the last is 4 + 2 bytes)
    /// </code>
    /// </remarks>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void WriteTimestampAndSoh(ref byte destination, ulong date, ulong dashAndTime, byte lastSecondDigit, uint nanos, TimestampPrecision precision)
    {
        Unsafe.WriteUnaligned(ref destination, date);
        Unsafe.WriteUnaligned(ref Unsafe.Add(ref destination, 8), dashAndTime);
        ref byte d = ref Unsafe.Add(ref destination, 16);
        switch (precision)
        {
            case TimestampPrecision.Millis:
            {
                uint millis = nanos / 1_000_000;
                uint hundreds = (millis * 41) >> 12;
                uint rest = millis - hundreds * 100;
                ulong word = lastSecondDigit | ((ulong)'.' << 8) | ((ulong)('0' + hundreds) << 16) | ((ulong)DigitPair(rest) << 24)
                    | ((ulong)Soh << 40);
                Unsafe.WriteUnaligned(ref d, (uint)word);
                Unsafe.WriteUnaligned(ref Unsafe.Add(ref d, 4), (ushort)(word >> 32));
                return;
            }
            case TimestampPrecision.Micros:
            {
                ulong digits = DigitText8(nanos / 1_000) >> 16;
                Unsafe.WriteUnaligned(ref d, lastSecondDigit | ((ulong)'.' << 8) | (digits << 16));
                Unsafe.Add(ref d, 8) = Soh;
                return;
            }
            case TimestampPrecision.Nanos:
            {
                uint micros = nanos / 1_000;
                uint rest = nanos - micros * 1_000;
                ulong digits = DigitText8(micros) >> 16;
                Unsafe.WriteUnaligned(ref d, lastSecondDigit | ((ulong)'.' << 8) | (digits << 16));
                uint hundreds = (rest * 41) >> 12;
                Unsafe.WriteUnaligned(ref Unsafe.Add(ref d, 8), ('0' + hundreds) | (DigitPair(rest - hundreds * 100) << 8) | ((uint)Soh << 24));
                return;
            }
            default:
                Unsafe.WriteUnaligned(ref d, (ushort)(lastSecondDigit | (Soh << 8)));
                return;
        }
    }

    /// <summary>Writes the UTCTimestamp of <paramref name="epochNs"/> and SOH (<see cref="FixValueFormatter.UtcTimestampLength"/> + 1 bytes).</summary>
    /// <remarks>PERF: never inlined, for the inlining budget of long bodies (see <see cref="WriteDecimalAndSoh"/>).</remarks>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void WriteTimestampAndSoh(ref byte destination, long epochNs, TimestampPrecision precision)
    {
        long days;
        long nanosOfDay;
        if (epochNs >= 0)
        {
            // Unsigned division by a constant is a multiply and a shift, without the signed fix-ups.
            days = (long)((ulong)epochNs / FixValueParser.NanosPerDay);
            nanosOfDay = epochNs - days * FixValueParser.NanosPerDay;
        }
        else
        {
            days = Math.DivRem(epochNs, FixValueParser.NanosPerDay, out nanosOfDay);
            if (nanosOfDay < 0)
            {
                nanosOfDay += FixValueParser.NanosPerDay;
                days--;
            }
        }
        uint secondOfDay = (uint)((ulong)nanosOfDay / FixValueParser.NanosPerSecond);
        uint nanos = (uint)((ulong)nanosOfDay - secondOfDay * (ulong)FixValueParser.NanosPerSecond);
        ulong time = FixValueFormatter.TimeOfDayText(secondOfDay);
        WriteTimestampAndSoh(ref destination, FixValueFormatter.DateText(days), '-' | (time << 8), (byte)(time >> 56), nanos, precision);
    }
}
