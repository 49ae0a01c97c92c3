using System.Diagnostics;

namespace FixEngine.Timing;

/// <summary>Monotonic nanosecond time from <see cref="Stopwatch.GetTimestamp"/>.</summary>
/// <remarks>Thread-safe, allocation-free. The origin is arbitrary (not the Unix epoch); use it for durations and deadlines.</remarks>
public static class HighResTime
{
    private const long NsPerSecond = 1_000_000_000;

    private static readonly long s_frequency = Stopwatch.Frequency;
    private static readonly bool s_isNanosecondTicks = Stopwatch.Frequency == NsPerSecond;

    /// <summary>The current monotonic time in nanoseconds.</summary>
    /// <returns>Nanoseconds since an arbitrary fixed origin.</returns>
    public static long NowNs() => TicksToNs(Stopwatch.GetTimestamp());

    /// <summary>Converts <see cref="Stopwatch"/> ticks to nanoseconds exactly (no floating point, no overflow for ~292 years).</summary>
    /// <param name="ticks">A <see cref="Stopwatch.GetTimestamp"/> value or difference.</param>
    /// <returns>The same instant or span in nanoseconds.</returns>
    public static long TicksToNs(long ticks)
    {
        // static readonly fields are JIT-time constants in tier 1, so one branch disappears.
        if (s_isNanosecondTicks)
        {
            return ticks;
        }
        long seconds = ticks / s_frequency;
        long remainder = ticks % s_frequency;
        return seconds * NsPerSecond + remainder * NsPerSecond / s_frequency;
    }
}
