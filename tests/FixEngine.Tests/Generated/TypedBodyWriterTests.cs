using System;
using FixEngine.Codec;
using FixEngine.Tests.Codec;
using Fix44 = FixMessages.Fix44;

namespace FixEngine.Tests.Generated;

/// <summary>The generated typed body writers (<c>X.Begin(ref w)</c> … <c>End()</c>) against the named-argument Write and the raw reader.</summary>
public sealed class TypedBodyWriterTests
{
    private static readonly Fix44.Groups.NoPartyIDs.Data[] s_parties = TypedMessageTests.Parties;

    /// <summary>The order of <see cref="TypedMessageTests.WriteTypedOrder"/> through the body writer.</summary>
    internal static int WriteOrder(Span<byte> buffer, Fix44.Groups.NoPartyIDs.Data[] parties)
    {
        var w = new FixWriter(buffer);
        TypedMessageTests.Header(ref w, "FIX.4.4"u8, Fix44.NewOrderSingle.MsgType);
        bool ok = Fix44.NewOrderSingle.Begin(ref w)
            .ClOrdID("ORD-1"u8)
            .NoPartyIDs(parties)
            .Account("ACC-7"u8)
            .Symbol("INTC"u8)
            .Side(Fix44.Side.Buy)
            .TransactTime(TypedMessageTests.TransactTime)
            .OrderQty(new FixDecimal(100, 0))
            .OrdType(Fix44.OrdType.Limit)
            .Price(new FixDecimal(12345, 2))
            .TimeInForce(Fix44.TimeInForce.Day)
            .End();
        if (!ok || !w.TryFinish(out int length)) throw new InvalidOperationException("typed body write failed");
        return length;
    }

    internal static int WriteReport(Span<byte> buffer, Fix44.Groups.NoPartyIDs.Data[] parties)
    {
        var w = new FixWriter(buffer);
        TypedMessageTests.Header(ref w, "FIX.4.4"u8, Fix44.ExecutionReport.MsgType);
        bool ok = Fix44.ExecutionReport.Begin(ref w)
            .OrderID("O-1"u8)
            .ClOrdID("ORD-1"u8)
            .NoPartyIDs(parties)
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
        if (!ok || !w.TryFinish(out int length)) throw new InvalidOperationException("typed body write failed");
        return length;
    }

    private static int WriteReportWithArgs(Span<byte> buffer, Fix44.Groups.NoPartyIDs.Data[] parties)
    {
        var w = new FixWriter(buffer);
        TypedMessageTests.Header(ref w, "FIX.4.4"u8, Fix44.ExecutionReport.MsgType);
        bool ok = Fix44.ExecutionReport.Write(ref w, orderID: "O-1"u8, execID: "E-1"u8, execType: Fix44.ExecType.Trade,
            ordStatus: Fix44.OrdStatus.Filled, side: Fix44.Side.Buy, leavesQty: new FixDecimal(0, 0), cumQty: new FixDecimal(100, 0),
            avgPx: new FixDecimal(12345, 2), clOrdID: "ORD-1"u8, noPartyIDs: parties, symbol: "INTC"u8, lastQty: new FixDecimal(100, 0),
            lastPx: new FixDecimal(12345, 2), transactTime: TypedMessageTests.TransactTime, text: "done"u8,
            timestampPrecision: TimestampPrecision.Micros);
        if (!ok || !w.TryFinish(out int length)) throw new InvalidOperationException("typed write failed");
        return length;
    }

    private static string Text(Span<byte> buffer, int length) => FixText.Pipe(buffer.Slice(0, length));

    [Fact]
    public void TheBodyWriterWritesTheSameBytesAsTheNamedArgumentWrite()
    {
        byte[] a = new byte[1024];
        byte[] b = new byte[1024];
        Assert.Equal(Text(a, TypedMessageTests.WriteTypedOrder(a, s_parties)), Text(b, WriteOrder(b, s_parties)));
        Assert.Equal(Text(a, WriteReportWithArgs(a, s_parties)), Text(b, WriteReport(b, s_parties)));
        // Nested group entries (NoPartySubIDs inside the second party) are in the bytes.
        Assert.Contains("|448=CLIENT9|447=D|452=3|802=1|523=DESK-A|803=1|", Text(b, WriteReport(b, s_parties)));
    }

