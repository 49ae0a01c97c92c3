using System.Threading;
using FixEngine.Session;

namespace FixEngine.Engine;

// Design:
// - One slot per session, made by the FixEngineHost constructor or FixEngineHost.AddSession (or for an unknown session's
//   Logon) and immutable after it, except _lastEpochNs and Removed.
// - The gate is how any thread enters the session: Enter returns a SessionScope, the one construct every engine path
//   uses ("using (SessionScope scope = slot.Enter(epochNs)) { ... scope.EpochNs ... }"). Busy-poll session: no gate (the
//   engine agent is its only thread), the scope costs a null check. Dedicated, completion-mode or TLS session: a private
//   object locked (Monitor) by whichever thread runs the session: the connection's receive thread (dedicated) or a
//   socket completion thread for inbound messages, the agent for timers, the outbox, connect/disconnect handling and
//   stop. Uncontended in practice (the agent holds it for one Poll, and only when it was free: EnterForService).
//   PERF: Monitor rather than System.Threading.Lock: a contended Lock allocates its wait event on the managed heap the
//   first time, Monitor's contention path does not (CompletionAllocationTests.SessionGateContentionAllocatesNothing).
// - Time for a gated session: each thread brings its own epoch time (the agent its duty-cycle time, a completion thread
//   one clock read per message), and they can arrive out of order. _lastEpochNs, written only under the gate, is the
//   latest time any entry gave the session; the scope hands the session max(given, last), so its time never goes back.
//   Time flows one way: engine -> scope -> session; the engine never reads time back from the session.
// - The agent never makes a receiving thread wait for its timers, and never waits for a receiving thread either: it
//   services a gated session through EnterForService, a Monitor.TryEnter. When the gate is busy (a message is being
//   processed) the agent skips the session this duty cycle and tries again on the next, so a message never queues
//   behind the agent and the agent's other sessions never queue behind a slow FromApp. So that a receiving thread that
//   holds the gate almost all the time (a flood) cannot starve the session's timers and outbox, once the agent has been
//   refused for MaxServiceDelayNs of its monotonic time it takes the gate blocking. _refusedSinceNs/_refused belong to
//   the agent (written outside the gate, by the agent only).

/// <summary>A session with its gate and, for initiators, its connector.</summary>
internal sealed class SessionSlot : IDirectSendGate
{
    /// <summary>Longest time the agent skips a gated session whose gate is busy before it waits for the gate (1 ms).</summary>
    public const long MaxServiceDelayNs = 1_000_000L;

    private long _lastEpochNs;
    private long _refusedSinceNs;
    private bool _refused;

    public SessionSlot(FixSession session, bool guarded)
    {
        Session = session;
        Gate = guarded ? new object() : null;
    }

    public FixSession Session { get; }

    /// <summary>Locked around every use of the session by any thread; null for busy-poll sessions (agent only).</summary>
    public object? Gate { get; }

    /// <summary>The initiator's connect/reconnect state; null for an acceptor session (set once, before the slot is published).</summary>
    public InitiatorConnector? Initiator { get; set; }

    /// <summary>How many times a thread entering the session (<see cref="Enter"/>: a receiving thread, a connect or
    /// removal) found the gate held and waited for it; any thread reads it (a diagnostic: the round-trip harness prints it
    /// with FIXENGINE_GATE_TRACE=1).</summary>
    public long GateWaits;

    /// <summary>Set (any thread, once) when <see cref="FixEngineHost.RemoveSession"/> takes the session out: no connection
    /// is attached to it any more (the router and the agent check it inside the session's scope or before attaching).</summary>
    public volatile bool Removed;

    /// <summary>Set and cleared by an operator (EngineRuntime.SetEnabled, any thread): a disabled initiator does not
    /// connect and a disabled acceptor's Logons are refused (the connection is closed).</summary>
    public volatile bool Disabled;

    /// <summary>Enters the session: takes its gate (if it has one) until the scope is disposed.</summary>
    /// <param name="epochNs">The caller's epoch time.</param>
    /// <returns>The scope; its <see cref="SessionScope.EpochNs"/> is the time to give the session.</returns>
    public SessionScope Enter(long epochNs) => new(this, epochNs);

