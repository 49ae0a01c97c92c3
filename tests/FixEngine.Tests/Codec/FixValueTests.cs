using System;
using System.Globalization;
using System.Text;
using FixEngine.Codec;

namespace FixEngine.Tests.Codec;

public class FixValueTests
{
    private static byte[] A(string s) => Encoding.ASCII.GetBytes(s);

    private static string Format(Func<byte[], int> format)
    {
        byte[] buffer = new byte[64];
        int n = format(buffer);
        return Encoding.ASCII.GetString(buffer, 0, n);
    }

    [Theory]
    [InlineData("0", 0)]
    [InlineData("-0", 0)]
    [InlineData("00023", 23)]
    [InlineData("2147483647", int.MaxValue)]
    [InlineData("-2147483648", int.MinValue)]
    [InlineData("0000000000002147483647", int.MaxValue)]
    public void IntParsesBoundaries(string text, int expected)
    {
        Assert.True(FixValueParser.TryParseInt(A(text), out int v));
        Assert.Equal(expected, v);
    }

    [Theory]
    [InlineData("")]
    [InlineData("-")]
    [InlineData("+1")]
    [InlineData(" 1")]
    [InlineData("1 ")]
    [InlineData("1.0")]
    [InlineData("2147483648")]
    [InlineData("-2147483649")]
    [InlineData("1-")]
    [InlineData("--1")]
    public void IntRejectsBadFormat(string text) => Assert.False(FixValueParser.TryParseInt(A(text), out _));

    [Theory]
    [InlineData(long.MaxValue)]
    [InlineData(long.MinValue)]
    [InlineData(0L)]
    [InlineData(-1L)]
    [InlineData(1L)]
    [InlineData(9L)]
    [InlineData(10L)]
    [InlineData(99L)]
    [InlineData(100L)]
    [InlineData(999_999_999_999_999_999L)]
    [InlineData(-1_000_000_000_000_000_000L)]
    public void LongRoundTripsThroughWriterAndReader(long value)
    {
        byte[] buffer = new byte[128];
        var w = new FixWriter(buffer);
        w.Begin(BeginStrings.Fix44, MsgTypes.Heartbeat);
        w.Write(FixTags.MsgSeqNum, value);
        int length = w.Finish();
        var index = new FixMessageIndex();
        index.Parse(buffer.AsSpan(0, length));
        FixMessage m = index.Bind(buffer.AsSpan(0, length));
        Assert.Equal(value.ToString(CultureInfo.InvariantCulture), m.GetString(FixTags.MsgSeqNum));
        Assert.Equal(FixValueStatus.Ok, m.TryGetLong(FixTags.MsgSeqNum, out long back));
        Assert.Equal(value, back);
        Assert.True(FixValueFormatter.TryFormatLong(value, buffer, out int n));
        Assert.Equal(value.ToString(CultureInfo.InvariantCulture), Encoding.ASCII.GetString(buffer, 0, n));
    }

    [Theory]
    [InlineData("9223372036854775808")]
    [InlineData("-9223372036854775809")]
    [InlineData("99999999999999999999")]
    public void LongRejectsOverflow(string text) => Assert.False(FixValueParser.TryParseLong(A(text), out _));

    [Theory]
    [InlineData("0", 0L, 0)]
    [InlineData("-0.0", 0L, 1)]
    [InlineData("101.25", 10125L, 2)]
    [InlineData("-101.250", -101250L, 3)]
    [InlineData("00023.23", 2323L, 2)]
    [InlineData("5.", 5L, 0)]
    [InlineData(".5", 5L, 1)]
    [InlineData("0.000000000000000001", 1L, 18)]
    [InlineData("9223372036854775807", long.MaxValue, 0)]
    [InlineData("-9223372036854775808", long.MinValue, 0)]
    [InlineData("-9.223372036854775808", long.MinValue, 18)]
    public void DecimalParses(string text, long mantissa, int scale)
    {
        Assert.True(FixDecimal.TryParse(A(text), out FixDecimal d));
        Assert.Equal(mantissa, d.Mantissa);
        Assert.Equal(scale, d.Scale);
        Assert.Equal(decimal.Parse(text, NumberStyles.Float, CultureInfo.InvariantCulture), d.ToDecimal());
    }

