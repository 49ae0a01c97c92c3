using System;
using System.Collections.Generic;
using System.Threading;
using FixEngine.Benchmarks.Diagnostics;
using HdrHistogram;
using FixEngine.Timing;

namespace FixEngine.Benchmarks.RoundTrip;

/// <summary>What one run does: warm-up, measured count and rate (0 = flat out, closed loop), and the time bounds.</summary>
/// <param name="WarmupCount">Orders sent closed-loop before measuring (not recorded).</param>
/// <param name="MeasuredCount">Orders recorded (open loop: scheduled; closed loop: at most this many).</param>
/// <param name="RatePerSecond">Open-loop rate; 0 for closed loop (one order in flight, next sent on its reply).</param>
/// <param name="WarmupMaxNs">Warm-up also stops after this long, once the JIT has settled; 0 = count only.</param>
/// <param name="ClosedLoopMaxNs">A closed-loop measured window also stops after this long; 0 = count only.</param>
/// <param name="SendLagLimitNs">An open-loop sender this far behind its schedule stops sending (the system cannot
/// sustain the rate); the run is then marked saturated. 0 = never stop.</param>
/// <param name="ReplyTimeoutNs">How long to wait for outstanding replies before giving up on the run.</param>
/// <param name="WarmupHardMaxNs">Warm-up stops after this long even if the JIT is still compiling; 0 = no bound.</param>
/// <param name="SpinPacing">Open-loop senders spin on the clock for the whole interval (<c>--pacing spin</c>) instead
/// of <see cref="PreciseWait"/>'s sleep, yield, spin; the peers' initiators are told the same.</param>
public sealed record RunPlan(
    int WarmupCount, int MeasuredCount, int RatePerSecond, long WarmupMaxNs = 0, long ClosedLoopMaxNs = 0, long SendLagLimitNs = 0,
    long ReplyTimeoutNs = 30_000_000_000, long WarmupHardMaxNs = 0, bool SpinPacing = false);

/// <summary>Where a run's wall time went, ns.</summary>
/// <param name="StartNs">Creating and starting the system (processes, hosts, logon).</param>
/// <param name="WarmupNs">Closed-loop warm-up.</param>
/// <param name="SettleNs">GC settling and the other process's window start.</param>
/// <param name="MeasureNs">Measured window, including waiting for the last replies.</param>
/// <param name="StopNs">Stopping the system (logouts, joins, child exit).</param>
public readonly record struct RunPhases(long StartNs, long WarmupNs, long SettleNs, long MeasureNs, long StopNs)
{
    /// <summary>All phases.</summary>
    public long TotalNs => StartNs + WarmupNs + SettleNs + MeasureNs + StopNs;

    /// <summary>Phase-wise sum.</summary>
    public RunPhases Plus(RunPhases o) =>
        new(StartNs + o.StartNs, WarmupNs + o.WarmupNs, SettleNs + o.SettleNs, MeasureNs + o.MeasureNs, StopNs + o.StopNs);

    /// <summary>"start 0.4 s, warm-up 0.5 s, ...".</summary>
    public override string ToString() =>
        string.Create(System.Globalization.CultureInfo.InvariantCulture,
            $"start {StartNs / 1e9:0.00} s, warm-up {WarmupNs / 1e9:0.00} s, settle {SettleNs / 1e9:0.00} s, measure {MeasureNs / 1e9:0.00} s, stop {StopNs / 1e9:0.00} s");
}

/// <summary>The measurements of one run.</summary>
public sealed class RunResult
{
    /// <summary>Configuration key.</summary>
    public required string Config { get; init; }

    /// <summary>Target rate (0 = max).</summary>
    public required int RatePerSecond { get; init; }

    /// <summary>Round-trip latency from intended send to reply receipt, ns.</summary>
    public required HistogramBase Histogram { get; init; }

    /// <summary>Replies received in the measured window.</summary>
    public required long Count { get; init; }

    /// <summary>Orders the plan scheduled for the measured window (closed loop: the count bound).</summary>
    public long Planned { get; init; }

    /// <summary>Warm-up orders actually sent (the count or the time bound, whichever came first).</summary>
    public long WarmupSent { get; init; }

    /// <summary>False when the warm-up ended while the JIT was still compiling (hard bound reached): first-use
    /// allocations may then appear in the window.</summary>
    public bool JitSettled { get; init; } = true;

