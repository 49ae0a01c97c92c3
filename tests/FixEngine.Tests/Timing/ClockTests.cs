using System;
using System.Diagnostics;
using System.Threading;
using FixEngine.Timing;
using FixEngine.Tests.Infrastructure;

namespace FixEngine.Tests.Timing;

public class ClockTests
{
    [Fact]
    public void TicksConvertExactlyToNanoseconds()
    {
        long f = Stopwatch.Frequency;
        Assert.Equal(1_000_000_000L, HighResTime.TicksToNs(f));
        Assert.Equal(3_000_000_000L, HighResTime.TicksToNs(3 * f));
        Assert.Equal(0, HighResTime.TicksToNs(0));
        // Large values do not overflow (about 100 days of ticks).
        long big = f * 86_400 * 100;
        Assert.Equal(86_400L * 100 * 1_000_000_000, HighResTime.TicksToNs(big));
    }

    [Fact]
    public void HighResTimeIsMonotonic()
    {
        long previous = HighResTime.NowNs();
        for (int i = 0; i < 10_000; i++)
        {
            long now = HighResTime.NowNs();
            Assert.True(now >= previous);
            previous = now;
        }
    }

    [Fact]
    public void EpochClockAgreesWithDateTimeUtcNow()
    {
        var clock = new EpochClock();
        long expected = (DateTime.UtcNow - DateTime.UnixEpoch).Ticks * 100;
        // Same order of magnitude as now: within a minute (not a timing assertion, a sanity bound on the anchor).
        Assert.InRange(clock.EpochNs, expected - 60_000_000_000, expected + 60_000_000_000);
    }

    [Fact]
    public void EpochClockAdvancesWithMonotonicTime()
    {
        var clock = new EpochClock(reanchorIntervalNs: 0);
        long mono = HighResTime.NowNs();
        long a = clock.ToEpochNs(mono);
        long b = clock.ToEpochNs(mono + 1_234_567);
        Assert.Equal(1_234_567, b - a);
    }

    [Fact]
    public void EpochClockReanchorsWhenStale()
    {
        var clock = new EpochClock(reanchorIntervalNs: 1);
        long mono = HighResTime.NowNs() + 10_000_000_000; // 10 s ahead: triggers one re-anchor, then returns
        long epoch = clock.ToEpochNs(mono);
        Assert.True(epoch > 0);
        clock.Reanchor();
        Assert.True(clock.EpochNs > 0);
    }

    [Fact]
    public void EpochClockReadsAllocateNothing()
    {
        var clock = new EpochClock();
        long sink = 0;
        long bytes = Allocations.Measure(() => sink += clock.EpochNs + clock.NowNs);
        Assert.Equal(0, bytes);
        Assert.NotEqual(0, sink);
    }

    [Fact]
    public void FakeClockMovesOnlyWhenTold()
    {
        var clock = new FakeClock(nowNs: 100, epochNs: 1_000);
        Assert.Equal(100, clock.NowNs);
        clock.Advance(50);
        Assert.Equal(150, clock.NowNs);
        Assert.Equal(1_050, clock.EpochNs);
        clock.EpochNs = 5;
        Assert.Equal(5, clock.EpochNs);
        var epoch = new FakeEpochClock(7);
        epoch.Advance(3);
        Assert.Equal(10, epoch.EpochNs);
    }

    [Theory]
    [InlineData(CachedClockRefreshMode.Sleep)]
    [InlineData(CachedClockRefreshMode.Spin)]
    public void CachedClockRefreshesAndStops(CachedClockRefreshMode mode)
    {
        using var clock = new CachedClock(TimeSpan.FromMicroseconds(100), mode);
        long first = clock.NowNs;
        Assert.True(first > 0);
        Assert.True(clock.EpochNs > 0);
        var deadline = Stopwatch.StartNew();
        while (clock.NowNs == first)
        {
            Assert.True(deadline.Elapsed < TimeSpan.FromSeconds(10), "cached clock never refreshed");
            Thread.Sleep(1);
        }
        clock.Dispose();
        long stopped = clock.NowNs;
        Thread.Sleep(5);
        Assert.Equal(stopped, clock.NowNs);
    }

    [Fact]
    public void CachedClockReadsAllocateNothing()
    {
        using var clock = new CachedClock();
        long sink = 0;
        long bytes = Allocations.Measure(() => sink += clock.NowNs + clock.EpochNs);
        Assert.Equal(0, bytes);
        Assert.NotEqual(0, sink);
    }

    [Fact]
    public void SystemClockIsRealTime()
    {
        Assert.True(SystemClock.Instance.NowNs > 0);
        Assert.True(SystemClock.Instance.EpochNs > 1_600_000_000L * 1_000_000_000);
    }
}
