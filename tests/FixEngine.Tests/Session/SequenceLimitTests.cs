using System;
using System.IO;
using FixEngine.Session;
using FixEngine.Store;

namespace FixEngine.Tests.Session;

/// <summary>Sequence numbers at the top of the range (issue 14, item 4): a SequenceReset to int.MaxValue is rejected, a
/// message numbered int.MaxValue is refused with a Logout before the application sees it, our own sequence near the top
/// ends the session with a reason; never an exception out of the handler, and a 141=Y Logon recovers.</summary>
public class SequenceLimitTests
{
    private const int Top = int.MaxValue;

    private static string Order(SessionHarness h, long seq, string id) => $"35=D|34={seq}|11={id}|21=3|38=100|40=1|54=1|55=INTC|60={h.Time()}";

    private static SessionHarness Create(bool dictionary, IMessageStore? store = null) =>
        new("FIX.4.4", s => s with { ResetOnLogon = false, UseDataDictionary = dictionary }, store);

    [Theory]
    [InlineData(true, "Y")]
    [InlineData(false, "Y")]
    [InlineData(true, "N")]
    [InlineData(false, "N")]
    public void ASequenceResetToIntMaxValueIsRejectedAndTheSessionGoesOn(bool dictionary, string gapFill)
    {
        using var h = Create(dictionary);
        h.Logon();
        h.Receive($"35=4|34=2|43=Y|122={h.Time()}|123={gapFill}|36={Top}");
        Sent reject = h.Expect("3");
        Assert.Equal("5", reject[373]);
        Assert.Equal("36", reject[371]);
        Assert.Contains("cannot be followed", reject[58]);
        Assert.Equal(2, h.Session.NextTargetMsgSeqNum);
        Assert.False(h.Connection.Disconnected);

        h.Receive(Order(h, 2, "AFTER"));
        Assert.Equal("AFTER", h.Expect("D")[11]);
        Assert.Equal(3, h.Session.NextTargetMsgSeqNum);
    }

    [Theory]
    [InlineData("36=99999999999", "5")]
    [InlineData("36=abc", "6")]
    [InlineData("36=0", "5")]
    [InlineData("36=-4", "5")]
    [InlineData("", "1")]
    public void ASequenceResetWithAnUnusableNewSeqNoIsRejectedNamingTag36(string newSeqNo, string reason)
    {
        using var h = Create(dictionary: false);
        h.Logon();
        h.Receive($"35=4|34=2|43=Y|122={h.Time()}|123=Y" + (newSeqNo.Length > 0 ? "|" + newSeqNo : ""));
        Sent reject = h.Expect("3");
        Assert.Equal(reason, reject[373]);
        Assert.Equal("36", reject[371]);
        Assert.Equal(2, h.Session.NextTargetMsgSeqNum);
        Assert.False(h.Connection.Disconnected);
    }

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public void AMessageNumberedIntMaxValueIsRefusedBeforeTheApplicationThenA141YLogonRecovers(bool dictionary)
    {
        using var h = Create(dictionary);
        h.Logon();
        // The largest usable number is accepted and consumed; the session then expects int.MaxValue.
        h.Receive($"35=4|34=2|43=Y|122={h.Time()}|123=Y|36={Top - 1}");
        Assert.Equal(Top - 1, h.Session.NextTargetMsgSeqNum);
        h.Receive(Order(h, Top - 1, "LAST"));
        Assert.Equal("LAST", h.Expect("D")[11]);
        Assert.Equal(Top, h.Session.NextTargetMsgSeqNum);

        // Before: the order was filled, then the store's increment threw out of OnMessage (HandlerError).
        h.Receive(Order(h, Top, "OVER"));
        Assert.Equal(1, h.App.FromAppCount);
        Sent logout = h.Expect("5");
        Assert.Contains("MsgSeqNum(34) 2147483647 cannot be processed", logout[58]);
        Assert.Contains("ResetSeqNumFlag(141)=Y", logout[58]);
        h.ExpectNothing();
        Assert.True(h.Connection.Disconnected);
        Assert.Equal(Top, h.Session.NextTargetMsgSeqNum);

        h.Connect();
        h.Receive("35=A|34=1|98=0|108=30|141=Y");
        Assert.Equal("Y", h.Expect("A")[141]);
        Assert.True(h.Session.IsLoggedOn);
        h.Receive(Order(h, 2, "AGAIN"));
        Assert.Equal("AGAIN", h.Expect("D")[11]);
    }

