using System;
using System.Runtime;
using System.Threading;
using FixEngine.Timing;

namespace FixEngine.Hosting;

// Design:
// - One dedicated (non-pool) thread per runner. The thread owns the agents, the idle strategy and the
//   loop; other threads only call Start/Stop and read the status properties.
// - _state is the single lifecycle field (NotStarted -> Running -> Stopping -> Stopped), changed with
//   Interlocked so Start/Stop race safely; the loop reads it with a volatile read each iteration.
// - Error reporting: ErrorCount/LastError are written by the runner thread (Interlocked/volatile) and
//   read by anyone. A throwing error handler stops the runner (reported via LastError), so the runner
//   never dies silently and never spins on a broken handler.
// - Setup results (affinity, priority) are written once by the runner thread before _started is set.

/// <summary>Runs one or more <see cref="IAgent"/>s in a duty-cycle loop on a dedicated thread.</summary>
/// <remarks>
/// Each iteration reads the clock once, calls every agent's <see cref="IAgent.DoWork"/> with that time, and passes the
/// summed work count to the idle strategy. <see cref="Start"/>/<see cref="Stop"/> are thread-safe. The loop allocates
/// nothing (agents and the strategy permitting).
/// <para>Part of FixEngine's reusable low-latency toolkit (with the other types of Buffers, Collections, Timing and
/// Hosting): public and supported for trading code to use on its own threads, independently of the FIX layers.</para>
/// </remarks>
public sealed class AgentRunner : IDisposable
{
    private const int NotStarted = 0;
    private const int Running = 1;
    private const int Stopping = 2;
    private const int Stopped = 3;

    private readonly IAgent[] _agents;
    private readonly AgentRunnerOptions _options;
    private readonly IIdleStrategy _idle;
    private readonly IClock _clock;
    private readonly Thread _thread;
    private readonly ManualResetEventSlim _started = new(false);
    private int _state;
    private bool _threadStarted;
    private long _errorCount;
    private Exception? _lastError;
    private AffinityResult _affinity;
    private AffinityResult _priority;

    /// <summary>Creates a runner for one agent.</summary>
    /// <param name="agent">The agent.</param>
    /// <param name="options">Settings; defaults when null.</param>
    public AgentRunner(IAgent agent, AgentRunnerOptions? options = null)
        : this([agent ?? throw new ArgumentNullException(nameof(agent))], options)
    {
    }

    /// <summary>Creates a runner for several agents sharing one thread, called in the given order.</summary>
    /// <param name="agents">The agents (at least one).</param>
    /// <param name="options">Settings; defaults when null.</param>
    public AgentRunner(IAgent[] agents, AgentRunnerOptions? options = null)
    {
        ArgumentNullException.ThrowIfNull(agents);
        if (agents.Length == 0)
        {
            throw new ArgumentException("At least one agent is required.", nameof(agents));
        }
        foreach (IAgent agent in agents)
        {
            ArgumentNullException.ThrowIfNull(agent, nameof(agents));
        }
        _agents = (IAgent[])agents.Clone();
        _options = options ?? new AgentRunnerOptions();
        _idle = _options.IdleStrategy ?? new BackoffIdleStrategy();
        _clock = _options.Clock ?? SystemClock.Instance;
        string name = _options.ThreadName ?? string.Join("+", Array.ConvertAll(_agents, a => a.Name));
        _thread = new Thread(Run) { Name = name, IsBackground = _options.IsBackground };
    }

    /// <summary>The runner thread's name.</summary>
    public string ThreadName => _thread.Name!;

    /// <summary>Whether the loop is running (started and not yet stopped).</summary>
    public bool IsRunning => Volatile.Read(ref _state) == Running;

    /// <summary>Number of exceptions thrown by agents (and by the error handler) so far.</summary>
    public long ErrorCount => Interlocked.Read(ref _errorCount);

    /// <summary>The most recent exception thrown by an agent or the error handler, or null.</summary>
    public Exception? LastError => Volatile.Read(ref _lastError);

    /// <summary>The result of pinning the thread (valid once <see cref="Start"/> returns).</summary>
    public AffinityResult Affinity => _affinity;

    /// <summary>The result of raising the thread's priority (valid once <see cref="Start"/> returns).</summary>
    public AffinityResult RealTimePriority => _priority;

    /// <summary>Starts the thread and waits until it has applied affinity and priority.</summary>
    /// <exception cref="InvalidOperationException">The runner was already started.</exception>
    public void Start()
    {
        lock (_started)
        {
            if (Interlocked.CompareExchange(ref _state, Running, NotStarted) != NotStarted)
            {
                throw new InvalidOperationException($"AgentRunner '{ThreadName}' was already started.");
            }
            _thread.Start();
            _threadStarted = true;
        }
        _started.Wait();
    }

