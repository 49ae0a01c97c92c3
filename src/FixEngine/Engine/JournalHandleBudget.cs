using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using FixEngine.Config;
using FixEngine.Session;
using FixEngine.Store;

namespace FixEngine.Engine;

// Design:
// - Why: every connected session holds a socket, and a file-store session holds its journal (and its index checkpoint
//   when FileStoreIndexCheckpoint=Y) open, so an engine with N file-store sessions needs about 2N descriptors (3N) plus
//   the runtime's own. A process's descriptors are bounded by its open-files limit (RLIMIT_NOFILE: `ulimit -n`,
//   `LimitNOFILE=` of a systemd unit, `--ulimit nofile` of a container); past it accept() fails with EMFILE and the
//   .NET runtime aborts ("Out of memory.") once it cannot open a file of its own. Measured: 10,000 file-store sessions
//   under a limit of 20,000 aborted after 9,929 logons (docs/benchmarks/2026-12-06-scale.md).
// - At construction the engine compares what its configured sessions need (Plan) with the soft open-files limit (read
//   from /proc/self/limits; elsewhere unknown, nothing is done). When the need is above the limit it says so in one
//   console line (naming the limit, the need and the settings) and makes a budget: each file store is parked right
//   after it is opened (its descriptors closed, Store/FileMessageStore.Parking.cs), and the agent's visits park only
//   what the limit requires: while more than ParkMark journals are open (7/8 of what the limit leaves after the sockets
//   and the reserve), the journals of sessions idle on both sides whose next Heartbeat (sent or received) is at least
//   half a HeartBtInt away, and the other journals whose last use is at least IdleNs old; while more than PressureMark
//   (15/16) are open, every journal whose last use is PressedIdleNs old (a logon storm of thousands of sessions a
//   second opens journals faster than one second of idleness closes them; docs/benchmarks/2026-12-06-scale.md). An
//   idle session's journal is written at each Heartbeat it sends or receives, so a journal parked a second after its
//   last use was often reopened a moment later by the next one: at 10,000 idle sessions under a limit of 20,000 that
//   was about 1,600 reopens a second; parking at the start of the long gap between two Heartbeats cut it to about 500
//   (docs/benchmarks/2026-12-06-scale.md, branch filestore16). Below ParkMark an open journal stays open:
//   parking every journal idle for a second made nearly every heartbeat of thousands of idle sessions reopen its
//   journal, where keeping 7/8 open reopens only the journals of the sessions parked to make room
//   (docs/benchmarks/2026-12-06-scale.md, 2026-12-07 afternoon). Below ParkMark a quiet session's journal asks for no
//   visit of its own (NextVisitNs): looking at every open journal once a second kept 10,000 idle sessions' visits going
//   for nothing (docs/benchmarks/2026-12-06-scale.md, 2026-12-07 night). That is paced by the agent's sweep; the hard bound is JournalOpenLimit:
//   a journal opened again while the journals open already fill what the limit leaves after the sockets and the
//   reserve is closed as soon as its owner leaves the session (FixSession.Leave), so a burst the sweep has not caught
//   up with costs an open and a close per operation instead of EMFILE. Busy sessions' journals are never idle long
//   enough to be parked, so the parked ones are idle sessions', in the agent's visit order. When even the sockets do
//   not fit, a second line says how many sessions can connect.
// - Owner: the engine agent, inside each session's scope (Visit); the constructor's thread for Park at creation.
//   Allocation-free per visit.
// - Not counted: sessions added later (AddSession, unknown sessions), log files, TLS, the admin console: the reserve
//   (RuntimeReserve) covers the runtime and a few files.

/// <summary>Keeps the engine's file-store journals within the process's open-files limit (see the design note).</summary>
internal sealed class JournalHandleBudget
{
    /// <summary>A journal unused for this long is parked while more than <see cref="ParkMark"/> are open (1 s).</summary>
    public const long IdleNs = 1_000_000_000L;