    [Fact]
    public void AMessageNumberedIntMaxValueIsRefusedEvenWhenItIsTooHigh()
    {
        using var h = Create(dictionary: false);
        h.Logon();
        h.Receive(Order(h, Top, "FAR"));
        Assert.Equal(0, h.App.FromAppCount);
        Assert.Contains("2147483647", h.Expect("5")[58]);
        Assert.True(h.Connection.Disconnected);
        Assert.Equal(0, h.Session.QueuedMessageCount);
    }

    [Fact]
    public void OurSequenceNearTheTopEndsTheSessionWithAReasonInsteadOfThrowing()
    {
        using var h = Create(dictionary: true);
        h.Logon();
        int near = Top - FixEngine.Session.FixSession.SenderSeqNumReserve + 1;
        h.Store.SetNextSenderMsgSeqNum(near);
        h.Receive(Order(h, 2, "LATE"));
        Assert.Equal(0, h.App.FromAppCount);
        Sent logout = h.Expect("5");
        Assert.Equal(near.ToString(System.Globalization.CultureInfo.InvariantCulture), logout[34]);
        Assert.Contains("our MsgSeqNum(34) reached " + near, logout[58]);
        Assert.True(h.Connection.Disconnected);

        // Reconnecting without a reset is refused with the same reason, in answer to the Logon.
        h.Connect();
        h.Receive("35=A|34=2|98=0|108=30");
        Assert.Contains("reached", h.Expect("5")[58]);
        Assert.True(h.Connection.Disconnected);
        Assert.Equal(1, h.App.Logons);

        // A 141=Y Logon resets both sides.
        h.Connect();
        h.Receive("35=A|34=1|98=0|108=30|141=Y");
        Assert.Equal("1", h.Expect("A")[34]);
        h.Receive(Order(h, 2, "RESET"));
        Assert.Equal("RESET", h.Expect("D")[11]);
    }

    [Fact]
    public void OurSequenceNearTheTopStopsTheOutboxWithALogout()
    {
        using var h = Create(dictionary: false);
        h.Logon();
        Assert.True(h.Session.TrySendFromAnyThread("D"u8, 7L, static (ref FixEngine.Codec.FixWriter w, scoped in long id) => w.Write(11, id)));
        h.Store.SetNextSenderMsgSeqNum(Top - 5);
        h.Advance(1);
        Sent logout = h.Expect("5");
        Assert.Contains("too near the largest", logout[58]);
        h.ExpectNothing();
        Assert.True(h.Connection.Disconnected);
    }

    [Fact]
    public void AnInitiatorWithoutRoomDoesNotSendItsLogon()
    {
        var settings = (Func<FixEngine.Config.SessionSettings, FixEngine.Config.SessionSettings>)(s => s with
        {
            ConnectionType = FixEngine.Config.ConnectionType.Initiator,
            SocketAcceptPort = null,
            SocketConnectHost = "127.0.0.1",
            SocketConnectPort = 5001,
            HeartBtInt = 30,
            ResetOnLogon = false,
        });
        using var h = new SessionHarness("FIX.4.4", settings, connect: false);
        h.Store.SetNextSenderMsgSeqNum(Top);
        h.Connect();
        h.ExpectNothing();
        Assert.True(h.Connection.Disconnected);
        Assert.Contains("reached 2147483647", h.Connection.Reason);
    }

    [Fact]
    public void AFileStoreAtTheTopRecoversWithA141YLogon()
    {
        string dir = Path.Combine(Path.GetTempPath(), "fixengine-seqtop-" + Guid.NewGuid().ToString("N"));
        try
        {
            long now = new DateTimeOffset(2026, 1, 5, 12, 0, 0, TimeSpan.Zero).ToUnixTimeMilliseconds() * 1_000_000L;
            using (var h = Create(dictionary: false, new FileMessageStore(dir, "S", now)))
            {
                h.Logon();
                h.Receive($"35=4|34=2|43=Y|122={h.Time()}|123=Y|36={Top - 1}");
                h.Receive(Order(h, Top - 1, "LAST"));
                h.Expect("D");
                h.Receive(Order(h, Top, "OVER"));
                Assert.Contains("2147483647", h.Expect("5")[58]);
            }
            // A restart reads the top back from the file; the same refusal, then a 141=Y Logon goes on.
            using (var h = Create(dictionary: false, new FileMessageStore(dir, "S", now)))
            {
                Assert.Equal(Top, h.Session.NextTargetMsgSeqNum);
                h.Receive("35=A|34=1|98=0|108=30|141=Y");
                Assert.Equal("Y", h.Expect("A")[141]);
                h.Receive(Order(h, 2, "AGAIN"));
                Assert.Equal("AGAIN", h.Expect("D")[11]);
                Assert.Equal(3, h.Session.NextTargetMsgSeqNum);
            }
        }
        finally
        {
            if (Directory.Exists(dir)) Directory.Delete(dir, true);
        }
    }
}
