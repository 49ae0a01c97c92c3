using System;
using System.Collections.Generic;
using System.Text;
using FixEngine.Codec;
using FixEngine.Dictionary;
using FixEngine.Session;
using FixEngine.Tests.Session;
using Fix44 = FixMessages.Fix44;
using Fix50 = FixMessages.Fix50Sp2;

namespace FixEngine.Tests.Generated;

/// <summary>Typed readers and writers generated from the shared FIX.4.4 and FIX.5.0SP2 dictionaries, checked against the raw API.</summary>
public sealed class TypedMessageTests
{
    internal static readonly long TransactTimeNs = new DateTimeOffset(2026, 1, 5, 12, 30, 15, 123, TimeSpan.Zero).ToUnixTimeMilliseconds() * 1_000_000L;

    internal static readonly FixTimestamp TransactTime = FixTimestamp.FromUnixNanoseconds(TransactTimeNs);

    internal static readonly Fix44.Groups.NoPartyIDs.Data[] Parties =
    [
        new("BROKER1"u8.ToArray()) { PartyIDSource = Fix44.PartyIDSource.Proprietary, PartyRole = Fix44.PartyRole.ExecutingFirm },
        new("CLIENT9"u8.ToArray())
        {
            PartyIDSource = Fix44.PartyIDSource.Proprietary,
            PartyRole = Fix44.PartyRole.ClientId,
            NoPartySubIDs = new Fix44.Groups.NoPartySubIDs.Data[] { new("DESK-A"u8.ToArray()) { PartySubIDType = Fix44.PartySubIDType.Firm } },
        },
    ];

    internal static void Header(ref FixWriter w, ReadOnlySpan<byte> beginString, ReadOnlySpan<byte> msgType)
    {
        w.Begin(beginString, msgType);
        w.Write(FixTags.SenderCompID, "CLIENT"u8);
        w.Write(FixTags.TargetCompID, "VENUE"u8);
        w.Write(FixTags.MsgSeqNum, 7);
        w.WriteTimestamp(FixTags.SendingTime, TransactTimeNs, TimestampPrecision.Millis);
    }

    /// <summary>A FIX.4.4 NewOrderSingle through the typed writer.</summary>
    internal static int WriteTypedOrder(Span<byte> buffer, Fix44.Groups.NoPartyIDs.Data[] parties)
    {
        var w = new FixWriter(buffer);
        Header(ref w, "FIX.4.4"u8, Fix44.NewOrderSingle.MsgType);
        bool ok = Fix44.NewOrderSingle.Write(ref w,
            clOrdID: "ORD-1"u8, side: Fix44.Side.Buy, transactTime: TransactTime, ordType: Fix44.OrdType.Limit,
            noPartyIDs: parties, account: "ACC-7"u8, symbol: "INTC"u8, orderQty: new FixDecimal(100, 0),
            price: new FixDecimal(12345, 2), timeInForce: Fix44.TimeInForce.Day);
        if (!ok || !w.TryFinish(out int length)) throw new InvalidOperationException("typed write failed");
        return length;
    }

    /// <summary>A FIX.4.4 ExecutionReport through the raw writer (fields in a scrambled but legal order).</summary>
    internal static int WriteRawExecutionReport(Span<byte> buffer)
    {
        var w = new FixWriter(buffer);
        Header(ref w, "FIX.4.4"u8, "8"u8);
        w.Write(FixTags.OrderID, "O-1"u8);
        w.Write(FixTags.ClOrdID, "ORD-1"u8);
        w.Write(FixTags.NoPartyIDs, 1);
        w.Write(FixTags.PartyID, "BROKER1"u8);
        w.Write(FixTags.PartyIDSource, 'D');
        w.Write(FixTags.PartyRole, 1);
        w.Write(FixTags.ExecID, "E-1"u8);
        w.Write(FixTags.ExecType, 'F');
        w.Write(FixTags.OrdStatus, '2');
        w.Write(FixTags.Symbol, "INTC"u8);
        w.Write(FixTags.Side, '2');
        w.Write(FixTags.LastQty, 100);
        w.Write(FixTags.LastPx, new FixDecimal(12345, 2));
        w.Write(FixTags.LeavesQty, 0);
        w.Write(FixTags.CumQty, 100);
        w.Write(FixTags.AvgPx, new FixDecimal(12345, 2));
        w.WriteTimestamp(FixTags.TransactTime, TransactTimeNs, TimestampPrecision.Micros);
        w.Write(Fix44.Tags.LastCapacity, '1');
        if (!w.TryFinish(out int length)) throw new InvalidOperationException("raw write failed");
        return length;
    }

    private static FixMessage Parse(byte[] buffer, int length, FixMessageIndex index)
    {
        Assert.True(index.Parse(buffer.AsSpan(0, length)), index.Defect.Describe());
        return new FixMessage(buffer.AsSpan(0, length), index);
    }

