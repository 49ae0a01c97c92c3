using System;
using System.Threading;
using FixEngine.Transport;

namespace FixEngine.Session;

// Design (outbound flow control): the transport's send queue is bounded and answers Backpressure when a message does
// not fit, before sending any byte of it. The session never drops such a message: it goes, in order, into _backlog and
// every later message goes behind it until the backlog has drained. Poll drains the backlog into the transport as it
// frees up. What feeds the backlog is throttled at its source:
// - the cross-thread outbox is not drained while the backlog holds anything (or a replay is pending), so a producer
//   thread sees TrySendFromAnyThread return false once the outbox ring is full: back-pressure reaches the producer;
// - a replay answering a ResendRequest is read from the store in steps, only while the backlog holds less than
//   ReplayBudgetBytes, so replaying a whole day's messages does not copy them all into memory;
// - messages sent in answer to inbound ones (FromApp replies, admin answers) are the one source the session cannot hold
//   back. Above ReceivePauseThresholdBytes the session asks its host to stop reading the socket
//   (IsReceivePauseRequested; the engine pauses the TCP receive), so TCP flow control slows the peer down. If the
//   backlog makes no progress for BacklogStallNs (the peer reads nothing, perhaps because it too has paused reading:
//   two sides waiting for each other), the request is withdrawn and the session reads and buffers again. While the
//   pause holds, the backlog's progress (the peer is reading what we send) counts as hearing from the peer, so the
//   heartbeat timeout does not blame the peer for the silence the pause causes.
// - SendBacklogLimitBytes is the last resort: a message that would take the backlog past it disconnects the session
//   with the reason logged. Every backlogged message has been stored (with PersistMessages), so the peer's
//   ResendRequest after reconnecting recovers it; nothing is lost silently.
// All of this runs on the session's thread. _sendBacklogBytes mirrors the backlog size for readers on other threads.

public sealed partial class FixSession
{
    /// <summary>Default <see cref="SendBacklogLimitBytes"/>: 64 MiB.</summary>
    public const long DefaultSendBacklogLimitBytes = 64L << 20;

    /// <summary>A replay answering a ResendRequest reads more messages from the store only while the backlog holds
    /// less than this.</summary>
    internal const long ReplayBudgetBytes = 256 * 1024;

    /// <summary>Backlog size from which the session asks its host to stop reading inbound messages: above
    /// <see cref="ReplayBudgetBytes"/>, so a replay alone (which stops at its budget) never pauses reading.</summary>
    internal const long ReceivePauseThresholdBytes = 1024 * 1024;

    /// <summary>A backlog that has not shrunk for this long withdraws the receive-pause request (deadlock breaker).</summary>
    internal const long BacklogStallNs = 1_000_000_000L;

    private readonly SendBacklog _backlog = new();
    private long _sendBacklogLimitBytes = DefaultSendBacklogLimitBytes;
    private long _sendBacklogBytes;
    private long _lastBacklogProgressNs;
    private bool _receivePauseRequested;

    /// <summary>Bytes of outbound messages the transport has refused so far and that wait, in order, in the session's
    /// backlog to be sent as the transport frees up.</summary>
    /// <remarks>Written by the session's thread; any thread may read it (a recent value). Allocation-free.</remarks>
    public long SendBacklogBytes => Volatile.Read(ref _sendBacklogBytes);

    /// <summary>Most bytes the send backlog may hold; a message that would take it further disconnects the session
    /// (logged; the stored messages are resent when the peer asks after reconnecting). Default
    /// <see cref="DefaultSendBacklogLimitBytes"/>.</summary>
    /// <remarks>Owner thread, or before the session is connected.</remarks>
    /// <exception cref="ArgumentOutOfRangeException">Set to less than 64 KiB.</exception>
    public long SendBacklogLimitBytes
    {
        get => _sendBacklogLimitBytes;
        set
        {
            ArgumentOutOfRangeException.ThrowIfLessThan(value, 64 * 1024);
            _sendBacklogLimitBytes = value;
        }
    }

