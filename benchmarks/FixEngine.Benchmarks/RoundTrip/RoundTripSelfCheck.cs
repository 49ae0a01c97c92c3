using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Xml.Linq;
using FixEngine.Codec;
using FixEngine.Benchmarks.Diagnostics;
using HdrHistogram;

namespace FixEngine.Benchmarks.RoundTrip;

/// <summary><c>roundtrip --self-check</c>: fast checks of the harness's pure logic (the test project cannot reference
/// the benchmark project): schedule and coordinated-omission accounting, message sizes and round trip through the
/// codec, stream framing, zero allocation, report and SVG output.</summary>
public static class RoundTripSelfCheck
{
    /// <summary>Runs every check, prints PASS/FAIL lines; returns 0 when all pass.</summary>
    public static int Run(TextWriter output)
    {
        var checks = new (string Name, Func<string?> Check)[]
        {
            ("schedule intended times do not drift", ScheduleDoesNotDrift),
            ("a stall is charged to every order it delays", StallIsChargedToEveryDelayedOrder),
            ("order and report have realistic sizes and round-trip through the codec", MessagesRoundTrip),
            ("stream reader frames messages split at every byte", StreamReaderFramesSplitMessages),
            ("encode, frame, parse and answer allocate nothing", CodecPathAllocatesNothing),
            ("report has a table per rate, medians of runs, QuickFIX C++ and floor ratios, saturation and lost replies", ReportFormats),
            ("peer configurations: every pairing of QuickFIX C++, QuickFIX/n and FixEngine is registered", PeerConfigurationsAreRegistered),
            ("peer protocol: DONE fields, WINDOW n/a, sample files (clamped, whole int64s only)", PeerProtocolParses),
            ("SVG plot is well-formed with one polyline per series", SvgIsWellFormed),
            ("quick mode bounds every run by time, full mode by count only", QuickModeIsTimeBounded),
            ("session configurations: default, busy, yield, backoff and completion, 1proc and 2proc, all available", SessionConfigurationsAreRegistered),
            ("child acceptor role round-trips through its command-line form", SessionRoleRoundTrips),
            ("child process reports its port and its window, and exits when told", ChildProcessLifecycle),
            ("a run missing replies says whether they were lost, still in flight or miscounted", VerdictSaysWhatHappened),
            ("a run that failed to start is named with its reason and left out of medians, ranges and rates", FailedRunIsNamedAndLeftOut),
            ("an allocating window's description names the engine thread that allocated, or says engine threads were not measured", WindowProbeNamesThreads),
        };
        int failed = 0;
        foreach ((string name, Func<string?> check) in checks)
        {
            string? error;
            try
            {
                error = check();
            }
            catch (Exception e)
            {
                error = e.ToString();
            }
            output.WriteLine(error is null ? $"PASS {name}" : $"FAIL {name}: {error}");
            if (error is not null) failed++;
        }
        output.WriteLine(failed == 0 ? $"all {checks.Length} checks passed" : $"{failed} of {checks.Length} checks failed");
        return failed == 0 ? 0 : 1;
    }

    private static string? ScheduleDoesNotDrift()
    {
        var s = new OpenLoopSchedule(1_000, 3_000);
        if (s.IntendedNs(0) != 1_000) return $"order 0 at {s.IntendedNs(0)}";
        if (s.IntendedNs(3_000) != 1_000 + 1_000_000_000) return $"order 3000 at {s.IntendedNs(3_000)}, expected 1 s later";
        if (s.IntendedNs(3_000_000) != 1_000 + 1_000_000_000_000) return $"order 3e6 at {s.IntendedNs(3_000_000)}, drifted";
        if (s.DueCount(999) != 0 || s.DueCount(1_000) != 1 || s.DueCount(1_000 + 333_334) != 2) return "DueCount wrong";
        return null;
    }

