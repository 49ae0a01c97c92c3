using FixEngine.Session;

namespace FixEngine.Tests.Session;

/// <summary>
/// FIXT.1.1 + FIX.5.0SP2 sessions validate like FIX.4.4 ones (the QuickFIX reference behaviour): header and trailer
/// fields come from the transport dictionary, admin bodies from the transport dictionary only, application bodies from
/// the application dictionary only; repeating groups reached through components are counted and their entries checked.
/// </summary>
public sealed class FixtValidationTests
{
    private static string Order(SessionHarness h, int seq, string groups = "", string extra = "") =>
        $"35=D|34={seq}|11=ID{seq}{groups}|55=INTC|54=1|60={h.Time()}|38=100|40=1{extra}";

    [Theory]
    [InlineData("FIX.4.4")]
    [InlineData("FIXT.1.1")]
    public void AdminMessageWithATagTheTransportDictionaryDoesNotDefineIsInvalidTagNumber(string beginString)
    {
        // 999 is defined by FIX50SP2.xml but neither by FIXT11.xml nor FIX44.xml: for a Heartbeat it is not a tag at all.
        using var h = new SessionHarness(beginString);
        h.Logon();
        h.Receive("35=0|34=2|999=X");
        Sent reject = h.Expect("3");
        Assert.Equal("0", reject[373]);
        Assert.Equal("999", reject[371]);
        Assert.Equal("Invalid tag number", reject[58]);
        Assert.Equal(3, h.Session.NextTargetMsgSeqNum);
    }

    [Theory]
    [InlineData("FIX.4.4", "4999")]
    [InlineData("FIXT.1.1", "4999")]
    [InlineData("FIX.4.4", "9999")]
    [InlineData("FIXT.1.1", "9999")]
    public void ApplicationMessageWithATagNeitherDictionaryDefinesIsInvalidTagNumber(string beginString, string tag)
    {
        using var h = new SessionHarness(beginString);
        h.Logon();
        h.Receive(Order(h, 2, extra: "|" + tag + "=X"));
        Sent reject = h.Expect("3");
        Assert.Equal("0", reject[373]);
        Assert.Equal(tag, reject[371]);
        Assert.Equal("D", reject[372]);
    }

    [Theory]
    [InlineData("FIX.4.4", "2")] // FIX44.xml defines Symbol: not for a Heartbeat
    [InlineData("FIXT.1.1", "0")] // FIXT11.xml does not define Symbol at all
    public void AdminMessageWithAnApplicationFieldIsJudgedByTheSessionDictionaryAlone(string beginString, string reason)
    {
        using var h = new SessionHarness(beginString);
        h.Logon();
        h.Receive("35=0|34=2|55=INTC");
        Sent reject = h.Expect("3");
        Assert.Equal(reason, reject[373]);
        Assert.Equal("55", reject[371]);
    }

    [Theory]
    [InlineData("FIX.4.4", "|78=2|79=acct1|80=50|79=acct2|80=150|79=acct3|80=100", "78")] // NoAllocs (FIX50SP2: PreAllocGrp component), too many
    [InlineData("FIXT.1.1", "|78=2|79=acct1|80=50|79=acct2|80=150|79=acct3|80=100", "78")]
    [InlineData("FIX.4.4", "|453=2|448=P|447=D|452=1", "453")] // NoPartyIDs (Parties component), too few
    [InlineData("FIXT.1.1", "|453=2|448=P|447=D|452=1", "453")]
    [InlineData("FIX.4.4", "|453=1|448=P|447=D|452=1|802=2|523=a|803=1", "802")] // NoPartySubIDs nested in Parties
    [InlineData("FIXT.1.1", "|453=1|448=P|447=D|452=1|802=2|523=a|803=1", "802")]
    public void GroupCountMismatchIsRejectedWithTheGroupsCountTag(string beginString, string groups, string countTag)
    {
        using var h = new SessionHarness(beginString);
        h.Logon();
        h.Receive(Order(h, 2, groups));
        Sent reject = h.Expect("3");
        Assert.Equal("16", reject[373]);
        Assert.Equal(countTag, reject[371]);
        Assert.Equal("Incorrect NumInGroup count for repeating group", reject[58]);
        Assert.Equal(0, h.App.FromAppCount);
        h.Receive(Order(h, 3, "|453=1|448=P|447=D|452=1|802=1|523=a|803=1"));
        h.Expect("D");
    }