    /// <summary>True while the session asks its host to stop reading inbound messages from the socket, because its
    /// outbound backlog is large and still draining (the peer reads, but slower than it sends us requests).</summary>
    /// <remarks>Written by the session's thread; any thread may read it. The engine applies it to the TCP connection
    /// after each duty cycle. Allocation-free.</remarks>
    public bool IsReceivePauseRequested => Volatile.Read(ref _receivePauseRequested);

    /// <summary>Bytes of the backlog's array (0 when none is rented); for tests.</summary>
    internal int SendBacklogCapacityBytes => _backlog.CapacityBytes;

    /// <summary>Rents the send backlog's first array now, so the first message the transport refuses after connecting is
    /// kept without renting (the engine calls this with its PrewarmConnections option). Owner thread.</summary>
    public void PrewarmSendBacklog() => _backlog.Reserve();

    /// <summary>True while a replay answering a ResendRequest has messages left to send.</summary>
    internal bool IsReplayPending => _resend.IsReplayPending;

    // The transport refused a message, or earlier ones still wait: keep it, in order.
    private SendResult AppendToBacklog(ReadOnlySpan<byte> bytes, long nowNs)
    {
        if (_backlog.IsEmpty) _lastBacklogProgressNs = nowNs;
        if (!_backlog.TryAppend(bytes, _sendBacklogLimitBytes))
        {
            string reason = "Send backlog limit reached: " + _backlog.Bytes + " bytes (" + _backlog.Count + " messages) waiting, limit "
                + _sendBacklogLimitBytes + " bytes; the peer is not reading";
            _log.OnEvent(reason, nowNs);
            Disconnect(reason, nowNs);
            return SendResult.Closed;
        }
        long size = _backlog.Bytes;
        Volatile.Write(ref _sendBacklogBytes, size);
        _counters.OnSendBacklogSize(size);
        UpdateReceivePause(nowNs);
        return SendResult.Queued;
    }

    // Sends backlogged messages, oldest first, until the transport refuses one again.
    private int FlushSendBacklog(long nowNs)
    {
        if (_backlog.IsEmpty) return 0;
        ISessionConnection? connection = _connection;
        if (connection is null) return 0;
        int sent = 0;
        while (_backlog.TryPeek(out ReadOnlySpan<byte> message))
        {
            SendResult result = connection.Send(message);
            if (result is SendResult.Backpressure or SendResult.Closed) break;
            if (result == SendResult.TooLarge) _log.OnEvent("Backlogged message larger than the transport's send queue; not sent", nowNs);
            _backlog.Pop();
            sent++;
        }
        if (sent != 0)
        {
            _lastBacklogProgressNs = nowNs;
            Volatile.Write(ref _sendBacklogBytes, _backlog.Bytes);
        }
        UpdateReceivePause(nowNs);
        return sent;
    }

    private void UpdateReceivePause(long nowNs)
    {
        bool pause = _backlog.Bytes >= ReceivePauseThresholdBytes && nowNs - _lastBacklogProgressNs < BacklogStallNs;
        if (pause == _receivePauseRequested) return;
        Volatile.Write(ref _receivePauseRequested, pause);
        _log.OnEvent(pause
            ? "Send backlog " + _backlog.Bytes + " bytes: asking to pause reading inbound messages"
            : "Send backlog " + _backlog.Bytes + " bytes: asking to resume reading inbound messages" + (_backlog.Bytes >= ReceivePauseThresholdBytes ? " (no progress for a second)" : ""), nowNs);
    }

    // Disconnected: what is still backlogged is not sent on this connection; with PersistMessages it is in the store
    // and is resent when the peer asks after reconnecting. Sequence reset: the backlogged messages belong to the previous
    // incarnation, dropped from the store too.
    private void ClearSendBacklog(string why, long nowNs, bool release)
    {
        if (!_backlog.IsEmpty)
        {
            _log.OnEvent(why + ": " + _backlog.Count + " backlogged messages (" + _backlog.Bytes + " bytes) not sent", nowNs);
        }
        if (release) _backlog.Release();
        else _backlog.Clear();
        Volatile.Write(ref _sendBacklogBytes, 0);
        Volatile.Write(ref _receivePauseRequested, false);
    }
}