    [Theory]
    [InlineData("+200.00")]
    [InlineData("")]
    [InlineData("-")]
    [InlineData(".")]
    [InlineData("-.")]
    [InlineData("1e5")]
    [InlineData("1.2.3")]
    [InlineData("1,5")]
    [InlineData(" 1")]
    [InlineData("0.0000000000000000001")]
    [InlineData("9223372036854775808")]
    [InlineData("922337203685477580.8")]
    [InlineData("NaN")]
    public void DecimalRejectsBadFormat(string text) => Assert.False(FixDecimal.TryParse(A(text), out _));

    [Fact]
    public void DecimalFormatRoundTripsEveryScale()
    {
        var random = new Random(1234);
        byte[] buffer = new byte[32];
        for (int scale = 0; scale <= FixDecimal.MaxScale; scale++)
        {
            long[] mantissas = [0, 1, -1, 7, -7, long.MaxValue, long.MinValue, random.NextInt64(), -random.NextInt64(), random.NextInt64(1, 100_000)];
            foreach (long mantissa in mantissas)
            {
                var d = new FixDecimal(mantissa, scale);
                Assert.True(d.TryFormat(buffer, out int n));
                string text = Encoding.ASCII.GetString(buffer, 0, n);
                Assert.Equal(d.ToDecimal().ToString(CultureInfo.InvariantCulture), text);
                Assert.Equal(text, d.ToString());
                Assert.True(FixDecimal.TryParse(buffer.AsSpan(0, n), out FixDecimal back));
                Assert.Equal(mantissa, back.Mantissa);
                Assert.Equal(scale, back.Scale);
                Assert.False(d.TryFormat(buffer.AsSpan(0, n - 1), out _));
            }
        }
    }

    [Fact]
    public void DecimalConversions()
    {
        Assert.Equal(0.1, new FixDecimal(1, 1).ToDouble());
        Assert.Equal(101.25, new FixDecimal(10125, 2).ToDouble());
        Assert.Equal(-3e-18, new FixDecimal(-3, 18).ToDouble());
        Assert.Equal((double)long.MaxValue / 1e4, new FixDecimal(long.MaxValue, 4).ToDouble(), 1e-3);
        Assert.True(new FixDecimal(15, 1) == new FixDecimal(150, 2));
        Assert.Equal(new FixDecimal(15, 1).GetHashCode(), new FixDecimal(150, 2).GetHashCode());
        Assert.True(new FixDecimal(15, 1) != new FixDecimal(16, 1));
        Assert.Equal(1.50m, (decimal)new FixDecimal(150, 2));
        Assert.Throws<ArgumentOutOfRangeException>(() => new FixDecimal(1, 19));

        Assert.True(FixDecimal.TryFromDecimal(1.50m, out FixDecimal d));
        Assert.Equal((150L, 2), (d.Mantissa, d.Scale));
        Assert.True(FixDecimal.TryFromDecimal(-1.0000m, out d));
        Assert.Equal((-10000L, 4), (d.Mantissa, d.Scale));
        Assert.True(FixDecimal.TryFromDecimal(1.0000000000000000000000m, out d));
        Assert.Equal(1m, d.ToDecimal());
        Assert.True(d.Scale <= 18);
        Assert.True(FixDecimal.TryFromDecimal(long.MinValue, out d));
        Assert.Equal(long.MinValue, d.Mantissa);
        Assert.False(FixDecimal.TryFromDecimal(decimal.MaxValue, out _));
        Assert.False(FixDecimal.TryFromDecimal(0.0000000000000000000000000001m, out _));
    }

    [Fact]
    public void CharAndBool()
    {
        Assert.True(FixValueParser.TryParseChar(A("X"), out char c));
        Assert.Equal('X', c);
        Assert.False(FixValueParser.TryParseChar(A("XY"), out _));
        Assert.False(FixValueParser.TryParseChar(A(""), out _));
        Assert.True(FixValueParser.TryParseBool(A("Y"), out bool b) && b);
        Assert.True(FixValueParser.TryParseBool(A("N"), out b) && !b);
        Assert.False(FixValueParser.TryParseBool(A("y"), out _));
        Assert.False(FixValueParser.TryParseBool(A("YES"), out _));
    }

    public static TheoryData<string> BoundaryTimestamps =>
    [
        "1970-01-01T00:00:00.000000000",
        "1969-12-31T23:59:59.999999999",
        "2000-02-29T12:00:00.500000000",
        "2024-12-31T23:59:59.999999999",
        "2025-01-01T00:00:00.000000001",
        "2100-02-28T23:59:59.000000000",
        "1677-09-22T00:00:00.000000000",
        "2262-04-11T00:00:00.000000000",
        "1900-03-01T00:00:00.000000000",
    ];

