using System;
using System.Collections.Generic;
using System.IO.Pipelines;
using System.Net;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Diagnostics;
using FixEngine.Hosting;
using FixEngine.Session;
using FixEngine.Timing;
using FixEngine.Transport;

namespace FixEngine.Engine;

// Starting, stopping and disposing the engine.
internal sealed partial class EngineRuntime
{
    internal void Start()
    {
        lock (_control)
        {
            ObjectDisposedException.ThrowIf(_disposed, typeof(FixEngineHost));
            foreach (Port p in _ports.Values)
            {
                p.Listener.Start();
                _console.Listening(p.Listener.BoundPort);
            }
            _started = true;
            _runner.Start();
        }
    }

    internal void Stop(TimeSpan timeout)
    {
        if (!BeginStop()) return;
        // The agent signals once no session is connected (or once it has closed).
        if (_runner.IsRunning) _agent.WaitLoggedOut(timeout);
        _runner.Stop(TimeSpan.FromSeconds(5));
        _hosted.CloseAll("engine stopped");
    }

    internal Task<bool> StopAsync(TimeSpan timeout, CancellationToken cancellationToken = default)
    {
        if (timeout != Timeout.InfiniteTimeSpan) ArgumentOutOfRangeException.ThrowIfLessThan(timeout, TimeSpan.Zero);
        if (!BeginStop())
        {
            // Already stopping: wait for that stop (until the agent has closed); an engine that never ran had nothing to log out.
            if (_runner.IsRunning) return AwaitOtherStopAsync(cancellationToken);
            return Task.FromResult(!_agent.ClosedTask.IsCompleted || _agent.AllLoggedOut);
        }
        return StopCoreAsync(timeout, cancellationToken);
    }

    private async Task<bool> AwaitOtherStopAsync(CancellationToken cancellationToken)
    {
        await _agent.ClosedTask.WaitAsync(cancellationToken).ConfigureAwait(false);
        return _agent.AllLoggedOut;
    }

    // Both stops begin here, under the control lock: the engine is marked stopped and, on the first stop only, the agent
    // is asked to stop and the listeners stop accepting. False when a stop had begun already.
    private bool BeginStop()
    {
        lock (_control)
        {
            _stopped = true;
            if (!_agent.BeginStop()) return false;
            foreach (Port p in _ports.Values) p.Listener.Stop();
            return true;
        }
    }

    private async Task<bool> StopCoreAsync(TimeSpan timeout, CancellationToken cancellationToken)
    {
        bool loggedOut = true;
        if (_runner.IsRunning)
        {
            try
            {
                await _agent.LoggedOutTask.WaitAsync(timeout, cancellationToken).ConfigureAwait(false);
            }
            catch (TimeoutException)
            {
                // Some peers did not answer in time: their connections are closed below.
                loggedOut = false;
            }
            catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
            {
                // Out of time (the host is shutting down): close what is left now.
                loggedOut = false;
            }
            // Asks the engine thread to finish its duty cycle and close (connections, sessions); Join(0) does not wait.
            _runner.Stop(TimeSpan.Zero);
            try
            {
                await _agent.ClosedTask.WaitAsync(TimeSpan.FromSeconds(5), CancellationToken.None).ConfigureAwait(false);
            }
            catch (TimeoutException)
            {
                // An application callback blocks the engine thread; Dispose waits for it again.
            }
        }
        _hosted.CloseAll("engine stopped");
        return loggedOut;
    }

    internal void Dispose()
    {
        Stop(TimeSpan.FromSeconds(2));
        // False when an application callback still blocks the engine thread after 5 s: it may still park on the wake-up.
        bool agentEnded = _runner.Stop(TimeSpan.FromSeconds(5));
        SessionSlot[] slots;
        lock (_control)
        {
            if (_disposed) return;
            _disposed = true;
            slots = [.. _all];
        }
        // Outside the control lock: a callback still running under a session's gate may be waiting for it (AddSession).
        foreach (SessionSlot slot in slots)
        {
            using (slot.Enter(0))
            {
                slot.Session.Dispose();
                ReleaseLog(slot.Session, engineDisposing: true);
            }
        }
        lock (_control)
        {
            _factory.Dispose();
            ReleaseOwned();
        }
        // Last: application threads may still signal it (a hand-off racing this Dispose), which IdleWakeup ignores once
        // disposed; only the engine thread parks on it, so it is disposed only once that thread has ended.
        if (agentEnded) _agentWakeup.Dispose();
    }
}
