using System;
using System.Threading;

namespace FixEngine.Session;

// Role: time. Poll runs the logon/logout timeouts, heartbeats and test requests and the session schedule, and drives
// the send backlog, the replay and the cross-thread outbox.

public sealed partial class FixSession
{
    private const long NsPerSecond = 1_000_000_000L;
    private static ReadOnlySpan<byte> TestRequestId => "TEST"u8;

    /// <summary>Runs the timers (logon/logout timeouts, heartbeats, test requests, schedule) and sends messages queued by other threads.</summary>
    /// <param name="epochNs">Now, epoch nanoseconds.</param>
    /// <param name="heartbeatLeadNs">The Heartbeat goes out already when it falls due within this (0: when due; the engine
    /// agent spreads the Heartbeats of sessions due together). Only the Heartbeat moves: the TestRequest and the
    /// disconnect keep their times.</param>
    /// <returns>Work done (0 when idle).</returns>
    /// <remarks>Owner thread only. Allocation-free unless an event is logged.</remarks>
    internal int Poll(long epochNs, long heartbeatLeadNs = 0)
    {
        int work;
        try
        {
            work = _held ? PollHeld(epochNs) : PollCore(epochNs, heartbeatLeadNs);
        }
        catch (Store.MessageStoreException e)
        {
            OnStoreFailed(e, epochNs);
            Unquiet();
            return 1;
        }
        _quietFromNs = epochNs;
        Volatile.Write(ref _quietUntilNs, NextPollActionNs(epochNs));
        return work;
    }

    // The quiet span: from the last Poll's time until the earliest instant at which a Poll would act on the state it
    // left (NextPollActionNs), so the engine agent's visit of an idle session can end after a compare (IsQuietAt)
    // instead of entering it. Written by Poll under the session's gate and emptied (Unquiet) by everything that may
    // change what Poll would do: every entry into the session (any thread, the agent's own included: Entered), a
    // drain of handed-over messages on leaving, a request for the agent's service, the transport's close. Read by the
    // agent without the gate: a stale read is a read from before the change, which the changing thread answers as
    // today (it holds the gate, so the agent's TryEnter would have failed too, or it asks for the agent's service).
    private long _quietFromNs;
    private long _quietUntilNs = long.MinValue;

    /// <summary>Engine agent, without entering the session: true when a <see cref="Poll"/> at <paramref name="epochNs"/>
    /// would do nothing (no timer due, nothing waiting) and nothing has touched the session since the last Poll.</summary>
    /// <param name="epochNs">The agent's epoch time.</param>
    /// <remarks>The hand-off is the one state other threads change without the gate; it is read here too, so a message
    /// handed over while a Poll was writing its span (the span written after the sender emptied it) is never passed
    /// over until the span ends.</remarks>
    internal bool IsQuietAt(long epochNs) => epochNs < Volatile.Read(ref _quietUntilNs) && epochNs >= _quietFromNs && !HasHandedOverMessages;

    /// <summary>Engine agent: where the quiet span left by the last <see cref="Poll"/> ends (epoch ns): the earliest instant
    /// at which a Poll would act; <see cref="long.MinValue"/> when it is empty (something waits, or the session was
    /// touched since), <see cref="long.MaxValue"/> when nothing is ever due.</summary>
    internal long QuietUntilNs => Volatile.Read(ref _quietUntilNs);

    /// <summary>Engine agent, without entering the session: when its Heartbeat is due if nothing is sent meanwhile (epoch
    /// ns), <see cref="long.MaxValue"/> when none is (not logged on, heartbeats off, a TestRequest out). A stale read only
    /// misleads the agent's choice of when to visit; the visit decides under the gate.</summary>
    internal long HeartbeatDueNs => IsLoggedOn ? _heartbeat.HeartbeatDueNs : long.MaxValue;

