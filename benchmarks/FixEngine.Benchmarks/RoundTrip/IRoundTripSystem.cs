using System;

namespace FixEngine.Benchmarks.RoundTrip;

/// <summary>Receives the replies of a round-trip system.</summary>
/// <remarks>Called on the system's receive thread, one reply at a time; must not allocate.</remarks>
public interface IReplyHandler
{
    /// <summary>One reply arrived for the order whose intended send time was <paramref name="intendedSendNs"/>.</summary>
    /// <param name="intendedSendNs">The <see cref="FixEngine.Timing.HighResTime"/> time the order was scheduled for.</param>
    void OnReply(long intendedSendNs);

    /// <summary>A reply could not be read (bad frame, missing ClOrdID); counted, not recorded.</summary>
    void OnReplyError();
}

/// <summary>One configuration under test: an initiator that sends NewOrderSingles and an acceptor that answers each with
/// an ExecutionReport (or a same-sized reply for the raw floor).</summary>
/// <remarks>
/// Lifecycle: <see cref="Start"/> once, then <see cref="SendOrder"/> from exactly one sender thread, then
/// <see cref="Stop"/> (idempotent) or <see cref="IDisposable.Dispose"/>. The system owns its receive thread(s) and calls
/// the <see cref="IReplyHandler"/> from there. The intended send time must travel with the order and come back in the
/// reply (the FIX configurations carry it in ClOrdID), so the harness measures from the scheduled time, not the actual
/// send time (coordinated-omission correction). Steady state must not allocate.
/// </remarks>
public interface IRoundTripSystem : IDisposable
{
    /// <summary>Short key used on the command line and in the report (e.g. <c>floor</c>).</summary>
    string Name { get; }

    /// <summary>Connects the initiator and the acceptor and starts the receive threads.</summary>
    /// <param name="handler">Where replies go.</param>
    void Start(IReplyHandler handler);

    /// <summary>Encodes and sends one order (may block while the transport is full).</summary>
    /// <param name="msgSeqNum">The order's sequence number (1, 2, ...).</param>
    /// <param name="intendedSendNs">The order's scheduled send time, to be echoed in its reply.</param>
    void SendOrder(long msgSeqNum, long intendedSendNs);

    /// <summary>Closes the connection and joins the threads.</summary>
    void Stop();
}
