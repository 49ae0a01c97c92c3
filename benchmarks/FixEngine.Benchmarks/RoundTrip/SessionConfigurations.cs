using System.Collections.Generic;

namespace FixEngine.Benchmarks.RoundTrip;

/// <summary>Registration point for FixEngine session ↔ FixEngine session configurations.</summary>
/// <remarks>
/// The session layer (FixEngine.Session, samples/Acceptor) has not landed on this branch yet, so every combination is
/// registered as unavailable with the reason shown in the report. To enable one, replace its null factory with a
/// <see cref="IRoundTripSystem"/> that logs on two sessions over loopback, sends each order through the initiator
/// session and answers in the acceptor's application callback; the two-process variants run the acceptor through
/// <see cref="ChildProcessSystem"/> (the child runs <c>roundtrip --acceptor-only &lt;role&gt;</c>).
/// </remarks>
public static class SessionConfigurations
{
    /// <summary>Why the session configurations are not measured.</summary>
    public const string NotYetAvailable = "session layer (FixEngine.Session) not merged into this branch yet";

    /// <summary>Adds the session configurations to <paramref name="list"/>.</summary>
    public static void Register(List<RoundTripConfiguration> list)
    {
        foreach (string mode in new[] { "busy", "completion" })
        {
            foreach (string store in new[] { "mem", "file" })
            {
                foreach (string process in new[] { "1proc", "2proc" })
                {
                    list.Add(new RoundTripConfiguration(
                        $"session-{mode}-{store}-{process}",
                        $"FixEngine session ↔ FixEngine session, {(mode == "busy" ? "busy-poll" : "completion")} transport, "
                        + $"{(store == "mem" ? "memory" : "file")} store, {(process == "1proc" ? "one process" : "two processes")}",
                        null,
                        NotYetAvailable));
                }
            }
        }
    }
}
