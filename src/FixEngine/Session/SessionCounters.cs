using System.Threading;

namespace FixEngine.Session;

/// <summary>The statistics a <see cref="FixSession"/> keeps about its traffic: back-pressure, gaps and resends.</summary>
/// <remarks>
/// Design: every counter is written only by the thread running the session (plain increments of aligned longs, so a
/// reader never sees a torn value) and may be read from any thread with <c>Volatile.Read</c>: a
/// reader on another thread gets a recent value, exact once the session's thread has stopped (the engine stopped) or
/// published it some other way. Allocation-free.
/// </remarks>
internal sealed class SessionCounters
{
    private long _sendBackpressure;
    private long _sendBacklogHighWaterBytes;
    private long _gapsDetected;
    private long _resendRequestsSent;
    private long _resendRequestsReceived;
    private long _messagesReceived;
    private long _messagesSent;
    private long _rejectsSent;
    private long _logons;
    private long _disconnects;
    private long _heartbeatChecksBehind;

    /// <summary>Outbound messages the transport refused with Backpressure.</summary>
    public long SendBackpressure => Volatile.Read(ref _sendBackpressure);

    /// <summary>The most bytes the send backlog has held at once.</summary>
    public long SendBacklogHighWaterBytes => Volatile.Read(ref _sendBacklogHighWaterBytes);

    /// <summary>Inbound messages whose MsgSeqNum(34) was higher than expected.</summary>
    public long GapsDetected => Volatile.Read(ref _gapsDetected);

    /// <summary>ResendRequests sent.</summary>
    public long ResendRequestsSent => Volatile.Read(ref _resendRequestsSent);

    /// <summary>ResendRequests received and answered.</summary>
    public long ResendRequestsReceived => Volatile.Read(ref _resendRequestsReceived);

    /// <summary>Inbound messages handed to the session (admin and application, before their checks).</summary>
    public long MessagesReceived => Volatile.Read(ref _messagesReceived);

    /// <summary>Outbound messages written to the transport (admin and application, resends included).</summary>
    public long MessagesSent => Volatile.Read(ref _messagesSent);

    /// <summary>Session Rejects(3) and BusinessMessageRejects(j) the session sent.</summary>
    public long RejectsSent => Volatile.Read(ref _rejectsSent);

    /// <summary>Completed Logon exchanges.</summary>
    public long Logons => Volatile.Read(ref _logons);

    /// <summary>Connections that ended (either side, any reason).</summary>
    public long Disconnects => Volatile.Read(ref _disconnects);

    /// <summary>Heartbeat checks that found the peer overdue while its bytes waited unread (the engine was behind reading).</summary>
    public long HeartbeatChecksBehind => Volatile.Read(ref _heartbeatChecksBehind);

    /// <summary>A TestRequest or timeout disconnect was not sent because the peer's bytes waited unread. Session thread only.</summary>
    public void OnHeartbeatCheckBehind() => Volatile.Write(ref _heartbeatChecksBehind, _heartbeatChecksBehind + 1);

    /// <summary>An inbound message arrived. Session thread only.</summary>
    public void OnMessageReceived() => Volatile.Write(ref _messagesReceived, _messagesReceived + 1);

    /// <summary>An outbound message was written. Session thread only.</summary>
    public void OnMessageSent() => Volatile.Write(ref _messagesSent, _messagesSent + 1);

    /// <summary>A Reject or BusinessMessageReject was sent. Session thread only.</summary>
    public void OnRejectSent() => _rejectsSent++;

    /// <summary>A Logon exchange completed. Session thread only.</summary>
    public void OnLogon() => _logons++;

    /// <summary>A connection ended. Session thread only.</summary>
    public void OnDisconnect() => _disconnects++;

    /// <summary>The transport refused a message (its send queue was full). Session thread only.</summary>
    public void OnSendBackpressure() => _sendBackpressure++;

    /// <summary>The send backlog now holds <paramref name="bytes"/>; raises the high-water mark. Session thread only.</summary>
    public void OnSendBacklogSize(long bytes)
    {
        if (bytes > _sendBacklogHighWaterBytes) Volatile.Write(ref _sendBacklogHighWaterBytes, bytes);
    }

    /// <summary>An inbound message was ahead of the expected MsgSeqNum. Session thread only.</summary>
    public void OnGapDetected() => _gapsDetected++;

    /// <summary>A ResendRequest was sent. Session thread only.</summary>
    public void OnResendRequestSent() => _resendRequestsSent++;

    /// <summary>A ResendRequest was received. Session thread only.</summary>
    public void OnResendRequestReceived() => _resendRequestsReceived++;
}
