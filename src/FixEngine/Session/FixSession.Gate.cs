using System;
using System.Threading;

namespace FixEngine.Session;

// Role: who may run the session. The rules and the path of a message per receive mode are in docs/architecture.md
// ("Who runs a session"); this file is their one implementation:
// - A gated session (dedicated or completion receive, TLS, hosted connections) is a monitor: a thread runs session code
//   only between Enter (or TryEnter) and Leave. The holder is the owner (_ownerThreadId, which Send checks).
// - A session without a gate (busy-poll) is run by the engine agent alone; Enter and Leave cost a null check.
// - Any other thread reaches the session one way only: TrySendFromAnyThread writes into the hand-off ring, then enters
//   the gate if it is free (and sends at once) or else wakes the engine agent. Whoever holds the session sends what
//   was handed over before leaving it (Leave), so nothing waits for a thread that is not coming.

public sealed partial class FixSession
{
    // Null: no gate (busy-poll, or a session driven by one test thread).
    private object? _gate;

    // For threads that enter only to send what they handed over (null: they never enter, the agent sends for them).
    private Func<long>? _epochNow;

    // Under the gate: the latest time any entry gave the session, so that its time never goes back when threads bring
    // their own clock readings out of order.
    private long _lastEntryEpochNs;

    /// <summary>How many times a thread entering with <see cref="Enter"/> found the gate held and waited for it (a
    /// diagnostic: the round-trip harness prints it with FIXENGINE_GATE_TRACE=1); any thread reads it.</summary>
    internal long GateWaits;

    /// <summary>True when the session has a gate (more than one thread may run it, one at a time).</summary>
    internal bool IsGated => _gate is not null;

    /// <summary>True when the calling thread holds the session's gate.</summary>
    internal bool IsHeldByCurrentThread => _gate is { } gate && Monitor.IsEntered(gate);

    /// <summary>Engine, before the session runs: gives the session its gate. <paramref name="epochNow"/> (any thread)
    /// lets a thread that handed a message over enter the session when it is free and send at once; null: it never
    /// enters and the engine agent sends for it.</summary>
    internal void UseGate(Func<long>? epochNow)
    {
        _gate ??= new object();
        _epochNow = epochNow;
    }

    /// <summary>Enters the session, waiting for the gate if another thread holds it.</summary>
    /// <param name="epochNs">The caller's epoch time.</param>
    /// <returns>The time to give the session (gated: never earlier than the last entry's).</returns>
    internal long Enter(long epochNs)
    {
        object? gate = _gate;
        if (gate is null)
        {
            _ownerThreadId = Environment.CurrentManagedThreadId;
            _lastEntryEpochNs = epochNs;
            Unquiet();
            return epochNs;
        }
        if (!Monitor.TryEnter(gate))
        {
            Interlocked.Increment(ref GateWaits);
            Monitor.Enter(gate);
        }
        return Entered(epochNs);
    }

    /// <summary>Enters the session only if no other thread holds it (a session without a gate: always).</summary>
    /// <param name="epochNs">The caller's epoch time.</param>
    /// <param name="entryEpochNs">When entered: the time to give the session.</param>
    /// <returns>True when entered; <see cref="Leave"/> must follow on the same thread.</returns>
    internal bool TryEnter(long epochNs, out long entryEpochNs)
    {
        object? gate = _gate;
        if (gate is null)
        {
            _ownerThreadId = Environment.CurrentManagedThreadId;
            _lastEntryEpochNs = epochNs;
            Unquiet();
            entryEpochNs = epochNs;
            return true;
        }
        if (!Monitor.TryEnter(gate))
        {
            entryEpochNs = 0;
            return false;
        }
        entryEpochNs = Entered(epochNs);
        return true;
    }

    /// <summary>Leaves the session: first sends what other threads handed over while this one held it.</summary>
    /// <param name="wakeAgent">False for the engine agent itself (it looks at the hand-off on its next duty cycle).</param>
    internal void Leave(bool wakeAgent = true)
    {
        object? gate = _gate;
        try
        {
            if (HasHandedOverMessages)
            {
                Unquiet();
                DrainHandedOver(_lastEntryEpochNs);
            }
            // Above the journal budget's hard cap (Engine/JournalHandleBudget.cs): close the journal this entry opened.
            if (_store is Store.FileMessageStore { ParkAfterUse: true } journal) journal.TryPark();
        }
        finally
        {
            if (gate is not null) Monitor.Exit(gate);
        }
        // Still waiting (the session cannot send now, or a sender found the gate held after the drain above), or left
        // with work only the agent's Poll does (a backlog, a replay, a receive pause): the agent takes it, parked or not.
        // A few plain reads when nothing waits.
        if (wakeAgent && (HasHandedOverMessages || WaitsForPoll)) RequestAgentService();
    }

    // Under the gate. Whoever enters may change what the next Poll would do: the agent's next visit polls (Unquiet).
    private long Entered(long epochNs)
    {
        _ownerThreadId = Environment.CurrentManagedThreadId;
        Unquiet();
        if (epochNs < _lastEntryEpochNs) return _lastEntryEpochNs;
        _lastEntryEpochNs = epochNs;
        return epochNs;
    }

    // A sender after its hand-off: enters a free gate and sends (Leave), else leaves it to the holder or the agent.
    private void SendHandedOverNowOrWakeAgent()
    {
        Func<long>? epochNow = _epochNow;
        if (epochNow is not null && Monitor.TryEnter(_gate!))
        {
            Entered(epochNow());
            Leave();
            return;
        }
        RequestAgentService();
    }
}
