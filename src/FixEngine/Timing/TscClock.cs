using System.Diagnostics;
using System.Runtime.CompilerServices;

namespace FixEngine.Timing;

// Design:
// - Why: on Linux KVM guests (clocksource tsc) Stopwatch.GetTimestamp, i.e. clock_gettime(CLOCK_MONOTONIC)
//   through the vDSO, is an ordered TSC read plus the kernel's conversion. Reading the TSC ourselves, unordered,
//   costs less than half of that, and the conversion to ns can be left to whoever needs ns (the log's drain thread).
//   PERF: ClockBenchmarks and LogCallBenchmarks; the measurements are in docs/benchmarks/toolkit-codec-notes.md.
// - The alternative, a cached clock refreshed by a thread, gives a real timestamp per call only if
//   the refresher spins on a core, which a 2-core box cannot spare as a default.
// - TscReader decides once per process whether the TSC is sound and maps the readers; TscTimeSource
//   does the calibration and the sequence-locked conversion. This class is the process-wide instance;
//   the static readonly fields let the JIT treat the instance and the reader pointer as constants.
// - On every platform where the TSC is not used, the members read Stopwatch, and Description /
//   FallbackReason say why (computed once, at first use).

/// <summary>
/// The process-wide fast clock: the x64 time-stamp counter read directly where that is sound, calibrated to
/// <see cref="HighResTime"/> nanoseconds; <see cref="Stopwatch"/> everywhere else.
/// </summary>
/// <remarks>
/// <para>The TSC is used only on x64 Linux whose kernel clocksource is <c>tsc</c> and whose CPU reports
/// <c>constant_tsc</c> and <c>nonstop_tsc</c>, and where executable memory can be mapped for the 12-byte reader;
/// set the environment variable <c>FIXENGINE_DISABLE_TSC=1</c> to turn it off. <see cref="Description"/> says which
/// counter is read and why.</para>
/// <para>Thread-safe, allocation-free. The first use calibrates for about 1 ms; afterwards the calibration is
/// refreshed by whichever read finds it due (every second once settled), so one read in a second costs a few
/// hundred ns more.</para>
/// </remarks>
public static unsafe class TscClock
{
    private static readonly TscTimeSource s_source = new();
    private static readonly delegate* unmanaged[SuppressGCTransition]<long> s_unordered = s_source.UnorderedReader;

    /// <summary>Whether the TSC is read directly (otherwise every member reads <see cref="Stopwatch"/>).</summary>
    public static bool IsTscBacked => s_source.IsTscBacked;

    /// <summary>Why the TSC is not used (for example the kernel clocksource), or null when it is.</summary>
    public static string? FallbackReason => s_source.FallbackReason;

    /// <summary>One line describing the counter in use: the TSC and its calibrated rate, or Stopwatch and the reason.</summary>
    public static string Description => s_source.Description;

    /// <summary>The current monotonic time in nanoseconds, on <see cref="HighResTime.NowNs"/>'s origin and scale.</summary>
    /// <returns>Nanoseconds since an arbitrary fixed origin.</returns>
    /// <remarks>
    /// Monotonic across threads: a value read after observing another thread's value is not smaller. Follows
    /// <see cref="Stopwatch"/> within tens of nanoseconds once calibrated and at most 250 us from it while the OS clock's
    /// rate stays within 50 ppm of the calibrated one (drift is slewed away, never stepped back; after a long gap without
    /// reads it resynchronises instead of extrapolating), so it can be mixed with <see cref="HighResTime"/> values and
    /// passed to <see cref="EpochClock.ToEpochNs"/>.
    /// </remarks>
    public static long NowNs() => s_source.NowNs();

    /// <summary>The raw counter, as cheaply as it can be read: TSC ticks, or <see cref="Stopwatch"/> ticks on the fallback.</summary>
    /// <returns>A value for <see cref="TimestampToNs"/>; meaningful only within this process.</returns>
    /// <remarks>
    /// The TSC read is not ordered with the surrounding memory accesses (it may run a few tens of ns early), which is
    /// right for stamping records such as log entries and wrong for comparing with another thread's reading: use
    /// <see cref="NowNs"/> for that.
    /// </remarks>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static long GetTimestamp() => s_unordered != null ? s_unordered() : Stopwatch.GetTimestamp();

    /// <summary>Converts a <see cref="GetTimestamp"/> value read recently (seconds, not hours, ago) to <see cref="NowNs"/>'s nanoseconds.</summary>
    /// <param name="timestamp">A value returned by <see cref="GetTimestamp"/> in this process.</param>
    /// <returns>Monotonic nanoseconds.</returns>
    public static long TimestampToNs(long timestamp) => s_source.TimestampToNs(timestamp);
}
