using System;
using System.Buffers;
using System.Collections.Generic;
using System.Globalization;
using System.Text;
using FixEngine.Codec;

namespace FixEngine.Tests.Codec;

/// <summary>
/// Differential test of the whole writer: random messages (every overload, tag widths of 1..10 digits, values of every
/// shape and length, bodies from 5 to 2000+ bytes) must equal a message built independently with BCL formatting, in a
/// buffer with room to spare (nothing written after the message), in a buffer of exactly the message length, through an
/// <see cref="IBufferWriter{T}"/>, and must fail cleanly in a buffer one byte short.
/// </summary>
public class FixWriterDifferentialTests
{
    private const byte Spare = 0xEE;
    private static readonly long s_epoch2026Ns = (new DateTime(2026, 3, 15, 14, 30, 5, DateTimeKind.Utc) - DateTime.UnixEpoch).Ticks * 100;

    [Fact]
    public void RandomMessagesMatchTheReferenceEncoderInEveryBufferSize()
    {
        var random = new Random(4242);
        var cache = new UtcTimestampCache();
        for (int i = 0; i < 1500; i++)
        {
            List<Field> fields = RandomFields(random, i);
            (byte[] beginString, byte[] msgType) = RandomHeader(random);
            byte[] expected = Reference(beginString, msgType, fields);
            string context = $"message {i}: {FixText.Pipe(expected)}";

            byte[] roomy = new byte[expected.Length + random.Next(0, 80)];
            roomy.AsSpan().Fill(Spare);
            Assert.True(Encode(roomy, beginString, msgType, fields, cache, out int length), context);
            Assert.Equal(expected.Length, length);
            Assert.True(roomy.AsSpan(0, length).SequenceEqual(expected), context + "\nwrote " + FixText.Pipe(roomy.AsSpan(0, length)));
            Assert.True(roomy.AsSpan(length).IndexOfAnyExcept(Spare) < 0, "bytes after the message were written: " + context);

            byte[] exact = new byte[expected.Length];
            Assert.True(Encode(exact, beginString, msgType, fields, cache, out length), "exact size: " + context);
            Assert.True(exact.AsSpan().SequenceEqual(expected), "exact size: " + context);

            byte[] short1 = new byte[expected.Length - 1];
            Assert.False(Encode(short1, beginString, msgType, fields, cache, out length), "one byte short: " + context);
            Assert.Equal(0, length);

            if (i % 10 == 0)
            {
                var output = new ArrayBufferWriter<byte>();
                output.Write("x"u8);
                var w = new FixWriter(output, expected.Length + 20);
                WriteAll(ref w, beginString, msgType, fields, cache);
                Assert.True(w.TryFinish(out length), context);
                Assert.True(output.WrittenSpan.Slice(1).SequenceEqual(expected), "buffer writer: " + context);
            }
        }
    }

    [Fact]
    public void FieldsNearTheEndOfTheBufferMatchWriteNothingAfterAndFailOneByteShort()
    {
        // One field after some bytes, in a writer ending 0..32 bytes after the field's SOH: the fast paths (which want
        // room to spare for numbers and timestamps) and the general paths both meet the end of the buffer.
        var random = new Random(99);
        var cache = new UtcTimestampCache();
        for (int i = 0; i < 6000; i++)
        {
            Field field = RandomField(random, i);
            byte[] expectedField = field.Reference();
            int offset = random.Next(0, 40);
            int slack = i % 33;
            byte[] buffer = new byte[offset + expectedField.Length + slack + 1];
            buffer.AsSpan().Fill(Spare);
            var w = new FixWriter(buffer.AsSpan(0, offset + expectedField.Length + slack));
            w.WriteRaw(new byte[offset]);
            Assert.True(field.Write(ref w, cache), FixText.Pipe(expectedField));
            Assert.Equal(offset + expectedField.Length, w.Written);
            Assert.True(buffer.AsSpan(offset, expectedField.Length).SequenceEqual(expectedField), FixText.Pipe(expectedField) + " wrote " + FixText.Pipe(buffer.AsSpan(offset, expectedField.Length)));
            Assert.True(buffer.AsSpan(offset + expectedField.Length).IndexOfAnyExcept(Spare) < 0, "bytes after the field were written: " + FixText.Pipe(expectedField));

            var small = new FixWriter(buffer.AsSpan(0, offset + expectedField.Length - 1));
            small.WriteRaw(new byte[offset]);
            Assert.False(field.Write(ref small, cache), "must not fit: " + FixText.Pipe(expectedField));
            Assert.True(small.Failed);
            Assert.Equal(offset, small.Written);
        }
    }