    /// <summary>Engine agent, without entering the session: true when the last message it sent was an administrative one
    /// it composed itself (a Logon, a Heartbeat), so it is idle on its side and its next Heartbeat may move earlier at the
    /// cost of that Heartbeat only. A stale read only misleads the agent's choice of when to visit.</summary>
    internal bool LastSentAdmin => _heartbeat.LastSentAdmin;

    /// <summary>Inside the session's scope: for a logged-on session idle on both sides (only Heartbeats and the like
    /// sent and received last), when the heartbeat exchange next makes it send or receive (epoch ns; HeartbeatMonitor
    /// .IdleExchangeDueNs); <see cref="long.MinValue"/> otherwise.</summary>
    internal long IdleExchangeDueNs => IsLoggedOn ? _heartbeat.IdleExchangeDueNs : long.MinValue;

    /// <summary>Test seam: sets the quiet span as a Poll would, without one (to build the state a race leaves).</summary>
    internal void SetQuietSpanForTesting(long fromNs, long untilNs)
    {
        _quietFromNs = fromNs;
        Volatile.Write(ref _quietUntilNs, untilNs);
    }

    // The last Poll's answer no longer holds: the next visit polls.
    private void Unquiet() => Volatile.Write(ref _quietUntilNs, long.MinValue);

    /// <summary>Engine agent, inside the session's scope after its Poll: the visit must not pass after
    /// <paramref name="epochNs"/> either (the agent's own work for the session comes due then).</summary>
    internal void EndQuietBy(long epochNs)
    {
        if (epochNs < _quietUntilNs) Volatile.Write(ref _quietUntilNs, epochNs);
    }

    // Something waits that only a Poll moves on (the cases for which NextPollActionNs answers long.MinValue): a thread
    // other than the agent that leaves the session so wakes the agent, which may be parked until a deadline seconds away
    // (Leave; docs/architecture.md, "Who wakes the engine agent").
    private bool WaitsForPoll => _held || _storeFault is not null
        || (_connection is not null && (!_flow.IsEmpty || _flow.IsReceivePauseRequested || _resend.ReplayEndSeq != 0));

    // The earliest instant at which Poll would act (send, disconnect, reset, drain) on the session's state as it is now,
    // if nothing else happened meanwhile; long.MinValue when it has something to do already (a backlog to flush, a replay
    // in progress, handed-over messages waiting, a receive pause in force, a store hold or failure). Every timer Poll
    // runs has its instant here: keep the two in step.
    private long NextPollActionNs(long epochNs)
    {
        if (_held || _storeFault is not null || HasHandedOverMessages) return long.MinValue;
        if (_connection is null) return NextScheduleChangeNs(_schedule, ref _scheduleCache, epochNs);
        if (!_flow.IsEmpty || _flow.IsReceivePauseRequested || _resend.ReplayEndSeq != 0) return long.MinValue;
        long due = NextScheduleChangeNs(_schedule, ref _scheduleCache, epochNs);
        // IsNewPeriodWhileConnected turns true once the period the store was created in has ended.
        if (!_schedule.IsNonStop && _periodOfCreationNs != long.MinValue && _periodEndNs >= epochNs) due = Math.Min(due, _periodEndNs + 1);
        if (_logonWindow is not null) due = Math.Min(due, NextScheduleChangeNs(_logonWindow, ref _logonWindowCache, epochNs));
        switch (_state)
        {
            case SessionState.AwaitingLogon:
            case SessionState.LogonSent:
                return Math.Min(due, _stateSinceNs + _settings.LogonTimeout * NsPerSecond);
            case SessionState.LogoutSent:
                due = Math.Min(due, _stateSinceNs + _settings.LogoutTimeout * NsPerSecond);
                break;
        }
        if (IsLoggedOn) due = Math.Min(due, _heartbeat.NextDueNs());
        return due;
    }