    private static string? StallIsChargedToEveryDelayedOrder()
    {
        // 1,000 orders/s for 1 s; the system answers in 10 µs except that it is frozen from 100 ms to 200 ms and then
        // answers the backlog at 10 µs per order. Measuring from the intended time must charge ~100 orders, not one.
        var schedule = new OpenLoopSchedule(0, 1_000);
        var h = Histograms.Create();
        long freeAtNs = 0;
        for (int i = 0; i < 1_000; i++)
        {
            long intended = schedule.IntendedNs(i);
            long start = Math.Max(intended, freeAtNs);
            if (start >= 100_000_000 && start < 200_000_000) start = 200_000_000;
            long done = start + 10_000;
            freeAtNs = done;
            h.RecordValue(done - intended);
        }
        long delayed = h.TotalCount - CountBelow(h, 1_000_000);
        if (delayed < 95 || delayed > 105) return $"{delayed} orders over 1 ms, expected ~100";
        if (h.GetMaxValue() < 100_000_000) return $"worst {h.GetMaxValue()} ns, expected >= 100 ms";
        if (h.GetValueAtPercentile(50) > 20_000) return $"p50 {h.GetValueAtPercentile(50)} ns, expected ~10 µs";
        return null;
    }

    private static long CountBelow(HistogramBase h, long limit)
    {
        long count = 0;
        for (long v = 0; v < limit; v = h.HighestEquivalentValue(v) + 1) count += h.GetCountAtValue(v);
        return count;
    }

    private static string? MessagesRoundTrip()
    {
        OrderFlowMessages.MeasureTypicalSizes(out int orderLength, out int reportLength);
        if (orderLength < 160 || orderLength > 220) return $"NewOrderSingle is {orderLength} B, expected ~180";
        if (reportLength < orderLength) return $"ExecutionReport {reportLength} B is smaller than the order";
        var messages = new OrderFlowMessages();
        byte[] order = new byte[512], report = new byte[1024];
        const long Intended = 1_234_567_890_123_456_789;
        int n = messages.EncodeNewOrderSingle(order, 42, Intended, 1_790_000_000_000_000_000);
        FrameResult frame = FixFramer.Frame(order.AsSpan(0, n), OrderFlowMessages.MaxBodyLength);
        if (!frame.IsComplete || frame.Length != n) return $"order does not frame: {frame.Describe()}";
        var index = new FixMessageIndex(64);
        if (!index.Parse(order.AsSpan(0, n))) return $"order defect {index.Defect.Describe()}";
        FixMessage parsed = index.Bind(order.AsSpan(0, n));
        if (parsed.TryGetLong(FixTags.ClOrdID, out long clOrdId) != FixValueStatus.Ok || clOrdId != Intended) return "ClOrdID lost";
        if (parsed.TryGetLong(FixTags.MsgSeqNum, out long seq) != FixValueStatus.Ok || seq != 42) return "MsgSeqNum lost";
        int m = messages.EncodeExecutionReport(report, parsed, 7, 1_790_000_000_000_000_000);
        if (m == 0) return "report not encoded";
        var reportIndex = new FixMessageIndex(64);
        if (!reportIndex.Parse(report.AsSpan(0, m))) return $"report defect {reportIndex.Defect.Describe()}";
        FixMessage er = reportIndex.Bind(report.AsSpan(0, m));
        if (!er.MsgType.SequenceEqual(MsgTypes.ExecutionReport)) return "report MsgType is not 8";
        if (er.TryGetLong(FixTags.ClOrdID, out long echoed) != FixValueStatus.Ok || echoed != Intended) return "report does not echo ClOrdID";
        if (er.GetString(FixTags.Symbol) != "MSFT" || er.GetString(FixTags.LeavesQty) != "100") return "report fields wrong";
        return null;
    }

    private static string? StreamReaderFramesSplitMessages()
    {
        var messages = new OrderFlowMessages();
        byte[] stream = new byte[2048];
        int length = 0;
        for (int i = 0; i < 3; i++) length += messages.EncodeNewOrderSingle(stream.AsSpan(length), i + 1, 1_000 + i, 1_790_000_000_000_000_000);
        stream[length++] = (byte)'x';
        length += messages.EncodeNewOrderSingle(stream.AsSpan(length), 4, 1_003, 1_790_000_000_000_000_000);
        var reader = new FixStreamReader(1024);
        var counter = new FrameCounter();
        for (int i = 0; i < length; i++) reader.Feed(stream.AsSpan(i, 1), counter);
        if (counter.Frames != 4 || counter.Errors != 1) return $"{counter.Frames} frames, {counter.Errors} errors; expected 4 and 1";
        return null;
    }

