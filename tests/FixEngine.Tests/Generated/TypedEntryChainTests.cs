using System;
using FixEngine.Codec;
using FixEngine.Tests.Codec;
using Venue = FixEngine.Tests.Generated.Venue;
using Fix44 = FixMessages.Fix44;

namespace FixEngine.Tests.Generated;

/// <summary>
/// Groups written entry by entry through the typed body writer (<c>.NoPartyIDs(count).PartyID(..)...EndNoPartyIDs()</c>):
/// the same bytes as a span of entry structs, the count and the in-entry order checked, required entry members enforced.
/// </summary>
public sealed class TypedEntryChainTests
{
    private static string Text(Span<byte> buffer, int length) => FixText.Pipe(buffer.Slice(0, length));

    /// <summary><see cref="TypedBodyWriterTests.WriteReport"/> with <see cref="TypedMessageTests.Parties"/>, the parties written entry by entry.</summary>
    internal static int WriteReportByEntries(Span<byte> buffer)
    {
        var w = new FixWriter(buffer);
        return WriteReportByEntries(ref w);
    }

    private static int WriteReportByEntries(ref FixWriter w)
    {
        TypedMessageTests.Header(ref w, "FIX.4.4"u8, Fix44.ExecutionReport.MsgType);
        bool ok = Fix44.ExecutionReport.Begin(ref w)
            .OrderID("O-1"u8)
            .ClOrdID("ORD-1"u8)
            .NoPartyIDs(2)
                .PartyID("BROKER1"u8).PartyIDSource(Fix44.PartyIDSource.Proprietary).PartyRole(Fix44.PartyRole.ExecutingFirm)
                .PartyID("CLIENT9"u8).PartyIDSource(Fix44.PartyIDSource.Proprietary).PartyRole(Fix44.PartyRole.ClientId)
                    .NoPartySubIDs(1).PartySubID("DESK-A"u8).PartySubIDType(Fix44.PartySubIDType.Firm).EndNoPartySubIDs()
            .EndNoPartyIDs()
            .ExecID("E-1"u8)
            .ExecType(Fix44.ExecType.Trade)
            .OrdStatus(Fix44.OrdStatus.Filled)
            .Symbol("INTC"u8)
            .Side(Fix44.Side.Buy)
            .LastQty(new FixDecimal(100, 0))
            .LastPx(new FixDecimal(12345, 2))
            .LeavesQty(new FixDecimal(0, 0))
            .CumQty(new FixDecimal(100, 0))
            .AvgPx(new FixDecimal(12345, 2))
            .TransactTime(TypedMessageTests.TransactTime, TimestampPrecision.Micros)
            .Text("done"u8)
            .End();
        if (!ok || !w.TryFinish(out int length)) throw new InvalidOperationException("typed entry-by-entry write failed");
        return length;
    }

    private static ref Fix44.NewOrderSingle.BeforeSide OrderStart(ref FixWriter w) =>
        ref Fix44.NewOrderSingle.Begin(ref w).ClOrdID("X"u8);

    [Fact]
    public void ABodyFieldGivenThroughAHeldViewWhileItsGroupIsOpenIsRefused()
    {
        // Without the check the body read 453=1|448=P|1=A|452=3: a body field between a group's members, accepted by End.
        byte[] buffer = new byte[512];
        var w = new FixWriter(buffer);
        TypedMessageTests.Header(ref w, "FIX.4.4"u8, Fix44.NewOrderSingle.MsgType);
        ref Fix44.NewOrderSingle.BeforeSide start = ref OrderStart(ref w);
        ref Fix44.Groups.NoPartyIDs.Writer<Fix44.NewOrderSingle.BeforeSide> parties = ref start.NoPartyIDs(1);
        parties.PartyID("P"u8);
        start.Account("A"u8);
        Assert.False(parties.PartyRole(Fix44.PartyRole.ClientId).EndNoPartyIDs().Side(Fix44.Side.Buy)
            .TransactTime(TypedMessageTests.TransactTime).OrdType(Fix44.OrdType.Market).End(out FixBodyError error));
        Assert.Equal(new FixBodyError(FixBodyErrorReason.OutOfOrder, 1, 453).ToString(), error.ToString());

        // The same writer, the same fields in order: written, and the flag is gone after the group's close.
        TypedMessageTests.Header(ref w, "FIX.4.4"u8, Fix44.NewOrderSingle.MsgType);
        Assert.True(OrderStart(ref w).NoPartyIDs(1).PartyID("P"u8).PartyRole(Fix44.PartyRole.ClientId).EndNoPartyIDs().Account("A"u8)
            .Side(Fix44.Side.Buy).TransactTime(TypedMessageTests.TransactTime).OrdType(Fix44.OrdType.Market).End(out error), error.ToString());
        Assert.True(w.TryFinish(out int length));
        Assert.Contains("|11=X|453=1|448=P|452=3|1=A|54=1|", Text(buffer, length));
    }

