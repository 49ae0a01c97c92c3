using System.Threading;

namespace FixEngine.Session;

// Design: every counter is written only by the thread running the session (plain increments of aligned longs, so a
// reader never sees a torn value) and may be read from any thread with Volatile.Read: a reader on another thread gets
// a recent value, exact once the session's thread has stopped (the engine stopped) or published it some other way.

public sealed partial class FixSession
{
    private long _sendBackpressureCount;
    private long _gapsDetected;
    private long _resendRequestsSent;
    private long _resendRequestsReceived;
    private long _sendBacklogHighWaterBytes;

    /// <summary>Outbound messages the transport refused with <see cref="Transport.SendResult.Backpressure"/> (its send
    /// queue was full) and that the session therefore held back in its own backlog.</summary>
    /// <remarks>Written by the session's thread; any thread may read it (a recent value). Allocation-free.</remarks>
    public long SendBackpressureCount => Volatile.Read(ref _sendBackpressureCount);

    /// <summary>The most bytes the session has held back in its send backlog at once (0 when the transport never
    /// refused a message).</summary>
    /// <remarks>Written by the session's thread; any thread may read it (a recent value). Allocation-free.</remarks>
    public long SendBacklogHighWaterBytes => Volatile.Read(ref _sendBacklogHighWaterBytes);

    /// <summary>Inbound messages whose MsgSeqNum(34) was higher than expected (a gap in what the peer sent arrived).</summary>
    /// <remarks>Written by the session's thread; any thread may read it (a recent value). Allocation-free.</remarks>
    public long GapsDetected => Volatile.Read(ref _gapsDetected);

    /// <summary>ResendRequests this session sent.</summary>
    /// <remarks>Written by the session's thread; any thread may read it (a recent value). Allocation-free.</remarks>
    public long ResendRequestsSent => Volatile.Read(ref _resendRequestsSent);

    /// <summary>ResendRequests this session received and answered.</summary>
    /// <remarks>Written by the session's thread; any thread may read it (a recent value). Allocation-free.</remarks>
    public long ResendRequestsReceived => Volatile.Read(ref _resendRequestsReceived);
}