    [Theory]
    [MemberData(nameof(BoundaryTimestamps))]
    public void TimestampRoundTripsAtBoundaries(string iso)
    {
        DateTime dt = DateTime.ParseExact(iso.Substring(0, 19), "yyyy-MM-ddTHH:mm:ss", CultureInfo.InvariantCulture, DateTimeStyles.AdjustToUniversal | DateTimeStyles.AssumeUniversal);
        long fractionNs = long.Parse(iso.Substring(20), CultureInfo.InvariantCulture);
        long epochNs = (dt - DateTime.UnixEpoch).Ticks * 100 + fractionNs;
        string expectedSeconds = dt.ToString("yyyyMMdd-HH:mm:ss", CultureInfo.InvariantCulture);
        string nanos = iso.Substring(20);
        (TimestampPrecision Precision, string Text, long Ns)[] cases =
        [
            (TimestampPrecision.Seconds, expectedSeconds, epochNs - fractionNs),
            (TimestampPrecision.Millis, expectedSeconds + "." + nanos.Substring(0, 3), epochNs - fractionNs % 1_000_000),
            (TimestampPrecision.Micros, expectedSeconds + "." + nanos.Substring(0, 6), epochNs - fractionNs % 1_000),
            (TimestampPrecision.Nanos, expectedSeconds + "." + nanos, epochNs),
        ];
        foreach ((TimestampPrecision precision, string text, long truncatedNs) in cases)
        {
            Assert.Equal(text, Format(buf => FixValueFormatter.TryFormatUtcTimestamp(epochNs, precision, buf, out int n) ? n : -1));
            Assert.True(FixValueParser.TryParseUtcTimestamp(A(text), out long back), text);
            Assert.Equal(truncatedNs, back);
        }
    }

    [Fact]
    public void RandomTimestampsRoundTrip()
    {
        var random = new Random(42);
        byte[] buffer = new byte[32];
        for (int i = 0; i < 2000; i++)
        {
            long ns = random.NextInt64(-9_000_000_000_000_000_000L, 9_000_000_000_000_000_000L);
            Assert.True(FixValueFormatter.TryFormatUtcTimestamp(ns, TimestampPrecision.Nanos, buffer, out int n));
            Assert.True(FixValueParser.TryParseUtcTimestamp(buffer.AsSpan(0, n), out long back));
            Assert.Equal(ns, back);
            DateTime dt = DateTime.UnixEpoch.AddTicks(Math.DivRem(ns, 100, out long rem) - (rem < 0 ? 1 : 0));
            Assert.Equal(dt.ToString("yyyyMMdd-HH:mm:ss.fffffff", CultureInfo.InvariantCulture), Encoding.ASCII.GetString(buffer, 0, 25));
        }
    }

    [Theory]
    [InlineData("20260101-00:00:00")]
    [InlineData("20260101-00:00:00.1")]
    [InlineData("20260101-00:00:00.123456789012")]
    [InlineData("20240229-23:59:59.999")]
    [InlineData("20261231-23:59:60")]
    public void TimestampAccepts(string text) => Assert.True(FixValueParser.TryParseUtcTimestamp(A(text), out _), text);

    [Theory]
    [InlineData("20261301-00:00:00")]
    [InlineData("20260001-00:00:00")]
    [InlineData("20260132-00:00:00")]
    [InlineData("20260100-00:00:00")]
    [InlineData("20250229-00:00:00")]
    [InlineData("21000229-00:00:00")]
    [InlineData("20260101-24:00:00")]
    [InlineData("20260101-00:60:00")]
    [InlineData("20260101-00:00:61")]
    [InlineData("20260101 00:00:00")]
    [InlineData("20260101-00-00-00")]
    [InlineData("20260101-00:00:00.")]
    [InlineData("20260101-00:00:00.1234567890123")]
    [InlineData("20260101-00:00:00,123")]
    [InlineData("20260101-00:00:0")]
    [InlineData("2026010-00:00:00")]
    [InlineData("2026010a-00:00:00")]
    [InlineData("20260101-0a:00:00")]
    [InlineData("16000101-00:00:00")]
    [InlineData("")]
    public void TimestampRejects(string text) => Assert.False(FixValueParser.TryParseUtcTimestamp(A(text), out _), text);

