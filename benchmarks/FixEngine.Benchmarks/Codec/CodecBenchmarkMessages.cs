using System;
using System.Runtime.CompilerServices;
using System.Text;
using FixEngine.Codec;

namespace FixEngine.Benchmarks.Codec;

/// <summary>The sample messages every codec benchmark uses (same bytes for our codec and the string baseline).</summary>
public static class CodecBenchmarkMessages
{
    public static readonly long TransactTimeNs = (new DateTime(2026, 3, 15, 14, 30, 5, 120, DateTimeKind.Utc) - DateTime.UnixEpoch).Ticks * 100;

    /// <summary>The same instant as <see cref="TransactTimeNs"/>, as the typed writers take it.</summary>
    public static readonly FixTimestamp TransactTime = FixTimestamp.FromUnixNanoseconds(TransactTimeNs);

    public static readonly byte[] Heartbeat = Build("FIX.4.4", "35=0|34=2|49=SENDER|52=20260101-00:00:00.000|56=TARGET|");

    public static readonly byte[] NewOrderSingle = Build("FIX.4.4",
        "35=D|34=215|49=CLIENT12|52=20260315-14:30:05.123|56=BROKER|1=ACCOUNT-01|11=ORD-000123|21=1|38=1000|40=2|44=101.25|54=1|55=MSFT|59=0|60=20260315-14:30:05.120|");

    /// <summary>The ExecutionReport's fields after BodyLength, | for SOH: valid FIX.4.4 (FIX44.xml), with a three-entry
    /// Parties group (PartyRole 1, 11 and 22; the last was 64, which FIX.4.4 does not define, before 2026-12-06: same length).</summary>
    public const string ExecutionReportFields =
        "35=8|34=4711|49=BROKER|52=20260315-14:30:05.125|56=CLIENT12|1=ACCOUNT-01|6=101.25|11=ORD-000123|14=400|17=EXEC-0000077|31=101.25|32=400|" +
        "37=OID-000000009|38=1000|39=1|40=2|44=101.25|54=1|55=MSFT|59=0|60=20260315-14:30:05.120|150=F|151=600|" +
        "453=3|448=BROKER-DESK-1|447=D|452=1|448=CLIENT-TRADER-9|447=D|452=11|448=XNAS|447=G|452=22|58=partial fill on venue|";

    public static readonly byte[] ExecutionReport = Build("FIX.4.4", ExecutionReportFields);

    public static byte[] Get(string name) => name switch
    {
        nameof(Heartbeat) => Heartbeat,
        nameof(NewOrderSingle) => NewOrderSingle,
        nameof(ExecutionReport) => ExecutionReport,
        _ => throw new ArgumentException(name, nameof(name)),
    };

    /// <summary>A framed message: 8, 9 (computed), the fields, 10 (computed).</summary>
    public static byte[] Build(string beginString, string pipeBody)
    {
        string body = pipeBody.Replace('|', '\u0001');
        string head = "8=" + beginString + "\u00019=" + body.Length + "\u0001";
        byte[] withoutTrailer = Encoding.ASCII.GetBytes(head + body);
        int sum = 0;
        foreach (byte b in withoutTrailer) sum += b;
        return Encoding.ASCII.GetBytes(head + body + "10=" + (sum % 256).ToString("000") + "\u0001");
    }

    // NoInlining: called from a one-line benchmark method, this method would be inlined into it (a discretionary,
    // profile-driven inline), and force-inlines below a discretionary one do not raise the JIT's inlining budget, so
    // none of the writer's fast paths would be inlined. EncodeNewOrderSingle measured 127-207 ns that way against
    // 64 ns as its own compilation root (scratch min-of-500 loop calling the benchmark class).
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int EncodeNewOrderSingle(Span<byte> buffer, int seqNum, long nowNs, UtcTimestampCache cache)
    {
        var w = new FixWriter(buffer);
        w.Begin(BeginStrings.Fix44, MsgTypes.NewOrderSingle);
        w.Write(FixTags.MsgSeqNum, seqNum);
        w.Write(FixTags.SenderCompID, "CLIENT12"u8);
        w.WriteTimestamp(FixTags.SendingTime, nowNs, TimestampPrecision.Millis, cache);
        w.Write(FixTags.TargetCompID, "BROKER"u8);
        w.Write(FixTags.Account, "ACCOUNT-01"u8);
        w.Write(FixTags.ClOrdID, "ORD-000123"u8);
        w.Write(FixTags.HandlInst, '1');
        w.Write(FixTags.OrderQty, 1000);
        w.Write(FixTags.OrdType, '2');
        w.Write(FixTags.Price, new FixDecimal(10125, 2));
        w.Write(FixTags.Side, '1');
        w.Write(FixTags.Symbol, "MSFT"u8);
        w.Write(FixTags.TimeInForce, '0');
        w.WriteTimestamp(FixTags.TransactTime, TransactTimeNs, TimestampPrecision.Millis);
        return w.Finish();
    }

    // NoInlining: called from a one-line benchmark method, this method would be inlined into it (a discretionary,
    // profile-driven inline), and force-inlines below a discretionary one do not raise the JIT's inlining budget, so
    // none of the writer's fast paths would be inlined. EncodeNewOrderSingle measured 127-207 ns that way against
    // 64 ns as its own compilation root (scratch min-of-500 loop calling the benchmark class).
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int EncodeExecutionReport(Span<byte> buffer, int seqNum, long nowNs, UtcTimestampCache cache)
    {
        var w = new FixWriter(buffer);
        w.Begin(BeginStrings.Fix44, MsgTypes.ExecutionReport);
        w.Write(FixTags.MsgSeqNum, seqNum);
        w.Write(FixTags.SenderCompID, "BROKER"u8);
        w.WriteTimestamp(FixTags.SendingTime, nowNs, TimestampPrecision.Millis, cache);
        w.Write(FixTags.TargetCompID, "CLIENT12"u8);
        w.Write(FixTags.Account, "ACCOUNT-01"u8);
        w.Write(FixTags.AvgPx, new FixDecimal(10125, 2));
        w.Write(FixTags.ClOrdID, "ORD-000123"u8);
        w.Write(FixTags.CumQty, 400);
        w.Write(FixTags.ExecID, "EXEC-0000077"u8);
        w.Write(FixTags.LastPx, new FixDecimal(10125, 2));
        w.Write(FixTags.LastQty, 400);
        w.Write(FixTags.OrderID, "OID-000000009"u8);
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
        w.Write(FixTags.NoPartyIDs, 3);
        w.Write(FixTags.PartyID, "BROKER-DESK-1"u8);
        w.Write(FixTags.PartyIDSource, 'D');
        w.Write(FixTags.PartyRole, 1);
        w.Write(FixTags.PartyID, "CLIENT-TRADER-9"u8);
        w.Write(FixTags.PartyIDSource, 'D');
        w.Write(FixTags.PartyRole, 11);
        w.Write(FixTags.PartyID, "XNAS"u8);
        w.Write(FixTags.PartyIDSource, 'G');
        w.Write(FixTags.PartyRole, 22);
        w.Write(FixTags.Text, "partial fill on venue"u8);
        return w.Finish();
    }
}