    [Fact]
    public void EntryByEntryWritesTheSameBytesAsASpanOfEntries()
    {
        byte[] a = new byte[1024];
        byte[] b = new byte[1024];
        string bySpan = Text(a, TypedBodyWriterTests.WriteReport(a, TypedMessageTests.Parties));
        string byEntries = Text(b, WriteReportByEntries(b));
        Assert.Equal(bySpan, byEntries);
        Assert.Contains("|453=2|448=BROKER1|447=D|452=1|448=CLIENT9|447=D|452=3|802=1|523=DESK-A|803=1|17=E-1|", byEntries);

        // And the reader reads it back.
        var index = new FixMessageIndex();
        Assert.True(index.Parse(b.AsSpan(0, byEntries.Length)), index.Defect.Describe());
        var r = new Fix44.ExecutionReport.Reader(new FixMessage(b.AsSpan(0, byEntries.Length), index));
        Assert.Equal(FixGroupStatus.Ok, r.NoPartyIDs.Status);
        Assert.Equal(2, r.NoPartyIDs.Count);
    }

    [Fact]
    public void WholeQuantitiesTakeALongAndWriteNoDecimals()
    {
        byte[] buffer = new byte[512];
        var w = new FixWriter(buffer);
        TypedMessageTests.Header(ref w, "FIX.4.4"u8, Fix44.NewOrderSingle.MsgType);
        Assert.True(OrderStart(ref w).Side(Fix44.Side.Buy).TransactTime(TypedMessageTests.TransactTime).OrderQty(1000)
            .OrdType(Fix44.OrdType.Limit).Price(new FixDecimal(10125, 2)).End());
        Assert.True(w.TryFinish(out int length));
        Assert.Contains("|38=1000|40=2|44=101.25|", Text(buffer, length));
    }

    [Theory]
    [InlineData(3, 2)]
    [InlineData(1, 2)]
    public void EntriesThatDifferFromTheCountRefuseTheBody(int count, int entries)
    {
        byte[] buffer = new byte[512];
        var w = new FixWriter(buffer);
        TypedMessageTests.Header(ref w, "FIX.4.4"u8, Fix44.NewOrderSingle.MsgType);
        ref Fix44.Groups.NoPartyIDs.Writer<Fix44.NewOrderSingle.BeforeSide> parties = ref OrderStart(ref w).NoPartyIDs(count);
        for (int i = 0; i < entries; i++) parties.PartyID("P"u8).PartyRole(Fix44.PartyRole.ClientId);
        Assert.False(parties.EndNoPartyIDs().Side(Fix44.Side.Buy).TransactTime(TypedMessageTests.TransactTime)
            .OrdType(Fix44.OrdType.Market).End(out FixBodyError error));
        Assert.Equal(FixBodyErrorReason.GroupCountMismatch, error.Reason);
        Assert.Equal(453, error.Tag);
        Assert.Contains("group 453", error.ToString());
        Assert.True(w.Failed);
        Assert.False(w.TryFinish(out _));
    }