    private static string? CodecPathAllocatesNothing()
    {
        var messages = new OrderFlowMessages();
        var acceptorMessages = new OrderFlowMessages();
        var index = new FixMessageIndex(64);
        var replyIndex = new FixMessageIndex(64);
        var reader = new FixStreamReader(4096);
        var counter = new FrameCounter();
        byte[] order = new byte[512], report = new byte[1024];
        var histogram = Histograms.Create();
        void Once(long i)
        {
            int n = messages.EncodeNewOrderSingle(order, i, 1_000_000 + i, 1_790_000_000_000_000_000 + i * 1_000);
            index.Parse(order.AsSpan(0, n));
            int m = acceptorMessages.EncodeExecutionReport(report, index.Bind(order.AsSpan(0, n)), i, 1_790_000_000_000_000_000 + i * 1_000);
            reader.Feed(report.AsSpan(0, m), counter);
            replyIndex.Parse(report.AsSpan(0, m));
            replyIndex.Bind(report.AsSpan(0, m)).TryGetLong(FixTags.ClOrdID, out long intended);
            histogram.RecordValue(2_000_000 + i - intended);
        }
        for (int i = 0; i < 2_000; i++) Once(i);
        long before = GC.GetAllocatedBytesForCurrentThread();
        for (int i = 2_000; i < 22_000; i++) Once(i);
        long allocated = GC.GetAllocatedBytesForCurrentThread() - before;
        return allocated == 0 ? null : $"{allocated} bytes allocated over 20,000 round trips";
    }

    private static string? ReportFormats()
    {
        var floorRuns = new List<RunResult> { FakeRun("floor", 2_000, 10_000), FakeRun("floor", 2_000, 12_000) };
        var codecRuns = new List<RunResult> { FakeRun("codec", 2_000, 20_000), FakeRun("codec", 2_000, 24_000), FakeRun("codec", 2_000, 90_000) };
        var results = new List<ConfigRateSummary>
        {
            new("floor", 2_000, floorRuns),
            new("codec", 2_000, codecRuns),
            new(PeerConfigurations.BaselineKey, 2_000, [FakeRun(PeerConfigurations.BaselineKey, 2_000, 40_000, fixEngine: false)]),
            new("qfn-qfn", 2_000, [FakeRun("qfn-qfn", 2_000, 80_000, peer: new ProcessWindow(3, 1, 0, 100_000), fixEngine: false, replies: 97)]),
            new("floor", 0, [FakeRun("floor", 0, 5_000)]),
        };
        var writer = new StringWriter();
        results.Add(new ConfigRateSummary("session-yield-mem-2proc", 2_000, [FakeRun("session-yield-mem-2proc", 2_000, 30_000, new ProcessWindow(0, 0, 0, 500), saturated: true)]));
        var context = new ReportContext("test machine", "roundtrip --self-check", "quick", "10", "100 measured orders", 2, 180, 250)
        {
            LoadAverage = "1.00 2.00 3.00 at start",
            WallTime = "12.3 s",
        };
        MarkdownReport.Write(writer, context, results, [new RoundTripConfiguration("qfn-fixengine", "QuickFIX/n initiator → FixEngine acceptor", null, "building the QuickFIX/n peer failed")]);
        string text = writer.ToString();
        string[] required =
        [
            "## 2,000 msg/s", "## max (closed loop)",
            // Medians of the runs: codec 20/24/90 µs → 24.0, floor 10/12 µs → 11.0 (mean of the two middle runs).
            "| codec | 24.0 |", "| floor | 11.0 |", "2.18×", "10.0–12.0", "20.0–90.0",
            "| qfn-qfn (INCOMPLETE: errors or timeout) | 80.1 |", "| 2.00× | 2.00× | 2.00× |", "| 100 / 97 | n/a | n/a | 3/1/0, 1,031 |",
            "`qfn-fixengine` (QuickFIX/n initiator → FixEngine acceptor): building the QuickFIX/n peer failed", "test machine",
            "| 0/0/0 | 0.00 |", "×QF C++ p99 |", "1.00 2.00 3.00 at start", "12.3 s",
            "session-yield-mem-2proc (SATURATED)", "| 0/0/0 | 5.00 |", "| 0/0/0 | 500 | n/a | n/a |", "n/a (no FixEngine) | n/a",
            "## Saturation and lost replies", "| qfn-qfn | none | 2,000 (2,000) | n/a | 100 | 97 | 3 | 64 |", "| codec | 2,000 | none measured | n/a | 300 | 300 | 0 | n/a |", "| session-yield-mem-2proc | none | 2,000 (2,000) |",
            "| codec | 2,000 | none measured |", "alternating",
        ];
        foreach (string r in required)
        {
            if (!text.Contains(r, StringComparison.Ordinal)) return $"report lacks '{r}':\n{text}";
        }
        return null;
    }

