using FixEngine.Dictionary;
using FixEngine.Session;

namespace FixEngine.Tests.Session;

/// <summary>
/// FIX.4.0 and FIX.4.1 sessions with QuickFIX's own dictionaries behave as QuickFIX does: CHAR is checked as STRING (those
/// dictionaries type BeginString, the CompIDs and CheckSum as CHAR), a session Reject carries no RefTagID(371),
/// RefMsgType(372) or SessionRejectReason(373) (the tag goes into the Text), timestamps the session writes have no
/// fraction, and an unsupported application message gets a Reject "Unsupported message type".
/// </summary>
public sealed class OlderVersionSessionTests
{
    [Theory]
    [InlineData("FIX.4.0")]
    [InlineData("FIX.4.1")]
    public void LogonIsAcceptedAndAnsweredWithSendingTimeToTheSecond(string beginString)
    {
        using var h = new SessionHarness(beginString);
        h.Receive("35=A|34=1|98=0|108=30");
        Sent logon = h.Expect("A");
        Assert.Equal(17, logon[52]!.Length);
        Assert.True(h.Session.IsLoggedOn);
        h.Receive("35=1|34=2|112=T1");
        Sent heartbeat = h.Expect("0");
        Assert.Equal("T1", heartbeat[112]);
        Assert.Equal(17, heartbeat[52]!.Length);
    }

    [Theory]
    [InlineData("FIX.4.0")]
    [InlineData("FIX.4.1")]
    public void CharFieldsAreCheckedAsStringBelowFix42(string beginString)
    {
        DataDictionary dd = SessionHarness.Dictionary(beginString.Replace("FIX.", "FIX").Replace(".", "") + ".xml");
        Assert.True(dd.CharIsString);
        Assert.Equal(FixFieldType.Char, dd.GetFieldType(49));
        Assert.True(dd.IsValidFieldFormat(49, "ISLD"u8));
        Assert.True(dd.IsValidFieldFormat(8, "FIX.4.0"u8));
        Assert.False(dd.IsValidFieldFormat(49, ""u8));
    }

    [Fact]
    public void CharStaysOneCharacterFromFix42On()
    {
        foreach (string file in new[] { "FIX42.xml", "FIX44.xml", "FIXT11.xml", "FIX50SP2.xml" })
        {
            DataDictionary dd = SessionHarness.Dictionary(file);
            Assert.False(dd.CharIsString, file);
            if (dd.IsDefinedField(54)) Assert.False(dd.IsValidFieldFormat(54, "12"u8), file);
        }
    }

    [Theory]
    [InlineData("FIX.4.0")]
    [InlineData("FIX.4.1")]
    public void RejectPutsTheTagInTheTextAndCarriesNoFix42Fields(string beginString)
    {
        using var h = new SessionHarness(beginString);
        h.Logon();
        h.Receive("35=0|34=2|999=X");
        Sent reject = h.Expect("3");
        Assert.Equal("Invalid tag number (999)", reject[58]);
        Assert.Equal("2", reject[45]);
        Assert.False(reject.Has(371), reject.Text);
        Assert.False(reject.Has(372), reject.Text);
        Assert.False(reject.Has(373), reject.Text);
        Assert.Equal(17, reject[52]!.Length);
        Assert.Equal(3, h.Session.NextTargetMsgSeqNum);
    }

    [Theory]
    [InlineData("FIX.4.0")]
    [InlineData("FIX.4.1")]
    public void RejectWithoutATagHasTheBareText(string beginString)
    {
        using var h = new SessionHarness(beginString);
        h.Logon();
        h.Receive("35=0|34=2|49=WRONG");
        Sent reject = h.Expect("3");
        Assert.Equal("CompID problem", reject[58]);
        Assert.False(reject.Has(373), reject.Text);
        h.Expect("5");
    }