    [Fact]
    public void TheTypedReaderReadsWhatTheBodyWriterWrote()
    {
        byte[] buffer = new byte[1024];
        int length = WriteReport(buffer, s_parties);
        var index = new FixMessageIndex();
        Assert.True(index.Parse(buffer.AsSpan(0, length)), index.Defect.Describe());
        var r = new Fix44.ExecutionReport.Reader(new FixMessage(buffer.AsSpan(0, length), index));
        Assert.True(r.OrderID.SequenceEqual("O-1"u8));
        Assert.Equal(Fix44.ExecType.Trade, r.ExecType);
        Assert.Equal(Fix44.OrdStatus.Filled, r.OrdStatus);
        Assert.Equal(123.45m, r.AvgPx.ToDecimal());
        Assert.Equal(TypedMessageTests.TransactTimeNs, r.TransactTimeNs);
        Assert.True(r.Text.SequenceEqual("done"u8));
        Assert.Null(r.Price);
        Assert.Equal(2, r.NoPartyIDs.DeclaredCount);
        Assert.Equal(FixGroupStatus.Ok, r.NoPartyIDs.Status);
    }

    [Fact]
    public void NullAndEmptyOptionalValuesAreLeftOut()
    {
        byte[] buffer = new byte[512];
        var w = new FixWriter(buffer);
        TypedMessageTests.Header(ref w, "FIX.4.4"u8, Fix44.NewOrderSingle.MsgType);
        FixDecimal? noPrice = null;
        Fix44.TimeInForce? noTif = null;
        Assert.True(Fix44.NewOrderSingle.Begin(ref w).ClOrdID("X"u8).Account(default).NoPartyIDs(ReadOnlySpan<Fix44.Groups.NoPartyIDs.Data>.Empty).Side(Fix44.Side.Sell)
            .TransactTime(TypedMessageTests.TransactTime).OrderQty(new FixDecimal(5, 0)).OrdType(Fix44.OrdType.Market).Price(noPrice)
            .TimeInForce(noTif).End());
        Assert.True(w.TryFinish(out int length));
        string text = Text(buffer, length);
        Assert.Contains("|11=X|54=2|60=", text);
        Assert.Contains("|38=5|40=1|10=", text);
        Assert.DoesNotContain("|1=", text);
        Assert.DoesNotContain("|44=", text);
        Assert.DoesNotContain("|453=", text);
    }

    [Fact]
    public void AFieldOutOfDictionaryOrderRefusesTheBodyNamingBothTags()
    {
        byte[] buffer = new byte[512];
        var w = new FixWriter(buffer);
        TypedMessageTests.Header(ref w, "FIX.4.4"u8, Fix44.NewOrderSingle.MsgType);
        // Account (1) precedes Symbol (55) in the dictionary, both in the stretch between ClOrdID and Side.
        bool ok = Fix44.NewOrderSingle.Begin(ref w).ClOrdID("X"u8).Symbol("MSFT"u8).Account("ACC"u8).Side(Fix44.Side.Buy)
            .TransactTime(TypedMessageTests.TransactTime).OrdType(Fix44.OrdType.Market).End(out FixBodyError error);
        Assert.False(ok);
        Assert.Equal(FixBodyErrorReason.OutOfOrder, error.Reason);
        Assert.Equal(1, error.Tag);
        Assert.Equal(55, error.OtherTag);
        Assert.Contains("tag 1 given after tag 55", error.ToString());
        // The writer is left failed, so the message cannot be sent; Begin starts a new one.
        Assert.True(w.Failed);
        Assert.False(w.TryFinish(out _));
        TypedMessageTests.Header(ref w, "FIX.4.4"u8, Fix44.NewOrderSingle.MsgType);
        Assert.True(Fix44.NewOrderSingle.Begin(ref w).ClOrdID("X"u8).Side(Fix44.Side.Buy).TransactTime(TypedMessageTests.TransactTime)
            .OrdType(Fix44.OrdType.Market).End());
        Assert.True(w.TryFinish(out int length));
        var index = new FixMessageIndex();
        Assert.True(index.Parse(buffer.AsSpan(0, length)), index.Defect.Describe());
    }

