using System;
using System.Linq;
using System.Text;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Session;
using FixEngine.Testing;

namespace FixEngine.Tests.Testing;

/// <summary>The testing entry point used as an application's own test would: a real session of the application under
/// test, a counterparty session, an in-memory pipe pair and a clock the test moves.</summary>
public sealed class FixSessionTestPairTests
{
    private static SessionSettings Acceptor(string extra = "") => SettingsFile.Parse(
        "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=5001\nNonStopSession=Y\nUseDataDictionary=N\n" + extra +
        "[SESSION]\nBeginString=FIX.4.4\nSenderCompID=EXEC\nTargetCompID=CLIENT\n")[0];

    /// <summary>The kind of application a user tests: fills NewOrderSingle, refuses an order without Symbol.</summary>
    private sealed class FillingApp : IApplication
    {
        public int Logons;
        public int Orders;

        public void OnLogon(FixSession session) => Logons++;

        public FromAppResult FromApp(FixSession session, FixMessage message)
        {
            if (!message.MsgType.SequenceEqual(MsgTypes.NewOrderSingle)) return FromAppResult.UnsupportedMessageType;
            if (!message.Contains(FixTags.Symbol)) return FromAppResult.RequiredTagMissing(FixTags.Symbol);
            Orders++;
            session.Send(MsgTypes.ExecutionReport, message, static (ref FixWriter w, scoped in FixMessage order) =>
            {
                order.TryGetSpan(FixTags.ClOrdID, out ReadOnlySpan<byte> id);
                w.Write(FixTags.ClOrdID, id);
                w.Write(FixTags.ExecType, 'F');
                w.Write(FixTags.OrdStatus, '2');
            });
            return FromAppResult.Accepted;
        }
    }

    private static void Order(FixSessionTestPair pair, string clOrdId, bool withSymbol = true) =>
        pair.SendFromCounterparty(MsgTypes.NewOrderSingle, (clOrdId, withSymbol), static (ref FixWriter w, scoped in (string Id, bool Symbol) o) =>
        {
            w.Write(FixTags.ClOrdID, Encoding.ASCII.GetBytes(o.Id));
            if (o.Symbol) w.Write(FixTags.Symbol, "EURUSD"u8);
            w.Write(FixTags.Side, '1');
        });

    [Fact]
    public void AnApplicationIsDrivenThroughARealSessionWithoutSockets()
    {
        var app = new FillingApp();
        using var pair = FixSessionTestPair.Create(Acceptor(), app);
        pair.Connect();
        Assert.Equal(1, app.Logons);
        Assert.True(pair.Session.IsLoggedOn);
        Assert.Equal("A", pair.Received[0].MsgType);

        Order(pair, "A1");
        ReceivedFixMessage report = pair.ReceivedApplicationMessages.Single();
        Assert.Equal("8", report.MsgType);
        Assert.Equal("A1", report[FixTags.ClOrdID]);
        Assert.Equal("F", report[FixTags.ExecType]);
        Assert.Equal(2, report.MsgSeqNum);

        Order(pair, "A2", withSymbol: false);
        ReceivedFixMessage reject = pair.Received[^1];
        Assert.Equal("3", reject.MsgType);
        Assert.Equal("55", reject[FixTags.RefTagID]);
        Assert.Equal(1, app.Orders);
    }

    [Fact]
    public void TheTestMovesTheClockAndTheSessionsHeartbeat()
    {
        using var pair = FixSessionTestPair.Create(Acceptor(), new FillingApp());
        pair.Connect();
        int before = pair.Received.Count(m => m.MsgType == "0");
        pair.Advance(TimeSpan.FromSeconds(31));
        Assert.True(pair.Received.Count(m => m.MsgType == "0") > before, "a Heartbeat after HeartBtInt of silence");
        Assert.True(pair.Session.IsLoggedOn);
    }

    [Fact]
    public void GarbledBytesAndASequenceGapBehaveAsOnASocket()
    {
        using var pair = FixSessionTestPair.Create(Acceptor(), new FillingApp());
        pair.Connect();
        pair.SendRawFromCounterparty("8=FIX.4.4\u00019=5\u000135=0\u000110=000\u0001"u8);
        Assert.True(pair.Session.IsLoggedOn, "a garbled frame is ignored, the session survives");

        // Skip the counterparty's next number: the session asks for a resend of the gap.
        pair.Counterparty.Store.SetNextSenderMsgSeqNum(pair.Counterparty.Store.NextSenderMsgSeqNum + 3);
        Order(pair, "A3");
        Assert.Contains(pair.Received, m => m.MsgType == "2");
    }

    [Fact]
    public void AnInitiatorUnderTestLogsOnToTheCounterparty()
    {
        SessionSettings initiator = SettingsFile.Parse(
            "[DEFAULT]\nConnectionType=initiator\nSocketConnectHost=127.0.0.1\nSocketConnectPort=5001\nHeartBtInt=30\nNonStopSession=Y\nUseDataDictionary=N\n" +
            "[SESSION]\nBeginString=FIX.4.4\nSenderCompID=CLIENT\nTargetCompID=EXEC\n")[0];
        var app = new FillingApp();
        using var pair = FixSessionTestPair.Create(initiator, app);
        pair.Connect();
        Assert.Equal(1, app.Logons);
        Assert.True(pair.Counterparty.IsLoggedOn);
        pair.DisconnectCounterparty();
        Assert.False(pair.Session.IsLoggedOn);
    }
}