    [Theory]
    [InlineData("FIX.4.4")]
    [InlineData("FIXT.1.1")]
    public void HeaderGroupIsResolvedThroughTheTransportDictionary(string beginString)
    {
        using var h = new SessionHarness(beginString);
        h.Logon();
        h.Receive($"35=D|34=2|627=2|628=HOP1|629={h.Time()}|11=ID|55=INTC|54=1|60={h.Time()}|38=100|40=1");
        Sent reject = h.Expect("3");
        Assert.Equal("16", reject[373]);
        Assert.Equal("627", reject[371]);
        h.Receive($"35=D|34=3|627=1|628=HOP1|629={h.Time()}|11=ID|55=INTC|54=1|60={h.Time()}|38=100|40=1");
        h.Expect("D");
    }

    private static string List(string orders, int count) => $"35=E|34=2|66=LIST1|394=3|68={count}|73={count}{orders}";

    private static string Ord(string id, bool listSeqNo = true, bool side = true) =>
        $"|11={id}" + (listSeqNo ? "|67=1" : "") + "|55=INTC" + (side ? "|54=1" : "") + "|38=100|40=1";

    [Theory]
    [InlineData("FIX.4.4", false, true, "67")]
    [InlineData("FIX.4.4", true, false, "54")]
    [InlineData("FIXT.1.1", false, true, "67")]
    [InlineData("FIXT.1.1", true, false, "54")]
    public void MissingRequiredMemberOfAGroupInsideAComponentIsRejected(string beginString, bool listSeqNo, bool side, string missing)
    {
        // FIX50SP2 reaches NoOrders through the ListOrdGrp component, and Side through Instrument/OrderQtyData siblings.
        using var h = new SessionHarness(beginString);
        h.Logon();
        h.Receive(List(Ord("A") + Ord("B", listSeqNo, side), 2));
        Sent reject = h.Expect("3");
        Assert.Equal("1", reject[373]);
        Assert.Equal(missing, reject[371]);
        Assert.Equal("E", reject[372]);
    }

    [Theory]
    [InlineData("FIX.4.4")]
    [InlineData("FIXT.1.1")]
    public void RepeatedTagInsideAGroupEntryStartsAnotherEntryAsQuickFixParsesIt(string beginString)
    {
        // QuickFIX starts a new entry at a member the current entry already holds: two entries for a count of one.
        using var h = new SessionHarness(beginString);
        h.Logon();
        h.Receive(Order(h, 2, "|453=1|448=P|447=D|447=D|452=1"));
        Sent reject = h.Expect("3");
        Assert.Equal("453", reject[371]);
        Assert.Equal("16", reject[373]);

        // With a count of two the second entry does not start with its delimiter PartyID(448).
        h.Receive(Order(h, 3, "|453=2|448=P|447=D|447=D|452=1"));
        reject = h.Expect("3");
        Assert.Equal("447", reject[371]);
        Assert.Equal("15", reject[373]);
    }

    [Theory]
    [InlineData("FIX.4.4")]
    [InlineData("FIXT.1.1")]
    public void EnumValueInsideAGroupEntryIsChecked(string beginString)
    {
        using var h = new SessionHarness(beginString);
        h.Logon();
        h.Receive(Order(h, 2, "|453=1|448=P|447=%|452=1"));
        Sent reject = h.Expect("3");
        Assert.Equal("447", reject[371]);
        Assert.Equal("5", reject[373]);
    }
}
