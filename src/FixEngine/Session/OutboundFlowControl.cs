using System;
using System.Threading;
using FixEngine.Transport;

namespace FixEngine.Session;

/// <summary>A session's outbound flow control: the backlog of messages the transport refused, and the decision to ask
/// the host to stop reading inbound messages while that backlog is large.</summary>
/// <remarks>
/// <para>Design: the transport's send queue is bounded and answers <see cref="SendResult.Backpressure"/> when a message
/// does not fit, before sending any byte of it. The session never drops such a message: it goes, in order, into the
/// backlog (<see cref="TryHold"/>) and every later message goes behind it until the backlog has drained. The session's
/// Poll drains the backlog into the transport as it frees up (<see cref="Flush"/>). What feeds the backlog is
/// throttled at its source:</para>
/// <para>- the cross-thread outbox is not drained while the backlog holds anything (or a replay is pending), so a
/// producer thread sees TrySendFromAnyThread return false once the outbox ring is full: back-pressure reaches the
/// producer;</para>
/// <para>- a replay answering a ResendRequest is read from the store in steps, only while the backlog holds less than
/// <see cref="ReplayBudgetBytes"/> (<see cref="HasReplayBudget"/>), so replaying a whole day's messages does not copy
/// them all into memory;</para>
/// <para>- messages sent in answer to inbound ones (FromApp replies, admin answers) are the one source the session
/// cannot hold back. From <see cref="ReceivePauseThresholdBytes"/> on, the session asks its host to stop reading the
/// socket (<see cref="IsReceivePauseRequested"/>; the engine pauses the TCP receive), so TCP flow control slows the
/// peer down. If the backlog makes no progress for <see cref="BacklogStallNs"/> (the peer reads nothing, perhaps
/// because it too has paused reading: two sides waiting for each other), the request is withdrawn and the session
/// reads and buffers again. While the pause holds, the backlog's progress (the peer is reading what we send) counts
/// as hearing from the peer (<see cref="ProgressNsWhilePaused"/>), so the heartbeat timeout does not blame the peer for the
/// silence the pause causes;</para>
/// <para>- <see cref="LimitBytes"/> is the last resort: a message that would take the backlog past it is refused
/// (<see cref="TryHold"/> returns false) and the session disconnects with the reason logged. Every backlogged message
/// has been stored (with PersistMessages), so the peer's ResendRequest after reconnecting recovers it; nothing is
/// lost silently.</para>
/// <para>Threads: everything runs on the session's thread, except the two values other threads may read:
/// <see cref="PublishedBytes"/> (a mirror of the backlog size) and <see cref="IsReceivePauseRequested"/>. Only the thread
/// that holds the session writes them (plain stores of an aligned long and a bool, never torn); another thread reads them
/// with an acquire read, so a loop polling them sees them change, and needs no ordering with the session's other state:
/// the pause is applied by the thread that just left the session (the gate orders it) or re-read by a loop until it
/// changes (a hosted connection's read loop). Allocation-free once the backlog's array is rented
/// (see <see cref="SendBacklog"/>), except the log lines it writes when the pause request changes.</para>
/// </remarks>
internal sealed class OutboundFlowControl
{
    /// <summary>A replay answering a ResendRequest reads more messages from the store only while the backlog holds
    /// less than this.</summary>
    public const long ReplayBudgetBytes = 256 * 1024;

    /// <summary>Backlog size from which the session asks its host to stop reading inbound messages: above
    /// <see cref="ReplayBudgetBytes"/>, so a replay alone (which stops at its budget) never pauses reading.</summary>
    public const long ReceivePauseThresholdBytes = 1024 * 1024;

    /// <summary>A backlog that has not shrunk for this long withdraws the receive-pause request (deadlock breaker).</summary>
    public const long BacklogStallNs = 1_000_000_000L;

    /// <summary>The deadlock breaker's window in force (<see cref="BacklogStallNs"/>; tests that watch a pause under load
    /// widen it, so a slow machine's second does not withdraw the pause they observe).</summary>
    public long StallWindowNs { get; set; } = BacklogStallNs;

    /// <summary>The smallest <see cref="LimitBytes"/> accepted.</summary>
    public const long MinLimitBytes = 64 * 1024;

    private readonly SendBacklog _backlog = new();
    private readonly Action<Logging.LogLevel, string, long> _log;
    private readonly SessionCounters _counters;
    private long _limitBytes = FixSession.DefaultSendBacklogLimitBytes;
    private long _lastProgressNs;
    private long _publishedBytes;
    private bool _receivePauseRequested;

    /// <summary>Creates the flow control of one session.</summary>
    /// <param name="log">Raises the session's events (pause decisions and refused messages): level, text, time.</param>
    /// <param name="counters">The session's counters (the backlog's high-water mark).</param>
    public OutboundFlowControl(Action<Logging.LogLevel, string, long> log, SessionCounters counters)
    {
        _log = log;
        _counters = counters;
    }

    /// <summary>True when no message waits (session thread).</summary>
    public bool IsEmpty => _backlog.IsEmpty;

