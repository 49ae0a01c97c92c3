using System;
using System.Buffers;
using System.Runtime.CompilerServices;

namespace FixEngine.Codec;

/// <summary>Encodes one FIX message straight into a caller's buffer: header, fields, BodyLength and CheckSum.</summary>
/// <remarks>
/// Stack-only and single-threaded; allocates nothing and never throws on the hot path. When a field does not fit,
/// the writer becomes <see cref="Failed"/>, ignores every later write and <see cref="TryFinish"/> returns false, so
/// callers may write all fields and check once. Usage:
/// <code>
///   var w = new FixWriter(buffer);
///   w.Begin(BeginStrings.Fix44, MsgTypes.Heartbeat);
///   w.Write(FixTags.SenderCompID, "S"u8); ...
///   if (w.TryFinish(out int length)) send(buffer[..length]);
/// </code>
/// BodyLength is written into space reserved by <see cref="Begin"/> for as many digits as the buffer could need;
/// <see cref="TryFinish"/> moves the body left when fewer digits are needed, so the message always starts at offset 0:
/// <code>
///   8=FIX.4.4|9=____|35=D|...body...|          before TryFinish (4 digits reserved)
///   8=FIX.4.4|9=123|35=D|...body...|10=045|    after (body moved 1 byte left)
/// </code>
/// </remarks>
public ref struct FixWriter
{
    private const byte Soh = AsciiParsing.Soh;

    private readonly Span<byte> _buffer;
    private readonly IBufferWriter<byte>? _output;
    private int _position;
    private int _bodyLengthOffset;
    private int _reservedDigits;
    private bool _failed;

    /// <summary>Creates a writer over <paramref name="destination"/>.</summary>
    /// <param name="destination">Where the message is written, starting at offset 0.</param>
    public FixWriter(Span<byte> destination)
    {
        _buffer = destination;
        _output = null;
        _bodyLengthOffset = -1;
    }

    /// <summary>Creates a writer over <c>output.GetSpan(sizeHint)</c>; a successful <see cref="TryFinish"/> calls <c>output.Advance(length)</c>.</summary>
    /// <param name="output">Destination buffer writer.</param>
    /// <param name="sizeHint">Bytes requested from <paramref name="output"/>; the message must fit in the span it returns.</param>
    public FixWriter(IBufferWriter<byte> output, int sizeHint)
    {
        _buffer = output.GetSpan(sizeHint);
        _output = output;
        _bodyLengthOffset = -1;
    }

    /// <summary>Bytes written so far.</summary>
    public readonly int Written => _position;

    /// <summary>The bytes written so far.</summary>
    public readonly ReadOnlySpan<byte> WrittenSpan => _buffer.Slice(0, _position);

    /// <summary>True once a write did not fit; every later write is ignored.</summary>
    public readonly bool Failed => _failed;

    /// <summary>Writes <c>8=beginString|9=</c>, reserves the BodyLength digits, then <c>35=msgType|</c>.</summary>
    /// <param name="beginString">BeginString value, e.g. <see cref="BeginStrings.Fix44"/>.</param>
    /// <param name="msgType">MsgType value, e.g. <see cref="MsgTypes.NewOrderSingle"/>.</param>
    /// <returns>False when the buffer is too small.</returns>
    public bool Begin(ReadOnlySpan<byte> beginString, ReadOnlySpan<byte> msgType)
    {
        _position = 0;
        _failed = false;
        int reserved = FixDecimal.CountDigits((ulong)Math.Max(_buffer.Length, 1));
        int needed = 2 + beginString.Length + 1 + 2 + reserved + 1 + 3 + msgType.Length + 1;
        if (needed > _buffer.Length) return Fail();
        Span<byte> b = _buffer;
        b[0] = (byte)'8';
        b[1] = (byte)'=';
        beginString.CopyTo(b.Slice(2));
        int p = 2 + beginString.Length;
        b[p] = Soh;
        b[p + 1] = (byte)'9';
        b[p + 2] = (byte)'=';
        _bodyLengthOffset = p + 3;
        _reservedDigits = reserved;
        p = _bodyLengthOffset + reserved;
        b[p] = Soh;
        b[p + 1] = (byte)'3';
        b[p + 2] = (byte)'5';
        b[p + 3] = (byte)'=';
        msgType.CopyTo(b.Slice(p + 4));
        p += 4 + msgType.Length;
        b[p] = Soh;
        _position = p + 1;
        return true;
    }

    /// <summary>Writes <c>tag=value|</c>.</summary>
    /// <param name="tag">Positive tag.</param>
    /// <param name="value">Value bytes (must not contain SOH unless this is a data field).</param>
    /// <returns>False when it did not fit.</returns>
    public bool Write(int tag, ReadOnlySpan<byte> value)
    {
        int p = _position;
        int tagLength = TagLength(tag);
        if (_failed || (uint)(p + tagLength + 2 + value.Length) > (uint)_buffer.Length) return Fail();
        WriteTag(p, tag, tagLength);
        p += tagLength + 1;
        value.CopyTo(_buffer.Slice(p));
        p += value.Length;
        _buffer[p] = Soh;
        _position = p + 1;
        return true;
    }

    /// <summary>Writes <c>tag=value|</c> for an ASCII string (each char is written as one byte).</summary>
    /// <param name="tag">Positive tag.</param>
    /// <param name="value">ASCII text.</param>
    /// <returns>False when it did not fit.</returns>
    public bool Write(int tag, string value)
    {
        int p = _position;
        int tagLength = TagLength(tag);
        if (_failed || (uint)(p + tagLength + 2 + value.Length) > (uint)_buffer.Length) return Fail();
        WriteTag(p, tag, tagLength);
        p += tagLength + 1;
        Span<byte> destination = _buffer.Slice(p, value.Length);
        for (int i = 0; i < value.Length; i++) destination[i] = (byte)value[i];
        p += value.Length;
        _buffer[p] = Soh;
        _position = p + 1;
        return true;
    }

    /// <summary>Writes an int field.</summary>
    /// <param name="tag">Positive tag.</param>
    /// <param name="value">Value.</param>
    /// <returns>False when it did not fit.</returns>
    public bool Write(int tag, int value) => Write(tag, (long)value);

    /// <summary>Writes a 64-bit int field.</summary>
    /// <param name="tag">Positive tag.</param>
    /// <param name="value">Value.</param>
    /// <returns>False when it did not fit.</returns>
    public bool Write(int tag, long value)
    {
        bool negative = value < 0;
        ulong magnitude = negative ? unchecked((ulong)(-value)) : (ulong)value;
        int digits = FixDecimal.CountDigits(magnitude);
        int width = digits + (negative ? 1 : 0);
        int p = _position;
        int tagLength = TagLength(tag);
        if (_failed || (uint)(p + tagLength + 2 + width) > (uint)_buffer.Length) return Fail();
        WriteTag(p, tag, tagLength);
        p += tagLength + 1;
        if (negative) _buffer[p] = (byte)'-';
        int end = p + width;
        int i = end;
        while (magnitude >= 100)
        {
            ulong q = magnitude / 100;
            i -= 2;
            AsciiParsing.Write2Digits(_buffer, i, (int)(magnitude - q * 100));
            magnitude = q;
        }
        if (magnitude >= 10)
        {
            i -= 2;
            AsciiParsing.Write2Digits(_buffer, i, (int)magnitude);
        }
        else
        {
            _buffer[i - 1] = (byte)('0' + (int)magnitude);
        }
        _buffer[end] = Soh;
        _position = end + 1;
        return true;
    }

    /// <summary>Writes a decimal field with exactly <see cref="FixDecimal.Scale"/> decimals.</summary>
    /// <param name="tag">Positive tag.</param>
    /// <param name="value">Value.</param>
    /// <returns>False when it did not fit.</returns>
    public bool Write(int tag, FixDecimal value)
    {
        int p = _position;
        int tagLength = TagLength(tag);
        if (_failed || p + tagLength + 1 > _buffer.Length) return Fail();
        Span<byte> valueSpan = _buffer.Slice(p + tagLength + 1);
        if (!value.TryFormat(valueSpan, out int written) || written >= valueSpan.Length) return Fail();
        WriteTag(p, tag, tagLength);
        p += tagLength + 1 + written;
        _buffer[p] = Soh;
        _position = p + 1;
        return true;
    }

    /// <summary>Writes a char field (one byte).</summary>
    /// <param name="tag">Positive tag.</param>
    /// <param name="value">ASCII character.</param>
    /// <returns>False when it did not fit.</returns>
    public bool Write(int tag, char value)
    {
        int p = _position;
        int tagLength = TagLength(tag);
        if (_failed || (uint)(p + tagLength + 3) > (uint)_buffer.Length) return Fail();
        WriteTag(p, tag, tagLength);
        p += tagLength + 1;
        _buffer[p] = (byte)value;
        _buffer[p + 1] = Soh;
        _position = p + 2;
        return true;
    }

    /// <summary>Writes a Boolean field as Y or N.</summary>
    /// <param name="tag">Positive tag.</param>
    /// <param name="value">Value.</param>
    /// <returns>False when it did not fit.</returns>
    public bool Write(int tag, bool value) => Write(tag, value ? 'Y' : 'N');

    /// <summary>Writes a UTCTimestamp field from nanoseconds since the Unix epoch.</summary>
    /// <param name="tag">Positive tag.</param>
    /// <param name="epochNs">Nanoseconds since 1970-01-01T00:00:00Z.</param>
    /// <param name="precision">Fraction digits (truncating).</param>
    /// <returns>False when it did not fit.</returns>
    public bool WriteTimestamp(int tag, long epochNs, TimestampPrecision precision)
    {
        if (!TryReserveValue(tag, FixValueFormatter.UtcTimestampLength(precision), out Span<byte> value)) return false;
        FixValueFormatter.TryFormatUtcTimestamp(epochNs, precision, value, out _);
        return true;
    }

    /// <summary>Writes a UTCTimestamp using a per-second cache of the <c>YYYYMMDD-HH:MM:SS</c> prefix (e.g. SendingTime).</summary>
    /// <param name="tag">Positive tag.</param>
    /// <param name="epochNs">Nanoseconds since the Unix epoch.</param>
    /// <param name="precision">Fraction digits.</param>
    /// <param name="cache">Cache owned by the writing thread.</param>
    /// <returns>False when it did not fit.</returns>
    public bool WriteTimestamp(int tag, long epochNs, TimestampPrecision precision, UtcTimestampCache cache)
    {
        if (!TryReserveValue(tag, FixValueFormatter.UtcTimestampLength(precision), out Span<byte> value)) return false;
        cache.TryFormat(epochNs, precision, value, out _);
        return true;
    }

    /// <summary>Writes a UTCTimeOnly field from nanoseconds since midnight.</summary>
    /// <param name="tag">Positive tag.</param>
    /// <param name="nanosOfDay">0..86,399,999,999,999.</param>
    /// <param name="precision">Fraction digits.</param>
    /// <returns>False when it did not fit or the value is out of range.</returns>
    public bool WriteTimeOnly(int tag, long nanosOfDay, TimestampPrecision precision)
    {
        if ((ulong)nanosOfDay >= FixValueParser.NanosPerDay) return Fail();
        if (!TryReserveValue(tag, 8 + FixValueFormatter.FractionLength(precision), out Span<byte> value)) return false;
        FixValueFormatter.WriteTimeOfDay(nanosOfDay, precision, value);
        return true;
    }

    /// <summary>Writes a UTCDateOnly/LocalMktDate field (YYYYMMDD).</summary>
    /// <param name="tag">Positive tag.</param>
    /// <param name="date">Date.</param>
    /// <returns>False when it did not fit.</returns>
    public bool Write(int tag, DateOnly date)
    {
        if (!TryReserveValue(tag, 8, out Span<byte> value)) return false;
        FixValueFormatter.TryFormatDate(date, value, out _);
        return true;
    }

    /// <summary>Writes a MonthYear field.</summary>
    /// <param name="tag">Positive tag.</param>
    /// <param name="value">Value.</param>
    /// <returns>False when it did not fit.</returns>
    public bool Write(int tag, FixMonthYear value)
    {
        int length = value.Day != 0 || value.Week != 0 ? 8 : 6;
        if (!TryReserveValue(tag, length, out Span<byte> span)) return false;
        if (!FixValueFormatter.TryFormatMonthYear(value, span, out _)) return Fail();
        return true;
    }

    /// <summary>Copies already-encoded fields (each <c>tag=value|</c>) verbatim, e.g. a stored body under a fresh header.</summary>
    /// <param name="encodedFields">Complete fields including their SOH delimiters.</param>
    /// <returns>False when it did not fit.</returns>
    public bool WriteRaw(ReadOnlySpan<byte> encodedFields)
    {
        if (_failed || (uint)(_position + encodedFields.Length) > (uint)_buffer.Length) return Fail();
        encodedFields.CopyTo(_buffer.Slice(_position));
        _position += encodedFields.Length;
        return true;
    }

    /// <summary>Fills in BodyLength, appends <c>10=ddd|</c> and (for an <see cref="IBufferWriter{T}"/>) advances it.</summary>
    /// <param name="length">Total message length (the message occupies offsets 0..length-1).</param>
    /// <returns>False when <see cref="Begin"/> was not called or the buffer was too small.</returns>
    public bool TryFinish(out int length)
    {
        length = 0;
        if (_failed || _bodyLengthOffset < 0 || _position + FixFramer.TrailerLength > _buffer.Length) return Fail();
        Span<byte> b = _buffer;
        int bodyStart = _bodyLengthOffset + _reservedDigits + 1;
        int bodyLength = _position - bodyStart;
        int digits = FixDecimal.CountDigits((ulong)bodyLength);
        int shift = _reservedDigits - digits;
        if (shift > 0)
        {
            // PERF: moving ~200 bytes left is one memmove, cheaper than a second formatting pass (FixWriterBenchmarks).
            b.Slice(bodyStart - 1, bodyLength + 1).CopyTo(b.Slice(bodyStart - 1 - shift));
            _position -= shift;
            _reservedDigits = digits;
        }
        AsciiParsing.WriteFixedDigits(b, _bodyLengthOffset, (uint)bodyLength, digits);
        int p = _position;
        int checkSum = AsciiParsing.Sum(b.Slice(0, p));
        b[p] = (byte)'1';
        b[p + 1] = (byte)'0';
        b[p + 2] = (byte)'=';
        AsciiParsing.WriteFixedDigits(b, p + 3, (uint)checkSum, 3);
        b[p + 6] = Soh;
        _position = p + FixFramer.TrailerLength;
        _bodyLengthOffset = -1;
        length = _position;
        _output?.Advance(length);
        return true;
    }

    /// <summary>Like <see cref="TryFinish"/>, returning the total length, or 0 when the message did not fit.</summary>
    /// <returns>The message length or 0.</returns>
    public int Finish() => TryFinish(out int length) ? length : 0;

    private bool TryReserveValue(int tag, int valueLength, out Span<byte> value)
    {
        int p = _position;
        int tagLength = TagLength(tag);
        if (_failed || (uint)(p + tagLength + 2 + valueLength) > (uint)_buffer.Length)
        {
            value = default;
            return Fail();
        }
        WriteTag(p, tag, tagLength);
        p += tagLength + 1;
        value = _buffer.Slice(p, valueLength);
        _buffer[p + valueLength] = Soh;
        _position = p + valueLength + 1;
        return true;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static int TagLength(int tag) => (uint)tag < 100 ? ((uint)tag < 10 ? 1 : 2) : (uint)tag < 10000 ? ((uint)tag < 1000 ? 3 : 4) : FixDecimal.CountDigits((uint)tag);

    /// <summary>Writes the tag digits and '=' at <paramref name="p"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private readonly void WriteTag(int p, int tag, int tagLength)
    {
        Span<byte> b = _buffer;
        switch (tagLength)
        {
            case 1:
                b[p] = (byte)('0' + tag);
                break;
            case 2:
                AsciiParsing.Write2Digits(b, p, tag);
                break;
            case 3:
                b[p] = (byte)('0' + tag / 100);
                AsciiParsing.Write2Digits(b, p + 1, tag % 100);
                break;
            case 4:
                AsciiParsing.Write4Digits(b, p, tag);
                break;
            default:
                AsciiParsing.WriteFixedDigits(b, p, (uint)tag, tagLength);
                break;
        }
        b[p + tagLength] = (byte)'=';
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private bool Fail()
    {
        _failed = true;
        return false;
    }
}

/// <summary>
/// Formats UTCTimestamps for a clock that mostly moves forward, caching <c>YYYYMMDD-HH:MM:SS</c> for the current
/// second so a SendingTime is two small copies plus the fraction digits.
/// </summary>
/// <remarks>Not thread-safe: one instance per sending thread. Allocates only in the constructor.</remarks>
public sealed class UtcTimestampCache
{
    private readonly byte[] _prefix = new byte[UtcTimestampOverlay.Size];
    private long _cachedSecond = long.MinValue;

    /// <summary>Formats <paramref name="epochNs"/> as <c>YYYYMMDD-HH:MM:SS[.f…]</c>.</summary>
    /// <param name="epochNs">Nanoseconds since the Unix epoch.</param>
    /// <param name="precision">Fraction digits (truncating).</param>
    /// <param name="destination">Output.</param>
    /// <param name="bytesWritten">Bytes written.</param>
    /// <returns>False when the destination is too small.</returns>
    public bool TryFormat(long epochNs, TimestampPrecision precision, Span<byte> destination, out int bytesWritten)
    {
        int length = FixValueFormatter.UtcTimestampLength(precision);
        if (destination.Length < length)
        {
            bytesWritten = 0;
            return false;
        }
        long second = Math.DivRem(epochNs, FixValueParser.NanosPerSecond, out long nanos);
        if (nanos < 0)
        {
            nanos += FixValueParser.NanosPerSecond;
            second--;
        }
        if (second != _cachedSecond)
        {
            FixValueFormatter.TryFormatUtcTimestamp(second * FixValueParser.NanosPerSecond, TimestampPrecision.Seconds, _prefix, out _);
            _cachedSecond = second;
        }
        _prefix.CopyTo(destination);
        FixValueFormatter.WriteFraction((uint)nanos, precision, destination.Slice(UtcTimestampOverlay.Size));
        bytesWritten = length;
        return true;
    }
}