    [Fact]
    public void AFieldGivenTwiceIsOutOfOrder()
    {
        byte[] buffer = new byte[512];
        var w = new FixWriter(buffer);
        TypedMessageTests.Header(ref w, "FIX.4.4"u8, Fix44.ExecutionReport.MsgType);
        // Held with ref var (the chain is a view of w): statements may continue it.
        ref Fix44.ExecutionReport.Tail tail = ref Fix44.ExecutionReport.Begin(ref w).OrderID("O"u8).ExecID("E"u8).ExecType(Fix44.ExecType.New)
            .OrdStatus(Fix44.OrdStatus.New).Side(Fix44.Side.Buy).LeavesQty(new FixDecimal(1, 0)).CumQty(FixDecimal.Zero).AvgPx(FixDecimal.Zero);
        tail.Text("a"u8);
        tail.Text("b"u8);
        Assert.False(tail.End(out FixBodyError error));
        Assert.Equal(new FixBodyError(FixBodyErrorReason.OutOfOrder, 58, 58).ToString(), error.ToString());
        Assert.True(w.Failed);
    }

    [Fact]
    public void AnEmptyRequiredTextRefusesTheBody()
    {
        byte[] buffer = new byte[512];
        var w = new FixWriter(buffer);
        TypedMessageTests.Header(ref w, "FIX.4.4"u8, Fix44.NewOrderSingle.MsgType);
        Assert.False(Fix44.NewOrderSingle.Begin(ref w).ClOrdID(default).Symbol("MSFT"u8).Side(Fix44.Side.Buy)
            .TransactTime(TypedMessageTests.TransactTime).OrdType(Fix44.OrdType.Market).End(out FixBodyError error));
        Assert.Equal(FixBodyErrorReason.RequiredMissing, error.Reason);
        Assert.Equal(11, error.Tag);
        Assert.True(w.Failed);
        Assert.False(w.TryFinish(out _));
    }

    [Fact]
    public void AnIncompleteGroupEntryRefusesTheBodyNamingTheMemberAndTheGroup()
    {
        byte[] buffer = new byte[512];
        var w = new FixWriter(buffer);
        TypedMessageTests.Header(ref w, "FIX.4.4"u8, Fix44.NewOrderSingle.MsgType);
        // default(Data) bypasses the constructor: the delimiter PartyID (448) is missing.
        var parties = new Fix44.Groups.NoPartyIDs.Data[] { new("P"u8.ToArray()), default };
        Assert.False(Fix44.NewOrderSingle.Begin(ref w).ClOrdID("X"u8).NoPartyIDs(parties).Side(Fix44.Side.Buy)
            .TransactTime(TypedMessageTests.TransactTime).OrdType(Fix44.OrdType.Market).End(out FixBodyError error));
        Assert.Equal(FixBodyErrorReason.IncompleteGroupEntry, error.Reason);
        Assert.Equal(448, error.Tag);
        Assert.Equal(453, error.OtherTag);
        Assert.True(w.Failed);

        // The same inside a nested group: a PartySubID (523) entry without its value.
        TypedMessageTests.Header(ref w, "FIX.4.4"u8, Fix44.NewOrderSingle.MsgType);
        var nested = new Fix44.Groups.NoPartyIDs.Data[] { new("P"u8.ToArray()) { NoPartySubIDs = new Fix44.Groups.NoPartySubIDs.Data[] { default } } };
        Assert.False(Fix44.NewOrderSingle.Begin(ref w).ClOrdID("X"u8).NoPartyIDs(nested).Side(Fix44.Side.Buy)
            .TransactTime(TypedMessageTests.TransactTime).OrdType(Fix44.OrdType.Market).End(out error));
        Assert.Equal(FixBodyErrorReason.IncompleteGroupEntry, error.Reason);
        Assert.Equal(523, error.Tag);
        Assert.Equal(802, error.OtherTag);
        Assert.True(w.Failed);
    }

    [Fact]
    public void ABodyThatIsNeverEndedLeavesTheWriterFailed()
    {
        byte[] buffer = new byte[512];
        var w = new FixWriter(buffer);
        TypedMessageTests.Header(ref w, "FIX.4.4"u8, Fix44.NewOrderSingle.MsgType);
        _ = Fix44.NewOrderSingle.Begin(ref w).ClOrdID("X"u8).Side(Fix44.Side.Buy);
        Assert.True(w.Failed);
        Assert.False(w.TryFinish(out _));
    }

