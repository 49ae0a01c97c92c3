using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Threading;
using FixEngine.Hosting;
using FixEngine.Session;

namespace FixEngine.Engine;

// Design:
// - Owner thread: the engine agent (one AgentRunner thread per engine). It alone touches _connections, the initiators'
//   schedules and the busy-poll sessions; it enters gated sessions through their scopes.
// - Other threads hand it connections through _incoming (the accept thread, the connect tasks) and read IsStopping.
//   _stopState is Running -> Stopping (FixEngineHost.Stop, any thread) -> LoggedOut (the agent, once no session is
//   connected); _loggedOut is signalled then, and again when the agent closes, so Stop waits on it instead of polling.
//   _loggedOutTask and _closedTask are the same two signals for StopAsync, which awaits them without holding a thread
//   (completed on the agent thread, continuations run asynchronously so the agent never runs a caller's code).
// - Duty cycle (DoWork): take queued connections (an initiator's is attached to its session here), poll every
//   connection (busy-poll receive and send; a flushing close in every mode), close connections that sent no Logon in
//   time and drop closed ones (counting those that closed before their Logon for SurgeMemoryReclaim, which may then
//   queue a reclaim to the thread pool), service every session inside its scope (notice a transport-side close, timers
//   and outbox, logout at stop), apply each session's receive pause, then start due initiator connects. Allocation-free
//   in steady state.
// - The agent never waits for a receiving thread and never makes one wait: a gated session whose gate is busy (a
//   message is being processed on its receive thread) is skipped this duty cycle (SessionSlot.EnterForService), within
//   a bound of SessionSlot.MaxServiceDelayNs. The skip is not work (the agent idles as usual rather than spin on the
//   gate); the receiving thread wakes the agent on leaving the gate if messages were handed over meanwhile.
// - Sweeps: servicing every connection and session is O(N) (tens of ns each; about 1 ms for 10,000 sessions), and the
//   idle strategy runs the duty cycle every millisecond at most when idle and back to back after work, so at 10,000
//   sessions the sweeps alone took most of a core and delayed the busy sessions' messages. With more than
//   SweepEveryCycleItems connections, sessions and initiators, a duty cycle sweeps them all at once only when something
//   asks for it (a connection or session change, a command, a stop, a removal, a thread that signalled the agent's
//   IdleWakeup); otherwise it services the hot list: the sessions that did work on their last visit (a replay in
//   progress, a backlog draining) or whose gate was busy, until they are idle, and the sessions that asked for it
//   (RequestService: a message handed over while another thread held the session; before, that signal made the agent
//   sweep all N, hundreds of times a second for an application sending from its own threads to many sessions), in
//   the order they joined and at most MaxHotItems per duty cycle (a full sweep in which thousands of Heartbeats came
//   due puts thousands of sessions on it; the rest wait for the next cycles, which do not park meanwhile), then
//   the next slice of the sweep (ServiceSlice): a cursor through the connections, the sessions and the initiators that
//   advances by items x (time since the last slice) / SweepIntervalNs, so every item is visited once per interval, and
//   by at most MaxSliceItems per duty cycle. A sweep done in one go at 10,000 sessions was a 6-13 ms burst every 100 ms
//   (with the Heartbeats that came due), in each of the acceptor's and the initiators' processes, on a 2-core machine:
//   the busy sessions' messages waited behind it (p99 11-19x one session's). A full sweep restarts the slices.
//   With a busy-poll connection or session (the agent alone receives for it) every duty cycle sweeps, as before.
// - The sweep interval: MaxSweepIntervalNs (1 s) past SweepEveryCycleItems, whatever a sweep costs. The sweep is the
//   backstop: the sessions' timers fire from the timer wheel (below), whose horizon (WheelHorizonNs, about 2 s) is longer
//   than the interval plus the longest park, so a slice's visit sees every quiet span's end coming and puts the session
//   on the wheel before it; a connection that closes asks for its session's service itself
//   (SessionConnection.OnDisconnected), so a disconnect is noticed at once, not when the cursor comes by. What waits for
//   the cursor: a connection's Logon timeout (up to the interval late), a flushing close's next poll, and the removal of
//   a closed connection from the list. History: a sweep was assumed to cost tens of ns per item; measured at 10,000
//   sessions on the 2-vCPU machine it cost about 300 ns per item (each session's objects are cache misses): 6 ms per
//   sweep, and with the old fixed 10 ms interval the agent spent about 60 % of a core sweeping, in both the acceptor
//   and the initiators' process; then 100 ms (timers found up to 100 ms late, before the wheel). With the wheel the
//   100 ms slices were half of the agent's CPU at 10,000 sessions (two items per session, a connection and a session:
//   200,000 quiet visits a second, about 60 ms of a core a second in each process; docs/benchmarks/2026-12-06-scale.md,
//   branch tail16), for timers the wheel fires anyway, so the interval is now 1 s.
// - Quiet sessions: most of a sweep's visits find an idle session with nothing due (its Heartbeat is seconds away).
//   Its last Poll left the span in which a Poll would do nothing (FixSession.IsQuietAt: until the earliest of its
//   timers, the schedule's next change and the journal budget's next look; empty while anything waits), and any
//   thread that enters the session, hands it a message or closes its transport empties the span. A sweep's or a
//   slice's visit of a session inside its span ends after that compare, without the gate, the connection or the
//   session's other objects (each a cache miss at 10,000 sessions); hot-list visits and every visit while stopping
//   service the session in full.
// - The timer wheel: a sweep (or its slices) finds a due timer up to MaxSweepIntervalNs late, and it finds the timers
//   that came due since the cursor last passed all together: at 10,000 sessions that logged on within 2 s (HeartBtInt=5),
//   bursts of 200-600 Heartbeats within 10 ms every 100 ms, in each process, which the busy sessions' messages waited
//   behind (docs/benchmarks/2026-12-06-scale.md, branch beat13). So past SweepEveryCycleItems (and without busy-poll
//   items) every visit that leaves a session quiet puts it on a wheel of WheelTicks 1 ms ticks (monotonic) when its
//   quiet span ends within WheelHorizonNs (longer than the sweep interval, so a visit sees every end coming), and each
//   duty cycle first visits the sessions of the ticks that have passed (at most MaxWheelItems, the rest on the next
//   cycles): each timer fires on the first duty cycle after its instant, and the Heartbeats go out at the pace their
//   sessions' last sends set. Sessions whose last sends fell in the same millisecond (an initiator's Logons sent in
//   one duty cycle as their connects completed together) would still send together, up to MaxWheelItems per duty
//   cycle: a session whose quiet span ends with its Heartbeat on a tick that already holds CrowdedTick sessions goes
//   on the least crowded tick up to MaxHeartbeatLeadNs earlier, and its visit then is a full one that sends the
//   Heartbeat early (FixSession.Poll with a lead; sending before HeartBtInt is allowed, and only the Heartbeat moves:
//   the TestRequest and the disconnect keep their times). The next one is due HeartBtInt after that send, so the
//   spread holds from one interval to the next. That spread is local (50 ms): at 10,000 sessions that logged on within
//   2 s the Heartbeats still came at 5 a millisecond for 2 s of every 5 (HeartBtInt=5), in both processes, and the
//   busy sessions' messages met them (branch beat14). So a session idle on its side (the last message it sent was its
//   own Logon or Heartbeat: FixSession.LastSentAdmin) goes on the tick of its phase point instead, the latest instant
//   at or before the due time at its phase in the interval (SessionSlot.HeartbeatPhase: the golden-ratio sequence, so
//   the phases of any number of sessions lie evenly), at most half the interval early (PhasePointNs); within two
//   intervals every idle session sends at its phase point, and the Heartbeats of N sessions come N / HeartBtInt a
//   second evenly. A session on its phase is not moved off a crowded tick (that would drift it ahead a little each
//   interval); one that last sent an application message keeps its due time (moving it would add a Heartbeat to a
//   session that sends now and then). A slot is on the wheel once
//   (SessionSlot.WheelTick; moved earlier, the later entry goes stale and is skipped), the entries are not removed when
//   a session's span changes (the wheel's visit then ends after the compare, as a slice's does), and the sweep stays
//   the backstop. Allocation: a bucket's list grows to the most slots one tick has held, then never again.

