using FixEngine.Engine;
using FixEngine.Timing;

namespace FixEngine.Tests.Engine;

/// <summary>The engine's epoch anchor pairs an epoch time with the monotonic time it belongs to, even when the clock
/// moves by a step between the two reads (a test's or a simulation's clock advanced by another thread).</summary>
public sealed class EpochAnchorTests
{
    private const long Step = 1_050_000_000L;

    [Fact]
    public void AClockThatStepsBetweenTheReadsStillGivesTheRightOffset()
    {
        var clock = new SteppingClock { StepsLeft = 1 };
        var anchor = new EpochAnchor(clock); // refreshes in the constructor: the step lands inside its reads
        Assert.Equal(0, clock.StepsLeft);
        Assert.Equal(clock.EpochNs, anchor.EpochNow());
        clock.Now += Step;
        Assert.Equal(clock.EpochNs, anchor.BeginCycle(clock.NowNs));
    }

    [Fact]
    public void AClockThatNeverSettlesEndsTheRefreshWithinOneStep()
    {
        var clock = new SteppingClock { StepsLeft = int.MaxValue };
        var anchor = new EpochAnchor(clock);
        int reads = int.MaxValue - clock.StepsLeft;
        Assert.InRange(reads, 1, 8); // bounded: a few tries, then the last pair
        clock.StepsLeft = 0;
        Assert.InRange(anchor.EpochNow() - clock.EpochNs, -Step, Step);
    }

    /// <summary>Consistent at every read, but each epoch read first moves the clock by <see cref="Step"/> while steps
    /// are left (as if another thread advanced it between a reader's two reads).</summary>
    private sealed class SteppingClock : IClock
    {
        private const long Offset = 1_700_000_000_000_000_000L;

        public long Now = 1_000_000_000_000L;

        public int StepsLeft;

        public long NowNs => Now;

        public long EpochNs
        {
            get
            {
                if (StepsLeft > 0)
                {
                    StepsLeft--;
                    Now += Step;
                }
                return Now + Offset;
            }
        }
    }
}
