using System;
using FixEngine.Session;

namespace FixEngine.Tests.Session;

/// <summary>Session-protocol behaviours, run for FIX.4.2, FIX.4.4 and FIXT.1.1/FIX.5.0SP2 (one subclass each).</summary>
public abstract class SessionBehaviourTests
{
    protected abstract string BeginString { get; }

    protected abstract bool SendsExtendedRejectReasons { get; }

    protected SessionHarness Create(Func<FixEngine.Config.SessionSettings, FixEngine.Config.SessionSettings>? configure = null) => new(BeginString, configure);

    protected string Order(SessionHarness h, int seq, string extra = "") =>
        $"35=D|34={seq}{extra}|11=ID{seq}|21=3|38=100|40=1|54=1|55=INTC|60={h.Time()}";

    [Fact]
    public void LogonIsAnsweredWithLogonEchoingHeartBtInt()
    {
        using var h = Create();
        h.Receive("35=A|34=1|98=0|108=17" + (BeginString == "FIXT.1.1" ? "|1137=9" : ""));
        Sent logon = h.Expect("A");
        Assert.Equal("17", logon[108]);
        Assert.Equal("0", logon[98]);
        Assert.Equal("1", logon[34]);
        Assert.Equal(h.Sender, logon[49]);
        Assert.Equal(h.Target, logon[56]);
        if (BeginString == "FIXT.1.1") Assert.Equal("9", logon[1137]);
        Assert.True(h.Session.IsLoggedOn);
        Assert.Equal(2, h.Session.NextTargetMsgSeqNum);
        Assert.Equal(1, h.App.Logons);
    }

    [Fact]
    public void FirstMessageNotLogonDisconnects()
    {
        using var h = Create();
        h.Receive("35=0|34=1");
        Assert.True(h.Connection.Disconnected);
        h.ExpectNothing();
    }

    [Fact]
    public void GarbledBeforeLogonDisconnects_AfterLogonIsIgnored()
    {
        using var h = Create();
        h.Session.OnGarbled("8=FIX"u8, "bad checksum", h.Now);
        Assert.True(h.Connection.Disconnected);
        h.Connect();
        h.Logon();
        h.Session.OnGarbled("8=FIX"u8, "bad checksum", h.Now);
        Assert.False(h.Connection.Disconnected);
        Assert.Equal(2, h.Session.NextTargetMsgSeqNum);
    }

    [Fact]
    public void LogonWithResetSeqNumFlagEchoesIt()
    {
        using var h = Create(s => s with { ResetOnLogon = false });
        h.Receive("35=A|34=1|98=0|108=30|141=Y" + (BeginString == "FIXT.1.1" ? "|1137=9" : ""));
        Assert.Equal("Y", h.Expect("A")[141]);
    }

    [Fact]
    public void RefusedLogonGetsLogoutWithReasonAndDisconnect()
    {
        using var h = Create();
        h.App.RefuseLogonWith = "bad password";
        h.Receive("35=A|34=1|98=0|108=30" + (BeginString == "FIX.4.2" ? "" : "|553=u|554=p") + (BeginString == "FIXT.1.1" ? "|1137=9" : ""));
        Assert.Equal("bad password", h.Expect("5")[58]);
        Assert.True(h.Connection.Disconnected);
        Assert.Equal(0, h.App.Logons);
        // Never logged on, so no OnLogout either (IApplication.OnLogout: "after logon").
        Assert.Equal(0, h.App.Logouts);
        Assert.Equal(SessionState.Disconnected, h.Session.State);
    }

    [Fact]
    public void LogonWithBadSendingTimeDisconnects()
    {
        using var h = Create();
        h.Receive("35=A|34=1|52=20010101-00:00:00.000|98=0|108=30" + (BeginString == "FIXT.1.1" ? "|1137=9" : ""));
        Assert.True(h.Connection.Disconnected);
    }

    [Fact]
    public void TestRequestIsAnsweredWithHeartbeatCarryingTestReqId()
    {
        using var h = Create();
        h.Logon();
        h.Receive("35=1|34=2|112=HELLO");
        Assert.Equal("HELLO", h.Expect("0")[112]);
        Assert.Equal(3, h.Session.NextTargetMsgSeqNum);
    }