    /// <summary>A journal unused for this long is parked while the budget is under pressure (100 ms).</summary>
    public const long PressedIdleNs = 100_000_000L;

    /// <summary>Descriptors counted for the runtime, listeners, logs and the like.</summary>
    public const int RuntimeReserve = 256;

    private readonly long _parkMark;
    private readonly long _pressureMark;
    private long _open;

    private JournalHandleBudget(long limit, int need, int sockets)
    {
        Limit = limit;
        Need = need;
        long spare = Spare(limit, sockets);
        _parkMark = ParkMarkOf(spare);
        _pressureMark = spare - spare / 16;
        OpenLimit = new JournalOpenLimit((int)Math.Min(int.MaxValue, spare));
    }

    /// <summary>The hard cap: journals open beyond what the limit leaves after the sockets and the reserve are closed
    /// again right after the operation that opened them.</summary>
    public JournalOpenLimit OpenLimit { get; }

    /// <summary>Journals open at their sessions' last visits (agent; lags the truth by at most one visit per session).</summary>
    public long OpenJournals => _open;

    /// <summary>Open journals above which idle journals are parked: 7/8 of what the limit leaves after the sockets and
    /// the reserve (below it every open journal stays open).</summary>
    public long ParkMark => _parkMark;

    // What the limit leaves for journals after the sockets and the reserve, and the park mark (7/8 of it).
    private static long Spare(long limit, long sockets) => Math.Max(0, limit - sockets - RuntimeReserve);

    private static long ParkMarkOf(long spare) => spare - spare / 8;

    /// <summary>Open journals above which an idle journal is parked after <see cref="PressedIdleNs"/> instead of
    /// <see cref="IdleNs"/>: 15/16 of what the limit leaves after the sockets and the reserve.</summary>
    public long PressureMark => _pressureMark;

    /// <summary>How long a journal stays open unused before a visit parks it: <see cref="IdleNs"/>, or
    /// <see cref="PressedIdleNs"/> while more than <see cref="PressureMark"/> journals are open (a logon storm opens
    /// journals faster than one second of idleness closes them).</summary>
    public long CurrentIdleNs => _open > _pressureMark ? PressedIdleNs : IdleNs;

    /// <summary>The process's soft open-files limit.</summary>
    public long Limit { get; }

    /// <summary>The descriptors the configured sessions would need with every journal open.</summary>
    public int Need { get; }

    /// <summary>Journals parked so far (agent; for tests and diagnostics).</summary>
    public long Parked { get; private set; }

    /// <summary>What <paramref name="settings"/> need: a socket per session, a journal per file-store session and an index
    /// checkpoint per session that keeps one, plus <see cref="RuntimeReserve"/>.</summary>
    public static (int Sockets, int Journals, int Indexes, int Need) Plan(IReadOnlyList<SessionSettings> settings)
    {
        int journals = 0;
        int indexes = 0;
        foreach (SessionSettings s in settings)
        {
            if (s.FileStorePath is null) continue;
            journals++;
            if (s.FileStoreIndexCheckpoint && !s.RefreshOnLogon) indexes++;
        }
        return (settings.Count, journals, indexes, settings.Count + journals + indexes + RuntimeReserve);
    }

