using FixEngine.Session;

namespace FixEngine.Tests.Session;

/// <summary>
/// A repeating group's shape (its NumInGroup count against its entries) is checked before the values in its entries, as
/// QuickFIX does: a NewOrderSingle whose NoPartyIDs count disagrees with its entries, one of which also has a value
/// outside its enum, is rejected for the count (373=16 on 453), not for the value (373=5 on 447).
/// </summary>
public sealed class ValidationOrderTests
{
    private static string Order(SessionHarness h, string parties) =>
        $"35=D|34=2|11=ID1{parties}|55=INTC|54=1|60={h.Time()}|38=100|40=1";

    [Theory]
    [InlineData("FIX.4.4", null)]
    [InlineData("FIXT.1.1", "FIX50SP1.xml")]
    [InlineData("FIXT.1.1", "FIX50SP2.xml")]
    [InlineData("FIXT.1.1", "FIX50.xml")]
    public void CountMismatchIsReportedBeforeABadEnumValueInAnEntry(string beginString, string? appDictionary)
    {
        MessageValidator validator = Validator(beginString, appDictionary);
        using var h = new SessionHarness(beginString, connect: false);
        // Two entries declared, three present; the second entry has PartyIDSource 447=@, outside its enum.
        ValidationError error = Validate(validator, h.Build(Order(h, "|453=2|448=P1|447=D|452=1|448=P2|447=@|452=1|448=P3|447=D|452=1")));
        Assert.Equal(SessionRejectReason.IncorrectNumInGroupCount, error.Reason);
        Assert.Equal(453, error.RefTagId);

        // With the count right, the value is what is wrong.
        error = Validate(validator, h.Build(Order(h, "|453=3|448=P1|447=D|452=1|448=P2|447=@|452=1|448=P3|447=D|452=1")));
        Assert.Equal(SessionRejectReason.ValueIsIncorrect, error.Reason);
        Assert.Equal(447, error.RefTagId);
    }

    [Theory]
    [InlineData("FIX.4.4", null)]
    [InlineData("FIXT.1.1", "FIX50SP2.xml")]
    public void NestedCountMismatchIsReportedBeforeABadValueEarlierInTheEntry(string beginString, string? appDictionary)
    {
        MessageValidator validator = Validator(beginString, appDictionary);
        using var h = new SessionHarness(beginString, connect: false);
        // The entry's own 447 is bad and comes first; its nested NoPartySubIDs declares 2 with one entry.
        ValidationError error = Validate(validator, h.Build(Order(h, "|453=1|448=P1|447=@|452=1|802=2|523=a|803=1")));
        Assert.Equal(SessionRejectReason.IncorrectNumInGroupCount, error.Reason);
        Assert.Equal(802, error.RefTagId);
        error = Validate(validator, h.Build(Order(h, "|453=1|448=P1|447=@|452=1|802=1|523=a|803=1")));
        Assert.Equal(SessionRejectReason.ValueIsIncorrect, error.Reason);
        Assert.Equal(447, error.RefTagId);
    }

    [Fact]
    public void SessionAnswersTheCountMismatchWithReason16OnTheCountTag()
    {
        using var h = new SessionHarness("FIXT.1.1");
        h.Logon();
        h.Receive(Order(h, "|453=2|448=P1|447=@|452=1"));
        Sent reject = h.Expect("3");
        Assert.Equal("16", reject[373]);
        Assert.Equal("453", reject[371]);
        Assert.Equal(0, h.App.FromAppCount);
    }

    private static MessageValidator Validator(string beginString, string? appDictionary) => beginString == "FIXT.1.1"
        ? new MessageValidator(SessionHarness.Dictionary("FIXT11.xml"), SessionHarness.Dictionary(appDictionary!), new ValidationOptions())
        : new MessageValidator(SessionHarness.Dictionary("FIX44.xml"), null, new ValidationOptions());

    private static ValidationError Validate(MessageValidator validator, byte[] bytes)
    {
        var index = new FixEngine.Codec.FixMessageIndex();
        index.Parse(bytes);
        return validator.Validate(new FixEngine.Codec.FixMessage(bytes, index));
    }
}
