using System;
using HdrHistogram;

namespace FixEngine.Benchmarks.Diagnostics;

/// <summary>The latency histograms of the harnesses: HdrHistogram <see cref="LongHistogram"/>s of nanoseconds, 1 ns to
/// 60 s at 3 significant digits (within 0.1%), recorded without allocation.</summary>
/// <remarks>HdrHistogram throws for a value above its highest trackable value; <see cref="Record"/> clamps instead
/// (a latency of a minute or more is reported as 60 s), and a negative value (a clock read on another core that ran
/// slightly behind) is recorded as 0. Not thread-safe: one writer per histogram.</remarks>
public static class Histograms
{
    /// <summary>Largest value tracked, ns (60 s).</summary>
    public const long HighestTrackableNs = 60_000_000_000;

    /// <summary>A new empty histogram, its recording path already run once.</summary>
    /// <remarks>The first <c>RecordValue</c> in a process runs HdrHistogram's lazy initialisation and allocates (1,296 B,
    /// seen as 0.01 B/msg in the first measured window of every harness process): it is paid here, outside any window.</remarks>
    public static LongHistogram Create()
    {
        var histogram = new LongHistogram(1, HighestTrackableNs, 3);
        histogram.RecordValue(1);
        histogram.Reset();
        return histogram;
    }

    /// <summary>Records <paramref name="valueNs"/>, clamped to 0 .. <see cref="HighestTrackableNs"/>.</summary>
    public static void Record(HistogramBase histogram, long valueNs) =>
        histogram.RecordValue(Math.Clamp(valueNs, 0, HighestTrackableNs));

    /// <summary>The value at <paramref name="percentile"/>, or 0 for an empty histogram (HdrHistogram throws there).</summary>
    public static long Percentile(HistogramBase histogram, double percentile) =>
        histogram.TotalCount == 0 ? 0 : histogram.GetValueAtPercentile(percentile);

    /// <summary>The largest recorded value, or 0 for an empty histogram.</summary>
    public static long Max(HistogramBase histogram) => histogram.TotalCount == 0 ? 0 : histogram.GetMaxValue();
}
