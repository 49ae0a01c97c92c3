using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Runtime.InteropServices;
using System.Threading;
using FixEngine.Benchmarks.Diagnostics;
using FixEngine.Engine;
using FixEngine.Timing;
using HdrHistogram;

namespace FixEngine.Benchmarks.RoundTrip;

/// <summary>A run whose initiator (the client that paces orders and times the replies) is a QuickFIX peer program, and
/// whose acceptor is a FixEngine host in this process or another QuickFIX peer.</summary>
/// <remarks>
/// <para>The peer initiator does the warm-up and the measured window itself, with the same plan as the harness's own
/// sender (closed-loop warm-up bounded by count and time, 0.2 s at the run's rate, then the measured orders open loop
/// or closed loop, the same open-loop wait, the intended send time in ClOrdID) and writes one int64 latency (ns) per
/// reply to a file, which this class records into an HdrHistogram. The protocol (see qfpeer.cpp): LOGON, WARM → (with a
/// FixEngine acceptor here: MORE → WARM until a 200 ms slice compiled no method in this process) → this process settles
/// its heap and snapshots GC counts (and BEGINs the acceptor peer's window) → GO, DONE with the counts → END, EXIT.</para>
/// <para>GCs and B/msg: a FixEngine acceptor runs in this process, so the window here is FixEngine's; peers' windows
/// (QuickFIX/n reports its GCs and bytes, QuickFIX C++ has none) go to <see cref="RunResult.Peer"/>. When both sides
/// are peers this process runs no FIX code and its window is not reported as FixEngine's.</para>
/// </remarks>
public sealed class PeerInitiatorRun
{
    private static readonly TimeSpan s_startTimeout = TimeSpan.FromSeconds(60);

    private readonly PeerKind _initiator;
    private readonly PeerKind? _acceptorPeer;
    private readonly EngineSessionSpec? _acceptorSpec;
    private volatile bool _running;

    /// <summary>QuickFIX initiator against a FixEngine acceptor in this process.</summary>
    public PeerInitiatorRun(string name, PeerKind initiator, EngineSessionSpec acceptor)
    {
        Name = name;
        _initiator = initiator;
        _acceptorSpec = acceptor;
    }

    /// <summary>QuickFIX initiator against a QuickFIX acceptor peer.</summary>
    public PeerInitiatorRun(string name, PeerKind initiator, PeerKind acceptor)
    {
        Name = name;
        _initiator = initiator;
        _acceptorPeer = acceptor;
    }

    /// <summary>Report key.</summary>
    public string Name { get; }

