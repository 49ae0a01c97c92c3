using System;
using System.Collections.Generic;
using System.Text;
using FixEngine.Codec;
using FixEngine.Session;
using FixEngine.Tests.Generated.Venue;

namespace FixEngine.Tests.Generated;

/// <summary>A venue's customised dictionary (Generated/Venue/VENUE.xml): custom fields, enums, messages and a required nested group.</summary>
public sealed class VenueDictionaryTests
{
    private static readonly long Now = TypedMessageTests.TransactTimeNs;

    private static int WriteOrder(byte[] buffer, ReadOnlySpan<Groups.NoStrategyParams.Data> strategy, out bool ok)
    {
        var w = new FixWriter(buffer);
        TypedMessageTests.Header(ref w, "FIX.4.4"u8, NewOrderSingle.MsgType);
        int before = w.Written;
        ok = NewOrderSingle.Write(ref w, clOrdID: "V-1"u8, symbol: "ABC"u8, side: Side.Sell, transactTime: FixTimestamp.FromUnixNanoseconds(Now), orderQty: new FixDecimal(10, 0),
            ordType: OrdType.Limit, venueOrderClass: VenueOrderClass.MarketMaker, noStrategyParams: strategy, price: new FixDecimal(995, 1),
            postOnly: true, selfMatchID: "SMP-3"u8);
        if (!ok) return w.Written - before;
        w.TryFinish(out int length);
        return length;
    }

    [Fact]
    public void CustomFieldsEnumsAndNestedGroupsRoundTrip()
    {
        var strategy = new Groups.NoStrategyParams.Data[]
        {
            new("Aggression"u8.ToArray())
            {
                StrategyParamValue = "High"u8.ToArray(),
                NoStrategyParamLimits = new Groups.NoStrategyParamLimits.Data[]
                {
                    new(StrategyParamLimitKind.Min, new FixDecimal(99, 0)),
                    new(StrategyParamLimitKind.Max, new FixDecimal(101, 0)),
                },
            },
            new("Venue"u8.ToArray()),
        };
        byte[] buffer = new byte[1024];
        int length = WriteOrder(buffer, strategy, out bool ok);
        Assert.True(ok);
        string text = Encoding.ASCII.GetString(buffer, 0, length).Replace('\u0001', '|');
        Assert.Contains("|11=V-1|55=ABC|54=2|60=20260105-12:30:15.123|38=10|40=2|44=99.5|20001=M|20002=SMP-3|20003=Y|20010=2|20011=Aggression|20012=High|20013=2|20014=1|20015=99|20014=2|20015=101|20011=Venue|10=", text);

        var index = new FixMessageIndex();
        Assert.True(index.Parse(buffer.AsSpan(0, length)));
        var order = new NewOrderSingle.Reader(new FixMessage(buffer.AsSpan(0, length), index));
        Assert.Equal(VenueOrderClass.MarketMaker, order.VenueOrderClass);
        Assert.True(order.PostOnly);
        Assert.True(order.SelfMatchID.SequenceEqual("SMP-3"u8));
        var seen = new List<string>();
        foreach (Groups.NoStrategyParams.Entry p in order.NoStrategyParams)
        {
            string limits = "";
            foreach (Groups.NoStrategyParamLimits.Entry l in p.NoStrategyParamLimits) limits += $"{l.StrategyParamLimitKind}={l.StrategyParamLimit}";
            seen.Add(Encoding.ASCII.GetString(p.StrategyParamName) + ":" + limits);
        }
        Assert.Equal(["Aggression:Min=99Max=101", "Venue:"], seen);
        Assert.Equal(FixGroupStatus.Missing, order.NoPartyIDs.Status);
    }

    [Fact]
    public void ARequiredGroupMustHaveEntries()
    {
        byte[] buffer = new byte[1024];
        int written = WriteOrder(buffer, default, out bool ok);
        Assert.False(ok);
        Assert.Equal(0, written);
    }

    private sealed class VenueApp : MessageCracker
    {
        public int Acks;

        public override FromAppResult OnMessage(FixEngine.Session.FixSession session, in VenueOrderAck.Reader ack)
        {
            if (ack.VenueOrderClass == VenueOrderClass.Retail && ack.VenueTimestamp == DateTime.UnixEpoch.AddTicks(Now / 100)) Acks++;
            return FromAppResult.Accepted;
        }
    }

    [Fact]
    public void TheCrackerDispatchesAMultiCharacterVenueMsgType()
    {
        byte[] buffer = new byte[512];
        var w = new FixWriter(buffer);
        TypedMessageTests.Header(ref w, "FIX.4.4"u8, VenueOrderAck.MsgType);
        Assert.True(VenueOrderAck.Write(ref w, clOrdID: "V-1"u8, venueTimestamp: FixTimestamp.FromUnixNanoseconds(Now), venueOrderClass: VenueOrderClass.Retail));
        Assert.True(w.TryFinish(out int length));
        var index = new FixMessageIndex();
        Assert.True(index.Parse(buffer.AsSpan(0, length)));
        var app = new VenueApp();
        Assert.Equal(FromAppAction.Accepted, app.Crack(null!, new FixMessage(buffer.AsSpan(0, length), index)).Action);
        Assert.Equal(1, app.Acks);
        Assert.Equal(FromAppAction.UnsupportedMessageType, app.Crack(null!, Order(index)).Action);
    }

    private static byte[] s_order = [];

    private static FixMessage Order(FixMessageIndex index)
    {
        s_order = new byte[1024];
        var strategy = new Groups.NoStrategyParams.Data[] { new("A"u8.ToArray()) };
        int length = WriteOrder(s_order, strategy, out _);
        Assert.True(index.Parse(s_order.AsSpan(0, length)));
        return new FixMessage(s_order.AsSpan(0, length), index);
    }
}
