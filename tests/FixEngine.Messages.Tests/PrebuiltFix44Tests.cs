using System;
using System.IO;
using System.Linq;
using System.Reflection;
using System.Xml.Linq;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Messages.Fix44;
using FixEngine.Session;
using FixEngine.Testing;

namespace FixEngine.Messages.Tests;

/// <summary>The prebuilt FixEngine.Messages.FIX44 package, used as an application uses it: an order written with its body
/// writer goes through a real, dictionary-validating session, is cracked to its typed reader and filled with its
/// ExecutionReport writer, and the fill is read back with its typed reader.</summary>
public sealed class PrebuiltFix44Tests
{
    internal static string Repository()
    {
        for (var dir = new DirectoryInfo(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
        {
            if (File.Exists(Path.Combine(dir.FullName, "FixEngine.sln"))) return dir.FullName;
        }
        throw new DirectoryNotFoundException("repository root not found above " + AppContext.BaseDirectory);
    }

    private static SessionSettings Acceptor() => SettingsFile.Parse(
        "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=5001\nNonStopSession=Y\nUseDataDictionary=Y\n" +
        "DataDictionary=" + Path.Combine(Repository(), "dictionaries", "FIX44.xml") + "\n" +
        "[SESSION]\nBeginString=FIX.4.4\nSenderCompID=EXEC\nTargetCompID=CLIENT\n")[0];

    private sealed class Fills : MessageCracker, IApplication
    {
        public int Orders;

        public FromAppResult FromApp(FixSession session, FixMessage message) => Crack(session, message);

        public override FromAppResult OnMessage(FixSession session, in NewOrderSingle.Reader order)
        {
            Orders++;
            session.Send(ExecutionReport.MsgType, order, static (ref FixWriter w, scoped in NewOrderSingle.Reader o) =>
                ExecutionReport.Begin(ref w)
                    .OrderID("O-1"u8).ClOrdID(o.ClOrdID)
                    .ExecID("E-1"u8).ExecType(ExecType.Trade)
                    .OrdStatus(OrdStatus.Filled).Symbol(o.Symbol).Side(o.Side)
                    .LeavesQty(0).CumQty(o.OrderQty ?? default).AvgPx(o.Price ?? default)
                    .TransactTime(FixTimestamp.FromUnixNanoseconds(o.TransactTimeNs))
                    .End());
            return FromAppResult.Accepted;
        }
    }

    [Fact]
    public void AnOrderAndItsFillRoundTripThroughAValidatingSessionWithThePrebuiltTypes()
    {
        var app = new Fills();
        using var pair = FixSessionTestPair.Create(Acceptor(), app);
        pair.Connect();
        Assert.True(pair.Session.IsLoggedOn);

        FixTimestamp at = FixTimestamp.FromDateTimeOffset(new DateTimeOffset(2026, 12, 6, 7, 0, 1, 250, TimeSpan.Zero));
        pair.SendFromCounterparty(NewOrderSingle.MsgType, at, static (ref FixWriter w, scoped in FixTimestamp t) =>
            NewOrderSingle.Begin(ref w)
                .ClOrdID("ORD-1"u8)
                .NoPartyIDs(1).PartyID("DESK1"u8).PartyIDSource(PartyIDSource.Proprietary).PartyRole(PartyRole.ExecutingFirm).EndNoPartyIDs()
                .Symbol("INTC"u8).Side(Side.Buy).TransactTime(t)
                .OrderQty(300).OrdType(OrdType.Limit).Price(new FixDecimal(2150, 2))
                .End());

        Assert.Equal(1, app.Orders);
        ReceivedFixMessage fill = Assert.Single(pair.ReceivedApplicationMessages);
        var index = new FixMessageIndex();
        Assert.True(index.Parse(fill.Bytes), index.Defect.Describe());
        var report = new ExecutionReport.Reader(new FixMessage(fill.Bytes, index));
        Assert.Equal("ORD-1"u8.ToArray(), report.ClOrdID.ToArray());
        Assert.Equal("INTC"u8.ToArray(), report.Symbol.ToArray());
        Assert.Equal(ExecType.Trade, report.ExecType);
        Assert.Equal(OrdStatus.Filled, report.OrdStatus);
        Assert.Equal(Side.Buy, report.Side);
        Assert.Equal(300m, report.CumQty.ToDecimal());
        Assert.Equal(21.50m, report.AvgPx.ToDecimal());
        Assert.Equal(at.UnixNanoseconds, report.TransactTimeNs);
    }

    [Fact]
    public void ThePackageHoldsEveryMessageOfTheDictionaryWithAReaderAndAWriter()
    {
        XDocument dictionary = XDocument.Load(Path.Combine(Repository(), "dictionaries", "FIX44.xml"));
        string[] names = dictionary.Root!.Element("messages")!.Elements("message").Select(m => (string)m.Attribute("name")!).ToArray();
        Assert.Equal(93, names.Length);
        Assembly assembly = typeof(NewOrderSingle).Assembly;
        Assert.Equal("FixEngine.Messages.FIX44", assembly.GetName().Name);
        foreach (string name in names)
        {
            Type? type = assembly.GetType("FixEngine.Messages.Fix44." + name);
            Assert.True(type is not null, name + " is missing");
            Assert.True(type.GetNestedType("Reader") is not null, name + " has no Reader");
            Assert.True(type.GetMethod("Begin") is not null, name + " has no Begin");
        }
        // The package depends on the core alone.
        string[] references = assembly.GetReferencedAssemblies().Select(a => a.Name!).ToArray();
        Assert.Contains("FixEngine", references);
        Assert.All(references, r => Assert.True(r == "FixEngine" || r.StartsWith("System.", StringComparison.Ordinal), r));
    }
}
