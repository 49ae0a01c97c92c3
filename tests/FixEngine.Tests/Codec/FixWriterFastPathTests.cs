using System;
using System.Buffers;
using System.Globalization;
using System.Text;
using System.Threading;
using FixEngine.Codec;

namespace FixEngine.Tests.Codec;

/// <summary>
/// The writer's inlined fast paths (tags of up to 4 digits with room to spare) and the general paths they fall back
/// to must write the same bytes as a string-built reference, for every overload, tag width and value shape.
/// </summary>
public class FixWriterFastPathTests
{
    private static readonly int[] s_tags = [1, 9, 10, 99, 100, 999, 1000, 2048, 9999, 10_000, 123_456, int.MaxValue];
    private static readonly long s_epoch2026Ns = (new DateTime(2026, 3, 15, 14, 30, 5, DateTimeKind.Utc) - DateTime.UnixEpoch).Ticks * 100;

    [Fact]
    public void IntegersMatchToStringForEveryTagWidth()
    {
        long[] values = [0, 1, 9, 10, 11, 64, 99, 100, 101, 999, 1000, 4711, 99_999, int.MaxValue, uint.MaxValue, 1L << 32, long.MaxValue, -1, -10, int.MinValue, long.MinValue];
        foreach (int tag in s_tags)
        {
            foreach (long value in values)
            {
                AssertWrites(tag + "=" + value.ToString(CultureInfo.InvariantCulture), (ref FixWriter w) => w.Write(tag, value));
                if (value is >= int.MinValue and <= int.MaxValue)
                {
                    AssertWrites(tag + "=" + value.ToString(CultureInfo.InvariantCulture), (ref FixWriter w) => w.Write(tag, (int)value));
                }
            }
        }
    }

    [Fact]
    public void DecimalsMatchSystemDecimalForEveryScale()
    {
        var random = new Random(17);
        for (int i = 0; i < 3000; i++)
        {
            long mantissa = (i % 6) switch
            {
                0 => random.Next(0, 100_000),
                1 => -random.Next(0, 100_000),
                2 => random.NextInt64(),
                3 => -random.NextInt64(),
                4 => random.Next(2) == 0 ? long.MinValue : long.MaxValue,
                _ => (long)uint.MaxValue + random.Next(-2, 3),
            };
            int scale = random.Next(0, FixDecimal.MaxScale + 1);
            var value = new FixDecimal(mantissa, scale);
            int tag = s_tags[i % s_tags.Length];
            AssertWrites(tag + "=" + Reference(value), (ref FixWriter w) => w.Write(tag, value));
        }
    }

    [Fact]
    public void CharsBoolsAndSpansMatchForEveryTagWidth()
    {
        foreach (int tag in s_tags)
        {
            AssertWrites(tag + "=X", (ref FixWriter w) => w.Write(tag, 'X'));
            AssertWrites(tag + "=Y", (ref FixWriter w) => w.Write(tag, true));
            AssertWrites(tag + "=N", (ref FixWriter w) => w.Write(tag, false));
            for (int length = 0; length <= 40; length++)
            {
                string text = new string('a', length / 2) + new string('Z', length - length / 2);
                byte[] bytes = Encoding.ASCII.GetBytes(text);
                AssertWrites(tag + "=" + text, (ref FixWriter w) => w.Write(tag, bytes));
            }
        }
    }

    [Fact]
    public void TimestampsMatchDateTimeFormattingAcrossDaysAndPrecisions()
    {
        var cache = new UtcTimestampCache();
        var random = new Random(23);
        for (int i = 0; i < 4000; i++)
        {
            long epochNs = (i % 4) switch
            {
                0 => s_epoch2026Ns + random.NextInt64(0, 86_400_000_000_000L * 3),
                1 => random.NextInt64(-2_000_000_000_000_000_000L, 7_000_000_000_000_000_000L),
                2 => s_epoch2026Ns + random.Next(-3, 4) * 86_400_000_000_000L + random.Next(-2, 3),
                _ => random.Next(-1000, 1000),
            };
            var precision = (TimestampPrecision)(i % 4);
            int tag = s_tags[i % s_tags.Length];
            string expected = tag + "=" + Reference(epochNs, precision);
            AssertWrites(expected, (ref FixWriter w) => w.WriteTimestamp(tag, epochNs, precision));
            AssertWrites(expected, (ref FixWriter w) => w.WriteTimestamp(tag, epochNs, precision, cache));
        }
    }

