namespace FixEngine.Hosting;

/// <summary>A unit of duty-cycle work run by an <see cref="AgentRunner"/>.</summary>
/// <remarks>
/// All members are called on the runner's thread only. <see cref="DoWork"/> must not block; it polls its
/// sockets, rings and timers and returns how much it did so the idle strategy can back off when idle.
/// <para>Part of FixEngine's reusable low-latency toolkit (with the other types of Buffers, Collections, Timing and
/// Hosting): public and supported for trading code to use on its own threads, independently of the FIX layers.</para>
/// </remarks>
public interface IAgent
{
    /// <summary>Name used in diagnostics and error reports.</summary>
    string Name { get; }

    /// <summary>Does one slice of work.</summary>
    /// <param name="nowNs">Monotonic time for this duty cycle (the runner's clock), so the agent never reads the clock itself.</param>
    /// <returns>Work items done; 0 means idle.</returns>
    int DoWork(long nowNs);

    /// <summary>Called once on the runner thread before the first <see cref="DoWork"/>.</summary>
    void OnStart()
    {
    }

    /// <summary>Called once on the runner thread after the last <see cref="DoWork"/>.</summary>
    void OnClose()
    {
    }
}

/// <summary>An agent that knows when it next has something to do: a runner with one such agent and a
/// <see cref="Timing.BackoffIdleStrategy"/> parks until that instant instead of the strategy's longest park (the engine
/// agent; see docs/architecture.md, "Who wakes the engine agent").</summary>
internal interface IDeadlineAgent
{
    /// <summary>Runner thread, after <see cref="IAgent.DoWork"/>: the monotonic instant (the runner's clock) by which the
    /// next duty cycle must run if no other thread signals the agent meanwhile.</summary>
    long NextDeadlineNs { get; }
}
