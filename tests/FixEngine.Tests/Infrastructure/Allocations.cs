using System;

namespace FixEngine.Tests.Infrastructure;

/// <summary>Measures bytes allocated on the current thread by an action run many times after a warm-up.</summary>
/// <remarks>
/// Every measurement is the smallest of a few windows (0 ends early). A steady-state allocation shows up in every window
/// (at least once per call), so a real allocation still fails the assertion. A one-off runtime allocation on this thread
/// (a tier-up or JIT completion, a runtime comparer built on first use, landing inside the window while other tests run
/// in parallel on 2 cores) does not repeat, and is not what the engine allocates.
/// </remarks>
public static class Allocations
{
    /// <summary>
    /// Runs <paramref name="action"/> <paramref name="warmup"/> times, then measures up to <paramref name="rounds"/>
    /// rounds of <paramref name="iterations"/> calls and returns the smallest count (0 ends early).
    /// </summary>
    public static long Measure(Action action, int warmup = 1_000, int iterations = 10_000, int rounds = 3)
    {
        for (int i = 0; i < warmup; i++) action();
        return BestWindow(() =>
        {
            for (int i = 0; i < iterations; i++) action();
        }, rounds: rounds);
    }

    /// <summary>
    /// Measures up to <paramref name="rounds"/> runs of <paramref name="window"/>, each after an unmeasured
    /// <paramref name="prepare"/> (a reset to the same starting state), and returns the smallest count (0 ends early).
    /// </summary>
    /// <param name="window">The measured work.</param>
    /// <param name="prepare">Unmeasured, before each window.</param>
    /// <param name="rounds">Most windows measured.</param>
    /// <param name="windows">When given, receives every window's count in order (for a failure message).</param>
    public static long BestWindow(Action window, Action? prepare = null, int rounds = 3, System.Collections.Generic.List<long>? windows = null)
    {
        long best = long.MaxValue;
        for (int r = 0; r < rounds && best != 0; r++)
        {
            prepare?.Invoke();
            long before = GC.GetAllocatedBytesForCurrentThread();
            window();
            long bytes = GC.GetAllocatedBytesForCurrentThread() - before;
            windows?.Add(bytes);
            best = Math.Min(best, bytes);
        }
        return best;
    }
}
