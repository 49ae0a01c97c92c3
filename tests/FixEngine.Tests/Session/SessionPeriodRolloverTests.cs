using System;
using FixEngine.Config;

namespace FixEngine.Tests.Session;

/// <summary>A daily session whose StartTime equals its EndTime is always open and starts a new period at that time each
/// day. A session connected across that instant ends its incarnation with a Logout (as QuickFIX does) and starts the new
/// period at sequence number 1, instead of carrying yesterday's numbers on until it happens to disconnect.</summary>
public sealed class SessionPeriodRolloverTests
{
    private const long Hour = SessionHarness.Hour;
    private const int QuietHeartBtInt = SessionHarness.QuietHeartBtInt;

    // Always open, new period at 17:00 UTC; the harness's clock (and the store's creation) is Monday 2026-01-05 12:00 UTC.
    private static SessionSettings Rolling(SessionSettings s) => s with
    {
        NonStopSession = false,
        StartTime = new TimeOnly(17, 0),
        EndTime = new TimeOnly(17, 0),
        ResetOnLogon = false,
    };

    [Fact]
    public void AConnectedAcceptorLogsOutAtTheNewPeriodAndStartsItAtOne()
    {
        using var h = new SessionHarness("FIX.4.2", Rolling);
        h.Logon(QuietHeartBtInt);
        h.Receive("35=0|34=2");
        Assert.Equal((2, 3), (h.Session.NextSenderMsgSeqNum, h.Session.NextTargetMsgSeqNum));

        // 17:00:00 still belongs to the period that began on Sunday (both ends inclusive); one second later it does not.
        h.Advance(5 * Hour);
        h.ExpectNothing();
        Assert.True(h.Session.IsLoggedOn);
        h.Advance(SessionHarness.Second);
        Assert.Equal("New session period", h.Expect("5")[58]);
        h.Receive("35=5|34=3");
        Assert.True(h.Connection.Disconnected);
        Assert.Equal(1, h.App.Logouts);

        // Disconnected inside the new period: the store is reset, and the counterparty logs on again at 1.
        h.Advance(SessionHarness.Second);
        Assert.Equal((1, 1), (h.Session.NextSenderMsgSeqNum, h.Session.NextTargetMsgSeqNum));
        h.Connect();
        h.Logon(QuietHeartBtInt);
        Assert.True(h.Session.IsLoggedOn);
        Assert.Equal(2, h.App.Logons);
        Assert.Equal((2, 2), (h.Session.NextSenderMsgSeqNum, h.Session.NextTargetMsgSeqNum));

        // The new period goes on without another Logout (hours, not the whole day: no heartbeats are exchanged here).
        h.Advance(5 * Hour);
        h.ExpectNothing();
        Assert.True(h.Session.IsLoggedOn);
    }

    [Fact]
    public void AConnectedInitiatorLogsOutAtTheNewPeriodAndLogsOnAgainAtOne()
    {
        using var h = new SessionHarness("FIX.4.2", s => SessionHarness.QuietInitiator(Rolling(s)), connect: false);
        h.Connect();
        Assert.Equal("1", h.Expect("A")[34]);
        h.Receive("35=A|34=1|98=0|108=" + QuietHeartBtInt);
        h.Receive("35=0|34=2");
        Assert.True(h.Session.IsLoggedOn);

        h.Advance(5 * Hour + SessionHarness.Second); // Monday 17:00:01
        Sent logout = h.Expect("5");
        Assert.Equal("New session period", logout[58]);
        Assert.Equal("2", logout[34]);
        h.Receive("35=5|34=3");
        Assert.True(h.Connection.Disconnected);

        h.Advance(SessionHarness.Second);
        h.Connect();
        Assert.Equal("1", h.Expect("A")[34]);
    }

    [Fact]
    public void AConnectionStillWaitingForItsLogonIsClosedAtTheNewPeriod()
    {
        using var h = new SessionHarness("FIX.4.2", s => Rolling(s) with { LogonTimeout = 30_000 });
        h.Advance(5 * Hour + SessionHarness.Second);
        Assert.True(h.Connection.Disconnected);
        h.ExpectNothing();
    }
}
