using System;
using System.Runtime.InteropServices;
using System.Threading;
using FixEngine.Timing;

namespace FixEngine.Benchmarks.RoundTrip;

/// <summary>Waits until a monotonic deadline without burning a shared core: sleeps with sub-millisecond resolution
/// (Linux <c>clock_nanosleep</c>) while far ahead, then yields, then spins.</summary>
/// <remarks>
/// Thread-safe (no state), allocation-free. PERF: the open-loop sender would otherwise spin for the whole interval
/// (500 µs at 2,000 msg/s) on a 2-core machine where the acceptor and receiver threads need those cycles; nanosleep
/// wakes ~50-100 µs late (timer slack), so it stops <see cref="SpinMarginNs"/> early and the rest is yield/spin.
/// </remarks>
internal static partial class PreciseWait
{
    /// <summary>Time before the deadline at which sleeping stops.</summary>
    public const long SpinMarginNs = 120_000;

    private const int ClockMonotonic = 1;

    private static readonly bool s_canNanosleep = OperatingSystem.IsLinux();

    /// <summary>Returns at or just after <paramref name="deadlineNs"/> (<see cref="HighResTime"/> time).</summary>
    public static void Until(long deadlineNs)
    {
        long nowNs;
        while ((nowNs = HighResTime.NowNs()) < deadlineNs)
        {
            long remainingNs = deadlineNs - nowNs;
            if (remainingNs > SpinMarginNs + 30_000)
            {
                Sleep(remainingNs - SpinMarginNs);
            }
            else if (remainingNs > 20_000)
            {
                Thread.Yield();
            }
            else
            {
                Thread.SpinWait(10);
            }
        }
    }

    /// <summary>Sleeps until <paramref name="deadlineNs"/> without yielding or spinning (Linux <c>clock_nanosleep</c>):
    /// for a sender whose interval is shorter than <see cref="SpinMarginNs"/>, where <see cref="Until"/> would never
    /// sleep and so would hold a core. Call <see cref="UseFineTimerSlack"/> on the thread first, or each wake is up to
    /// the default 50 µs timer slack late.</summary>
    public static void SleepUntil(long deadlineNs)
    {
        long nowNs;
        while ((nowNs = HighResTime.NowNs()) < deadlineNs)
        {
            if (s_canNanosleep) Sleep(deadlineNs - nowNs);
            else Thread.Yield();
        }
    }

    /// <summary>Linux: sets the calling thread's timer slack to 1 µs (prctl PR_SET_TIMERSLACK), so its nanosleeps end
    /// within microseconds of their deadline instead of up to 50 µs after it. Elsewhere nothing.</summary>
    public static void UseFineTimerSlack()
    {
        if (s_canNanosleep) _ = prctl(PrSetTimerSlack, 1_000, 0, 0, 0);
    }

    private const int PrSetTimerSlack = 29;

    [LibraryImport("libc", SetLastError = false)]
    private static partial int prctl(int option, ulong arg2, ulong arg3, ulong arg4, ulong arg5);

    /// <summary>Spins on the clock until <paramref name="deadlineNs"/> (holds a core for the whole wait).</summary>
    public static void SpinUntil(long deadlineNs)
    {
        while (HighResTime.NowNs() < deadlineNs) Thread.SpinWait(1);
    }

    private static void Sleep(long durationNs)
    {
        if (s_canNanosleep)
        {
            var request = new TimeSpec { Seconds = durationNs / 1_000_000_000, Nanoseconds = durationNs % 1_000_000_000 };
            clock_nanosleep(ClockMonotonic, 0, in request, IntPtr.Zero);
        }
        else if (durationNs > 2_000_000)
        {
            Thread.Sleep(1);
        }
        else
        {
            Thread.Yield();
        }
    }

    [StructLayout(LayoutKind.Sequential)]
    private struct TimeSpec
    {
        public long Seconds;
        public long Nanoseconds;
    }

    [LibraryImport("libc", SetLastError = false)]
    private static partial int clock_nanosleep(int clockId, int flags, in TimeSpec request, IntPtr remain);
}
