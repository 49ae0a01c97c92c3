using System;
using System.Threading;
using System.Threading.Tasks;
using System.Threading.Tasks.Sources;

namespace FixEngine.Transport;

// Design:
// - The receive pause of a reader that awaits instead of parking a thread or a socket loop (the hosted pipe
//   connection's read loop, PipeEngineConnection.RunAsync): the shared ReceivePause state machine (Running,
//   PauseRequested, Parked) plus one reusable awaitable the parked loop waits on. No timer and no Task: a
//   ManualResetValueTaskSourceCore that the loop resets before each park.
// - The loop (one at a time): TryPark requests the pause, resets the source and moves PauseRequested -> Parked. Then it
//   checks its own condition again (is the pause still asked for, is the connection open?) and, when it is not, resumes
//   itself; then it awaits WaitAsync. A resume or close that came between the loop's first check and its park found no
//   parked loop and woke nothing, so this second check is what keeps it from being lost.
// - Resume (any thread: the agent once the send backlog has drained, and every close): exchange to Running; only the
//   caller that found Parked completes the source, so it is completed once per park (the core throws on a second
//   SetResult). A resume that finds PauseRequested just cancels it: the loop's TryPark fails and it checks again.
// - Continuations run asynchronously, on the thread pool: a resume from the agent, or a close from inside a session's
//   gate, must not run the read loop inline. Awaited with ConfigureAwait(false), the core is given no execution or
//   scheduling context, so the pool queues the async method's state machine itself: nothing is allocated per park.
// - Reset race: SetResult marks the source complete before it reads the continuation, so the loop can see it complete
//   and, pausing again, reset it while the resumer is still inside SetResult. Resumers count themselves in _resuming
//   around the exchange and SetResult, and TryPark resets only when none is inside (a resumer is a few instructions).

/// <summary>The receive pause of an awaiting read loop: <see cref="ReceivePause"/> with an allocation-free awaitable park.</summary>
/// <remarks>Park and wait: the reading loop only. <see cref="Resume"/> and the status properties: any thread.</remarks>
internal sealed class AwaitableReceivePause : IValueTaskSource
{
    private ReceivePause _state;
    private ManualResetValueTaskSourceCore<bool> _source;
    private int _resuming;
    private long _parks;

    public AwaitableReceivePause() => _source.RunContinuationsAsynchronously = true;

    /// <summary>True unless a pause was requested or the loop is parked (any thread).</summary>
    public bool IsRunning => _state.IsRunning;

    /// <summary>True while the loop is parked (any thread).</summary>
    public bool IsParked => _state.IsParked;

    /// <summary>How many times the loop parked (any thread; for tests and diagnostics).</summary>
    public long Parks => Volatile.Read(ref _parks);

    /// <summary>Reading loop: requests the pause and parks; false when a resume came first (check the condition again).
    /// After true, check the condition again (call <see cref="Resume"/> if the pause is over), then await <see cref="WaitAsync"/>.</summary>
    public bool TryPark()
    {
        _state.Request();
        // The resume that completed the previous park may still be inside SetResult (see the design notes).
        SpinWait spin = default;
        while (Volatile.Read(ref _resuming) != 0) spin.SpinOnce(sleep1Threshold: -1);
        _source.Reset();
        if (!_state.TryPark()) return false;
        Volatile.Write(ref _parks, _parks + 1);
        return true;
    }

    /// <summary>Reading loop, after <see cref="TryPark"/> returned true: completes when the park is resumed.</summary>
    public ValueTask WaitAsync() => new(this, _source.Version);

    /// <summary>Ends a pause (any thread; idempotent, allocation-free): wakes a parked loop, or cancels a pause it was
    /// about to park for.</summary>
    /// <returns>True when this call woke a parked loop.</returns>
    public bool Resume()
    {
        if (_state.IsRunning) return false;
        Interlocked.Increment(ref _resuming);
        try
        {
            if (!_state.Resume()) return false;
            _source.SetResult(true);
            return true;
        }
        finally
        {
            Interlocked.Decrement(ref _resuming);
        }
    }

    ValueTaskSourceStatus IValueTaskSource.GetStatus(short token) => _source.GetStatus(token);

    void IValueTaskSource.OnCompleted(Action<object?> continuation, object? state, short token, ValueTaskSourceOnCompletedFlags flags) =>
        _source.OnCompleted(continuation, state, token, flags);

    void IValueTaskSource.GetResult(short token) => _source.GetResult(token);
}