    /// <summary>True when an open-loop sender fell so far behind that it stopped before sending every planned order:
    /// the system could not sustain the rate, and the orders never sent are not in the histogram.</summary>
    public bool Saturated { get; init; }

    /// <summary>Measured orders / (last reply - first intended send), per second.</summary>
    public required double AchievedRate { get; init; }

    /// <summary>Gen 0 collections during the measured window in this (the initiator's) process.</summary>
    public required int Gen0 { get; init; }

    /// <summary>Gen 1 collections in this process.</summary>
    public required int Gen1 { get; init; }

    /// <summary>Gen 2 collections in this process.</summary>
    public required int Gen2 { get; init; }

    /// <summary>Bytes allocated in this process during the measured window.</summary>
    public required long AllocatedBytes { get; init; }

    /// <summary>The FixEngine acceptor process's counts over the same window, for two-process configurations.</summary>
    public ProcessWindow? Child { get; init; }

    /// <summary>The QuickFIX peer processes' counts over the window (QuickFIX/n: GCs and bytes; QuickFIX C++ has no GC
    /// and reports none), summed when both sides are peers; null when no peer reported one. Not part of
    /// <see cref="Total"/>, which is FixEngine's.</summary>
    public ProcessWindow? Peer { get; init; }

    /// <summary>True when the harness process ran FixEngine code in this configuration (false when both sides are
    /// QuickFIX peers: this process then only waits, and its window is not FixEngine's).</summary>
    public bool FixEngineMeasured { get; init; } = true;

    /// <summary>Largest peak resident set size (VmHWM) of the run's child processes (FixEngine acceptor child or
    /// QuickFIX peers), read at the end of the run; null for one-process configurations or where it cannot be read.</summary>
    public long? ChildPeakResidentBytes { get; init; }

    /// <summary>Orders sent in the measured window (the sender may stop early when saturated).</summary>
    public long Sent { get; init; }

    /// <summary>Replies that could not be read, or acceptor errors seen as missing replies.</summary>
    public required long Errors { get; init; }

    /// <summary>False when replies were still missing at the timeout.</summary>
    public required bool Completed { get; init; }

    /// <summary>Where the run's wall time went.</summary>
    public RunPhases Phases { get; set; }

    /// <summary>Orders sent in the whole run (warm-up included) whose reply had not arrived when the run ended.</summary>
    public long Outstanding { get; init; }

    /// <summary>How long the run waited for outstanding replies after its last order (<see cref="RunPlan.ReplyTimeoutNs"/>).</summary>
    public long ReplyTimeoutNs { get; init; }

    /// <summary>The FIX sessions' counters after the run (initiator, then acceptor), or null for configurations without
    /// sessions or when they could not be read.</summary>
    public IReadOnlyList<SessionSideCounters>? Sessions { get; init; }

    /// <summary>"yes", "SATURATED" or why replies are missing (<see cref="RunVerdict"/>).</summary>
    public string Verdict => RunVerdict.Describe(this);

    /// <summary>This process's window, plus the child's when there is one.</summary>
    public ProcessWindow Total => new ProcessWindow(Gen0, Gen1, Gen2, AllocatedBytes).Plus(Child ?? default);

    /// <summary>The run recorded at least one latency (a failed run, or one whose replies never came, has none).</summary>
    public bool HasSamples => Failure is null && Histogram.TotalCount > 0;

    /// <summary>Why the run could not start or crashed (the exception's message), or null for a run that measured.</summary>
    public string? Failure { get; init; }

    /// <summary>A run that could not start or crashed: empty histogram, not completed, <see cref="Failure"/> set. The
    /// report leaves it out of percentiles and rates and names the reason in its verdict.</summary>
    public static RunResult Failed(string config, int ratePerSecond, string reason) => new()
    {
        Config = config, RatePerSecond = ratePerSecond, Histogram = Histograms.Create(), Count = 0,
        AchievedRate = 0, Gen0 = 0, Gen1 = 0, Gen2 = 0, AllocatedBytes = 0, Errors = 0, Completed = false,
        Failure = reason,
    };

    /// <summary>Bytes allocated per measured message, all processes of the configuration.</summary>
    public double BytesPerMessage => Count == 0 ? 0 : (double)Total.AllocatedBytes / Count;
}

