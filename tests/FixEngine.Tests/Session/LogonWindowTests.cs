using System;
using FixEngine.Config;
using FixEngine.DependencyInjection;
using Microsoft.Extensions.Diagnostics.HealthChecks;

namespace FixEngine.Tests.Session;

/// <summary>LogonTime/LogoutTime inside the session time, on a fake clock: outside the window an acceptor answers a Logon
/// with a Logout naming the window, a logged-on session logs out once LogoutTime has passed, and the sequence numbers
/// carry on across the window's edges; only the session time's edge (a new period) resets them.</summary>
public sealed class LogonWindowTests
{
    private const long Hour = SessionHarness.Hour;
    private const int QuietHeartBtInt = SessionHarness.QuietHeartBtInt;

    // Session time 08:00-20:00 UTC, logon window 13:00-18:00; the harness's clock starts at Monday 2026-01-05 12:00 UTC.
    private static SessionSettings Window(SessionSettings s) => s with
    {
        NonStopSession = false,
        StartTime = new TimeOnly(8, 0),
        EndTime = new TimeOnly(20, 0),
        LogonTime = new TimeOnly(13, 0),
        LogoutTime = new TimeOnly(18, 0),
        ResetOnLogon = false,
    };

    private static SessionSettings Initiator(SessionSettings s) => SessionHarness.QuietInitiator(Window(s));

    [Fact]
    public void AcceptorRefusesALogonBeforeLogonTimeWithTheWindowAndAcceptsOneInsideIt()
    {
        using var h = new SessionHarness("FIX.4.2", Window);
        Assert.True(h.Session.IsSessionTime(h.Now));
        Assert.False(h.Session.IsLogonTime(h.Now));

        h.Receive("35=A|34=1|98=0|108=30");
        Sent logout = h.Expect("5");
        Assert.Equal("Logon outside the logon window (LogonTime 13:00:00 - LogoutTime 18:00:00 UTC)", logout[58]);
        Assert.True(h.Connection.Disconnected);
        Assert.Equal(0, h.App.Logons);
        // The Logon was not consumed and nothing was reset: the counterparty's 1 is still expected.
        Assert.Equal(1, h.Session.NextTargetMsgSeqNum);
        Assert.Equal(2, h.Session.NextSenderMsgSeqNum);
        Assert.Equal(HealthStatus.Healthy, FixEngineHealthCheck.CheckSession(h.Session, h.Now).Status);

        // The session survives: inside the window the same counterparty logs on, at the numbers it had.
        h.Advance(Hour + 30 * 60 * SessionHarness.Second);
        h.Connect();
        h.Logon(QuietHeartBtInt);
        Assert.Equal(1, h.App.Logons);
        Assert.Equal((HealthStatus.Healthy, "logged on"), FixEngineHealthCheck.CheckSession(h.Session, h.Now));
        Assert.True(h.Session.IsLoggedOn);
        Assert.Equal(2, h.Session.NextTargetMsgSeqNum);
        Assert.Equal(3, h.Session.NextSenderMsgSeqNum);
    }