    private static string? FailedRunIsNamedAndLeftOut()
    {
        RunResult failed = RunResult.Failed("qfcpp-qfcpp", 2_000, "InvalidOperationException: qfcpp-qfcpp initiator: no 'WARM' within 60 s");
        var results = new List<ConfigRateSummary>
        {
            // One of three runs failed: the median is the two measured runs' (30 and 50 µs → 40.0), not 30 (with a 0 in it).
            new(PeerConfigurations.BaselineKey, 2_000, [FakeRun(PeerConfigurations.BaselineKey, 2_000, 30_000, fixEngine: false), failed,
                FakeRun(PeerConfigurations.BaselineKey, 2_000, 50_000, fixEngine: false)]),
            // A run whose peer stalled before the window: no samples, not a failure; left out of the median (20 and 60 → 40.0).
            new("fixengine-qfcpp", 2_000, [FakeRun("fixengine-qfcpp", 2_000, 20_000), FakeRun("fixengine-qfcpp", 2_000, 90_000, replies: 0),
                FakeRun("fixengine-qfcpp", 2_000, 60_000)]),
            // Every run failed: no number at all.
            new("qfn-qfn", 2_000, [RunResult.Failed("qfn-qfn", 2_000, "Win32Exception: peer not built")]),
        };
        var writer = new StringWriter();
        MarkdownReport.Write(writer, new ReportContext("m", "c", "full", "1", "1", 3, 180, 250), results, []);
        string text = writer.ToString();
        string[] required =
        [
            "| qfcpp-qfcpp (INCOMPLETE: errors or timeout) (1 of 3 runs without samples, 1 FAILED before measuring; the numbers are the other runs', see Runs) | 40.0 |",
            "| fixengine-qfcpp (INCOMPLETE: errors or timeout) (1 of 3 runs without samples; the numbers are the other runs', see Runs) | 40.0 |", "20.0–60.0",
            "30.0–50.0", "| 2,000 | 200 / 200 | n/a | n/a |",
            "| qfn-qfn (INCOMPLETE: errors or timeout) (1 of 1 runs without samples, 1 FAILED before measuring; the numbers are the other runs', see Runs) | n/a | n/a |",
            "NO: the run failed before it measured (no samples): InvalidOperationException: qfcpp-qfcpp initiator: no 'WARM' within 60 s",
            "NO: the run failed before it measured (no samples): Win32Exception: peer not built",
            "| qfcpp-qfcpp | none | 2,000 (2,000) |", "| qfn-qfn | none | 2,000 (no run with samples) |",
            // Its per-run row: no latency shown for a run without samples.
            "| qfn-qfn | 2,000 msg/s | 1 | 0 / 0 (0) | 0 | - | - | - | - |",
        ];
        foreach (string r in required)
        {
            if (!text.Contains(r, StringComparison.Ordinal)) return $"report lacks '{r}':\n{text}";
        }
        return null;
    }

