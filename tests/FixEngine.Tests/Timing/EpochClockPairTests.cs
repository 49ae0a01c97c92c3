using FixEngine.Timing;
using Xunit;

namespace FixEngine.Tests.Timing;

// EpochClock's anchor pair read against a simulated monotonic clock and system clock: the system clock is the monotonic
// clock plus a fixed offset, and a test can hold a try up between its monotonic and UtcNow reads (a preempted thread).
public sealed class EpochClockPairTests
{
    private const long Offset = 1_765_000_000_000_000_000; // epoch ns minus monotonic ns, fixed
    private const long HeldUpNs = 5_000_000;

    private sealed class SimulatedClocks
    {
        public long MonotonicNs = 1_000_000_000;

        /// <summary>The next this-many UtcNow reads are held up by <see cref="HeldUpNs"/> first.</summary>
        public int HeldUpReads;

        public long Monotonic()
        {
            MonotonicNs += 40; // each read takes a little time
            return MonotonicNs;
        }

        public long Utc()
        {
            if (HeldUpReads > 0)
            {
                HeldUpReads--;
                MonotonicNs += HeldUpNs;
            }
            MonotonicNs += 40;
            return MonotonicNs + Offset;
        }
    }

    // Epoch time for the monotonic time now against the truth for it (a re-anchor inside the read moves the simulated clock).
    private static long Error(EpochClock clock, SimulatedClocks sim)
    {
        long monotonicNs = sim.MonotonicNs;
        return clock.ToEpochNs(monotonicNs) - (monotonicNs + Offset);
    }

    [Fact]
    public void APairHeldUpBetweenItsReadsIsReadAgainNotAnchoredAhead()
    {
        var sim = new SimulatedClocks();
        var clock = new EpochClock(1_000_000_000, sim.Monotonic, sim.Utc);
        Assert.InRange(Error(clock, sim), -1_000, 1_000);

        sim.MonotonicNs += 2_000_000_000; // the anchor is stale: the next read re-anchors
        sim.HeldUpReads = 1;             // and its first try is preempted between the two reads
        long error = Error(clock, sim);
        // Unbracketed, the anchor took the monotonic time from before the delay and UtcNow from after it: 5 ms ahead.
        Assert.InRange(error, -1_000, 1_000);
        Assert.Equal(0, clock.HeldUpReanchors);
    }

    [Fact]
    public void AReanchorWhoseEveryTryIsHeldUpKeepsTheOldAnchorAndTheNextReadTriesAgain()
    {
        var sim = new SimulatedClocks();
        var clock = new EpochClock(1_000_000_000, sim.Monotonic, sim.Utc);
        sim.MonotonicNs += 2_000_000_000;
        sim.HeldUpReads = 100; // every try of this re-anchor
        long before = Error(clock, sim);
        Assert.Equal(1, clock.HeldUpReanchors);
        Assert.InRange(before, -1_000, 1_000); // the old anchor, exact against this drift-free simulation

        sim.HeldUpReads = 0;
        sim.MonotonicNs += 10_000_000;
        Assert.InRange(Error(clock, sim), -1_000, 1_000);
        Assert.Equal(1, clock.HeldUpReanchors);
    }

    [Fact]
    public void EpochTimeDoesNotStepBackAcrossAReanchorAfterAHeldUpTry()
    {
        var sim = new SimulatedClocks();
        var clock = new EpochClock(1_000_000_000, sim.Monotonic, sim.Utc);
        long last = long.MinValue;
        for (int round = 0; round < 20; round++)
        {
            sim.HeldUpReads = round % 3 == 0 ? 1 : 0; // a preempted first try every third round's re-anchor
            for (int i = 0; i < 1_100; i++) // 1 ms apart: every round crosses one re-anchor
            {
                sim.MonotonicNs += 1_000_000;
                long epoch = clock.ToEpochNs(sim.MonotonicNs);
                Assert.True(epoch > last, $"round {round}, read {i}: epoch time went from {last} back to {epoch}");
                last = epoch;
            }
        }
    }

    [Fact]
    public void TheFirstAnchorTakesTheNarrowestTry()
    {
        var sim = new SimulatedClocks { HeldUpReads = 3 };
        var clock = new EpochClock(1_000_000_000, sim.Monotonic, sim.Utc);
        Assert.InRange(Error(clock, sim), -1_000, 1_000);
    }
}
