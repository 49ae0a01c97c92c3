using System;
using FixEngine.Session;

namespace FixEngine.Tests.Session;

/// <summary>Required members of each repeating-group instance (FIX.4.4 NewOrderList NoOrders: ListSeqNo 67, Side 54).</summary>
public sealed class GroupValidationTests
{
    private static string List(string orders, int count) =>
        $"35=E|34=2|66=LIST1|394=3|68={count}|73={count}{orders}";

    private static string Ord(string id, bool listSeqNo = true, bool side = true) =>
        $"|11={id}" + (listSeqNo ? "|67=1" : "") + "|55=INTC" + (side ? "|54=1" : "") + "|38=100|40=1";

    [Fact]
    public void ValidGroupInstancesPass()
    {
        using var h = new SessionHarness("FIX.4.4");
        h.Logon();
        h.Receive(List(Ord("A") + Ord("B"), 2));
        Sent answer = h.Expect("j");
        Assert.Equal("3", answer[380]);
        Assert.Equal(3, h.Session.NextTargetMsgSeqNum);
    }

    [Theory]
    [InlineData(false, true, "67")]
    [InlineData(true, false, "54")]
    public void MissingRequiredMemberInFirstInstanceIsRejected(bool listSeqNo, bool side, string missing)
    {
        using var h = new SessionHarness("FIX.4.4");
        h.Logon();
        h.Receive(List(Ord("A", listSeqNo, side) + Ord("B"), 2));
        Sent reject = h.Expect("3");
        Assert.Equal("1", reject[373]);
        Assert.Equal(missing, reject[371]);
        Assert.Equal("E", reject[372]);
        Assert.Equal(3, h.Session.NextTargetMsgSeqNum);
        h.ExpectNothing();
    }

    [Fact]
    public void MissingRequiredMemberInLaterInstanceIsRejected()
    {
        using var h = new SessionHarness("FIX.4.4");
        h.Logon();
        h.Receive(List(Ord("A") + Ord("B") + Ord("C", side: false), 3));
        Sent reject = h.Expect("3");
        Assert.Equal("1", reject[373]);
        Assert.Equal("54", reject[371]);
    }

    [Fact]
    public void OptionalNestedGroupInsideAnInstanceDoesNotHideTheInstancesOwnMissingMember()
    {
        var validator = new MessageValidator(SessionHarness.Dictionary("FIX44.xml"), null, new ValidationOptions());
        using var h = new SessionHarness("FIX.4.4", connect: false);
        byte[] ok = h.Build(List(Ord("A") + "|453=1|448=P1|447=D|452=1", 1));
        Assert.True(Validate(validator, ok).IsValid, Validate(validator, ok).ToString());
        byte[] bad = h.Build(List("|11=A|67=1|453=1|448=P1|447=D|452=1|55=INTC|38=100|40=1", 1));
        ValidationError error = Validate(validator, bad);
        Assert.Equal(SessionRejectReason.RequiredTagMissing, error.Reason);
        Assert.Equal(54, error.RefTagId);
    }

    // No nested group of the shared dictionaries has a required member, so this one is inline: message X has group
    // NoOuter(5001) {5002 delimiter, 5003 required, NoInner(5004) {5005 delimiter, 5006 required}}.
    private const string NestedDictionary = """
        <fix type="FIX" major="4" minor="4" servicepack="0">
          <header>
            <field name="BeginString" required="Y"/><field name="BodyLength" required="Y"/><field name="MsgType" required="Y"/>
            <field name="SenderCompID" required="Y"/><field name="TargetCompID" required="Y"/>
            <field name="MsgSeqNum" required="Y"/><field name="SendingTime" required="Y"/>
          </header>
          <trailer><field name="CheckSum" required="Y"/></trailer>
          <messages>
            <message name="Nested" msgtype="X" msgcat="app">
              <group name="NoOuter" required="N">
                <field name="OuterID" required="N"/><field name="OuterReq" required="Y"/>
                <group name="NoInner" required="N">
                  <field name="InnerID" required="N"/><field name="InnerReq" required="Y"/>
                </group>
              </group>
            </message>
          </messages>
          <components/>
          <fields>
            <field number="8" name="BeginString" type="STRING"/><field number="9" name="BodyLength" type="LENGTH"/>
            <field number="35" name="MsgType" type="STRING"/><field number="49" name="SenderCompID" type="STRING"/>
            <field number="56" name="TargetCompID" type="STRING"/><field number="34" name="MsgSeqNum" type="SEQNUM"/>
            <field number="52" name="SendingTime" type="UTCTIMESTAMP"/><field number="10" name="CheckSum" type="STRING"/>
            <field number="5001" name="NoOuter" type="NUMINGROUP"/><field number="5002" name="OuterID" type="STRING"/>
            <field number="5003" name="OuterReq" type="STRING"/><field number="5004" name="NoInner" type="NUMINGROUP"/>
            <field number="5005" name="InnerID" type="STRING"/><field number="5006" name="InnerReq" type="STRING"/>
          </fields>
        </fix>
        """;

    [Theory]
    [InlineData("|5001=2|5002=A|5003=x|5004=2|5005=a|5006=y|5005=b|5006=z|5002=B|5003=x", 0)]
    [InlineData("|5001=2|5002=A|5003=x|5004=2|5005=a|5006=y|5005=b|5002=B|5003=x", 5006)]
    [InlineData("|5001=2|5002=A|5003=x|5004=1|5005=a|5002=B|5003=x", 5006)]
    [InlineData("|5001=2|5002=A|5004=1|5005=a|5006=y|5002=B|5003=x", 5003)]
    [InlineData("|5001=2|5002=A|5003=x|5004=1|5005=a|5006=y|5002=B", 5003)]
    public void NestedGroupInstancesAreCheckedForRequiredMembers(string body, int missingTag)
    {
        var dictionary = FixEngine.Dictionary.DataDictionary.Parse(NestedDictionary, "nested");
        var validator = new MessageValidator(dictionary, null, new ValidationOptions());
        using var h = new SessionHarness("FIX.4.4", connect: false);
        ValidationError error = Validate(validator, h.Build("35=X|34=2" + body));
        if (missingTag == 0)
        {
            Assert.True(error.IsValid, error.ToString());
            return;
        }
        Assert.True(error.IsError);
        Assert.Equal(SessionRejectReason.RequiredTagMissing, error.Reason);
        Assert.Equal(missingTag, error.RefTagId);
    }

    private static ValidationError Validate(MessageValidator validator, byte[] bytes)
    {
        var index = new FixEngine.Codec.FixMessageIndex();
        index.Parse(bytes);
        return validator.Validate(new FixEngine.Codec.FixMessage(bytes, index));
    }
}
