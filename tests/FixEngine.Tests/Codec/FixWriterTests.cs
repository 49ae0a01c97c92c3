using System;
using System.Buffers;
using FixEngine.Codec;

namespace FixEngine.Tests.Codec;

public class FixWriterTests
{
    private static readonly long s_newYear2026Ns = (new DateTime(2026, 1, 1, 0, 0, 0, DateTimeKind.Utc) - DateTime.UnixEpoch).Ticks * 100;

    private static int WriteHeartbeat(Span<byte> buffer, out bool ok)
    {
        var w = new FixWriter(buffer);
        w.Begin(BeginStrings.Fix44, MsgTypes.Heartbeat);
        w.Write(FixTags.MsgSeqNum, 2);
        w.Write(FixTags.SenderCompID, "SENDER"u8);
        w.WriteTimestamp(FixTags.SendingTime, s_newYear2026Ns, TimestampPrecision.Millis);
        w.Write(FixTags.TargetCompID, "TARGET");
        ok = w.TryFinish(out int length);
        return length;
    }

    [Fact]
    public void EncodesGoldenHeartbeatByteForByte()
    {
        byte[] buffer = new byte[256];
        int length = WriteHeartbeat(buffer, out bool ok);
        Assert.True(ok);
        Assert.Equal(FixText.HeartbeatText, FixText.Pipe(buffer.AsSpan(0, length)));
    }

    [Fact]
    public void EncodesGoldenNewOrderSingleWithEveryOverload()
    {
        byte[] buffer = new byte[100_000]; // 6 reserved BodyLength digits: the body moves 3 bytes left
        var w = new FixWriter(buffer);
        Assert.True(w.Begin(BeginStrings.Fix44, MsgTypes.NewOrderSingle));
        w.Write(FixTags.MsgSeqNum, 215L);
        w.Write(FixTags.SenderCompID, "CLIENT12");
        w.WriteTimestamp(FixTags.SendingTime, FixTime(2026, 3, 15, 14, 30, 5, 123), TimestampPrecision.Millis, new UtcTimestampCache());
        w.Write(FixTags.TargetCompID, "BROKER"u8);
        w.Write(FixTags.ClOrdID, "ORD-000123"u8);
        w.Write(FixTags.HandlInst, '1');
        w.Write(FixTags.OrderQty, 1000);
        w.Write(FixTags.OrdType, '2');
        w.Write(FixTags.Price, new FixDecimal(10125, 2));
        w.Write(FixTags.Side, '1');
        w.Write(FixTags.Symbol, "MSFT"u8);
        w.Write(FixTags.TimeInForce, '0');
        w.WriteTimestamp(FixTags.TransactTime, FixTime(2026, 3, 15, 14, 30, 5, 120), TimestampPrecision.Millis);
        Assert.Equal(FixText.NewOrderSingleText.Length, w.Finish());
        Assert.Equal(FixText.NewOrderSingleText, FixText.Pipe(buffer.AsSpan(0, FixText.NewOrderSingleText.Length)));
    }

    private static long FixTime(int y, int mo, int d, int h, int mi, int s, int ms) =>
        (new DateTime(y, mo, d, h, mi, s, ms, DateTimeKind.Utc) - DateTime.UnixEpoch).Ticks * 100;

    [Fact]
    public void TooSmallBufferFailsWithoutThrowingAtEverySize()
    {
        byte[] exact = new byte[256];
        int needed = WriteHeartbeat(exact, out _);
        for (int size = 0; size < needed; size++)
        {
            byte[] small = new byte[size];
            WriteHeartbeat(small, out bool ok);
            Assert.False(ok, $"size {size}");
        }
        byte[] fits = new byte[needed];
        int length = WriteHeartbeat(fits, out bool fitsOk);
        Assert.True(fitsOk);
        Assert.Equal(FixText.HeartbeatText, FixText.Pipe(fits.AsSpan(0, length)));
    }

