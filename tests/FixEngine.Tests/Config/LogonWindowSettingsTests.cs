using System;
using FixEngine.Config;

namespace FixEngine.Tests.Config;

/// <summary>LogonTime/LogoutTime/LogonDay/LogoutDay at load: defaults (the session time's), the window they make, and
/// the errors (file, line, key) for a window outside the session time or a value that does not parse.</summary>
public sealed class LogonWindowSettingsTests
{
    private const string Daily = """
        [DEFAULT]
        ConnectionType=acceptor
        SocketAcceptPort=5001
        SenderCompID=ISLD
        UseDataDictionary=N
        StartTime=08:00:00
        EndTime=17:00:00
        [SESSION]
        BeginString=FIX.4.2
        TargetCompID=TW
        """;

    private static SessionSettings One(string text) => Assert.Single(SettingsFile.Parse(text, "venue.cfg"));

    private static ConfigException Fails(string text) => Assert.Throws<ConfigException>(() => SettingsFile.Parse(text, "venue.cfg"));

    private static long At(int year, int month, int day, int hour, int minute, int second = 0)
        => new DateTimeOffset(year, month, day, hour, minute, second, TimeSpan.Zero).ToUnixTimeMilliseconds() * 1_000_000L;

    [Fact]
    public void KeysLoadAndWriteBack()
    {
        SessionSettings s = One(Daily + "\nLogonTime=09:30:00\nLogoutTime=16:00:00");
        Assert.Equal(new TimeOnly(9, 30), s.LogonTime);
        Assert.Equal(new TimeOnly(16, 0), s.LogoutTime);
        Assert.Empty(s.Warnings);
        string text = SettingsFile.ToSettingsText(s);
        Assert.Contains("LogonTime=09:30:00\n", text, StringComparison.Ordinal);
        Assert.Contains("LogoutTime=16:00:00\n", text, StringComparison.Ordinal);
        SessionSettings back = One(text);
        Assert.Equal((s.LogonTime, s.LogoutTime), (back.LogonTime, back.LogoutTime));
    }

    [Fact]
    public void NoKeysOrTheSessionTimeMeanNoWindow()
    {
        Assert.Null(One(Daily).CreateLogonWindow());
        Assert.Null(One(Daily + "\nLogonTime=08:00:00\nLogoutTime=17:00:00").CreateLogonWindow());
    }

    [Fact]
    public void LogonTimeAloneKeepsEndTimeAsLogoutTime()
    {
        SessionSchedule w = One(Daily + "\nLogonTime=09:00:00").CreateLogonWindow()!;
        Assert.False(w.IsInSession(At(2026, 1, 5, 8, 59, 59)));
        Assert.True(w.IsInSession(At(2026, 1, 5, 9, 0)));
        Assert.True(w.IsInSession(At(2026, 1, 5, 17, 0)));
        Assert.False(w.IsInSession(At(2026, 1, 5, 17, 0, 1)));
    }

    [Fact]
    public void WindowAcrossMidnightInsideASessionAcrossMidnight()
    {
        string text = Daily.Replace("StartTime=08:00:00", "StartTime=20:00:00").Replace("EndTime=17:00:00", "EndTime=06:00:00")
            + "\nLogonTime=22:00:00\nLogoutTime=02:00:00";
        SessionSchedule w = One(text).CreateLogonWindow()!;
        Assert.False(w.IsInSession(At(2026, 1, 5, 21, 59)));
        Assert.True(w.IsInSession(At(2026, 1, 5, 23, 0)));
        Assert.True(w.IsInSession(At(2026, 1, 6, 1, 59)));
        Assert.False(w.IsInSession(At(2026, 1, 6, 2, 0, 1)));
    }

    [Fact]
    public void WeeklyWindowDefaultsToTheSessionDays()
    {
        string weekly = Daily + "\nStartDay=Sunday\nEndDay=Friday\nLogonTime=09:00:00\nLogoutTime=16:00:00";
        SessionSettings s = One(weekly);
        Assert.Null(s.LogonDay);
        SessionSchedule w = s.CreateLogonWindow()!;
        // 2026-01-04 is a Sunday: the window runs Sunday 09:00 to Friday 16:00.
        Assert.False(w.IsInSession(At(2026, 1, 4, 8, 30)));
        Assert.True(w.IsInSession(At(2026, 1, 4, 9, 0)));
        Assert.True(w.IsInSession(At(2026, 1, 7, 3, 0)));
        Assert.True(w.IsInSession(At(2026, 1, 9, 16, 0)));
        Assert.False(w.IsInSession(At(2026, 1, 9, 16, 30)));
    }

