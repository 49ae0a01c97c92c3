namespace FixEngine.Session;

/// <summary>The session's gate as a thread that hands a message over sees it (<see cref="FixSession.TrySendFromAnyThread{TState}(System.ReadOnlySpan{byte}, long, in TState, BodyWriter{TState})"/>):
/// enter only when nobody is in the session, never wait. Implemented by the engine, which owns the gate and the clock.</summary>
internal interface IDirectSendGate
{
    /// <summary>Enters the session if no other thread is in it.</summary>
    /// <param name="epochNs">When entered: the epoch time to give the session (never earlier than the last one).</param>
    /// <returns>True when entered; <see cref="Exit"/> must follow on the same thread.</returns>
    bool TryEnter(out long epochNs);

    /// <summary>Leaves the session entered by <see cref="TryEnter"/>.</summary>
    void Exit();
}