    /// <summary>Compares the plan with the limit (<paramref name="limit"/>, or the process's when null); says so on the
    /// console and returns a budget when the journals must be parked, else null.</summary>
    public static JournalHandleBudget? Create(IReadOnlyList<SessionSettings> settings, EngineConsole console, long? limit = null)
    {
        (int sockets, int journals, int indexes, int need) = Plan(settings);
        long max = limit ?? ReadOpenFilesLimit();
        if (max <= 0 || need <= max) return null;
        string files = indexes > 0 ? $"{journals:N0} file-store journals and {indexes:N0} index checkpoints" : $"{journals:N0} file-store journals";
        if (sockets + RuntimeReserve > max)
        {
            console.ResourceLimit(string.Create(CultureInfo.InvariantCulture,
                $"{sockets:N0} sessions need {sockets + RuntimeReserve:N0} file descriptors for their connections alone, above this process's open-files limit of {max:N0} "
                + $"(ulimit -n; LimitNOFILE= of a systemd service): at most about {Math.Max(0, max - RuntimeReserve):N0} can connect at once; raise the limit"));
        }
        if (journals == 0) return null;
        console.ResourceLimit(string.Create(CultureInfo.InvariantCulture,
            $"{sockets:N0} sessions need about {need:N0} file descriptors ({sockets:N0} sockets, {files}, {RuntimeReserve} for the runtime), above this process's "
            + $"open-files limit of {max:N0} (ulimit -n; LimitNOFILE= of a systemd service): journals of idle sessions are closed while more than "
            + $"{ParkMarkOf(Spare(max, sockets)):N0} are open, and opened again when next written; raise the limit above {need:N0} to keep them all open"));
        return new JournalHandleBudget(max, need, sockets);
    }

    /// <summary>The constructor's thread: parks a session's file store right after it was opened.</summary>
    public void ParkNew(FixSession session)
    {
        if (session.Store is FileMessageStore store && store.TryPark())
        {
            Parked++;
            store.CountOpenJournalIn(OpenLimit);
        }
    }

    /// <summary>Agent, inside the session's scope before its Poll: counts its journal open or parked, and parks it when
    /// more than <see cref="ParkMark"/> journals are open and its next write is far enough away (<see cref="ShouldPark"/>).</summary>
    /// <param name="session">The session visited.</param>
    /// <param name="nowNs">Monotonic now.</param>
    /// <param name="epochNs">Epoch now (the session's timers); <see cref="long.MinValue"/> when unknown (every journal is
    /// then judged by its idle time alone).</param>
    public void Visit(FixSession session, long nowNs, long epochNs = long.MinValue)
    {
        if (session.Store is not FileMessageStore store) return;
        Count(store);
        if (store.IsParked) return;
        SeeUses(store, nowNs);
        if (ShouldPark(session, store, nowNs, epochNs) && store.TryPark())
        {
            Parked++;
            Count(store);
        }
    }

    // A use since the last look starts the journal's idle time now.
    private static void SeeUses(FileMessageStore store, long nowNs)
    {
        long uses = store.Uses;
        if (uses == store.BudgetSeenUses) return;
        store.BudgetSeenUses = uses;
        store.BudgetIdleSinceNs = nowNs;
    }

    // Which open journals are parked while more than ParkMark are open. A journal of a session idle on both sides (only
    // Heartbeats sent and received last: FixSession.IdleExchangeDueNs) is written next when the heartbeat exchange says:
    // it is parked once that is at least half its HeartBtInt away (every such session has one such gap an interval,
    // right after its Heartbeat or the peer's), and not before below the pressure mark, so a parked journal stays parked
    // for most of a gap instead of being reopened by the Heartbeat due next (docs/benchmarks/2026-12-06-scale.md,
    // branch filestore16). Any other journal (traffic, not logged on, heartbeats off), and every journal above the
    // pressure mark, is parked once unused for CurrentIdleNs.
    private bool ShouldPark(FixSession session, FileMessageStore store, long nowNs, long epochNs)
    {
        if (store.ParkAfterUse) return true;
        if (_open <= _parkMark) return false;
        long quietNs = ExchangeQuietNs(session, epochNs);
        if (quietNs != long.MinValue)
        {
            if (quietNs >= session.HeartBtIntSec * (NsPerSecond / 2)) return true;
            if (_open <= _pressureMark) return false;
        }
        return nowNs - store.BudgetIdleSinceNs >= CurrentIdleNs;
    }

    private const long NsPerSecond = 1_000_000_000L;