    [Fact]
    public void TypedWriteIsReadBackByTheRawReaderInDictionaryOrderWithGroupCounts()
    {
        byte[] buffer = new byte[1024];
        int length = WriteTypedOrder(buffer, Parties);
        var index = new FixMessageIndex();
        FixMessage m = Parse(buffer, length, index);

        Assert.True(m.TryGetSpan(FixTags.ClOrdID, out ReadOnlySpan<byte> clOrdId) && clOrdId.SequenceEqual("ORD-1"u8));
        Assert.Equal(FixValueStatus.Ok, m.TryGetChar(FixTags.Side, out char side));
        Assert.Equal('1', side);
        Assert.Equal(FixValueStatus.Ok, m.TryGetChar(FixTags.OrdType, out char ordType));
        Assert.Equal('2', ordType);
        Assert.Equal(FixValueStatus.Ok, m.TryGetTimestamp(FixTags.TransactTime, out long transact));
        Assert.Equal(TransactTimeNs, transact);
        Assert.Equal(FixValueStatus.Ok, m.TryGetDecimal(FixTags.Price, out FixDecimal price));
        Assert.Equal(123.45m, price.ToDecimal());
        Assert.Equal("0", m.GetString(FixTags.TimeInForce));
        Assert.Equal("ACC-7", m.GetString(FixTags.Account));

        // Group count computed from the entries, nested group included, read with the dictionary's own definition.
        DataDictionary fix44 = SessionHarness.Dictionary("FIX44.xml");
        FixGroup group = m.GetGroup(fix44.GetFixGroupDefinition("D", FixTags.NoPartyIDs)!);
        Assert.Equal(FixGroupStatus.Ok, group.Status);
        Assert.Equal(2, group.DeclaredCount);
        var ids = new List<string>();
        foreach (FixMessage entry in group) ids.Add(entry.GetString(FixTags.PartyID)!);
        Assert.Equal(["BROKER1", "CLIENT9"], ids);
        Assert.Equal("DESK-A", m.GetString(523));
        Assert.Equal("1", m.GetString(803));

        // Body fields follow the dictionary's order for NewOrderSingle.
        MessageDefinition definition = fix44.GetMessage("D")!;
        int last = -1;
        var order = new List<int>();
        for (int i = 0; i < m.Count; i++)
        {
            int tag = m.GetTag(i);
            if (fix44.IsHeaderField(tag) || fix44.IsTrailerField(tag) || !definition.IsAllowed(tag)) continue;
            int position = definition.Fields.IndexOf(tag);
            order.Add(tag);
            Assert.True(position > last, "out of dictionary order: " + string.Join(",", order));
            last = position;
        }
        Assert.Equal([11, 453, 1, 55, 54, 60, 38, 40, 44, 59], order);

        // And the whole message passes the session's validation against FIX44.xml.
        var validator = new MessageValidator(fix44, null, new ValidationOptions());
        Assert.True(validator.Validate(m).IsValid, validator.Validate(m).ToString());
    }

    [Fact]
    public void RawWriteIsReadByTheTypedReader()
    {
        byte[] buffer = new byte[1024];
        int length = WriteRawExecutionReport(buffer);
        var index = new FixMessageIndex();
        var report = new Fix44.ExecutionReport.Reader(Parse(buffer, length, index));

        Assert.True(report.OrderID.SequenceEqual("O-1"u8));
        Assert.True(report.ClOrdID.SequenceEqual("ORD-1"u8));
        Assert.Equal(Fix44.ExecType.Trade, report.ExecType);
        Assert.Equal(Fix44.OrdStatus.Filled, report.OrdStatus);
        Assert.Equal(Fix44.Side.Sell, report.Side);
        Assert.Equal(new FixDecimal(12345, 2), report.LastPx);
        Assert.Equal(100m, report.LastQty!.Value.ToDecimal());
        Assert.Equal(0m, report.LeavesQty.ToDecimal());
        Assert.Equal(TransactTimeNs, report.TransactTimeNs);
        Assert.Equal(new DateTime(2026, 1, 5, 12, 30, 15, 123, DateTimeKind.Utc), report.TransactTime);
        Assert.Equal(Fix44.LastCapacity.Agent, report.LastCapacity);
        Assert.Null(report.Price);
        Assert.False(report.TryGetPrice(out _));
        Assert.True(report.Account.IsEmpty);
        Assert.True(report.Header.SenderCompID.SequenceEqual("CLIENT"u8));
        Assert.Equal(7, report.Header.MsgSeqNum);

        int parties = 0;
        foreach (Fix44.Groups.NoPartyIDs.Entry party in report.NoPartyIDs)
        {
            parties++;
            Assert.True(party.PartyID.SequenceEqual("BROKER1"u8));
            Assert.Equal(Fix44.PartyIDSource.Proprietary, party.PartyIDSource);
            Assert.Equal(Fix44.PartyRole.ExecutingFirm, party.PartyRole);
            Assert.Equal(FixGroupStatus.Missing, party.NoPartySubIDs.Status);
        }
        Assert.Equal(1, parties);
        Assert.Equal(FixGroupStatus.Ok, report.NoPartyIDs.Status);
        Assert.Equal(FixGroupStatus.Missing, report.NoContraBrokers.Status);
    }