    [Fact]
    public void TooHighQueuesAndSendsResendRequestThenProcessesInOrder()
    {
        using var h = Create();
        h.Logon();
        h.Receive(Order(h, 4));
        Sent rr = h.Expect("2");
        Assert.Equal("2", rr[7]);
        Assert.Equal("0", rr[16]);
        Assert.Equal(1, h.Session.QueuedMessageCount);
        h.Receive(Order(h, 5));
        h.ExpectNothing();
        h.Receive(Order(h, 2));
        Assert.Equal("ID2", h.Expect("D")[11]);
        h.Receive(Order(h, 3));
        Assert.Equal("ID3", h.Expect("D")[11]);
        Assert.Equal("ID4", h.Expect("D")[11]);
        Assert.Equal("ID5", h.Expect("D")[11]);
        Assert.Equal(6, h.Session.NextTargetMsgSeqNum);
        Assert.Equal(0, h.Session.QueuedMessageCount);
    }

    [Fact]
    public void TooHighLogonIsAnsweredThenResendRequested()
    {
        using var h = Create();
        h.Receive("35=A|34=5|98=0|108=30" + (BeginString == "FIXT.1.1" ? "|1137=9" : ""));
        h.Expect("A");
        Sent rr = h.Expect("2");
        Assert.Equal("1", rr[7]);
        Assert.Equal("0", rr[16]);
    }

    [Fact]
    public void TooLowWithoutPossDupLogsOutWithReason()
    {
        using var h = Create();
        h.Logon();
        h.Receive("35=0|34=2");
        h.Receive("35=0|34=2");
        Assert.Equal("MsgSeqNum too low, expecting 3 but received 2", h.Expect("5")[58]);
        Assert.True(h.Connection.Disconnected);
    }

    [Fact]
    public void PossDupDuplicateIsIgnored_WithoutOrigSendingTimeIsRejected()
    {
        using var h = Create();
        h.Logon();
        h.Receive(Order(h, 2));
        h.Expect("D");
        h.Receive(Order(h, 2, $"|43=Y|122={h.Time()}"));
        h.ExpectNothing();
        h.Receive(Order(h, 2, "|43=Y"));
        Sent reject = h.Expect("3");
        Assert.Equal("122", reject[371]);
        Assert.Equal("1", reject[373]);
        Assert.Equal(3, h.Session.NextTargetMsgSeqNum);
    }

    [Fact]
    public void PossDupWithOrigSendingTimeAfterSendingTimeIsRejectedAndLoggedOut()
    {
        using var h = Create();
        h.Logon();
        h.Receive(Order(h, 2));
        h.Expect("D");
        h.Receive(Order(h, 2, $"|43=Y|122={h.Time(10 * SessionHarness.Second)}"));
        Assert.Equal("10", h.Expect("3")[373]);
        h.Expect("5");
    }

    [Fact]
    public void SendingTimeOutOfRangeIsRejectedAndLoggedOut()
    {
        using var h = Create();
        h.Logon();
        h.Receive($"35=0|34=2|52={h.Time(-121 * SessionHarness.Second)}");
        Sent reject = h.Expect("3");
        Assert.Equal("10", reject[373]);
        Assert.Equal("SendingTime accuracy problem", reject[58]);
        h.Expect("5");
        h.Advance(3 * SessionHarness.Second);
        Assert.True(h.Connection.Disconnected);
    }

    [Fact]
    public void WrongCompIdIsRejectedAndLoggedOut()
    {
        using var h = Create();
        h.Logon();
        h.Receive("35=0|34=2|49=WT");
        Sent reject = h.Expect("3");
        Assert.Equal("9", reject[373]);
        Assert.False(reject.Has(371));
        h.Expect("5");
    }

    [Fact]
    public void WrongBeginStringLogsOutAndDisconnects()
    {
        using var h = Create();
        h.Logon();
        byte[] bytes = h.Build("35=0|34=2");
        string text = System.Text.Encoding.ASCII.GetString(bytes).Replace("8=" + BeginString, "8=FIX.4.1");
        h.Session.OnMessage(new SessionHarness(BeginString, connect: false) is var other ? Rebuild(text) : default, h.Now);
        Assert.Equal("Incorrect BeginString", h.Expect("5")[58]);
        Assert.True(h.Connection.Disconnected);
    }

    private static byte[] Rebuild(string text)
    {
        int bodyStart = text.IndexOf("\u000135=", StringComparison.Ordinal) + 1;
        string body = text.Substring(bodyStart, text.IndexOf("10=", StringComparison.Ordinal) - bodyStart);
        string head = text.Substring(0, text.IndexOf('\u0001') + 1) + "9=" + body.Length + "\u0001";
        int sum = 0;
        foreach (char c in head + body) sum += c;
        return System.Text.Encoding.ASCII.GetBytes(head + body + "10=" + (sum % 256).ToString("D3") + "\u0001");
    }

