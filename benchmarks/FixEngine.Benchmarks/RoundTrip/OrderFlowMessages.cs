using System;
using FixEngine.Codec;
using FixEngine.Timing;

namespace FixEngine.Benchmarks.RoundTrip;

/// <summary>Encodes the NewOrderSingle and ExecutionReport exchanged by the FIX round-trip configurations.</summary>
/// <remarks>
/// One instance per thread (the timestamp cache is single-threaded). Allocation-free after construction. The order
/// carries its intended send time (monotonic ns) as the ClOrdID, the report echoes the ClOrdID:
/// <code>
///   8=FIX.4.4|9=..|35=D|49=CLIENT01|56=BROKER01|34=n|52=ts|11=intendedNs|1=ACCT0001|21=1|55=MSFT|54=1|60=ts|38=100|40=2|44=123.45|59=0|10=..|
///   8=FIX.4.4|9=..|35=8|49=BROKER01|56=CLIENT01|34=n|52=ts|37=n|11=intendedNs|17=n|150=0|39=0|1=..|55=..|54=..|38=..|40=..|44=..|151=..|14=0|6=0|60=ts|10=..|
/// </code>
/// </remarks>
public sealed class OrderFlowMessages
{
    /// <summary>Largest message body the readers accept.</summary>
    public const int MaxBodyLength = 4096;

    private readonly UtcTimestampCache _timestamps = new();

    private static ReadOnlySpan<byte> Client => "CLIENT01"u8;

    private static ReadOnlySpan<byte> Broker => "BROKER01"u8;

    /// <summary>Writes a NewOrderSingle into <paramref name="destination"/>.</summary>
    /// <param name="destination">Output buffer (256 bytes are plenty).</param>
    /// <param name="msgSeqNum">MsgSeqNum.</param>
    /// <param name="intendedSendNs">Intended send time, written as ClOrdID.</param>
    /// <param name="epochNs">Wall-clock time for SendingTime and TransactTime.</param>
    /// <returns>The message length, 0 when it did not fit.</returns>
    public int EncodeNewOrderSingle(Span<byte> destination, long msgSeqNum, long intendedSendNs, long epochNs)
    {
        var w = new FixWriter(destination);
        w.Begin(BeginStrings.Fix44, MsgTypes.NewOrderSingle);
        w.Write(FixTags.SenderCompID, Client);
        w.Write(FixTags.TargetCompID, Broker);
        w.Write(FixTags.MsgSeqNum, msgSeqNum);
        w.WriteTimestamp(FixTags.SendingTime, epochNs, TimestampPrecision.Micros, _timestamps);
        w.Write(FixTags.ClOrdID, intendedSendNs);
        w.Write(FixTags.Account, "ACCT0001"u8);
        w.Write(FixTags.HandlInst, '1');
        w.Write(FixTags.Symbol, "MSFT"u8);
        w.Write(FixTags.Side, '1');
        w.WriteTimestamp(FixTags.TransactTime, epochNs, TimestampPrecision.Micros, _timestamps);
        w.Write(FixTags.OrderQty, 100L);
        w.Write(FixTags.OrdType, '2');
        w.Write(FixTags.Price, new FixDecimal(12345, 2));
        w.Write(FixTags.TimeInForce, '0');
        return w.TryFinish(out int length) ? length : 0;
    }

    /// <summary>Writes the ExecutionReport (ExecType=New) answering <paramref name="order"/>.</summary>
    /// <param name="destination">Output buffer (512 bytes are plenty).</param>
    /// <param name="order">The parsed NewOrderSingle.</param>
    /// <param name="msgSeqNum">The report's MsgSeqNum (also used as OrderID and ExecID).</param>
    /// <param name="epochNs">Wall-clock time for SendingTime and TransactTime.</param>
    /// <returns>The message length, 0 when it did not fit or a required order field is missing.</returns>
    public int EncodeExecutionReport(Span<byte> destination, FixMessage order, long msgSeqNum, long epochNs)
    {
        if (!order.TryGetSpan(FixTags.ClOrdID, out ReadOnlySpan<byte> clOrdId)
            || !order.TryGetSpan(FixTags.Symbol, out ReadOnlySpan<byte> symbol)
            || order.TryGetChar(FixTags.Side, out char side) != FixValueStatus.Ok
            || order.TryGetDecimal(FixTags.OrderQty, out FixDecimal quantity) != FixValueStatus.Ok)
        {
            return 0;
        }
        order.TryGetSpan(FixTags.Account, out ReadOnlySpan<byte> account);
        order.TryGetDecimal(FixTags.Price, out FixDecimal price);
        order.TryGetChar(FixTags.OrdType, out char ordType);

        var w = new FixWriter(destination);
        w.Begin(BeginStrings.Fix44, MsgTypes.ExecutionReport);
        w.Write(FixTags.SenderCompID, Broker);
        w.Write(FixTags.TargetCompID, Client);
        w.Write(FixTags.MsgSeqNum, msgSeqNum);
        w.WriteTimestamp(FixTags.SendingTime, epochNs, TimestampPrecision.Micros, _timestamps);
        w.Write(FixTags.OrderID, msgSeqNum);
        w.Write(FixTags.ClOrdID, clOrdId);
        w.Write(FixTags.ExecID, msgSeqNum);
        w.Write(FixTags.ExecType, '0');
        w.Write(FixTags.OrdStatus, '0');
        if (!account.IsEmpty) w.Write(FixTags.Account, account);
        w.Write(FixTags.Symbol, symbol);
        w.Write(FixTags.Side, side);
        w.Write(FixTags.OrderQty, quantity);
        if (ordType != '\0') w.Write(FixTags.OrdType, ordType);
        w.Write(FixTags.Price, price);
        w.Write(FixTags.LeavesQty, quantity);
        w.Write(FixTags.CumQty, 0L);
        w.Write(FixTags.AvgPx, FixDecimal.Zero);
        w.WriteTimestamp(FixTags.TransactTime, epochNs, TimestampPrecision.Micros, _timestamps);
        return w.TryFinish(out int length) ? length : 0;
    }

    /// <summary>The sizes of a typical order and report, for the raw floor's same-sized messages.</summary>
    /// <param name="orderLength">NewOrderSingle length.</param>
    /// <param name="reportLength">ExecutionReport length.</param>
    public static void MeasureTypicalSizes(out int orderLength, out int reportLength)
    {
        var messages = new OrderFlowMessages();
        long epochNs = DateTime.UtcNow.Ticks * 100 - DateTime.UnixEpoch.Ticks * 100;
        long intended = HighResTime.NowNs();
        byte[] order = new byte[1024];
        byte[] report = new byte[1024];
        orderLength = messages.EncodeNewOrderSingle(order, 1_000_000, intended, epochNs);
        var index = new FixMessageIndex();
        index.Parse(order.AsSpan(0, orderLength));
        reportLength = messages.EncodeExecutionReport(report, index.Bind(order.AsSpan(0, orderLength)), 1_000_000, epochNs);
    }
}