    /// <summary>How long the journal's next write is away by the heartbeat exchange of a session idle on both sides (may be
    /// negative when a Heartbeat is late); <see cref="long.MinValue"/> when that does not say (the session is not idle so,
    /// or the epoch time is unknown).</summary>
    private static long ExchangeQuietNs(FixSession session, long epochNs)
    {
        if (epochNs == long.MinValue) return long.MinValue;
        long dueNs = session.IdleExchangeDueNs;
        return dueNs == long.MinValue ? long.MinValue : dueNs - epochNs;
    }

    /// <summary>How long after the heartbeat exchange's next message a journal kept open for it is looked at again (100 ms):
    /// the look right after the write finds the gap that follows it.</summary>
    public const long ExchangeLookDelayNs = 100_000_000L;

    // The open count follows what the visits see: a store's journal is counted open from the visit that finds it open
    // until the visit that finds (or makes) it parked. A store disposed while counted open stays counted, which can only
    // bring the pressure mode earlier.
    private void Count(FileMessageStore store)
    {
        bool open = !store.IsParked;
        if (open == store.BudgetCountedOpen) return;
        store.BudgetCountedOpen = open;
        _open += open ? 1 : -1;
    }

    /// <summary>Agent, inside the session's scope, after its visit (its Poll): parks the journal when <see cref="Visit"/>
    /// would (the Heartbeat the Poll just wrote may have begun the gap in which it is parked), else returns the monotonic
    /// time at which <see cref="Visit"/> would next act for it, so a quiet session's visits may pass until then
    /// (FixSession.IsQuietAt). A use since the visit (the Heartbeat its Poll wrote) is taken as the visit would take it,
    /// so it needs no second visit: the journal's idle time starts at <paramref name="nowNs"/>. <see cref="long.MaxValue"/>
    /// when there is nothing to park: the journal is parked, or no more than <see cref="ParkMark"/> are open (below the
    /// mark no visit parks anything, so an idle session is not looked at until it wakes for its own timers or traffic;
    /// once the count passes the mark, each open journal is looked at again, and the hard cap (<see cref="OpenLimit"/>)
    /// bounds the descriptors meanwhile). Above the mark: for a session idle on both sides whose next Heartbeat (sent or
    /// received) is too near, <see cref="ExchangeLookDelayNs"/> after it (the gap after it may be the long one; none when
    /// it is late already: the session's own timers bring the next visit); else the end of the journal's idle time.</summary>
    public long NextVisitNs(FixSession session, long nowNs, long epochNs = long.MinValue)
    {
        if (session.Store is not FileMessageStore store || store.IsParked) return long.MaxValue;
        SeeUses(store, nowNs);
        if (ShouldPark(session, store, nowNs, epochNs) && store.TryPark())
        {
            Parked++;
            Count(store);
            return long.MaxValue;
        }
        if (_open <= _parkMark && !store.ParkAfterUse) return long.MaxValue;
        long quietNs = ExchangeQuietNs(session, epochNs);
        if (quietNs != long.MinValue && _open <= _pressureMark && !store.ParkAfterUse)
        {
            return quietNs >= 0 ? nowNs + quietNs + ExchangeLookDelayNs : long.MaxValue;
        }
        return store.BudgetIdleSinceNs + CurrentIdleNs;
    }

    /// <summary>The soft open-files limit of this process (RLIMIT_NOFILE), from /proc/self/limits; -1 when unknown or unlimited.</summary>
    public static long ReadOpenFilesLimit()
    {
        if (!OperatingSystem.IsLinux()) return -1;
        try
        {
            foreach (string line in File.ReadLines("/proc/self/limits"))
            {
                if (!line.StartsWith("Max open files", StringComparison.Ordinal)) continue;
                string[] parts = line.Substring("Max open files".Length).Split(' ', StringSplitOptions.RemoveEmptyEntries);
                return parts.Length > 0 && long.TryParse(parts[0], NumberStyles.None, CultureInfo.InvariantCulture, out long soft) ? soft : -1;
            }
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
        }
        return -1;
    }
}
