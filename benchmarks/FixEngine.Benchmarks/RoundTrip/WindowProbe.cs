using System;
using System.Collections.Generic;
using System.Globalization;
using System.Text;
using System.Threading;

namespace FixEngine.Benchmarks.RoundTrip;

/// <summary>Counters of this process taken at both ends of a measured window, to say what ran in a window that
/// allocated: the engine threads' bytes (published by each engine thread when the
/// process runs with <c>FIXENGINE_THREAD_ALLOCATIONS=1</c>; see <see cref="EngineThreadAllocations"/>), methods the JIT
/// compiled, thread-pool work items and threads, timers and Monitor contentions.</summary>
/// <remarks>Taking one allocates (about 600 B the first time, and the engine threads' list): take the start probe before
/// the window's start snapshot and the end probe after its end snapshot.</remarks>
internal readonly record struct WindowProbe(
    long JitMethods, long JitIlBytes, long WorkItems, int PoolThreads, long Timers, long Contentions,
    bool EngineMeasured, IReadOnlyList<(long Id, string Thread, long Bytes)> EngineThreads)
{
    /// <summary>Reads the counters now, on the measuring thread.</summary>
    public static WindowProbe Take()
    {
        IReadOnlyList<(long, string, long)> engine = EngineThreadAllocations.Snapshot();
        return new(System.Runtime.JitInfo.GetCompiledMethodCount(), System.Runtime.JitInfo.GetCompiledILBytes(),
            ThreadPool.CompletedWorkItemCount, ThreadPool.ThreadCount, Timer.ActiveCount, Monitor.LockContentionCount,
            EngineThreadAllocations.Enabled, engine);
    }

    /// <summary>One line: what the window (from <paramref name="start"/> to this probe) allocated and what else ran in it.</summary>
    /// <param name="start">The probe taken before the window.</param>
    /// <param name="what">Which window (shown first).</param>
    /// <param name="allocated">The window's process-wide bytes.</param>
    /// <param name="harnessBytes">What the harness's own threads allocated between the window's two snapshots (the
    /// measuring thread; for a peer-initiator run also its stdout reader), as far as it counts them.</param>
    public string Describe(WindowProbe start, string what, long allocated, long harnessBytes)
    {
        var sb = new StringBuilder();
        sb.Append(CultureInfo.InvariantCulture,
            $"  {what} window allocated {allocated:N0} B: harness threads {harnessBytes:N0} B; ");
        if (!EngineMeasured)
        {
            sb.Append("engine threads not measured (FIXENGINE_THREAD_ALLOCATIONS=1 measures them); ");
        }
        else
        {
            long engineTotal = 0;
            var parts = new List<string>();
            // Paired by the ledger's entry id (names repeat: managed thread ids are reused by later hosts' threads); an
            // entry missing from the start list is a thread registered in the window. A thread that ended and was dropped
            // from the ledger in the window is not counted.
            foreach ((long id, string thread, long bytes) in EngineThreads)
            {
                long before = 0;
                foreach ((long startId, _, long startBytes) in start.EngineThreads)
                {
                    if (startId == id)
                    {
                        before = startBytes;
                        break;
                    }
                }
                engineTotal += bytes - before;
                if (bytes != before) parts.Add(string.Create(CultureInfo.InvariantCulture, $"{thread} {bytes - before:N0} B"));
            }
            sb.Append(CultureInfo.InvariantCulture, $"engine threads ({EngineThreads.Count} registered) {engineTotal:N0} B");
            if (parts.Count > 0) sb.Append(" (").Append(string.Join(", ", parts)).Append(')');
            sb.Append("; ");
        }
        sb.Append(CultureInfo.InvariantCulture,
            $"JIT +{JitMethods - start.JitMethods} methods (+{JitIlBytes - start.JitIlBytes} IL bytes); thread-pool work items +{WorkItems - start.WorkItems}, threads {start.PoolThreads}->{PoolThreads}; timers {start.Timers}->{Timers}; lock contentions +{Contentions - start.Contentions}");
        return sb.ToString();
    }
}