    [Fact]
    public void FailedWriterIgnoresLaterWrites()
    {
        byte[] buffer = new byte[40];
        var w = new FixWriter(buffer);
        Assert.True(w.Begin(BeginStrings.Fix44, MsgTypes.Heartbeat));
        Assert.False(w.Write(FixTags.Text, new string('x', 40)));
        Assert.True(w.Failed);
        Assert.False(w.Write(FixTags.MsgSeqNum, 1));
        Assert.False(w.TryFinish(out int length));
        Assert.Equal(0, length);
        Assert.False(new FixWriter(buffer).TryFinish(out _)); // Begin never called
    }

    [Fact]
    public void WritesToBufferWriterAndAdvancesIt()
    {
        var output = new ArrayBufferWriter<byte>();
        var w = new FixWriter(output, 512);
        w.Begin(BeginStrings.Fix44, MsgTypes.Heartbeat);
        w.Write(FixTags.MsgSeqNum, 2);
        w.Write(FixTags.SenderCompID, "SENDER");
        w.WriteTimestamp(FixTags.SendingTime, s_newYear2026Ns, TimestampPrecision.Millis);
        w.Write(FixTags.TargetCompID, "TARGET");
        Assert.True(w.TryFinish(out int length));
        Assert.Equal(length, output.WrittenCount);
        Assert.Equal(FixText.HeartbeatText, FixText.Pipe(output.WrittenSpan));
    }

    [Fact]
    public void WriteRawResendsAStoredBodyUnderAFreshHeader()
    {
        byte[] original = FixText.Bytes(FixText.NewOrderSingleText);
        var index = new FixMessageIndex();
        index.Parse(original);
        FixMessage m = index.Bind(original);
        int appStart = m.GetFieldOffset(m.FindField(FixTags.ClOrdID));
        ReadOnlySpan<byte> appFields = original.AsSpan(appStart, m.TrailerOffset - appStart);

        byte[] buffer = new byte[512];
        var w = new FixWriter(buffer);
        w.Begin(BeginStrings.Fix44, m.MsgType);
        w.Write(FixTags.MsgSeqNum, 215);
        w.Write(FixTags.PossDupFlag, true);
        w.Write(FixTags.SenderCompID, "CLIENT12");
        w.WriteTimestamp(FixTags.SendingTime, s_newYear2026Ns, TimestampPrecision.Seconds);
        w.Write(FixTags.TargetCompID, "BROKER");
        w.WriteTimestamp(FixTags.OrigSendingTime, FixTime(2026, 3, 15, 14, 30, 5, 123), TimestampPrecision.Millis);
        w.WriteRaw(appFields);
        int length = w.Finish();

        FrameResult frame = FixFramer.Frame(buffer.AsSpan(0, length), 4096);
        Assert.Equal(FrameStatus.Complete, frame.Status);
        Assert.Equal(length, frame.Length);
        byte[] expected = FixText.Build("FIX.4.4",
            "35=D|34=215|43=Y|49=CLIENT12|52=20260101-00:00:00|56=BROKER|122=20260315-14:30:05.123|11=ORD-000123|21=1|38=1000|40=2|44=101.25|54=1|55=MSFT|59=0|60=20260315-14:30:05.120|");
        Assert.Equal(FixText.Pipe(expected), FixText.Pipe(buffer.AsSpan(0, length)));
    }