/// <summary>Drives one system through warm-up and a measured window and records round-trip latency.</summary>
/// <remarks>
/// The calling thread is the sender; the system's receive thread calls <see cref="OnReply"/>. One runner per run.
/// The measured window (between the GC snapshots) allocates nothing in the runner: the histogram is preallocated and
/// recording is O(1).
/// </remarks>
public sealed class RoundTripRunner : IReplyHandler
{
    // Design: the receive thread is the only writer of _histogram, _lastReplyNs, _received and _errors; it publishes
    // _received with a release write after updating the others, and the sender reads it with an acquire read, so
    // once the sender sees _received == sent it may read _lastReplyNs and (after the thread is stopped) the
    // histogram. _recording is written only by the sender between phases, while no reply is outstanding.
    // PERF: no padding between _received and the sender's fields: the sender only reads _received while waiting.
    private readonly HistogramBase _histogram = Histograms.Create();
    private long _received;
    private long _errors;
    private long _lastReplyNs;
    private bool _recording;

    /// <inheritdoc/>
    public void OnReply(long intendedSendNs)
    {
        long nowNs = HighResTime.NowNs();
        if (Volatile.Read(ref _recording)) Histograms.Record(_histogram, nowNs - intendedSendNs);
        _lastReplyNs = nowNs;
        Volatile.Write(ref _received, _received + 1);
    }

    /// <inheritdoc/>
    public void OnReplyError()
    {
        Interlocked.Increment(ref _errors);
    }

    /// <summary>Runs <paramref name="plan"/> on a started-here, stopped-here system.</summary>
    public RunResult Run(IRoundTripSystem system, RunPlan plan)
    {
        long t0 = HighResTime.NowNs();
        system.Start(this);
        long tStarted = HighResTime.NowNs();
        long tWarm = tStarted, tSettled = tStarted, tMeasured = tStarted;
        RunResult? result = null;
        try
        {
            long seqNum = 1;
            var remote = system as IMeasuredWindow;
            bool completed = WarmUp(system, remote, plan, tStarted, ref seqNum, out bool jitSettled);
            long warmupSent = seqNum - 1;
            tWarm = HighResTime.NowNs();

            // Pay the open-loop wait's one-time costs (P/Invoke stub, statics) outside the measured window.
            PreciseWait.Until(HighResTime.NowNs() + 2 * PreciseWait.SpinMarginNs);
            remote?.BeginWindow();
            // Settle: let the previous run's teardown (finalizers, runtime background work) finish outside the window.
            // Without the second wait and the pause, ~336 B per run appeared process-wide in the window while the
            // sender, receive and acceptor threads each measured 0 B (GetAllocatedBytesForCurrentThread diagnostic).
            GC.Collect();
            GC.WaitForPendingFinalizers();
            GC.Collect();
            GC.WaitForPendingFinalizers();
            Thread.Sleep(50);
            WindowProbe probe = WindowProbe.Take(); // before the snapshot: taking it allocates
            ProcessWindow before = ProcessWindow.Snapshot();
            long threadStart = GC.GetAllocatedBytesForCurrentThread();
            Diagnostics.AllocationTrace.Begin();
            long receivedBefore = Volatile.Read(ref _received);
            Volatile.Write(ref _recording, true);
            tSettled = HighResTime.NowNs();

            long firstIntendedNs;
            bool saturated = false;
            if (!completed)
            {
                firstIntendedNs = HighResTime.NowNs();
            }
            else if (plan.RatePerSecond <= 0)
            {
                firstIntendedNs = HighResTime.NowNs();
                completed = SendClosedLoop(system, plan.MeasuredCount, Deadline(firstIntendedNs, plan.ClosedLoopMaxNs), ref seqNum, plan.ReplyTimeoutNs);
            }
            else
            {
                firstIntendedNs = HighResTime.NowNs() + 100_000;
                saturated = !SendOpenLoop(system, plan.MeasuredCount, new OpenLoopSchedule(firstIntendedNs, plan.RatePerSecond), plan.SendLagLimitNs, plan.SpinPacing, ref seqNum);
                completed = WaitForReplies(seqNum - 1, plan.ReplyTimeoutNs);
            }

            ProcessWindow window = ProcessWindow.Snapshot().Since(before);
            long threadBytes = GC.GetAllocatedBytesForCurrentThread() - threadStart;
            Diagnostics.AllocationTrace.End(system.Name);
            // A window that allocated: say what else ran in it (the sender's own bytes, the engine threads', the JIT's
            // and the thread pool's activity), on stderr beside the run's other diagnostics.
            if (window.AllocatedBytes != 0) Console.Error.WriteLine(WindowProbe.Take().Describe(probe, system.Name, window.AllocatedBytes, threadBytes));
            long count = Volatile.Read(ref _received) - receivedBefore;
            long lastReplyNs = _lastReplyNs;
            Volatile.Write(ref _recording, false);
            tMeasured = HighResTime.NowNs();
            ProcessWindow? remoteWindow = remote?.EndWindow();
            ProcessWindow? child = remote is { IsFixEngineProcess: true } ? remoteWindow : null;
            ProcessWindow? peer = remote is { IsFixEngineProcess: false } ? remoteWindow : null;
            long measuredSent = seqNum - 1 - warmupSent;
            long? childPeak = remote?.PeakResidentBytes();
            long outstanding = seqNum - 1 - Volatile.Read(ref _received);
            IReadOnlyList<SessionSideCounters>? sessions = (system as ISessionCounterSource)?.ReadSessionCounters();

            long elapsedNs = Math.Max(1, lastReplyNs - firstIntendedNs);
            result = new RunResult
            {
                Config = system.Name,
                RatePerSecond = plan.RatePerSecond,
                Histogram = _histogram,
                Count = count,
                Planned = plan.MeasuredCount,
                WarmupSent = warmupSent,
                JitSettled = jitSettled,
                Saturated = saturated,
                AchievedRate = count * 1e9 / elapsedNs,
                Gen0 = window.Gen0,
                Gen1 = window.Gen1,
                Gen2 = window.Gen2,
                AllocatedBytes = window.AllocatedBytes,
                Child = child,
                Peer = peer,
                Sent = measuredSent,
                ChildPeakResidentBytes = childPeak,
                Errors = Interlocked.Read(ref _errors),
                Completed = completed,
                Outstanding = outstanding,
                ReplyTimeoutNs = plan.ReplyTimeoutNs,
                Sessions = sessions,
                Phases = new RunPhases(tStarted - t0, tWarm - tStarted, tSettled - tWarm, tMeasured - tSettled, 0),
            };
            return result;
        }
        finally
        {
            long tStop = HighResTime.NowNs();
            system.Stop();
            if (result is not null) result.Phases = result.Phases with { StopNs = HighResTime.NowNs() - tStop };
        }
    }

