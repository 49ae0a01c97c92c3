using System;
using FixEngine.Timing;

namespace FixEngine.Hosting;

/// <summary>What an <see cref="AgentRunner"/> does when an agent throws.</summary>
public enum AgentErrorPolicy
{
    /// <summary>Report the exception and keep running (the failed iteration counts as work).</summary>
    Continue = 0,

    /// <summary>Report the exception and stop the runner (agents still get <see cref="IAgent.OnClose"/>).</summary>
    Stop = 1,
}

/// <summary>Settings for an <see cref="AgentRunner"/>.</summary>
/// <remarks>Read once when the runner is constructed; not thread-safe to mutate afterwards.</remarks>
public sealed class AgentRunnerOptions
{
    /// <summary>Thread name; the agents' names joined with '+' when null.</summary>
    public string? ThreadName { get; set; }

    /// <summary>Idle strategy; a new <see cref="BackoffIdleStrategy"/> when null. One instance per runner (strategies hold state).</summary>
    public IIdleStrategy? IdleStrategy { get; set; }

    /// <summary>Clock whose <see cref="IClock.NowNs"/> is passed to <see cref="IAgent.DoWork"/>; <see cref="SystemClock.Instance"/> when null.</summary>
    public IClock? Clock { get; set; }

    /// <summary>CPUs to pin the runner thread to; unpinned when null or empty.</summary>
    public int[]? CpuAffinity { get; set; }

    /// <summary>SCHED_FIFO priority (1-99) for the runner thread on Linux; normal scheduling when null.</summary>
    public int? RealTimePriority { get; set; }

    /// <summary>
    /// Sets the process-wide <see cref="System.Runtime.GCSettings.LatencyMode"/> to <c>SustainedLowLatency</c> while the
    /// runner runs (restored on stop). Process-wide: with several runners the last to stop restores it.
    /// </summary>
    public bool SustainedLowLatencyGc { get; set; }

    /// <summary>Receives agent exceptions on the runner thread. Exceptions are also counted in <see cref="AgentRunner.ErrorCount"/>.</summary>
    public Action<IAgent, Exception>? ErrorHandler { get; set; }

    /// <summary>Continue or stop after an agent exception.</summary>
    public AgentErrorPolicy ErrorPolicy { get; set; } = AgentErrorPolicy.Continue;

    /// <summary>Receives one message per setup step that did not fully succeed or was applied (pinning, priority), on the runner thread.</summary>
    public Action<string>? DiagnosticHandler { get; set; }

    /// <summary>Whether the runner thread is a background thread (does not keep the process alive). Default true.</summary>
    public bool IsBackground { get; set; } = true;
}
