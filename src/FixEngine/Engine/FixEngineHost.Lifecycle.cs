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
public sealed partial class FixEngineHost
{
    /// <summary>Binds the acceptor ports and starts the engine thread.</summary>
    /// <remarks>Returns once the ports are bound and the engine thread runs; initiators connect and log on in the
    /// background.</remarks>
    public void Start()
    {
        lock (_control)
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            foreach (Port p in _ports.Values) p.Listener.Start();
            _started = true;
            _runner.Start();
        }
    }

    /// <summary>Binds the acceptor ports and starts the engine thread (see <see cref="Start"/>); for a generic host's
    /// <c>IHostedService.StartAsync</c>.</summary>
    /// <param name="cancellationToken">Checked before starting.</param>
    /// <returns>A task complete once the ports are bound and the engine thread runs (binding and starting a thread do not
    /// wait on the network, so this completes synchronously).</returns>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled before the start.</exception>
    public Task StartAsync(CancellationToken cancellationToken = default)
    {
        if (cancellationToken.IsCancellationRequested) return Task.FromCanceled(cancellationToken);
        Start();
        return Task.CompletedTask;
    }

    /// <summary>Logs every session out (waiting up to <paramref name="timeout"/> for the replies), then stops the engine thread.</summary>
    /// <param name="timeout">Longest wait for orderly logouts.</param>
    /// <remarks>Blocks the calling thread; <see cref="StopAsync(TimeSpan, CancellationToken)"/> waits without holding one.</remarks>
    public void Stop(TimeSpan timeout)
    {
        lock (_control)
        {
            _stopped = true;
            if (!_agent.BeginStop()) return;
            foreach (Port p in _ports.Values) p.Listener.Stop();
        }
        // The agent signals once no session is connected (or once it has closed).
        if (_runner.IsRunning) _agent.WaitLoggedOut(timeout);
        _runner.Stop(TimeSpan.FromSeconds(5));
        _hosted.CloseAll("engine stopped");
    }

    /// <summary>Logs every session out and stops the engine thread, without blocking a thread while the Logouts are
    /// answered: stops accepting, asks each logged-on session to send a Logout, waits (asynchronously) until no session
    /// is connected or <paramref name="timeout"/> has passed or <paramref name="cancellationToken"/> is cancelled, then
    /// closes what is still connected and stops the engine thread.</summary>
    /// <param name="timeout">Longest wait for orderly logouts; <see cref="Timeout.InfiniteTimeSpan"/> to wait for the
    /// token alone.</param>
    /// <param name="cancellationToken">Ends the wait for logouts early (e.g. the host's shutdown timeout): the remaining
    /// connections are closed at once. The task still completes normally.</param>
    /// <returns>A task complete once the engine thread has closed every connection (at most about 5 s after the wait
    /// for logouts ends, unless an application callback blocks the engine thread): true when no session was still
    /// connected when the wait ended (every Logout was answered), false when some were closed without it.</returns>
    /// <remarks>Messages handed over with <see cref="FixSession.TrySendFromAnyThread{TState}(ReadOnlySpan{byte}, long, in TState, BodyWriter{TState})"/>
    /// are stored (and sent while connected) before the Logout, as with <see cref="Stop"/>. A second call waits for the
    /// stop in progress.</remarks>
    public Task<bool> StopAsync(TimeSpan timeout, CancellationToken cancellationToken = default)
    {
        if (timeout != Timeout.InfiniteTimeSpan) ArgumentOutOfRangeException.ThrowIfLessThan(timeout, TimeSpan.Zero);
        bool began;
        lock (_control)
        {
            _stopped = true;
            began = _agent.BeginStop();
        }
        if (!began)
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

    /// <summary>Logs every session out and stops the engine thread, waiting for the Logouts without blocking a thread
    /// until <paramref name="cancellationToken"/> is cancelled (see <see cref="StopAsync(TimeSpan, CancellationToken)"/>).</summary>
    /// <param name="cancellationToken">Ends the wait for logouts: the remaining connections are closed at once.</param>
    /// <returns>A task complete once the engine thread has closed every connection: true when every Logout was answered.</returns>
    public Task<bool> StopAsync(CancellationToken cancellationToken) => StopAsync(Timeout.InfiniteTimeSpan, cancellationToken);

    private async Task<bool> StopCoreAsync(TimeSpan timeout, CancellationToken cancellationToken)
    {
        lock (_control)
        {
            foreach (Port p in _ports.Values) p.Listener.Stop();
        }
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

    /// <summary>Stops the engine (2 s logout wait) and releases sessions, stores, logs, certificates and the engine
    /// thread's wake-up event.</summary>
    /// <remarks>Sessions read earlier stay safe to call: <see cref="FixSession.TrySendFromAnyThread{TState}(ReadOnlySpan{byte}, long, in TState, BodyWriter{TState})"/>
    /// returns false (the session is disposed) and never throws for the disposed engine. Each session's log is handed back
    /// to <see cref="EngineOptions.SessionLogFactory"/> (<see cref="ISessionLogFactory.Release"/>); the engine's own
    /// log factory is closed.</remarks>
    public void Dispose()
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