    [Theory]
    [InlineData("FIX.4.0", "35=B|34=2|33=1|58=hello")]
    [InlineData("FIX.4.1", "35=B|34=2|148=Head|33=1|58=hello")]
    public void UnsupportedApplicationMessageGetsARejectUnsupportedMessageType(string beginString, string news)
    {
        using var h = new SessionHarness(beginString);
        h.Logon();
        h.Receive(news);
        Sent reject = h.Expect("3");
        Assert.Equal("Unsupported message type", reject[58]);
        Assert.Equal("2", reject[45]);
        Assert.False(reject.Has(372), reject.Text);
        Assert.False(reject.Has(373), reject.Text);
        Assert.Equal(1, h.App.FromAppCount);
        Assert.Equal(3, h.Session.NextTargetMsgSeqNum);
    }

    [Theory]
    [InlineData("FIX.4.0")]
    [InlineData("FIX.4.1")]
    public void UndefinedMsgTypeIsInvalidMsgTypeWithoutReasonCode(string beginString)
    {
        using var h = new SessionHarness(beginString);
        h.Logon();
        h.Receive("35=*|34=2");
        Sent reject = h.Expect("3");
        Assert.Equal("Invalid MsgType", reject[58]);
        Assert.False(reject.Has(373), reject.Text);
        Assert.Equal(3, h.Session.NextTargetMsgSeqNum);
    }

    [Fact]
    public void Fix42WritesReasonCodesUpTo11AndTheTagInRefTagId()
    {
        using var h = new SessionHarness("FIX.4.2");
        h.Logon();
        h.Receive("35=0|34=2|999=X");
        Sent reject = h.Expect("3");
        Assert.Equal("Invalid tag number", reject[58]);
        Assert.Equal("999", reject[371]);
        Assert.Equal("0", reject[373]);
        Assert.Equal("0", reject[372]);
        Assert.Equal(21, reject[52]!.Length);
        // 13 (Tag appears more than once) is not a FIX.4.2 reason: text and tag only.
        h.Receive("35=0|34=3|112=A|112=B");
        reject = h.Expect("3");
        Assert.Equal("Tag appears more than once", reject[58]);
        Assert.Equal("112", reject[371]);
        Assert.False(reject.Has(373), reject.Text);
    }

    [Theory]
    [InlineData(SessionRejectReason.UndefinedTag)]
    [InlineData(SessionRejectReason.Other)]
    public void ApplicationRejectWithAReasonQuickFixHasNoTextForCarriesNoText(int reason)
    {
        var app = new RejectingApp(reason);
        using var h = new SessionHarness("FIX.4.4", application: app);
        h.Logon();
        h.Receive("35=B|34=2|148=Head|33=1|58=hello");
        Sent reject = h.Expect("3");
        Assert.False(reject.Has(58), reject.Text);
        Assert.Equal(reason.ToString(System.Globalization.CultureInfo.InvariantCulture), reject[373]);
        Assert.Equal("148", reject[371]);
    }

    private sealed class RejectingApp(int reason) : IApplication
    {
        public FromAppResult FromApp(FixEngine.Session.FixSession session, FixEngine.Codec.FixMessage message) => FromAppResult.Reject(reason, 148);
    }

    [Theory]
    [InlineData("FIX.4.0", false)]
    [InlineData("FIX.4.1", true)]
    public void AnInitiatorThatResetsOnLogonSaysSoFromFix41On(string beginString, bool flag)
    {
        // ResetSeqNumFlag(141) is not a FIX.4.0 field: a FIX.4.0 acceptor would reject the Logon for it.
        using var h = new SessionHarness(beginString, s => s with
        {
            ConnectionType = FixEngine.Config.ConnectionType.Initiator,
            SocketAcceptPort = null,
            SocketConnectHost = "127.0.0.1",
            SocketConnectPort = 5001,
            SenderCompID = "TW42",
            TargetCompID = "ISLD",
            HeartBtInt = 30,
            ResetOnLogon = true,
        });
        Sent logon = h.Expect("A");
        Assert.Equal(flag, logon.Has(141));
        Assert.Equal(17, logon[52]!.Length);
        h.Receive(flag ? "35=A|34=1|49=ISLD|56=TW42|98=0|108=30|141=Y" : "35=A|34=1|49=ISLD|56=TW42|98=0|108=30");
        Assert.True(h.Session.IsLoggedOn);
    }
}