    [Fact]
    public void ResendRequestReplaysAppMessagesAndGapFillsAdmin()
    {
        using var h = Create();
        h.Logon();
        h.Receive("35=1|34=2|112=A");
        h.Expect("0");
        h.Receive(Order(h, 3));
        Sent original = h.Expect("D");
        h.Receive("35=1|34=4|112=B");
        h.Expect("0");
        h.Now += SessionHarness.Second;
        h.Receive("35=2|34=5|7=1|16=0");
        Sent gap1 = h.Expect("4");
        Assert.Equal("1", gap1[34]);
        Assert.Equal("3", gap1[36]);
        Assert.Equal("Y", gap1[123]);
        Assert.Equal("Y", gap1[43]);
        Sent resent = h.Expect("D");
        Assert.Equal("3", resent[34]);
        Assert.Equal("Y", resent[43]);
        Assert.Equal(original[52], resent[122]);
        Assert.NotEqual(original[52], resent[52]);
        Assert.Equal("ID3", resent[11]);
        Sent gap2 = h.Expect("4");
        Assert.Equal("4", gap2[34]);
        Assert.Equal("5", gap2[36]);
        h.ExpectNothing();
        Assert.Equal(5, h.Session.NextSenderMsgSeqNum);
        Assert.Equal(6, h.Session.NextTargetMsgSeqNum);
    }

    [Fact]
    public void ResendRequestIsHonouredWhenItsSeqNumIsTooHigh()
    {
        using var h = Create();
        h.Logon();
        h.Receive("35=2|34=9|7=1|16=0");
        Assert.Equal("4", h.Expect("4")[35]);
        Assert.Equal(2, h.Session.NextTargetMsgSeqNum);
    }

    [Fact]
    public void SequenceResetGapFillMovesExpectedForward_ResetModeLowerIsRejected()
    {
        using var h = Create();
        h.Logon();
        h.Receive("35=4|34=2|123=Y|36=10");
        Assert.Equal(10, h.Session.NextTargetMsgSeqNum);
        h.Receive("35=4|34=0|36=20");
        Assert.Equal(20, h.Session.NextTargetMsgSeqNum);
        h.Receive("35=4|34=0|36=5");
        Sent reject = h.Expect("3");
        Assert.Equal("5", reject[373]);
        Assert.Equal("0", reject[45]);
        Assert.False(reject.Has(371));
        Assert.Equal(20, h.Session.NextTargetMsgSeqNum);
    }

    [Fact]
    public void UnsupportedApplicationMessageGetsBusinessMessageReject()
    {
        using var h = Create();
        h.Logon();
        h.Receive("35=B|34=2|148=Hello|33=1|58=line");
        Sent bmr = h.Expect("j");
        Assert.Equal("3", bmr[380]);
        Assert.Equal("B", bmr[372]);
        Assert.Equal("2", bmr[45]);
        // DefaultApplVerID(1137) only on FIXT.1.1 (see Fixt11SessionTests).
        Assert.Equal(BeginString == "FIXT.1.1" ? "9" : null, bmr[1137]);
        Assert.Equal(3, h.Session.NextTargetMsgSeqNum);
    }

    [Fact]
    public void RejectReceivedConsumesItsSeqNum()
    {
        using var h = Create();
        h.Logon();
        h.Receive("35=3|34=2|45=1|58=x");
        Assert.Equal(3, h.Session.NextTargetMsgSeqNum);
        Assert.Contains("3", h.App.AdminTypes);
    }

    [Fact]
    public void LogoutIsAnsweredAndDisconnects()
    {
        using var h = Create();
        h.Logon();
        h.Receive("35=5|34=2");
        h.Expect("5");
        Assert.True(h.Connection.Disconnected);
        Assert.Equal(1, h.App.Logouts);
    }

    [Fact]
    public void OurLogoutWaitsForReplyThenTimesOut()
    {
        using var h = Create(s => s with { LogoutTimeout = 2 });
        h.Logon();
        h.Session.Logout("bye", h.Now);
        Assert.Equal("bye", h.Expect("5")[58]);
        h.Advance(SessionHarness.Second);
        Assert.False(h.Connection.Disconnected);
        h.Advance(SessionHarness.Second);
        Assert.True(h.Connection.Disconnected);
    }

    [Fact]
    public void HeartbeatTestRequestAndTimeoutTimers()
    {
        using var h = Create();
        h.Logon(heartBtInt: 10);
        h.Advance(9 * SessionHarness.Second);
        h.ExpectNothing();
        h.Advance(1 * SessionHarness.Second);
        h.Expect("0");
        h.Advance(2 * SessionHarness.Second);
        Assert.Equal("TEST", h.Expect("1")[112]);
        h.Advance(10 * SessionHarness.Second);
        h.Advance(2 * SessionHarness.Second);
        Assert.True(h.Connection.Disconnected);
        Assert.Equal("Timed out waiting for heartbeat", h.Connection.Reason);
    }