    // When the schedule's answer (in session, and the period) may next change: the end of the cached span.
    private static long NextScheduleChangeNs(Config.SessionSchedule schedule, ref Config.SessionSchedule.Cache cache, long epochNs)
    {
        if (schedule.IsNonStop) return long.MaxValue;
        schedule.IsInSession(epochNs, ref cache);
        return cache.UntilNs;
    }

    private int PollCore(long epochNs, long heartbeatLeadNs)
    {
        int work = 0;
        _epochNs = epochNs;
        if (_connection is null)
        {
            CheckSchedule(epochNs);
            return 0;
        }
        work += FlushSendBacklog(epochNs);
        work += ContinueReplay(epochNs);
        if (!_schedule.IsInSession(epochNs, ref _scheduleCache))
        {
            if (_state == SessionState.LoggedOn) SendLogout(epochNs, "Session end time reached");
            else if (_state != SessionState.LogoutSent) Disconnect("outside the session schedule", epochNs);
        }
        else if (IsNewPeriodWhileConnected(epochNs))
        {
            // The session time never closed (StartTime = EndTime) but a new period began: end this incarnation as
            // QuickFIX does, with a Logout; the reset follows once disconnected (CheckSchedule).
            if (_state == SessionState.LoggedOn) SendLogout(epochNs, "New session period");
            else if (_state != SessionState.LogoutSent) Disconnect("new session period", epochNs);
        }
        else if (_logonWindow is not null && !_logonWindow.IsInSession(epochNs, ref _logonWindowCache))
        {
            // LogoutTime passed (or not yet LogonTime): log out, but keep the sequence numbers; only a new session
            // period resets them (CheckSchedule).
            if (_state == SessionState.LoggedOn) SendLogout(epochNs, "Logout time reached");
            else if (_state is SessionState.LogonSent) Disconnect("outside the logon window", epochNs);
        }
        switch (_state)
        {
            case SessionState.AwaitingLogon:
            case SessionState.LogonSent:
                if (epochNs - _stateSinceNs >= _settings.LogonTimeout * NsPerSecond)
                {
                    Disconnect("Timed out waiting for logon", epochNs);
                    return 1;
                }
                return 0;
            case SessionState.LogoutSent:
                if (epochNs - _stateSinceNs >= _settings.LogoutTimeout * NsPerSecond)
                {
                    Disconnect("Timed out waiting for logout response", epochNs);
                    return 1;
                }
                break;
        }
        if (_state is SessionState.LoggedOn && HasSenderSeqRoom(epochNs))
        {
            work += DrainOutbox(epochNs);
        }
        if (!IsLoggedOn || _held) return work;

        // While we hold back reading, the peer's silence is ours: its reading our backlog shows it is alive.
        _heartbeat.OnPeerActivity(_flow.ProgressNsWhilePaused);
        HeartbeatDue due = _heartbeat.Check(epochNs, heartbeatLeadNs);
        if ((due is HeartbeatDue.TestRequest or HeartbeatDue.Disconnect) && PeerBytesWaitUnread(epochNs)) due = _heartbeat.Check(epochNs, heartbeatLeadNs);
        switch (due)
        {
            case HeartbeatDue.Disconnect:
                if (_settings.SendLogoutBeforeDisconnectFromTimeout && _state == SessionState.LoggedOn) SendLogout(epochNs, null);
                if (_connection is not null) Disconnect("Timed out waiting for heartbeat", epochNs);
                return work + 1;
            case HeartbeatDue.TestRequest:
                SendTestRequest(epochNs, TestRequestId);
                _heartbeat.OnTestRequestSent();
                Raise(SessionEventKind.Other, Logging.LogLevel.Debug, "Sent test request TEST", epochNs);
                return work + 1;
            case HeartbeatDue.Heartbeat:
                SendHeartbeat(epochNs, default);
                return work + 1;
        }
        return work;
    }

