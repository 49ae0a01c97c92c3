using System;
using FixEngine.Config;
using FixEngine.Tests.Infrastructure;

namespace FixEngine.Tests.Config;

/// <summary>Schedule queries run on the engine thread every duty cycle, so they must not allocate.</summary>
[Collection(nameof(AllocationMeasurement))]
public sealed class SessionScheduleAllocationTests
{
    [Fact]
    public void QueriesDoNotAllocate()
    {
        var s = new SessionSchedule(new TimeOnly(17, 0), new TimeOnly(16, 0), SessionScheduleTests.NewYork(), DayOfWeek.Sunday, DayOfWeek.Friday);
        long t = SessionScheduleTests.Ns(2024, 3, 10, 12, 0);
        long sum = 0;
        int minute = 0;
        // One call walks one minute further, so the 10,000-call rounds cover a week that spans the DST change of
        // 2024-03-10 (warm-up covers the same week: a first-time path is compiled before the window).
        void Query()
        {
            long now = t + (minute++ % 10_000) * 60_000_000_000L;
            if (s.IsInSession(now)) sum += s.SessionPeriodStart(now) & 1;
            if (s.IsSameSessionPeriod(now, t)) sum++;
        }

        long bytes = Allocations.Measure(Query, warmup: 10_000, iterations: 10_000);
        Assert.Equal(0, bytes);
        Assert.True(sum > 0);
    }

    [Fact]
    public void WeekdayQueriesDoNotAllocate()
    {
        var s = new SessionSchedule(new TimeOnly(8, 0), new TimeOnly(17, 0), SessionScheduleTests.NewYork(), weekdays: [DayOfWeek.Monday, DayOfWeek.Friday]);
        long t = SessionScheduleTests.Ns(2024, 3, 10, 12, 0);
        long sum = 0;
        int minute = 0;
        void Query()
        {
            long now = t + (minute++ % 10_000) * 60_000_000_000L;
            if (s.IsInSession(now)) sum++;
        }

        long bytes = Allocations.Measure(Query, warmup: 10_000, iterations: 10_000);
        Assert.Equal(0, bytes);
        Assert.True(sum > 0);
    }
}