    [Theory]
    [InlineData(-1)]
    [InlineData(65_536)]
    public void ACountOutOfRangeRefusesTheBody(int count)
    {
        byte[] buffer = new byte[512];
        var w = new FixWriter(buffer);
        TypedMessageTests.Header(ref w, "FIX.4.4"u8, Fix44.NewOrderSingle.MsgType);
        Assert.False(OrderStart(ref w).NoPartyIDs(count).EndNoPartyIDs().Side(Fix44.Side.Buy)
            .TransactTime(TypedMessageTests.TransactTime).OrdType(Fix44.OrdType.Market).End(out FixBodyError error));
        Assert.Equal(FixBodyErrorReason.GroupCountMismatch, error.Reason);
        Assert.Equal(453, error.Tag);
    }

    [Fact]
    public void ACountOfZeroWritesNoGroup()
    {
        byte[] buffer = new byte[512];
        var w = new FixWriter(buffer);
        TypedMessageTests.Header(ref w, "FIX.4.4"u8, Fix44.NewOrderSingle.MsgType);
        Assert.True(OrderStart(ref w).NoPartyIDs(0).EndNoPartyIDs().Side(Fix44.Side.Buy)
            .TransactTime(TypedMessageTests.TransactTime).OrdType(Fix44.OrdType.Market).End());
        Assert.True(w.TryFinish(out int length));
        string text = Text(buffer, length);
        Assert.Contains("|11=X|54=1|60=", text);
        Assert.DoesNotContain("453=", text);
    }

    [Fact]
    public void AMemberBeforeTheEntrysFirstFieldIsRefused()
    {
        byte[] buffer = new byte[512];
        var w = new FixWriter(buffer);
        TypedMessageTests.Header(ref w, "FIX.4.4"u8, Fix44.NewOrderSingle.MsgType);
        Assert.False(OrderStart(ref w).NoPartyIDs(1).PartyRole(Fix44.PartyRole.ClientId).PartyID("P"u8).EndNoPartyIDs().Side(Fix44.Side.Buy)
            .TransactTime(TypedMessageTests.TransactTime).OrdType(Fix44.OrdType.Market).End(out FixBodyError error));
        Assert.Equal(FixBodyErrorReason.EntryOutOfOrder, error.Reason);
        Assert.Equal(452, error.Tag);
        Assert.Equal(453, error.OtherTag);
    }

    [Fact]
    public void MembersOutOfDictionaryOrderOrTwiceInAnEntryAreRefused()
    {
        byte[] buffer = new byte[512];
        var w = new FixWriter(buffer);
        TypedMessageTests.Header(ref w, "FIX.4.4"u8, Fix44.NewOrderSingle.MsgType);
        // PartyIDSource (447) precedes PartyRole (452) in an entry.
        Assert.False(OrderStart(ref w).NoPartyIDs(1).PartyID("P"u8).PartyRole(Fix44.PartyRole.ClientId).PartyIDSource(Fix44.PartyIDSource.Mic)
            .EndNoPartyIDs().Side(Fix44.Side.Buy).TransactTime(TypedMessageTests.TransactTime).OrdType(Fix44.OrdType.Market)
            .End(out FixBodyError error));
        Assert.Equal(new FixBodyError(FixBodyErrorReason.EntryOutOfOrder, 447, 453).ToString(), error.ToString());

        TypedMessageTests.Header(ref w, "FIX.4.4"u8, Fix44.NewOrderSingle.MsgType);
        Assert.False(OrderStart(ref w).NoPartyIDs(1).PartyID("P"u8).PartyRole(Fix44.PartyRole.ClientId).PartyRole(Fix44.PartyRole.ClientId)
            .EndNoPartyIDs().Side(Fix44.Side.Buy).TransactTime(TypedMessageTests.TransactTime).OrdType(Fix44.OrdType.Market)
            .End(out error));
        Assert.Equal(FixBodyErrorReason.EntryOutOfOrder, error.Reason);
        Assert.Equal(452, error.Tag);

        // The next entry starts the order again.
        TypedMessageTests.Header(ref w, "FIX.4.4"u8, Fix44.NewOrderSingle.MsgType);
        Assert.True(OrderStart(ref w).NoPartyIDs(2).PartyID("P"u8).PartyRole(Fix44.PartyRole.ClientId).PartyID("Q"u8).PartyIDSource(Fix44.PartyIDSource.Mic)
            .PartyRole(Fix44.PartyRole.ClientId).EndNoPartyIDs().Side(Fix44.Side.Buy).TransactTime(TypedMessageTests.TransactTime)
            .OrdType(Fix44.OrdType.Market).End());
    }

