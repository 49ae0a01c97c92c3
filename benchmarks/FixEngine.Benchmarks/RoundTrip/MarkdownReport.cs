using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using FixEngine.Benchmarks.Diagnostics;
using HdrHistogram;

namespace FixEngine.Benchmarks.RoundTrip;

/// <summary>All runs of one configuration at one rate, with their histograms combined.</summary>
public sealed class ConfigRateSummary
{
    /// <summary>Creates the summary and combines the run histograms.</summary>
    public ConfigRateSummary(string config, int ratePerSecond, IReadOnlyList<RunResult> runs)
    {
        Config = config;
        RatePerSecond = ratePerSecond;
        Runs = runs;
        Combined = Histograms.Create();
        foreach (RunResult run in runs) Combined.Add(run.Histogram);
    }

    /// <summary>Configuration key.</summary>
    public string Config { get; }

    /// <summary>Target rate, 0 = max (closed loop).</summary>
    public int RatePerSecond { get; }

    /// <summary>The runs in order.</summary>
    public IReadOnlyList<RunResult> Runs { get; }

    /// <summary>All runs' latencies together.</summary>
    public HistogramBase Combined { get; }
}

/// <summary>Run-wide facts printed at the top of the report.</summary>
/// <param name="Machine">Machine line.</param>
/// <param name="CommandLine">How the report was produced.</param>
/// <param name="Mode">quick / full / custom.</param>
/// <param name="WarmupDescription">Warm-up orders per run (count, or count and time bound).</param>
/// <param name="MeasuredDescription">How many orders each run measured.</param>
/// <param name="Runs">Runs per configuration and rate.</param>
/// <param name="OrderLength">NewOrderSingle bytes.</param>
/// <param name="ReportLength">ExecutionReport bytes.</param>
public sealed record ReportContext(
    string Machine, string CommandLine, string Mode, string WarmupDescription, string MeasuredDescription, int Runs, int OrderLength, int ReportLength)
{
    /// <summary>Load averages while measuring (the machine may be shared), or null.</summary>
    public string? LoadAverage { get; init; }

    /// <summary>Total wall time and where it went, or null.</summary>
    public string? WallTime { get; init; }
}

/// <summary>Writes the round-trip report as Markdown: one table per rate, run details, unmeasured configurations.</summary>
/// <remarks>Reporting only: allocates freely.</remarks>
public static class MarkdownReport
{
    /// <summary>The line the report must carry about QuickFIX/n.</summary>
    public const string QuickFixLine = "QuickFIX/n ↔ QuickFIX/n: not measured — QuickFIXn.Core is not served by the package source";

    /// <summary>Percentiles in the tables.</summary>
    public static readonly double[] Percentiles = [50, 90, 99, 99.9, 99.99];