    /// <summary>Runs <paramref name="plan"/> once: starts the acceptor and the initiator peer, lets the peer measure,
    /// stops both.</summary>
    public RunResult Run(RunPlan plan)
    {
        long t0 = HighResTime.NowNs();
        FixEngineHost? host = null;
        LineProcess? acceptor = null;
        LineProcess? initiator = null;
        string samplesDirectory = Path.Combine(Path.GetTempPath(), "fixengine-roundtrip-" + Guid.NewGuid().ToString("N"));
        HarnessCleanup.TrackDirectory(samplesDirectory);
        Directory.CreateDirectory(samplesDirectory);
        string samplesPath = Path.Combine(samplesDirectory, "latency.samples");
        try
        {
            int port;
            if (_acceptorSpec is not null)
            {
                host = _acceptorSpec.StartAcceptor(null, OnEngineEvent);
                port = host.AcceptorPorts[0];
            }
            else
            {
                acceptor = new LineProcess(Name + " acceptor", PeerPrograms.StartInfo(_acceptorPeer!.Value, "acceptor", 0));
                port = PeerPrograms.ReportedPort(acceptor, acceptor.Expect("PORT ", s_startTimeout));
            }
            initiator = new LineProcess(Name + " initiator", PeerPrograms.StartInfo(_initiator, "initiator", port, Arguments(plan, samplesPath)));
            initiator.Expect("LOGON", s_startTimeout);
            _running = true;
            long tStarted = HighResTime.NowNs();
            TimeSpan warmupTimeout = TimeSpan.FromSeconds(60 + 2 * plan.ReplyTimeoutNs / 1e9 + (plan.WarmupMaxNs > 0 ? 0 : plan.WarmupCount / 1_000.0));
            initiator.Expect("WARM", warmupTimeout);
            bool jitSettled = host is null || SettleJit(initiator, plan, tStarted);
            long tWarm = HighResTime.NowNs();

            acceptor?.Command("BEGIN");
            acceptor?.Expect("BEGUN", s_startTimeout);
            GC.Collect();
            GC.WaitForPendingFinalizers();
            GC.Collect();
            GC.WaitForPendingFinalizers();
            Thread.Sleep(50);
            // The window is this process's FixEngine acceptor; the harness's own plumbing (this thread writing GO and
            // waiting for DONE, the stdout reader allocating the DONE line) is measured per thread and left out.
            WindowProbe probe = WindowProbe.Take(); // before the snapshot and the plumbing count: taking it allocates
            long plumbingBefore = GC.GetAllocatedBytesForCurrentThread() + initiator.ReaderAllocatedBytes;
            ProcessWindow before = ProcessWindow.Snapshot();
            Diagnostics.AllocationTrace.Begin();
            long tSettled = HighResTime.NowNs();
            initiator.Command("GO");
            double windowSeconds = plan.RatePerSecond > 0 ? plan.MeasuredCount / (double)plan.RatePerSecond : plan.ClosedLoopMaxNs > 0 ? plan.ClosedLoopMaxNs / 1e9 : plan.MeasuredCount / 1_000.0;
            string done = initiator.Expect("DONE ", TimeSpan.FromSeconds(60 + windowSeconds + plan.ReplyTimeoutNs / 1e9));
            ProcessWindow window = ProcessWindow.Snapshot().Since(before);
            Diagnostics.AllocationTrace.End("peer-initiator run window");
            long plumbing = GC.GetAllocatedBytesForCurrentThread() + initiator.ReaderAllocatedBytes - plumbingBefore;
            window = window with { AllocatedBytes = window.AllocatedBytes - plumbing };
            if (window.AllocatedBytes != 0)
            {
                Console.Error.WriteLine(WindowProbe.Take().Describe(probe, Name + " (harness process, plumbing left out)", window.AllocatedBytes, plumbing));
            }
            long tMeasured = HighResTime.NowNs();
            ProcessWindow? acceptorWindow = null;
            if (acceptor is not null)
            {
                acceptor.Command("END");
                acceptorWindow = ChildProcessSystem.ParseWindow(Name, acceptor.Expect("WINDOW ", s_startTimeout));
            }

            Dictionary<string, string> fields = ParseFields(done);
            long sent = Field(fields, "sent"), received = Field(fields, "received"), first = Field(fields, "first"), last = Field(fields, "last");
            ProcessWindow? initiatorWindow = null;
            if (fields.TryGetValue("gc", out string? gc) && fields.TryGetValue("bytes", out string? bytes))
            {
                string[] g = gc.Split('/');
                initiatorWindow = new ProcessWindow(int.Parse(g[0], CultureInfo.InvariantCulture), int.Parse(g[1], CultureInfo.InvariantCulture),
                    int.Parse(g[2], CultureInfo.InvariantCulture), long.Parse(bytes, CultureInfo.InvariantCulture));
            }
            ProcessWindow? peer = initiatorWindow is ProcessWindow i
                ? acceptorWindow is ProcessWindow a ? i.Plus(a) : i
                : acceptorWindow;
            HistogramBase histogram = ReadSamples(samplesPath);
            long? childPeak = Max(initiator.PeakResidentBytes(), acceptor?.PeakResidentBytes());
            IReadOnlyList<SessionSideCounters>? sessions = host is null ? null : [SessionSideCounters.Of("acceptor", host.Sessions[0])];
            bool fixEngine = host is not null;
            var result = new RunResult
            {
                Config = Name,
                RatePerSecond = plan.RatePerSecond,
                Histogram = histogram,
                Count = received,
                Sent = sent,
                Planned = plan.MeasuredCount,
                WarmupSent = Field(fields, "warmup"),
                JitSettled = jitSettled,
                Saturated = Field(fields, "saturated") != 0,
                AchievedRate = received * 1e9 / Math.Max(1, last - first),
                Gen0 = fixEngine ? window.Gen0 : 0,
                Gen1 = fixEngine ? window.Gen1 : 0,
                Gen2 = fixEngine ? window.Gen2 : 0,
                AllocatedBytes = fixEngine ? window.AllocatedBytes : 0,
                FixEngineMeasured = fixEngine,
                Peer = peer,
                ChildPeakResidentBytes = childPeak,
                Errors = Field(fields, "errors"),
                Completed = Field(fields, "completed") != 0 && received == sent,
                Outstanding = Field(fields, "outstanding"),
                ReplyTimeoutNs = plan.ReplyTimeoutNs,
                Sessions = sessions,
                Phases = new RunPhases(tStarted - t0, tWarm - tStarted, tSettled - tWarm, tMeasured - tSettled, 0),
            };
            long tStop = HighResTime.NowNs();
            StopAll(ref initiator, ref acceptor, ref host);
            result.Phases = result.Phases with { StopNs = HighResTime.NowNs() - tStop };
            return result;
        }
        finally
        {
            StopAll(ref initiator, ref acceptor, ref host);
            HarnessCleanup.DeleteDirectory(samplesDirectory);
        }
    }