    // The peer looks silent, but bytes it sent wait unread in the socket: the thread that reads this connection has not
    // got round to them (socket completions queued behind a busy thread pool, a receive thread without a core), so the
    // silence is the engine's, not the peer's, and is answered with neither a TestRequest nor a disconnect
    // (docs/architecture.md, "Heartbeats when the engine falls behind"), within HeartbeatMonitor.OnUnreadPeerBytes's
    // limit. (While reading is paused on purpose, the bytes wait because the session asked; but then the backlog's
    // progress already counts as hearing from the peer, and a pause without progress ends within a second, so no check
    // is due then.) One system call, made only when a TestRequest or a disconnect is due.
    private bool PeerBytesWaitUnread(long epochNs)
    {
        if (_connection is null || _connection.UnreadInboundBytes <= 0) return false;
        if (!_heartbeat.OnUnreadPeerBytes(epochNs)) return false;
        _counters.OnHeartbeatCheckBehind();
        return true;
    }

    // A new schedule period starts a new session incarnation: sequence numbers back to 1.
    private void CheckSchedule(long epochNs)
    {
        if (_schedule.IsNonStop) return;
        if (_schedule.IsInSession(epochNs, ref _scheduleCache) && !InPeriodOfCreation(epochNs))
        {
            Raise(SessionEventKind.Other, Logging.LogLevel.Information, "New session period", epochNs);
            ResetStore(epochNs);
        }
    }

    // The schedule's and the logon window's answers for now, held until they may change (SessionSchedule.Cache), so an
    // idle session's poll does no time-zone conversion. Only Poll uses them (under the session's gate); the queries
    // from other threads (IsSessionTime, IsLogonTime) ask the schedules directly.
    private Config.SessionSchedule.Cache _scheduleCache;
    private Config.SessionSchedule.Cache _logonWindowCache;

    // The start and end of the period the store was created in, cached per creation time.
    private long _periodOfCreationNs = long.MinValue;
    private long _periodOfCreationStartNs;
    private long _periodEndNs;

    // True when the store was created in the period that holds epochNs (IsSameSessionPeriod, from the caches).
    private bool InPeriodOfCreation(long epochNs)
    {
        long created = _store.CreationTimeEpochNs;
        if (created != _periodOfCreationNs)
        {
            _periodOfCreationStartNs = _schedule.SessionPeriodStart(created);
            _periodEndNs = _schedule.SessionPeriodEnd(_periodOfCreationStartNs);
            _periodOfCreationNs = created;
        }
        return _schedule.SessionPeriodStart(epochNs, ref _scheduleCache) == _periodOfCreationStartNs;
    }

    // True when the store belongs to an earlier session period than now although the session time stayed open.
    private bool IsNewPeriodWhileConnected(long epochNs)
    {
        if (_schedule.IsNonStop) return false;
        return !InPeriodOfCreation(epochNs) && epochNs > _periodEndNs;
    }

    /// <summary>True when the schedule allows the session to be connected at <paramref name="epochNs"/>.</summary>
    /// <param name="epochNs">Now, epoch nanoseconds.</param>
    /// <returns>True inside the session window.</returns>
    internal bool IsSessionTime(long epochNs) => _schedule.IsNonStop || _schedule.IsInSession(epochNs);

    /// <summary>True when the session may log on at <paramref name="epochNs"/>: inside the session time and inside the
    /// logon window (LogonTime-LogoutTime, LogonDay-LogoutDay), which is the session time when not configured.</summary>
    /// <param name="epochNs">Now, epoch nanoseconds.</param>
    /// <returns>True when an initiator connects and an acceptor accepts a Logon.</returns>
    internal bool IsLogonTime(long epochNs) => IsSessionTime(epochNs) && (_logonWindow is null || _logonWindow.IsInSession(epochNs));

    /// <summary>The logon window when it is narrower than the session time (for the console and health checks), else null.</summary>
    internal Config.SessionSchedule? LogonWindow => _logonWindow;
}
