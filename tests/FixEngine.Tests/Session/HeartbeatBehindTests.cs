using FixEngine.Session;

namespace FixEngine.Tests.Session;

/// <summary>Issue 35: the heartbeat check must not blame the peer for the engine's own lateness. When a TestRequest or
/// a timeout disconnect is due but bytes the peer sent wait unread in the socket (the thread that reads the connection
/// has not got round to them), the session sends neither and counts the check (<see cref="FixSession.HeartbeatChecksBehindCount"/>);
/// the unread bytes stand for the peer's messages for at most 4.8 x HeartBtInt. The engine-level test with a real
/// socket and a stalled thread pool is Engine.HeartbeatBehindEngineTests.</summary>
public sealed class HeartbeatBehindTests
{
    [Fact]
    public void UnreadPeerBytesPostponeTheTestRequestAndProcessedMessagesEndThePostponement()
    {
        using var h = new SessionHarness("FIX.4.4");
        h.Logon(heartBtInt: 10);
        h.Advance(10 * SessionHarness.Second);
        h.Expect("0");
        h.Connection.UnreadInboundBytes = 60;
        h.Advance(2 * SessionHarness.Second);
        // 12 s without a processed message (1.2 x HeartBtInt), but the peer's bytes wait unread: no TestRequest.
        h.ExpectNothing();
        Assert.Equal(1, h.Session.HeartbeatChecksBehindCount);
        // The reader catches up: the heartbeat that was waiting is processed.
        h.Connection.UnreadInboundBytes = 0;
        h.Receive("35=0|34=2");
        h.Advance(SessionHarness.Second);
        h.ExpectNothing();
        // Silent from now on, nothing unread: the TestRequest comes 1.2 x HeartBtInt after that message, as before.
        h.Advance(7 * SessionHarness.Second);
        h.Expect("0");
        h.Advance(4 * SessionHarness.Second);
        Assert.Equal("TEST", h.Expect("1")[112]);
        Assert.Equal(1, h.Session.HeartbeatChecksBehindCount);
    }

    [Fact]
    public void UnreadBytesThatNoThreadEverReadsStopStandingForThePeerAfterTwiceTheTimeout()
    {
        using var h = new SessionHarness("FIX.4.4");
        h.Logon(heartBtInt: 10);
        h.Connection.UnreadInboundBytes = 60;
        // One poll a second; our own heartbeats go out every 10 s. The unread bytes stand for the peer until 48 s
        // (4.8 x HeartBtInt) after its last processed message; then the TestRequest and, 12 s later, the disconnect.
        int testRequestAt = -1;
        for (int second = 1; second <= 60 && !h.Connection.Disconnected; second++)
        {
            h.Advance(SessionHarness.Second);
            while (h.Read < h.Connection.Sent.Count)
            {
                Sent m = h.Next();
                if (m[35] == "1") testRequestAt = second;
                else Assert.Equal("0", m[35]);
            }
        }
        Assert.Equal(48, testRequestAt);
        Assert.True(h.Connection.Disconnected);
        Assert.Equal("Timed out waiting for heartbeat", h.Connection.Reason);
        Assert.Equal(3, h.Session.HeartbeatChecksBehindCount);
    }
}