    private static bool Encode(Span<byte> buffer, byte[] beginString, byte[] msgType, List<Field> fields, UtcTimestampCache cache, out int length)
    {
        var w = new FixWriter(buffer);
        WriteAll(ref w, beginString, msgType, fields, cache);
        return w.TryFinish(out length);
    }

    private static void WriteAll(ref FixWriter w, byte[] beginString, byte[] msgType, List<Field> fields, UtcTimestampCache cache)
    {
        w.Begin(beginString, msgType);
        foreach (Field field in fields) field.Write(ref w, cache);
    }

    private static (byte[] BeginString, byte[] MsgType) RandomHeader(Random random)
    {
        byte[] beginString = random.Next(8) switch
        {
            0 => BeginStrings.Fixt11.ToArray(),
            1 => "FIX.4.2"u8.ToArray(),
            2 => "FIX.CUSTOM.BEGIN.STRING"u8.ToArray(), // longer than the fast Begin handles
            _ => BeginStrings.Fix44.ToArray(),
        };
        byte[] msgType = random.Next(8) switch
        {
            0 => MsgTypes.Heartbeat.ToArray(),
            1 => MsgTypes.NewOrderSingle.ToArray(),
            2 => "AE"u8.ToArray(),
            3 => "CUSTOMMESSAGETYPE"u8.ToArray(),
            _ => MsgTypes.ExecutionReport.ToArray(),
        };
        return (beginString, msgType);
    }

    private static List<Field> RandomFields(Random random, int seed)
    {
        // Mostly short bodies (BodyLength of 1..3 digits, so the body moves left, stays or moves right), some long.
        int count = (seed % 7) switch
        {
            0 => 0,
            1 => random.Next(1, 4),
            2 => random.Next(40, 90),
            _ => random.Next(4, 30),
        };
        var fields = new List<Field>(count);
        for (int i = 0; i < count; i++) fields.Add(RandomField(random, seed + i));
        return fields;
    }

    private static readonly int[] s_wideTags = [10_000, 99_999, 123_456, 1_000_000, int.MaxValue];

    private static int RandomTag(Random random) => random.Next(10) switch
    {
        0 => random.Next(1, 10),
        1 => random.Next(10, 100),
        2 => random.Next(1000, 10_000),
        3 => s_wideTags[random.Next(s_wideTags.Length)],
        _ => random.Next(100, 1000),
    };

    private static Field RandomField(Random random, int seed)
    {
        int tag = RandomTag(random);
        switch (seed % 13)
        {
            case 0:
            case 1:
                return Field.Bytes(tag, RandomBytes(random));
            case 2:
                return Field.Text(tag, Encoding.Latin1.GetString(RandomBytes(random)));
            case 3:
                return Field.Int(tag, random.Next(4) switch
                {
                    0 => random.Next(0, 100),
                    1 => random.Next(100, 10_000),
                    2 => random.Next(int.MinValue, int.MaxValue),
                    _ => random.Next(2) == 0 ? int.MinValue : int.MaxValue,
                });
            case 4:
                return Field.Long(tag, RandomLong(random));
            case 5:
            case 6:
                return Field.Decimal(tag, new FixDecimal(RandomLong(random), random.Next(5) == 0 ? random.Next(0, FixDecimal.MaxScale + 1) : random.Next(0, 9)));
            case 7:
                return Field.Char(tag, (char)random.Next(0x20, 0x7F));
            case 8:
                return Field.Bool(tag, random.Next(2) == 0);
            case 9:
                return Field.Timestamp(tag, RandomEpochNs(random), (TimestampPrecision)random.Next(4), random.Next(2) == 0);
            case 10:
                return Field.TimeOnly(tag, random.NextInt64(0, 86_400_000_000_000L), (TimestampPrecision)random.Next(4));
            case 11:
                return random.Next(2) == 0
                    ? Field.Date(tag, DateOnly.FromDayNumber(random.Next(DateOnly.MinValue.DayNumber, DateOnly.MaxValue.DayNumber + 1)))
                    : Field.MonthYear(tag, random.Next(3) switch
                    {
                        0 => new FixMonthYear(random.Next(1, 10_000), random.Next(1, 13)),
                        1 => new FixMonthYear(random.Next(1, 10_000), random.Next(1, 13), day: random.Next(1, 29)),
                        _ => new FixMonthYear(random.Next(1, 10_000), random.Next(1, 13), week: random.Next(1, 6)),
                    });
            default:
                return Field.Raw(Encoding.Latin1.GetBytes($"{tag}=raw{random.Next()}\u00019={random.Next(0, 10)}\u0001"));
        }
    }