    [Fact]
    public void LeapSecondIsTheFirstSecondOfTheNextMinute()
    {
        Assert.True(FixValueParser.TryParseUtcTimestamp(A("20161231-23:59:60"), out long leap));
        Assert.True(FixValueParser.TryParseUtcTimestamp(A("20170101-00:00:00"), out long next));
        Assert.Equal(next, leap);
    }

    [Fact]
    public void TimeOnlyDateAndMonthYear()
    {
        Assert.True(FixValueParser.TryParseUtcTimeOnly(A("23:59:59.999"), out long t));
        Assert.Equal(86_399_999_000_000L, t);
        Assert.True(FixValueParser.TryParseUtcTimeOnly(A("00:00:00"), out t));
        Assert.Equal(0, t);
        Assert.False(FixValueParser.TryParseUtcTimeOnly(A("24:00:00"), out _));
        Assert.False(FixValueParser.TryParseUtcTimeOnly(A("1:00:00"), out _));
        Assert.Equal("12:34:56.789012", Format(buf => FixValueFormatter.TryFormatUtcTimeOnly(45_296_789_012_000L, TimestampPrecision.Micros, buf, out int n) ? n : -1));
        Assert.False(FixValueFormatter.TryFormatUtcTimeOnly(FixValueParser_NanosPerDay, TimestampPrecision.Seconds, new byte[32], out _));

        Assert.True(FixValueParser.TryParseDate(A("20240229"), out DateOnly date));
        Assert.Equal(new DateOnly(2024, 2, 29), date);
        Assert.False(FixValueParser.TryParseDate(A("20230229"), out _));
        Assert.False(FixValueParser.TryParseDate(A("00000101"), out _));
        Assert.False(FixValueParser.TryParseDate(A("2024022"), out _));
        Assert.Equal("00010101", Format(buf => FixValueFormatter.TryFormatDate(DateOnly.MinValue, buf, out int n) ? n : -1));
        Assert.Equal("99991231", Format(buf => FixValueFormatter.TryFormatDate(DateOnly.MaxValue, buf, out int n) ? n : -1));

        Assert.True(FixValueParser.TryParseMonthYear(A("202612"), out FixMonthYear my));
        Assert.Equal(new FixMonthYear(2026, 12), my);
        Assert.True(FixValueParser.TryParseMonthYear(A("20261231"), out my));
        Assert.Equal(new FixMonthYear(2026, 12, 31), my);
        Assert.True(FixValueParser.TryParseMonthYear(A("202612w5"), out my));
        Assert.Equal(new FixMonthYear(2026, 12, week: 5), my);
        Assert.Equal("202612w5", my.ToString());
        foreach (string bad in new[] { "202613", "202600", "20261232", "202602w6", "202602w0", "2026", "2026021", "202602x1", "20260230" })
        {
            Assert.False(FixValueParser.TryParseMonthYear(A(bad), out _), bad);
        }
        foreach (string good in new[] { "202602", "20260228", "202602w1" })
        {
            Assert.True(FixValueParser.TryParseMonthYear(A(good), out FixMonthYear v));
            Assert.Equal(good, Format(buf => FixValueFormatter.TryFormatMonthYear(v, buf, out int n) ? n : -1));
        }
    }

    private const long FixValueParser_NanosPerDay = 86_400_000_000_000L;

    [Fact]
    public void SwarDigitParsingRejectsEveryNonDigitInEveryPosition()
    {
        byte[] text = A("12345678");
        Assert.True(AsciiParsingAccess.TryParse8(text, out uint v));
        Assert.Equal(12345678u, v);
        Assert.True(AsciiParsingAccess.TryParse8(A("00000000"), out v) && v == 0);
        Assert.True(AsciiParsingAccess.TryParse8(A("99999999"), out v) && v == 99999999);
        for (int pos = 0; pos < 8; pos++)
        {
            for (int b = 0; b < 256; b++)
            {
                if (b >= '0' && b <= '9') continue;
                byte[] bad = A("12345678");
                bad[pos] = (byte)b;
                Assert.False(AsciiParsingAccess.TryParse8(bad, out _), $"byte {b} at {pos}");
            }
        }
    }
}

/// <summary>Reaches the internal SWAR helper (InternalsVisibleTo).</summary>
internal static class AsciiParsingAccess
{
    public static bool TryParse8(byte[] text, out uint value) => FixEngine.Codec.AsciiParsing.TryParse8Digits(text, 0, out value);
}
