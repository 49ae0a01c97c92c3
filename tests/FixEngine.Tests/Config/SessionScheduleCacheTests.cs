using System;
using System.Collections.Generic;
using System.IO;
using FixEngine.Config;

namespace FixEngine.Tests.Config;

// The cached schedule queries (SessionSchedule.Cache, used by a session's poll) against the uncached ones: the same
// answer at every instant of sweeps across DST changes, period starts and ends, weekly and weekday schedules, walked
// forward, backward and in a shuffled order with one cache.
public sealed class SessionScheduleCacheTests
{
    private const long Minute = 60_000_000_000L;
    private static long Ns(int y, int mo, int d, int h, int mi, int s = 0) => SessionScheduleTests.Ns(y, mo, d, h, mi, s);

    private static TimeZoneInfo Zone(string id)
    {
        Assert.True(Directory.Exists("/usr/share/zoneinfo") || OperatingSystem.IsWindows(), "tzdata (/usr/share/zoneinfo) is missing");
        return TimeZoneInfo.FindSystemTimeZoneById(id);
    }

    public static TheoryData<string> Schedules() => new()
    {
        "daily-utc-00-00", "daily-ny-08-17", "overnight-ny-17-16", "ny-17-17", "gap-start-ny-0230-0200", "gap-end-ny-0000-0230",
        "repeated-hour-ny-0130-0100", "weekly-ny-sun17-fri17", "weekly-ny-same-day-mon09-mon08", "weekdays-ny-mon-fri-08-17",
        "london-0130-0100", "santiago-midnight-gap-0000-2300", "lord-howe-half-hour-0145-0200", "weekly-london-fri-2300-sat0100",
    };

    private static SessionSchedule Build(string name) => name switch
    {
        "daily-utc-00-00" => new SessionSchedule(new TimeOnly(0, 0), new TimeOnly(0, 0), TimeZoneInfo.Utc),
        "daily-ny-08-17" => new SessionSchedule(new TimeOnly(8, 0), new TimeOnly(17, 0), Zone("America/New_York")),
        "overnight-ny-17-16" => new SessionSchedule(new TimeOnly(17, 0), new TimeOnly(16, 0), Zone("America/New_York")),
        "ny-17-17" => new SessionSchedule(new TimeOnly(17, 0), new TimeOnly(17, 0), Zone("America/New_York")),
        "gap-start-ny-0230-0200" => new SessionSchedule(new TimeOnly(2, 30), new TimeOnly(2, 0), Zone("America/New_York")),
        "gap-end-ny-0000-0230" => new SessionSchedule(new TimeOnly(0, 0), new TimeOnly(2, 30), Zone("America/New_York")),
        "repeated-hour-ny-0130-0100" => new SessionSchedule(new TimeOnly(1, 30), new TimeOnly(1, 0), Zone("America/New_York")),
        "weekly-ny-sun17-fri17" => new SessionSchedule(new TimeOnly(17, 0), new TimeOnly(17, 0), Zone("America/New_York"), DayOfWeek.Sunday, DayOfWeek.Friday),
        "weekly-ny-same-day-mon09-mon08" => new SessionSchedule(new TimeOnly(9, 0), new TimeOnly(8, 0), Zone("America/New_York"), DayOfWeek.Monday, DayOfWeek.Monday),
        "weekdays-ny-mon-fri-08-17" => new SessionSchedule(new TimeOnly(8, 0), new TimeOnly(17, 0), Zone("America/New_York"), weekdays:
            [DayOfWeek.Monday, DayOfWeek.Tuesday, DayOfWeek.Wednesday, DayOfWeek.Thursday, DayOfWeek.Friday]),
        "london-0130-0100" => new SessionSchedule(new TimeOnly(1, 30), new TimeOnly(1, 0), Zone("Europe/London")),
        "santiago-midnight-gap-0000-2300" => new SessionSchedule(new TimeOnly(0, 0), new TimeOnly(23, 0), Zone("America/Santiago")),
        "lord-howe-half-hour-0145-0200" => new SessionSchedule(new TimeOnly(1, 45), new TimeOnly(2, 0), Zone("Australia/Lord_Howe")),
        "weekly-london-fri-2300-sat0100" => new SessionSchedule(new TimeOnly(23, 0), new TimeOnly(1, 0), Zone("Europe/London"), DayOfWeek.Friday, DayOfWeek.Saturday),
        _ => throw new ArgumentException(name),
    };

