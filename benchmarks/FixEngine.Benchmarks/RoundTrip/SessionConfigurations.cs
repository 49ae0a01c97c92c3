using System.Collections.Generic;

namespace FixEngine.Benchmarks.RoundTrip;

/// <summary>Registration point for FixEngine session ↔ FixEngine session configurations.</summary>
/// <remarks>
/// One-process configurations are <see cref="EngineSessionSystem"/> (busy-poll or completion receive, idle strategy,
/// memory or file store). Two-process variants are registered as unavailable with the reason shown in the report; they
/// would run the acceptor through <see cref="ChildProcessSystem"/> (<c>roundtrip --acceptor-only &lt;role&gt;</c>).
/// </remarks>
public static class SessionConfigurations
{
    /// <summary>Why the two-process session configurations are not measured.</summary>
    public const string TwoProcessNotYet = "two-process session run not wired yet (ChildProcessSystem has only the codec acceptor role)";

    /// <summary>Adds the session configurations to <paramref name="list"/>.</summary>
    public static void Register(List<RoundTripConfiguration> list)
    {
        EngineSessionSystem.Register(list);
        foreach (string store in new[] { "mem", "file" })
        {
            list.Add(new RoundTripConfiguration(
                $"session-busy-{store}-2proc",
                $"FixEngine session ↔ FixEngine session, acceptor in a child process, {(store == "mem" ? "memory" : "file")} store",
                null,
                TwoProcessNotYet));
        }
    }
}
