using System;
using System.Threading;
using FixEngine.Diagnostics;
using FixEngine.Timing;

namespace FixEngine.Benchmarks.RoundTrip;

/// <summary>What one run does: warm-up count, measured count and rate (0 = flat out, closed loop).</summary>
/// <param name="WarmupCount">Orders sent closed-loop before measuring (not recorded).</param>
/// <param name="MeasuredCount">Orders recorded.</param>
/// <param name="RatePerSecond">Open-loop rate; 0 for closed loop (one order in flight, next sent on its reply).</param>
/// <param name="ReplyTimeoutNs">How long to wait for outstanding replies before giving up on the run.</param>
public sealed record RunPlan(int WarmupCount, int MeasuredCount, int RatePerSecond, long ReplyTimeoutNs = 30_000_000_000);

/// <summary>The measurements of one run.</summary>
public sealed class RunResult
{
    /// <summary>Configuration key.</summary>
    public required string Config { get; init; }

    /// <summary>Target rate (0 = max).</summary>
    public required int RatePerSecond { get; init; }

    /// <summary>Round-trip latency from intended send to reply receipt, ns.</summary>
    public required LatencyHistogram Histogram { get; init; }

    /// <summary>Replies received in the measured window.</summary>
    public required long Count { get; init; }

    /// <summary>Measured orders / (last reply - first intended send), per second.</summary>
    public required double AchievedRate { get; init; }

    /// <summary>Gen 0, 1, 2 collections during the measured window.</summary>
    public required int Gen0 { get; init; }

    /// <summary>Gen 1 collections.</summary>
    public required int Gen1 { get; init; }

    /// <summary>Gen 2 collections.</summary>
    public required int Gen2 { get; init; }

    /// <summary>Process-wide bytes allocated during the measured window.</summary>
    public required long AllocatedBytes { get; init; }

    /// <summary>Replies that could not be read, or acceptor errors seen as missing replies.</summary>
    public required long Errors { get; init; }

    /// <summary>False when replies were still missing at the timeout.</summary>
    public required bool Completed { get; init; }

    /// <summary>A run that could not start or crashed: empty histogram, not completed.</summary>
    public static RunResult Failed(string config, int ratePerSecond) => new()
    {
        Config = config, RatePerSecond = ratePerSecond, Histogram = new LatencyHistogram(1, 60_000_000_000, 3), Count = 0,
        AchievedRate = 0, Gen0 = 0, Gen1 = 0, Gen2 = 0, AllocatedBytes = 0, Errors = 0, Completed = false,
    };

    /// <summary>Bytes allocated per measured message.</summary>
    public double BytesPerMessage => Count == 0 ? 0 : (double)AllocatedBytes / Count;
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
    private readonly LatencyHistogram _histogram = new(1, 60_000_000_000, 3);
    private long _received;
    private long _errors;
    private long _lastReplyNs;
    private bool _recording;

    /// <inheritdoc/>
    public void OnReply(long intendedSendNs)
    {
        long nowNs = HighResTime.NowNs();
        if (Volatile.Read(ref _recording)) _histogram.RecordValue(nowNs - intendedSendNs);
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
        system.Start(this);
        try
        {
            long seqNum = 1;
            bool completed = SendClosedLoop(system, plan.WarmupCount, ref seqNum, plan.ReplyTimeoutNs);

            // Pay the open-loop wait's one-time costs (P/Invoke stub, statics) outside the measured window.
            PreciseWait.Until(HighResTime.NowNs() + 2 * PreciseWait.SpinMarginNs);
            // Settle: let the previous run's teardown (finalizers, runtime background work) finish outside the window.
            // Without the second wait and the pause, ~336 B per run appeared process-wide in the window while the
            // sender, receive and acceptor threads each measured 0 B (GetAllocatedBytesForCurrentThread diagnostic).
            GC.Collect();
            GC.WaitForPendingFinalizers();
            GC.Collect();
            GC.WaitForPendingFinalizers();
            Thread.Sleep(50);
            int gen0 = GC.CollectionCount(0), gen1 = GC.CollectionCount(1), gen2 = GC.CollectionCount(2);
            long allocated = GC.GetTotalAllocatedBytes(true);
            long receivedBefore = Volatile.Read(ref _received);
            Volatile.Write(ref _recording, true);

            long firstIntendedNs;
            if (!completed)
            {
                firstIntendedNs = HighResTime.NowNs();
            }
            else if (plan.RatePerSecond <= 0)
            {
                firstIntendedNs = HighResTime.NowNs();
                completed = SendClosedLoop(system, plan.MeasuredCount, ref seqNum, plan.ReplyTimeoutNs);
            }
            else
            {
                firstIntendedNs = HighResTime.NowNs() + 100_000;
                SendOpenLoop(system, plan.MeasuredCount, new OpenLoopSchedule(firstIntendedNs, plan.RatePerSecond), ref seqNum);
                completed = WaitForReplies(seqNum - 1, plan.ReplyTimeoutNs);
            }

            long allocatedAfter = GC.GetTotalAllocatedBytes(true);
            int gen0After = GC.CollectionCount(0), gen1After = GC.CollectionCount(1), gen2After = GC.CollectionCount(2);
            long count = Volatile.Read(ref _received) - receivedBefore;
            long lastReplyNs = _lastReplyNs;
            Volatile.Write(ref _recording, false);
            system.Stop();

            long elapsedNs = Math.Max(1, lastReplyNs - firstIntendedNs);
            return new RunResult
            {
                Config = system.Name,
                RatePerSecond = plan.RatePerSecond,
                Histogram = _histogram,
                Count = count,
                AchievedRate = count * 1e9 / elapsedNs,
                Gen0 = gen0After - gen0,
                Gen1 = gen1After - gen1,
                Gen2 = gen2After - gen2,
                AllocatedBytes = allocatedAfter - allocated,
                Errors = Interlocked.Read(ref _errors),
                Completed = completed,
            };
        }
        finally
        {
            system.Stop();
        }
    }

    private bool SendClosedLoop(IRoundTripSystem system, int count, ref long seqNum, long timeoutNs)
    {
        for (int i = 0; i < count; i++)
        {
            long nowNs = HighResTime.NowNs();
            system.SendOrder(seqNum, nowNs);
            if (!WaitForReplies(seqNum, timeoutNs)) return false;
            seqNum++;
        }
        return true;
    }

    private static void SendOpenLoop(IRoundTripSystem system, int count, OpenLoopSchedule schedule, ref long seqNum)
    {
        for (int i = 0; i < count; i++)
        {
            long intendedNs = schedule.IntendedNs(i);
            PreciseWait.Until(intendedNs);
            system.SendOrder(seqNum++, intendedNs);
        }
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
