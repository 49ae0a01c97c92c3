using System.Threading;
using FixEngine.Session;

namespace FixEngine.Engine;

// Design:
// - One slot per session, made by the FixEngineHost constructor or FixEngineHost.AddSession (or for an unknown session's
//   Logon) and immutable after it, except Removed and the agent's service bookkeeping.
// - Who may run the session and how the others reach it: docs/architecture.md, "Who runs a session". The gate itself is
//   the session's (FixSession.Gate); Enter returns a SessionScope, the construct every engine path uses
//   ("using (SessionScope scope = slot.Enter(epochNs)) { ... scope.EpochNs ... }") except the receiving thread's per
//   message, which calls FixSession.Enter and Leave itself (SessionConnection: two hops fewer on the message's path,
//   the same calls).
// - The agent services a gated session with EnterForService, a TryEnter: when the gate is busy (a message is being
//   processed) it skips the session this duty cycle, so a message never queues behind the agent and the agent's other
//   sessions never queue behind a slow FromApp. Once refused for MaxServiceDelayNs of its monotonic time it waits for the
//   gate, so a flood that holds the gate almost all the time cannot starve the session's timers. _refusedSinceNs and
//   _refused are the agent's.
// - PERF: the gate is a Monitor rather than System.Threading.Lock: a contended Lock allocates its wait event the first
//   time, Monitor's contention path does not (CompletionAllocationTests.SessionGateContentionAllocatesNothing).

/// <summary>A session as the engine holds it: its scope (entry), the agent's service bookkeeping and, for initiators, its connector.</summary>
internal sealed class SessionSlot
{
    /// <summary>Longest time the agent skips a gated session whose gate is busy before it waits for the gate (1 ms).</summary>
    public const long MaxServiceDelayNs = 1_000_000L;

    private long _refusedSinceNs;
    private bool _refused;

    /// <summary>1 while the slot waits in the agent's request stack (<see cref="EngineAgent.RequestService"/>).</summary>
    internal int ServiceRequested;

    /// <summary>Engine agent only: the slot is on the agent's hot list (so it is not added twice).</summary>
    internal bool OnHotList;

    /// <summary>Engine agent only: how many times the agent serviced the session (a sweep, a slice or the hot list; also
    /// when its gate was busy). Read by tests between duty cycles they run themselves.</summary>
    internal long ServiceVisits;

    /// <summary>Engine agent only: where the session's quiet span ended when the agent last saw it (epoch ns;
    /// <see cref="long.MinValue"/>: something waited, <see cref="long.MaxValue"/>: nothing due), kept while its gate is busy:
    /// the agent parks until the earliest of these (see <see cref="EngineAgent"/>, parking until the next deadline).</summary>
    internal long AgentDueEpochNs = long.MinValue;

    /// <summary>Engine agent only: the tick of the agent's timer wheel the slot waits on (the earliest, when it was put on
    /// it more than once), or <see cref="EngineAgent.NotOnWheel"/>.</summary>
    internal long WheelTick = EngineAgent.NotOnWheel;

    /// <summary>Engine agent only: 0, or the slot was put on an earlier tick than its Heartbeat's and its visit then sends
    /// the Heartbeat if it falls due within this lead (ns; the agent spreads the Heartbeats of sessions due together).</summary>
    internal long WheelLeadNs;

    /// <summary>Where in its HeartBtInt this session's Heartbeats go once the engine spreads them (a fraction of the
    /// interval in units of 2^-32; see <see cref="EngineAgent"/>, the timer wheel). Consecutive slots get the golden-ratio
    /// sequence, so any number of them lie evenly over the interval.</summary>
    internal readonly uint HeartbeatPhase = unchecked((uint)System.Threading.Interlocked.Increment(ref s_phases) * 2654435769u);

    private static int s_phases;

    /// <summary>The next slot in the agent's request stack (written before the slot is pushed, cleared when taken).</summary>
    internal SessionSlot? NextRequested;

    /// <param name="session">The session.</param>
    /// <param name="guarded">True when a thread other than the engine agent runs the session (dedicated or completion
    /// receive, TLS, hosted connections): the session gets its gate.</param>
    /// <param name="epochNow">The engine's clock, read on any thread: for application threads that enter a free gated session
    /// to send what they handed over; null: they never enter, the agent sends for them.</param>
    public SessionSlot(FixSession session, bool guarded, System.Func<long>? epochNow = null)
    {
        Session = session;
        if (guarded) session.UseGate(epochNow);
    }

    public FixSession Session { get; }