    [Fact]
    public void TimestampsFormattedOnSeveralThreadsUseTheirOwnDate()
    {
        Exception? failure = null;
        var threads = new Thread[3];
        for (int t = 0; t < threads.Length; t++)
        {
            long dayOffset = t * 1000L;
            threads[t] = new Thread(() =>
            {
                try
                {
                    Span<byte> buffer = stackalloc byte[32];
                    for (int i = 0; i < 5000; i++)
                    {
                        long epochNs = s_epoch2026Ns + (dayOffset + i % 7) * 86_400_000_000_000L + i * 1_000_003L;
                        Assert.True(FixValueFormatter.TryFormatUtcTimestamp(epochNs, TimestampPrecision.Nanos, buffer, out int written));
                        Assert.Equal(Reference(epochNs, TimestampPrecision.Nanos), Encoding.ASCII.GetString(buffer.Slice(0, written)));
                    }
                }
                catch (Exception e)
                {
                    failure = e;
                }
            });
            threads[t].Start();
        }
        foreach (Thread thread in threads) thread.Join();
        Assert.Null(failure);
    }

    [Theory]
    [InlineData(5)]
    [InlineData(60)]
    [InlineData(99)]
    [InlineData(100)]
    [InlineData(999)]
    [InlineData(1000)]
    [InlineData(12_000)]
    public void EveryBodyLengthWidthFramesAndFailsExactlyBelowTheNeededSize(int textLength)
    {
        string text = new('t', textLength);
        byte[] big = new byte[textLength + 200];
        int needed = WriteMessage(big, text, out bool ok);
        Assert.True(ok);
        FrameResult frame = FixFramer.Frame(big.AsSpan(0, needed), 1 << 20);
        Assert.True(frame.IsComplete, frame.Describe());
        byte[] expected = big.AsSpan(0, needed).ToArray();
        Assert.Equal(FixText.Pipe(FixText.Build("FIX.4.4", "35=B|34=7|49=SENDER|56=TARGET|58=" + text + "|")), FixText.Pipe(expected));

        for (int size = Math.Max(0, needed - 70); size <= needed + 40; size++)
        {
            byte[] buffer = new byte[size];
            buffer.AsSpan().Fill(0xEE);
            int length = WriteMessage(buffer, text, out bool fits);
            Assert.Equal(size >= needed, fits);
            if (fits)
            {
                Assert.Equal(needed, length);
                Assert.True(buffer.AsSpan(0, length).SequenceEqual(expected), $"size {size}");
                Assert.True(buffer.AsSpan(length).IndexOfAnyExcept((byte)0xEE) < 0, $"bytes after the message were written, size {size}");
            }
        }
    }

    [Fact]
    public void AFailedFastPathWriteFailsTheWriterAndLaterWritesAreIgnored()
    {
        byte[] buffer = new byte[64];
        var w = new FixWriter(buffer);
        Assert.True(w.Begin(BeginStrings.Fix44, MsgTypes.Heartbeat));
        int written = w.Written;
        Assert.False(w.Write(FixTags.Text, new byte[60]));
        Assert.True(w.Failed);
        Assert.Equal(written, w.Written);
        Assert.False(w.Write(FixTags.MsgSeqNum, 1));
        Assert.False(w.Write(FixTags.Side, '1'));
        Assert.False(w.Write(FixTags.Price, new FixDecimal(1, 0)));
        Assert.False(w.WriteTimestamp(FixTags.SendingTime, 0, TimestampPrecision.Millis));
        Assert.False(w.Write(FixTags.SenderCompID, "S"u8));
        Assert.Equal(written, w.Written);
        Assert.False(w.TryFinish(out int length));
        Assert.Equal(0, length);
        Assert.True(w.Begin(BeginStrings.Fix44, MsgTypes.Heartbeat));
        Assert.False(w.Failed);
        Assert.True(w.Write(FixTags.MsgSeqNum, 1));
        Assert.True(w.TryFinish(out length));
        Assert.Equal(FrameStatus.Complete, FixFramer.Frame(buffer.AsSpan(0, length), 4096).Status);
    }

