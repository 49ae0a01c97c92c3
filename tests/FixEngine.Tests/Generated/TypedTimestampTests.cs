using System;
using System.Text;
using FixEngine.Codec;
using FixEngine.Tests.Infrastructure;
using Fix44 = FixMessages.Fix44;

namespace FixEngine.Tests.Generated;

/// <summary>Typed writers take a <see cref="FixTimestamp"/>: any source converts to the right UTC text, without allocating.</summary>
[Collection(nameof(AllocationMeasurement))]
public sealed class TypedTimestampTests
{
    // 14:30:15.123 at +02:00 is 12:30:15.123 UTC.
    private static readonly DateTimeOffset AtPlusTwo = new(2026, 1, 5, 14, 30, 15, 123, TimeSpan.FromHours(2));

    private static int WriteReport(byte[] buffer, FixTimestamp transactTime)
    {
        var w = new FixWriter(buffer);
        TypedMessageTests.Header(ref w, "FIX.4.4"u8, Fix44.ExecutionReport.MsgType);
        Fix44.ExecutionReport.Write(ref w, orderID: "O-1"u8, execID: "E-1"u8, execType: Fix44.ExecType.Trade, ordStatus: Fix44.OrdStatus.Filled,
            side: Fix44.Side.Buy, leavesQty: new FixDecimal(0, 0), cumQty: new FixDecimal(100, 0), avgPx: new FixDecimal(12345, 2),
            transactTime: transactTime, timestampPrecision: TimestampPrecision.Millis);
        Assert.True(w.TryFinish(out int length));
        return length;
    }

    [Fact]
    public void ADateTimeOffsetAndAUtcDateTimeWriteTheSameUtcTime()
    {
        byte[] buffer = new byte[512];
        foreach (FixTimestamp t in new[] { FixTimestamp.FromDateTimeOffset(AtPlusTwo), FixTimestamp.FromDateTime(AtPlusTwo.UtcDateTime), FixTimestamp.FromDateTime(AtPlusTwo.LocalDateTime) })
        {
            int length = WriteReport(buffer, t);
            Assert.Contains("\u000160=20260105-12:30:15.123\u0001", Encoding.ASCII.GetString(buffer, 0, length));
        }
    }

    [Fact]
    public void ConvertingAndWritingTimestampsAllocatesNothing()
    {
        byte[] buffer = new byte[512];
        DateTime utc = AtPlusTwo.UtcDateTime;
        long sum = 0;
        long allocated = Allocations.Measure(() =>
        {
            sum += WriteReport(buffer, FixTimestamp.FromDateTimeOffset(AtPlusTwo));
            sum += WriteReport(buffer, FixTimestamp.FromDateTime(utc));
            sum += WriteReport(buffer, FixTimestamp.UtcNow);
        });
        Assert.Equal(0, allocated);
        Assert.NotEqual(0, sum);
    }
}