    /// <summary>Agent only: enters the session for its duty-cycle service unless another thread is in it now (see the
    /// design note); check <see cref="SessionScope.Entered"/>.</summary>
    /// <param name="epochNs">The agent's epoch time.</param>
    /// <param name="nowNs">The agent's monotonic time (bounds how long it keeps skipping a busy gate).</param>
    public SessionScope EnterForService(long epochNs, long nowNs)
    {
        object? gate = Gate;
        if (gate is null) return new SessionScope(this, epochNs);
        if (Monitor.TryEnter(gate))
        {
            _refused = false;
            return new SessionScope(this, gate, epochNs);
        }
        if (!_refused)
        {
            _refused = true;
            _refusedSinceNs = nowNs;
            return default;
        }
        if (nowNs - _refusedSinceNs < MaxServiceDelayNs) return default;
        _refused = false;
        return new SessionScope(this, epochNs);
    }

    /// <summary>Inside the session's scope: gives the session its new connection (an initiator sends its Logon now).</summary>
    /// <param name="connection">The connection.</param>
    /// <param name="epochNs">The scope's time.</param>
    /// <param name="prewarmBacklog">Rent the session's send backlog now (<see cref="EngineOptions.PrewarmConnections"/>).</param>
    public void Connect(ISessionConnection connection, long epochNs, bool prewarmBacklog)
    {
        Session.OnConnected(connection, epochNs);
        if (prewarmBacklog) Session.PrewarmSendBacklog();
    }

    /// <summary>The engine's clock, for <see cref="IDirectSendGate.TryEnter"/>; set with
    /// <see cref="EnableDirectSend"/>.</summary>
    private EpochAnchor? _time;

    /// <summary>Lets threads that hand messages over (FixSession.TrySendFromAnyThread) enter a gated session that nobody
    /// is in and send at once. Nothing for a busy-poll session (no gate: only the agent runs it).</summary>
    public void EnableDirectSend(EpochAnchor time)
    {
        if (Gate is null) return;
        _time = time;
        Session.DirectSendGate = this;
    }

    bool IDirectSendGate.TryEnter(out long epochNs)
    {
        object? gate = Gate;
        if (gate is null || _time is null || Removed || !Monitor.TryEnter(gate))
        {
            epochNs = 0;
            return false;
        }
        epochNs = Stamp(_time.EpochNow());
        return true;
    }

    void IDirectSendGate.Exit() => Monitor.Exit(Gate!);

    /// <summary>A receiving thread, after leaving the gate: if messages were handed over while it was inside (after its
    /// last look at the outbox), enters again when the gate is free and sends them itself; otherwise (or if more came)
    /// wakes the engine agent, which may have found the gate busy and gone idle. Any thread; one volatile read when
    /// there is nothing to do.</summary>
    public void SendHandedOverOrWakeAgent() => Session.SendHandedOverOrWakeAgent();

    /// <summary>Under the gate: the time to give the session, never earlier than the last one.</summary>
    internal long Stamp(long epochNs)
    {
        if (epochNs < _lastEpochNs) return _lastEpochNs;
        _lastEpochNs = epochNs;
        return epochNs;
    }
}

/// <summary>Holds a session's gate (when it has one) for a <c>using</c> block; see <see cref="SessionSlot.Enter"/>.</summary>
internal readonly ref struct SessionScope
{
    private readonly object? _gate;

    public SessionScope(SessionSlot slot, long epochNs)
    {
        Entered = true;
        _gate = slot.Gate;
        if (_gate is null)
        {
            EpochNs = epochNs;
            return;
        }
        if (!Monitor.TryEnter(_gate))
        {
            // Slow path only (the same fast path as Enter's when the gate is free): counted for diagnostics.
            Interlocked.Increment(ref slot.GateWaits);
            Monitor.Enter(_gate);
        }
        EpochNs = slot.Stamp(epochNs);
    }

    /// <summary>The gate is already held (taken with Monitor.TryEnter).</summary>
    internal SessionScope(SessionSlot slot, object gate, long epochNs)
    {
        Entered = true;
        _gate = gate;
        EpochNs = slot.Stamp(epochNs);
    }

    /// <summary>False only for a <see cref="SessionSlot.EnterForService"/> that found the gate busy: the session must not
    /// be touched (the default scope, which releases nothing).</summary>
    public bool Entered { get; }

    /// <summary>The epoch time to pass to the session inside this scope.</summary>
    public long EpochNs { get; }

    public void Dispose()
    {
        if (_gate is not null) Monitor.Exit(_gate);
    }
}
