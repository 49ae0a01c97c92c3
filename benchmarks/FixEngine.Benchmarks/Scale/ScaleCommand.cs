using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Threading;
using FixEngine.Benchmarks.RoundTrip;
using FixEngine.Timing;
using HdrHistogram;

namespace FixEngine.Benchmarks.Scale;

/// <summary><c>scale</c>: N sessions on one acceptor in a child process, N FixEngine initiators in this process; logon
/// time, memory, threads and CPU idle and busy, heartbeat punctuality and the busy sessions' round trip (README.md
/// beside this file).</summary>
public static class ScaleCommand
{
    public static int Run(string[] args)
    {
        if (args.Length > 0 && args[0] == "--acceptor-child") return ScaleAcceptorChild.Run(args[1..]);
        if (args.Contains("--help") || args.Contains("-h"))
        {
            Console.WriteLine("usage: " + ScaleOptions.Usage + "\n(benchmarks/FixEngine.Benchmarks/Scale/README.md says what each option and column means)");
            return 0;
        }
        ScaleOptions options;
        try
        {
            options = ScaleOptions.Parse(args);
        }
        catch (ArgumentException e)
        {
            Console.Error.WriteLine($"scale: {e.Message}\nusage: {ScaleOptions.Usage}");
            return 2;
        }
        long softLimit = ProcStats.OpenFileLimit();
        Directory.CreateDirectory(options.OutDirectory);
        var results = new List<ScaleResult>();
        var wall = Stopwatch.StartNew();
        Console.WriteLine($"scale: sessions {string.Join(",", options.Sessions)}, acceptors {string.Join(",", options.Acceptors.Select(ScaleOptions.Key))}, "
            + $"{options.BusyShare:P1} busy at {options.RatePerBusySession}/s each, HeartBtInt={options.HeartBtInt}, open files limit {softLimit}");
        string? ownSpin = Environment.GetEnvironmentVariable(ScaleOptions.PoolSpinLimitVariable);
        if (options.PoolSpinLimit is int spinLimit)
        {
            // A runtime setting read when the pool starts: this process can only have it from its environment.
            Console.WriteLine($"scale: thread-pool spin limit {spinLimit} in the FixEngine acceptor; initiators' process: "
                + (ownSpin == spinLimit.ToString(CultureInfo.InvariantCulture) ? $"{spinLimit} too" : $"{ownSpin ?? "the runtime's default"} (export {ScaleOptions.PoolSpinLimitVariable}={spinLimit} to match; benchmarks/scale.sh does)"));
        }
        else if (ownSpin is not null)
        {
            Console.WriteLine($"scale: {ScaleOptions.PoolSpinLimitVariable}={ownSpin} in the environment (both processes)");
        }
        foreach (ScaleAcceptorKind kind in options.Acceptors)
        {
            foreach (int n in options.Sessions)
            {
                ScaleResult result;
                if (n + 256 > softLimit)
                {
                    result = ScaleResult.Failed(kind, n, options.BusyCount(n), $"needs {n + 256} open files, the limit is {softLimit} (run through benchmarks/scale.sh, which raises ulimit -n)");
                }
                else
                {
                    result = ScaleRun.Run(kind, n, options);
                }
                results.Add(result);
                Console.WriteLine(result.Summary());
                // Written after every run, so an interrupted sitting keeps what it measured.
                ScaleReport.Write(options, results, wall.Elapsed);
            }
        }
        Console.WriteLine($"scale: done in {wall.Elapsed.TotalMinutes:0.0} min; {Path.Combine(options.OutDirectory, "report.md")}, scale.svg, results.csv");
        // A FixEngine acceptor that dies is a defect, not a measurement (a peer that aborts at its limit is a result).
        var died = results.Where(r => r.AcceptorExited && r.Acceptor is ScaleAcceptorKind.FixEngineMemory or ScaleAcceptorKind.FixEngineFile).ToList();
        foreach (ScaleResult r in died) Console.Error.WriteLine($"scale: {ScaleOptions.Key(r.Acceptor)} N={r.Sessions}: {r.Error}");
        return died.Count == 0 ? 0 : 1;
    }
}

/// <summary>One scenario: one acceptor kind with N sessions.</summary>
internal static class ScaleRun
{
    private static readonly TimeSpan s_commandTimeout = TimeSpan.FromSeconds(120);

    public static ScaleResult Run(ScaleAcceptorKind kind, int n, ScaleOptions o)
    {
        int busy = o.BusyCount(n);
        string label = $"{ScaleOptions.Key(kind)} N={n}";
        string? storeRoot = null;
        LineProcess? child = null;
        ScaleInitiators? initiators = null;
        bool fixEngine = kind is ScaleAcceptorKind.FixEngineMemory or ScaleAcceptorKind.FixEngineFile;
        var r = new ScaleResult { Acceptor = kind, Sessions = n, Busy = busy, ConsoleMode = fixEngine ? o.ConsoleMode : "none" };
        ConsolePoller? poller = null;
        ScaleTrace? trace = null;
        try
        {
            long spawnNs = HighResTime.NowNs();
            (child, storeRoot) = StartAcceptor(kind, n, o);
            string portLine = child.Expect("PORT ", s_commandTimeout);
            // A cold start: the process, the runtime and the engine's construction (e.g. opening N journals).
            Console.WriteLine($"  {label}: acceptor listening {(HighResTime.NowNs() - spawnNs) / 1e9:0.00} s after it was started");
            int port = PeerPrograms.ReportedPort(child, portLine);   // a peer started with port 0 reports PORT 0: read from /proc
            Uri? console = null;
            if (r.ConsoleMode != "none")
            {
                string url = child.Expect("CONSOLE ", s_commandTimeout)["CONSOLE ".Length..].Trim();
                if (!Uri.TryCreate(url, UriKind.Absolute, out console)) throw new InvalidOperationException($"the acceptor's console did not start ({url})");
                Console.WriteLine($"  {label}: admin console at {console}" + (r.ConsoleMode == "poll" ? $", GET api/sessions every {o.ConsolePollSeconds:0.##} s in the busy window" : ", not polled"));
            }
            Thread.Sleep(500);
            r.RssStartBytes = ProcStats.Read(child.Id).RssBytes;

            // Logon of all N from cold.
            int sources = o.SourceAddressCount(n);
            initiators = new ScaleInitiators(n, o.HeartBtInt, port, sources);
            if (o.Trace)
            {
                ScaleInitiators traced = initiators;
                int childId = child.Id;
                trace = ScaleTrace.Start("harness", () => string.Create(CultureInfo.InvariantCulture,
                    $"logged_on={traced.LoggedOn} due={traced.Due(HighResTime.NowNs())} sent={traced.Sent} replies={traced.Replies} testreq_by_acceptor={traced.TestRequestsReceived} testreq_by_initiators={traced.TestRequestsSent} acceptor_cpu={ProcStats.Read(childId).CpuSeconds:0.00}s agent_sweeps={traced.AgentCounters().Sweeps} agent_hot={traced.AgentCounters().HotVisits}"));
            }
            if (sources > 1) Console.WriteLine($"  {label}: initiators connect from 127.0.0.1 .. 127.0.0.{sources} ({(n + sources - 1) / sources:N0} sessions per address at most)");
            long startNs = HighResTime.NowNs();
            initiators.Start();
            long deadlineNs = startNs + (long)(o.LogonTimeoutSeconds * 1e9);
            long nextProgress = startNs + 1_000_000_000L;
            while (initiators.LoggedOn < n && HighResTime.NowNs() < deadlineNs)
            {
                Thread.Sleep(20);
                ThrowIfExited(child, initiators);
                if (HighResTime.NowNs() >= nextProgress)
                {
                    nextProgress += 1_000_000_000L;
                    ProcSample p = ProcStats.Read(child.Id);
                    Console.WriteLine($"  {label}: logged on {initiators.LoggedOn:N0}/{n:N0} at {(HighResTime.NowNs() - startNs) / 1e9:0.0} s, acceptor RSS {p.RssBytes / 1048576.0:0} MB, {p.Threads} threads");
                }
            }
            r.LoggedOn = initiators.LoggedOn;
            ThrowIfExited(child, initiators);
            if (r.LoggedOn < n)
            {
                r.Error = $"{r.LoggedOn:N0} of {n:N0} logged on within {o.LogonTimeoutSeconds:0} s";
                return r;
            }
            r.LogonSeconds = (initiators.LastLogonNs - startNs) / 1e9;
            Console.WriteLine($"  {label}: all {n:N0} logged on in {r.LogonSeconds:0.00} s");
            long logoutsAtLogon = initiators.Logouts;

            // Idle: no application traffic, heartbeats only.
            Thread.Sleep(2_000);
            ProcSample idleStart = ProcStats.Read(child.Id);
            long idleStartNs = HighResTime.NowNs();
            SleepWithProgress(label, "idle", o.IdleSeconds, child, initiators);
            ProcSample idleEnd = ProcStats.Read(child.Id);
            r.CpuIdleSeconds = (idleEnd.CpuSeconds - idleStart.CpuSeconds);
            r.IdleWindowSeconds = (HighResTime.NowNs() - idleStartNs) / 1e9;
            r.RssIdleBytes = idleEnd.RssBytes;
            r.ThreadsIdle = idleEnd.Threads;
            if (fixEngine) (r.GcHeapIdleBytes, r.GcCommittedIdleBytes) = GcStats(child);
            r.RssIdleAfterGcBytes = ProcStats.Read(child.Id).RssBytes;

            // Busy: a share of the sessions sends orders open loop; the rest stay idle.
            long busyStartNs = HighResTime.NowNs();
            long recordFromNs = busyStartNs + (long)(o.WarmupSeconds * 1e9);
            long endNs = recordFromNs + (long)(o.BusySeconds * 1e9);
            (long Bytes, long[] Gcs)? allocStart = fixEngine ? Alloc(child) : null;
            if (o.Trace) initiators.KeepTimeline((int)Math.Min(50_000_000L, (long)((o.BusySeconds + 1) * busy * o.RatePerBusySession)));
            long harnessBytes0 = GC.GetTotalAllocatedBytes(true);
            int[] harnessGcs0 = [GC.CollectionCount(0), GC.CollectionCount(1), GC.CollectionCount(2)];
            TimeSpan harnessPause0 = GC.GetTotalPauseDuration();
            if (r.ConsoleMode == "poll")
            {
                poller = new ConsolePoller(console!, o.ConsolePollSeconds);
                poller.Start();
            }
            r.Sent = initiators.SendOrders(busy, o.RatePerBusySession, recordFromNs, endNs, o.SenderSpins, sent =>
            {
                (double p50, double p99, double max, long count) = initiators.Snapshot();
                ProcSample p = ProcStats.Read(child.Id);
                Console.WriteLine($"  {label}: busy {sent:N0} sent, {initiators.Replies:N0} replies, measured {count:N0} p50 {p50:0} µs p99 {p99:0} µs max {max:0} µs, acceptor RSS {p.RssBytes / 1048576.0:0} MB, {p.Threads} threads");
            });
            poller?.Stop();
            r.HarnessAllocatedBusyBytes = GC.GetTotalAllocatedBytes(true) - harnessBytes0;
            r.HarnessGcBusy = string.Create(CultureInfo.InvariantCulture,
                $"{GC.CollectionCount(0) - harnessGcs0[0]}/{GC.CollectionCount(1) - harnessGcs0[1]}/{GC.CollectionCount(2) - harnessGcs0[2]} ({(GC.GetTotalPauseDuration() - harnessPause0).TotalMilliseconds:0} ms)");
            ThrowIfExited(child, initiators);
            if (allocStart is (long bytes0, long[] gcs0))
            {
                (long bytes1, long[] gcs1) = Alloc(child);
                r.AcceptorAllocatedBusyBytes = bytes1 - bytes0;
                r.AcceptorGcBusy = $"{gcs1[0] - gcs0[0]}/{gcs1[1] - gcs0[1]}/{gcs1[2] - gcs0[2]}";
            }
            if (poller is not null)
            {
                List<(double Ms, long Bytes)> polls = poller.Samples();
                r.ConsolePolls = polls.Count;
                r.ConsolePollErrors = poller.Errors;
                (r.ConsoleP50Ms, r.ConsoleMaxMs) = ConsolePoller.MedianAndMax(polls.Select(p => p.Ms));
                r.ConsoleBytes = polls.Count > 0 ? polls[^1].Bytes : null;
                r.ConsoleSessionsListed = poller.SessionsListed;
                Console.WriteLine($"  {label}: console polls (ms): {string.Join(" ", polls.Select(p => p.Ms.ToString("0.0", CultureInfo.InvariantCulture)))}"
                    + (poller.Errors > 0 ? $"; {poller.Errors} failed, last: {poller.LastError}" : ""));
            }
            ProcSample busyEnd = ProcStats.Read(child.Id);
            r.CpuBusySeconds = busyEnd.CpuSeconds - idleEnd.CpuSeconds;
            r.BusyWindowSeconds = (HighResTime.NowNs() - busyStartNs) / 1e9;
            long replyDeadline = HighResTime.NowNs() + 10_000_000_000L;
            while (initiators.Replies < r.Sent && HighResTime.NowNs() < replyDeadline) Thread.Sleep(10);
            r.Replies = initiators.Replies;
            r.RssBusyBytes = busyEnd.RssBytes;
            r.ThreadsBusy = busyEnd.Threads;
            if (fixEngine) (r.GcHeapBusyBytes, r.GcCommittedBusyBytes) = GcStats(child);
            LongHistogram h = initiators.Histogram();
            r.Measured = h.TotalCount;
            if (h.TotalCount > 0)
            {
                r.P50Us = h.GetValueAtPercentile(50) / 1000.0;
                r.P99Us = h.GetValueAtPercentile(99) / 1000.0;
                r.P999Us = h.GetValueAtPercentile(99.9) / 1000.0;
                r.MaxUs = h.GetMaxValue() / 1000.0;
                if (o.Trace)
                {
                    // The slowest 1 % placed in time (10 ms buckets), to set against the trace lines of both processes.
                    foreach (string line in initiators.TailPlacement(h.GetValueAtPercentile(99), 10, 60)) Console.WriteLine($"  {label}: tail {line}");
                }
            }
            r.TestRequestsByAcceptor = initiators.TestRequestsReceived;
            r.TestRequestsByInitiators = initiators.TestRequestsSent;
            r.Disconnects = initiators.Logouts - logoutsAtLogon;
            r.ReplyErrors = initiators.ReplyErrors;
            return r;
        }
        catch (Exception e) when (e is InvalidOperationException or IOException or FormatException or System.ComponentModel.Win32Exception)
        {
            // However the failure showed (a command unanswered, a timeout), a dead acceptor is the reason to report.
            if (child is not null && child.HasExited && e is not AcceptorExitedException) e = new AcceptorExitedException(child, initiators);
            r.Error = e.Message;
            r.AcceptorExited = e is AcceptorExitedException;
            if (initiators is not null) r.LoggedOn = Math.Max(r.LoggedOn, initiators.LoggedOn);
            return r;
        }
        finally
        {
            trace?.Dispose();
            poller?.Dispose();
            initiators?.Dispose();
            child?.Stop();
            HarnessCleanup.DeleteDirectory(storeRoot);
        }
    }

    /// <summary>The acceptor process died: how, and after how many logons.</summary>
    private sealed class AcceptorExitedException(LineProcess child, ScaleInitiators? initiators)
        : InvalidOperationException($"acceptor exited with {child.ExitDescription()} after {initiators?.Logons ?? 0:N0} logons")
    {
    }

    private static void ThrowIfExited(LineProcess child, ScaleInitiators? initiators)
    {
        if (child.HasExited) throw new AcceptorExitedException(child, initiators);
    }

    /// <summary>Bytes the acceptor process has allocated so far and its collections (gen0, gen1, gen2).</summary>
    private static (long Bytes, long[] Gcs) Alloc(LineProcess child)
    {
        child.Command("ALLOC");
        string line = child.Expect("ALLOC ", s_commandTimeout);
        long bytes = 0;
        var gcs = new long[3];
        foreach (string part in line.Split(' '))
        {
            int eq = part.IndexOf('=');
            if (eq < 0) continue;
            long v = long.Parse(part.AsSpan(eq + 1), CultureInfo.InvariantCulture);
            switch (part[..eq])
            {
                case "bytes": bytes = v; break;
                case "gen0": gcs[0] = v; break;
                case "gen1": gcs[1] = v; break;
                case "gen2": gcs[2] = v; break;
            }
        }
        return (bytes, gcs);
    }

    private static (long Heap, long Committed) GcStats(LineProcess child)
    {
        child.Command("STATS");
        string line = child.Expect("STATS ", s_commandTimeout);
        Console.WriteLine("  acceptor " + line);
        long heap = 0, committed = 0;
        foreach (string part in line.Split(' '))
        {
            if (part.StartsWith("gc_heap=", StringComparison.Ordinal)) heap = long.Parse(part.AsSpan(8), CultureInfo.InvariantCulture);
            else if (part.StartsWith("gc_committed=", StringComparison.Ordinal)) committed = long.Parse(part.AsSpan(13), CultureInfo.InvariantCulture);
        }
        return (heap, committed);
    }

    private static void SleepWithProgress(string label, string phase, double seconds, LineProcess child, ScaleInitiators initiators)
    {
        int pid = child.Id;
        long endNs = HighResTime.NowNs() + (long)(seconds * 1e9);
        long nextLineNs = HighResTime.NowNs() + 5_000_000_000L;
        while (true)
        {
            long left = endNs - HighResTime.NowNs();
            if (left <= 0) return;
            // A look at the acceptor every second, a progress line every 5 s and at the end.
            Thread.Sleep((int)Math.Min(1_000, left / 1_000_000 + 1));
            ThrowIfExited(child, initiators);
            if (HighResTime.NowNs() < Math.Min(nextLineNs, endNs)) continue;
            nextLineNs += 5_000_000_000L;
            ProcSample p = ProcStats.Read(pid);
            Console.WriteLine($"  {label}: {phase}, {initiators.LoggedOn:N0} logged on, TestRequests {initiators.TestRequestsReceived} by acceptor / {initiators.TestRequestsSent} by initiators, "
                + $"{initiators.Logouts} logouts, acceptor RSS {p.RssBytes / 1048576.0:0} MB, {p.Threads} threads, CPU {p.CpuSeconds:0.0} s");
        }
    }

    /// <summary>When set, the FixEngine acceptor child's FIXENGINE_COMPLETION_REACTOR (README: "The completion reactor").</summary>
    internal const string AcceptorReactorVariable = "FIXENGINE_SCALE_ACCEPTOR_COMPLETION_REACTOR";

    private static (LineProcess Child, string? StoreRoot) StartAcceptor(ScaleAcceptorKind kind, int n, ScaleOptions o)
    {
        string name = $"{ScaleOptions.Key(kind)}-acceptor";
        switch (kind)
        {
            case ScaleAcceptorKind.FixEngineMemory:
            case ScaleAcceptorKind.FixEngineFile:
            {
                string? root = kind == ScaleAcceptorKind.FixEngineFile ? EngineSessionSystem.NewStoreRoot() : null;
                ProcessStartInfo info = ChildProcessSystem.HarnessChildStartInfo();
                foreach (string a in new[] { "scale", "--acceptor-child", n.ToString(CultureInfo.InvariantCulture), root is null ? "mem" : "file", o.HeartBtInt.ToString(CultureInfo.InvariantCulture), o.ReceiveMode, root ?? "-" })
                {
                    info.ArgumentList.Add(a);
                }
                if (o.ConsoleMode != "none") info.ArgumentList.Add("console");
                if (o.Trace) info.Environment[ScaleTrace.EnvironmentVariable] = "1";
                if (o.PoolSpinLimit is int spin) info.Environment[ScaleOptions.PoolSpinLimitVariable] = spin.ToString(CultureInfo.InvariantCulture);
                // A/B of the engine's completion reactor in the acceptor alone (the initiators keep their environment's).
                if (Environment.GetEnvironmentVariable(AcceptorReactorVariable) is string reactor) info.Environment["FIXENGINE_COMPLETION_REACTOR"] = reactor;
                return (new LineProcess(name, info), root);
            }
            default:
            {
                PeerKind peer = kind == ScaleAcceptorKind.QuickFixN ? PeerKind.QuickFixN : PeerKind.QuickFixCpp;
                if (PeerPrograms.EnsureBuilt(peer) is string error) throw new InvalidOperationException($"{PeerPrograms.DisplayName(peer)} peer not built: {error}");
                string mode = kind == ScaleAcceptorKind.QuickFixCppReactor ? "reactor" : "threaded";
                ProcessStartInfo info = PeerPrograms.StartInfo(peer, "acceptor", 0,
                    ["--sessions", n.ToString(CultureInfo.InvariantCulture), "--heartbeat", o.HeartBtInt.ToString(CultureInfo.InvariantCulture), "--acceptor-mode", mode]);
                return (new LineProcess(name, info), null);
            }
        }
    }
}

/// <summary>A process's resident set, threads and CPU time from /proc.</summary>
internal readonly record struct ProcSample(long RssBytes, int Threads, double CpuSeconds);

internal static class ProcStats
{
    private const double TicksPerSecond = 100; // USER_HZ on Linux

    public static ProcSample Read(int pid)
    {
        long rss = 0;
        int threads = 0;
        try
        {
            foreach (string line in File.ReadLines($"/proc/{pid}/status"))
            {
                if (line.StartsWith("VmRSS:", StringComparison.Ordinal)) rss = 1024 * long.Parse(line.Split(' ', StringSplitOptions.RemoveEmptyEntries)[1], CultureInfo.InvariantCulture);
                else if (line.StartsWith("Threads:", StringComparison.Ordinal)) threads = int.Parse(line.Split('\t', ' ', StringSplitOptions.RemoveEmptyEntries)[1], CultureInfo.InvariantCulture);
            }
            string stat = File.ReadAllText($"/proc/{pid}/stat");
            string[] fields = stat[(stat.LastIndexOf(')') + 2)..].Split(' ');
            // After the command: state is field 3; utime and stime are fields 14 and 15 (index 11 and 12 here).
            double cpu = (long.Parse(fields[11], CultureInfo.InvariantCulture) + long.Parse(fields[12], CultureInfo.InvariantCulture)) / TicksPerSecond;
            return new ProcSample(rss, threads, cpu);
        }
        catch (IOException)
        {
            return new ProcSample(rss, threads, 0);
        }
    }

    /// <summary>The soft RLIMIT_NOFILE of this process (children inherit it).</summary>
    public static long OpenFileLimit()
    {
        try
        {
            foreach (string line in File.ReadLines("/proc/self/limits"))
            {
                if (!line.StartsWith("Max open files", StringComparison.Ordinal)) continue;
                string[] parts = line.Split(' ', StringSplitOptions.RemoveEmptyEntries);
                return long.TryParse(parts[3], NumberStyles.None, CultureInfo.InvariantCulture, out long soft) ? soft : long.MaxValue;
            }
        }
        catch (IOException)
        {
        }
        return long.MaxValue;
    }
}