    [Fact]
    public void EveryWrittenMessageFramesAndIndexesBack()
    {
        byte[] buffer = new byte[1024];
        var w = new FixWriter(buffer);
        w.Begin(BeginStrings.Fixt11, MsgTypes.ExecutionReport);
        w.Write(FixTags.MsgSeqNum, int.MaxValue);
        w.Write(5001, long.MinValue);
        w.Write(5002, long.MaxValue);
        w.Write(5003, -1);
        w.Write(5004, 0);
        w.Write(123456, new FixDecimal(-5, 18));
        w.Write(FixTags.PossDupFlag, false);
        w.Write(FixTags.MaturityMonthYear, new FixMonthYear(2026, 12, week: 3));
        w.Write(FixTags.TradeDate, new DateOnly(2024, 2, 29));
        w.WriteTimeOnly(5005, 86_399_999_999_999L, TimestampPrecision.Nanos);
        int length = w.Finish();
        Assert.Equal(FrameStatus.Complete, FixFramer.Frame(buffer.AsSpan(0, length), 4096).Status);
        var index = new FixMessageIndex();
        Assert.True(index.Parse(buffer.AsSpan(0, length)));
        FixMessage m = index.Bind(buffer.AsSpan(0, length));
        Assert.Equal(FixValueStatus.Ok, m.TryGetInt(FixTags.MsgSeqNum, out int seq));
        Assert.Equal(int.MaxValue, seq);
        m.TryGetLong(5001, out long min);
        m.TryGetLong(5002, out long max);
        m.TryGetInt(5003, out int minusOne);
        m.TryGetInt(5004, out int zero);
        Assert.Equal((long.MinValue, long.MaxValue, -1, 0), (min, max, minusOne, zero));
        Assert.Equal("-0.000000000000000005", m.GetString(123456));
        Assert.Equal(FixValueStatus.Ok, m.TryGetBool(FixTags.PossDupFlag, out bool possDup));
        Assert.False(possDup);
        Assert.Equal("202612w3", m.GetString(FixTags.MaturityMonthYear));
        Assert.Equal("20240229", m.GetString(FixTags.TradeDate));
        Assert.Equal("23:59:59.999999999", m.GetString(5005));
        Assert.True(m.HasStandardPrefix);
        Assert.Equal("FIXT.1.1", m.GetString(FixTags.BeginString));
    }

    [Fact]
    public void TimestampCacheMatchesDirectFormattingAcrossSecondsAndDays()
    {
        var cache = new UtcTimestampCache();
        Span<byte> a = stackalloc byte[32];
        Span<byte> b = stackalloc byte[32];
        long start = s_newYear2026Ns - 2_500_000_000L;
        foreach (TimestampPrecision p in Enum.GetValues<TimestampPrecision>())
        {
            for (long t = start; t < start + 5_000_000_000L; t += 123_456_789L)
            {
                Assert.True(cache.TryFormat(t, p, a, out int na));
                Assert.True(FixValueFormatter.TryFormatUtcTimestamp(t, p, b, out int nb));
                Assert.Equal(b.Slice(0, nb).ToArray(), a.Slice(0, na).ToArray());
            }
        }
        Assert.False(cache.TryFormat(start, TimestampPrecision.Nanos, a.Slice(0, 26), out _));
    }

    [Fact]
    public void AnOpenTypedBodyKeepsTheMessageFromFinishingUntilItIsClosed()
    {
        byte[] buffer = new byte[256];
        var w = new FixWriter(buffer);
        w.Begin(BeginStrings.Fix44, MsgTypes.Heartbeat);
        w.OpenTypedBody();
        Assert.True(w.Failed);
        w.AdvanceTypedBody(0, FixTags.TestReqID);
        Assert.True(w.Write(FixTags.TestReqID, "T1"u8)); // writes go on
        w.AdvanceTypedBody(3, FixTags.Text);
        Assert.True(w.CloseTypedBody(default, out FixBodyError error));
        Assert.Equal(FixBodyErrorReason.None, error.Reason);
        Assert.False(w.Failed);
        Assert.True(w.TryFinish(out int length));
        Assert.Contains("|35=0|112=T1|10=", FixText.Pipe(buffer.AsSpan(0, length)));
    }

    [Fact]
    public void AFieldGivenBeforeAnEarlierOneIsOutOfOrderNamingBoth()
    {
        var w = new FixWriter(new byte[256]);
        w.Begin(BeginStrings.Fix44, MsgTypes.Heartbeat);
        w.OpenTypedBody();
        w.AdvanceTypedBody(4, 55);
        w.AdvanceTypedBody(2, 1);
        // The earlier field is named from the body's tags by index (the writer keeps only the last index).
        Assert.False(w.CloseTypedBody([11, 21, 1, 40, 55], out FixBodyError error));
        Assert.Equal(FixBodyErrorReason.OutOfOrder, error.Reason);
        Assert.Equal(1, error.Tag);
        Assert.Equal(55, error.OtherTag);
        Assert.Equal("tag 1 given after tag 55 (fields go in dictionary order, each once)", error.ToString());
    }

