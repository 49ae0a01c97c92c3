using System;
using System.IO;
using FixEngine.Config;

namespace FixEngine.Tests.Config;

public sealed class SessionScheduleTests
{
    internal static long Ns(int y, int mo, int d, int h, int mi, int s = 0)
        => (new DateTime(y, mo, d, h, mi, s, DateTimeKind.Utc) - DateTime.UnixEpoch).Ticks * 100;

    internal static TimeZoneInfo NewYork()
    {
        Assert.True(Directory.Exists("/usr/share/zoneinfo") || OperatingSystem.IsWindows(), "tzdata (/usr/share/zoneinfo) is missing");
        return TimeZoneInfo.FindSystemTimeZoneById("America/New_York");
    }

    [Fact]
    public void TwentyFourHourDailySessionIsAlwaysOpenAndRollsAtStart()
    {
        var s = new SessionSchedule(new TimeOnly(0, 0), new TimeOnly(0, 0), TimeZoneInfo.Utc);
        Assert.True(s.IsInSession(Ns(2024, 3, 5, 0, 0)));
        Assert.True(s.IsInSession(Ns(2024, 3, 5, 23, 59, 59)));
        Assert.Equal(Ns(2024, 3, 5, 0, 0), s.SessionPeriodStart(Ns(2024, 3, 5, 13, 0)));
        Assert.Equal(Ns(2024, 3, 6, 0, 0), s.SessionPeriodStart(Ns(2024, 3, 6, 0, 0)));
        Assert.True(s.IsSameSessionPeriod(Ns(2024, 3, 5, 0, 0), Ns(2024, 3, 5, 23, 59, 59)));
        Assert.False(s.IsSameSessionPeriod(Ns(2024, 3, 5, 23, 59, 59), Ns(2024, 3, 6, 0, 0)));
    }

    [Fact]
    public void DailySessionWithinOneDay()
    {
        var s = new SessionSchedule(new TimeOnly(8, 0), new TimeOnly(17, 0), TimeZoneInfo.Utc);
        Assert.False(s.IsInSession(Ns(2024, 3, 5, 7, 59, 59)));
        Assert.True(s.IsInSession(Ns(2024, 3, 5, 8, 0)));
        Assert.True(s.IsInSession(Ns(2024, 3, 5, 17, 0)));
        Assert.False(s.IsInSession(Ns(2024, 3, 5, 17, 0, 1)));
        Assert.Equal(Ns(2024, 3, 4, 8, 0), s.SessionPeriodStart(Ns(2024, 3, 5, 7, 0)));
        Assert.Equal(Ns(2024, 3, 5, 17, 0), s.SessionPeriodEnd(s.SessionPeriodStart(Ns(2024, 3, 5, 9, 0))));
    }

    [Fact]
    public void OvernightSessionInNewYork()
    {
        // 17:00 to 16:00 New York, the usual FX day; EST is UTC-5 in January.
        var s = new SessionSchedule(new TimeOnly(17, 0), new TimeOnly(16, 0), NewYork());
        Assert.True(s.IsInSession(Ns(2024, 1, 10, 22, 0)));   // 17:00 EST
        Assert.True(s.IsInSession(Ns(2024, 1, 11, 3, 0)));    // 22:00 EST
        Assert.True(s.IsInSession(Ns(2024, 1, 11, 21, 0)));   // 16:00 EST next day
        Assert.False(s.IsInSession(Ns(2024, 1, 11, 21, 30))); // 16:30 EST
        Assert.Equal(Ns(2024, 1, 10, 22, 0), s.SessionPeriodStart(Ns(2024, 1, 11, 12, 0)));
        Assert.True(s.IsSameSessionPeriod(Ns(2024, 1, 10, 23, 0), Ns(2024, 1, 11, 20, 0)));
        Assert.False(s.IsSameSessionPeriod(Ns(2024, 1, 11, 20, 0), Ns(2024, 1, 11, 22, 0)));
    }

    [Fact]
    public void DaylightSavingMovesTheUtcBoundary()
    {
        var s = new SessionSchedule(new TimeOnly(17, 0), new TimeOnly(16, 0), NewYork());
        // DST starts 2024-03-10 02:00 local: 17:00 is 22:00Z before and 21:00Z after.
        Assert.Equal(Ns(2024, 3, 9, 22, 0), s.SessionPeriodStart(Ns(2024, 3, 10, 12, 0)));
        Assert.Equal(Ns(2024, 3, 10, 20, 0), s.SessionPeriodEnd(Ns(2024, 3, 9, 22, 0))); // 16:00 EDT
        Assert.False(s.IsInSession(Ns(2024, 3, 10, 20, 30)));
        Assert.Equal(Ns(2024, 3, 10, 21, 0), s.SessionPeriodStart(Ns(2024, 3, 10, 21, 0)));
        Assert.True(s.IsInSession(Ns(2024, 3, 10, 21, 0)));
        // A start inside the gap (02:30 does not exist on 2024-03-10) moves forward to 03:30 EDT = 07:30Z.
        var gap = new SessionSchedule(new TimeOnly(2, 30), new TimeOnly(2, 0), NewYork());
        Assert.Equal(Ns(2024, 3, 10, 7, 30), gap.SessionPeriodStart(Ns(2024, 3, 10, 12, 0)));
        Assert.Equal(Ns(2024, 3, 11, 6, 30), gap.SessionPeriodStart(Ns(2024, 3, 11, 12, 0)));
    }

    [Fact]
    public void WeeklySession()
    {
        // Sunday 17:00 to Friday 17:00 New York.
        var s = new SessionSchedule(new TimeOnly(17, 0), new TimeOnly(17, 0), NewYork(), DayOfWeek.Sunday, DayOfWeek.Friday);
        long sunday = Ns(2024, 1, 7, 22, 0);
        Assert.Equal(sunday, s.SessionPeriodStart(Ns(2024, 1, 10, 12, 0)));
        Assert.True(s.IsInSession(Ns(2024, 1, 10, 12, 0)));
        Assert.True(s.IsInSession(Ns(2024, 1, 12, 22, 0)));   // Friday 17:00 EST
        Assert.False(s.IsInSession(Ns(2024, 1, 12, 22, 1)));
        Assert.False(s.IsInSession(Ns(2024, 1, 14, 12, 0)));  // Sunday morning
        Assert.True(s.IsInSession(Ns(2024, 1, 14, 22, 0)));
        Assert.False(s.IsSameSessionPeriod(Ns(2024, 1, 10, 12, 0), Ns(2024, 1, 15, 12, 0)));
        Assert.True(s.IsSameSessionPeriod(Ns(2024, 1, 8, 12, 0), Ns(2024, 1, 12, 12, 0)));
    }

    [Fact]
    public void NonStopSessionNeverRolls()
    {
        SessionSchedule s = SessionSchedule.NonStop;
        Assert.True(s.IsInSession(0));
        Assert.True(s.IsSameSessionPeriod(0, Ns(2030, 1, 1, 0, 0)));
        var settings = new SessionSettings
        {
            ConnectionType = ConnectionType.Acceptor, BeginString = "FIX.4.2", SenderCompID = "A", TargetCompID = "B",
            SocketAcceptPort = 1, NonStopSession = true,
        };
        Assert.True(settings.CreateSchedule().IsNonStop);
    }
}
