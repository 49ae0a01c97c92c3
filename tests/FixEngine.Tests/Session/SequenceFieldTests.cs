using System;

namespace FixEngine.Tests.Session;

/// <summary>Sequence number fields a careless or hostile peer gets wrong (issue 14, item 7): a message without a valid
/// MsgSeqNum(34) ends the session with a Logout naming the field (not "MsgSeqNum too low ... received 0"); a
/// ResendRequest with an unusable range is rejected naming the tag; a BeginSeqNo above what we sent gets nothing and the
/// session goes on.</summary>
public class SequenceFieldTests
{
    private static string Order(SessionHarness h, string seqField, string id) => $"35=D{seqField}|11={id}|21=3|38=100|40=1|54=1|55=INTC|60={h.Time()}";

    private static SessionHarness Create(bool dictionary) =>
        new("FIX.4.4", s => s with { UseDataDictionary = dictionary });

    [Theory]
    [InlineData(true, "|34=abc", "MsgSeqNum(34) invalid: 'abc' is not an integer")]
    [InlineData(false, "|34=abc", "MsgSeqNum(34) invalid: 'abc' is not an integer")]
    [InlineData(true, "", "MsgSeqNum(34) missing")]
    [InlineData(false, "", "MsgSeqNum(34) missing")]
    [InlineData(true, "|34=99999999999", "MsgSeqNum(34) out of range: '99999999999'")]
    [InlineData(false, "|34=99999999999", "MsgSeqNum(34) out of range: '99999999999'")]
    [InlineData(false, "|34=0", "MsgSeqNum(34) invalid: 0 (must be at least 1)")]
    [InlineData(false, "|34=-2", "MsgSeqNum(34) invalid: -2 (must be at least 1)")]
    [InlineData(false, "|34=", "MsgSeqNum(34) invalid: '' is not an integer")]
    public void AMessageWithoutAValidMsgSeqNumGetsALogoutNamingTheField(bool dictionary, string seqField, string text)
    {
        using var h = Create(dictionary);
        h.Logon();
        h.Receive(Order(h, seqField, "X"));
        Assert.Equal(0, h.App.FromAppCount);
        Sent logout = h.Expect("5");
        Assert.StartsWith(text, logout[58]);
        Assert.DoesNotContain("too low", logout[58]);
        Assert.True(h.Connection.Disconnected);
        Assert.Equal(2, h.Session.NextTargetMsgSeqNum);
    }

    [Fact]
    public void ALogonWithoutAValidMsgSeqNumIsRefused()
    {
        using var h = Create(dictionary: false);
        h.Receive("35=A|34=x1|98=0|108=30");
        Assert.Contains("MsgSeqNum(34) invalid", h.Expect("5")[58]);
        Assert.True(h.Connection.Disconnected);
        Assert.False(h.Session.IsLoggedOn);
        Assert.Equal(0, h.App.Logons);
    }

    [Theory]
    [InlineData(false, "7=2000000000|16=1", "5", "7")]
    [InlineData(true, "7=2000000000|16=1", "5", "7")]
    [InlineData(false, "7=-5|16=0", "5", "7")]
    [InlineData(true, "7=-5|16=0", "5", "7")]
    [InlineData(false, "7=0|16=0", "5", "7")]
    [InlineData(false, "7=abc|16=0", "6", "7")]
    [InlineData(false, "7=99999999999|16=0", "5", "7")]
    [InlineData(false, "16=0", "1", "7")]
    [InlineData(false, "7=1|16=-3", "5", "16")]
    [InlineData(true, "7=1|16=-3", "5", "16")]
    [InlineData(false, "7=1", "1", "16")]
    [InlineData(false, "7=1|16=x", "6", "16")]
    public void AResendRequestWithAnUnusableRangeIsRejectedNamingTheTag(bool dictionary, string range, string reason, string refTag)
    {
        using var h = Create(dictionary);
        h.Logon();
        h.Receive("35=2|34=2|" + range);
        Sent reject = h.Expect("3");
        Assert.Equal(reason, reject[373]);
        Assert.Equal(refTag, reject[371]);
        Assert.Equal("2", reject[45]);
        h.ExpectNothing();
        Assert.False(h.Connection.Disconnected);
        // The ResendRequest's number was consumed; the session goes on.
        Assert.Equal(3, h.Session.NextTargetMsgSeqNum);
        h.Receive(Order(h, "|34=3", "NEXT"));
        Assert.Equal("NEXT", h.Expect("D")[11]);
    }

    [Fact]
    public void AnInvertedRangeSaysWhyInText58()
    {
        using var h = Create(dictionary: false);
        h.Logon();
        h.Receive("35=2|34=2|7=2000000000|16=1");
        Assert.Equal("BeginSeqNo(7) 2000000000 is greater than EndSeqNo(16) 1", h.Expect("3")[58]);
    }

    [Theory]
    [InlineData("7=2000000000|16=0")]
    [InlineData("7=5|16=9")]
    [InlineData("7=2|16=2")]
    public void ABeginSeqNoAboveWhatWeSentGetsNothingAndTheSessionGoesOn(string range)
    {
        using var h = Create(dictionary: false);
        h.Logon();
        // We sent one message (our Logon, 34=1).
        h.Receive("35=2|34=2|" + range);
        h.ExpectNothing();
        Assert.False(h.Connection.Disconnected);
        Assert.Equal(3, h.Session.NextTargetMsgSeqNum);
        h.Receive(Order(h, "|34=3", "NEXT"));
        Assert.Equal("NEXT", h.Expect("D")[11]);
        // Later requests inside what was sent are still answered.
        h.Receive("35=2|34=4|7=1|16=0");
        Sent gapFill = h.Expect("4");
        Assert.Equal("1", gapFill[34]);
        Assert.Equal("Y", gapFill[123]);
    }

    [Fact]
    public void ASequenceResetResetStillIgnoresItsOwnMsgSeqNum()
    {
        using var h = Create(dictionary: false);
        h.Logon();
        h.Receive("35=4|34=0|36=20");
        Assert.Equal(20, h.Session.NextTargetMsgSeqNum);
        Assert.False(h.Connection.Disconnected);
    }
}
