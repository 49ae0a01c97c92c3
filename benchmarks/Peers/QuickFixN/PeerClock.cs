using System;
using System.Diagnostics;
using System.Runtime.InteropServices;
using System.Threading;

namespace QuickFixN;

/// <summary>Monotonic nanoseconds and the open-loop wait, with the same thresholds as the harness's PreciseWait and the
/// QuickFIX C++ peer (nanosleep while more than 150 µs ahead, then yield, then spin for the last 20 µs), or a pure spin
/// with <c>--pacing spin</c>.</summary>
internal static partial class PeerClock
{
    private const long SpinMarginNs = 120_000;
    private static readonly double s_nsPerTick = 1e9 / Stopwatch.Frequency;
    private static readonly bool s_canNanosleep = OperatingSystem.IsLinux();

    /// <summary>Spin for the whole interval instead of sleeping and yielding (<c>--pacing spin</c>).</summary>
    public static bool SpinPacing { get; set; }

    public static long NowNs() => (long)(Stopwatch.GetTimestamp() * s_nsPerTick);

    public static void WaitUntil(long deadlineNs)
    {
        long nowNs;
        while ((nowNs = NowNs()) < deadlineNs)
        {
            if (SpinPacing) continue;
            long remainingNs = deadlineNs - nowNs;
            if (remainingNs > SpinMarginNs + 30_000)
            {
                long sleepNs = remainingNs - SpinMarginNs;
                if (s_canNanosleep)
                {
                    var request = new TimeSpec { Seconds = sleepNs / 1_000_000_000, Nanoseconds = sleepNs % 1_000_000_000 };
                    clock_nanosleep(1, 0, in request, IntPtr.Zero);
                }
                else
                {
                    Thread.Yield();
                }
            }
            else if (remainingNs > 20_000)
            {
                Thread.Yield();
            }
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

/// <summary>GC counts and allocated bytes of this process, snapshotted around a measured window.</summary>
internal readonly record struct GcWindow(int Gen0, int Gen1, int Gen2, long Bytes)
{
    public static GcWindow Settled()
    {
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();
        GC.WaitForPendingFinalizers();
        Thread.Sleep(50);
        return Now();
    }

    public static GcWindow Now() =>
        new(GC.CollectionCount(0), GC.CollectionCount(1), GC.CollectionCount(2), GC.GetTotalAllocatedBytes(true));

    public GcWindow Since(GcWindow start) => new(Gen0 - start.Gen0, Gen1 - start.Gen1, Gen2 - start.Gen2, Bytes - start.Bytes);
}
