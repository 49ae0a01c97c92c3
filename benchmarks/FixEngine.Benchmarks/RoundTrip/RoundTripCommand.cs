using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Net.Sockets;
using System.Text;
using FixEngine.Benchmarks.Diagnostics;
using HdrHistogram;
using FixEngine.Timing;

namespace FixEngine.Benchmarks.RoundTrip;

/// <summary>The <c>roundtrip</c> command: measures every selected configuration at every rate and writes the report,
/// the percentile-distribution files and the SVG plots.</summary>
/// <remarks>
/// <c>dotnet run -c Release --project benchmarks/FixEngine.Benchmarks -- roundtrip [--quick|--full]
/// [--rates 2000,10000,50000,max] [--configs floor,codec,...] [--out dir] [--runs n] [--warmup n] [--measured n]
/// [--list] [--self-check]</c>
/// </remarks>
public static class RoundTripCommand
{
    /// <summary>The command name dispatched from Program.</summary>
    public const string Name = "roundtrip";

    /// <summary>Runs the command with the arguments after <c>roundtrip</c>; returns the exit code.</summary>
    public static int Run(string[] args)
    {
        RoundTripOptions options;
        try
        {
            options = RoundTripOptions.Parse(args);
        }
        catch (ArgumentException e)
        {
            Console.Error.WriteLine($"roundtrip: {e.Message}\nusage: {RoundTripOptions.Usage}");
            return 2;
        }
        if (options.Help)
        {
            Console.WriteLine("usage: " + RoundTripOptions.Usage);
            return 0;
        }
        if (options.AcceptorOnlyRole is string role) return ChildProcessSystem.RunAcceptorOnly(role);
        if (options.SelfCheck) return RoundTripSelfCheck.Run(Console.Out);
        if (options.List)
        {
            foreach (RoundTripConfiguration c in RoundTripConfigurations.All)
            {
                Console.WriteLine($"{c.Key,-30} {(c.IsAvailable ? "available" : "unavailable")}  {c.Description}{(c.IsAvailable ? "" : " — " + c.UnavailableReason)}");
            }
            return 0;
        }
        return Measure(options, args);
    }