    /// <summary>With a FixEngine acceptor in this process, asks the peer for more warm-up (MORE, 200 ms closed loop
    /// each) until a slice compiled no method here, as the harness's own warm-up does, at most until the plan's hard
    /// bound (5 s when it has none); true when the JIT settled.</summary>
    private static bool SettleJit(LineProcess initiator, RunPlan plan, long startNs)
    {
        long deadlineNs = startNs + (plan.WarmupHardMaxNs > 0 ? plan.WarmupHardMaxNs : (long)(RoundTripOptions.PeerSettleDefaultSeconds * 1e9));
        long compiled = System.Runtime.JitInfo.GetCompiledMethodCount();
        while (true)
        {
            initiator.Command("MORE");
            initiator.Expect("WARM", TimeSpan.FromSeconds(30 + plan.ReplyTimeoutNs / 1e9));
            long compiledNow = System.Runtime.JitInfo.GetCompiledMethodCount();
            if (compiledNow == compiled) return true;
            compiled = compiledNow;
            if (HighResTime.NowNs() >= deadlineNs) return false;
        }
    }

    private static long? Max(long? a, long? b) => a is null ? b : b is null ? a : Math.Max(a.Value, b.Value);

    private void StopAll(ref LineProcess? initiator, ref LineProcess? acceptor, ref FixEngineHost? host)
    {
        _running = false;
        initiator?.Stop();
        initiator = null;
        acceptor?.Stop();
        acceptor = null;
        host?.Stop(TimeSpan.FromSeconds(3));
        host?.Dispose();
        host = null;
    }

    private static List<string> Arguments(RunPlan plan, string samplesPath)
    {
        static string N(double v) => v.ToString("0.###", CultureInfo.InvariantCulture);
        return
        [
            "--rate", N(plan.RatePerSecond),
            "--warmup", N(plan.WarmupCount),
            "--warmup-seconds", N(plan.WarmupMaxNs / 1e9),
            "--measured", N(plan.MeasuredCount),
            // The plan's measured count is already min(count, rate × seconds) for open loop; closed loop has its own bound.
            "--seconds", N(plan.RatePerSecond > 0 ? 0 : plan.ClosedLoopMaxNs / 1e9),
            "--lag-limit-seconds", N(plan.SendLagLimitNs / 1e9),
            "--reply-timeout-seconds", N(plan.ReplyTimeoutNs / 1e9),
            "--out", samplesPath,
            "--pacing", plan.SpinPacing ? "spin" : "wait",
        ];
    }

    /// <summary>Reads the peer's sample file (little-endian int64 ns per reply) into a histogram.</summary>
    public static HistogramBase ReadSamples(string path)
    {
        HistogramBase histogram = Histograms.Create();
        byte[] bytes = File.ReadAllBytes(path);
        if (bytes.Length % sizeof(long) != 0) throw new InvalidOperationException($"{path}: {bytes.Length} bytes is not a whole number of int64 samples");
        foreach (long ns in MemoryMarshal.Cast<byte, long>(bytes)) Histograms.Record(histogram, ns);
        return histogram;
    }

    /// <summary>Parses <c>DONE key=value ...</c>.</summary>
    public static Dictionary<string, string> ParseFields(string line)
    {
        var fields = new Dictionary<string, string>(StringComparer.Ordinal);
        foreach (string part in line.Split(' ', StringSplitOptions.RemoveEmptyEntries))
        {
            int eq = part.IndexOf('=');
            if (eq > 0) fields[part[..eq]] = part[(eq + 1)..];
        }
        return fields;
    }

    private long Field(Dictionary<string, string> fields, string key) =>
        fields.TryGetValue(key, out string? v) && long.TryParse(v, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out long n)
            ? n
            : throw new InvalidOperationException($"{Name}: the initiator's DONE line has no numeric '{key}'");

    private void OnEngineEvent(string line)
    {
        if (_running && !line.StartsWith("Logon ", StringComparison.Ordinal)) Console.Error.WriteLine($"  {Name} engine: {line}");
    }
}