    /// <summary>Writes the report.</summary>
    public static void Write(TextWriter w, ReportContext context, IReadOnlyList<ConfigRateSummary> results, IReadOnlyList<RoundTripConfiguration> notMeasured)
    {
        w.WriteLine("# Round-trip latency: NewOrderSingle → ExecutionReport over loopback TCP");
        w.WriteLine();
        w.WriteLine($"- Machine: {context.Machine}");
        if (context.LoadAverage is not null) w.WriteLine($"- Load average (1/5/15 min): {context.LoadAverage}");
        w.WriteLine($"- Command: `{context.CommandLine}`");
        if (context.WallTime is not null) w.WriteLine($"- Wall time: {context.WallTime}");
        w.WriteLine($"- Mode: {context.Mode}; per run {context.WarmupDescription} warm-up orders (closed loop, not recorded), then {context.MeasuredDescription}; {context.Runs} run(s) per configuration and rate");
        w.WriteLine($"- Messages: NewOrderSingle {context.OrderLength} B, ExecutionReport {context.ReportLength} B (the floor sends blocks of the same sizes)");
        w.WriteLine("- Latency: from the order's intended send time (open-loop schedule, carried in ClOrdID) to receipt of the reply, so stalls are charged to every order they delay (coordinated-omission corrected). `max` = closed loop, one order in flight, intended = actual send time.");
        w.WriteLine("- GCs and B/msg: process-wide `GC.CollectionCount` (gen 0/1/2) and `GC.GetTotalAllocatedBytes(true)` deltas over the measured windows, summed over runs; for `-2proc` configurations the acceptor process takes the same snapshots over the same window and both processes are added (the Runs table shows each).");
        w.WriteLine("- Achieved msg/s: replies in the window / (last reply − first intended send), mean of the runs; below the target rate the system did not keep up. SATURATED: the open-loop sender fell too far behind and stopped early, so the orders it never sent are missing from the percentiles (they would only be worse).");
        w.WriteLine($"- {QuickFixLine}");
        w.WriteLine();

        var rates = new List<int>();
        foreach (ConfigRateSummary s in results)
        {
            if (!rates.Contains(s.RatePerSecond)) rates.Add(s.RatePerSecond);
        }
        foreach (int rate in rates)
        {
            w.WriteLine($"## {RateLabel(rate)}");
            w.WriteLine();
            w.WriteLine("| Configuration | p50 µs | p90 µs | p99 µs | p99.9 µs | p99.99 µs | worst µs | achieved msg/s | GC 0/1/2 | B/msg | p50 runs min–max | p99 runs min–max | ×floor p50 | ×floor p99 | ×floor p99.9 | ×QuickFIX/n |");
            w.WriteLine("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|");
            ConfigRateSummary? floor = null;
            foreach (ConfigRateSummary s in results)
            {
                if (s.RatePerSecond == rate && s.Config == RoundTripConfigurations.FloorKey) floor = s;
            }
            foreach (ConfigRateSummary s in results)
            {
                if (s.RatePerSecond != rate) continue;
                WriteRow(w, s, floor);
            }
            w.WriteLine("| QuickFIX/n ↔ QuickFIX/n | not measured — QuickFIXn.Core is not served by the package source | | | | | | | | | | | n/a | n/a | n/a | n/a |");
            if (notMeasured.Count > 0)
            {
                w.WriteLine($"| {notMeasured.Count} other configuration(s) | not measured (see below) | | | | | | | | | | | n/a | n/a | n/a | n/a |");
            }
            w.WriteLine();
        }

        w.WriteLine("## Runs");
        w.WriteLine();
        w.WriteLine("| Configuration | rate | run | count / planned | warm-up | p50 µs | p99 µs | p99.9 µs | worst µs | achieved msg/s | GC 0/1/2 initiator proc | allocated B initiator proc | GC 0/1/2 acceptor proc | allocated B acceptor proc | B/msg | errors | complete | wall time |");
        w.WriteLine("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|---|");
        foreach (ConfigRateSummary s in results)
        {
            for (int i = 0; i < s.Runs.Count; i++)
            {
                RunResult r = s.Runs[i];
                string child = r.Child is ProcessWindow c ? $"{c.Gen0}/{c.Gen1}/{c.Gen2} | {c.AllocatedBytes:N0}" : "same process | same process";
                string complete = r.Verdict + (r.JitSettled ? "" : " (JIT still compiling after warm-up)");
                w.WriteLine($"| {s.Config} | {RateLabel(s.RatePerSecond)} | {i + 1} | {r.Count:N0} / {r.Planned:N0} | {r.WarmupSent:N0} | {Us(r.Histogram.GetValueAtPercentile(50))} | {Us(r.Histogram.GetValueAtPercentile(99))} | {Us(r.Histogram.GetValueAtPercentile(99.9))} | {Us(r.Histogram.GetMaxValue())} | {r.AchievedRate:N0} | {r.Gen0}/{r.Gen1}/{r.Gen2} | {r.AllocatedBytes:N0} | {child} | {r.BytesPerMessage:0.00} | {r.Errors} | {complete} | {r.Phases.TotalNs / 1e9:0.0} s |");
            }
        }
        w.WriteLine();

        if (notMeasured.Count > 0)
        {
            w.WriteLine("## Not measured");
            w.WriteLine();
            w.WriteLine($"- {QuickFixLine}");
            foreach (RoundTripConfiguration c in notMeasured)
            {
                w.WriteLine($"- `{c.Key}` ({c.Description}): {c.UnavailableReason}");
            }
            w.WriteLine();
        }
    }