    [Fact]
    public void AnEmptyDelimiterRefusesTheBody()
    {
        byte[] buffer = new byte[512];
        var w = new FixWriter(buffer);
        TypedMessageTests.Header(ref w, "FIX.4.4"u8, Fix44.NewOrderSingle.MsgType);
        Assert.False(OrderStart(ref w).NoPartyIDs(1).PartyID(default).EndNoPartyIDs().Side(Fix44.Side.Buy)
            .TransactTime(TypedMessageTests.TransactTime).OrdType(Fix44.OrdType.Market).End(out FixBodyError error));
        Assert.Equal(new FixBodyError(FixBodyErrorReason.IncompleteGroupEntry, 448, 453).ToString(), error.ToString());
    }

    [Fact]
    public void AVenueRequiredGroupWithARequiredNestedMemberWritesTheSameBytesAsTheNamedArgumentWrite()
    {
        byte[] a = new byte[1024];
        var w = new FixWriter(a);
        TypedMessageTests.Header(ref w, "FIX.4.4"u8, Venue.NewOrderSingle.MsgType);
        var strategy = new Venue.Groups.NoStrategyParams.Data[]
        {
            new("Aggression"u8.ToArray())
            {
                StrategyParamValue = "High"u8.ToArray(),
                NoStrategyParamLimits = new Venue.Groups.NoStrategyParamLimits.Data[]
                {
                    new(Venue.StrategyParamLimitKind.Min, new FixDecimal(99, 0)),
                    new(Venue.StrategyParamLimitKind.Max, new FixDecimal(1015, 1)),
                },
            },
            new("Venue"u8.ToArray()),
        };
        Assert.True(Venue.NewOrderSingle.Write(ref w, clOrdID: "V-1"u8, symbol: "ABC"u8, side: Venue.Side.Sell, transactTime: TypedMessageTests.TransactTime,
            orderQty: new FixDecimal(10, 0), ordType: Venue.OrdType.Limit, venueOrderClass: Venue.VenueOrderClass.MarketMaker, noStrategyParams: strategy,
            price: new FixDecimal(995, 1), postOnly: true, selfMatchID: "SMP-3"u8));
        Assert.True(w.TryFinish(out int expectedLength));

        byte[] b = new byte[1024];
        w = new FixWriter(b);
        TypedMessageTests.Header(ref w, "FIX.4.4"u8, Venue.NewOrderSingle.MsgType);
        // StrategyParamLimit is required in its entry: the kind leads only to it (EndNoStrategyParamLimits is not reachable
        // before; FixDictionaryGeneratorTests checks that this does not compile).
        Assert.True(Venue.NewOrderSingle.Begin(ref w).ClOrdID("V-1"u8).Symbol("ABC"u8).Side(Venue.Side.Sell).TransactTime(TypedMessageTests.TransactTime)
            .OrderQty(10).OrdType(Venue.OrdType.Limit).Price(new FixDecimal(995, 1)).VenueOrderClass(Venue.VenueOrderClass.MarketMaker)
            .SelfMatchID("SMP-3"u8).PostOnly(true)
            .NoStrategyParams(2)
                .StrategyParamName("Aggression"u8).StrategyParamValue("High"u8)
                    .NoStrategyParamLimits(2)
                        .StrategyParamLimitKind(Venue.StrategyParamLimitKind.Min).StrategyParamLimit(99)
                        .StrategyParamLimitKind(Venue.StrategyParamLimitKind.Max).StrategyParamLimit(new FixDecimal(1015, 1))
                    .EndNoStrategyParamLimits()
                .StrategyParamName("Venue"u8)
            .EndNoStrategyParams()
            .End());
        Assert.True(w.TryFinish(out int length));
        Assert.Equal(Text(a, expectedLength), Text(b, length));

        // The group is required: a count of 0 refuses the body.
        TypedMessageTests.Header(ref w, "FIX.4.4"u8, Venue.NewOrderSingle.MsgType);
        Assert.False(Venue.NewOrderSingle.Begin(ref w).ClOrdID("V-1"u8).Symbol("ABC"u8).Side(Venue.Side.Sell).TransactTime(TypedMessageTests.TransactTime)
            .OrderQty(10).OrdType(Venue.OrdType.Limit).VenueOrderClass(Venue.VenueOrderClass.MarketMaker)
            .NoStrategyParams(0).EndNoStrategyParams().End(out FixBodyError error));
        Assert.Equal(FixBodyErrorReason.RequiredMissing, error.Reason);
        Assert.Equal(20010, error.Tag);
    }

