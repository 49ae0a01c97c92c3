using System;
using System.Runtime.InteropServices;
using System.Threading;

namespace FixEngine.Engine;

// Design:
// - Why: each connection that never logs on still costs memory while it lives (a pre-Logon receive buffer, its
//   TcpConnection/SessionConnection objects, in the default Dedicated receive mode a thread). Once a surge of them has
//   gone (an attack, a misbehaving peer's reconnect storm) that memory is garbage or free, but an idle engine allocates
//   almost nothing, so no GC runs to collect it, the GC keeps the regions it committed, and glibc keeps the arenas the
//   receive threads used. Measured (docs/benchmarks/hostile-input.md): 1,000 such connections left +21 to +40 MB of
//   RSS 10 s after they closed: about 17-23 MB of committed GC regions (16 KiB receive buffers, connection objects) and
//   about 10 MB of glibc arenas; a collection brought it to +6/+14 MB, a collection and malloc_trim to +1/+2 MB.
// - Owner: the engine agent. Observe runs once per duty cycle with what PollConnections saw: connections still waiting
//   for their Logon, and how many closed before theirs in this cycle. Time is the agent's monotonic nowNs; nothing here
//   reads a clock.
// - A surge: connections closing before their Logon, each within SettleNs of the previous one. When one has ended (no
//   such close for SettleNs) with at least Threshold closes, fewer than Threshold connections still waiting, and
//   MinIntervalNs since the last reclaim began, Observe answers true and the agent calls Start, which queues one reclaim
//   to the thread pool (never two at once; no allocation: this object is the work item). A surge that ends too soon
//   after the last reclaim waits until the interval has passed; a small one (fewer closes than Threshold) is forgotten.
// - The reclaim (a thread-pool thread, never the agent): a blocking, compacting GC in GCCollectionMode.Aggressive (it
//   also decommits the regions it freed), then, on Linux, glibc's malloc_trim(0) (a DllNotFound/EntryPointNotFound,
//   e.g. musl, turns the trim off for good). It writes one console line with the GC's committed bytes before and after
//   and the pause.
// - Cost: the GC suspends every managed thread, the sessions' too, for a few milliseconds, longer while the surge's
//   connections are still live (hence the "fewer than Threshold waiting" rule); malloc_trim suspends nothing. Figures in
//   docs/benchmarks/hostile-input.md. At most one per MinIntervalNs; EngineOptions.MemoryReclaimSurgeConnections = 0
//   turns it off.

/// <summary>Gives memory back after a surge of connections that closed without logging on (engine agent; see the design note).</summary>
internal sealed partial class SurgeMemoryReclaim(int threshold, EngineConsole console) : IThreadPoolWorkItem
{
    /// <summary>A surge has ended once no connection closed before its Logon for this long.</summary>
    public const long SettleNs = 1_000_000_000L;

    /// <summary>Least time between the starts of two reclaims.</summary>
    public const long MinIntervalNs = 10_000_000_000L;

    private static bool s_noMallocTrim = !OperatingSystem.IsLinux();

    // Agent thread only.
    private int _surgeClosed;
    private long _lastCloseNs;
    private long _lastReclaimNs = long.MinValue;

    // 1 while a reclaim is queued or running (the agent sets it, the pool thread clears it). _closedForLog: written by
    // the agent (Observe, only while none runs) before the work item is queued (the queue publishes it).
    private int _running;
    private int _closedForLog;
    private int _started;
    private int _completed;

    /// <summary>Reclaims started (any thread; for tests and diagnostics).</summary>
    public int Started => Volatile.Read(ref _started);

    /// <summary>Reclaims finished (any thread; for tests and diagnostics).</summary>
    public int Completed => Volatile.Read(ref _completed);

    /// <summary>Agent, once per duty cycle: true when a reclaim should start now (then call <see cref="Start"/>).</summary>
    /// <param name="waiting">Connections waiting for their Logon now.</param>
    /// <param name="closedBeforeLogon">Connections that closed before their Logon in this duty cycle.</param>
    /// <param name="nowNs">The agent's monotonic time.</param>
    public bool Observe(int waiting, int closedBeforeLogon, long nowNs)
    {
        if (threshold <= 0) return false;
        if (closedBeforeLogon > 0)
        {
            _surgeClosed += closedBeforeLogon;
            _lastCloseNs = nowNs;
            return false;
        }
        if (_surgeClosed == 0 || nowNs - _lastCloseNs < SettleNs) return false;
        if (_surgeClosed < threshold)
        {
            _surgeClosed = 0;
            return false;
        }
        // Still many waiting: their memory is in use; wait until they are gone too. Too soon, or one still running: later.
        if (waiting >= threshold || Volatile.Read(ref _running) != 0) return false;
        if (_lastReclaimNs != long.MinValue && nowNs - _lastReclaimNs < MinIntervalNs) return false;
        _lastReclaimNs = nowNs;
        _closedForLog = _surgeClosed;
        _surgeClosed = 0;
        return true;
    }

    /// <summary>Agent, after <see cref="Observe"/> answered true: queues the reclaim to the thread pool.</summary>
    public void Start()
    {
        if (Interlocked.Exchange(ref _running, 1) != 0) return;
        Interlocked.Increment(ref _started);
        ThreadPool.UnsafeQueueUserWorkItem(this, preferLocal: false);
    }

    /// <summary>Thread pool: the reclaim itself.</summary>
    public void Execute()
    {
        try
        {
            long before = GC.GetGCMemoryInfo().TotalCommittedBytes;
            GC.Collect(GC.MaxGeneration, GCCollectionMode.Aggressive, blocking: true, compacting: true);
            GCMemoryInfo after = GC.GetGCMemoryInfo(GCKind.FullBlocking);
            TimeSpan pause = after.PauseDurations.Length > 0 ? after.PauseDurations[0] : TimeSpan.Zero;
            bool trimmed = TryTrimNativeHeap();
            console.MemoryReclaimed(_closedForLog, before, after.TotalCommittedBytes, pause, trimmed);
        }
        finally
        {
            Interlocked.Increment(ref _completed);
            Volatile.Write(ref _running, 0);
        }
    }

    // glibc: returns the free memory of every arena to the OS (madvise), not only the top of the main heap.
    private static bool TryTrimNativeHeap()
    {
        if (s_noMallocTrim) return false;
        try
        {
            return MallocTrim(0) != 0;
        }
        catch (Exception e) when (e is DllNotFoundException or EntryPointNotFoundException)
        {
            s_noMallocTrim = true;
            return false;
        }
    }

    [LibraryImport("libc", EntryPoint = "malloc_trim")]
    private static partial int MallocTrim(nuint pad);
}