    [Fact]
    public void LoggedOnSessionLogsOutAfterLogoutTimeAndKeepsItsNumbersUntilTheSessionPeriodEnds()
    {
        using var h = new SessionHarness("FIX.4.2", Window, connect: false);
        h.Now += 2 * Hour; // 14:00
        h.Connect();
        h.Logon(QuietHeartBtInt);
        h.Receive("35=0|34=2");
        Assert.Equal((2, 3), (h.Session.NextSenderMsgSeqNum, h.Session.NextTargetMsgSeqNum));

        // 18:00:00 is still inside the window (both ends inclusive, as the session time's); one second later it is not.
        h.Advance(4 * Hour - 30 * SessionHarness.Second);
        h.Receive("35=0|34=3");
        h.Advance(30 * SessionHarness.Second);
        h.ExpectNothing();
        h.Advance(SessionHarness.Second);
        Assert.Equal("Logout time reached", h.Expect("5")[58]);
        h.Receive("35=5|34=4");
        Assert.True(h.Connection.Disconnected);
        Assert.Equal(1, h.App.Logouts);
        Assert.Equal((3, 5), (h.Session.NextSenderMsgSeqNum, h.Session.NextTargetMsgSeqNum));

        // Still inside the session time (until 20:00): the numbers stay, and not being logged on is healthy.
        h.Advance(Hour);
        Assert.True(h.Session.IsSessionTime(h.Now));
        Assert.False(h.Session.IsLogonTime(h.Now));
        Assert.Equal((HealthStatus.Healthy, "outside its logon window (LogonTime 13:00:00 - LogoutTime 18:00:00 UTC)"),
            FixEngineHealthCheck.CheckSession(h.Session, h.Now));
        Assert.Equal((3, 5), (h.Session.NextSenderMsgSeqNum, h.Session.NextTargetMsgSeqNum));

        // The next morning is a new session period: reset to 1.
        h.Advance(14 * Hour); // Tuesday 09:00
        Assert.Equal((1, 1), (h.Session.NextSenderMsgSeqNum, h.Session.NextTargetMsgSeqNum));
    }

    [Fact]
    public void InitiatorMayLogOnOnlyInsideTheWindowAndLogsOutAtLogoutTime()
    {
        // The connector dials only while IsLogonTime (InitiatorConnector.Poll); the engine test shows it end to end.
        using var h = new SessionHarness("FIX.4.2", Initiator, connect: false);
        Assert.True(h.Session.IsSessionTime(h.Now));
        Assert.False(h.Session.IsLogonTime(h.Now));
        h.Now += Hour; // 13:00:00
        Assert.True(h.Session.IsLogonTime(h.Now));
        h.Connect();
        Sent logon = h.Expect("A");
        Assert.Equal("1", logon[34]);
        h.Receive("35=A|34=1|98=0|108=" + QuietHeartBtInt);
        Assert.True(h.Session.IsLoggedOn);

        h.Advance(5 * Hour + SessionHarness.Second); // 18:00:01
        Assert.False(h.Session.IsLogonTime(h.Now));
        Assert.Equal("Logout time reached", h.Expect("5")[58]);
        h.Receive("35=5|34=2");
        Assert.True(h.Connection.Disconnected);
        h.Advance(Hour);
        Assert.Equal((3, 3), (h.Session.NextSenderMsgSeqNum, h.Session.NextTargetMsgSeqNum));
    }

    [Fact]
    public void WindowAcrossMidnight()
    {
        // Session time 20:00-06:00, logon window 22:00-02:00; the harness starts at 12:00.
        using var h = new SessionHarness("FIX.4.2", s => Window(s) with
        {
            StartTime = new TimeOnly(20, 0),
            EndTime = new TimeOnly(6, 0),
            LogonTime = new TimeOnly(22, 0),
            LogoutTime = new TimeOnly(2, 0),
        }, connect: false);
        h.Now += 9 * Hour; // 21:00: session time, not logon time
        Assert.True(h.Session.IsSessionTime(h.Now));
        Assert.False(h.Session.IsLogonTime(h.Now));
        h.Connect();
        h.Receive("35=A|34=1|98=0|108=30");
        Assert.Equal("Logon outside the logon window (LogonTime 22:00:00 - LogoutTime 02:00:00 UTC)", h.Expect("5")[58]);

        h.Now += 2 * Hour; // 23:00
        h.Connect();
        h.Logon(QuietHeartBtInt);
        h.Advance(3 * Hour); // Tuesday 02:00:00, still inside
        h.ExpectNothing();
        h.Advance(SessionHarness.Second);
        Assert.Equal("Logout time reached", h.Expect("5")[58]);
        h.Receive("35=5|34=2");
        // Same session period (it began Monday 20:00): the numbers carry on.
        h.Advance(Hour);
        Assert.Equal((4, 3), (h.Session.NextSenderMsgSeqNum, h.Session.NextTargetMsgSeqNum));
    }
}