    private static int Measure(RoundTripOptions options, string[] args)
    {
        OrderFlowMessages.MeasureTypicalSizes(out int orderLength, out int reportLength);
        var setup = new RoundTripSetup(orderLength, reportLength, options.OrdersPerRun);
        string machine = MachineInfo.Describe();
        string loadBefore = MachineInfo.LoadAverage();
        Directory.CreateDirectory(options.Output);
        Console.WriteLine($"roundtrip {options.Mode}: {machine}; load average {loadBefore}");
        Console.WriteLine($"configs {string.Join(',', options.Configs)}; rates {string.Join(',', options.Rates.ConvertAll(MarkdownReport.RateToken))}; runs {options.Runs}; output {Path.GetFullPath(options.Output)}");

        // Peers are built (at most once each) before the first run; a configuration whose peer cannot be built is
        // reported as not measured, with the reason.
        var unavailable = new List<RoundTripConfiguration>();
        var selected = new List<RoundTripConfiguration>();
        foreach (string key in options.Configs)
        {
            RoundTripConfiguration config = RoundTripConfigurations.Find(key)!;
            string? reason = config.UnavailableReason;
            foreach (PeerKind peer in config.Peers) reason ??= PeerPrograms.EnsureBuilt(peer);
            if (reason is not null || !config.IsAvailable)
            {
                Console.WriteLine($"  {config.Key}: not measured — {reason}");
                unavailable.Add(config with { UnavailableReason = reason });
                continue;
            }
            selected.Add(config);
        }

        var results = new List<ConfigRateSummary>();
        var phases = new RunPhases();
        long startNs = HighResTime.NowNs();
        foreach (int rate in options.Rates)
        {
            // Alternating runs: run 1 of every configuration, then run 2, ..., so a slow phase of the shared machine
            // lands on every configuration rather than on all runs of one.
            var runsByConfig = new Dictionary<string, List<RunResult>>(StringComparer.Ordinal);
            foreach (RoundTripConfiguration config in selected) runsByConfig[config.Key] = [];
            RunPlan plan = options.PlanFor(rate);
            for (int run = 0; run < options.Runs; run++)
            {
                foreach (RoundTripConfiguration config in selected)
                {
                    long runStartNs = HighResTime.NowNs();
                    RunResult result;
                    try
                    {
                        if (config.PeerInitiator is not null)
                        {
                            result = config.PeerInitiator(setup).Run(plan);
                        }
                        else
                        {
                            using IRoundTripSystem system = config.Factory!(setup);
                            result = new RoundTripRunner().Run(system, plan);
                        }
                    }
                    catch (Exception e) when (e is InvalidOperationException or SocketException or IOException or ObjectDisposedException or FixEngine.Config.ConfigException or System.ComponentModel.Win32Exception)
                    {
                        Console.Error.WriteLine($"  {config.Key} {MarkdownReport.RateLabel(rate)} run {run + 1} failed: {e.Message}");
                        result = RunResult.Failed(config.Key, rate, $"{e.GetType().Name}: {e.Message}");
                    }
                    runsByConfig[config.Key].Add(result);
                    phases = phases.Plus(result.Phases);
                    ProcessWindow total = result.Total;
                    string fixEngine = result.FixEngineMeasured ? $"gc={total.Gen0}/{total.Gen1}/{total.Gen2} B/msg={result.BytesPerMessage:0.00}{(result.Child is null ? "" : " (both processes)")}" : "gc=n/a (no FixEngine side)";
                    string peer = result.Peer is ProcessWindow p ? $" peer gc={p.Gen0}/{p.Gen1}/{p.Gen2} B/msg={(result.Count == 0 ? 0 : (double)p.AllocatedBytes / result.Count):N0}" : "";
                    Console.WriteLine($"  [{(HighResTime.NowNs() - startNs) / 1e9,5:0.0}s +{(HighResTime.NowNs() - runStartNs) / 1e9:0.0}s] {config.Key,-26} {MarkdownReport.RateLabel(rate),-18} run {run + 1}: n={result.Count:N0}/{result.Sent:N0} p50={P(result, 50)}µs p99={P(result, 99)}µs p99.9={P(result, 99.9)}µs max={(result.Histogram.TotalCount == 0 ? "-" : MarkdownReport.Us(Histograms.Max(result.Histogram)))}µs rate={result.AchievedRate:N0}/s {fixEngine}{peer}{(result.Saturated ? " SATURATED" : "")}{(result.Completed ? "" : " INCOMPLETE")}");
                    Console.WriteLine($"      {result.Phases}; warm-up orders {result.WarmupSent:N0}{(result.JitSettled ? "" : " (JIT still compiling at the warm-up bound)")}");
                    if (!result.Completed) Console.WriteLine($"      {result.Verdict}");
                    if (result.Sessions is { } sessions && (!result.Completed || sessions.Any(c => c.HadTrouble)))
                    {
                        foreach (SessionSideCounters c in sessions) Console.WriteLine($"      {c}");
                    }
                }
            }
            foreach (RoundTripConfiguration config in selected)
            {
                var summary = new ConfigRateSummary(config.Key, rate, runsByConfig[config.Key]);
                results.Add(summary);
                string hgrm = Path.Combine(options.Output, $"{config.Key}-{MarkdownReport.RateToken(rate)}.hgrm");
                using var writer = new StreamWriter(hgrm, false, new UTF8Encoding(false));
                summary.Combined.OutputPercentileDistribution(writer, 5, 1000.0);
            }
            WritePlot(options.Output, rate, results);
        }

        var notMeasured = new List<RoundTripConfiguration>(unavailable);
        long wallNs = HighResTime.NowNs() - startNs;
        string loadAfter = MachineInfo.LoadAverage();
        var context = new ReportContext(
            machine,
            "dotnet run -c Release --project benchmarks/FixEngine.Benchmarks -- roundtrip " + string.Join(' ', args),
            options.Mode,
            options.WarmupMaxSeconds > 0
                ? $"min({options.WarmupCount:N0}, {options.WarmupMaxSeconds:0.##} s)"
                : $"{options.WarmupCount:N0}",
            (options.MaxSecondsPerRun > 0
                ? $"min({options.MeasuredCount:N0}, {options.MaxSecondsPerRun:0.##} s × rate) measured orders (closed loop: at most {options.MaxSecondsPerRun:0.##} s)"
                : $"{options.MeasuredCount:N0} measured orders")
            + (options.SendLagLimitSeconds > 0 ? $"; an open-loop sender {options.SendLagLimitSeconds:0.##} s behind schedule stops (run marked saturated)" : ""),
            options.Runs,
            orderLength,
            reportLength)
        {
            LoadAverage = $"{loadBefore} at start, {loadAfter} at end",
            WallTime = $"{wallNs / 1e9:0.0} s ({phases})",
        };
        string reportPath = Path.Combine(options.Output, "report.md");
        using (var writer = new StreamWriter(reportPath, false, new UTF8Encoding(false)))
        {
            MarkdownReport.Write(writer, context, results, notMeasured);
        }
        File.WriteAllText(Path.Combine(options.Output, "machine.txt"), machine + Environment.NewLine);
        Console.WriteLine($"report: {Path.GetFullPath(reportPath)}");
        Console.WriteLine($"load average {loadAfter}");
        Console.WriteLine($"total wall time {wallNs / 1e9:0.0} s ({phases})");
        foreach (ConfigRateSummary s in results)
        {
            foreach (RunResult r in s.Runs)
            {
                if (!r.Completed || r.Errors != 0) return 1;
            }
        }
        return 0;
    }

    private static string P(RunResult r, double percentile) =>
        r.Histogram.TotalCount == 0 ? "-" : MarkdownReport.Us(Histograms.Percentile(r.Histogram, percentile));

    private static void WritePlot(string output, int rate, List<ConfigRateSummary> results)
    {
        var series = new List<PlotSeries>();
        foreach (ConfigRateSummary s in results)
        {
            if (s.RatePerSecond == rate) series.Add(PlotSeries.FromHistogram(s.Config, s.Combined));
        }
        if (series.Count == 0) return;
        string path = Path.Combine(output, $"latency-{MarkdownReport.RateToken(rate)}.svg");
        using var writer = new StreamWriter(path, false, new UTF8Encoding(false));
        PercentilePlot.Write(writer, $"Round-trip latency by percentile, {MarkdownReport.RateLabel(rate)}", series);
    }
}
