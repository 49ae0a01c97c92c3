using System.Collections.Generic;
using FixEngine.Dictionary;
using FixEngine.Logging;

namespace FixEngine.Tests.Session;

/// <summary>
/// A FIXT.1.1 session with AppDataDictionary=FIX50SP2.xml (its DefaultApplVerID FIX.5.0SP2) and
/// AppDataDictionary.FIX.4.4=FIX44.xml validates each application message against the dictionary of its version, as
/// QuickFIX C++ chooses it: ApplVerID(1128) of the header, else the counterparty's DefaultApplVerID(1137) from its Logon.
/// A version without a dictionary is answered with a session Reject 373=18 (Invalid/unsupported application version).
/// TimeInForce(59)=8 (Good Through Crossing) is a FIX.5.0SP2 value that FIX.4.4 does not have.
/// </summary>
public sealed class ApplicationVersionDictionaryTests
{
    internal static Dictionary<string, DataDictionary> Fix44AndFix50Sp2() => new()
    {
        ["6"] = SessionHarness.Dictionary("FIX44.xml"),
        ["9"] = SessionHarness.Dictionary("FIX50SP2.xml"),
    };

    private static SessionHarness Harness(RecordingSessionLog? log = null) =>
        new("FIXT.1.1", log: log, appVersions: Fix44AndFix50Sp2());

    internal static string Order(SessionHarness h, int seq, string? applVerId, string timeInForce) =>
        $"35=D|34={seq}" + (applVerId is null ? "" : "|1128=" + applVerId) + $"|11=ID{seq}|55=INTC|54=1|60={h.Time()}|38=100|40=1|59={timeInForce}";

    private static void LogonWithDefault(SessionHarness h, string defaultApplVerId)
    {
        h.Receive("35=A|34=1|98=0|108=30|1137=" + defaultApplVerId);
        h.Expect("A");
    }

    [Fact]
    public void EachApplicationMessageIsValidatedAgainstTheDictionaryItsApplVerIdNames()
    {
        using SessionHarness h = Harness();
        h.Logon(); // 1137=9

        h.Receive(Order(h, 2, "6", "8"));
        Sent reject = h.Expect("3");
        Assert.Equal("5", reject[373]);
        Assert.Equal("59", reject[371]);
        Assert.Equal("D", reject[372]);
        Assert.Equal(0, h.App.FromAppCount);

        h.Receive(Order(h, 3, "9", "8"));
        Assert.Equal("9", h.Expect("D")[1128]);
        h.Receive(Order(h, 4, "6", "0"));
        Assert.Equal("6", h.Expect("D")[1128]);
        Assert.Equal(2, h.App.FromAppCount);
        Assert.Equal(5, h.Session.NextTargetMsgSeqNum);
    }

    [Fact]
    public void WithoutApplVerIdTheCounterpartysDefaultApplVerIdFromItsLogonChooses()
    {
        using (SessionHarness h = Harness())
        {
            LogonWithDefault(h, "9");
            h.Receive(Order(h, 2, null, "8"));
            h.Expect("D");
        }
        using (SessionHarness h = Harness())
        {
            LogonWithDefault(h, "6");
            h.Receive(Order(h, 2, null, "8"));
            Sent reject = h.Expect("3");
            Assert.Equal("5", reject[373]);
            Assert.Equal("59", reject[371]);
            // ApplVerID(1128) still overrides the counterparty's default.
            h.Receive(Order(h, 3, "9", "8"));
            h.Expect("D");
        }
    }

    [Fact]
    public void AnApplVerIdWithoutADictionaryIsRejectedWithReason18AndConsumed()
    {
        using SessionHarness h = Harness();
        h.Logon();
        h.Receive(Order(h, 2, "7", "0"));
        Sent reject = h.Expect("3");
        Assert.Equal("18", reject[373]);
        Assert.Equal("1128", reject[371]);
        Assert.Equal("2", reject[45]);
        Assert.Equal("D", reject[372]);
        Assert.StartsWith("Invalid/unsupported application version: ApplVerID(1128) 7 has no dictionary", reject[58]);
        Assert.Equal(0, h.App.FromAppCount);
        Assert.Equal(3, h.Session.NextTargetMsgSeqNum);

        h.Receive(Order(h, 3, "9", "0"));
        h.Expect("D");
        Assert.Equal(1, h.App.FromAppCount);
    }