    [Fact]
    public void LogonTimeoutDisconnects()
    {
        using var h = Create(s => s with { LogonTimeout = 5 });
        h.Advance(4 * SessionHarness.Second);
        Assert.False(h.Connection.Disconnected);
        h.Advance(1 * SessionHarness.Second);
        Assert.True(h.Connection.Disconnected);
    }

    [Fact]
    public void InvalidTagIsRejectedWithRefTag()
    {
        using var h = Create();
        h.Logon();
        h.Receive("35=0|34=2|5000=HI");
        Sent reject = h.Expect("3");
        Assert.Equal("5000", reject[371]);
        Assert.Equal("0", reject[373]);
        Assert.Equal("Invalid tag number", reject[58]);
        Assert.Equal(3, h.Session.NextTargetMsgSeqNum);
        h.Receive("35=0|34=3|-1=HI");
        // RefTagID(371) names only a real tag: -1 is described in Text alone (as StrictTagSessionTests checks).
        Sent unreadable = h.Expect("3");
        Assert.Null(unreadable[371]);
        Assert.False(string.IsNullOrEmpty(unreadable[58]));
    }

    [Fact]
    public void UserDefinedFieldsAcceptedWhenValidationSwitchedOff()
    {
        using var h = Create(s => s with { ValidateUserDefinedFields = false });
        h.Logon();
        h.Receive("35=0|34=2|5000=HI");
        h.ExpectNothing();
        Assert.Equal(3, h.Session.NextTargetMsgSeqNum);
    }

    [Fact]
    public void RequiredTagMissingIsRejected()
    {
        using var h = Create();
        h.Logon();
        h.Receive($"35=D|34=2|11=ID|21=3|38=100|40=1|55=INTC|60={h.Time()}");
        Sent reject = h.Expect("3");
        Assert.Equal("54", reject[371]);
        Assert.Equal("1", reject[373]);
        Assert.Equal("D", reject[372]);
    }

    [Fact]
    public void TagNotDefinedForMessageTypeIsRejected()
    {
        using var h = Create();
        h.Logon();
        // HeartBtInt is defined by every session dictionary (FIXT11.xml included) but not for a Heartbeat.
        h.Receive("35=0|34=2|108=30");
        Sent reject = h.Expect("3");
        Assert.Equal("108", reject[371]);
        Assert.Equal("2", reject[373]);
    }

    [Fact]
    public void EmptyValueIsRejected_RoutingReversedExceptEmptyField()
    {
        using var h = Create();
        h.Logon();
        h.Receive(Order(h, 2, "|115=JCD|116="));
        Sent reject = h.Expect("3");
        Assert.Equal("116", reject[371]);
        Assert.Equal("4", reject[373]);
        Assert.Equal("JCD", reject[128]);
        Assert.False(reject.Has(129));
    }

    [Fact]
    public void EnumAndFormatErrorsAreRejected()
    {
        using var h = Create();
        h.Logon();
        h.Receive($"35=D|34=2|11=ID|21=3|38=100|40=w|54=1|55=INTC|60={h.Time()}");
        Sent reject = h.Expect("3");
        Assert.Equal("40", reject[371]);
        Assert.Equal("5", reject[373]);
        h.Receive($"35=D|34=3|11=ID|21=3|38=+200.00|40=1|54=1|55=INTC|60={h.Time()}");
        reject = h.Expect("3");
        Assert.Equal("38", reject[371]);
        Assert.Equal("6", reject[373]);
        Assert.Equal(4, h.Session.NextTargetMsgSeqNum);
    }

    [Fact]
    public void HeaderFieldAfterBodyIsRejectedAsOutOfOrder()
    {
        using var h = Create();
        h.Logon();
        h.Receive($"35=D|49={h.Target}|56={h.Sender}|52={h.Time()}|11=ID|21=3|38=100|40=1|54=1|55=INTC|60={h.Time()}|34=2", addHeader: false);
        Sent reject = h.Expect("3");
        Assert.Equal("34", reject[371]);
        Assert.Equal("Tag specified out of required order", reject[58]);
        Assert.Equal(SendsExtendedRejectReasons, reject.Has(373));
    }

