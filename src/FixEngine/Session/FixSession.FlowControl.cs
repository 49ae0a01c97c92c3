using System;
using FixEngine.Transport;

namespace FixEngine.Session;

// Role: outbound flow control as the session's API and its two hooks into sending (Hold when the transport refuses,
// FlushSendBacklog from Poll and before a disconnect). The state and the decisions live in OutboundFlowControl.

public sealed partial class FixSession
{
    /// <summary>Default <see cref="SendBacklogLimitBytes"/>: 64 MiB.</summary>
    public const long DefaultSendBacklogLimitBytes = 64L << 20;

    /// <summary>Bytes of outbound messages the transport has refused so far and that wait, in order, in the session's
    /// backlog to be sent as the transport frees up.</summary>
    /// <remarks>Written by the session's thread; any thread may read it (a recent value). Allocation-free.</remarks>
    public long SendBacklogBytes => _flow.PublishedBytes;

    /// <summary>Most bytes the send backlog may hold; a message that would take it further disconnects the session
    /// (logged; the stored messages are resent when the peer asks after reconnecting). Default
    /// <see cref="DefaultSendBacklogLimitBytes"/>.</summary>
    /// <remarks>Owner thread, or before the session is connected.</remarks>
    /// <exception cref="ArgumentOutOfRangeException">Set to less than 64 KiB.</exception>
    public long SendBacklogLimitBytes
    {
        get => _flow.LimitBytes;
        set => _flow.LimitBytes = value;
    }

    /// <summary>True while the session asks its host to stop reading inbound messages from the socket, because its
    /// outbound backlog is large and still draining (the peer reads, but slower than it sends us requests).</summary>
    /// <remarks>Written by the session's thread; any thread may read it. The engine applies it to the TCP or TLS
    /// connection after each message and each duty cycle; a hosted (pipe) connection's read loop checks it after each
    /// read and parks, and the agent resumes it after the duty cycle in which the request ended. Allocation-free.</remarks>
    internal bool IsReceivePauseRequested => _flow.IsReceivePauseRequested;

    /// <summary>How long a backlog that makes no progress keeps the receive pause (default 1 s); set before the session
    /// connects. For tests that watch a pause on a loaded machine.</summary>
    internal long SendBacklogStallNs
    {
        get => _flow.StallWindowNs;
        set => _flow.StallWindowNs = value;
    }

    /// <summary>Bytes of the backlog's array (0 when none is rented); for tests.</summary>
    internal int SendBacklogCapacityBytes => _flow.CapacityBytes;

    /// <summary>Rents the send backlog's first array now, so the first message the transport refuses after connecting is
    /// kept without renting (the engine calls this with its PrewarmConnections option). Owner thread.</summary>
    internal void PrewarmSendBacklog() => _flow.Reserve();

    /// <summary>True while a replay answering a ResendRequest has messages left to send.</summary>
    internal bool IsReplayPending => _resend.IsReplayPending;

    // The transport refused a message, or earlier ones still wait: keep it, in order; past the limit, disconnect.
    private SendResult Hold(ReadOnlySpan<byte> bytes, long epochNs)
    {
        if (_flow.TryHold(bytes, epochNs)) return SendResult.Queued;
        string reason = _flow.LimitReachedReason();
        Raise(SessionEventKind.Other, Logging.LogLevel.Error, reason, epochNs);
        Disconnect(reason, epochNs);
        return SendResult.Closed;
    }

    private int FlushSendBacklog(long epochNs)
    {
        ISessionConnection? connection = _connection;
        return connection is null ? 0 : _flow.Flush(connection, epochNs);
    }
}