    [Fact]
    public void TypedWriteThenTypedReadRoundTripsNestedGroups()
    {
        byte[] buffer = new byte[1024];
        int length = WriteTypedOrder(buffer, Parties);
        var index = new FixMessageIndex();
        var order = new Fix44.NewOrderSingle.Reader(Parse(buffer, length, index));
        Assert.True(order.ClOrdID.SequenceEqual("ORD-1"u8));
        Assert.Equal(Fix44.Side.Buy, order.Side);
        Assert.Equal(Fix44.OrdType.Limit, order.OrdType);
        Assert.Equal(Fix44.TimeInForce.Day, order.TimeInForce);
        Assert.Equal(new FixDecimal(100, 0), order.OrderQty);
        var subIds = new List<string>();
        foreach (Fix44.Groups.NoPartyIDs.Entry party in order.NoPartyIDs)
        {
            foreach (Fix44.Groups.NoPartySubIDs.Entry sub in party.NoPartySubIDs)
            {
                subIds.Add(Encoding.ASCII.GetString(party.PartyID) + "/" + Encoding.ASCII.GetString(sub.PartySubID) + "/" + sub.PartySubIDType);
            }
        }
        Assert.Equal(["CLIENT9/DESK-A/Firm"], subIds);
    }

    [Fact]
    public void MissingRequiredValuesAreRefusedBeforeAnythingIsWritten()
    {
        byte[] buffer = new byte[1024];
        var w = new FixWriter(buffer);
        Header(ref w, "FIX.4.4"u8, "D"u8);
        int before = w.Written;
        Assert.False(Fix44.NewOrderSingle.Write(ref w, clOrdID: default, side: Fix44.Side.Buy, transactTime: TransactTime, ordType: Fix44.OrdType.Market));
        Assert.Equal(before, w.Written);
        // default(Data) bypasses the constructor: its delimiter is missing, so the whole group is refused.
        Assert.False(Fix44.NewOrderSingle.Write(ref w, clOrdID: "X"u8, side: Fix44.Side.Buy, transactTime: TransactTime, ordType: Fix44.OrdType.Market,
            noPartyIDs: new Fix44.Groups.NoPartyIDs.Data[] { default }));
        Assert.Equal(before, w.Written);
        Assert.True(Fix44.NewOrderSingle.Write(ref w, clOrdID: "X"u8, side: Fix44.Side.Buy, transactTime: TransactTime, ordType: Fix44.OrdType.Market));
        Assert.True(w.Written > before);
    }

    [Fact]
    public void ConstantsComeFromTheDictionary()
    {
        Assert.Equal(11, Fix44.Tags.ClOrdID);
        Assert.Equal(453, Fix44.Tags.NoPartyIDs);
        Assert.True(Fix44.MessageTypes.NewOrderSingle.SequenceEqual("D"u8));
        Assert.Equal("8", Fix44.ExecutionReport.MsgTypeText);
        Assert.Equal("FIX.4.4", Fix44.FixDictionaryInfo.Version);
        Assert.Equal("FIX.5.0SP2", Fix50.FixDictionaryInfo.Version);
        Assert.Equal((byte)'F', (byte)Fix44.ExecType.Trade);
        Assert.Equal(1128, FixMessages.Fixt11.Tags.ApplVerID);
    }

    [Fact]
    public void Fix50Sp2OrderWithPartiesThroughAComponentRoundTrips()
    {
        byte[] buffer = new byte[2048];
        var w = new FixWriter(buffer);
        Header(ref w, "FIXT.1.1"u8, Fix50.NewOrderSingle.MsgType);
        Assert.True(Fix50.NewOrderSingle.Write(ref w, clOrdID: "N-1"u8, side: Fix50.Side.SellShort, transactTime: TransactTime,
            ordType: Fix50.OrdType.Limit, noPartyIDs: new Fix50.Groups.NoPartyIDs.Data[] { new("P"u8.ToArray()) { PartyRole = Fix50.PartyRole.ClientId } },
            symbol: "VOD"u8, orderQty: new FixDecimal(5, 0), price: new FixDecimal(1, 1)));
        Assert.True(w.TryFinish(out int length));
        var index = new FixMessageIndex();
        FixMessage m = Parse(buffer, length, index);
        var validator = new MessageValidator(SessionHarness.Dictionary("FIXT11.xml"), SessionHarness.Dictionary("FIX50SP2.xml"), new ValidationOptions());
        Assert.True(validator.Validate(m).IsValid, validator.Validate(m).ToString());
        var order = new Fix50.NewOrderSingle.Reader(m);
        Assert.Equal(Fix50.Side.SellShort, order.Side);
        Assert.Equal(1, order.NoPartyIDs.Count);
        foreach (Fix50.Groups.NoPartyIDs.Entry party in order.NoPartyIDs) Assert.Equal(Fix50.PartyRole.ClientId, party.PartyRole);
    }
}
