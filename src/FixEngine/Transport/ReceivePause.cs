using System.Threading;

namespace FixEngine.Transport;

// Design:
// - The inbound flow-control state of one connection, shared by TCP and TLS: Running, PauseRequested or Parked, one int
//   changed only with Interlocked, so any thread may pause or resume.
// - Pause: Running -> PauseRequested (CAS; a second pause, or a pause of a parked loop, changes nothing).
// - The receive loop (completion mode, TLS), before it issues its next read, turns PauseRequested into Parked (CAS) and
//   leaves, releasing its in-flight count, so a close while parked tears down at once. Busy-poll never parks: Poll
//   just skips the read while the state is not Running.
// - Resume: exchange to Running; only the caller that found Parked (the loop has left) restarts the loop, so there is
//   never more than one loop. A resume that finds PauseRequested just cancels it (the loop never left).
// - The hosted pipe connection's read loop (an async loop, no socket) uses the same states through
//   AwaitableReceivePause: there "restart" is completing the awaitable the parked loop waits on.

/// <summary>The receive-pause state machine of a <see cref="TransportConnection"/> (a mutable struct: keep it in a field).</summary>
internal struct ReceivePause
{
    private const int Running = 0;
    private const int PauseRequested = 1;
    private const int Parked = 2;

    private int _state;

    /// <summary>True unless a pause was requested (any thread).</summary>
    public bool IsRunning => Volatile.Read(ref _state) == Running;

    /// <summary>True while the receive loop has stopped because of a pause (no read outstanding).</summary>
    public bool IsParked => Volatile.Read(ref _state) == Parked;

    /// <summary>Requests a pause (any thread; idempotent).</summary>
    public void Request() => Interlocked.CompareExchange(ref _state, PauseRequested, Running);

    /// <summary>Receive loop: true when a pause was requested and the loop must now leave without reading (it is parked).</summary>
    public bool TryPark() => Volatile.Read(ref _state) == PauseRequested
        && Interlocked.CompareExchange(ref _state, Parked, PauseRequested) == PauseRequested;

    /// <summary>Back to running (any thread); true when the loop had parked and the caller must restart it.</summary>
    public bool Resume() => Interlocked.Exchange(ref _state, Running) == Parked;
}