    [Fact]
    public void OutOfOrderAcceptedWhenSwitchedOff()
    {
        using var h = Create(s => s with { ValidateFieldsOutOfOrder = false });
        h.Logon();
        h.Receive($"35=D|49={h.Target}|56={h.Sender}|52={h.Time()}|11=ID|21=3|38=100|40=1|54=1|55=INTC|60={h.Time()}|34=2", addHeader: false);
        h.Expect("D");
    }

    [Fact]
    public void RepeatedTagIsRejected()
    {
        using var h = Create();
        h.Logon();
        h.Receive(Order(h, 2, "") + "|40=1");
        Sent reject = h.Expect("3");
        Assert.Equal("40", reject[371]);
        Assert.Equal("Tag appears more than once", reject[58]);
        Assert.Equal(SendsExtendedRejectReasons, reject.Has(373));
    }

    [Fact]
    public void UnknownMsgTypeIsRejected()
    {
        using var h = Create();
        h.Logon();
        h.Receive("35=*|34=2");
        Sent reject = h.Expect("3");
        Assert.Equal("11", reject[373]);
        Assert.Equal("*", reject[372]);
    }

    [Fact]
    public void ApplicationCanSendFromAnotherThreadThroughTheOutbox()
    {
        using var h = Create();
        h.Logon();
        var thread = new System.Threading.Thread(() =>
        {
            for (int i = 0; i < 3; i++)
            {
                Assert.True(h.Session.TrySendFromAnyThread("B"u8, i, static (ref FixEngine.Codec.FixWriter w, scoped in int n) =>
                {
                    w.Write(148, "news"u8);
                    w.Write(33, 1);
                    w.Write(58, n);
                }));
            }
        });
        thread.Start();
        thread.Join();
        h.ExpectNothing();
        h.Advance(1);
        for (int i = 0; i < 3; i++)
        {
            Sent news = h.Expect("B");
            Assert.Equal((i + 2).ToString(System.Globalization.CultureInfo.InvariantCulture), news[34]);
            Assert.Equal(i.ToString(System.Globalization.CultureInfo.InvariantCulture), news[58]);
        }
    }
}

public sealed class Fix42SessionTests : SessionBehaviourTests
{
    protected override string BeginString => "FIX.4.2";

    protected override bool SendsExtendedRejectReasons => false;
}

public sealed class Fix44SessionTests : SessionBehaviourTests
{
    protected override string BeginString => "FIX.4.4";

    protected override bool SendsExtendedRejectReasons => true;

    [Fact]
    public void MidSessionLogonWithResetSeqNumFlagResetsBothSides()
    {
        using var h = Create();
        h.Logon();
        h.Receive("35=1|34=2|112=X");
        h.Expect("0");
        h.Receive("35=A|34=1|98=0|108=30|141=Y");
        Sent logon = h.Expect("A");
        Assert.Equal("Y", logon[141]);
        Assert.Equal("1", logon[34]);
        Assert.Equal(2, h.Session.NextTargetMsgSeqNum);
        Assert.Equal(2, h.Session.NextSenderMsgSeqNum);
    }

    [Fact]
    public void NextExpectedMsgSeqNumIsSentOnLogonWhenEnabled()
    {
        using var h = Create(s => s with { EnableNextExpectedMsgSeqNum = true });
        h.Receive("35=A|34=1|98=0|108=30");
        Assert.Equal("1", h.Expect("A")[789]);
    }
}

public sealed class Fixt11SessionTests : SessionBehaviourTests
{
    protected override string BeginString => "FIXT.1.1";

    protected override bool SendsExtendedRejectReasons => true;

    [Fact]
    public void BusinessMessageRejectCarriesDefaultApplVerIdAsQuickFixSendsIt()
    {
        // The QuickFIX reference (FIXT acceptance 2r_UnregisteredMsgType) answers an unsupported message with
        // ...|45=2|58=Unsupported Message Type|372=8|380=3|1137=<its DefaultApplVerID>|10=...
        using var h = Create();
        h.Logon();
        h.Receive("35=8|34=2|37=id|17=id1|150=0|39=0|55=WLRI|54=1|151=100|14=0|6=0.0");
        Sent bmr = h.Expect("j");
        Assert.EndsWith("|45=2|58=Unsupported Message Type|372=8|380=3|1137=9|10=" + bmr[10] + "|", bmr.Text, StringComparison.Ordinal);
        Assert.Equal(3, h.Session.NextTargetMsgSeqNum);
    }

    [Fact]
    public void LogonWithoutDefaultApplVerIdDisconnects()
    {
        using var h = Create();
        h.Receive("35=A|34=1|98=0|108=30");
        Assert.True(h.Connection.Disconnected);
        h.ExpectNothing();
    }
}