    /// <summary>Asks the loop to stop and waits up to <paramref name="timeout"/> for the thread to finish.</summary>
    /// <param name="timeout">How long to wait; <see cref="Timeout.InfiniteTimeSpan"/> to wait for ever.</param>
    /// <returns><see langword="true"/> if the thread has finished (or never started); <see langword="false"/> if it is still
    /// running (an agent is blocked) or when called from the runner thread itself.</returns>
    public bool Stop(TimeSpan timeout)
    {
        lock (_started)
        {
            // Serialised with Start, so a started runner's thread has been started before it is joined.
            if (Interlocked.CompareExchange(ref _state, Stopped, NotStarted) == NotStarted)
            {
                return true;
            }
            Interlocked.CompareExchange(ref _state, Stopping, Running);
            // A loop parked until its agent's deadline (LoopToDeadlines) or for the strategy's park sees the stop now.
            IdleWakeup? wakeup = _idle switch
            {
                BackoffIdleStrategy b => b.Wakeup,
                SleepingIdleStrategy s => s.Wakeup,
                _ => null,
            };
            wakeup?.Signal();
            if (!_threadStarted)
            {
                // Stopped before it was ever started (a second Stop/Dispose): there is no thread to join.
                return true;
            }
        }
        if (Thread.CurrentThread == _thread)
        {
            return false;
        }
        return _thread.Join(timeout);
    }

    /// <summary>Stops the runner, waiting up to 5 seconds.</summary>
    public void Dispose()
    {
        Stop(TimeSpan.FromSeconds(5));
    }

    private void Run()
    {
        Thread.BeginThreadAffinity();
        GCLatencyMode previousMode = GCSettings.LatencyMode;
        try
        {
            Setup();
        }
        finally
        {
            _started.Set();
        }
        try
        {
            bool ok = true;
            foreach (IAgent agent in _agents)
            {
                try
                {
                    agent.OnStart();
                }
                catch (Exception ex)
                {
                    ok &= ReportError(agent, ex);
                }
            }
            if (ok)
            {
                Loop();
            }
            foreach (IAgent agent in _agents)
            {
                try
                {
                    agent.OnClose();
                }
                catch (Exception ex)
                {
                    ReportError(agent, ex);
                }
            }
        }
        finally
        {
            if (_options.SustainedLowLatencyGc)
            {
                GCSettings.LatencyMode = previousMode;
            }
            Volatile.Write(ref _state, Stopped);
            Thread.EndThreadAffinity();
        }
    }

    private void Setup()
    {
        int[]? cpus = _options.CpuAffinity;
        _affinity = CpuAffinity.PinCurrentThread(cpus is null ? ReadOnlySpan<int>.Empty : cpus);
        if (_affinity.Status != AffinityStatus.NotRequested)
        {
            Diagnostic($"[{ThreadName}] {_affinity.Message}");
        }
        if (_options.RealTimePriority is int priority)
        {
            _priority = CpuAffinity.SetCurrentThreadRealTimePriority(priority);
            Diagnostic($"[{ThreadName}] {_priority.Message}");
        }
        else
        {
            _priority = new AffinityResult(AffinityStatus.NotRequested, 0, "No real-time priority requested.");
        }
        if (_options.SustainedLowLatencyGc)
        {
            GCSettings.LatencyMode = GCLatencyMode.SustainedLowLatency;
        }
    }

    private void Loop()
    {
        IAgent[] agents = _agents;
        IIdleStrategy idle = _idle;
        IClock clock = _clock;
        // One agent that says when it next has work (IDeadlineAgent) and the Backoff strategy: each park lasts until the
        // agent's deadline (other threads cut it short through the strategy's IdleWakeup).
        IDeadlineAgent? deadlines = agents.Length == 1 ? agents[0] as IDeadlineAgent : null;
        BackoffIdleStrategy? toDeadline = deadlines is not null ? idle as BackoffIdleStrategy : null;
        while (Volatile.Read(ref _state) == Running)
        {
            long nowNs = clock.NowNs;
            int work = 0;
            for (int i = 0; i < agents.Length; i++)
            {
                try
                {
                    work += agents[i].DoWork(nowNs);
                }
                catch (Exception ex)
                {
                    work++;
                    if (!ReportError(agents[i], ex))
                    {
                        return;
                    }
                }
            }
            EngineThreadProbe.OnPass();
            if (toDeadline is not null) toDeadline.Idle(work, deadlines!.NextDeadlineNs - nowNs);
            else idle.Idle(work);
        }
    }

    /// <summary>Records and reports an agent exception; returns whether the loop may continue.</summary>
    private bool ReportError(IAgent agent, Exception ex)
    {
        Interlocked.Increment(ref _errorCount);
        Volatile.Write(ref _lastError, ex);
        Action<IAgent, Exception>? handler = _options.ErrorHandler;
        if (handler is null)
        {
            Diagnostic($"[{ThreadName}] agent '{agent.Name}' threw {ex.GetType().Name}: {ex.Message}");
        }
        else
        {
            try
            {
                handler(agent, ex);
            }
            catch (Exception handlerEx)
            {
                Interlocked.Increment(ref _errorCount);
                Volatile.Write(ref _lastError, handlerEx);
                Diagnostic($"[{ThreadName}] error handler threw {handlerEx.GetType().Name}: {handlerEx.Message}; stopping.");
                Interlocked.CompareExchange(ref _state, Stopping, Running);
                return false;
            }
        }
        if (_options.ErrorPolicy == AgentErrorPolicy.Stop)
        {
            Interlocked.CompareExchange(ref _state, Stopping, Running);
            return false;
        }
        return true;
    }

    private void Diagnostic(string message)
    {
        try
        {
            _options.DiagnosticHandler?.Invoke(message);
        }
        catch (Exception ex)
        {
            Interlocked.Increment(ref _errorCount);
            Volatile.Write(ref _lastError, ex);
        }
    }
}
