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
