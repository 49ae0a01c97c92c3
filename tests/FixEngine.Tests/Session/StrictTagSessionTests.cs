using FixEngine.Codec;

namespace FixEngine.Tests.Session;

/// <summary>With UseDataDictionary=N a message with a field that has no valid tag number is answered with a session
/// Reject 373=0 (Invalid tag number) and never reaches FromApp; its MsgSeqNum is consumed, and the session goes on.</summary>
public class StrictTagSessionTests
{
    [Theory]
    [InlineData("0=1", "0")]
    [InlineData("-1=1", "-1")]
    [InlineData("99999999999=1", "0")]
    [InlineData("=1", "0")]
    [InlineData("ABC=1", "0")]
    [InlineData("38", "38")]
    public void AnOrderWithAnInvalidTagIsRejectedWithoutADictionary(string badField, string refTag)
    {
        using var h = new SessionHarness("FIX.4.4", s => s with { UseDataDictionary = false });
        h.Logon();
        h.Receive("35=D|34=2|11=BAD|55=EURUSD|54=1|" + badField + "|38=100|40=1|60=" + h.Time());
        Assert.Equal(0, h.App.FromAppCount);
        Sent reject = h.Expect("3");
        Assert.Equal("0", reject[373]);
        Assert.Equal(refTag, reject[371]);
        Assert.Equal("2", reject[45]);
        Assert.False(h.Connection.Disconnected);

        // The next order (MsgSeqNum 3: the bad one was consumed) is filled.
        h.Receive("35=D|34=3|11=GOOD|55=EURUSD|54=1|38=100|40=1|60=" + h.Time());
        Assert.Equal(1, h.App.FromAppCount);
        Assert.Equal("GOOD", h.Expect("D")[11]);
        h.ExpectNothing();
    }

    [Fact]
    public void ADictionarySessionRejectsATagOutOfRangeToo()
    {
        using var h = new SessionHarness("FIX.4.4");
        h.Logon();
        h.Receive("35=D|34=2|11=BAD|21=1|55=EURUSD|54=1|99999999999=1|38=100|40=1|60=" + h.Time());
        Assert.Equal(0, h.App.FromAppCount);
        Assert.Equal("0", h.Expect("3")[373]);
    }
}
