using FixEngine.Session;

namespace FixEngine.Tests.Session;

/// <summary>
/// A message after Logon that lacks a required header field gets what QuickFIX C++ 1.15.1's Session gives it (recorded
/// with tests/quickfix-probe/qfat and the scenarios 22 and 23 of tests/acceptance): without SenderCompID or TargetCompID, a
/// BusinessMessageReject 380=5 for an application message from FIX.4.2 on and a session Reject 373=1 otherwise (the
/// number consumed); without SendingTime the connection ends without a message and the number stays expected.
/// Without MsgSeqNum FixEngine logs out naming it (QuickFIX disconnects without a word): a deliberate difference.
/// </summary>
public sealed class MissingHeaderFieldTests
{
    public static TheoryData<string> Versions => new() { "FIX.4.0", "FIX.4.1", "FIX.4.2", "FIX.4.3", "FIX.4.4", "FIXT.1.1" };

    private static string Order(string beginString, string t) => beginString switch
    {
        "FIX.4.0" or "FIX.4.1" => "11=A|21=1|38=100|40=1|54=1|55=X",
        "FIX.4.2" or "FIX.4.3" => "11=A|21=1|38=100|40=1|54=1|55=X|60=" + t,
        _ => "11=A|38=100|40=1|54=1|55=X|60=" + t,
    };

    // A message with exactly the header fields given (no 49, 56 or 52 added).
    private static void ReceiveRaw(SessionHarness h, string header, string body) => h.Receive(header + "|" + body, addHeader: false);

    [Theory]
    [MemberData(nameof(Versions))]
    public void AnApplicationMessageWithoutSendingTimeEndsTheConnectionAndIsNotConsumed(string beginString)
    {
        using var h = new SessionHarness(beginString);
        h.Logon();
        ReceiveRaw(h, $"35=D|34=2|49={h.Target}|56={h.Sender}", Order(beginString, h.Time()));
        h.ExpectNothing();
        Assert.True(h.Connection.Disconnected);
        Assert.Contains("SendingTime(52)", h.Connection.Reason);
        Assert.Equal(0, h.App.FromAppCount);
        Assert.Equal(2, h.Session.NextTargetMsgSeqNum);
    }

    // Deliberate difference (docs/quickfix-compatibility.md): QuickFIX C++ disconnects without a word (or ignores the
    // message when it has another defect, or is a Logout or ResendRequest); FixEngine logs out naming the field.
    [Theory]
    [MemberData(nameof(Versions))]
    public void AMessageWithoutMsgSeqNumGetsALogoutNamingItAndIsNotConsumed(string beginString)
    {
        using var h = new SessionHarness(beginString);
        h.Logon();
        ReceiveRaw(h, $"35=D|49={h.Target}|52={h.Time()}", Order(beginString, h.Time()));
        Assert.Equal("MsgSeqNum(34) missing", h.Expect("5")[58]);
        h.ExpectNothing();
        Assert.True(h.Connection.Disconnected);
        Assert.Equal(0, h.App.FromAppCount);
        Assert.Equal(2, h.Session.NextTargetMsgSeqNum);
    }

    [Theory]
    [MemberData(nameof(Versions))]
    public void AnAdminMessageWithoutSendingTimeEndsTheConnection(string beginString)
    {
        using var h = new SessionHarness(beginString);
        h.Logon();
        ReceiveRaw(h, $"35=1|34=2|49={h.Target}|56={h.Sender}", "112=T");
        h.ExpectNothing();
        Assert.True(h.Connection.Disconnected);
        Assert.Equal(2, h.Session.NextTargetMsgSeqNum);
    }

    [Theory]
    [InlineData("FIX.4.2")]
    [InlineData("FIX.4.3")]
    [InlineData("FIX.4.4")]
    [InlineData("FIXT.1.1")]
    public void AnApplicationMessageWithoutTargetCompIdGetsABusinessMessageReject(string beginString)
    {
        using var h = new SessionHarness(beginString);
        h.Logon();
        ReceiveRaw(h, $"35=D|34=2|49={h.Target}|52={h.Time()}", Order(beginString, h.Time()));
        Sent reject = h.Expect("j");
        Assert.Equal("5", reject[380]);
        Assert.Equal("Conditionally Required Field Missing (56)", reject[58]);
        Assert.Equal("2", reject[45]);
        Assert.Equal("D", reject[372]);
        Assert.False(reject.Has(371), reject.Text);
        Assert.False(h.Connection.Disconnected);
        Assert.Equal(0, h.App.FromAppCount);
        Assert.Equal(3, h.Session.NextTargetMsgSeqNum);
    }

    [Theory]
    [InlineData("FIX.4.0")]
    [InlineData("FIX.4.1")]
    public void BeforeFix42AnApplicationMessageWithoutSenderCompIdGetsAReject(string beginString)
    {
        using var h = new SessionHarness(beginString);
        h.Logon();
        ReceiveRaw(h, $"35=D|34=2|52={h.Time()}|56={h.Sender}", Order(beginString, h.Time()));
        Sent reject = h.Expect("3");
        Assert.Equal("Required tag missing (49)", reject[58]);
        Assert.Equal(3, h.Session.NextTargetMsgSeqNum);
    }

    [Theory]
    [MemberData(nameof(Versions))]
    public void AnAdminMessageWithoutTargetCompIdGetsASessionReject(string beginString)
    {
        using var h = new SessionHarness(beginString);
        h.Logon();
        ReceiveRaw(h, $"35=1|34=2|49={h.Target}|52={h.Time()}", "112=T");
        Sent reject = h.Expect("3");
        if (beginString is "FIX.4.0" or "FIX.4.1")
        {
            Assert.Equal("Required tag missing (56)", reject[58]);
        }
        else
        {
            Assert.Equal("Required tag missing", reject[58]);
            Assert.Equal("56", reject[371]);
            Assert.Equal("1", reject[373]);
        }
        Assert.Equal(3, h.Session.NextTargetMsgSeqNum);
    }

    [Fact]
    public void WithAllowUnknownMsgFieldsAWrongGroupCountReachesTheApplication()
    {
        string order = "35=D|34=2|11=A|38=100|40=1|54=1|55=X|60=20260105-12:00:00|453=2|448=P1|447=D|452=1";
        using (var strict = new SessionHarness("FIX.4.4"))
        {
            strict.Logon();
            strict.Receive(order);
            Sent reject = strict.Expect("3");
            Assert.Equal("16", reject[373]);
            Assert.Equal("453", reject[371]);
        }
        using var h = new SessionHarness("FIX.4.4", s => s with { AllowUnknownMsgFields = true });
        h.Logon();
        h.Receive(order);
        h.Expect("D");
        Assert.Equal(1, h.App.FromAppCount);
    }
}
