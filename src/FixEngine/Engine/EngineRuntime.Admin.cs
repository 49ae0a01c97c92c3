using System;
using System.Threading.Tasks;
using FixEngine.Config;
using FixEngine.Session;

namespace FixEngine.Engine;

// Operators' actions (the admin console of FixEngine.AspNetCore): each reaches its session the way docs/architecture.md
// ("Who runs a session") gives for work that is not a message: queued to the engine agent, which runs it at the start of
// its next duty cycle inside the session's scope, or, while the agent is not running (before Start, after the engine
// stopped), run by the caller inside the scope and under the control lock. Nothing here is on a message path.
internal sealed partial class EngineRuntime
{
    /// <summary>Runs <paramref name="action"/> on the session's thread (see above); its result or exception completes
    /// the task.</summary>
    /// <exception cref="ArgumentException">No such session.</exception>
    internal Task<T> RunOnSessionAsync<T>(SessionId id, Func<SessionSlot, long, T> action)
    {
        ArgumentNullException.ThrowIfNull(action);
        if (!_byId.TryGetValue(id, out SessionSlot? slot)) throw new ArgumentException($"no session {id} in this engine", nameof(id));
        var command = new SessionCommand<T>(slot, action);
        lock (_control)
        {
            ObjectDisposedException.ThrowIf(_disposed, typeof(FixEngineHost));
            if (_runner.IsRunning && _agent.TrySubmit(command))
            {
                _agentWakeup.Signal();
                return command.Task;
            }
            // The agent is not running: nobody else runs a busy-poll session, and a gated one is entered as usual.
            using SessionScope scope = slot.Enter(_time.EpochNow());
            command.Run(scope.EpochNs);
        }
        return command.Task;
    }

    /// <summary>The session's slot (any thread; the console reads what the session publishes through it), false when the
    /// engine has no such session.</summary>
    internal bool TryGetSlot(SessionId id, [System.Diagnostics.CodeAnalysis.NotNullWhen(true)] out SessionSlot? slot) => _byId.TryGetValue(id, out slot);

    /// <summary>Now, epoch nanoseconds, on the engine's clock (any thread).</summary>
    internal long EpochNow() => _time.EpochNow();

    /// <summary>True unless an operator disabled the session.</summary>
    internal bool IsEnabled(SessionId id) => _byId.TryGetValue(id, out SessionSlot? slot) && !slot.Disabled;
}