    private static string? WindowProbeNamesThreads()
    {
        // A name may repeat (a later host's thread got the same managed id), and an ended thread's entry leaves the ledger
        // when another registers (here the first, so positions shift): entries pair by the ledger's id.
        var start = new WindowProbe(100, 5_000, 40, 2, 1, 0, true,
            [(1, "fix-engine (7)", 5_000), (2, "fix-engine (7)", 1_000), (3, "fix-receive#1 (9)", 2_000)]);
        var end = new WindowProbe(102, 5_300, 41, 3, 1, 0, true,
            [(2, "fix-engine (7)", 1_000), (3, "fix-receive#1 (9)", 2_136), (4, "fix-send-drain (11)", 0)]);
        string text = end.Describe(start, "fixengine-qfcpp", 136, 0);
        foreach (string expected in new[] { "allocated 136 B", "harness threads 0 B", "engine threads (3 registered) 136 B (fix-receive#1 (9) 136 B)", "JIT +2 methods (+300 IL bytes)", "work items +1, threads 2->3" })
        {
            if (!text.Contains(expected, StringComparison.Ordinal)) return $"'{expected}' missing from: {text}";
        }
        if (text.Contains("fix-engine (7)", StringComparison.Ordinal)) return $"a thread that allocated nothing is named: {text}";
        string off = new WindowProbe(0, 0, 0, 0, 0, 0, false, []).Describe(default, "x", 8, 8);
        return off.Contains("engine threads not measured", StringComparison.Ordinal) ? null : $"unmeasured engine threads not said: {off}";
    }

    private static RunResult FakeRun(string config, int rate, long latencyNs, ProcessWindow? child = null, bool saturated = false,
        ProcessWindow? peer = null, bool fixEngine = true, long replies = 100)
    {
        var h = Histograms.Create();
        h.RecordValueWithCount(latencyNs, replies);
        return new RunResult
        {
            Config = config, RatePerSecond = rate, Histogram = h, Count = replies, Sent = 100, AchievedRate = rate, Gen0 = 0, Gen1 = 0, Gen2 = 0,
            AllocatedBytes = 0, Errors = 0, Completed = replies == 100, Child = child, Saturated = saturated, Planned = 100,
            Peer = peer, FixEngineMeasured = fixEngine, ChildPeakResidentBytes = peer is null ? null : 64L << 20,
        };
    }

    private static string? PeerConfigurationsAreRegistered()
    {
        foreach (string key in RoundTripConfigurations.ComparisonKeys)
        {
            RoundTripConfiguration? c = RoundTripConfigurations.Find(key);
            if (c is null) return $"{key} missing";
            if (!c.IsAvailable) return $"{key} unavailable: {c.UnavailableReason}";
        }
        foreach (string initiator in new[] { "qfcpp", "qfn" })
        {
            foreach (string acceptor in new[] { "qfcpp", "qfn", "fixengine", "fixengine-yield", "fixengine-completion" })
            {
                RoundTripConfiguration? c = RoundTripConfigurations.Find($"{initiator}-{acceptor}");
                if (c?.PeerInitiator is null || c.Peers.Count == 0) return $"{initiator}-{acceptor}: no peer initiator";
            }
        }
        foreach (string initiator in new[] { "fixengine", "fixengine-yield", "fixengine-completion" })
        {
            foreach (string acceptor in new[] { "qfcpp", "qfn" })
            {
                RoundTripConfiguration? c = RoundTripConfigurations.Find($"{initiator}-{acceptor}");
                if (c?.Factory is null || c.Peers.Count != 1) return $"{initiator}-{acceptor}: no harness initiator with a peer acceptor";
            }
        }
        if (!RoundTripOptions.Parse(["--pacing", "spin"]).PlanFor(10_000).SpinPacing || RoundTripOptions.Parse([]).PlanFor(10_000).SpinPacing)
        {
            return "--pacing spin does not reach the run plan, or spin is the default";
        }
        if (!RoundTripOptions.Parse(["--help"]).Help || RoundTripOptions.Parse([]).Help) return "--help is not recognised, or is the default";
        RoundTripOptions comparison = RoundTripOptions.Parse(["--configs", "comparison"]);
        return comparison.Configs.Count == RoundTripConfigurations.ComparisonKeys.Count ? null : "--configs comparison does not expand";
    }

