using System;
using System.Buffers.Binary;
using System.Numerics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;

namespace FixEngine.Codec;

/// <summary>
/// The one place in the codec that uses <see cref="Unsafe"/>/<see cref="MemoryMarshal"/>: SWAR digit
/// parsing, the UTCTimestamp overlay, the vectorised checksum and SOH masks, and two-digit formatting.
/// </summary>
/// <remarks>
/// Every multi-byte read is little-endian-normalised (<see cref="BinaryPrimitives.ReverseEndianness(ulong)"/> on
/// big-endian hosts) so the first ASCII character is always the lowest byte of the word:
/// <code>
///   text   : '2' '0' '2' '6' '1' '1' '2' '2'
///   offset :  0   1   2   3   4   5   6   7
///   ulong  : 0x32_32_31_31_36_32_30_32   (byte 0 is the least significant)
/// </code>
/// Callers guarantee the bounds; every method here reads exactly the bytes it names.
/// </remarks>
internal static class AsciiParsing
{
    /// <summary>The FIX field delimiter, ASCII SOH.</summary>
    public const byte Soh = 0x01;

    private const ulong Zeros8 = 0x3030_3030_3030_3030UL;
    private const ulong HighNibbles = 0xF0F0_F0F0_F0F0_F0F0UL;
    private const ulong Sixes = 0x0606_0606_0606_0606UL;

