namespace FixEngine.Timing;

// Design:
// - One algorithm for every place that pairs two clocks (TscTimeSource: TSC against Stopwatch; EpochClock: UtcNow against
//   Stopwatch; Engine/EpochAnchor: the engine clock's epoch against its monotonic time). The outer clock is read on both
//   sides of the inner one; the window (after - before) bounds how far apart the two readings may be, and the pair is
//   anchored at the window's middle. A thread preempted between the reads (or a test clock stepped by another thread)
//   gives a wide window, so the pair is read up to a number of times and the narrowest kept, stopping at the first
//   window no wider than the caller's "good" width. What a caller does with a window that stayed too wide (keep the old
//   anchor, retry, use it anyway) is its own rule, next to its own limit.
// - Generic over a struct, so each caller's two reads are inlined into the loop: no delegate, no interface call, no
//   allocation.

/// <summary>The two clocks of a bracketed pair (see <see cref="ClockPair.ReadBest"/>).</summary>
internal interface IPairClocks
{
    /// <summary>The outer clock, monotonic nanoseconds: read before and after <see cref="ReadInner"/>.</summary>
    long ReadOuterNs();

    /// <summary>The inner clock, read between the two outer reads.</summary>
    long ReadInner();
}

/// <summary>Two clocks read together: the outer clock at the middle of the window, the inner clock's reading, and the
/// window (how far the outer clock moved around the inner read).</summary>
/// <param name="OuterNs">The outer clock at the middle of the window.</param>
/// <param name="Inner">The inner clock's reading.</param>
/// <param name="WindowNs">The outer clock's move across the inner read.</param>
internal readonly record struct ClockPair(long OuterNs, long Inner, long WindowNs)
{
    /// <summary>The narrowest of up to <paramref name="tries"/> bracketed readings; stops early at a window of at most
    /// <paramref name="goodWindowNs"/>.</summary>
    /// <param name="clocks">The two clocks.</param>
    /// <param name="tries">Most readings taken (at least one).</param>
    /// <param name="goodWindowNs">A window this narrow ends the tries.</param>
    public static ClockPair ReadBest<TClocks>(TClocks clocks, int tries, long goodWindowNs)
        where TClocks : struct, IPairClocks
    {
        ClockPair best = new(0, 0, long.MaxValue);
        for (int i = 0; i < tries; i++)
        {
            long before = clocks.ReadOuterNs();
            long inner = clocks.ReadInner();
            long window = clocks.ReadOuterNs() - before;
            if (window < best.WindowNs)
            {
                best = new ClockPair(before + window / 2, inner, window);
                if (window <= goodWindowNs) break;
            }
        }
        return best;
    }
}