    private static string? PeerProtocolParses()
    {
        Dictionary<string, string> f = PeerInitiatorRun.ParseFields("DONE sent=10 received=9 errors=0 saturated=1 gc=1/0/0 bytes=123");
        if (f["sent"] != "10" || f["received"] != "9" || f["saturated"] != "1" || f["gc"] != "1/0/0" || f["bytes"] != "123") return "DONE fields";
        if (ChildProcessSystem.ParseWindow("x", "WINDOW n/a") is not null) return "WINDOW n/a is not null";
        if (ChildProcessSystem.ParseWindow("x", "WINDOW 1 2 3 4") != new ProcessWindow(1, 2, 3, 4)) return "WINDOW 1 2 3 4";
        string path = Path.GetTempFileName();
        try
        {
            long[] samples = [10_000, 20_000, -5, 120_000_000_000];
            File.WriteAllBytes(path, System.Runtime.InteropServices.MemoryMarshal.AsBytes(samples.AsSpan()).ToArray());
            HistogramBase h = PeerInitiatorRun.ReadSamples(path);
            if (h.TotalCount != 4) return $"{h.TotalCount} samples read, expected 4";
            if (h.GetMaxValue() < Histograms.HighestTrackableNs * 0.99) return $"max {h.GetMaxValue()}: the 120 s sample was not clamped to 60 s";
            File.WriteAllBytes(path, new byte[12]);
            try
            {
                PeerInitiatorRun.ReadSamples(path);
                return "a 12-byte sample file was accepted";
            }
            catch (InvalidOperationException)
            {
            }
        }
        finally
        {
            File.Delete(path);
        }
        return null;
    }

    private static string? QuickModeIsTimeBounded()
    {
        RoundTripOptions quick = RoundTripOptions.Parse(["--quick"]);
        foreach (int rate in new[] { 2_000, 10_000, 50_000 })
        {
            RunPlan p = quick.PlanFor(rate);
            if (p.MeasuredCount > rate * 1.0 + 1) return $"quick {rate}/s measures {p.MeasuredCount} orders, more than 1 s of schedule";
            if (p.SendLagLimitNs <= 0) return "quick open loop has no lag limit";
        }
        RunPlan closed = quick.PlanFor(0);
        if (closed.ClosedLoopMaxNs <= 0 || closed.ClosedLoopMaxNs > 2_000_000_000) return $"quick closed loop bounded at {closed.ClosedLoopMaxNs} ns";
        if (closed.WarmupMaxNs <= 0 || closed.WarmupHardMaxNs < closed.WarmupMaxNs) return "quick warm-up not time-bounded";
        if (quick.Runs < 2) return "quick mode has a single run: no run-to-run variation";
        RoundTripOptions full = RoundTripOptions.Parse(["--full"]);
        RunPlan f = full.PlanFor(2_000);
        if (f.WarmupCount != 100_000 || f.MeasuredCount != 1_000_000 || f.WarmupMaxNs != 0 || f.WarmupHardMaxNs != 0)
        {
            return $"full plan {f}";
        }
        if (full.PlanFor(0).ClosedLoopMaxNs != 0 || full.Runs < 3) return "full closed loop time-bounded or fewer than 3 runs";
        if (full.OrdersPerRun < 1_100_000) return $"full stores sized for {full.OrdersPerRun} orders";
        return null;
    }

    private static string? SessionConfigurationsAreRegistered()
    {
        foreach (string mode in new[] { "default", "busy", "yield", "backoff", "completion" })
        {
            foreach (string store in new[] { "mem", "file", "filebatch", "filesync" })
            {
                foreach (string processes in new[] { "1proc", "2proc" })
                {
                    string key = $"session-{mode}-{store}-{processes}";
                    RoundTripConfiguration? c = RoundTripConfigurations.Find(key);
                    if (c is null) return $"{key} missing";
                    if (c.Factory is null) return $"{key} has no factory";
                    if (!c.IsAvailable)
                    {
                        return $"{key} unavailable: {c.UnavailableReason}";
                    }
                }
            }
        }
        return null;
    }

