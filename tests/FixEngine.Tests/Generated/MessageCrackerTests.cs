using System;
using FixEngine.Codec;
using FixEngine.Session;
using FixEngine.Tests.Session;
using Fix44 = FixMessages.Fix44;

namespace FixEngine.Tests.Generated;

/// <summary>The generated cracker dispatches by MsgType; types without a handler are answered with BusinessMessageReject.</summary>
public sealed class MessageCrackerTests
{
    internal sealed class Orders : Fix44.MessageCracker, IApplication
    {
        public int Orders44;
        public string? LastClOrdID;

        public FromAppResult FromApp(FixEngine.Session.FixSession session, FixMessage message) => Crack(session, message);

        public override FromAppResult OnMessage(FixEngine.Session.FixSession session, in Fix44.NewOrderSingle.Reader order)
        {
            Orders44++;
            LastClOrdID = System.Text.Encoding.ASCII.GetString(order.ClOrdID);
            if (order.Side != Fix44.Side.Buy) return FromAppResult.IncorrectTagValue(Fix44.Tags.Side);
            return FromAppResult.Accepted;
        }
    }

    [Fact]
    public void OrdersReachTheirTypedHandlerAndOtherTypesAreRejectedAsUnsupported()
    {
        var app = new Orders();
        using var h = new SessionHarness("FIX.4.4", application: app);
        h.Logon();
        h.Receive($"35=D|34=2|11=ID2|21=1|55=INTC|54=1|60={h.Time()}|38=100|40=1");
        h.ExpectNothing();
        Assert.Equal(1, app.Orders44);
        Assert.Equal("ID2", app.LastClOrdID);

        h.Receive($"35=D|34=3|11=ID3|21=1|55=INTC|54=2|60={h.Time()}|38=100|40=1");
        Sent reject = h.Expect("3");
        Assert.Equal("54", reject[371]);
        Assert.Equal("5", reject[373]);

        // OrderCancelRequest has a reader but no override: BusinessMessageReject, unsupported message type.
        h.Receive($"35=F|34=4|41=ID2|11=ID4|55=INTC|54=1|60={h.Time()}");
        Sent bmr = h.Expect("j");
        Assert.Equal("3", bmr[380]);
        Assert.Equal("F", bmr[372]);
        Assert.Equal(2, app.Orders44);
    }
}
