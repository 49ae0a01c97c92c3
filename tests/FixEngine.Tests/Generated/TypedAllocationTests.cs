using System;
using FixEngine.Codec;
using FixEngine.Session;
using FixEngine.Tests.Infrastructure;
using Fix44 = FixMessages.Fix44;

namespace FixEngine.Tests.Generated;

/// <summary>Typed reads and writes of NewOrderSingle and ExecutionReport, and the cracker, allocate nothing once warm.</summary>
[Collection(nameof(AllocationMeasurement))]
public sealed class TypedAllocationTests
{
    [Fact]
    public void TypedWriteOfOrderAndReportAllocatesNothing()
    {
        byte[] buffer = new byte[1024];
        Fix44.Groups.NoPartyIDs.Data[] parties = TypedMessageTests.Parties;
        long sum = 0;
        long allocated = Allocations.Measure(() =>
        {
            sum += TypedMessageTests.WriteTypedOrder(buffer, parties);
            var w = new FixWriter(buffer);
            TypedMessageTests.Header(ref w, "FIX.4.4"u8, Fix44.ExecutionReport.MsgType);
            Fix44.ExecutionReport.Write(ref w, orderID: "O-1"u8, execID: "E-1"u8, execType: Fix44.ExecType.Trade, ordStatus: Fix44.OrdStatus.Filled,
                side: Fix44.Side.Buy, leavesQty: new FixDecimal(0, 0), cumQty: new FixDecimal(100, 0), avgPx: new FixDecimal(12345, 2),
                clOrdID: "ORD-1"u8, noPartyIDs: parties, symbol: "INTC"u8, lastQty: new FixDecimal(100, 0), lastPx: new FixDecimal(12345, 2),
                transactTime: TypedMessageTests.TransactTime);
            w.TryFinish(out int length);
            sum += length;
        });
        Assert.Equal(0, allocated);
        Assert.NotEqual(0, sum);
    }

    [Fact]
    public void TypedBodyWritersOfOrderAndReportAllocateNothing() // groups as spans of entries and entry by entry
    {
        byte[] buffer = new byte[1024];
        Fix44.Groups.NoPartyIDs.Data[] parties = TypedMessageTests.Parties;
        long sum = 0;
        long allocated = Allocations.Measure(() =>
        {
            sum += TypedBodyWriterTests.WriteOrder(buffer, parties);
            sum += TypedBodyWriterTests.WriteReport(buffer, parties);
            sum += TypedEntryChainTests.WriteReportByEntries(buffer);
        });
        Assert.Equal(0, allocated);
        Assert.NotEqual(0, sum);
    }

    [Fact]
    public void TypedReadOfOrderAndReportAllocatesNothing()
    {
        byte[] order = new byte[1024];
        int orderLength = TypedMessageTests.WriteTypedOrder(order, TypedMessageTests.Parties);
        byte[] report = new byte[1024];
        int reportLength = TypedMessageTests.WriteRawExecutionReport(report);
        var index = new FixMessageIndex();
        long sum = 0;
        long allocated = Allocations.Measure(() =>
        {
            index.Parse(order.AsSpan(0, orderLength));
            var o = new Fix44.NewOrderSingle.Reader(new FixMessage(order.AsSpan(0, orderLength), index));
            sum += o.ClOrdID.Length + (byte)o.Side + (byte)o.OrdType + o.TransactTimeNs + o.OrderQty!.Value.Mantissa + o.Price!.Value.Mantissa + o.Symbol.Length;
            foreach (Fix44.Groups.NoPartyIDs.Entry party in o.NoPartyIDs)
            {
                sum += party.PartyID.Length + (int)party.PartyRole!.Value;
                foreach (Fix44.Groups.NoPartySubIDs.Entry sub in party.NoPartySubIDs) sum += sub.PartySubID.Length;
            }
            index.Parse(report.AsSpan(0, reportLength));
            var r = new Fix44.ExecutionReport.Reader(new FixMessage(report.AsSpan(0, reportLength), index));
            sum += r.OrderID.Length + r.ExecID.Length + (byte)r.ExecType + (byte)r.OrdStatus + r.LastPx!.Value.Mantissa + r.LeavesQty.Mantissa
                + r.CumQty.Mantissa + r.TransactTimeNs!.Value + r.Header.MsgSeqNum;
            foreach (Fix44.Groups.NoPartyIDs.Entry party in r.NoPartyIDs) sum += party.PartyID.Length;
        });
        Assert.Equal(0, allocated);
        Assert.NotEqual(0, sum);
    }

    [Fact]
    public void CrackAllocatesNothing()
    {
        byte[] buffer = new byte[1024];
        int length = TypedMessageTests.WriteTypedOrder(buffer, TypedMessageTests.Parties);
        var index = new FixMessageIndex();
        Assert.True(index.Parse(buffer.AsSpan(0, length)));
        var app = new Summing();
        FromAppResult result = default;
        long allocated = Allocations.Measure(() => result = app.Crack(null!, new FixMessage(buffer.AsSpan(0, length), index)));
        Assert.Equal(0, allocated);
        Assert.Equal(FromAppAction.Accepted, result.Action);
        Assert.NotEqual(0, app.Sum);
    }

    private sealed class Summing : Fix44.MessageCracker
    {
        public long Sum;

        public override FromAppResult OnMessage(FixEngine.Session.FixSession session, in Fix44.NewOrderSingle.Reader order)
        {
            Sum += order.ClOrdID.Length + (byte)order.Side;
            return FromAppResult.Accepted;
        }
    }
}
