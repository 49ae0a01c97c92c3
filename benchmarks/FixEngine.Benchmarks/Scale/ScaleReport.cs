using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Text;
using FixEngine.Benchmarks.RoundTrip;

namespace FixEngine.Benchmarks.Scale;

/// <summary>Writes report.md (tables), results.csv (every figure) and scale.svg (four panels against N, log axes)
/// into the output directory.</summary>
internal static class ScaleReport
{
    private static readonly CultureInfo Inv = CultureInfo.InvariantCulture;

    public static void Write(ScaleOptions o, IReadOnlyList<ScaleResult> results, TimeSpan wall)
    {
        File.WriteAllText(Path.Combine(o.OutDirectory, "report.md"), Markdown(o, results, wall));
        File.WriteAllText(Path.Combine(o.OutDirectory, "results.csv"), Csv(results));
        File.WriteAllText(Path.Combine(o.OutDirectory, "scale.svg"), Svg(results));
    }

    private static string F(double? v, string format) => v is double d ? d.ToString(format, Inv) : "-";

    private static string Mb(long? bytes) => bytes is long b ? (b / 1048576.0).ToString("0.0", Inv) : "-";

    public static string Markdown(ScaleOptions o, IReadOnlyList<ScaleResult> results, TimeSpan wall)
    {
        var s = new StringBuilder();
        s.AppendLine("# Scale: N sessions on one acceptor").AppendLine();
        s.AppendLine(Inv, $"- Machine: {MachineInfo.Describe()}; load average at the end {MachineInfo.LoadAverage()}; wall time {wall.TotalMinutes:0.0} min");
        s.AppendLine(Inv, $"- Scenario: all N initiators (FixEngine, completion receive mode, one process) start at once; HeartBtInt={o.HeartBtInt}; idle {o.IdleSeconds:0} s (heartbeats only);");
        s.AppendLine(Inv, $"  then {o.BusyShare:P1} of the sessions (at least 1) send NewOrderSingle open loop at {o.RatePerBusySession}/s each from one sender thread ({(o.SenderSpins ? "spinning the last 120 µs before each order" : "sleeping between orders")}), {o.WarmupSeconds:0} s warm-up and {o.BusySeconds:0} s measured; the acceptor answers each with an ExecutionReport.");
        s.AppendLine(Inv, $"- FixEngine acceptor: engine defaults except ReceiveMode={o.ReceiveMode} and the store; RSS/threads/CPU from /proc of the acceptor process; GC heap after a full collection (FixEngine only).");
        s.AppendLine("- RSS/session: (RSS at the phase's end - RSS of the started acceptor before any logon) / N. CPU/idle session: acceptor CPU over the idle window / window / N.");
        s.AppendLine("- TestRequests: sent by the acceptor (it missed a heartbeat) / by the initiators; disconnects: logouts after all had logged on. Latency: order intended send time → ExecutionReport arrival.").AppendLine();
        s.AppendLine("| acceptor | N | logon all (s) | RSS start (MB) | RSS idle (MB) | KB/idle session | KB/idle session vs N=1 | RSS busy (MB) | KB/session busy | GC heap idle (MB) | GC committed idle (MB) | GC heap busy (MB) | threads idle/busy | CPU µs/s per idle session | TestReq acc/init | disconnects | busy | replies/sent | p50 µs | p99 µs | p99.9 µs | max µs |");
        s.AppendLine("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        foreach (ScaleResult r in results)
        {
            if (r.Error is not null && r.LogonSeconds is null)
            {
                s.AppendLine(Inv, $"| {ScaleOptions.Key(r.Acceptor)} | {r.Sessions:N0} | FAILED: {r.Error.Replace("|", "/")} | | | | | | | | | | | | | | | | | | | |");
                continue;
            }
            s.AppendLine(Inv, $"| {ScaleOptions.Key(r.Acceptor)} | {r.Sessions:N0} | {F(r.LogonSeconds, "0.00")} | {Mb(r.RssStartBytes)} | {Mb(r.RssIdleBytes)} | {F(r.RssPerIdleSessionKb, "0.0")} | {F(r.RssPerIdleSessionAgainstKb(results.FirstOrDefault(x => x.Acceptor == r.Acceptor && x.Sessions == 1 && x.Error is null)), "0.0")} | {Mb(r.RssBusyBytes)} | {F(r.RssPerBusySessionKb, "0.0")} | "
                + $"{Mb(r.GcHeapIdleBytes)} | {Mb(r.GcCommittedIdleBytes)} | {Mb(r.GcHeapBusyBytes)} | {r.ThreadsIdle}/{r.ThreadsBusy} | {F(r.CpuPerIdleSessionUsPerS, "0.00")} | {r.TestRequestsByAcceptor}/{r.TestRequestsByInitiators} | {r.Disconnects} | "
                + $"{r.Busy} | {r.Replies:N0}/{r.Sent:N0} | {F(r.P50Us, "0")} | {F(r.P99Us, "0")} | {F(r.P999Us, "0")} | {F(r.MaxUs, "0")} |");
        }
        foreach (ScaleResult r in results.Where(r => r.Error is not null && r.LogonSeconds is not null))
        {
            s.AppendLine().AppendLine(Inv, $"- {ScaleOptions.Key(r.Acceptor)} N={r.Sessions:N0}: {r.Error}");
        }
        s.AppendLine().AppendLine("![scale](scale.svg)");
        return s.ToString();
    }

    private static string Csv(IReadOnlyList<ScaleResult> results)
    {
        var s = new StringBuilder("acceptor,sessions,busy,error,logged_on,logon_s,rss_start,rss_idle,rss_idle_after_gc,rss_busy,gc_heap_idle,gc_committed_idle,gc_heap_busy,gc_committed_busy,threads_idle,threads_busy,cpu_idle_s,idle_window_s,cpu_busy_s,busy_window_s,testreq_acceptor,testreq_initiators,disconnects,sent,replies,reply_errors,measured,p50_us,p99_us,p999_us,max_us,console,acceptor_allocated_busy,acceptor_gc_busy,console_polls,console_poll_errors,console_p50_ms,console_max_ms,console_bytes,harness_allocated_busy,harness_gc_busy\n");
        foreach (ScaleResult r in results)
        {
            s.AppendLine(string.Join(",", new object?[]
            {
                ScaleOptions.Key(r.Acceptor), r.Sessions, r.Busy, r.Error is null ? "" : "\"" + r.Error.Replace("\"", "'") + "\"", r.LoggedOn, r.LogonSeconds,
                r.RssStartBytes, r.RssIdleBytes, r.RssIdleAfterGcBytes, r.RssBusyBytes, r.GcHeapIdleBytes, r.GcCommittedIdleBytes, r.GcHeapBusyBytes, r.GcCommittedBusyBytes,
                r.ThreadsIdle, r.ThreadsBusy, r.CpuIdleSeconds, r.IdleWindowSeconds, r.CpuBusySeconds, r.BusyWindowSeconds,
                r.TestRequestsByAcceptor, r.TestRequestsByInitiators, r.Disconnects, r.Sent, r.Replies, r.ReplyErrors, r.Measured, r.P50Us, r.P99Us, r.P999Us, r.MaxUs,
                r.ConsoleMode, r.AcceptorAllocatedBusyBytes, r.AcceptorGcBusy, r.ConsolePolls, r.ConsolePollErrors, r.ConsoleP50Ms, r.ConsoleMaxMs, r.ConsoleBytes,
                r.HarnessAllocatedBusyBytes, r.HarnessGcBusy,
            }.Select(v => Convert.ToString(v, Inv))));
        }
        return s.ToString();
    }

    private static readonly string[] Colors = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd"];

    /// <summary>Four panels against N (log scale): KB RSS per idle session, threads, logon time of all N, busy p99.</summary>
    public static string Svg(IReadOnlyList<ScaleResult> results)
    {
        (string Title, Func<ScaleResult, double?> Value, bool LogY)[] panels =
        [
            ("RSS per idle session (KB)", r => r.RssPerIdleSessionKb, false),
            ("acceptor threads (idle)", r => r.ThreadsIdle, true),
            ("logon of all N (s)", r => r.LogonSeconds, false),
            ("busy sessions' round trip p99 (µs)", r => r.P99Us, true),
        ];
        const int pw = 360, ph = 260, ml = 60, mt = 30, mb = 40, mr = 15;
        var kinds = results.Select(r => r.Acceptor).Distinct().ToList();
        var s = new StringBuilder();
        int width = 2 * pw, height = 2 * ph + 30;
        s.Append(Inv, $"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" font-family=\"sans-serif\" font-size=\"11\">\n");
        s.Append(Inv, $"<rect width=\"{width}\" height=\"{height}\" fill=\"white\"/>\n");
        for (int k = 0; k < kinds.Count; k++)
        {
            s.Append(Inv, $"<rect x=\"{10 + k * 140}\" y=\"{height - 20}\" width=\"12\" height=\"12\" fill=\"{Colors[k % Colors.Length]}\"/><text x=\"{26 + k * 140}\" y=\"{height - 10}\">{ScaleOptions.Key(kinds[k])}</text>\n");
        }
        double nMax = Math.Max(10, results.Count == 0 ? 10 : results.Max(r => r.Sessions));
        double xMaxLog = Math.Ceiling(Math.Log10(nMax));
        for (int p = 0; p < panels.Length; p++)
        {
            int ox = (p % 2) * pw, oy = (p / 2) * ph;
            int x0 = ox + ml, y0 = oy + ph - mb, x1 = ox + pw - mr, y1 = oy + mt;
            (string title, Func<ScaleResult, double?> value, bool logY) = panels[p];
            var points = results.Where(r => r.Error is null && value(r) is double v && (!logY || v > 0)).ToList();
            double yMax = points.Count == 0 ? 1 : points.Max(r => value(r)!.Value);
            double yMin = logY && points.Count > 0 ? points.Min(r => value(r)!.Value) : 0;
            double lo = logY ? Math.Floor(Math.Log10(Math.Max(yMin, 1e-3))) : 0;
            double hi = logY ? Math.Max(lo + 1, Math.Ceiling(Math.Log10(Math.Max(yMax, 1e-3)))) : NiceCeiling(yMax);
            double X(double n) => x0 + (x1 - x0) * Math.Log10(n) / xMaxLog;
            double Y(double v) => logY ? y0 - (y0 - y1) * (Math.Log10(v) - lo) / (hi - lo) : y0 - (y0 - y1) * v / hi;
            s.Append(Inv, $"<text x=\"{ox + pw / 2}\" y=\"{oy + 18}\" text-anchor=\"middle\" font-size=\"13\">{title}</text>\n");
            s.Append(Inv, $"<line x1=\"{x0}\" y1=\"{y0}\" x2=\"{x1}\" y2=\"{y0}\" stroke=\"black\"/><line x1=\"{x0}\" y1=\"{y0}\" x2=\"{x0}\" y2=\"{y1}\" stroke=\"black\"/>\n");
            for (int e = 0; e <= xMaxLog; e++)
            {
                double x = X(Math.Pow(10, e));
                s.Append(Inv, $"<line x1=\"{x:0.0}\" y1=\"{y0}\" x2=\"{x:0.0}\" y2=\"{y1}\" stroke=\"#ddd\"/><text x=\"{x:0.0}\" y=\"{y0 + 14}\" text-anchor=\"middle\">{Math.Pow(10, e):N0}</text>\n");
            }
            s.Append(Inv, $"<text x=\"{(x0 + x1) / 2}\" y=\"{y0 + 30}\" text-anchor=\"middle\">sessions N</text>\n");
            for (int t = 0; t <= 4; t++)
            {
                double v = logY ? Math.Pow(10, lo + (hi - lo) * t / 4) : hi * t / 4;
                double y = Y(v);
                s.Append(Inv, $"<line x1=\"{x0}\" y1=\"{y:0.0}\" x2=\"{x1}\" y2=\"{y:0.0}\" stroke=\"#eee\"/><text x=\"{x0 - 4}\" y=\"{y + 4:0.0}\" text-anchor=\"end\">{Label(v)}</text>\n");
            }
            for (int k = 0; k < kinds.Count; k++)
            {
                var line = points.Where(r => r.Acceptor == kinds[k]).OrderBy(r => r.Sessions).ToList();
                if (line.Count == 0) continue;
                string color = Colors[k % Colors.Length];
                s.Append("<polyline fill=\"none\" stroke=\"").Append(color).Append("\" stroke-width=\"2\" points=\"");
                foreach (ScaleResult r in line) s.Append(Inv, $"{X(r.Sessions):0.0},{Y(value(r)!.Value):0.0} ");
                s.Append("\"/>\n");
                foreach (ScaleResult r in line) s.Append(Inv, $"<circle cx=\"{X(r.Sessions):0.0}\" cy=\"{Y(value(r)!.Value):0.0}\" r=\"3\" fill=\"{color}\"/>\n");
            }
        }
        s.Append("</svg>\n");
        return s.ToString();
    }

    private static double NiceCeiling(double v)
    {
        if (v <= 0) return 1;
        double m = Math.Pow(10, Math.Floor(Math.Log10(v)));
        foreach (double f in new[] { 1, 2, 2.5, 5, 10 }) if (f * m >= v) return f * m;
        return 10 * m;
    }

    private static string Label(double v) => v >= 100 ? v.ToString("N0", Inv) : v >= 1 ? v.ToString("0.#", Inv) : v.ToString("0.###", Inv);
}