    [Fact]
    public void EndingACopyOfTheChainDoesNotEndTheWritersBody()
    {
        byte[] buffer = new byte[512];
        var w = new FixWriter(buffer);
        TypedMessageTests.Header(ref w, "FIX.4.4"u8, Fix44.NewOrderSingle.MsgType);
        // 'var' copies the view (and the writer in it): the copy's End cannot close w's body, so w is not sent.
        Fix44.NewOrderSingle.Tail copy = Fix44.NewOrderSingle.Begin(ref w).ClOrdID("X"u8).Side(Fix44.Side.Buy)
            .TransactTime(TypedMessageTests.TransactTime).OrdType(Fix44.OrdType.Market);
        Assert.True(copy.End());
        Assert.True(w.Failed);
        Assert.False(w.TryFinish(out _));
        // A second End finds no open body.
        Assert.False(copy.End(out FixBodyError error));
        Assert.Equal(FixBodyErrorReason.NotOpen, error.Reason);
    }

    [Fact]
    public void ABodyThatDoesNotFitFailsTheWriter()
    {
        byte[] buffer = new byte[96];
        var w = new FixWriter(buffer);
        TypedMessageTests.Header(ref w, "FIX.4.4"u8, Fix44.NewOrderSingle.MsgType);
        Assert.False(Fix44.NewOrderSingle.Begin(ref w).ClOrdID("ORDER-WITH-A-LONG-IDENTIFIER"u8).Side(Fix44.Side.Buy)
            .TransactTime(TypedMessageTests.TransactTime).OrdType(Fix44.OrdType.Market).Text("a text that does not fit in the buffer"u8)
            .End(out FixBodyError error));
        Assert.Equal(FixBodyErrorReason.NoRoom, error.Reason);
        Assert.True(w.Failed);
        Assert.False(w.TryFinish(out _));
    }

    [Fact]
    public void TextFormattedOnTheStackIsWrittenThroughARefWriter()
    {
        byte[] buffer = new byte[512];
        var w = new FixWriter(buffer);
        TypedMessageTests.Header(ref w, "FIX.4.4"u8, Fix44.NewOrderSingle.MsgType);
        Assert.True(TypedWithStackText(ref w, 4711));
        Assert.True(w.TryFinish(out int length));
        string typed = Text(buffer, length);
        Assert.Contains("|11=ORD-4711|", typed);
        Assert.Contains("|58=text 4711|", typed);

        w = new FixWriter(buffer);
        TypedMessageTests.Header(ref w, "FIX.4.4"u8, Fix44.NewOrderSingle.MsgType);
        Assert.True(RawWithStackText(ref w, 4712));
        Assert.True(w.TryFinish(out length));
        Assert.Contains("|11=ORD-4712|", Text(buffer, length));

        // FixWriter's text parameters and the body writer's are scoped: a stackalloc buffer goes straight in through
        // the ref FixWriter a Send callback gets (before, such text had to be copied to a field array first).
        static bool TypedWithStackText(ref FixWriter w, long id)
        {
            Span<byte> clOrdId = stackalloc byte[24];
            "ORD-"u8.CopyTo(clOrdId);
            FixValueFormatter.TryFormatLong(id, clOrdId.Slice(4), out int digits);
            Span<byte> text = stackalloc byte[24];
            "text "u8.CopyTo(text);
            FixValueFormatter.TryFormatLong(id, text.Slice(5), out int textDigits);
            return Fix44.NewOrderSingle.Begin(ref w).ClOrdID(clOrdId.Slice(0, 4 + digits)).Side(Fix44.Side.Buy)
                .TransactTime(TypedMessageTests.TransactTime).OrdType(Fix44.OrdType.Market).Text(text.Slice(0, 5 + textDigits)).End();
        }

        static bool RawWithStackText(ref FixWriter w, long id)
        {
            Span<byte> clOrdId = stackalloc byte[24];
            "ORD-"u8.CopyTo(clOrdId);
            FixValueFormatter.TryFormatLong(id, clOrdId.Slice(4), out int digits);
            return w.Write(FixTags.ClOrdID, clOrdId.Slice(0, 4 + digits));
        }
    }
}