    [Fact]
    public void GroupsNestedMoreThanEightDeepAreRefused()
    {
        // Through the writer's typed-group members directly: no standard dictionary nests groups 9 deep (FIX.5.0SP2: 7).
        byte[] buffer = new byte[512];
        var w = new FixWriter(buffer);
        TypedMessageTests.Header(ref w, "FIX.4.4"u8, Fix44.NewOrderSingle.MsgType);
        w.OpenTypedBody();
        for (int depth = 0; depth < 8; depth++) w.OpenTypedGroup(453, 0);
        for (int depth = 0; depth < 8; depth++) w.CloseTypedGroup(453);
        Assert.True(w.CloseTypedBody(default, out FixBodyError error), error.ToString());

        TypedMessageTests.Header(ref w, "FIX.4.4"u8, Fix44.NewOrderSingle.MsgType);
        w.OpenTypedBody();
        for (int depth = 0; depth < 8; depth++) w.OpenTypedGroup(453, 0);
        w.OpenTypedGroup(802, 0);
        for (int depth = 0; depth < 9; depth++) w.CloseTypedGroup(453);
        Assert.False(w.CloseTypedBody(default, out error));
        Assert.Equal(FixBodyErrorReason.GroupTooDeep, error.Reason);
        Assert.Equal(802, error.Tag);
    }

    [Fact]
    public void AGroupViewEndedTwiceRefusesTheBodyNamingTheGroup()
    {
        byte[] buffer = new byte[512];
        var w = new FixWriter(buffer);
        TypedMessageTests.Header(ref w, "FIX.4.4"u8, Fix44.NewOrderSingle.MsgType);
        // Held with ref var, the group's view still reaches the writer after its End.
        ref Fix44.Groups.NoPartyIDs.Writer<Fix44.NewOrderSingle.BeforeSide> parties = ref OrderStart(ref w).NoPartyIDs(1);
        parties.PartyID("P"u8);
        parties.EndNoPartyIDs();
        Assert.False(parties.EndNoPartyIDs().Side(Fix44.Side.Buy).TransactTime(TypedMessageTests.TransactTime)
            .OrdType(Fix44.OrdType.Market).End(out FixBodyError error));
        Assert.Equal(new FixBodyError(FixBodyErrorReason.GroupCountMismatch, 453, 0).ToString(), error.ToString());

        // An entry after the group's End is one more than its count.
        TypedMessageTests.Header(ref w, "FIX.4.4"u8, Fix44.NewOrderSingle.MsgType);
        parties = ref OrderStart(ref w).NoPartyIDs(1);
        parties.PartyID("P"u8).EndNoPartyIDs();
        parties.PartyID("Q"u8);
        Assert.False(parties.EndNoPartyIDs().Side(Fix44.Side.Buy).TransactTime(TypedMessageTests.TransactTime)
            .OrdType(Fix44.OrdType.Market).End(out error));
        Assert.Equal(new FixBodyError(FixBodyErrorReason.GroupCountMismatch, 453, 0).ToString(), error.ToString());
    }