// - Parking until the next deadline (issue 32): with the Backoff idle strategy the agent is an IDeadlineAgent; each duty
//   cycle leaves NextDeadlineNs, the earliest instant anything it owns needs it, and the runner parks until then
//   (BackoffIdleStrategy.Idle(work, limit)) instead of 1 ms: at a 1 ms park each engine woke a vCPU about 900 times a
//   second with nothing to do (docs/benchmarks/2026-12-07-closed-loop-placement.md, the agent15 section). A sweep takes
//   each session's quiet-span end as its visit left it (SessionSlot.AgentDueEpochNs, kept while its gate is busy: other
//   threads' entries only move its timers later, or signal), a waiting connection's Logon timeout, an initiator's next
//   connect (InitiatorConnector.NextPollNs), capped at MaxParkNs (a timer another thread moved earlier without a signal
//   runs at most that late). MaxParkNs is 1 ms by default, as before the deadlines: with a 100 ms cap the agent woke
//   11-26 times a second instead of ~900, but paced round trips (2,000 orders/s) were 8-9 % slower at p50 in two
//   sittings (the vCPUs halt deeper between orders without the agent's ticks), so up to SweepEveryCycleItems the
//   deadlines are only ever shorter than the old tick; the routes below are kept complete (tests park the agent an
//   hour) so that a longer cap stays one constant away. ShortParkNs (1 ms, as before)
//   while something waits that only a poll moves on (an empty span: a backlog, a replay, a receive pause, a hold), a
//   connection flushes its close, a removal or the stop is in progress, or a busy-poll item exists. Past
//   SweepEveryCycleItems: the wheel's next non-empty tick, at most WheelMaxParkNs (10 ms) away, so the slices still
//   visit every item within WheelHorizonNs. Every route by which another thread hands the agent work signals the
//   IdleWakeup (docs/architecture.md, "Who wakes the engine agent"): Enqueue, Submit, TrySubmit, BeginStop, Wake,
//   RequestService, FixSession.Leave with work only a poll does. A wake by signal returns the strategy to its spin and
//   yield phases, as the Backoff strategy always did; a wake at the deadline stays in the park phase.

// - Sessions added or removed on a running engine (FixEngineHost.AddSession/RemoveSession, an unknown session's Logon)
//   are handed over as SessionChange objects through _changes; only the agent changes _slots and _initiators, at the
//   start of a duty cycle (ApplyChanges), so the per-session loop needs no lock. A removal stays in _removing while the
//   session logs out (Logout, then the peer's reply or LogoutTimeout, bounded by its deadline), then leaves _slots and
//   signals the caller, which disposes the session (its store is closed off the agent thread).

/// <summary>A session to add to or remove from the running engine (<see cref="EngineAgent.Submit"/>).</summary>
internal sealed class SessionChange(SessionSlot slot, bool remove)
{
    public SessionSlot Slot { get; } = slot;

    public bool Remove { get; } = remove;

    /// <summary>Set by the agent once applied (an add) or once the session is logged out and out of the engine (a removal).</summary>
    public ManualResetEventSlim Done { get; } = new(false);

    /// <summary>Agent: when a removal stops waiting for the peer's Logout reply (monotonic).</summary>
    public long DeadlineNs { get; set; }

    /// <summary>Agent: the Logout (or disconnect) of a removal was started.</summary>
    public bool LogoutStarted { get; set; }
}

/// <summary>The engine's duty cycle: connections, session timers and outboxes, initiator reconnects, session changes, stop.</summary>
internal sealed class EngineAgent : IAgent, IDeadlineAgent
{
    private const long NsPerSecond = 1_000_000_000L;
    private const int Running = 0;
    private const int Stopping = 1;
    private const int LoggedOut = 2;