    /// <summary>"00" "01" ... "99": two ASCII digits per value, for formatting two digits with one copy.</summary>
    private static ReadOnlySpan<byte> TwoDigits =>
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"u8;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static ulong ReadUInt64(ReadOnlySpan<byte> source, int offset)
    {
        ulong word = Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref MemoryMarshal.GetReference(source), offset));
        return BitConverter.IsLittleEndian ? word : BinaryPrimitives.ReverseEndianness(word);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static ushort ReadUInt16(ReadOnlySpan<byte> source, int offset)
    {
        ushort word = Unsafe.ReadUnaligned<ushort>(ref Unsafe.Add(ref MemoryMarshal.GetReference(source), offset));
        return BitConverter.IsLittleEndian ? word : BinaryPrimitives.ReverseEndianness(word);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static uint ReadUInt32(ReadOnlySpan<byte> source, int offset)
    {
        uint word = Unsafe.ReadUnaligned<uint>(ref Unsafe.Add(ref MemoryMarshal.GetReference(source), offset));
        return BitConverter.IsLittleEndian ? word : BinaryPrimitives.ReverseEndianness(word);
    }

    /// <summary>True when all eight bytes of the word minus '0' are in 0..9.</summary>
    /// <remarks>
    /// <code>
    ///   d = word - 0x30..30      a byte below '0' borrows and wraps to 0xCx..0xFx (high nibble set)
    ///   d &amp; 0xF0..F0 == 0      every byte is 0x00..0x0F
    ///   (d + 0x06..06) &amp; 0xF0.. every byte 0x0A..0x0F carries into the high nibble: rejects ':'..'?'
    /// </code>
    /// </remarks>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static bool AllDigits(ulong digitsMinusZero) =>
        ((digitsMinusZero | (digitsMinusZero + Sixes)) & HighNibbles) == 0;

    /// <summary>Parses exactly eight ASCII digits at <paramref name="offset"/> (SWAR, no loop).</summary>
    /// <remarks>
    /// <code>
    ///   bytes      d0 d1 d2 d3 d4 d5 d6 d7        (d0 is the most significant digit, lowest byte)
    ///   step 1     [10*d0+d1] [10*d2+d3] ...       four 16-bit lanes, each 0..99
    ///   step 2     [100*p0+p1] [100*p2+p3]         two 32-bit lanes, each 0..9999
    ///   step 3     10000*q0+q1                     0..99_999_999
    /// </code>
    /// </remarks>
    public static bool TryParse8Digits(ReadOnlySpan<byte> source, int offset, out uint value)
    {
        ulong d = ReadUInt64(source, offset) - Zeros8;
        if (!AllDigits(d))
        {
            value = 0;
            return false;
        }
        d = (d * 10 + (d >> 8)) & 0x00FF_00FF_00FF_00FFUL;
        d = (d * 100 + (d >> 16)) & 0x0000_FFFF_0000_FFFFUL;
        d = (d * 10000 + (d >> 32)) & 0xFFFF_FFFFUL;
        value = (uint)d;
        return true;
    }

    /// <summary>Reads the 8 bytes at <paramref name="offset"/>, or the bytes up to the end followed by zero bytes when fewer remain.</summary>
    /// <remarks>
    /// Near the end of a buffer of at least 8 bytes this re-reads the last 8 bytes and shifts out the ones before
    /// <paramref name="offset"/>, so the field loop never needs a scalar tail (a zero byte is neither a digit nor '=').
    /// </remarks>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static ulong ReadUInt64OrZeroPadded(ReadOnlySpan<byte> source, int offset)
    {
        int length = source.Length;
        if (offset <= length - 8) return ReadUInt64(source, offset);
        return ReadUInt64Tail(source, offset);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static ulong ReadUInt64Tail(ReadOnlySpan<byte> source, int offset)
    {
        int length = source.Length;
        if (length >= 8) return ReadUInt64(source, length - 8) >> (8 * (offset - (length - 8)));
        ulong word = 0;
        for (int i = length - 1; i >= offset; i--) word = (word << 8) | source[i];
        return word;
    }

    /// <summary>Number of leading ASCII digits in <paramref name="word"/> (0..8; byte 0 first).</summary>
    /// <remarks>
    /// <code>
    ///   word   : '4' '4' '=' '1' ...      d = word - 0x30..30
    ///   d      : 04  04  0D  ...          bytes before the first non-digit are 0..9, so they neither borrow
    ///   (d | d + 0x06..06) &amp; 0xF0..F0   nor carry: the lowest byte with a high-nibble bit is the first non-digit
    ///   tzcnt / 8 = 2
    /// </code>
    /// Bytes after the first non-digit may be garbled by borrows; they are never looked at.
    /// </remarks>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int LeadingDigitCount(ulong word)
    {
        ulong d = word - Zeros8;
        return BitOperations.TrailingZeroCount((d | (d + Sixes)) & HighNibbles) >> 3;
    }

    /// <summary>Value of the first <paramref name="digits"/> (1..8) bytes of <paramref name="word"/>, which must be ASCII digits.</summary>
    /// <remarks>The digits are shifted to the top of the word (leading zero digits below them), then combined as in <see cref="TryParse8Digits"/>.</remarks>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static uint ParseLeadingDigits(ulong word, int digits)
    {
        ulong d = (word - Zeros8) << (8 * (8 - digits));
        d = (d * 10 + (d >> 8)) & 0x00FF_00FF_00FF_00FFUL;
        d = (d * 100 + (d >> 16)) & 0x0000_FFFF_0000_FFFFUL;
        d = (d * 10000 + (d >> 32)) & 0xFFFF_FFFFUL;
        return (uint)d;
    }

    /// <summary>8 × the number of leading ASCII digits in the low 4 bytes of a word minus '0' (0, 8, 16, 24 or 32); see <see cref="LeadingDigitCount"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int LeadingDigitBits4(uint digitsMinusZero) =>
        BitOperations.TrailingZeroCount((digitsMinusZero | (digitsMinusZero + 0x0606_0606u)) & 0xF0F0_F0F0u) & 0x38;

    /// <summary>
    /// Value of the leading digits of the low 4 bytes of a word minus '0', given <paramref name="digitBits"/> = 8 × their
    /// count (8..32); the bytes after them may hold anything.
    /// </summary>
    /// <remarks>
    /// <code>
    ///   d                  b0 b1 b2 b3                  (bytes, b0 lowest and most significant)
    ///   d * 0x0A01         byte 1 = 10*b0 + b1, byte 3 = 10*b2 + b3 (carries only move up: bytes after the digits never spoil them)
    ///   moved as if the digits had first been shifted to the top of 32 bits, then >> 8, in one 64-bit shift:
    ///   (t &lt;&lt; 24) >> bits  &amp; 0xFF00FF   → p0 in bits 0..15, p1 in bits 16..31 (the byte after the digits lands in bits 24..31, masked)
    ///   * 0x640001         bits 16..31 = 100*p0 + p1 (p1 * 100 overflows out of the 32 bits)
    /// </code>
    /// PERF: the first multiply does not wait for the digit count, and there is no final mask: 6 instructions instead
    /// of 11 in the index's field loop (JIT disassembly; the loop is issue-bound, see FixMessageIndex.IndexPlainFields;
    /// FixReadBenchmarks.Frame: docs/benchmarks/toolkit-codec-notes.md).
    /// </remarks>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static uint ParseLeadingDigits4(uint digitsMinusZero, int digitBits)
    {
        uint tens = digitsMinusZero * 0x0A01u;
        uint pairs = (uint)(((ulong)tens << 24) >> digitBits) & 0x00FF_00FFu;
        return (pairs * 0x0064_0001u) >> 16;
    }

    /// <summary>Reads 8 bytes at <paramref name="offset"/> from <paramref name="source"/>; the caller guarantees offset + 8 is within the span it came from.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static ulong ReadUInt64(ref byte source, nint offset)
    {
        ulong word = Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref source, offset));
        return BitConverter.IsLittleEndian ? word : BinaryPrimitives.ReverseEndianness(word);
    }

    /// <summary>Byte <paramref name="index"/> (0..7) of <paramref name="word"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static byte ByteAt(ulong word, int index) => (byte)(word >> (8 * index));

    /// <summary>Bit i set where byte <paramref name="offset"/> + i is SOH, for the 16 bytes at <paramref name="offset"/>; needs 16 readable bytes.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static uint SohMask16(ReadOnlySpan<byte> source, int offset) =>
        Vector128.Equals(Vector128.LoadUnsafe(ref MemoryMarshal.GetReference(source), (nuint)offset), Vector128.Create(Soh)).ExtractMostSignificantBits();

    /// <summary>Sets bit i of <paramref name="sohBits"/> where byte i is SOH (64 bytes per ulong, bit 0 = lowest offset).</summary>
    /// <remarks>
    /// <code>
    ///   bytes  : 3 5 = D | 3 4 = 2 | ...
    ///   soh    : 0 0 0 0 1 0 0 0 0 1       → field ends, popped in order with tzcnt/blsr
    /// </code>
    /// PERF: one vector compare + movemask per 32 bytes replaces a dependent per-field search, so a field loop
    /// only pops bits (FixReadBenchmarks.FrameAndIndex). The '=' is found by the SWAR tag parse, so there is no
    /// second ('=') mask to build any more. The index's fast loop computes the blocks itself with
    /// <see cref="SohBlock64"/>; this whole-message mask serves its general path.
    /// </remarks>
    public static void BuildSohMask(ReadOnlySpan<byte> source, Span<ulong> sohBits)
    {
        for (int word = 0; word < sohBits.Length; word++)
        {
            sohBits[word] = SohBlock(source, word << 6);
        }
    }

    /// <summary>
    /// SOH mask of the bytes from <paramref name="blockStart"/> (a multiple of 64, below the length) up to the next
    /// multiple of 64 or the end: bit i is byte <paramref name="blockStart"/> + i.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static ulong SohBlock(ReadOnlySpan<byte> source, int blockStart)
    {
        if (blockStart <= source.Length - 64) return SohBlock64(ref MemoryMarshal.GetReference(source), blockStart);
        return SohBlockTail(source, blockStart);
    }

    /// <summary>The last, partial block of <see cref="SohBlock"/>: fewer than 64 bytes from <paramref name="blockStart"/> to the end.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static ulong SohBlockTail(ReadOnlySpan<byte> source, int blockStart)
    {
        ref byte start = ref MemoryMarshal.GetReference(source);
        int length = source.Length;
        int rest = length - blockStart;
        if (length >= 64)
        {
            // PERF: re-read the last 64 bytes (overlapping) with vectors and shift out what was already covered,
            // instead of a scalar loop over up to 63 bytes.
            return SohBlock64(ref start, length - 64) >> (64 - rest);
        }
        ulong sohWord = 0;
        int k = 0;
        if (Vector128.IsHardwareAccelerated && length >= 16)
        {
            Vector128<byte> soh = Vector128.Create(Soh);
            for (; k <= length - 16; k += 16)
            {
                sohWord |= (ulong)Vector128.Equals(Vector128.LoadUnsafe(ref start, (nuint)k), soh).ExtractMostSignificantBits() << k;
            }
            if (k < length)
            {
                int last = length - 16;
                sohWord |= (ulong)Vector128.Equals(Vector128.LoadUnsafe(ref start, (nuint)last), soh).ExtractMostSignificantBits() << last;
            }
        }
        else
        {
            for (; k < length; k++)
            {
                sohWord |= (ulong)(Unsafe.Add(ref start, k) == Soh ? 1 : 0) << k;
            }
        }
        return sohWord;
    }

    /// <summary>SOH mask of the 64 bytes at <paramref name="offset"/> (bit 0 = first byte); the caller guarantees the 64 bytes.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static ulong SohBlock64(ref byte start, int offset)
    {
        if (Vector256.IsHardwareAccelerated)
        {
            Vector256<byte> soh = Vector256.Create(Soh);
            return Vector256.Equals(Vector256.LoadUnsafe(ref start, (nuint)offset), soh).ExtractMostSignificantBits()
                | ((ulong)Vector256.Equals(Vector256.LoadUnsafe(ref start, (nuint)offset + 32), soh).ExtractMostSignificantBits() << 32);
        }
        if (Vector128.IsHardwareAccelerated)
        {
            Vector128<byte> soh = Vector128.Create(Soh);
            ulong s = 0;
            for (int k = 0; k < 4; k++)
            {
                s |= (ulong)Vector128.Equals(Vector128.LoadUnsafe(ref start, (nuint)(offset + k * 16)), soh).ExtractMostSignificantBits() << (k * 16);
            }
            return s;
        }
        ulong scalar = 0;
        for (int k = 0; k < 64; k++)
        {
            scalar |= (ulong)(Unsafe.Add(ref start, offset + k) == Soh ? 1 : 0) << k;
        }
        return scalar;
    }

    /// <summary>Offset of the first set bit at or after <paramref name="position"/>, or -1.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int NextSetBit(ReadOnlySpan<ulong> bits, int position)
    {
        int w = position >> 6;
        if ((uint)w >= (uint)bits.Length) return -1;
        ulong word = bits[w] & (ulong.MaxValue << (position & 63));
        while (word == 0)
        {
            if (++w >= bits.Length) return -1;
            word = bits[w];
        }
        return (w << 6) + BitOperations.TrailingZeroCount(word);
    }

    /// <summary>Parses exactly two ASCII digits.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool TryParse2Digits(ReadOnlySpan<byte> source, int offset, out int value)
    {
        uint hi = (uint)(source[offset] - '0');
        uint lo = (uint)(source[offset + 1] - '0');
        value = (int)(hi * 10 + lo);
        return hi <= 9 && lo <= 9;
    }

    /// <summary>Parses exactly four ASCII digits.</summary>
    public static bool TryParse4Digits(ReadOnlySpan<byte> source, int offset, out int value)
    {
        uint d = ReadUInt32(source, offset) - 0x3030_3030U;
        if (((d | (d + 0x0606_0606U)) & 0xF0F0_F0F0U) != 0)
        {
            value = 0;
            return false;
        }
        d = (d * 10 + (d >> 8)) & 0x00FF_00FFU;
        d = (d * 100 + (d >> 16)) & 0xFFFFU;
        value = (int)d;
        return true;
    }

    /// <summary>Parses 1..9 ASCII digits (no sign) exactly filling <paramref name="digits"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool TryParseSmallUnsigned(ReadOnlySpan<byte> digits, out int value)
    {
        value = 0;
        if ((uint)(digits.Length - 1) >= 9) return false;
        int v = 0;
        foreach (byte b in digits)
        {
            uint d = (uint)(b - '0');
            if (d > 9) return false;
            v = v * 10 + (int)d;
        }
        value = v;
        return true;
    }

    /// <summary>
    /// The <c>HH:MM:SS</c> part of a UTC time read as one word and checked in one step.
    /// </summary>
    /// <remarks>
    /// <code>
    ///   text   :  H   H   :   M   M   :   S   S
    ///   offset :  0   1   2   3   4   5   6   7
    ///   minus  : '0' '0' ':' '0' '0' ':' '0' '0'    colons become 0x00, digits 0x00..0x09
    /// </code>
    /// </remarks>
    public static bool TryParseHhMmSs(ReadOnlySpan<byte> source, int offset, out int hour, out int minute, out int second)
    {
        const ulong Pattern = 0x3030_3A30_303A_3030UL; // bytes 0..7: '0' '0' ':' '0' '0' ':' '0' '0'
        const ulong ColonBytes = 0x0000_FF00_00FF_0000UL;
        ulong d = ReadUInt64(source, offset) - Pattern;
        if (!AllDigits(d) || (d & ColonBytes) != 0)
        {
            hour = minute = second = 0;
            return false;
        }
        hour = (int)((d & 0xFF) * 10 + ((d >> 8) & 0xFF));
        minute = (int)(((d >> 24) & 0xFF) * 10 + ((d >> 32) & 0xFF));
        second = (int)(((d >> 48) & 0xFF) * 10 + (d >> 56));
        return true;
    }

    /// <summary>The two ASCII digits of <paramref name="value"/> (0..99), tens first (byte 0), computed without a table load.</summary>
    /// <remarks>value * 103 / 1024 is value / 10 for 0..99.</remarks>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static ushort TwoDigitsText(uint value)
    {
        uint tens = (value * 103) >> 10;
        return (ushort)(('0' + tens) | (('0' + value - tens * 10) << 8));
    }

    /// <summary>Writes two ASCII digits of <paramref name="value"/> (0..99) at <paramref name="offset"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void Write2Digits(Span<byte> destination, int offset, int value)
    {
        ushort pair = Unsafe.ReadUnaligned<ushort>(ref Unsafe.Add(ref MemoryMarshal.GetReference(TwoDigits), value * 2));
        Unsafe.WriteUnaligned(ref Unsafe.Add(ref MemoryMarshal.GetReference(destination), offset), pair);
    }

    /// <summary>Writes four ASCII digits of <paramref name="value"/> (0..9999).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void Write4Digits(Span<byte> destination, int offset, int value)
    {
        int hi = (int)((uint)value / 100);
        Write2Digits(destination, offset, hi);
        Write2Digits(destination, offset + 2, value - hi * 100);
    }

    /// <summary>Writes exactly <paramref name="count"/> digits of <paramref name="value"/>, zero-padded on the left.</summary>
    public static void WriteFixedDigits(Span<byte> destination, int offset, uint value, int count)
    {
        int i = offset + count;
        while (count >= 2)
        {
            uint q = value / 100;
            i -= 2;
            Write2Digits(destination, i, (int)(value - q * 100));
            value = q;
            count -= 2;
        }
        if (count == 1) destination[i - 1] = (byte)('0' + value % 10);
    }

    /// <summary>10^0 .. 10^19, for <see cref="CountDigits(ulong)"/>.</summary>
    private static ReadOnlySpan<ulong> PowersOf10 =>
    [
        1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000, 10_000_000_000,
        100_000_000_000, 1_000_000_000_000, 10_000_000_000_000, 100_000_000_000_000, 1_000_000_000_000_000,
        10_000_000_000_000_000, 100_000_000_000_000_000, 1_000_000_000_000_000_000, 10_000_000_000_000_000_000,
    ];

    /// <summary>
    /// Per bit length k (value in [2^k, 2^(k+1))): (d + 1) * 2^32 - 10^d when the power of ten 10^d lies in that
    /// range (d = digits of 2^k), else d * 2^32; (value + entry) >> 32 is then the digit count of a 32-bit value.
    /// </summary>
    private static ReadOnlySpan<ulong> DigitCountByBitLength =>
    [
        4294967296, 4294967296, 4294967296, 8589934582, 8589934592, 8589934592, 12884901788, 12884901888,
        12884901888, 17179868184, 17179869184, 17179869184, 17179869184, 21474826480, 21474836480, 21474836480,
        25769703776, 25769803776, 25769803776, 30063771072, 30064771072, 30064771072, 30064771072, 34349738368,
        34359738368, 34359738368, 38554705664, 38654705664, 38654705664, 41949672960, 42949672960, 42949672960,
    ];

    /// <summary>Number of decimal digits of <paramref name="value"/> (1 for 0).</summary>
    /// <remarks>
    /// PERF: one table load and an add instead of a division loop (the adjustment for the power of ten inside
    /// the bit-length class is folded into the entry). The count sits on the dependency chain of every number the
    /// writer formats (docs/benchmarks/toolkit-codec-notes.md, FixDecimal.FormatUnchecked).
    /// </remarks>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int CountDigits(uint value) =>
        (int)((value + Unsafe.Add(ref MemoryMarshal.GetReference(DigitCountByBitLength), BitOperations.Log2(value))) >> 32);

    /// <summary>Number of decimal digits of <paramref name="value"/> (1 for 0).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int CountDigits(ulong value)
    {
        if (value <= uint.MaxValue) return CountDigits((uint)value);
        return CountDigitsLarge(value);
    }

    /// <summary>Digit count of a value of 2^32 or more: log10 from the bit length, fixed up by one compare.</summary>
    private static int CountDigitsLarge(ulong value)
    {
        int log10 = ((BitOperations.Log2(value) + 1) * 1233) >> 12;
        return log10 + 1 - (value < Unsafe.Add(ref MemoryMarshal.GetReference(PowersOf10), log10) ? 1 : 0);
    }

    /// <summary>Stores one byte at <paramref name="offset"/> without a bounds check; the caller has checked the room.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void StoreUnchecked(Span<byte> destination, int offset, byte value) =>
        Unsafe.Add(ref MemoryMarshal.GetReference(destination), offset) = value;

    /// <summary>Stores the low <paramref name="count"/> (1..8) bytes of <paramref name="bytes"/> (byte 0 first) without a bounds check.</summary>
    /// <remarks>At most two stores; with a constant count (the usual case after inlining) the branches fold away.</remarks>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void StoreUnchecked(Span<byte> destination, int offset, ulong bytes, int count)
    {
        ref byte d = ref Unsafe.Add(ref MemoryMarshal.GetReference(destination), offset);
        if (!BitConverter.IsLittleEndian)
        {
            for (int i = 0; i < count; i++) Unsafe.Add(ref d, i) = (byte)(bytes >> (8 * i));
            return;
        }
        switch (count)
        {
            case 1:
                d = (byte)bytes;
                break;
            case 2:
                Unsafe.WriteUnaligned(ref d, (ushort)bytes);
                break;
            case 3:
                Unsafe.WriteUnaligned(ref d, (ushort)bytes);
                Unsafe.Add(ref d, 2) = (byte)(bytes >> 16);
                break;
            case 4:
                Unsafe.WriteUnaligned(ref d, (uint)bytes);
                break;
            case 5:
                Unsafe.WriteUnaligned(ref d, (uint)bytes);
                Unsafe.Add(ref d, 4) = (byte)(bytes >> 32);
                break;
            case 6:
                Unsafe.WriteUnaligned(ref d, (uint)bytes);
                Unsafe.WriteUnaligned(ref Unsafe.Add(ref d, 4), (ushort)(bytes >> 32));
                break;
            case 7:
                Unsafe.WriteUnaligned(ref d, (uint)bytes);
                Unsafe.WriteUnaligned(ref Unsafe.Add(ref d, 3), (uint)(bytes >> 24));
                break;
            default:
                Unsafe.WriteUnaligned(ref d, bytes);
                break;
        }
    }

    /// <summary>The bytes of <c>tag=</c> (byte 0 first) for a tag of 0..9999; <paramref name="length"/> is 2..5.</summary>
    /// <remarks>
    /// PERF: plain arithmetic, so with a constant tag (every call site in practice) the inlined writer stores an
    /// immediate: "35=" is one 3-byte store instead of a digit loop and a table lookup (FixWriterBenchmarks).
    /// </remarks>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static ulong TagPrefix(uint tag, out int length)
    {
        const ulong EqualsSign = '=';
        if (tag < 10)
        {
            length = 2;
            return ('0' + tag) | (EqualsSign << 8);
        }
        if (tag < 100)
        {
            uint tens = tag / 10;
            length = 3;
            return ('0' + tens) | ((ulong)('0' + tag - tens * 10) << 8) | (EqualsSign << 16);
        }
        if (tag < 1000)
        {
            uint hundreds = tag / 100;
            uint rest = tag - hundreds * 100;
            uint tens = rest / 10;
            length = 4;
            return ('0' + hundreds) | ((ulong)('0' + tens) << 8) | ((ulong)('0' + rest - tens * 10) << 16) | (EqualsSign << 24);
        }
        uint thousands = tag / 1000;
        uint below1000 = tag - thousands * 1000;
        uint h = below1000 / 100;
        uint r = below1000 - h * 100;
        uint t = r / 10;
        length = 5;
        return ('0' + thousands) | ((ulong)('0' + h) << 8) | ((ulong)('0' + t) << 16) | ((ulong)('0' + r - t * 10) << 24) | (EqualsSign << 32);
    }

    /// <summary>Copies <paramref name="source"/> to <paramref name="offset"/> without a bounds check; the caller has checked the room.</summary>
    /// <remarks>
    /// Up to 16 bytes are copied with two overlapping loads and stores of the largest fitting width (exactly the
    /// source bytes are read and exactly the destination bytes written); longer values use memmove.
    /// </remarks>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void CopyUnchecked(ReadOnlySpan<byte> source, Span<byte> destination, int offset)
    {
        ref byte s = ref MemoryMarshal.GetReference(source);
        ref byte d = ref Unsafe.Add(ref MemoryMarshal.GetReference(destination), offset);
        int length = source.Length;
        if (length >= 8)
        {
            if (length <= 16)
            {
                ulong head = Unsafe.ReadUnaligned<ulong>(ref s);
                ulong tail = Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref s, length - 8));
                Unsafe.WriteUnaligned(ref d, head);
                Unsafe.WriteUnaligned(ref Unsafe.Add(ref d, length - 8), tail);
                return;
            }
            Unsafe.CopyBlockUnaligned(ref d, ref s, (uint)length);
            return;
        }
        if (length >= 4)
        {
            uint head = Unsafe.ReadUnaligned<uint>(ref s);
            uint tail = Unsafe.ReadUnaligned<uint>(ref Unsafe.Add(ref s, length - 4));
            Unsafe.WriteUnaligned(ref d, head);
            Unsafe.WriteUnaligned(ref Unsafe.Add(ref d, length - 4), tail);
            return;
        }
        if (length != 0)
        {
            byte first = s;
            byte middle = Unsafe.Add(ref s, length >> 1);
            byte last = Unsafe.Add(ref s, length - 1);
            d = first;
            Unsafe.Add(ref d, length >> 1) = middle;
            Unsafe.Add(ref d, length - 1) = last;
        }
    }

    /// <summary>
    /// Writes the low <paramref name="count"/> decimal digits of <paramref name="value"/> (zero-padded) at
    /// <paramref name="offset"/> without a bounds check; returns <paramref name="value"/> / 10^<paramref name="count"/>.
    /// </summary>
    public static ulong WriteLowDigitsUnchecked(Span<byte> destination, int offset, ulong value, int count)
    {
        ref byte pairs = ref MemoryMarshal.GetReference(TwoDigits);
        ref byte end = ref Unsafe.Add(ref MemoryMarshal.GetReference(destination), offset + count);
        if (value <= uint.MaxValue)
        {
            // 32-bit divisions while the value fits (fractions of prices and timestamps always do).
            uint small = (uint)value;
            for (; count >= 2; count -= 2)
            {
                uint q = small / 100;
                end = ref Unsafe.Subtract(ref end, 2);
                Unsafe.WriteUnaligned(ref end, Unsafe.ReadUnaligned<ushort>(ref Unsafe.Add(ref pairs, (nint)(small - q * 100) * 2)));
                small = q;
            }
            if (count == 1)
            {
                uint q = small / 10;
                Unsafe.Subtract(ref end, 1) = (byte)('0' + (small - q * 10));
                small = q;
            }
            return small;
        }
        for (; count >= 2; count -= 2)
        {
            ulong q = value / 100;
            end = ref Unsafe.Subtract(ref end, 2);
            Unsafe.WriteUnaligned(ref end, Unsafe.ReadUnaligned<ushort>(ref Unsafe.Add(ref pairs, (nint)(value - q * 100) * 2)));
            value = q;
        }
        if (count == 1)
        {
            ulong q = value / 10;
            Unsafe.Subtract(ref end, 1) = (byte)('0' + (value - q * 10));
            value = q;
        }
        return value;
    }

    /// <summary>Writes the decimal digits of <paramref name="value"/> at <paramref name="offset"/> without a bounds check; returns their count (1..20).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int WriteDigitsUnchecked(Span<byte> destination, int offset, ulong value)
    {
        int count = CountDigits(value);
        WriteDigitsUnchecked(destination, offset, value, count);
        return count;
    }

    /// <summary>Writes the <paramref name="count"/> decimal digits of <paramref name="value"/> at <paramref name="offset"/> without a bounds check.</summary>
    /// <remarks>Two digits per step from the right, each pair one 16-bit copy from the "00".."99" table; 32-bit division while the value fits.</remarks>
    public static void WriteDigitsUnchecked(Span<byte> destination, int offset, ulong value, int count)
    {
        ref byte pairs = ref MemoryMarshal.GetReference(TwoDigits);
        ref byte end = ref Unsafe.Add(ref MemoryMarshal.GetReference(destination), offset + count);
        while (value > uint.MaxValue)
        {
            ulong q = value / 100;
            end = ref Unsafe.Subtract(ref end, 2);
            Unsafe.WriteUnaligned(ref end, Unsafe.ReadUnaligned<ushort>(ref Unsafe.Add(ref pairs, (nint)(value - q * 100) * 2)));
            value = q;
        }
        uint small = (uint)value;
        while (small >= 100)
        {
            uint q = small / 100;
            end = ref Unsafe.Subtract(ref end, 2);
            Unsafe.WriteUnaligned(ref end, Unsafe.ReadUnaligned<ushort>(ref Unsafe.Add(ref pairs, (nint)(small - q * 100) * 2)));
            small = q;
        }
        if (small >= 10)
        {
            Unsafe.WriteUnaligned(ref Unsafe.Subtract(ref end, 2), Unsafe.ReadUnaligned<ushort>(ref Unsafe.Add(ref pairs, (nint)small * 2)));
        }
        else
        {
            Unsafe.Subtract(ref end, 1) = (byte)('0' + small);
        }
    }

    /// <summary>
    /// 32 zero bytes then 32 0xFF bytes: a load at offset <c>k</c> keeps the last <c>k</c> bytes of a 32-byte
    /// vector (at <c>16 + k</c>: the last <c>k</c> of a 16-byte one).
    /// </summary>
    private static ReadOnlySpan<byte> TailMask =>
    [
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
        0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    ];

    /// <summary>Copies <paramref name="source"/> to the start of <paramref name="destination"/> (at least as long; the two
    /// do not overlap) and returns the sum of its bytes modulo 256: <see cref="Sum"/> in the same pass as the copy.</summary>
    /// <remarks>Each 32-byte block is loaded once, stored and added (byte lanes, mod 256); the tail is the last 32 bytes
    /// stored again (the same bytes) and added under <see cref="TailMask"/>, as in <see cref="Sum"/>.</remarks>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public static byte CopyAndSum(ReadOnlySpan<byte> source, Span<byte> destination)
    {
        int length = source.Length;
        if (!Vector256.IsHardwareAccelerated || length < 32 || destination.Length < length)
        {
            source.CopyTo(destination);
            return Sum(source);
        }
        ref byte from = ref MemoryMarshal.GetReference(source);
        ref byte to = ref MemoryMarshal.GetReference(destination);
        Vector256<byte> acc = Vector256<byte>.Zero;
        int i = 0;
        for (; i <= length - 32; i += 32)
        {
            Vector256<byte> block = Vector256.LoadUnsafe(ref from, (nuint)i);
            block.StoreUnsafe(ref to, (nuint)i);
            acc += block;
        }
        if (i < length)
        {
            Vector256<byte> last = Vector256.LoadUnsafe(ref from, (nuint)(length - 32));
            last.StoreUnsafe(ref to, (nuint)(length - 32));
            acc += last & Vector256.LoadUnsafe(ref MemoryMarshal.GetReference(TailMask), (nuint)(length - i));
        }
        return Vector256.Sum(acc);
    }

    /// <summary>Sum of all bytes modulo 256, as used by the FIX CheckSum.</summary>
    /// <remarks>
    /// Only the sum modulo 256 is needed, so the bytes are added lane by lane with wrap-around (one
    /// <c>vpaddb</c> per 32 bytes, no widening) and the 32 lanes are summed modulo 256 once at the end:
    /// <code>
    ///   data  : [ 32 bytes ][ 32 bytes ] ... [ r bytes ]
    ///   acc  += block            (byte lanes, mod 256)
    ///   tail  : the last 32 bytes AND TailMask[r..r+32]  → the 32 - r bytes already added become 0
    /// </code>
    /// PERF: no widening adds and the tail is one masked overlapping load instead of up to 31 scalar adds
    /// (FixReadBenchmarks.Frame, with the framer's fast header path: docs/benchmarks/toolkit-codec-notes.md).
    /// </remarks>
    public static byte Sum(ReadOnlySpan<byte> data)
    {
        ref byte start = ref MemoryMarshal.GetReference(data);
        ref byte mask = ref MemoryMarshal.GetReference(TailMask);
        int length = data.Length;
        if (Vector256.IsHardwareAccelerated && length >= 32)
        {
            Vector256<byte> acc = Vector256<byte>.Zero;
            int i = 0;
            for (; i <= length - 32; i += 32)
            {
                acc += Vector256.LoadUnsafe(ref start, (nuint)i);
            }
            if (i < length)
            {
                acc += Vector256.LoadUnsafe(ref start, (nuint)(length - 32)) & Vector256.LoadUnsafe(ref mask, (nuint)(length - i));
            }
            return Vector256.Sum(acc);
        }
        if (Vector128.IsHardwareAccelerated && length >= 16)
        {
            Vector128<byte> acc = Vector128<byte>.Zero;
            int i = 0;
            for (; i <= length - 16; i += 16)
            {
                acc += Vector128.LoadUnsafe(ref start, (nuint)i);
            }
            if (i < length)
            {
                acc += Vector128.LoadUnsafe(ref start, (nuint)(length - 16)) & Vector128.LoadUnsafe(ref mask, (nuint)(16 + length - i));
            }
            return Vector128.Sum(acc);
        }
        uint sum = 0;
        for (int i = 0; i < length; i++)
        {
            sum += Unsafe.Add(ref start, i);
        }
        return (byte)sum;
    }
}

/// <summary>
/// Fixed-layout overlay of the <c>YYYYMMDD-HH:MM:SS</c> prefix of a UTCTimestamp, read with one
/// unaligned copy so each part is a field at a known offset.
/// </summary>
/// <remarks>
/// <code>
///   Y Y Y Y M M D D - H H : M M : S S . f f f ...
///   0       4   6   8 9   11  14  15  17 18
///   |Date (8 bytes) |D|Time (8 bytes) |
/// </code>
/// </remarks>
[StructLayout(LayoutKind.Explicit, Size = Size)]
internal struct UtcTimestampOverlay
{
    public const int Size = 17;

    [FieldOffset(0)] public ulong Date;
    [FieldOffset(8)] public byte Dash;
    [FieldOffset(9)] public ulong Time;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static UtcTimestampOverlay Read(ReadOnlySpan<byte> source) =>
        Unsafe.ReadUnaligned<UtcTimestampOverlay>(ref MemoryMarshal.GetReference(source));
}