    [Fact]
    public void AWriterReusedAfterABodyLeftInsideNestedGroupsChecksTheNextBodyAfresh()
    {
        byte[] buffer = new byte[1024];
        var w = new FixWriter(buffer);
        TypedMessageTests.Header(ref w, "FIX.4.4"u8, Fix44.ExecutionReport.MsgType);
        w.OpenTypedBody();
        w.OpenTypedGroup(453, 7);
        w.BeginTypedEntry(453);
        w.AdvanceTypedEntry(3, 452, 453);
        w.OpenTypedGroup(802, 9);
        w.BeginTypedEntry(802);
        Assert.False(w.CloseTypedBody(default, out FixBodyError error));
        Assert.Equal(FixBodyErrorReason.GroupCountMismatch, error.Reason);

        // The same writer then writes the entry-by-entry report exactly as a fresh one does.
        byte[] expected = new byte[1024];
        int expectedLength = WriteReportByEntries(expected);
        int length = WriteReportByEntries(ref w);
        Assert.Equal(Text(expected, expectedLength), Text(buffer, length));

        // And a close with no group open is refused on its own (nothing left over is popped).
        TypedMessageTests.Header(ref w, "FIX.4.4"u8, Fix44.ExecutionReport.MsgType);
        w.OpenTypedBody();
        w.CloseTypedGroup(802);
        Assert.False(w.CloseTypedBody(default, out error));
        Assert.Equal(new FixBodyError(FixBodyErrorReason.GroupCountMismatch, 802, 0).ToString(), error.ToString());
    }

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public void AWriterReusedAfterADefectOutsideAnyGroupChecksTheNextBodyAfresh(bool endedFirst)
    {
        // A group view held after its End and given a member leaves the entry state set outside any group, with a defect
        // recorded; the next body (after the next header, with or without End called on the first) must start with no
        // entry, so a member before its entry's first field is refused again.
        byte[] buffer = new byte[512];
        var w = new FixWriter(buffer);
        TypedMessageTests.Header(ref w, "FIX.4.4"u8, Fix44.NewOrderSingle.MsgType);
        ref Fix44.Groups.NoPartyIDs.Writer<Fix44.NewOrderSingle.BeforeSide> parties = ref OrderStart(ref w).NoPartyIDs(1);
        parties.PartyID("P"u8).EndNoPartyIDs();
        parties.PartyIDSource(Fix44.PartyIDSource.Mic);
        if (endedFirst)
        {
            Assert.False(parties.EndNoPartyIDs().Side(Fix44.Side.Buy).TransactTime(TypedMessageTests.TransactTime)
                .OrdType(Fix44.OrdType.Market).End(out FixBodyError first));
            Assert.Equal(new FixBodyError(FixBodyErrorReason.EntryOutOfOrder, 447, 453).ToString(), first.ToString());
        }

        TypedMessageTests.Header(ref w, "FIX.4.4"u8, Fix44.NewOrderSingle.MsgType);
        Assert.False(OrderStart(ref w).NoPartyIDs(1).PartyRole(Fix44.PartyRole.ClientId).PartyID("P"u8).EndNoPartyIDs().Side(Fix44.Side.Buy)
            .TransactTime(TypedMessageTests.TransactTime).OrdType(Fix44.OrdType.Market).End(out FixBodyError error));
        Assert.Equal(new FixBodyError(FixBodyErrorReason.EntryOutOfOrder, 452, 453).ToString(), error.ToString());

        // And one more entry than the count, then a clean body: the count starts afresh too.
        TypedMessageTests.Header(ref w, "FIX.4.4"u8, Fix44.NewOrderSingle.MsgType);
        parties = ref OrderStart(ref w).NoPartyIDs(1);
        parties.PartyID("P"u8).PartyID("Q"u8);
        TypedMessageTests.Header(ref w, "FIX.4.4"u8, Fix44.NewOrderSingle.MsgType);
        Assert.True(OrderStart(ref w).NoPartyIDs(2).PartyID("P"u8).PartyID("Q"u8).PartyRole(Fix44.PartyRole.ClientId).EndNoPartyIDs()
            .Side(Fix44.Side.Buy).TransactTime(TypedMessageTests.TransactTime).OrdType(Fix44.OrdType.Market).End(out error), error.ToString());
        Assert.True(w.TryFinish(out int length));
        Assert.Contains("|11=X|453=2|448=P|448=Q|452=3|54=1|", Text(buffer, length));
    }

