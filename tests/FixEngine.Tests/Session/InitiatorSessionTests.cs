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
}
