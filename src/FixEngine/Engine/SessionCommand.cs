using System;
using System.Threading.Tasks;

namespace FixEngine.Engine;

/// <summary>An operator's action on one session (the admin console of FixEngine.AspNetCore), run on the session's own
/// thread: by the engine agent at the start of a duty cycle inside the session's scope, or by the caller under the
/// session's gate while the agent is not running (EngineRuntime.RunOnSessionAsync).</summary>
internal abstract class SessionCommand(SessionSlot slot)
{
    public SessionSlot Slot { get; } = slot;

    /// <summary>Inside the session's scope; never throws (a failure completes the command's task).</summary>
    public abstract void Run(long epochNs);
}

/// <summary>A <see cref="SessionCommand"/> with a result.</summary>
internal sealed class SessionCommand<T>(SessionSlot slot, Func<SessionSlot, long, T> action) : SessionCommand(slot)
{
    private readonly TaskCompletionSource<T> _done = new(TaskCreationOptions.RunContinuationsAsynchronously);

    public Task<T> Task => _done.Task;

    public override void Run(long epochNs)
    {
        try
        {
            _done.TrySetResult(action(Slot, epochNs));
        }
        catch (Exception e)
        {
            _done.TrySetException(e);
        }
    }
}