    [Fact]
    public void AGroupGivenAfterALaterFieldIsOutOfOrderNamingItsCountTag()
    {
        byte[] buffer = new byte[512];
        var w = new FixWriter(buffer);
        TypedMessageTests.Header(ref w, "FIX.4.4"u8, Fix44.NewOrderSingle.MsgType);
        // NoPartyIDs (453) precedes Account (1) in a FIX.4.4 NewOrderSingle.
        Assert.False(OrderStart(ref w).Account("A"u8).NoPartyIDs(1).PartyID("P"u8).EndNoPartyIDs().Side(Fix44.Side.Buy)
            .TransactTime(TypedMessageTests.TransactTime).OrdType(Fix44.OrdType.Market).End(out FixBodyError error));
        Assert.Equal(new FixBodyError(FixBodyErrorReason.OutOfOrder, 453, 1).ToString(), error.ToString());

        // And a field after the group, placed before it in the dictionary, names the group's count tag as the earlier one.
        TypedMessageTests.Header(ref w, "FIX.4.4"u8, Fix44.NewOrderSingle.MsgType);
        Assert.False(Fix44.NewOrderSingle.Begin(ref w).ClOrdID("X"u8).NoPartyIDs(1).PartyID("P"u8).EndNoPartyIDs().SecondaryClOrdID("S"u8)
            .Side(Fix44.Side.Buy).TransactTime(TypedMessageTests.TransactTime).OrdType(Fix44.OrdType.Market).End(out error));
        Assert.Equal(new FixBodyError(FixBodyErrorReason.OutOfOrder, 526, 453).ToString(), error.ToString());
    }

    [Fact]
    public void AnOuterEntrysCountAndOrderResumeAfterANestedGroup()
    {
        byte[] buffer = new byte[512];
        var w = new FixWriter(buffer);
        TypedMessageTests.Header(ref w, "FIX.4.4"u8, Fix44.NewOrderSingle.MsgType);
        // Outer count 2: one entry with a nested group, then a second entry; the nested group's own count is 2.
        Assert.True(OrderStart(ref w).NoPartyIDs(2)
            .PartyID("A"u8).NoPartySubIDs(2).PartySubID("S1"u8).PartySubID("S2"u8).EndNoPartySubIDs()
            .PartyID("B"u8).PartyRole(Fix44.PartyRole.ClientId)
            .EndNoPartyIDs().Side(Fix44.Side.Buy).TransactTime(TypedMessageTests.TransactTime).OrdType(Fix44.OrdType.Market).End());
        Assert.True(w.TryFinish(out int length));
        Assert.Contains("|453=2|448=A|802=2|523=S1|523=S2|448=B|452=3|54=1|", Text(buffer, length));

        // A member of the outer entry after its nested group but placed before it in the dictionary is out of order.
        TypedMessageTests.Header(ref w, "FIX.4.4"u8, Fix44.NewOrderSingle.MsgType);
        Assert.False(OrderStart(ref w).NoPartyIDs(1)
            .PartyID("A"u8).NoPartySubIDs(1).PartySubID("S1"u8).EndNoPartySubIDs().PartyRole(Fix44.PartyRole.ClientId)
            .EndNoPartyIDs().Side(Fix44.Side.Buy).TransactTime(TypedMessageTests.TransactTime).OrdType(Fix44.OrdType.Market)
            .End(out FixBodyError error));
        Assert.Equal(new FixBodyError(FixBodyErrorReason.EntryOutOfOrder, 452, 453).ToString(), error.ToString());
    }
}