    private static string? SessionRoleRoundTrips()
    {
        var spec = new EngineSessionSpec(FixEngine.Config.IdleStrategyKind.Yielding, true, FixEngine.Transport.ReceiveMode.Completion, 51_234);
        if (!EngineSessionSpec.TryParseRole(spec.ToRole(), out EngineSessionSpec parsed) || parsed != spec) return $"'{spec.ToRole()}' does not parse back";
        foreach (string sync in new[] { "Batched", "PerMessage" })
        {
            EngineSessionSpec synced = spec with { FileSync = sync };
            if (!EngineSessionSpec.TryParseRole(synced.ToRole(), out EngineSessionSpec back) || back != synced) return $"'{synced.ToRole()}' does not parse back";
            if (!synced.CommonSettings("/tmp/x").Contains("FileStoreSync=" + sync, StringComparison.Ordinal)) return $"settings of '{synced.ToRole()}' lack FileStoreSync={sync}";
        }
        foreach (string bad in new[] { "codec", "session:Yielding:mem:BusyPoll", "session:Fast:mem:BusyPoll:10", "session:Yielding:disk:BusyPoll:10", "session:Yielding:mem:BusyPoll:-1" })
        {
            if (EngineSessionSpec.TryParseRole(bad, out _)) return $"'{bad}' parsed";
        }
        string settings = spec.CommonSettings("/tmp/x");
        foreach (string line in new[] { "IdleStrategy=Yielding", "ReceiveMode=Completion", "FileStorePath=/tmp/x", "FileStoreSync=OS", "StoreIndexCapacity=52258", "MemoryStoreCapacityBytes=16722560" })
        {
            if (!settings.Contains(line, StringComparison.Ordinal)) return $"settings lack '{line}':\n{settings}";
        }
        return null;
    }

    private static string? ChildProcessLifecycle()
    {
        var system = new ChildProcessSystem("codec-2proc", ChildProcessSystem.CodecAcceptorRole, port => new CodecTcpSystem("codec-2proc", port));
        var handler = new CountingHandler();
        int pid;
        try
        {
            system.Start(handler);
            pid = system.ChildProcessId;
            if (pid == 0) return "no child process id";
            if (system.CompiledMethodCount() <= 0) return "child reports no compiled methods";
            system.BeginWindow();
            for (int i = 1; i <= 100; i++)
            {
                system.SendOrder(i, i);
                for (int spin = 0; System.Threading.Volatile.Read(ref handler.Replies) < i; spin++)
                {
                    if (spin > 5_000_000) return $"no reply to order {i}";
                    System.Threading.Thread.Yield();
                }
            }
            if (system.EndWindow() is not ProcessWindow window) return "the harness's own child reported no window";
            if (OperatingSystem.IsLinux() && system.PeakResidentBytes() is not > 1_000_000) return $"child peak RSS {system.PeakResidentBytes()} B";
            if (window.AllocatedBytes < 0 || window.Gen0 < 0) return $"bad window {window}";
        }
        finally
        {
            system.Stop();
        }
        try
        {
            using var gone = System.Diagnostics.Process.GetProcessById(pid);
            return gone.HasExited ? null : $"child {pid} still running after Stop";
        }
        catch (ArgumentException)
        {
            return null;
        }
    }

