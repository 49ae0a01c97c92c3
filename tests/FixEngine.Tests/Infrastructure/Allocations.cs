using System;

namespace FixEngine.Tests.Infrastructure;

/// <summary>Measures bytes allocated on the current thread by an action run many times after a warm-up.</summary>
public static class Allocations
{
    /// <summary>
    /// Runs <paramref name="action"/> <paramref name="warmup"/> times, then measures up to <paramref name="rounds"/>
    /// rounds of <paramref name="iterations"/> calls and returns the smallest count (0 ends early).
    /// </summary>
    /// <remarks>
    /// A steady-state allocation shows up in every round (at least once per call), so a real allocation still fails
    /// the assertion. A one-off runtime allocation on this thread (a tier-up or JIT completion landing inside the
    /// window while other tests run in parallel on 2 cores) does not repeat, and is not what the engine allocates.
    /// </remarks>
    public static long Measure(Action action, int warmup = 1_000, int iterations = 10_000, int rounds = 3)
    {
        for (int i = 0; i < warmup; i++) action();
        long best = long.MaxValue;
        for (int r = 0; r < rounds && best != 0; r++)
        {
            long before = GC.GetAllocatedBytesForCurrentThread();
            for (int i = 0; i < iterations; i++) action();
            best = Math.Min(best, GC.GetAllocatedBytesForCurrentThread() - before);
        }
        return best;
    }
}
