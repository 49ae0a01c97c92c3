using System;
using FixEngine.Codec;

namespace FixEngine.Tests.Codec;

/// <summary>Shared sample messages for the fuzz and allocation tests.</summary>
internal static class CodecSamples
{
    public static readonly long TransactTimeNs = (new DateTime(2026, 3, 15, 14, 30, 5, 120, DateTimeKind.Utc) - DateTime.UnixEpoch).Ticks * 100;

    public static byte[] ExecutionReport() => FixText.Build("FIX.4.4",
        "35=8|34=4711|49=BROKER|52=20260315-14:30:05.125|56=CLIENT12|1=ACC-1|6=101.25|11=ORD-000123|14=400|17=EXEC-77|31=101.25|32=400|" +
        "37=OID-9|38=1000|39=1|40=2|44=101.25|54=1|55=MSFT|59=0|60=20260315-14:30:05.120|150=F|151=600|" +
        "453=2|448=BRK1|447=D|452=1|448=CLT9|447=D|452=3|95=5|96=ab|cd|58=partial fill|");

    /// <summary>Encodes a typical ExecutionReport; returns its length.</summary>
    public static int EncodeExecutionReport(Span<byte> buffer, int seqNum, UtcTimestampCache cache)
    {
        var w = new FixWriter(buffer);
        w.Begin(BeginStrings.Fix44, MsgTypes.ExecutionReport);
        w.Write(FixTags.MsgSeqNum, seqNum);
        w.Write(FixTags.SenderCompID, "BROKER"u8);
        w.WriteTimestamp(FixTags.SendingTime, TransactTimeNs + seqNum, TimestampPrecision.Millis, cache);
        w.Write(FixTags.TargetCompID, "CLIENT12"u8);
        w.Write(FixTags.Account, "ACC-1"u8);
        w.Write(FixTags.AvgPx, new FixDecimal(10125, 2));
        w.Write(FixTags.ClOrdID, "ORD-000123"u8);
        w.Write(FixTags.CumQty, 400);
        w.Write(FixTags.ExecID, "EXEC-77"u8);
        w.Write(FixTags.LastPx, new FixDecimal(10125, 2));
        w.Write(FixTags.LastQty, 400);
        w.Write(FixTags.OrderID, "OID-9"u8);
        w.Write(FixTags.OrderQty, 1000);
        w.Write(FixTags.OrdStatus, '1');
        w.Write(FixTags.OrdType, '2');
        w.Write(FixTags.Price, new FixDecimal(10125, 2));
        w.Write(FixTags.Side, '1');
        w.Write(FixTags.Symbol, "MSFT"u8);
        w.Write(FixTags.TimeInForce, '0');
        w.WriteTimestamp(FixTags.TransactTime, TransactTimeNs, TimestampPrecision.Millis);
        w.Write(FixTags.ExecType, 'F');
        w.Write(FixTags.LeavesQty, 600);
        return w.Finish();
    }
}