    // Instants three weeks around each 2024 DST change of the zones above (NY Mar 10 / Nov 3, London Mar 31 / Oct 27,
    // Santiago Apr 7 / Sep 8, Lord Howe Apr 7 / Oct 6) every 7 minutes, plus the ticks around every period start and end met.
    private static List<long> Instants(SessionSchedule s)
    {
        var set = new SortedSet<long>();
        long[] changes = [Ns(2024, 3, 10, 7, 0), Ns(2024, 11, 3, 6, 0), Ns(2024, 3, 31, 1, 0), Ns(2024, 10, 27, 1, 0),
            Ns(2024, 4, 7, 3, 0), Ns(2024, 9, 8, 4, 0), Ns(2024, 4, 6, 15, 0), Ns(2024, 10, 5, 15, 30)];
        foreach (long change in changes)
        {
            for (long t = change - 10 * 24 * 60 * Minute; t <= change + 11 * 24 * 60 * Minute; t += 7 * Minute)
            {
                set.Add(t);
                long start = s.SessionPeriodStart(t);
                long end = s.SessionPeriodEnd(start);
                foreach (long edge in (long[])[start, end, end + 100])
                {
                    for (long d = -201; d <= 201; d += 67) set.Add(edge + d);
                    set.Add(edge - 1);
                    set.Add(edge + 1);
                }
            }
        }
        return [.. set];
    }

    private static void AssertSameAnswers(SessionSchedule s, IEnumerable<long> instants, string name)
    {
        var cache = default(SessionSchedule.Cache);
        foreach (long t in instants)
        {
            bool open = s.IsInSession(t);
            long start = s.SessionPeriodStart(t);
            // Alternate which query refills the cache first.
            if ((t & 1) == 0)
            {
                Assert.True(open == s.IsInSession(t, ref cache), $"{name}: IsInSession at {t} ({new DateTime(DateTime.UnixEpoch.Ticks + t / 100, DateTimeKind.Utc):O})");
                Assert.True(start == s.SessionPeriodStart(t, ref cache), $"{name}: SessionPeriodStart at {t}");
            }
            else
            {
                Assert.True(start == s.SessionPeriodStart(t, ref cache), $"{name}: SessionPeriodStart at {t}");
                Assert.True(open == s.IsInSession(t, ref cache), $"{name}: IsInSession at {t} ({new DateTime(DateTime.UnixEpoch.Ticks + t / 100, DateTimeKind.Utc):O})");
            }
        }
    }

    [Theory]
    [MemberData(nameof(Schedules))]
    public void CachedAnswersEqualUncachedOnesAcrossDstChangesAndPeriodEdges(string name)
    {
        SessionSchedule s = Build(name);
        List<long> instants = Instants(s);
        AssertSameAnswers(s, instants, name);
        instants.Reverse();
        AssertSameAnswers(s, instants, name + " (clock stepping back)");
        var random = new Random(35);
        long[] shuffled = [.. instants];
        random.Shuffle(shuffled);
        AssertSameAnswers(s, shuffled, name + " (shuffled)");
    }

    [Fact]
    public void ADailyCacheHoldsUntilTheNextPeriodAndAnOfficeHoursCacheUntilTheEnd()
    {
        var daily = new SessionSchedule(new TimeOnly(0, 0), new TimeOnly(0, 0), TimeZoneInfo.Utc);
        var cache = default(SessionSchedule.Cache);
        Assert.True(daily.IsInSession(Ns(2024, 3, 5, 12, 0), ref cache));
        Assert.Equal(Ns(2024, 3, 6, 0, 0), cache.UntilNs);
        Assert.Equal(Ns(2024, 3, 5, 0, 0), cache.PeriodStartNs);

        // 08:00-17:00 New York (EST, UTC-5): open until 17:00 inclusive, so the answer may change one tick after it;
        // closed from then until the next day's 08:00.
        var office = new SessionSchedule(new TimeOnly(8, 0), new TimeOnly(17, 0), Zone("America/New_York"));
        cache = default;
        Assert.True(office.IsInSession(Ns(2024, 1, 10, 15, 0), ref cache));
        Assert.Equal(Ns(2024, 1, 10, 22, 0) + 100, cache.UntilNs);
        Assert.True(office.IsInSession(Ns(2024, 1, 10, 22, 0) + 99, ref cache));
        Assert.False(office.IsInSession(Ns(2024, 1, 10, 22, 0) + 100, ref cache));
        Assert.Equal(Ns(2024, 1, 11, 13, 0), cache.UntilNs);
        Assert.True(office.IsInSession(Ns(2024, 1, 11, 13, 0), ref cache));

        Assert.True(SessionSchedule.NonStop.IsInSession(Ns(2024, 1, 10, 15, 0), ref cache));
        Assert.Equal(long.MinValue, SessionSchedule.NonStop.SessionPeriodStart(Ns(2024, 1, 10, 15, 0), ref cache));
    }

    [Fact]
    public void CachedQueriesDoNotAllocate()
    {
        var s = new SessionSchedule(new TimeOnly(17, 0), new TimeOnly(16, 0), Zone("America/New_York"));
        var cache = default(SessionSchedule.Cache);
        long t = Ns(2024, 3, 1, 0, 0);
        s.IsInSession(t, ref cache);
        s.SessionPeriodStart(t, ref cache);
        long before = GC.GetAllocatedBytesForCurrentThread();
        int open = 0;
        for (int i = 0; i < 100_000; i++, t += Minute)
        {
            if (s.IsInSession(t, ref cache)) open++;
            open += (int)(s.SessionPeriodStart(t, ref cache) & 1);
        }
        Assert.Equal(0, GC.GetAllocatedBytesForCurrentThread() - before);
        Assert.True(open > 0);
    }
}
