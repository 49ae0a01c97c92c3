using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
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
        Measured = runs.Where(r => r.HasSamples).ToList();
        Combined = Histograms.Create();
        foreach (RunResult run in runs) Combined.Add(run.Histogram);
    }

    /// <summary>Configuration key.</summary>
    public string Config { get; }

    /// <summary>Target rate, 0 = max (closed loop).</summary>
    public int RatePerSecond { get; }

    /// <summary>The runs in order.</summary>
    public IReadOnlyList<RunResult> Runs { get; }

    /// <summary>The runs with samples (<see cref="RunResult.HasSamples"/>): percentiles, ranges and rates are over these,
    /// so a run that never started, or whose peer stalled before the window, does not pull a median towards 0.</summary>
    public IReadOnlyList<RunResult> Measured { get; }

    /// <summary>Runs that failed before they measured (<see cref="RunResult.Failure"/>).</summary>
    public int FailedRuns => Runs.Count(r => r.Failure is not null);

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
        w.WriteLine($"- Mode: {context.Mode}; per run {context.WarmupDescription} warm-up orders (closed loop, not recorded), then {context.MeasuredDescription}; {context.Runs} run(s) per configuration and rate, alternating (run 1 of every configuration, then run 2, ...)");
        w.WriteLine($"- Messages: NewOrderSingle {context.OrderLength} B, ExecutionReport {context.ReportLength} B (the floor sends blocks of the same sizes)");
        w.WriteLine("- Latency: from the order's intended send time (open-loop schedule, carried in ClOrdID) to receipt of the reply, so stalls are charged to every order they delay (coordinated-omission corrected), recorded in HdrHistogram (`.hgrm` files: all runs combined). `max` = closed loop, one order in flight, intended = actual send time. The client that times the orders is the initiator: the harness for `session-*` and `fixengine*-<peer>` configurations, the QuickFIX peer program for `qfcpp-*` and `qfn-*` (same pacing and same plan).");
        w.WriteLine("- Percentile columns: the median over the runs of each run's percentile; worst = the largest over the runs.");
        w.WriteLine("- ×QF C++: ratio to `" + PeerConfigurations.BaselineKey + "` (QuickFIX C++ initiator → QuickFIX C++ acceptor) at the same rate and percentile. Same client: `qfcpp-fixengine*` vs `qfcpp-qfcpp` compares acceptors under the QuickFIX C++ client; `fixengine*-qfcpp` vs `qfcpp-qfcpp` compares initiators against the QuickFIX C++ acceptor.");
        w.WriteLine("- ×floor, ×floor-2proc: ratio of the p50 to the raw-TCP floor's with both ends in one process (`floor`) and with its acceptor in a child process (`floor-2proc`), as every `-2proc`, `qf*` and `fixengine-<peer>` configuration runs: each round trip then crosses between two processes' threads, as the floor's does not.");
        w.WriteLine("- FixEngine GC and B/msg: process-wide `GC.CollectionCount` (gen 0/1/2) and `GC.GetTotalAllocatedBytes(true)` deltas over the measured windows of the processes running FixEngine, summed over runs (for `-2proc` both; n/a when no side is FixEngine). Peer: the QuickFIX/n processes' own counts over the same window (QuickFIX C++ has no GC: n/a).");
        w.WriteLine("- Achieved msg/s: replies in the window / (last reply − first intended send), mean of the runs; below the target rate the system did not keep up. SATURATED: the open-loop sender fell too far behind and stopped early, so the orders it never sent are missing from the percentiles (they would only be worse). Sent / replies: orders sent in the measured windows and replies received, all runs; a difference is a lost or still-missing reply.");
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
            w.WriteLine("| Configuration | p50 µs | p90 µs | p99 µs | p99.9 µs | p99.99 µs | worst µs | achieved msg/s | sent / replies | FixEngine GC 0/1/2 | FixEngine B/msg | peer GC 0/1/2, B/msg | p50 runs min–max | p99 runs min–max | ×QF C++ p50 | ×QF C++ p99 | ×QF C++ p99.9 | ×floor p50 | ×floor-2proc p50 |");
            w.WriteLine("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|");
            ConfigRateSummary? floor = Find(results, rate, RoundTripConfigurations.FloorKey);
            ConfigRateSummary? floor2 = Find(results, rate, RoundTripConfigurations.FloorTwoProcessKey);
            ConfigRateSummary? baseline = Find(results, rate, PeerConfigurations.BaselineKey);
            foreach (ConfigRateSummary s in results)
            {
                if (s.RatePerSecond != rate) continue;
                WriteRow(w, s, floor, floor2, baseline);
            }
            if (notMeasured.Count > 0)
            {
                w.WriteLine($"| {notMeasured.Count} other configuration(s) | not measured (see below) | | | | | | | | | | | | | n/a | n/a | n/a | n/a | n/a |");
            }
            w.WriteLine();
        }

        WriteSaturation(w, results);

        w.WriteLine("## Runs");
        w.WriteLine();
        w.WriteLine("| Configuration | rate | run | replies / sent (planned) | warm-up | p50 µs | p99 µs | p99.9 µs | worst µs | achieved msg/s | GC 0/1/2 harness proc | allocated B harness proc | GC 0/1/2 FixEngine acceptor proc | allocated B FixEngine acceptor proc | peer GC 0/1/2 | peer allocated B | FixEngine B/msg | errors | complete | wall time |");
        w.WriteLine("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|---|");
        foreach (ConfigRateSummary s in results)
        {
            for (int i = 0; i < s.Runs.Count; i++)
            {
                RunResult r = s.Runs[i];
                string child = r.Child is ProcessWindow c ? $"{c.Gen0}/{c.Gen1}/{c.Gen2} | {c.AllocatedBytes:N0}" : "n/a | n/a";
                string peer = r.Peer is ProcessWindow p ? $"{p.Gen0}/{p.Gen1}/{p.Gen2} | {p.AllocatedBytes:N0}" : "n/a | n/a";
                string own = r.FixEngineMeasured ? $"{r.Gen0}/{r.Gen1}/{r.Gen2} | {r.AllocatedBytes:N0}" : "n/a (no FixEngine) | n/a";
                string complete = r.Verdict + (r.JitSettled ? "" : " (JIT still compiling after warm-up)");
                // A run without samples has no latency: "-" rather than a 0.00 that reads as one.
                string Latency(double percentile) => r.HasSamples ? Us(Histograms.Percentile(r.Histogram, percentile)) : "-";
                w.WriteLine($"| {s.Config} | {RateLabel(s.RatePerSecond)} | {i + 1} | {r.Count:N0} / {r.Sent:N0} ({r.Planned:N0}) | {r.WarmupSent:N0} | {Latency(50)} | {Latency(99)} | {Latency(99.9)} | {(r.HasSamples ? Us(Histograms.Max(r.Histogram)) : "-")} | {r.AchievedRate:N0} | {own} | {child} | {peer} | {(r.FixEngineMeasured ? r.BytesPerMessage.ToString("0.00", CultureInfo.InvariantCulture) : "n/a")} | {r.Errors} | {complete} | {r.Phases.TotalNs / 1e9:0.0} s |");
            }
        }
        w.WriteLine();

        if (notMeasured.Count > 0)
        {
            w.WriteLine("## Not measured");
            w.WriteLine();
            foreach (RoundTripConfiguration c in notMeasured)
            {
                w.WriteLine($"- `{c.Key}` ({c.Description}): {c.UnavailableReason}");
            }
            w.WriteLine();
        }
    }

    /// <summary>Per configuration: the highest open-loop rate it sustained, the lowest it did not, and how many
    /// replies went missing over every measured window (sent − replies).</summary>
    private static void WriteSaturation(TextWriter w, IReadOnlyList<ConfigRateSummary> results)
    {
        var configs = new List<string>();
        foreach (ConfigRateSummary s in results)
        {
            if (!configs.Contains(s.Config)) configs.Add(s.Config);
        }
        w.WriteLine("## Saturation and lost replies");
        w.WriteLine();
        w.WriteLine("A rate is sustained when no run was SATURATED and every run achieved at least 95% of it. Lost = orders sent in the measured windows without a reply when the run ended (after up to the reply timeout), all rates and runs. Peak RSS: the largest peak resident set size (VmHWM) of the configuration's child processes (the FixEngine acceptor child, the QuickFIX peers) at the end of a run, over every rate; n/a for one-process configurations.");
        w.WriteLine();
        w.WriteLine("| Configuration | sustained up to msg/s | first rate not sustained (achieved msg/s) | closed loop msg/s | orders sent | replies | lost | child peak RSS MB |");
        w.WriteLine("|---|--:|--:|--:|--:|--:|--:|--:|");
        foreach (string config in configs)
        {
            int sustained = 0;
            int notSustained = int.MaxValue;
            double notSustainedAchieved = 0;
            double closedLoop = double.NaN;
            long sent = 0, replies = 0;
            long? peakRss = null;
            foreach (ConfigRateSummary s in results)
            {
                if (s.Config != config) continue;
                foreach (RunResult r in s.Runs)
                {
                    if (r.ChildPeakResidentBytes is long rss) peakRss = Math.Max(peakRss ?? 0, rss);
                }
                bool ok = s.Runs.Count > 0;
                double achieved = 0;
                foreach (RunResult r in s.Runs)
                {
                    sent += r.Sent;
                    replies += r.Count;
                    if (r.HasSamples) achieved += r.AchievedRate / s.Measured.Count;
                    ok &= !r.Saturated && r.Completed && (s.RatePerSecond <= 0 || r.AchievedRate >= 0.95 * s.RatePerSecond);
                }
                if (s.RatePerSecond <= 0)
                {
                    closedLoop = achieved;
                }
                else if (ok)
                {
                    sustained = Math.Max(sustained, s.RatePerSecond);
                }
                else if (s.RatePerSecond < notSustained)
                {
                    notSustained = s.RatePerSecond;
                    notSustainedAchieved = s.Measured.Count == 0 ? double.NaN : achieved;
                }
            }
            string first = notSustained == int.MaxValue ? "none measured"
                : double.IsNaN(notSustainedAchieved) ? $"{notSustained:N0} (no run with samples)" : $"{notSustained:N0} ({notSustainedAchieved:N0})";
            string closed = double.IsNaN(closedLoop) ? "n/a" : closedLoop.ToString("N0", CultureInfo.InvariantCulture);
            string rssText = peakRss is long b ? (b / 1048576.0).ToString("N0", CultureInfo.InvariantCulture) : "n/a";
            w.WriteLine($"| {config} | {(sustained == 0 ? "none" : sustained.ToString("N0", CultureInfo.InvariantCulture))} | {first} | {closed} | {sent:N0} | {replies:N0} | {sent - replies:N0} | {rssText} |");
        }
        w.WriteLine();
    }

    private static ConfigRateSummary? Find(IReadOnlyList<ConfigRateSummary> results, int rate, string key)
    {
        foreach (ConfigRateSummary s in results)
        {
            if (s.RatePerSecond == rate && s.Config == key) return s;
        }
        return null;
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

    /// <summary>The median over the runs of each run's value at <paramref name="percentile"/> (the mean of the two middle
    /// runs for an even count); 0 without runs.</summary>
    public static long MedianOfRuns(ConfigRateSummary s, double percentile)
    {
        if (s.Measured.Count == 0) return 0;
        var values = new List<long>(s.Measured.Count);
        foreach (RunResult r in s.Measured) values.Add(Histograms.Percentile(r.Histogram, percentile));
        values.Sort();
        int n = values.Count;
        return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
    }

    private static void WriteRow(TextWriter w, ConfigRateSummary s, ConfigRateSummary? floor, ConfigRateSummary? floor2, ConfigRateSummary? baseline)
    {
        long count = 0, sent = 0, allocated = 0, peerAllocated = 0, worst = 0;
        int gen0 = 0, gen1 = 0, gen2 = 0, peerGen0 = 0, peerGen1 = 0, peerGen2 = 0;
        double rateSum = 0;
        long minP50 = long.MaxValue, maxP50 = 0, minP99 = long.MaxValue, maxP99 = 0;
        bool complete = true, saturated = false, fixEngine = false, peer = false;
        foreach (RunResult r in s.Runs)
        {
            complete &= r.Completed && r.Errors == 0;
            ProcessWindow total = r.Total;
            count += r.Count;
            sent += r.Sent;
            allocated += total.AllocatedBytes;
            gen0 += total.Gen0;
            gen1 += total.Gen1;
            gen2 += total.Gen2;
            fixEngine |= r.FixEngineMeasured && r.Failure is null;
            if (r.Peer is ProcessWindow p)
            {
                peer = true;
                peerGen0 += p.Gen0;
                peerGen1 += p.Gen1;
                peerGen2 += p.Gen2;
                peerAllocated += p.AllocatedBytes;
            }
            saturated |= r.Saturated;
            if (!r.HasSamples) continue;
            rateSum += r.AchievedRate;
            long p50 = Histograms.Percentile(r.Histogram, 50), p99 = Histograms.Percentile(r.Histogram, 99);
            minP50 = Math.Min(minP50, p50);
            maxP50 = Math.Max(maxP50, p50);
            minP99 = Math.Min(minP99, p99);
            maxP99 = Math.Max(maxP99, p99);
            worst = Math.Max(worst, Histograms.Max(r.Histogram));
        }
        string name = (complete ? s.Config : s.Config + " (INCOMPLETE: errors or timeout)") + (saturated ? " (SATURATED)" : "")
            + (s.Measured.Count < s.Runs.Count
                ? $" ({s.Runs.Count - s.Measured.Count} of {s.Runs.Count} runs without samples{(s.FailedRuns > 0 ? $", {s.FailedRuns} FAILED before measuring" : "")}; the numbers are the other runs', see Runs)"
                : "");
        w.Write($"| {name}");
        if (s.Measured.Count == 0)
        {
            // Nothing measured: no number to show (a 0 would read as a latency).
            foreach (double _ in Percentiles) w.Write(" | n/a");
            w.Write(" | n/a | n/a");
            w.Write($" | {sent:N0} / {count:N0} | n/a | n/a | n/a | n/a | n/a | n/a | n/a | n/a | n/a | n/a |");
            w.WriteLine();
            return;
        }
        foreach (double p in Percentiles) w.Write($" | {Us(MedianOfRuns(s, p))}");
        w.Write($" | {Us(worst)}");
        w.Write($" | {rateSum / s.Measured.Count:N0}");
        w.Write($" | {sent:N0} / {count:N0}");
        w.Write(fixEngine ? $" | {gen0}/{gen1}/{gen2} | {(count == 0 ? 0 : (double)allocated / count):0.00}" : " | n/a | n/a");
        w.Write(peer ? $" | {peerGen0}/{peerGen1}/{peerGen2}, {(count == 0 ? 0 : (double)peerAllocated / count):N0}" : " | n/a");
        w.Write($" | {Us(minP50)}–{Us(maxP50)} | {Us(minP99)}–{Us(maxP99)}");
        w.Write($" | {Ratio(s, baseline, 50)} | {Ratio(s, baseline, 99)} | {Ratio(s, baseline, 99.9)} | {Ratio(s, floor, 50)} | {Ratio(s, floor2, 50)} |");
        w.WriteLine();
    }

    private static string Ratio(ConfigRateSummary s, ConfigRateSummary? baseline, double percentile)
    {
        if (baseline is null) return "n/a";
        long reference = MedianOfRuns(baseline, percentile);
        return reference <= 0 ? "n/a" : (MedianOfRuns(s, percentile) / (double)reference).ToString("0.00", CultureInfo.InvariantCulture) + "×";
    }
}