    /// <summary>Warm-up. First closed loop in slices of <see cref="WarmupSliceNs"/>: runs until the count or the time bound is
    /// reached and, in addition, until a whole slice compiled no method in any process of the system (the JIT has
    /// settled: tier-1 promotion happens on a background thread that a loaded machine starves, and its first-use
    /// allocations would otherwise land in the measured window). Extra slices stop at twice the count or
    /// <see cref="RunPlan.WarmupHardMaxNs"/>; <paramref name="jitSettled"/> says whether the JIT settled. Then, for an
    /// open-loop run, <see cref="RateWarmupNs"/> at the run's rate.</summary>
    private bool WarmUp(IRoundTripSystem system, IMeasuredWindow? remote, RunPlan plan, long startNs, ref long seqNum, out bool jitSettled)
    {
        long softDeadlineNs = Deadline(startNs, plan.WarmupMaxNs);
        long hardDeadlineNs = Deadline(startNs, plan.WarmupHardMaxNs);
        long hardCount = 2L * plan.WarmupCount;
        long firstSeqNum = seqNum;
        long compiled = CompiledMethods(remote);
        while (true)
        {
            long sliceEndNs = Math.Min(HighResTime.NowNs() + WarmupSliceNs, hardDeadlineNs);
            long remaining = hardCount - (seqNum - firstSeqNum);
            if (!SendClosedLoop(system, (int)Math.Min(int.MaxValue, remaining), sliceEndNs, ref seqNum, plan.ReplyTimeoutNs))
            {
                jitSettled = false;
                return false;
            }
            long compiledNow = CompiledMethods(remote);
            jitSettled = compiledNow == compiled;
            compiled = compiledNow;
            long nowNs = HighResTime.NowNs();
            bool bounded = seqNum - firstSeqNum >= plan.WarmupCount || nowNs >= softDeadlineNs;
            if ((bounded && jitSettled) || nowNs >= hardDeadlineNs || seqNum - firstSeqNum >= hardCount) break;
        }
        if (plan.RatePerSecond <= 0) return true;

        // Then short open-loop bursts at the run's rate: buffers that grow with the number of messages in flight
        // (the transport's receive buffer, pooled send queues) reach their size here rather than in the window. A burst
        // also reaches code the closed loop did not (send back-pressure, the receive pause, the drain thread at 50k/s):
        // compiled at tier 0 then, it was promoted on the tiering thread about 100 ms later, inside the window, and such
        // a promotion allocated there (the 6,192 B two-process acceptor windows: 12 of 60 runs with tiered compilation,
        // 0 of 36 with DOTNET_TieredCompilation=0). So bursts repeat until one compiles no method, within the bounds.
        int burst = (int)Math.Max(1, plan.RatePerSecond * (RateWarmupNs / 1e9));
        for (int round = 0; ; round++)
        {
            long before = CompiledMethods(remote);
            SendOpenLoop(system, burst, new OpenLoopSchedule(HighResTime.NowNs() + 100_000, plan.RatePerSecond), plan.SendLagLimitNs, plan.SpinPacing, ref seqNum);
            if (!WaitForReplies(seqNum - 1, plan.ReplyTimeoutNs)) return false;
            if (CompiledMethods(remote) == before) return true;
            if (round + 1 >= MaxRateWarmupBursts || HighResTime.NowNs() >= hardDeadlineNs)
            {
                jitSettled = false;
                return true;
            }
        }
    }