    private static string? VerdictSaysWhatHappened()
    {
        static RunResult Run(bool completed, bool saturated, long outstanding, params SessionSideCounters[] sessions) => new()
        {
            Config = "session-yield-mem-1proc", RatePerSecond = 50_000, Histogram = Histograms.Create(), Count = 10,
            AchievedRate = 1, Gen0 = 0, Gen1 = 0, Gen2 = 0, AllocatedBytes = 0, Errors = 0, Completed = completed, Saturated = saturated,
            Outstanding = outstanding, ReplyTimeoutNs = 30_000_000_000, Sessions = sessions.Length == 0 ? null : sessions,
        };
        var initiator = new SessionSideCounters("initiator", true, 1_001, 1_001, 0, 0, 0, 0, 0, 0);
        var acceptor = new SessionSideCounters("acceptor", true, 1_001, 1_001, 0, 0, 0, 0, 0, 0);
        // The acceptor processed 500 of the initiator's 1,000 messages and answered each; the initiator has every answer.
        SessionSideCounters answered = initiator with { NextTargetMsgSeqNum = 501 };
        SessionSideCounters behind = acceptor with { NextTargetMsgSeqNum = 501, NextSenderMsgSeqNum = 501 };
        var cases = new (RunResult Run, string Expected)[]
        {
            (Run(true, false, 0, initiator, acceptor), "yes"),
            (Run(true, true, 0, initiator, acceptor), "SATURATED"),
            (Run(false, false, 7), "NO: 7 replies outstanding 30 s after the last order"),
            // Both sessions processed everything the other sent, yet replies are missing: the harness miscounted.
            (Run(false, false, 7, initiator, acceptor), "harness miscount"),
            // The acceptor is 500 orders behind and nobody saw a gap, resend or back-pressure: a slow drain.
            (Run(false, false, 500, answered, behind), "backlog not drained within the bound: 500 replies outstanding"),
            (Run(false, false, 500, answered, behind), "500 initiator messages not processed by the acceptor, 0 acceptor messages"),
            // Back-pressure alone is flow control, not loss.
            (Run(false, false, 500, answered with { SendBackpressure = 40 }, behind with { SendBackpressure = 9 }), "nothing lost, still in flight"),
            // A gap with early messages queued: lost.
            (Run(false, false, 500, answered, behind with { GapsDetected = 3, QueuedMessages = 499 }), "LOST MESSAGES"),
        };
        foreach ((RunResult run, string expected) in cases)
        {
            if (!run.Verdict.Contains(expected, StringComparison.Ordinal)) return $"verdict '{run.Verdict}' lacks '{expected}'";
        }
        SessionSideCounters wire = acceptor with { GapsDetected = 3, ResendRequestsSent = 1, ResendRequestsReceived = 2, SendBackpressure = 4, SendBacklogHighWaterBytes = 5, QueuedMessages = 6, LoggedOn = false };
        if (!SessionSideCounters.TryParseWire(wire.ToWire(), out SessionSideCounters parsed) || parsed != wire) return $"'{wire.ToWire()}' does not parse back";
        if (SessionSideCounters.TryParseWire("COUNTERS acceptor 1 2", out _)) return "a short counters line parsed";
        var report = new StringWriter();
        MarkdownReport.Write(report, new ReportContext("m", "c", "full", "1", "1", 1, 180, 250),
            [new ConfigRateSummary("session-yield-mem-1proc", 50_000, [cases[4].Run])], []);
        if (!report.ToString().Contains("backlog not drained within the bound", StringComparison.Ordinal)) return "the Runs table does not carry the verdict";
        return null;
    }

    private sealed class CountingHandler : IReplyHandler
    {
        public long Replies;

        public void OnReply(long intendedSendNs) => System.Threading.Interlocked.Increment(ref Replies);

        public void OnReplyError()
        {
        }
    }

    private static string? SvgIsWellFormed()
    {
        var a = Histograms.Create();
        var b = Histograms.Create();
        for (int i = 1; i <= 100_000; i++)
        {
            a.RecordValue(10_000 + i % 1000);
            b.RecordValue(20_000 + i % 5000 + (i == 50_000 ? 5_000_000 : 0));
        }
        var writer = new StringWriter();
        PercentilePlot.Write(writer, "self <check> & plot", [PlotSeries.FromHistogram("floor", a), PlotSeries.FromHistogram("codec", b)]);
        XDocument doc = XDocument.Parse(writer.ToString());
        XNamespace svg = "http://www.w3.org/2000/svg";
        if (doc.Root?.Name != svg + "svg") return "root is not <svg>";
        int polylines = doc.Descendants(svg + "polyline").Count();
        if (polylines != 2) return $"{polylines} polylines, expected 2";
        string[] texts = doc.Descendants(svg + "text").Select(t => t.Value).ToArray();
        foreach (string tick in new[] { "50%", "90%", "99%", "99.9%", "99.99%", "99.999%", "floor", "codec", "self <check> & plot" })
        {
            if (!texts.Contains(tick)) return $"missing text '{tick}'";
        }
        return null;
    }

    private sealed class FrameCounter : IFrameHandler
    {
        public int Frames;
        public int Errors;

        public void OnFrame(ReadOnlySpan<byte> frame) => Frames++;

        public void OnFrameError(FrameStatus status) => Errors++;
    }
}
