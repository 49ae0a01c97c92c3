using System;
using FixEngine.Timing;
using FixEngine.Tests.Infrastructure;

namespace FixEngine.Tests.Timing;

public class IdleStrategyTests
{
    [Fact]
    public void BackoffSpinsThenYieldsThenParksWithGrowingSleeps()
    {
        var idle = new BackoffIdleStrategy(maxSpins: 2, maxYields: 2, maxParkMs: 4);
        for (int i = 0; i < 4; i++)
        {
            idle.Idle(0);
            Assert.Equal(-1, idle.CurrentParkMs);
        }
        idle.Idle(0); // Sleep(0)
        Assert.Equal(1, idle.CurrentParkMs);
        idle.Idle(0); // Sleep(1)
        Assert.Equal(2, idle.CurrentParkMs);
        idle.Idle(0); // Sleep(2)
        Assert.Equal(4, idle.CurrentParkMs);
        idle.Idle(0); // Sleep(4), capped
        Assert.Equal(4, idle.CurrentParkMs);
        idle.Idle(1);
        Assert.Equal(-1, idle.CurrentParkMs);
    }

    [Fact]
    public void InvalidArgumentsAreRejected()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => new BackoffIdleStrategy(maxParkMs: 0));
        Assert.Throws<ArgumentOutOfRangeException>(() => new BackoffIdleStrategy(maxSpins: -1));
        Assert.Throws<ArgumentOutOfRangeException>(() => new SleepingIdleStrategy(-1));
    }

    [Fact]
    public void IdleCallsAllocateNothing()
    {
        IIdleStrategy[] strategies =
        [
            new BusySpinIdleStrategy(), new YieldingIdleStrategy(), new SleepingIdleStrategy(0), new BackoffIdleStrategy(10, 10, 1),
        ];
        foreach (IIdleStrategy strategy in strategies)
        {
            long bytes = Allocations.Measure(() =>
            {
                strategy.Idle(1);
                strategy.Idle(0);
            }, warmup: 20, iterations: 200);
            Assert.Equal(0, bytes);
            strategy.Reset();
        }
    }
}
