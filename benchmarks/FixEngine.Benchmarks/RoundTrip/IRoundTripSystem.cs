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

/// <summary>GC and allocation counts of one process over a measured window.</summary>
/// <param name="Gen0">Gen 0 collections (a gen 1 or 2 collection counts here too, as <see cref="GC.CollectionCount"/> does).</param>
/// <param name="Gen1">Gen 1 collections.</param>
/// <param name="Gen2">Gen 2 collections.</param>
/// <param name="AllocatedBytes">Bytes allocated process-wide (<see cref="GC.GetTotalAllocatedBytes(bool)"/> delta).</param>
public readonly record struct ProcessWindow(int Gen0, int Gen1, int Gen2, long AllocatedBytes)
{
    /// <summary>Current counts of this process (call twice and subtract).</summary>
    public static ProcessWindow Snapshot() =>
        new(GC.CollectionCount(0), GC.CollectionCount(1), GC.CollectionCount(2), GC.GetTotalAllocatedBytes(true));

    /// <summary>The counts between <paramref name="start"/> and this later snapshot.</summary>
    public ProcessWindow Since(ProcessWindow start) =>
        new(Gen0 - start.Gen0, Gen1 - start.Gen1, Gen2 - start.Gen2, AllocatedBytes - start.AllocatedBytes);

    /// <summary>Both windows' counts added.</summary>
    public ProcessWindow Plus(ProcessWindow other) =>
        new(Gen0 + other.Gen0, Gen1 + other.Gen1, Gen2 + other.Gen2, AllocatedBytes + other.AllocatedBytes);
}

/// <summary>Implemented by systems with a part in another process, which measures its own GCs and allocation over the
/// measured window when the runner asks.</summary>
/// <remarks>Called on the sender thread between phases, never inside the measured window of this process.</remarks>
public interface IMeasuredWindow
{
    /// <summary>The other process settles its heap and snapshots its counts; returns when it has.</summary>
    void BeginWindow();

    /// <summary>The other process snapshots again; returns its counts since <see cref="BeginWindow"/>, or null when it
    /// cannot count (a native QuickFIX C++ peer has no GC).</summary>
    ProcessWindow? EndWindow();

    /// <summary>True when the other process runs FixEngine (its window adds to FixEngine's GC and B/msg); false for a
    /// QuickFIX peer, whose window is reported separately.</summary>
    bool IsFixEngineProcess { get; }

    /// <summary>The other process's peak resident set size so far, or null where it cannot be read.</summary>
    long? PeakResidentBytes();

    /// <summary>Methods the other process's JIT has compiled so far (<see cref="System.Runtime.JitInfo.GetCompiledMethodCount"/>),
    /// polled during warm-up to see when compilation has settled.</summary>
    long CompiledMethodCount();
}