    /// <summary>Open-loop warm-up bursts at most, each <see cref="RateWarmupNs"/> long.</summary>
    public const int MaxRateWarmupBursts = 10;

    /// <summary>Length of the open-loop part of the warm-up at the run's rate.</summary>
    public const long RateWarmupNs = 200_000_000;

    /// <summary>A warm-up slice: long enough for the tiering delay (100 ms) to pass without new tier-0 code.</summary>
    private const long WarmupSliceNs = 200_000_000;

    private static long CompiledMethods(IMeasuredWindow? remote) =>
        System.Runtime.JitInfo.GetCompiledMethodCount() + (remote?.CompiledMethodCount() ?? 0);

    private static long Deadline(long fromNs, long maxNs) => maxNs > 0 ? fromNs + maxNs : long.MaxValue;

    private bool SendClosedLoop(IRoundTripSystem system, int count, long deadlineNs, ref long seqNum, long timeoutNs)
    {
        for (int i = 0; i < count; i++)
        {
            long nowNs = HighResTime.NowNs();
            if (nowNs >= deadlineNs) return true;
            system.SendOrder(seqNum, nowNs);
            bool replied = WaitForReplies(seqNum, timeoutNs);
            seqNum++;
            if (!replied) return false;
        }
        return true;
    }

    /// <summary>Sends on schedule; false when it stopped early because it fell <paramref name="lagLimitNs"/> behind.</summary>
    private static bool SendOpenLoop(IRoundTripSystem system, int count, OpenLoopSchedule schedule, long lagLimitNs, bool spin, ref long seqNum)
    {
        for (int i = 0; i < count; i++)
        {
            long intendedNs = schedule.IntendedNs(i);
            if (spin) PreciseWait.SpinUntil(intendedNs);
            else PreciseWait.Until(intendedNs);
            if (lagLimitNs > 0 && HighResTime.NowNs() - intendedNs > lagLimitNs) return false;
            system.SendOrder(seqNum++, intendedNs);
        }
        return true;
    }

    private bool WaitForReplies(long target, long timeoutNs)
    {
        long startNs = 0;
        int spins = 0;
        while (Volatile.Read(ref _received) < target)
        {
            if (++spins < 50)
            {
                Thread.SpinWait(10);
                continue;
            }
            Thread.Yield();
            if ((spins & 1023) == 0)
            {
                long nowNs = HighResTime.NowNs();
                if (startNs == 0) startNs = nowNs;
                else if (nowNs - startNs > timeoutNs) return false;
            }
        }
        return true;
    }
}
