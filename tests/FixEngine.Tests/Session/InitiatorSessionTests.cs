using System;
using FixEngine.Config;
using FixEngine.Session;

namespace FixEngine.Tests.Session;

public sealed class InitiatorSessionTests
{
    private static SessionHarness CreateInitiator() => new("FIX.4.4", s => s with
    {
        ConnectionType = ConnectionType.Initiator,
        SocketAcceptPort = null,
        SocketConnectHost = "127.0.0.1",
        SocketConnectPort = 5001,
        HeartBtInt = 20,
        SenderCompID = "TW44",
        TargetCompID = "ISLD",
    });

    [Fact]
    public void InitiatorSendsLogonOnConnectAndLogsOnAtReply()
    {
        using var h = CreateInitiator();
        Sent logon = h.Expect("A");
        Assert.Equal("20", logon[108]);
        Assert.Equal("Y", logon[141]);
        Assert.Equal(SessionState.LogonSent, h.Session.State);
        h.Receive("35=A|34=1|49=ISLD|56=TW44|98=0|108=20|141=Y");
        Assert.True(h.Session.IsLoggedOn);
        Assert.Equal(1, h.App.Logons);
    }

    [Fact]
    public void InitiatorWithoutLogonReplyTimesOut()
    {
        using var h = CreateInitiator();
        h.Expect("A");
        h.Advance(10 * SessionHarness.Second);
        Assert.True(h.Connection.Disconnected);
    }

    private static SessionHarness CreateInitiatorWithoutReset() => new("FIX.4.4", s => s with
    {
        ConnectionType = ConnectionType.Initiator,
        SocketAcceptPort = null,
        SocketConnectHost = "127.0.0.1",
        SocketConnectPort = 5001,
        HeartBtInt = 20,
        SenderCompID = "TW44",
        TargetCompID = "ISLD",
        ResetOnLogon = false,
    });

    [Fact]
    public void APeerThatAnswersOurLogonWithAResetDoesNotMakeUsReuseSequenceNumberOne()
    {
        using var h = CreateInitiatorWithoutReset();
        Sent logon = h.Expect("A");
        Assert.Equal("1", logon[34]);
        Assert.Null(logon[141]);
        h.Receive("35=A|34=1|49=ISLD|56=TW44|98=0|108=20|141=Y");
        Assert.True(h.Session.IsLoggedOn);
        h.Session.Send("D"u8, 0, static (ref FixEngine.Codec.FixWriter w, scoped in int _) => w.Write(11, "X"u8));
        Sent order = h.Expect("D");
        Assert.Equal("2", order[34]);
        Assert.Equal(3, h.Session.NextSenderMsgSeqNum);
        Assert.Equal(2, h.Session.NextTargetMsgSeqNum);
    }

    [Fact]
    public void ALogoutRefusingOurLogonReachesTheApplicationAndTheDisconnectReason()
    {
        using var h = CreateInitiatorWithoutReset();
        h.Expect("A");
        h.Receive("35=5|34=18705|49=ISLD|56=TW44|58=MsgSeqNum too low, expecting 18705 but received 1");
        Assert.Equal(["5"], h.App.AdminTypes);
        Assert.True(h.Connection.Disconnected);
        Assert.Contains("MsgSeqNum too low, expecting 18705 but received 1", h.Connection.Reason);
        Assert.Equal(0, h.App.Logouts);
    }
}
