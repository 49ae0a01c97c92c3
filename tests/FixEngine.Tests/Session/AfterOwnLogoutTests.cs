using System;
using FixEngine.Codec;
using FixEngine.Session;
using FixEngine.Transport;

namespace FixEngine.Tests.Session;

/// <summary>
/// Once the session has sent its own Logout it hands no application message to the application and sends none except
/// what a ResendRequest asks for; the inbound application messages it did not process stay expected, so the
/// counterparty resends them after the next Logon and none is lost.
/// </summary>
public sealed class AfterOwnLogoutTests
{
    private static string Order(SessionHarness h, int seq) =>
        $"35=D|34={seq}|11=ID{seq}|21=1|55=INTC|54=1|60={h.Time()}|38=100|40=1";

    [Fact]
    public void APeerThatKeepsSendingAfterOurLogoutGetsNothingAndItsOrdersStayExpected()
    {
        using var h = new SessionHarness("FIX.4.2", s => s with { ResetOnLogon = false });
        h.Logon();
        h.Session.Logout("Engine stopping", h.Now);
        Sent logout = h.Expect("5");
        Assert.Equal("Engine stopping", logout[58]);
        Assert.Equal(SessionState.LogoutSent, h.Session.State);

        // The peer keeps sending orders, in order and with a gap, and a TestRequest.
        for (int seq = 2; seq <= 40; seq++) h.Receive(Order(h, seq));
        h.Receive(Order(h, 45));
        Assert.Equal(0, h.App.FromAppCount);
        h.ExpectNothing();
        Assert.Equal(2, h.Session.NextTargetMsgSeqNum);

        // Its Logout reply (numbered after them) ends the session without consuming the orders' numbers.
        h.Receive("35=5|34=46");
        Assert.True(h.Connection.Disconnected);
        h.ExpectNothing();
        Assert.Equal(2, h.Session.NextTargetMsgSeqNum);

        // Next Logon: the gap 2.. is asked for, the peer resends, and every order reaches the application once.
        h.Connect();
        h.Receive("35=A|34=47|98=0|108=30");
        h.Expect("A");
        Sent resend = h.Expect("2");
        Assert.Equal("2", resend[7]);
        for (int seq = 2; seq <= 40; seq++) h.Receive(Order(h, seq).Replace($"|34={seq}|", $"|34={seq}|43=Y|122={h.Time()}|"));
        h.Receive($"35=4|34=41|43=Y|122={h.Time()}|123=Y|36=48");
        Assert.Equal(39, h.App.FromAppCount);
        Assert.Equal(48, h.Session.NextTargetMsgSeqNum);
        for (int i = 0; i < 39; i++) h.Expect("D");
    }

    [Fact]
    public void TheLogoutReplyWithTheExpectedNumberIsConsumedAsBefore()
    {
        using var h = new SessionHarness("FIX.4.2", s => s with { ResetOnLogon = false });
        h.Logon();
        h.Session.Logout(null, h.Now);
        h.Expect("5");
        h.Receive("35=5|34=2");
        Assert.True(h.Connection.Disconnected);
        Assert.Equal(3, h.Session.NextTargetMsgSeqNum);
    }

    [Fact]
    public void AMessageTheApplicationSendsAfterOurLogoutIsStoredNotSentAndResentWhenAskedFor()
    {
        using var h = new SessionHarness("FIX.4.2", s => s with { ResetOnLogon = false });
        h.Logon();
        h.Session.Logout(null, h.Now);
        h.Expect("5");
        SendResult result = h.Session.Send("D"u8, 0, static (ref FixWriter w, scoped in int _) =>
        {
            w.Write(11, "LATE"u8);
            w.Write(21, "1"u8);
            w.Write(55, "INTC"u8);
            w.Write(54, "1"u8);
            w.Write(38, "100"u8);
            w.Write(40, "1"u8);
        }, h.Now);
        Assert.Equal(SendResult.Closed, result);
        h.ExpectNothing();
        Assert.Equal(4, h.Session.NextSenderMsgSeqNum);

        // A ResendRequest is answered even now: the stored order goes out as a possible duplicate.
        h.Receive("35=2|34=2|7=3|16=0");
        Sent resent = h.Expect("D");
        Assert.Equal("3", resent[34]);
        Assert.Equal("Y", resent[43]);
        Assert.Equal("LATE", resent[11]);
    }

    [Fact]
    public void TestRequestsAreStillAnsweredAfterOurLogout()
    {
        using var h = new SessionHarness("FIX.4.2");
        h.Logon();
        h.Session.Logout(null, h.Now);
        h.Expect("5");
        h.Receive("35=1|34=2|112=PING");
        Assert.Equal("PING", h.Expect("0")[112]);
    }
}