    [Fact]
    public void WeeklyWindowInADailySessionNeedsBothDays()
    {
        string daily = Daily.Replace("EndTime=17:00:00", "EndTime=08:00:00");
        SessionSchedule w = One(daily + "\nLogonDay=Mon\nLogoutDay=Fri").CreateLogonWindow()!;
        Assert.False(w.IsInSession(At(2026, 1, 4, 12, 0)));
        Assert.True(w.IsInSession(At(2026, 1, 6, 12, 0)));
        // A missing key is named at its [SESSION] line.
        Assert.Equal("venue.cfg(8): LogoutDay: missing (LogonDay is set; a weekly logon window in a daily session needs both)",
            Fails(daily + "\nLogonDay=Mon").Message);
    }

    [Theory]
    [InlineData("LogonTime=07:59:59", "venue.cfg(11): LogonTime: 07:59:59 is outside the session time StartTime 08:00:00 - EndTime 17:00:00 (LogonTime must be between StartTime and EndTime)")]
    [InlineData("LogoutTime=17:30:00", "venue.cfg(11): LogoutTime: 17:30:00 is outside the session time StartTime 08:00:00 - EndTime 17:00:00 (LogoutTime must be between StartTime and EndTime)")]
    [InlineData("LogonTime=12:00:00\nLogoutTime=09:00:00", "venue.cfg(12): LogoutTime: 09:00:00 is not after LogonTime 12:00:00 within one session period (StartTime 08:00:00 - EndTime 17:00:00): the logon window must close after it opens, before the session's end")]
    [InlineData("LogonTime=8:00", "venue.cfg(11): LogonTime: '8:00' is not a time HH:MM:SS[.fff]")]
    [InlineData("LogonDay=Someday\nLogoutDay=Fri", "venue.cfg(11): LogonDay: 'Someday' is not a day name (Monday, Mon or Mo ...)")]
    public void AWindowOutsideTheSessionTimeOrABadValueIsAnErrorNamingTheLine(string keys, string message)
    {
        Assert.Equal(message, Fails(Daily + "\n" + keys).Message);
    }

    [Fact]
    public void WeeklyWindowOutsideTheWeeklySessionIsAnError()
    {
        string weekly = Daily + "\nStartDay=Monday\nEndDay=Friday\nLogonDay=Sunday";
        Assert.Equal("venue.cfg(13): LogonDay: Sunday 08:00:00 is outside the session time StartDay Monday 08:00:00 - EndDay Friday 17:00:00 "
            + "(LogonDay/LogonTime must be between StartDay/StartTime and EndDay/EndTime)", Fails(weekly).Message);
    }

    [Fact]
    public void WindowAcrossTheRolloverOfA24HourSessionIsAnError()
    {
        // StartTime = EndTime = 00:00: every period ends at midnight, so 22:00-02:00 would span two periods.
        string allDay = Daily.Replace("StartTime=08:00:00", "StartTime=00:00:00").Replace("EndTime=17:00:00", "EndTime=00:00:00");
        ConfigException e = Fails(allDay + "\nLogonTime=22:00:00\nLogoutTime=02:00:00");
        Assert.Equal(("LogoutTime", 12), (e.Key, e.LineNumber));
        Assert.NotNull(One(allDay + "\nLogonTime=06:00:00\nLogoutTime=22:00:00").CreateLogonWindow());
    }

    [Fact]
    public void CodeBuiltSettingsAreValidatedToo()
    {
        var s = new SessionSettings
        {
            ConnectionType = ConnectionType.Acceptor, BeginString = "FIX.4.4", SenderCompID = "A", TargetCompID = "B", SocketAcceptPort = 1,
            StartTime = new TimeOnly(8, 0), EndTime = new TimeOnly(17, 0), LogonTime = new TimeOnly(18, 0),
        };
        ConfigException e = Assert.Throws<ConfigException>(s.Validate);
        Assert.StartsWith("LogonTime: 18:00:00 is outside the session time", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void NonStopSessionIgnoresTheWindowWithAWarning()
    {
        SessionSettings s = One(Daily.Replace("StartTime=08:00:00\nEndTime=17:00:00", "NonStopSession=Y") + "\nLogonTime=09:00:00");
        Assert.Null(s.CreateLogonWindow());
        Assert.Contains(s.Warnings, w => w.Key == "LogonTime" && w.Reason.Contains("NonStopSession=Y", StringComparison.Ordinal));
    }
}
