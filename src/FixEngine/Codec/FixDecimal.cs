using System;
using System.Text;

namespace FixEngine.Codec;

/// <summary>An exact FIX decimal (Price, Qty, Amt, float): a 64-bit mantissa and a decimal scale 0..18.</summary>
/// <remarks>
/// Value = <see cref="Mantissa"/> / 10^<see cref="Scale"/>. Immutable, thread-safe, allocation-free except
/// <see cref="ToString"/>. Equality is numeric (1.5 equals 1.50); the scale is kept so formatting round-trips
/// the trailing zeros that were received.
/// </remarks>
public readonly struct FixDecimal : IEquatable<FixDecimal>
{
    /// <summary>Largest supported scale (digits after the decimal point).</summary>
    public const int MaxScale = 18;

    private readonly long _mantissa;
    private readonly byte _scale;

    /// <summary>Creates <paramref name="mantissa"/> / 10^<paramref name="scale"/>.</summary>
    /// <param name="mantissa">Unscaled value.</param>
    /// <param name="scale">Digits after the decimal point, 0..18.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="scale"/> is outside 0..18.</exception>
    /// <remarks>
    /// PERF: force-inlined, so a constructor call in an encode method that has spent its JIT inlining budget is still
    /// inlined (a typed ExecutionReport encode left three of them as calls: docs/benchmarks/typed-codec.md).
    /// </remarks>
    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveInlining)]
    public FixDecimal(long mantissa, int scale)
    {
        if ((uint)scale > MaxScale) Internal.ThrowHelper.ThrowArgumentOutOfRange(nameof(scale));
        _mantissa = mantissa;
        _scale = (byte)scale;
    }

    /// <summary>Unscaled value.</summary>
    public long Mantissa => _mantissa;

    /// <summary>Digits after the decimal point, 0..18.</summary>
    public int Scale => _scale;

    /// <summary>Zero with scale 0.</summary>
    public static FixDecimal Zero => default;

    /// <summary>Exact conversion to <see cref="decimal"/> (every FixDecimal is representable).</summary>
    /// <returns>The same numeric value with the same scale.</returns>
    public decimal ToDecimal()
    {
        bool negative = _mantissa < 0;
        ulong magnitude = negative ? unchecked((ulong)(-_mantissa)) : (ulong)_mantissa;
        return new decimal((int)(uint)magnitude, (int)(uint)(magnitude >> 32), 0, negative, _scale);
    }

    /// <summary>Nearest <see cref="double"/>; correctly rounded when |mantissa| is below 2^53.</summary>
    /// <returns>The value as a double.</returns>
    public double ToDouble()
    {
        const long Exact = 1L << 53;
        if (_mantissa > -Exact && _mantissa < Exact) return _mantissa / s_pow10Double[_scale];
        return (double)ToDecimal();
    }

    /// <summary>Converts a <see cref="decimal"/> exactly, dropping trailing zeros if needed to fit.</summary>
    /// <param name="value">Value to convert.</param>
    /// <param name="result">The converted value.</param>
    /// <returns>False when the value needs more than 18 decimals or a mantissa beyond 64 bits.</returns>
    public static bool TryFromDecimal(decimal value, out FixDecimal result)
    {
        Span<int> bits = stackalloc int[4];
        decimal.GetBits(value, bits);
        int scale = (bits[3] >> 16) & 0xFF;
        bool negative = bits[3] < 0;
        UInt128 magnitude = new((ulong)(uint)bits[2], ((ulong)(uint)bits[1] << 32) | (uint)bits[0]);
        UInt128 limit = negative ? (UInt128)(1UL << 63) : (UInt128)long.MaxValue;
        while ((scale > MaxScale || magnitude > limit) && scale > 0 && magnitude % 10 == 0)
        {
            magnitude /= 10;
            scale--;
        }
        if (scale > MaxScale || magnitude > limit)
        {
            result = default;
            return false;
        }
        ulong m = (ulong)magnitude;
        result = new FixDecimal(negative ? unchecked((long)(0 - m)) : (long)m, scale);
        return true;
    }

    /// <summary>Parses a FIX float: optional '-', digits, optional '.' and digits. '+' and exponents are rejected.</summary>
    /// <param name="text">The field value bytes.</param>
    /// <param name="value">The parsed value.</param>
    /// <returns>False when the text is not a FIX float or does not fit (more than 18 decimals or beyond 64 bits).</returns>
    public static bool TryParse(ReadOnlySpan<byte> text, out FixDecimal value)
    {
        value = default;
        int i = 0;
        bool negative = false;
        if (text.Length != 0 && text[0] == (byte)'-')
        {
            negative = true;
            i = 1;
        }
        ulong limit = negative ? 1UL << 63 : long.MaxValue;
        ulong m = 0;
        int scale = -1;
        int digits = 0;
        for (; i < text.Length; i++)
        {
            byte b = text[i];
            if (b == (byte)'.')
            {
                if (scale >= 0) return false;
                scale = 0;
                continue;
            }
            uint d = (uint)(b - '0');
            if (d > 9) return false;
            if (m >= 100_000_000_000_000_000UL && (m > (limit - d) / 10)) return false;
            m = m * 10 + d;
            digits++;
            if (scale >= 0) scale++;
        }
        if (digits == 0 || scale > MaxScale) return false;
        if (scale < 0) scale = 0;
        value = new FixDecimal(negative ? unchecked((long)(0 - m)) : (long)m, scale);
        return true;
    }

    /// <summary>Formats as a FIX float with exactly <see cref="Scale"/> decimals (no exponent, no '+').</summary>
    /// <param name="destination">Where to write the ASCII text.</param>
    /// <param name="bytesWritten">Bytes written on success.</param>
    /// <returns>False when <paramref name="destination"/> is too small.</returns>
    public bool TryFormat(Span<byte> destination, out int bytesWritten)
    {
        if (destination.Length < MaxFormattedLength && FormattedLength() > destination.Length)
        {
            bytesWritten = 0;
            return false;
        }
        bytesWritten = FormatUnchecked(destination, 0);
        return true;
    }

    /// <summary>Longest text <see cref="TryFormat"/> writes: '-', one integer digit, '.' and 18 decimals, or '-' and 19 digits plus '.'.</summary>
    internal const int MaxFormattedLength = 21;

    /// <summary>Length of the formatted text.</summary>
    private int FormattedLength()
    {
        ulong magnitude = _mantissa < 0 ? unchecked((ulong)(-_mantissa)) : (ulong)_mantissa;
        int integerDigits = Math.Max(AsciiParsing.CountDigits(magnitude) - _scale, 1);
        return (_mantissa < 0 ? 1 : 0) + integerDigits + (_scale > 0 ? 1 + _scale : 0);
    }

    /// <summary>Writes the text at <paramref name="offset"/> without bounds checks; the caller guarantees <see cref="MaxFormattedLength"/> bytes of room.</summary>
    /// <returns>The number of bytes written.</returns>
    /// <remarks>
    /// <code>
    ///   mantissa -10125, scale 2:   - 1 0 1 . 2 5
    ///                               |       | └─┴ fraction: the low 2 digits, two at a time from the right
    ///                               |       └ '.'
    ///                               └ integer part: the rest (at least one digit)
    /// </code>
    /// PERF: digit pairs from a table instead of one division per digit, and the digit count from the bit length
    /// instead of a division loop (FixWriterBenchmarks writes three prices per ExecutionReport;
    /// docs/benchmarks/toolkit-codec-notes.md).
    /// </remarks>
    internal int FormatUnchecked(Span<byte> destination, int offset)
    {
        if ((ulong)_mantissa <= uint.MaxValue && _scale <= 9) return FormatSmallUnchecked((uint)_mantissa, _scale, destination, offset);
        bool negative = _mantissa < 0;
        ulong magnitude = negative ? unchecked((ulong)(-_mantissa)) : (ulong)_mantissa;
        int scale = _scale;
        int integerDigits = Math.Max(AsciiParsing.CountDigits(magnitude) - scale, 1);
        int integerStart = offset + (negative ? 1 : 0);
        int integerEnd = integerStart + integerDigits;
        if (scale > 0)
        {
            magnitude = AsciiParsing.WriteLowDigitsUnchecked(destination, integerEnd + 1, magnitude, scale);
            AsciiParsing.StoreUnchecked(destination, integerEnd, (byte)'.');
        }
        AsciiParsing.WriteDigitsUnchecked(destination, integerStart, magnitude, integerDigits);
        if (negative) AsciiParsing.StoreUnchecked(destination, offset, (byte)'-');
        return integerEnd - offset + (scale > 0 ? 1 + scale : 0);
    }

    /// <summary><see cref="FormatUnchecked"/> for a non-negative mantissa below 2^32 and a scale up to 9 (prices, quantities): 32-bit arithmetic only.</summary>
    private static int FormatSmallUnchecked(uint mantissa, int scale, Span<byte> destination, int offset)
    {
        int integerDigits = Math.Max(AsciiParsing.CountDigits(mantissa) - scale, 1);
        int integerEnd = offset + integerDigits;
        if (scale > 0)
        {
            mantissa = (uint)AsciiParsing.WriteLowDigitsUnchecked(destination, integerEnd + 1, mantissa, scale);
            AsciiParsing.StoreUnchecked(destination, integerEnd, (byte)'.');
        }
        AsciiParsing.WriteDigitsUnchecked(destination, offset, mantissa, integerDigits);
        return integerDigits + (scale > 0 ? 1 + scale : 0);
    }

    /// <summary>FIX text of the value (allocates).</summary>
    /// <returns>For example <c>-12.500</c>.</returns>
    public override string ToString()
    {
        Span<byte> buffer = stackalloc byte[24];
        TryFormat(buffer, out int written);
        return Encoding.ASCII.GetString(buffer.Slice(0, written));
    }

    /// <summary>Numeric equality (1.5 equals 1.50).</summary>
    /// <param name="other">Value to compare with.</param>
    /// <returns>True when both denote the same number.</returns>
    public bool Equals(FixDecimal other) =>
        (_scale == other._scale && _mantissa == other._mantissa) || ToDecimal() == other.ToDecimal();

    /// <inheritdoc/>
    public override bool Equals(object? obj) => obj is FixDecimal other && Equals(other);

    /// <inheritdoc/>
    public override int GetHashCode() => ToDecimal().GetHashCode();

    /// <summary>Numeric equality.</summary>
    /// <param name="left">Left operand.</param>
    /// <param name="right">Right operand.</param>
    /// <returns>True when equal.</returns>
    public static bool operator ==(FixDecimal left, FixDecimal right) => left.Equals(right);

    /// <summary>Numeric inequality.</summary>
    /// <param name="left">Left operand.</param>
    /// <param name="right">Right operand.</param>
    /// <returns>True when different.</returns>
    public static bool operator !=(FixDecimal left, FixDecimal right) => !left.Equals(right);

    /// <summary>Exact conversion to <see cref="decimal"/>.</summary>
    /// <param name="value">Value to convert.</param>
    public static explicit operator decimal(FixDecimal value) => value.ToDecimal();

    private static readonly double[] s_pow10Double =
    [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18,
    ];
}