    private static byte[] RandomBytes(Random random)
    {
        int length = random.Next(10) switch
        {
            0 => random.Next(100, 1200),
            1 => random.Next(16, 40),
            _ => random.Next(0, 17),
        };
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++)
        {
            // Any byte but SOH; high bytes check that the checksum wraps modulo 256.
            int b = random.Next(8) == 0 ? random.Next(0x80, 0x100) : random.Next(0x20, 0x7F);
            bytes[i] = (byte)b;
        }
        return bytes;
    }

    private static long RandomLong(Random random) => random.Next(8) switch
    {
        0 => random.Next(0, 1000),
        1 => -random.Next(0, 100_000_000),
        2 => random.NextInt64(0, 100_000_000),
        3 => random.NextInt64(100_000_000, 10_000_000_000_000_000L),
        4 => random.NextInt64(long.MinValue, long.MaxValue),
        5 => random.Next(3) switch { 0 => long.MinValue, 1 => long.MaxValue, _ => 0 },
        6 => random.NextInt64(10_000_000_000_000_000L, long.MaxValue),
        _ => random.Next(0, 100_000),
    };

    private static long RandomEpochNs(Random random) => random.Next(4) switch
    {
        0 => s_epoch2026Ns + random.NextInt64(0, 86_400_000_000_000L * 3),
        1 => random.NextInt64(long.MinValue, long.MaxValue),
        2 => s_epoch2026Ns + random.Next(-3, 4) * 86_400_000_000_000L + random.Next(-2, 3),
        _ => random.Next(-1000, 1000),
    };

    private static byte[] Reference(byte[] beginString, byte[] msgType, List<Field> fields)
    {
        var body = new List<byte>();
        body.AddRange("35="u8.ToArray());
        body.AddRange(msgType);
        body.Add(1);
        foreach (Field field in fields) body.AddRange(field.Reference());
        var message = new List<byte>();
        message.AddRange("8="u8.ToArray());
        message.AddRange(beginString);
        message.Add(1);
        message.AddRange(Encoding.ASCII.GetBytes("9=" + body.Count.ToString(CultureInfo.InvariantCulture) + "\u0001"));
        message.AddRange(body);
        int sum = 0;
        foreach (byte b in message) sum += b;
        message.AddRange(Encoding.ASCII.GetBytes("10=" + (sum % 256).ToString("000", CultureInfo.InvariantCulture) + "\u0001"));
        return message.ToArray();
    }

    /// <summary>One field: how to write it and, independently, its expected bytes.</summary>
    private sealed class Field
    {
        private enum Kind { Bytes, Text, Int, Long, Decimal, Char, Bool, Timestamp, CachedTimestamp, TimeOnly, Date, MonthYear, Raw }

        private Kind _kind;
        private int _tag;
        private byte[] _bytes = [];
        private string _text = "";
        private long _number;
        private FixDecimal _decimal;
        private TimestampPrecision _precision;
        private DateOnly _date;
        private FixMonthYear _monthYear;

        public static Field Bytes(int tag, byte[] value) => new() { _kind = Kind.Bytes, _tag = tag, _bytes = value };

        public static Field Text(int tag, string value) => new() { _kind = Kind.Text, _tag = tag, _text = value };

        public static Field Int(int tag, int value) => new() { _kind = Kind.Int, _tag = tag, _number = value };

        public static Field Long(int tag, long value) => new() { _kind = Kind.Long, _tag = tag, _number = value };

        public static Field Decimal(int tag, FixDecimal value) => new() { _kind = Kind.Decimal, _tag = tag, _decimal = value };

        public static Field Char(int tag, char value) => new() { _kind = Kind.Char, _tag = tag, _number = value };

        public static Field Bool(int tag, bool value) => new() { _kind = Kind.Bool, _tag = tag, _number = value ? 1 : 0 };

        public static Field Timestamp(int tag, long epochNs, TimestampPrecision precision, bool cached) =>
            new() { _kind = cached ? Kind.CachedTimestamp : Kind.Timestamp, _tag = tag, _number = epochNs, _precision = precision };

        public static Field TimeOnly(int tag, long nanosOfDay, TimestampPrecision precision) =>
            new() { _kind = Kind.TimeOnly, _tag = tag, _number = nanosOfDay, _precision = precision };

        public static Field Date(int tag, DateOnly value) => new() { _kind = Kind.Date, _tag = tag, _date = value };

        public static Field MonthYear(int tag, FixMonthYear value) => new() { _kind = Kind.MonthYear, _tag = tag, _monthYear = value };

        public static Field Raw(byte[] encodedFields) => new() { _kind = Kind.Raw, _bytes = encodedFields };

        public bool Write(ref FixWriter w, UtcTimestampCache cache) => _kind switch
        {
            Kind.Bytes => w.Write(_tag, _bytes),
            Kind.Text => w.Write(_tag, _text),
            Kind.Int => w.Write(_tag, (int)_number),
            Kind.Long => w.Write(_tag, _number),
            Kind.Decimal => w.Write(_tag, _decimal),
            Kind.Char => w.Write(_tag, (char)_number),
            Kind.Bool => w.Write(_tag, _number != 0),
            Kind.Timestamp => w.WriteTimestamp(_tag, _number, _precision),
            Kind.CachedTimestamp => w.WriteTimestamp(_tag, _number, _precision, cache),
            Kind.TimeOnly => w.WriteTimeOnly(_tag, _number, _precision),
            Kind.Date => w.Write(_tag, _date),
            Kind.MonthYear => w.Write(_tag, _monthYear),
            _ => w.WriteRaw(_bytes),
        };

        public byte[] Reference()
        {
            if (_kind == Kind.Raw) return _bytes;
            var field = new List<byte>(Encoding.ASCII.GetBytes(_tag.ToString(CultureInfo.InvariantCulture) + "="));
            switch (_kind)
            {
                case Kind.Bytes:
                    field.AddRange(_bytes);
                    break;
                case Kind.Text:
                    field.AddRange(Encoding.Latin1.GetBytes(_text));
                    break;
                case Kind.Int:
                case Kind.Long:
                    field.AddRange(Ascii(_number.ToString(CultureInfo.InvariantCulture)));
                    break;
                case Kind.Decimal:
                    long m = _decimal.Mantissa;
                    ulong magnitude = m < 0 ? unchecked((ulong)(-m)) : (ulong)m;
                    var d = new decimal((int)(uint)magnitude, (int)(uint)(magnitude >> 32), 0, m < 0, (byte)_decimal.Scale);
                    field.AddRange(Ascii(d.ToString(CultureInfo.InvariantCulture)));
                    break;
                case Kind.Char:
                    field.Add((byte)_number);
                    break;
                case Kind.Bool:
                    field.Add(_number != 0 ? (byte)'Y' : (byte)'N');
                    break;
                case Kind.Timestamp:
                case Kind.CachedTimestamp:
                    field.AddRange(Ascii(TimestampText(_number, _precision)));
                    break;
                case Kind.TimeOnly:
                    string time = new DateTime(_number / 100, DateTimeKind.Utc).ToString("HH:mm:ss", CultureInfo.InvariantCulture);
                    field.AddRange(Ascii(time + Fraction(_number % 1_000_000_000L, _precision)));
                    break;
                case Kind.Date:
                    field.AddRange(Ascii(_date.ToString("yyyyMMdd", CultureInfo.InvariantCulture)));
                    break;
                case Kind.MonthYear:
                    FixMonthYear v = _monthYear;
                    string text = v.Year.ToString("0000", CultureInfo.InvariantCulture) + v.Month.ToString("00", CultureInfo.InvariantCulture)
                        + (v.Week != 0 ? "w" + v.Week.ToString(CultureInfo.InvariantCulture) : v.Day != 0 ? v.Day.ToString("00", CultureInfo.InvariantCulture) : "");
                    field.AddRange(Ascii(text));
                    break;
            }
            field.Add(1);
            return field.ToArray();
        }

        private static byte[] Ascii(string text) => Encoding.ASCII.GetBytes(text);

        private static string TimestampText(long epochNs, TimestampPrecision precision)
        {
            long seconds = Math.DivRem(epochNs, 1_000_000_000L, out long nanos);
            if (nanos < 0)
            {
                nanos += 1_000_000_000L;
                seconds--;
            }
            return DateTime.UnixEpoch.AddSeconds(seconds).ToString("yyyyMMdd-HH:mm:ss", CultureInfo.InvariantCulture) + Fraction(nanos, precision);
        }

        private static string Fraction(long nanos, TimestampPrecision precision) => precision switch
        {
            TimestampPrecision.Millis => "." + (nanos / 1_000_000).ToString("000", CultureInfo.InvariantCulture),
            TimestampPrecision.Micros => "." + (nanos / 1_000).ToString("000000", CultureInfo.InvariantCulture),
            TimestampPrecision.Nanos => "." + nanos.ToString("000000000", CultureInfo.InvariantCulture),
            _ => "",
        };
    }
}