    /// <summary>The heading/label of a rate.</summary>
    public static string RateLabel(int ratePerSecond) =>
        ratePerSecond <= 0 ? "max (closed loop)" : ratePerSecond.ToString("N0", CultureInfo.InvariantCulture) + " msg/s";

    /// <summary>The file-name token of a rate.</summary>
    public static string RateToken(int ratePerSecond) => ratePerSecond <= 0 ? "max" : ratePerSecond.ToString(CultureInfo.InvariantCulture);

    /// <summary>Nanoseconds as microseconds with a precision that suits the magnitude.</summary>
    public static string Us(long ns)
    {
        double us = ns / 1000.0;
        return us.ToString(us < 10 ? "0.00" : us < 1000 ? "0.0" : "N0", CultureInfo.InvariantCulture);
    }

    private static void WriteRow(TextWriter w, ConfigRateSummary s, ConfigRateSummary? floor)
    {
        HistogramBase h = s.Combined;
        long count = 0, allocated = 0;
        int gen0 = 0, gen1 = 0, gen2 = 0;
        double rateSum = 0;
        long minP50 = long.MaxValue, maxP50 = 0, minP99 = long.MaxValue, maxP99 = 0;
        bool complete = true;
        bool saturated = false;
        foreach (RunResult r in s.Runs)
        {
            ProcessWindow total = r.Total;
            count += r.Count;
            allocated += total.AllocatedBytes;
            gen0 += total.Gen0;
            gen1 += total.Gen1;
            gen2 += total.Gen2;
            rateSum += r.AchievedRate;
            complete &= r.Completed && r.Errors == 0;
            saturated |= r.Saturated;
            long p50 = r.Histogram.GetValueAtPercentile(50), p99 = r.Histogram.GetValueAtPercentile(99);
            minP50 = Math.Min(minP50, p50);
            maxP50 = Math.Max(maxP50, p50);
            minP99 = Math.Min(minP99, p99);
            maxP99 = Math.Max(maxP99, p99);
        }
        string name = (complete ? s.Config : s.Config + " (INCOMPLETE: errors or timeout)") + (saturated ? " (SATURATED)" : "");
        w.Write($"| {name}");
        foreach (double p in Percentiles) w.Write($" | {Us(h.GetValueAtPercentile(p))}");
        w.Write($" | {Us(h.GetMaxValue())}");
        w.Write($" | {(s.Runs.Count == 0 ? 0 : rateSum / s.Runs.Count):N0}");
        w.Write($" | {gen0}/{gen1}/{gen2}");
        w.Write($" | {(count == 0 ? 0 : (double)allocated / count):0.00}");
        w.Write($" | {Us(minP50)}–{Us(maxP50)} | {Us(minP99)}–{Us(maxP99)}");
        w.Write($" | {Ratio(h, floor, 50)} | {Ratio(h, floor, 99)} | {Ratio(h, floor, 99.9)} | n/a |");
        w.WriteLine();
    }

    private static string Ratio(HistogramBase h, ConfigRateSummary? floor, double percentile)
    {
        if (floor is null) return "n/a";
        long baseline = floor.Combined.GetValueAtPercentile(percentile);
        return baseline <= 0 ? "n/a" : (h.GetValueAtPercentile(percentile) / (double)baseline).ToString("0.00", CultureInfo.InvariantCulture) + "×";
    }
}