    /// <summary>True when the session has a gate; false for busy-poll sessions (the agent alone runs them).</summary>
    public bool Guarded => Session.IsGated;

    /// <summary>The initiator's connect/reconnect state; null for an acceptor session (set once, before the slot is published).</summary>
    public InitiatorConnector? Initiator { get; set; }

    /// <summary>The peer addresses an acceptor session takes a Logon from (AllowedRemoteAddresses, names resolved when the
    /// slot was made; IPv4 as IPv4, never IPv4-mapped); null: any address (set once, before the slot is published).</summary>
    public System.Net.IPAddress[]? AllowedAddresses { get; set; }

    /// <summary>How many times a thread entering the session with <see cref="Enter"/> waited for its gate (any thread).</summary>
    public long GateWaits => Interlocked.Read(ref Session.GateWaits);

    /// <summary>Set (any thread, once) when <see cref="FixEngineHost.RemoveSession"/> takes the session out: no connection
    /// is attached to it any more (the router and the agent check it inside the session's scope or before attaching).</summary>
    public volatile bool Removed;

    /// <summary>Set and cleared by an operator (EngineRuntime.SetEnabled, any thread): a disabled initiator does not
    /// connect and a disabled acceptor's Logons are refused (the connection is closed).</summary>
    public volatile bool Disabled;

    /// <summary>Enters the session: takes its gate (if it has one) until the scope is disposed.</summary>
    /// <param name="epochNs">The caller's epoch time.</param>
    /// <returns>The scope; its <see cref="SessionScope.EpochNs"/> is the time to give the session.</returns>
    public SessionScope Enter(long epochNs) => new(Session, Session.Enter(epochNs));

    /// <summary>Agent only: <see cref="Enter"/> for the agent's own work outside its service pass (connects, removals,
    /// operators' commands); leaving does not wake the agent (it is awake).</summary>
    /// <param name="epochNs">The agent's epoch time.</param>
    public SessionScope EnterAsAgent(long epochNs) => new(Session, Session.Enter(epochNs), byAgent: true);

    /// <summary>Agent only: enters the session for its duty-cycle service unless another thread is in it now (see the
    /// design note); check <see cref="SessionScope.Entered"/>.</summary>
    /// <param name="epochNs">The agent's epoch time.</param>
    /// <param name="nowNs">The agent's monotonic time (bounds how long it keeps skipping a busy gate).</param>
    public SessionScope EnterForService(long epochNs, long nowNs)
    {
        if (Session.TryEnter(epochNs, out long entryEpochNs))
        {
            _refused = false;
            return new SessionScope(Session, entryEpochNs, byAgent: true);
        }
        if (!_refused)
        {
            _refused = true;
            _refusedSinceNs = nowNs;
            return default;
        }
        if (nowNs - _refusedSinceNs < MaxServiceDelayNs) return default;
        _refused = false;
        return new SessionScope(Session, Session.Enter(epochNs), byAgent: true);
    }

    /// <summary>Inside the session's scope: gives the session its new connection (an initiator sends its Logon now).</summary>
    /// <param name="connection">The connection.</param>
    /// <param name="epochNs">The scope's time.</param>
    public void Connect(ISessionConnection connection, long epochNs) => Session.OnConnected(connection, epochNs);
}

/// <summary>Holds a session (its gate, when it has one) for a <c>using</c> block; see <see cref="SessionSlot.Enter"/>.
/// Leaving sends what other threads handed over meanwhile (FixSession.Leave).</summary>
internal readonly ref struct SessionScope
{
    private readonly FixSession? _session;
    private readonly bool _byAgent;

    /// <summary>The session is entered (FixSession.Enter or TryEnter returned <paramref name="epochNs"/>).</summary>
    /// <param name="session">The session.</param>
    /// <param name="epochNs">The time to give the session.</param>
    /// <param name="byAgent">Entered by the engine agent for its duty cycle: leaving does not wake the agent.</param>
    public SessionScope(FixSession session, long epochNs, bool byAgent = false)
    {
        _session = session;
        EpochNs = epochNs;
        _byAgent = byAgent;
    }

    /// <summary>False only for a <see cref="SessionSlot.EnterForService"/> that found the gate busy: the session must not
    /// be touched (the default scope, which releases nothing).</summary>
    public bool Entered => _session is not null;

    /// <summary>The epoch time to pass to the session inside this scope.</summary>
    public long EpochNs { get; }

    public void Dispose() => _session?.Leave(wakeAgent: !_byAgent);
}