    [Fact]
    public void ACounterpartyDefaultWithoutADictionaryIsLoggedAtLogonAndItsMessagesWithoutApplVerIdAreRejected()
    {
        var log = new RecordingSessionLog();
        using SessionHarness h = Harness(log);
        LogonWithDefault(h, "7");
        Assert.Contains(log.Events, e => e.Level == LogLevel.Warning && e.Text.Contains("DefaultApplVerID(1137) 7 has no application dictionary"));

        h.Receive(Order(h, 2, null, "0"));
        Sent reject = h.Expect("3");
        Assert.Equal("18", reject[373]);
        Assert.False(reject.Has(371));
        Assert.Contains("DefaultApplVerID(1137) 7 has no dictionary", reject[58]);

        // Admin messages are judged by the transport dictionary alone; a message naming a known version passes.
        h.Receive("35=1|34=3|112=T1");
        Assert.Equal("T1", h.Expect("0")[112]);
        h.Receive(Order(h, 4, "6", "0"));
        h.Expect("D");
        Assert.Equal(5, h.Session.NextTargetMsgSeqNum);
    }

    [Fact]
    public void WithAppDataDictionaryAloneEveryApplicationMessageIsValidatedAgainstIt()
    {
        // No AppDataDictionary.<version> keys: QuickFIX/n's behaviour, whatever version the message names.
        using var h = new SessionHarness("FIXT.1.1");
        h.Logon();
        h.Receive(Order(h, 2, "6", "8"));
        h.Expect("D");
        h.Receive(Order(h, 3, "7", "%"));
        Sent reject = h.Expect("3");
        Assert.Equal("5", reject[373]);
        Assert.Equal("59", reject[371]);
    }
}

/// <summary>Choosing the dictionary by ApplVerID(1128) (or the counterparty's default) allocates nothing.</summary>
[Collection(nameof(FixEngine.Tests.Infrastructure.AllocationMeasurement))]
public sealed class ApplicationVersionAllocationTests
{
    [Fact]
    public void MessagesOfBothVersionsAreValidatedAndAnsweredWithoutAllocatingAfterWarmUp()
    {
        using var h = new SessionHarness("FIXT.1.1", s => s with { ResetOnLogon = false }, appVersions: ApplicationVersionDictionaryTests.Fix44AndFix50Sp2());
        h.Connection.CaptureEnabled = false;
        h.Session.OnMessage(h.Build("35=A|34=1|98=0|108=30|1137=9"), h.Now);
        Assert.True(h.Session.IsLoggedOn);
        const int count = 6_000;
        // FIX.4.4 orders, FIX.5.0SP2 orders with 59=8 (a value FIX.4.4 lacks) and orders without 1128 (the default, 9).
        var frames = new byte[count][];
        for (int i = 0; i < count; i++)
        {
            string? applVerId = (i % 3) switch { 0 => "6", 1 => "9", _ => null };
            frames[i] = h.Build(ApplicationVersionDictionaryTests.Order(h, i + 2, applVerId, applVerId == "6" ? "0" : "8"));
        }

        for (int i = 0; i < count; i++) h.Session.OnMessage(frames[i], h.Now);
        Assert.Equal(count, h.App.FromAppCount);
        long best = FixEngine.Tests.Infrastructure.Allocations.BestWindow(prepare: () =>
        {
            h.Session.ResetSequenceNumbers(h.Now);
            h.Store.SetNextTargetMsgSeqNum(2);
            h.Session.Poll(h.Now);
        }, window: () =>
        {
            for (int i = 0; i < count; i++) h.Session.OnMessage(frames[i], h.Now);
            h.Session.Poll(h.Now);
        });

        Assert.Equal(count + 2, h.Session.NextTargetMsgSeqNum);
        Assert.Equal(0, best);
    }
}
