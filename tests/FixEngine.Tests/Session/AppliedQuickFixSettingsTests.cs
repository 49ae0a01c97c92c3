namespace FixEngine.Tests.Session;

/// <summary>QuickFIX/n settings that FixEngine used to accept with a warning and now applies.</summary>
public sealed class AppliedQuickFixSettingsTests
{
    private static string Order(SessionHarness h, int seq, string side) =>
        $"35=D|34={seq}|11=ID{seq}|21=1|55=INTC|54={side}|60={h.Time()}|38=100|40=1";

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void AllowUnknownEnumValuesAcceptsAValueOutsideTheEnumButNotABadFormat(bool allow)
    {
        using var h = new SessionHarness("FIX.4.2", s => s with { AllowUnknownEnumValues = allow });
        h.Logon();
        h.Receive(Order(h, 2, "Z"));
        if (allow)
        {
            Assert.Equal("Z", h.Expect("D")[54]);
        }
        else
        {
            Sent reject = h.Expect("3");
            Assert.Equal("5", reject[373]);
            Assert.Equal("54", reject[371]);
        }
        h.Receive(Order(h, 3, "1").Replace("38=100", "38=x"));
        Assert.Equal("6", h.Expect("3")[373]);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void IgnorePossDupResendRequestsSkipsOnlyPossDupCopies(bool ignore)
    {
        using var h = new SessionHarness("FIX.4.2", s => s with { IgnorePossDupResendRequests = ignore });
        h.Logon();
        h.Receive("35=2|34=2|7=1|16=0");
        h.Expect("4");
        h.Receive($"35=2|34=2|43=Y|122={h.Time()}|7=1|16=0");
        if (ignore) h.ExpectNothing();
        else h.Expect("4");
        Assert.Equal(3, h.Session.NextTargetMsgSeqNum);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void SendLogoutBeforeDisconnectFromTimeoutSendsALogoutWhenHeartbeatsStop(bool send)
    {
        using var h = new SessionHarness("FIX.4.2", s => s with { SendLogoutBeforeDisconnectFromTimeout = send, HeartBtInt = 10 });
        h.Logon(heartBtInt: 10);
        for (int i = 0; i < 40 && !h.Connection.Disconnected; i++) h.Advance(SessionHarness.Second);
        Assert.True(h.Connection.Disconnected);
        bool sawLogout = false;
        while (h.Read < h.Connection.Sent.Count) sawLogout |= h.Next()[35] == "5";
        Assert.Equal(send, sawLogout);
    }
}