    /// <summary>Message bytes waiting (session thread).</summary>
    public long Bytes => _backlog.Bytes;

    /// <summary>Message bytes waiting, as last published for other threads.</summary>
    public long PublishedBytes => Volatile.Read(ref _publishedBytes);

    /// <summary>True while the session asks its host to stop reading inbound messages; any thread.</summary>
    public bool IsReceivePauseRequested => Volatile.Read(ref _receivePauseRequested);

    /// <summary>True while a replay may read more messages from the store.</summary>
    public bool HasReplayBudget => _backlog.Bytes < ReplayBudgetBytes;

    /// <summary>Bytes of the backlog's rented array (0 when none).</summary>
    public int CapacityBytes => _backlog.CapacityBytes;

    /// <summary>Most message bytes the backlog may hold.</summary>
    /// <exception cref="ArgumentOutOfRangeException">Set to less than <see cref="MinLimitBytes"/>.</exception>
    public long LimitBytes
    {
        get => _limitBytes;
        set
        {
            ArgumentOutOfRangeException.ThrowIfLessThan(value, MinLimitBytes);
            _limitBytes = value;
        }
    }

    /// <summary>Keeps a copy of <paramref name="message"/> behind the ones already waiting.</summary>
    /// <returns>False (nothing kept) when the backlog would exceed <see cref="LimitBytes"/>: the session disconnects.</returns>
    public bool TryHold(ReadOnlySpan<byte> message, long epochNs)
    {
        if (_backlog.IsEmpty) _lastProgressNs = epochNs;
        if (!_backlog.TryAppend(message, _limitBytes)) return false;
        long size = _backlog.Bytes;
        _publishedBytes = size;
        _counters.OnSendBacklogSize(size);
        UpdateReceivePause(epochNs);
        return true;
    }

    /// <summary>Why the last <see cref="TryHold"/> failed, for the log and the disconnect.</summary>
    public string LimitReachedReason() => "Send backlog limit reached: " + _backlog.Bytes + " bytes (" + _backlog.Count
        + " messages) waiting, limit " + _limitBytes + " bytes; the peer is not reading";

    /// <summary>Sends waiting messages, oldest first, until the transport refuses one again.</summary>
    /// <returns>Messages handed to the transport.</returns>
    public int Flush(ISessionConnection connection, long epochNs)
    {
        if (_backlog.IsEmpty) return 0;
        int sent = 0;
        while (_backlog.TryPeek(out ReadOnlySpan<byte> message))
        {
            SendResult result = connection.Send(message);
            if (result is SendResult.Backpressure or SendResult.Closed) break;
            if (result == SendResult.TooLarge) _log(Logging.LogLevel.Error, "Backlogged message larger than the transport's send queue; not sent", epochNs);
            _backlog.Pop();
            sent++;
        }
        if (sent != 0)
        {
            _lastProgressNs = epochNs;
            _publishedBytes = _backlog.Bytes;
        }
        UpdateReceivePause(epochNs);
        return sent;
    }

    /// <summary>While the receive pause is requested, when the backlog last made progress (the peer read what we
    /// sent: it is alive, and its silence is ours); 0 otherwise.</summary>
    public long ProgressNsWhilePaused => _receivePauseRequested ? _lastProgressNs : 0;

    /// <summary>Drops what waits. Disconnected: with PersistMessages it is in the store and is resent when the peer asks
    /// after reconnecting. Sequence reset: the messages belong to the previous incarnation, dropped from the store too.</summary>
    /// <param name="why">Logged with the count, when anything is dropped.</param>
    /// <param name="epochNs">Now, epoch nanoseconds.</param>
    /// <param name="release">Return the backlog's array to the pool (on disconnect) instead of keeping it.</param>
    public void Clear(string why, long epochNs, bool release)
    {
        if (!_backlog.IsEmpty)
        {
            _log(Logging.LogLevel.Error, why + ": " + _backlog.Count + " backlogged messages (" + _backlog.Bytes + " bytes) not sent", epochNs);
        }
        if (release) _backlog.Release();
        else _backlog.Clear();
        _publishedBytes = 0;
        _receivePauseRequested = false;
    }

    /// <summary>Rents the backlog's first array now, so the first refused message is kept without renting.</summary>
    public void Reserve() => _backlog.Reserve();

    /// <summary>Returns the backlog's array to the pool (the session is disposed).</summary>
    public void Release() => _backlog.Release();

    private void UpdateReceivePause(long epochNs)
    {
        bool pause = _backlog.Bytes >= ReceivePauseThresholdBytes && epochNs - _lastProgressNs < StallWindowNs;
        if (pause == _receivePauseRequested) return;
        _receivePauseRequested = pause;
        _log(Logging.LogLevel.Warning, pause
            ? "Send backlog " + _backlog.Bytes + " bytes: asking to pause reading inbound messages"
            : "Send backlog " + _backlog.Bytes + " bytes: asking to resume reading inbound messages" + (_backlog.Bytes >= ReceivePauseThresholdBytes ? " (no progress for a second)" : ""), epochNs);
    }
}