    [Fact]
    public void BufferWriterIsAdvancedByTheMessageLength()
    {
        var output = new ArrayBufferWriter<byte>();
        output.Write("prefix"u8);
        var w = new FixWriter(output, 2048);
        w.Begin(BeginStrings.Fix44, MsgTypes.NewOrderSingle);
        w.Write(FixTags.MsgSeqNum, 215);
        w.Write(FixTags.Text, new byte[1500]);
        Assert.True(w.TryFinish(out int length));
        Assert.Equal(6 + length, output.WrittenCount);
        Assert.Equal(FrameStatus.Complete, FixFramer.Frame(output.WrittenSpan.Slice(6), 4096).Status);
    }

    private delegate bool WriteAction(ref FixWriter writer);

    /// <summary>Writes one field with a bare writer at several offsets and buffer sizes; the bytes must be the expected field.</summary>
    private static void AssertWrites(string expectedField, WriteAction write)
    {
        byte[] expected = FixText.Bytes(expectedField + "|");
        foreach (int offset in new[] { 0, 3, 30 })
        {
            foreach (int slack in new[] { 0, 1, 7, 40 })
            {
                byte[] buffer = new byte[offset + expected.Length + slack];
                buffer.AsSpan().Fill(0xEE);
                var w = new FixWriter(buffer);
                if (offset > 0) Assert.True(w.WriteRaw(new byte[offset]));
                Assert.True(write(ref w), $"{expectedField} at {offset} with {slack} spare");
                Assert.Equal(offset + expected.Length, w.Written);
                Assert.Equal(FixText.Pipe(expected), FixText.Pipe(buffer.AsSpan(offset, expected.Length)));
                Assert.True(buffer.AsSpan(offset + expected.Length).IndexOfAnyExcept((byte)0xEE) < 0, expectedField);
            }
            byte[] tooSmall = new byte[offset + expected.Length - 1];
            var small = new FixWriter(tooSmall);
            if (offset > 0) small.WriteRaw(new byte[offset]);
            Assert.False(write(ref small), $"{expectedField} must not fit in {tooSmall.Length} bytes");
            Assert.True(small.Failed);
        }
    }

    private static int WriteMessage(Span<byte> buffer, string text, out bool ok)
    {
        var w = new FixWriter(buffer);
        w.Begin(BeginStrings.Fix44, "B"u8);
        w.Write(FixTags.MsgSeqNum, 7);
        w.Write(FixTags.SenderCompID, "SENDER"u8);
        w.Write(FixTags.TargetCompID, "TARGET"u8);
        w.Write(FixTags.Text, Encoding.ASCII.GetBytes(text));
        ok = w.TryFinish(out int length);
        return length;
    }

    private static string Reference(FixDecimal value)
    {
        long m = value.Mantissa;
        ulong magnitude = m < 0 ? unchecked((ulong)(-m)) : (ulong)m;
        var d = new decimal((int)(uint)magnitude, (int)(uint)(magnitude >> 32), 0, m < 0, (byte)value.Scale);
        return d.ToString(CultureInfo.InvariantCulture);
    }

    private static string Reference(long epochNs, TimestampPrecision precision)
    {
        long seconds = Math.DivRem(epochNs, 1_000_000_000L, out long nanos);
        if (nanos < 0)
        {
            nanos += 1_000_000_000L;
            seconds--;
        }
        string text = DateTime.UnixEpoch.AddSeconds(seconds).ToString("yyyyMMdd-HH:mm:ss", CultureInfo.InvariantCulture);
        return precision switch
        {
            TimestampPrecision.Millis => text + "." + (nanos / 1_000_000).ToString("000", CultureInfo.InvariantCulture),
            TimestampPrecision.Micros => text + "." + (nanos / 1_000).ToString("000000", CultureInfo.InvariantCulture),
            TimestampPrecision.Nanos => text + "." + nanos.ToString("000000000", CultureInfo.InvariantCulture),
            _ => text,
        };
    }
}