    [Fact]
    public void ARepeatedFieldIsOutOfOrderNamingItselfAndATableTooShortNamesNoOtherTag()
    {
        var w = new FixWriter(new byte[256]);
        w.Begin(BeginStrings.Fix44, MsgTypes.Heartbeat);
        w.OpenTypedBody();
        w.AdvanceTypedBody(0, 11);
        w.AdvanceTypedBody(1, 21);
        w.AdvanceTypedBody(1, 21);
        Assert.False(w.CloseTypedBody([11, 21], out FixBodyError error));
        Assert.Equal(new FixBodyError(FixBodyErrorReason.OutOfOrder, 21, 21).ToString(), error.ToString());

        w.Begin(BeginStrings.Fix44, MsgTypes.Heartbeat);
        w.OpenTypedBody();
        w.AdvanceTypedBody(3, 40);
        w.AdvanceTypedBody(3, 40);
        Assert.False(w.CloseTypedBody([11, 21], out error));
        Assert.Equal(FixBodyErrorReason.OutOfOrder, error.Reason);
        Assert.Equal(40, error.Tag);
        Assert.Equal(0, error.OtherTag);
    }

    [Fact]
    public void ARefusedTypedBodyFailsTheWriterWithItsFirstDefect()
    {
        var w = new FixWriter(new byte[256]);
        w.Begin(BeginStrings.Fix44, MsgTypes.Heartbeat);
        w.OpenTypedBody();
        w.RefuseTypedBody(FixBodyErrorReason.RequiredMissing, 112, 0);
        w.AdvanceTypedBody(5, 58);
        w.AdvanceTypedBody(5, 58); // a repeat is out of order, but the first defect is kept
        Assert.False(w.CloseTypedBody(default, out FixBodyError error));
        Assert.Equal(FixBodyErrorReason.RequiredMissing, error.Reason);
        Assert.Equal(112, error.Tag);
        Assert.Equal("required tag 112 is empty", error.ToString());
        Assert.True(w.Failed);
        Assert.False(w.TryFinish(out _));
        Assert.False(w.CloseTypedBody(default, out error));
        Assert.Equal(FixBodyErrorReason.NotOpen, error.Reason);

        // Begin starts a new message with no typed body open.
        w.Begin(BeginStrings.Fix44, MsgTypes.Heartbeat);
        Assert.False(w.Failed);
        Assert.True(w.TryFinish(out _));
    }

    // The resend's finish: the body appended and summed in one pass gives the bytes WriteRaw + TryFinish give, for bodies
    // around every vector width and for BodyLengths of 1 to 4 digits (the slot's body moves).
    [Fact]
    public void TryFinishWithRawWritesTheSameMessageAsWriteRawThenTryFinish()
    {
        var random = new Random(14);
        foreach (int rawLength in new[] { 0, 1, 5, 31, 32, 33, 63, 64, 65, 90, 200, 227, 1000, 1500 })
        {
            byte[] raw = new byte[rawLength];
            for (int i = 0; i < raw.Length; i++) raw[i] = (byte)random.Next(32, 127);
            if (rawLength > 0) raw[^1] = 1;
            byte[] a = new byte[2048];
            byte[] b = new byte[2048];
            var wa = new FixWriter(a);
            Assert.True(wa.Begin(BeginStrings.Fix44, MsgTypes.ExecutionReport));
            wa.Write(34, 7);
            Assert.True(wa.WriteRaw(raw));
            Assert.True(wa.TryFinish(out int la));
            var wb = new FixWriter(b);
            Assert.True(wb.Begin(BeginStrings.Fix44, MsgTypes.ExecutionReport));
            wb.Write(34, 7);
            Assert.True(wb.TryFinishWithRaw(raw, out int lb));
            Assert.Equal(la, lb);
            Assert.True(a.AsSpan(0, la).SequenceEqual(b.AsSpan(0, lb)), $"raw length {rawLength}");
        }
    }

    [Fact]
    public void TryFinishWithRawFailsWhenTheBodyDoesNotFitOrBeginWasNotCalled()
    {
        byte[] buffer = new byte[64];
        var w = new FixWriter(buffer);
        Assert.True(w.Begin(BeginStrings.Fix44, MsgTypes.Heartbeat));
        Assert.False(w.TryFinishWithRaw(new byte[60], out int length));
        Assert.Equal(0, length);
        Assert.False(new FixWriter(buffer).TryFinishWithRaw([1], out _));
    }
}
