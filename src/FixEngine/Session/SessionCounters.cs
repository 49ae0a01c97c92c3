using System.Runtime.CompilerServices;
using System.Threading;

namespace FixEngine.Session;

/// <summary>The statistics a <see cref="FixSession"/> keeps about its traffic: back-pressure, gaps and resends.</summary>
/// <remarks>
/// Design (one rule for every counter, applied in <see cref="Increment"/> and <see cref="Read"/> only): a counter is
/// written only by the thread that holds the session (docs/architecture.md, "Who runs a session"), with a plain store of
/// an aligned long, which a 64-bit process never tears. Another thread (metrics, the admin console, a test) reads it
/// with an acquire read so that a loop polling it sees it move; no reader infers anything else from a counter, so none
/// needs the stores ordered with the session's other state: a reader gets a recent value, exact once the session's
/// thread has stopped (the engine stopped) or published it some other way. Allocation-free.
/// </remarks>
internal sealed class SessionCounters
{
    private enum Counter
    {
        SendBackpressure,
        SendBacklogHighWaterBytes,
        GapsDetected,
        ResendRequestsSent,
        ResendRequestsReceived,
        MessagesReceived,
        MessagesSent,
        RejectsSent,
        Logons,
        Disconnects,
        HeartbeatChecksBehind,
        Count,
    }

    [InlineArray((int)Counter.Count)]
    private struct Values
    {
        private long _element0;
    }

    private Values _values;

    /// <summary>Outbound messages the transport refused with Backpressure.</summary>
    public long SendBackpressure => Read(Counter.SendBackpressure);

    /// <summary>The most bytes the send backlog has held at once.</summary>
    public long SendBacklogHighWaterBytes => Read(Counter.SendBacklogHighWaterBytes);

    /// <summary>Inbound messages whose MsgSeqNum(34) was higher than expected.</summary>
    public long GapsDetected => Read(Counter.GapsDetected);

    /// <summary>ResendRequests sent.</summary>
    public long ResendRequestsSent => Read(Counter.ResendRequestsSent);

    /// <summary>ResendRequests received and answered.</summary>
    public long ResendRequestsReceived => Read(Counter.ResendRequestsReceived);

    /// <summary>Inbound messages handed to the session (admin and application, before their checks).</summary>
    public long MessagesReceived => Read(Counter.MessagesReceived);

    /// <summary>Outbound messages written to the transport (admin and application, resends included).</summary>
    public long MessagesSent => Read(Counter.MessagesSent);

    /// <summary>Session Rejects(3) and BusinessMessageRejects(j) the session sent.</summary>
    public long RejectsSent => Read(Counter.RejectsSent);

    /// <summary>Completed Logon exchanges.</summary>
    public long Logons => Read(Counter.Logons);

    /// <summary>Connections that ended (either side, any reason).</summary>
    public long Disconnects => Read(Counter.Disconnects);

    /// <summary>Heartbeat checks that found the peer overdue while its bytes waited unread (the engine was behind reading).</summary>
    public long HeartbeatChecksBehind => Read(Counter.HeartbeatChecksBehind);

    /// <summary>A TestRequest or timeout disconnect was not sent because the peer's bytes waited unread. Session thread only.</summary>
    public void OnHeartbeatCheckBehind() => Increment(Counter.HeartbeatChecksBehind);

    /// <summary>An inbound message arrived. Session thread only.</summary>
    public void OnMessageReceived() => Increment(Counter.MessagesReceived);

    /// <summary>An outbound message was written. Session thread only.</summary>
    public void OnMessageSent() => Increment(Counter.MessagesSent);

    /// <summary>A Reject or BusinessMessageReject was sent. Session thread only.</summary>
    public void OnRejectSent() => Increment(Counter.RejectsSent);

    /// <summary>A Logon exchange completed. Session thread only.</summary>
    public void OnLogon() => Increment(Counter.Logons);

    /// <summary>A connection ended. Session thread only.</summary>
    public void OnDisconnect() => Increment(Counter.Disconnects);

    /// <summary>The transport refused a message (its send queue was full). Session thread only.</summary>
    public void OnSendBackpressure() => Increment(Counter.SendBackpressure);

    /// <summary>The send backlog now holds <paramref name="bytes"/>; raises the high-water mark. Session thread only.</summary>
    public void OnSendBacklogSize(long bytes)
    {
        ref long highWater = ref _values[(int)Counter.SendBacklogHighWaterBytes];
        if (bytes > highWater) highWater = bytes;
    }

    /// <summary>An inbound message was ahead of the expected MsgSeqNum. Session thread only.</summary>
    public void OnGapDetected() => Increment(Counter.GapsDetected);

    /// <summary>A ResendRequest was sent. Session thread only.</summary>
    public void OnResendRequestSent() => Increment(Counter.ResendRequestsSent);

    /// <summary>A ResendRequest was received. Session thread only.</summary>
    public void OnResendRequestReceived() => Increment(Counter.ResendRequestsReceived);

    /// <summary>Session thread only: a plain increment (see the design note).</summary>
    private void Increment(Counter counter) => _values[(int)counter]++;

    /// <summary>Any thread: an acquire read of a recent value (see the design note).</summary>
    private long Read(Counter counter) => Volatile.Read(ref _values[(int)counter]);
}
