namespace FixEngine.Tests.Session;

/// <summary>Issue 34 item 5: while a gap is open (a ResendRequest pending), messages that arrive too high still count
/// as the peer being alive; only silence times it out.</summary>
public sealed class GapHeartbeatTests
{
    [Fact]
    public void TooHighMessagesWhileAResendIsPendingKeepThePeerAlive()
    {
        using var h = new SessionHarness();
        h.Logon(heartBtInt: 10);
        // Message 2 is missing: 3 opens a gap, the session asks for 2 and keeps what follows.
        h.Receive($"35=D|34=3|11=A|21=3|38=100|40=1|54=1|55=X|60={h.Time()}");
        Assert.Equal("2", h.Expect("2")[7]);
        // The peer is busy sending new messages (not yet the resend) for 5 x HeartBtInt, one every 2 s.
        for (int i = 0; i < 25; i++)
        {
            h.Advance(2 * SessionHarness.Second);
            h.Receive($"35=D|34={4 + i}|11=B{i}|21=3|38=100|40=1|54=1|55=X|60={h.Time()}");
        }
        Assert.False(h.Connection.Disconnected, h.Connection.Reason);
        // Our own heartbeats went out, but no TestRequest: the peer was never silent.
        while (h.Read < h.Connection.Sent.Count) Assert.NotEqual("1", h.Next()[35]);
        // Silence still times it out: TestRequest after 1.2 x HeartBtInt, disconnect after another.
        h.Advance(12 * SessionHarness.Second);
        Assert.Equal("1", new Sent(h.Connection.Sent[^1])[35]);
        h.Advance(12 * SessionHarness.Second);
        Assert.True(h.Connection.Disconnected);
        Assert.Equal("Timed out waiting for heartbeat", h.Connection.Reason);
    }
}