    private readonly List<SessionSlot> _slots;
    private readonly List<InitiatorConnector> _initiators = [];
    private readonly List<SessionConnection> _connections = [];
    private readonly ConcurrentQueue<SessionConnection> _incoming = new();
    private readonly ConcurrentQueue<SessionChange> _changes = new();
    private readonly List<SessionChange> _removing = [];
    private readonly ConcurrentQueue<SessionCommand> _commands = new();
    private readonly object _commandsLock = new();
    private bool _commandsClosed;
    private readonly ManualResetEventSlim _loggedOut = new(false);
    private readonly System.Threading.Tasks.TaskCompletionSource _loggedOutTask = new(System.Threading.Tasks.TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly System.Threading.Tasks.TaskCompletionSource _closedTask = new(System.Threading.Tasks.TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly EpochAnchor _time;
    private readonly EngineConsole _console;
    private readonly long _logonTimeoutNs;
    private readonly SurgeMemoryReclaim _reclaim;
    private volatile int _stopState;
    private readonly Timing.IdleWakeup _wakeup;
    private readonly List<SessionSlot> _hot = [];
    private int _hotHead;
    private bool _sweepEveryCycle = true;
    private int _unguardedConnections;
    private JournalHandleBudget? _journals;
    private long _nowNs;
    private SessionSlot? _requested;
    private long _deadlineNs;

    /// <summary>The longest park with at most <see cref="SweepEveryCycleItems"/> items when nothing is due sooner: one
    /// millisecond, as before the deadlines. A 100 ms cap (the sweep interval) cut the agent's wake-ups from ~900 to
    /// 11-26 a second but cost 8-9 % p50 at 2,000 orders/s on the 2-vCPU VM (its vCPUs halt deeper between paced orders);
    /// see the design note, parking, and docs/benchmarks/2026-12-07-closed-loop-placement.md.</summary>
    internal const long DefaultMaxParkNs = ShortParkNs;

    /// <summary>The park while something waits that the agent polls for (a backlog, a replay, a receive pause, a
    /// flushing close, a busy-poll connection, a removal, a stop): one millisecond, as before the deadlines.</summary>
    internal const long ShortParkNs = 1_000_000L;

    /// <summary>The longest park past <see cref="SweepEveryCycleItems"/> (the timer wheel and the sweep's slices run): the
    /// slices then visit every item within <see cref="MaxSweepIntervalNs"/> plus this, inside <see cref="WheelHorizonNs"/>.</summary>
    internal const long WheelMaxParkNs = 10_000_000L;

    /// <summary>The longest park when nothing is due sooner (<see cref="DefaultMaxParkNs"/>; tests make it longer so a
    /// route that forgets to signal the agent is seen).</summary>
    internal long MaxParkNs { get; set; } = DefaultMaxParkNs;

    /// <summary>Agent thread, after <see cref="DoWork"/>: the monotonic instant by which the next duty cycle must run
    /// unless another thread signals the agent (see the design note, parking until the next deadline).</summary>
    public long NextDeadlineNs => _deadlineNs;

    /// <summary>Full sweeps so far (agent thread; tests read it between duty cycles they run themselves).</summary>
    internal long FullSweeps;

    /// <summary>Sessions serviced from the hot list between sweeps so far (as <see cref="FullSweeps"/>).</summary>
    internal long HotVisits;

    /// <summary>Connections, sessions and initiators visited by sweep slices so far (as <see cref="FullSweeps"/>).</summary>
    internal long SliceVisits;

    /// <summary>Sweeps completed slice by slice so far (as <see cref="FullSweeps"/>).</summary>
    internal long SlicedSweeps;

    /// <summary>Visits of sessions that ended at once because the session was quiet (as <see cref="FullSweeps"/>).</summary>
    internal long QuietVisits;

    /// <summary>At most this many connections, sessions and initiators are visited by one duty cycle's slice of a sweep
    /// (about 80 µs at the 300 ns per item measured at 10,000 sessions); see the design note (sweeps).</summary>
    internal const int MaxSliceItems = 256;

    // The sweep in slices (agent thread): where the cursor is (phase 0: _connections, 1: _slots, 2: _initiators; an
    // index into that list), the items owed (item-nanoseconds: items x time since the last slice, paid at one item per
    // sweep interval), the monotonic time of the last slice, what this sweep's slices cost so far (real time) and what
    // its connection pass counted for SurgeMemoryReclaim.
    private int _slicePhase;
    private int _sliceIndex;
    private long _sliceCredit;
    private long _lastSliceNs;
    private int _sliceWaiting;
    private int _sliceClosedBeforeLogon;

    /// <summary>At most this many sessions are visited from the hot list by one duty cycle (see the design note, sweeps);
    /// the rest wait in order for the next cycles.</summary>
    internal const int MaxHotItems = 256;

    /// <summary>Sessions waiting on the hot list now (agent thread; tests read it between duty cycles).</summary>
    internal int HotWaiting => _hot.Count - _hotHead;

    /// <summary>Up to this many connections and sessions, every duty cycle sweeps them all (see the design note).</summary>
    internal const int SweepEveryCycleItems = 256;

    /// <summary>Longest time between two full sweeps when nothing asks for one (1 s; see the design note, the sweep
    /// interval): less than <see cref="WheelHorizonNs"/> minus <see cref="WheelMaxParkNs"/>.</summary>
    internal const long MaxSweepIntervalNs = 1_000_000_000L;

    /// <summary>The timer wheel's tick (1 ms): a session whose quiet span ends is visited on the first duty cycle of the
    /// tick after its end (see the design note, the timer wheel).</summary>
    internal const long WheelTickNs = 1_000_000L;

    /// <summary>Ticks on the wheel (a power of two); a session goes on it when its quiet span ends within
    /// <see cref="WheelHorizonNs"/>, which is longer than <see cref="MaxSweepIntervalNs"/>, so every end is seen by a
    /// visit before it comes.</summary>
    internal const int WheelTicks = 2048;

    /// <summary>How far ahead the wheel takes a session (2,046 ticks: the tick it lands on stays within the wheel's turn).</summary>
    internal const long WheelHorizonNs = (WheelTicks - 2) * WheelTickNs;

    /// <summary>At most this many sessions are visited from the wheel by one duty cycle (sessions that logged on at the
    /// same instant come due together); the rest wait in order for the next cycles, which do not park meanwhile.</summary>
    internal const int MaxWheelItems = 64;

    /// <summary>A tick that already holds this many sessions is crowded: a session whose quiet span ends with its
    /// Heartbeat goes on the least crowded tick up to <see cref="MaxHeartbeatLeadNs"/> earlier instead, and sends its
    /// Heartbeat then (see the design note, the timer wheel).</summary>
    internal const int CrowdedTick = 2;

    /// <summary>How early a Heartbeat may go to leave a crowded tick (50 ms: 1 % of HeartBtInt=5).</summary>
    internal const long MaxHeartbeatLeadNs = 50 * WheelTickNs;

    /// <summary>Heartbeats sent early to leave a crowded tick (as <see cref="FullSweeps"/>; the visits, whether or not
    /// the session still sent one then).</summary>
    internal long EarlyHeartbeatVisits;

    /// <summary><see cref="SessionSlot.WheelTick"/> of a slot that is not on the wheel.</summary>
    internal const long NotOnWheel = long.MinValue;

    /// <summary>Sessions visited because their tick on the wheel came (as <see cref="FullSweeps"/>).</summary>
    internal long WheelVisits;

    // The timer wheel (agent thread): bucket i holds the slots put on a tick t with t % WheelTicks == i (a slot's
    // WheelTick says which one it waits on; an entry whose slot has moved to an earlier tick is stale and skipped), the
    // tick being fired or last fired (monotonic ns / WheelTickNs) and the next entry of its bucket to visit, whether
    // this duty cycle puts sessions on it, and how many entries the buckets hold.
    private List<SessionSlot>[]? _wheel;
    private long _wheelTick = NotOnWheel;
    private int _wheelPos;
    private bool _wheelOn;
    private int _wheelEntries;

    /// <summary>Room each of the wheel's buckets starts with, so that the first turn of the wheel (WheelTicks ticks,
    /// about 2 s) does not allocate for every tick it first uses.</summary>
    private const int WheelBucketCapacity = 8;

    // Made when the wheel is first used (past SweepEveryCycleItems), so a small engine does not carry it.
    private static List<SessionSlot>[] NewWheel()
    {
        var wheel = new List<SessionSlot>[WheelTicks];
        for (int i = 0; i < wheel.Length; i++) wheel[i] = new List<SessionSlot>(WheelBucketCapacity);
        return wheel;
    }


    public EngineAgent(List<SessionSlot> slots, EpochAnchor time, EngineConsole console, int logonTimeoutSeconds, int reclaimSurgeConnections = 0,
        Timing.IdleWakeup? wakeup = null)
    {
        _wakeup = wakeup ?? new Timing.IdleWakeup();
        _reclaim = new SurgeMemoryReclaim(reclaimSurgeConnections, console);
        _slots = slots;
        _time = time;
        _console = console;
        _logonTimeoutNs = logonTimeoutSeconds * NsPerSecond;
    }

    public string Name => "fix-engine";

    /// <summary>True once <see cref="BeginStop"/> was called (any thread).</summary>
    public bool IsStopping => _stopState != Running;

    /// <summary>True once, after <see cref="BeginStop"/>, no session was connected any more (every Logout answered).</summary>
    public bool AllLoggedOut => _stopState == LoggedOut;

    /// <summary>Constructor only.</summary>
    public void AddInitiator(InitiatorConnector initiator) => _initiators.Add(initiator);

    /// <summary>The agent thread's managed id once it runs (0 before).</summary>
    public int ThreadId { get; private set; }

    /// <summary>Host constructor only (before the agent runs): an initial session.</summary>
    public void AddInitial(SessionSlot slot)
    {
        _slots.Add(slot);
        if (slot.Initiator is InitiatorConnector initiator) _initiators.Add(initiator);
    }

    /// <summary>Hands a session change to the agent (any thread); applied at the start of its next duty cycle.</summary>
    public void Submit(SessionChange change)
    {
        _changes.Enqueue(change);
        _wakeup.SignalWork();
    }

    /// <summary>Hands an operator's command to the agent (any thread); run at the start of its next duty cycle inside the
    /// session's scope. False once the agent has closed: the caller runs it itself.</summary>
    public bool TrySubmit(SessionCommand command)
    {
        lock (_commandsLock)
        {
            if (_commandsClosed) return false;
            _commands.Enqueue(command);
        }
        _wakeup.SignalWork();
        return true;
    }

    public void OnStart() => ThreadId = System.Environment.CurrentManagedThreadId;

    /// <summary>Any thread: asks for <paramref name="slot"/>'s service on the next duty cycle (messages were handed over
    /// while another thread held the session) and wakes the agent, without a sweep of every session: the slot joins the
    /// hot list (see the design note, sweeps). Allocation-free: the request stack links the slots themselves.</summary>
    public void RequestService(SessionSlot slot)
    {
        if (Interlocked.Exchange(ref slot.ServiceRequested, 1) == 0)
        {
            SessionSlot? head;
            do
            {
                head = Volatile.Read(ref _requested);
                slot.NextRequested = head;
            }
            while (Interlocked.CompareExchange(ref _requested, slot, head) != head);
        }
        _wakeup.SignalWork();
    }

    // Start of a duty cycle: the sessions asked for (RequestService) join the hot list. Not counted as work, so they
    // do not make this cycle a full sweep.
    private void TakeRequested()
    {
        SessionSlot? slot = Interlocked.Exchange(ref _requested, null);
        while (slot is not null)
        {
            SessionSlot? next = slot.NextRequested;
            slot.NextRequested = null;
            Volatile.Write(ref slot.ServiceRequested, 0);
            if (!slot.Removed) AddHot(slot);
            slot = next;
        }
    }

    /// <summary>Hands a new connection to the agent (accept thread, connect task).</summary>
    public void Enqueue(SessionConnection connection)
    {
        _incoming.Enqueue(connection);
        _wakeup.SignalWork();
    }

    /// <summary>Asks the agent to log every session out; false when already stopping (any thread).</summary>
    public bool BeginStop()
    {
        bool first = Interlocked.CompareExchange(ref _stopState, Stopping, Running) == Running;
        _wakeup.SignalWork();
        return first;
    }

    /// <summary>Any thread: wakes the agent for work it finds on its own (an initiator's connect that failed: the next
    /// attempt's time).</summary>
    public void Wake() => _wakeup.SignalWork();

    /// <summary>Waits until no session is connected any more or the agent has closed; false on timeout.</summary>
    public bool WaitLoggedOut(System.TimeSpan timeout) => _loggedOut.Wait(timeout);

    /// <summary>Completes once no session is connected any more (after <see cref="BeginStop"/>) or the agent has closed.</summary>
    public System.Threading.Tasks.Task LoggedOutTask => _loggedOutTask.Task;

    /// <summary>Completes once the agent has closed (<see cref="OnClose"/> ran: connections closed, sessions disconnected).</summary>
    public System.Threading.Tasks.Task ClosedTask => _closedTask.Task;

    public int DoWork(long nowNs)
    {
        long epochNs = _time.BeginCycle(nowNs);
        _nowNs = nowNs;
        if (Volatile.Read(ref _requested) is not null) TakeRequested();
        int work = _changes.IsEmpty ? 0 : ApplyChanges(nowNs);
        if (!_commands.IsEmpty) work += RunCommands(epochNs);
        work += TakeIncoming(nowNs, epochNs);

        bool stopping = _stopState != Running;
        // A full pass over every connection and session is O(N); past SweepEveryCycleItems it is done in slices unless
        // something asks for it now; see the design note (sweeps).
        int items = _slots.Count + _connections.Count + _initiators.Count;
        _wheelOn = items > SweepEveryCycleItems && !_sweepEveryCycle && !stopping;
        if (_wheelOn) _wheel ??= NewWheel();
        bool sweep = work > 0 || stopping || _removing.Count > 0 || _sweepEveryCycle || _wakeup.TakeServiceRequest()
            || items <= SweepEveryCycleItems;
        if (!sweep)
        {
            int done = FireWheel(nowNs, epochNs) + ServiceHot(nowNs, epochNs) + ServiceSlice(nowNs, epochNs, items);
            _deadlineNs = NextWheelTickNs(nowNs);
            return done;
        }
        // Parking (see the design note): the earliest instant anything swept below needs the agent, at most MaxParkNs
        // away (WheelMaxParkNs while the wheel and the slices run; ShortParkNs while something waits to be polled).
        _deadlineNs = nowNs + (items > SweepEveryCycleItems ? WheelMaxParkNs : MaxParkNs);
        if (stopping || _removing.Count > 0) _deadlineNs = nowNs + ShortParkNs;
        if (!stopping) FireWheel(nowNs, epochNs);
        FullSweeps++;
        ClearHot();
        RestartSlices(nowNs);
        work += PollConnections(nowNs, out int waiting, out int closedBeforeLogon);
        if (_reclaim.Observe(waiting, closedBeforeLogon, nowNs)) _reclaim.Start();

        bool anyConnected = false;
        bool everyCycle = _unguardedConnections > 0;
        for (int i = 0; i < _slots.Count; i++)
        {
            SessionSlot slot = _slots[i];
            if (!slot.Guarded) everyCycle = true;
            work += ServiceSlot(slot, nowNs, epochNs, stopping, ref anyConnected, hotOnWork: true, mayPass: !stopping);
            DueBy(slot.AgentDueEpochNs, nowNs, epochNs);
        }
        _sweepEveryCycle = everyCycle;
        // Busy-poll connections and sessions: the agent alone receives and sends for them, so it does not park long.
        if (everyCycle) DueByNs(nowNs + ShortParkNs);
        if (_removing.Count > 0) work += ServiceRemovals(nowNs, epochNs);
        if (stopping)
        {
            if (!anyConnected && _stopState == Stopping)
            {
                _stopState = LoggedOut;
                _loggedOut.Set();
                _loggedOutTask.TrySetResult();
            }
            return work;
        }

        for (int i = 0; i < _initiators.Count; i++)
        {
            InitiatorConnector initiator = _initiators[i];
            work += initiator.Poll(nowNs, epochNs);
            DueByNs(initiator.NextPollNs(nowNs, epochNs));
        }
        return work;
    }

    // A sweep's visit of a session: its quiet span's end (epoch ns) as the agent last saw it bounds the park; a span that
    // was empty (something waits: a backlog, a replay, a receive pause, a hold) gives ShortParkNs.
    private void DueBy(long dueEpochNs, long nowNs, long epochNs)
    {
        if (dueEpochNs == long.MaxValue) return;
        DueByNs(dueEpochNs == long.MinValue ? nowNs + ShortParkNs : nowNs + (dueEpochNs - epochNs));
    }

    private void DueByNs(long dueNs)
    {
        if (dueNs < _deadlineNs) _deadlineNs = dueNs;
    }

    // Between sweeps (past SweepEveryCycleItems): the start of the first tick within WheelMaxParkNs whose bucket holds a
    // slot (a stale entry only wakes the agent early), else WheelMaxParkNs from now; the slices are paid for the time
    // parked when it wakes.
    private long NextWheelTickNs(long nowNs)
    {
        long limitNs = nowNs + WheelMaxParkNs;
        if (_wheelEntries == 0 || _wheelTick == NotOnWheel) return limitNs;
        long last = limitNs / WheelTickNs;
        for (long t = System.Math.Max(_wheelTick + 1, nowNs / WheelTickNs + 1); t <= last; t++)
        {
            if (_wheel![(int)(t & (WheelTicks - 1))].Count > 0) return System.Math.Min(limitNs, t * WheelTickNs);
        }
        return limitNs;
    }

    /// <summary>How long one sweep of every connection, session and initiator takes, slice by slice, when nothing asks
    /// for a full one: 0 (every duty cycle sweeps all) up to <see cref="SweepEveryCycleItems"/> items, else
    /// <see cref="MaxSweepIntervalNs"/> (see the design note).</summary>
    internal static long SweepIntervalNs(int items) => items <= SweepEveryCycleItems ? 0 : MaxSweepIntervalNs;

    /// <summary>Constructor only (before the agent runs): the journal descriptor budget of the engine's file stores, or null.</summary>
    internal JournalHandleBudget? Journals
    {
        get => _journals;
        set => _journals = value;
    }

    // Between sweeps: only the sessions that did work (or whose gate was busy) on their last visit, until they are idle,
    // at most MaxHotItems per duty cycle in the order they joined: a full sweep in which thousands of Heartbeats came
    // due together puts thousands of sessions on the list, and visiting them all in the next duty cycle was the burst
    // the slices exist to avoid. The list is a queue (_hotHead is its head); the sessions left over are visited by the
    // next duty cycles, before any that joined later, and the agent does not park while some wait.
    private int ServiceHot(long nowNs, long epochNs)
    {
        int end = _hot.Count;
        if (_hotHead == end) return 0;
        int stop = System.Math.Min(end, _hotHead + MaxHotItems);
        int work = 0;
        bool anyConnected = false;
        // A session that still has work goes back on the list, behind the ones already waiting.
        while (_hotHead < stop)
        {
            SessionSlot slot = _hot[_hotHead++];
            slot.OnHotList = false;
            if (slot.Removed) continue;
            HotVisits++;
            work += ServiceSlot(slot, nowNs, epochNs, stopping: false, ref anyConnected, hotOnWork: true, mayPass: false);
        }
        if (_hotHead == _hot.Count)
        {
            _hot.Clear();
            _hotHead = 0;
        }
        else if (_hotHead >= MaxHotItems && _hotHead >= _hot.Count - _hotHead)
        {
            // Compact once the visited head is at least as long as what waits: amortised O(1) per visit, no allocation.
            _hot.RemoveRange(0, _hotHead);
            _hotHead = 0;
        }
        // Sessions left waiting (not only those that did work now): the idle strategy must not park on them.
        return work + (stop < end ? 1 : 0);
    }

    // Between full sweeps (past SweepEveryCycleItems): the next slice of the sweep, paced so the cursor passes every
    // connection, session and initiator once per SweepIntervalNs (items owed = items x time since the last slice /
    // interval), at most MaxSliceItems per duty cycle so no cycle holds the core for long; what is still owed then is
    // paid on the next cycles (the agent does not park while it is owed a slice). The slice's own work is not reported
    // to the idle strategy (a Heartbeat sent is done); a session that did work joins the hot list as in a full sweep.
    private int ServiceSlice(long nowNs, long epochNs, int items)
    {
        long intervalNs = SweepIntervalNs(items);
        long elapsedNs = System.Math.Min(nowNs - _lastSliceNs, intervalNs);
        _lastSliceNs = nowNs;
        if (elapsedNs > 0) _sliceCredit = System.Math.Min(_sliceCredit + items * elapsedNs, items * intervalNs);
        long owed = _sliceCredit / intervalNs;
        if (owed <= 0) return 0;
        int budget = (int)System.Math.Min(owed, MaxSliceItems);
        _sliceCredit -= budget * intervalNs;
        bool anyConnected = false;
        int visited = 0;
        while (visited < budget)
        {
            if (_slicePhase == 0)
            {
                if (_sliceIndex >= _connections.Count)
                {
                    if (_reclaim.Observe(_sliceWaiting, _sliceClosedBeforeLogon, nowNs)) _reclaim.Start();
                    (_sliceWaiting, _sliceClosedBeforeLogon) = (0, 0);
                    (_slicePhase, _sliceIndex) = (1, 0);
                    continue;
                }
                visited++;
                SessionConnection c = _connections[_sliceIndex];
                c.Poll(nowNs);
                if (CheckConnection(c, nowNs, ref _sliceWaiting, ref _sliceClosedBeforeLogon)) _connections.RemoveAt(_sliceIndex);
                else _sliceIndex++;
            }
            else if (_slicePhase == 1)
            {
                if (_sliceIndex >= _slots.Count)
                {
                    (_slicePhase, _sliceIndex) = (2, 0);
                    continue;
                }
                visited++;
                ServiceSlot(_slots[_sliceIndex++], nowNs, epochNs, stopping: false, ref anyConnected, hotOnWork: true, mayPass: true);
            }
            else
            {
                if (_sliceIndex >= _initiators.Count)
                {
                    // The sweep is complete. At most one per duty cycle.
                    SlicedSweeps++;
                    (_slicePhase, _sliceIndex) = (0, 0);
                    break;
                }
                visited++;
                _initiators[_sliceIndex++].Poll(nowNs, epochNs);
            }
        }
        SliceVisits += visited;
        return _sliceCredit >= intervalNs ? 1 : 0;
    }

    // Every duty cycle, before the hot list and the slice: the sessions on the wheel's ticks up to now's, in the order
    // they were put on each tick (see the design note, the timer wheel). A visit that finds the session quiet still
    // (something it sent or received moved its timers) ends after the compare and puts it back on the wheel if its new
    // end is near. The visits' work counts as a slice's: a session that sent something joins the hot list.
    private int FireWheel(long nowNs, long epochNs)
    {
        long tick = nowNs / WheelTickNs;
        if (_wheelEntries == 0 || _wheelTick == NotOnWheel)
        {
            (_wheelTick, _wheelPos) = (tick, 0);
            return 0;
        }
        int budget = MaxWheelItems;
        bool anyConnected = false;
        while (true)
        {
            // The bucket of _wheelTick, from _wheelPos: a visit may put slots on later ticks, never on this one
            // (Schedule: after _wheelTick), so the bucket does not change while it is read.
            List<SessionSlot> bucket = _wheel![(int)(_wheelTick & (WheelTicks - 1))];
            while (_wheelPos < bucket.Count)
            {
                SessionSlot slot = bucket[_wheelPos];
                if (slot.WheelTick != _wheelTick)
                {
                    _wheelPos++;
                    continue;
                }
                // More are due: the next duty cycles go on from here, and the agent does not park meanwhile.
                if (budget == 0) return 1;
                _wheelPos++;
                budget--;
                slot.WheelTick = NotOnWheel;
                long leadNs = slot.WheelLeadNs;
                slot.WheelLeadNs = 0;
                if (slot.Removed) continue;
                WheelVisits++;
                if (leadNs == 0)
                {
                    ServiceSlot(slot, nowNs, epochNs, stopping: false, ref anyConnected, hotOnWork: true, mayPass: true);
                    continue;
                }
                // Put on an earlier tick than its Heartbeat's: a full visit that sends the Heartbeat if it falls due
                // within the lead planned (from the tick to the due time, and the tick's rounding); if the session sent
                // something meanwhile, it is not due.
                EarlyHeartbeatVisits++;
                ServiceSlot(slot, nowNs, epochNs, stopping: false, ref anyConnected, hotOnWork: true, mayPass: false,
                    heartbeatLeadNs: leadNs);
            }
            _wheelEntries -= bucket.Count;
            bucket.Clear();
            _wheelPos = 0;
            if (_wheelEntries == 0) _wheelTick = tick;
            if (_wheelTick >= tick) return 0;
            _wheelTick++;
        }
    }

    // After a visit (on the wheel's duty cycles): a session whose quiet span ends within WheelHorizonNs goes on the tick
    // after the end (monotonic), unless it waits on that tick or an earlier one already.
    private void Schedule(SessionSlot slot, long nowNs, long epochNs)
    {
        long untilNs = slot.Session.QuietUntilNs;
        if (untilNs == long.MinValue) return;
        // The span ends with the Heartbeat; for a session idle on its side, its phase point may come first (and one on
        // its phase keeps its tick: the crowded-tick spread below would move it off the phase, a little each interval).
        bool heartbeat = slot.Session.HeartbeatDueNs == untilNs;
        bool crowdable = heartbeat;
        long targetNs = untilNs;
        if (heartbeat && slot.Session.LastSentAdmin)
        {
            targetNs = PhasePointNs(untilNs, slot.Session.HeartBtIntSec, slot.HeartbeatPhase);
            crowdable = untilNs - targetNs >= slot.Session.HeartBtIntSec * NsPerSecond * MaxPhaseLeadTenths / 10;
        }
        long inNs = targetNs - epochNs;
        if (inNs >= WheelHorizonNs) return;
        long tick = (nowNs + System.Math.Max(inNs, 0) + WheelTickNs - 1) / WheelTickNs;
        if (tick <= _wheelTick) tick = _wheelTick + 1;
        // Within the wheel's turn from the last tick fired (it lags now's while a stalled agent catches up): a later
        // tick would land in a bucket that is fired before it comes. The sweep puts the session on later.
        if (tick - _wheelTick >= WheelTicks) return;
        if (slot.WheelTick != NotOnWheel && slot.WheelTick <= tick) return;
        List<SessionSlot>[] wheel = _wheel!;
        if (crowdable && wheel[(int)(tick & (WheelTicks - 1))].Count >= CrowdedTick)
        {
            // The span ends with the Heartbeat, on a crowded tick: the least crowded tick up to MaxHeartbeatLeadNs
            // earlier (the latest of equals), so sessions that came due together send their Heartbeats spread out, and
            // keep them spread (each is due HeartBtInt after its own send).
            long earliest = System.Math.Max(_wheelTick + 1, tick - MaxHeartbeatLeadNs / WheelTickNs);
            long best = tick;
            int least = wheel[(int)(tick & (WheelTicks - 1))].Count;
            for (long t = tick - 1; t >= earliest && least > 0; t--)
            {
                int count = wheel[(int)(t & (WheelTicks - 1))].Count;
                if (count < least) (best, least) = (t, count);
            }
            tick = best;
        }
        // Visited before its Heartbeat is due: the visit's lead reaches from the tick's start to the due time, one tick
        // more for the rounding (a visit that finds the session sent something meanwhile sends nothing).
        long tickEpochNs = epochNs + (tick * WheelTickNs - nowNs);
        slot.WheelLeadNs = heartbeat && tickEpochNs < untilNs ? untilNs - tickEpochNs + WheelTickNs : 0;
        slot.WheelTick = tick;
        wheel[(int)(tick & (WheelTicks - 1))].Add(slot);
        _wheelEntries++;
    }

    /// <summary>Where a Heartbeat due at <paramref name="dueNs"/> goes when the agent spreads the Heartbeats over the
    /// interval (epoch ns): the latest instant at or before the due time that lies at the session's phase in its
    /// HeartBtInt (counted from the epoch), but at most <see cref="MaxPhaseLeadTenths"/> tenths of HeartBtInt before the
    /// due time, so a session far from its phase gets there over a few intervals. Once there, each Heartbeat is due at
    /// its phase point. A due time up to <see cref="PhaseSlackNs"/> before the phase point stays: moving it would send a
    /// Heartbeat half an interval early to go round. Heartbeats off (HeartBtInt 0 or less): the due time.</summary>
    internal static long PhasePointNs(long dueNs, int heartBtIntSec, uint phase)
    {
        if (heartBtIntSec <= 0 || dueNs == long.MaxValue) return dueNs;
        long intervalNs = heartBtIntSec * NsPerSecond;
        long offsetNs = (long)(((System.UInt128)phase * (ulong)intervalNs) >> 32);
        long behindNs = (dueNs - offsetNs) % intervalNs;
        if (behindNs < 0) behindNs += intervalNs;
        if (intervalNs - behindNs <= PhaseSlackNs) return dueNs;
        return dueNs - System.Math.Min(behindNs, intervalNs * MaxPhaseLeadTenths / 10);
    }

    /// <summary>How early, in tenths of HeartBtInt, a Heartbeat may go to move toward its session's phase (half the
    /// interval: two intervals bring any session to its phase).</summary>
    internal const int MaxPhaseLeadTenths = 5;

    /// <summary>A Heartbeat due this little before its session's phase point keeps its due time (<see cref="PhasePointNs"/>):
    /// two ticks, for a send the clock's re-anchoring put just ahead of the phase.</summary>
    internal const long PhaseSlackNs = 2 * WheelTickNs;

    // A full sweep visits everything: the sweep in slices starts again from the beginning, owing nothing.
    private void RestartSlices(long nowNs)
    {
        (_slicePhase, _sliceIndex) = (0, 0);
        _sliceCredit = 0;
        _lastSliceNs = nowNs;
        (_sliceWaiting, _sliceClosedBeforeLogon) = (0, 0);
    }

    // The hot list holds a session once, however many reasons it has to be there (work left, a busy gate, a request).
    private void AddHot(SessionSlot slot)
    {
        if (slot.OnHotList) return;
        slot.OnHotList = true;
        _hot.Add(slot);
    }

    private void ClearHot()
    {
        for (int i = _hotHead; i < _hot.Count; i++) _hot[i].OnHotList = false;
        _hot.Clear();
        _hotHead = 0;
    }

    // mayPass: a sweep's or a slice's visit, which ends at once for a quiet session (FixSession.IsQuietAt: its last
    // Poll found nothing due before a later instant, and nothing touched it since); a visit from the hot list (asked
    // for, or work left) and every visit while stopping service the session in full. See the design note (quiet
    // sessions).
    private int ServiceSlot(SessionSlot slot, long nowNs, long epochNs, bool stopping, ref bool anyConnected, bool hotOnWork, bool mayPass,
        long heartbeatLeadNs = 0)
    {
        int work = 0;
        slot.ServiceVisits++;
        if (mayPass && slot.Session.IsQuietAt(epochNs))
        {
            QuietVisits++;
            slot.AgentDueEpochNs = slot.Session.QuietUntilNs;
            if (_wheelOn) Schedule(slot, nowNs, epochNs);
            return 0;
        }
        using (SessionScope scope = slot.EnterForService(epochNs, nowNs))
        {
            if (scope.Entered)
            {
                work = ServiceSession(slot, scope.EpochNs, stopping, ref anyConnected, heartbeatLeadNs);
                // The journal budget looks at the session on full visits only: its next look bounds the quiet span.
                if (_journals is not null)
                {
                    long dueNs = _journals.NextVisitNs(slot.Session, nowNs, scope.EpochNs);
                    if (dueNs != long.MaxValue) slot.Session.EndQuietBy(epochNs + (dueNs - nowNs));
                }
                slot.AgentDueEpochNs = slot.Session.QuietUntilNs;
            }
            else
            {
                // A receiving thread is in the session (so it is connected): serviced on a later duty cycle. Not
                // counted as work: spinning on the gate while a message is processed (or fsynced) takes the core the
                // receiving thread and the peer need. Messages handed over meanwhile are not left waiting for the
                // idle strategy: the receiving thread sends them as it leaves (FixSession.Leave), or wakes the agent.
                anyConnected = true;
                if (hotOnWork) AddHot(slot);
            }
        }
        if (work > 0 && hotOnWork) AddHot(slot);
        if (_wheelOn) Schedule(slot, nowNs, epochNs);
        // Outside the scope: a completion-mode resume dispatches waiting messages on this thread, entering the
        // session itself. The connection may be a duty cycle stale: pausing or resuming one the session has just
        // dropped is harmless.
        if (slot.Session.Connection is IEngineConnection connection) connection.SyncReceivePause(slot.Session);
        return work;
    }

    public void OnClose()
    {
        // Commands queued before the close still run (the sessions are still there); later ones run on their callers.
        lock (_commandsLock) _commandsClosed = true;
        RunCommands(_time.EpochNow());
        // Removals end here (the caller disposes the session); adds not yet applied stay the host's to dispose.
        while (_changes.TryDequeue(out SessionChange? change))
        {
            if (!change.Remove) _slots.Add(change.Slot);
            else if (_slots.Remove(change.Slot)) _removing.Add(change);
            else change.Done.Set();
        }
        foreach (SessionChange removal in _removing)
        {
            _slots.Remove(removal.Slot);
            using (SessionScope scope = removal.Slot.EnterAsAgent(_time.EpochNow())) removal.Slot.Session.OnDisconnected("session removed", scope.EpochNs);
            removal.Done.Set();
        }
        _removing.Clear();
        while (_incoming.TryDequeue(out SessionConnection? queued)) _connections.Add(queued);
        foreach (SessionConnection c in _connections) c.CloseNow("engine stopped");
        long epochNs = _time.EpochNow();
        foreach (SessionSlot slot in _slots)
        {
            using SessionScope scope = slot.EnterAsAgent(epochNs);
            slot.Session.OnDisconnected("engine stopped", scope.EpochNs);
            slot.Session.AbandonHandedOver(scope.EpochNs);
        }
        _loggedOut.Set();
        _loggedOutTask.TrySetResult();
        _closedTask.TrySetResult();
    }

    // Start of a duty cycle: operators' commands, each inside its session's scope (waiting for the gate: a receiving
    // thread holds it for one message at most). Rare; may allocate.
    private int RunCommands(long epochNs)
    {
        int work = 0;
        while (_commands.TryDequeue(out SessionCommand? command))
        {
            work++;
            using SessionScope scope = command.Slot.EnterAsAgent(epochNs);
            command.Run(scope.EpochNs);
        }
        return work;
    }

    // Start of a duty cycle: sessions added to or removed from the running engine.
    private int ApplyChanges(long nowNs)
    {
        int work = 0;
        while (_changes.TryDequeue(out SessionChange? change))
        {
            work++;
            SessionSlot slot = change.Slot;
            if (!change.Remove)
            {
                _slots.Add(slot);
                if (slot.Initiator is InitiatorConnector added) _initiators.Add(added);
                change.Done.Set();
                continue;
            }
            // No new connect for a removed initiator; the session logs out while it is still serviced.
            if (slot.Initiator is InitiatorConnector removed) _initiators.Remove(removed);
            if (!_slots.Contains(slot))
            {
                change.Done.Set();
                continue;
            }
            change.DeadlineNs = nowNs + (slot.Session.Settings.LogoutTimeout + 1) * NsPerSecond;
            _removing.Add(change);
        }
        return work;
    }

    // After the sessions were serviced: each removed session sends its Logout, waits for the reply (or LogoutTimeout, which
    // its own Poll enforces; DeadlineNs is the backstop), then leaves the engine and its remover is signalled.
    private int ServiceRemovals(long nowNs, long epochNs)
    {
        int work = 0;
        for (int i = _removing.Count - 1; i >= 0; i--)
        {
            SessionChange removal = _removing[i];
            SessionSlot slot = removal.Slot;
            using (SessionScope scope = slot.EnterForService(epochNs, nowNs))
            {
                if (!scope.Entered)
                {
                    work++;
                    continue;
                }
                FixSession session = slot.Session;
                if (!removal.LogoutStarted)
                {
                    removal.LogoutStarted = true;
                    work++;
                    if (session.State == SessionState.LoggedOn) session.Logout("Session removed", scope.EpochNs);
                    else if (session.IsConnected) session.Disconnect("session removed", scope.EpochNs);
                }
                if (session.IsConnected && nowNs < removal.DeadlineNs) continue;
                if (session.IsConnected) session.Disconnect("session removed: no Logout reply in time", scope.EpochNs);
            }
            _slots.Remove(slot);
            _removing.RemoveAt(i);
            removal.Done.Set();
            work++;
        }
        return work;
    }

    private int TakeIncoming(long nowNs, long epochNs)
    {
        int work = 0;
        while (_incoming.TryDequeue(out SessionConnection? connection))
        {
            work++;
            connection.AcceptedNs = nowNs;
            _connections.Add(connection);
            if (connection.Slot is SessionSlot slot && slot.Initiator is InitiatorConnector initiator)
            {
                initiator.Connected();
                if (slot.Removed)
                {
                    // The connect task finished after the session was removed.
                    connection.CloseNow("session removed");
                    continue;
                }
                _console.Connected(slot.Session.Id, connection.RemoteEndPoint);
                using (SessionScope scope = slot.EnterAsAgent(epochNs))
                {
                    slot.Connect(connection, scope.EpochNs);
                }
                // After OnConnected (the Logon is out): a completion-mode connection may deliver the answer at once.
                connection.Start();
            }
            else
            {
                // Completion-mode and TLS acceptor connections were started by the accept thread.
                if (!connection.Guarded) connection.Start();
                _console.Accepted(connection.RemoteEndPoint);
            }
        }
        return work;
    }

    private int PollConnections(long nowNs, out int waiting, out int closedBeforeLogon)
    {
        int work = 0;
        waiting = 0;
        closedBeforeLogon = 0;
        int unguarded = 0;
        for (int i = _connections.Count - 1; i >= 0; i--)
        {
            SessionConnection c = _connections[i];
            if (!c.Guarded) unguarded++;
            work += c.Poll(nowNs);
            if (CheckConnection(c, nowNs, ref waiting, ref closedBeforeLogon)) _connections.RemoveAt(i);
        }
        _unguardedConnections = unguarded;
        return work;
    }

    // After the connection's own poll (a full sweep or a slice): closes one that sent no Logon in time; true when it is
    // closing and leaves _connections (the caller removes it).
    private bool CheckConnection(SessionConnection c, long nowNs, ref int waiting, ref int closedBeforeLogon)
    {
        if (c.Slot is null && !c.IsClosed && nowNs - c.AcceptedNs > _logonTimeoutNs) c.Close("no Logon received");
        // The agent's park (a sweep's; a slice's deadline is the wheel's): a flushing close is polled, a connection
        // waiting for its Logon is closed when its time runs out.
        if (c.Transport.IsFlushing) DueByNs(nowNs + ShortParkNs);
        else if (c.Slot is null && !c.IsClosed) DueByNs(c.AcceptedNs + _logonTimeoutNs + 1);
        if (c.Transport.IsClosing)
        {
            // A connection refused or dropped before its Logon was routed leaves one line, with the reason.
            if (c.Slot is null)
            {
                _console.Refused(c.RemoteEndPoint, "closed before Logon: " + c.CloseReason);
                closedBeforeLogon++;
            }
            c.ReleaseAdmission();
            return true;
        }
        if (c.Slot is null) waiting++;
        return false;
    }

    // Inside the session's scope.
    private int ServiceSession(SessionSlot slot, long epochNs, bool stopping, ref bool anyConnected, long heartbeatLeadNs = 0)
    {
        FixSession session = slot.Session;
        int work = 0;
        _journals?.Visit(session, _nowNs, epochNs);
        if (session.Connection is IEngineConnection c && c.IsClosed)
        {
            bool wasLoggedOn = session.IsLoggedOn;
            string reason = c.CloseReason;
            // A TLS acceptor that checks our client certificate after the handshake (TLS 1.3, or .NET on TLS 1.2) and ends
            // the connection: the initiator backs off as after a failed handshake.
            if (c is SessionConnection { Transport: Transport.TlsConnection { EndedForOurCertificate: true } } && slot.Initiator is InitiatorConnector initiator)
            {
                initiator.TlsRefused(reason);
            }
            session.OnDisconnected(reason, epochNs);
            if (wasLoggedOn || session.State == SessionState.Disconnected) _console.Disconnected(session.Id, reason);
            work++;
        }
        work += session.Poll(epochNs, heartbeatLeadNs);
        // Stopping: everything the application handed over is stored (and sent while connected) before the Logout.
        if (stopping) work += session.StoreHandedOverForStop(epochNs);
        if (stopping && session.IsConnected)
        {
            anyConnected = true;
            if (session.State == SessionState.LoggedOn) session.Logout("Engine stopping", epochNs);
            else if (session.State is SessionState.AwaitingLogon or SessionState.LogonSent) session.Disconnect("engine stopping", epochNs);
        }
        return work;
    }
}
