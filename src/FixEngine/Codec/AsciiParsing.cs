using System;
using System.Buffers.Binary;
using System.Numerics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;
using System.Runtime.Intrinsics.X86;

namespace FixEngine.Codec;

/// <summary>
/// The one place in the codec that uses <see cref="Unsafe"/>/<see cref="MemoryMarshal"/>: SWAR digit
/// parsing, the UTCTimestamp overlay, the vectorised checksum and two-digit formatting.
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

    /// <summary>Parses <paramref name="digits"/> (1..8) ASCII digits at <paramref name="offset"/> with one word read; needs 8 readable bytes.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool TryParseDigitsInWord(ReadOnlySpan<byte> source, int offset, int digits, out uint value)
    {
        ulong d = (ReadUInt64(source, offset) - Zeros8) << (8 * (8 - digits));
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

    /// <summary>
    /// Sets bit i of <paramref name="sohBits"/> where byte i is SOH and of <paramref name="equalsBits"/> where it is
    /// '=' (64 bytes per ulong, bit 0 = lowest offset).
    /// </summary>
    /// <remarks>
    /// <code>
    ///   bytes  : 3 5 = D | 3 4 = 2 | ...
    ///   soh    : 0 0 0 0 1 0 0 0 0 1       → field ends, found later with tzcnt
    ///   equals : 0 0 1 0 0 0 0 1 0 0
    /// </code>
    /// PERF: one vector compare + movemask per 16/32 bytes replaces a dependent per-field search, so the field loop
    /// only pops bits (FixReadBenchmarks.FrameAndIndex).
    /// </remarks>
    public static void BuildDelimiterMasks(ReadOnlySpan<byte> source, Span<ulong> sohBits, Span<ulong> equalsBits)
    {
        ref byte start = ref MemoryMarshal.GetReference(source);
        int length = source.Length;
        int word = 0;
        int i = 0;
        for (; i <= length - 64; i += 64, word++)
        {
            Block64(ref start, i, out sohBits[word], out equalsBits[word]);
        }
        int rest = length - i;
        if (rest == 0) return;
        if (length >= 64)
        {
            // PERF: re-read the last 64 bytes (overlapping) with vectors and shift out what was already covered,
            // instead of a scalar loop over up to 63 bytes.
            Block64(ref start, length - 64, out ulong s, out ulong e);
            sohBits[word] = s >> (64 - rest);
            equalsBits[word] = e >> (64 - rest);
            return;
        }
        ulong sohWord = 0, equalsWord = 0;
        int k = 0;
        if (Vector128.IsHardwareAccelerated && length >= 16)
        {
            Vector128<byte> soh = Vector128.Create(Soh), eq = Vector128.Create((byte)'=');
            for (; k <= length - 16; k += 16)
            {
                Vector128<byte> v = Vector128.LoadUnsafe(ref start, (nuint)k);
                sohWord |= (ulong)Vector128.Equals(v, soh).ExtractMostSignificantBits() << k;
                equalsWord |= (ulong)Vector128.Equals(v, eq).ExtractMostSignificantBits() << k;
            }
            if (k < length)
            {
                int last = length - 16;
                Vector128<byte> v = Vector128.LoadUnsafe(ref start, (nuint)last);
                sohWord |= (ulong)Vector128.Equals(v, soh).ExtractMostSignificantBits() << last;
                equalsWord |= (ulong)Vector128.Equals(v, eq).ExtractMostSignificantBits() << last;
            }
        }
        else
        {
            for (; k < length; k++)
            {
                byte c = Unsafe.Add(ref start, k);
                sohWord |= (ulong)(c == Soh ? 1 : 0) << k;
                equalsWord |= (ulong)(c == (byte)'=' ? 1 : 0) << k;
            }
        }
        sohBits[0] = sohWord;
        equalsBits[0] = equalsWord;
    }

    /// <summary>SOH and '=' masks of the 64 bytes at <paramref name="offset"/> (bit 0 = first byte).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void Block64(ref byte start, int offset, out ulong sohMask, out ulong equalsMask)
    {
        if (Vector256.IsHardwareAccelerated)
        {
            Vector256<byte> soh = Vector256.Create(Soh), eq = Vector256.Create((byte)'=');
            Vector256<byte> a = Vector256.LoadUnsafe(ref start, (nuint)offset);
            Vector256<byte> b = Vector256.LoadUnsafe(ref start, (nuint)offset + 32);
            sohMask = Vector256.Equals(a, soh).ExtractMostSignificantBits() | ((ulong)Vector256.Equals(b, soh).ExtractMostSignificantBits() << 32);
            equalsMask = Vector256.Equals(a, eq).ExtractMostSignificantBits() | ((ulong)Vector256.Equals(b, eq).ExtractMostSignificantBits() << 32);
            return;
        }
        if (Vector128.IsHardwareAccelerated)
        {
            Vector128<byte> soh = Vector128.Create(Soh), eq = Vector128.Create((byte)'=');
            ulong s = 0, e = 0;
            for (int k = 0; k < 4; k++)
            {
                Vector128<byte> v = Vector128.LoadUnsafe(ref start, (nuint)(offset + k * 16));
                s |= (ulong)Vector128.Equals(v, soh).ExtractMostSignificantBits() << (k * 16);
                e |= (ulong)Vector128.Equals(v, eq).ExtractMostSignificantBits() << (k * 16);
            }
            sohMask = s;
            equalsMask = e;
            return;
        }
        ulong scalarSoh = 0, scalarEquals = 0;
        for (int k = 0; k < 64; k++)
        {
            byte c = Unsafe.Add(ref start, offset + k);
            scalarSoh |= (ulong)(c == Soh ? 1 : 0) << k;
            scalarEquals |= (ulong)(c == (byte)'=' ? 1 : 0) << k;
        }
        sohMask = scalarSoh;
        equalsMask = scalarEquals;
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

    /// <summary>Sum of all bytes modulo 256, as used by the FIX CheckSum.</summary>
    /// <remarks>
    /// PERF: <c>psadbw</c> against zero sums 8 bytes into one 64-bit lane per instruction, so a 300-byte
    /// message takes ~20 vector ops instead of 300 scalar adds (FixReadBenchmarks.Frame).
    /// </remarks>
    public static byte Sum(ReadOnlySpan<byte> data)
    {
        ref byte start = ref MemoryMarshal.GetReference(data);
        int length = data.Length;
        int i = 0;
        uint sum = 0;
        if (Sse2.IsSupported && length >= 16)
        {
            Vector128<ulong> acc = Vector128<ulong>.Zero;
            if (Avx2.IsSupported && length >= 32)
            {
                Vector256<ulong> acc256 = Vector256<ulong>.Zero;
                for (; i <= length - 32; i += 32)
                {
                    Vector256<byte> v = Vector256.LoadUnsafe(ref start, (nuint)i);
                    acc256 = Avx2.Add(acc256, Avx2.SumAbsoluteDifferences(v, Vector256<byte>.Zero).AsUInt64());
                }
                acc = Sse2.Add(acc256.GetLower(), acc256.GetUpper());
            }
            for (; i <= length - 16; i += 16)
            {
                Vector128<byte> v = Vector128.LoadUnsafe(ref start, (nuint)i);
                acc = Sse2.Add(acc, Sse2.SumAbsoluteDifferences(v, Vector128<byte>.Zero).AsUInt64());
            }
            sum = (uint)(acc.GetElement(0) + acc.GetElement(1));
        }
        for (; i < length; i++)
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
