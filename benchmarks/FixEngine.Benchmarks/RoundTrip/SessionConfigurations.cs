using System.Collections.Generic;
using FixEngine.Config;
using FixEngine.Transport;

namespace FixEngine.Benchmarks.RoundTrip;

/// <summary>Registration point for FixEngine session ↔ FixEngine session configurations.</summary>
/// <remarks>
/// Keys are <c>session-{default|busy|yield|backoff|completion|dedicated}-{mem|file|filebatch|filesync}-{1proc|2proc}</c>
/// (file: FileStoreSync=OS, the default; filebatch: Batched; filesync: PerMessage). default is what a user
/// gets without tuning (dedicated receive mode, Backoff agent: the SessionSettings defaults). busy/yield/backoff are the
/// engine agent's idle strategy with the busy-poll receive mode; completion is the completion receive mode (inbound
/// on socket completion threads; the Yielding agent drains the cross-thread outbox the harness sends orders through);
/// dedicated is the dedicated receive mode (inbound on each connection's own receive thread; Yielding agent too).
/// 1proc runs both hosts in this process (<see cref="EngineSessionSystem"/>); 2proc runs the acceptor host in a child process with the same
/// <see cref="EngineSessionSpec"/> (<see cref="ChildProcessSystem"/>).
/// </remarks>
public static class SessionConfigurations
{
    /// <summary>Adds the session configurations to <paramref name="list"/>.</summary>
    public static void Register(List<RoundTripConfiguration> list)
    {
        var modes = new (string Name, IdleStrategyKind Idle, ReceiveMode Receive, string? UnavailableReason)[]
        {
            ("default", IdleStrategyKind.Backoff, ReceiveMode.Dedicated, null),
            ("busy", IdleStrategyKind.BusySpin, ReceiveMode.BusyPoll, null),
            ("yield", IdleStrategyKind.Yielding, ReceiveMode.BusyPoll, null),
            ("backoff", IdleStrategyKind.Backoff, ReceiveMode.BusyPoll, null),
            ("completion", IdleStrategyKind.Yielding, ReceiveMode.Completion, null),
            ("dedicated", IdleStrategyKind.Yielding, ReceiveMode.Dedicated, null),
        };
        foreach ((string mode, IdleStrategyKind idle, ReceiveMode receive, string? unavailable) in modes)
        {
            foreach (string store in new[] { "mem", "file", "filebatch", "filesync" })
            {
                string? fileSync = EngineSessionSpec.FileSyncOf(store);
                bool file = fileSync is not null;
                foreach (bool twoProcess in new[] { false, true })
                {
                    string key = $"session-{mode}-{store}-{(twoProcess ? "2proc" : "1proc")}";
                    string receiveText = receive switch
                    {
                        ReceiveMode.BusyPoll => "busy-poll receive",
                        ReceiveMode.Dedicated => "dedicated receive thread per connection",
                        _ => "completion-mode receive",
                    } + (mode == "default" ? " (the defaults)" : "");
                    string description = $"FixEngine session ↔ FixEngine session, {receiveText}, {idle} idle strategy, "
                        + $"{(file ? $"file store (FileStoreSync={fileSync})" : "memory store")}, {(twoProcess ? "acceptor in a child process" : "one process")}";
                    list.Add(new RoundTripConfiguration(
                        key,
                        description,
                        setup =>
                        {
                            var spec = new EngineSessionSpec(idle, file, receive, setup.OrdersPerRun, FileSync: fileSync ?? "OS");
                            return twoProcess
                                ? new ChildProcessSystem(
                                    key, spec.ToRole(), port => new EngineSessionSystem(key, spec, port), file ? EngineSessionSystem.NewStoreRoot() : null)
                                : new EngineSessionSystem(key, spec);
                        },
                        unavailable));
                }
            }
        }
        // The A/B of the operations surface: the same one-process pairs with the acceptor's admin console and health check
        // running and polled (AdminConsoleLoad), for the default and the yielding busy-poll configurations; -console is
        // the whole monitor, -console-{idle,tail,health,sessions,spawn,keepalive} its parts (ConsoleMonitor).
        foreach ((string mode, IdleStrategyKind idle, ReceiveMode receive) in new[]
        {
            ("default", IdleStrategyKind.Backoff, ReceiveMode.Dedicated),
            ("yield", IdleStrategyKind.Yielding, ReceiveMode.BusyPoll),
        })
        {
            foreach (ConsoleMonitor monitor in System.Enum.GetValues<ConsoleMonitor>())
            {
                string key = $"session-{mode}-mem-1proc-console{AdminConsoleLoad.Suffix(monitor)}";
                list.Add(new RoundTripConfiguration(
                    key,
                    $"session-{mode}-mem-1proc with the acceptor's admin console (MapFixEngineAdmin) and health check (AddFixEngineHealthChecks) "
                        + "in an ASP.NET Core app, " + Describe(monitor),
                    setup => new EngineSessionSystem(key, new EngineSessionSpec(idle, false, receive, setup.OrdersPerRun), console: monitor),
                    null));
            }
        }
        // The A/B of tracing's hooks: the same one-process pair with an ActivityListener on the engine's sources
        // (TracingListener): both sources with a sampler that keeps nothing (both sides' message path asks it per inbound
        // application message and records nothing), the lifecycle source alone (every lifecycle event recorded; the
        // message source unheard), both sources with every message recorded.
        foreach ((string suffix, TracingListener tracing, string what) in new[]
        {
            ("", TracingListener.BothSampleNothing, "an ActivityListener on both FixEngine ActivitySources that samples nothing (tracing wired, no trace kept)"),
            ("-lifecycle", TracingListener.Lifecycle, "an ActivityListener on the lifecycle ActivitySource FixEngine alone, sampling every activity (FixEngine.MessageTraces unheard)"),
            ("-sampled", TracingListener.BothSampled, "an ActivityListener on both FixEngine ActivitySources that samples and records every activity (every message traced)"),
        })
        {
            string key = "session-default-mem-1proc-tracing" + suffix;
            list.Add(new RoundTripConfiguration(
                key,
                "session-default-mem-1proc with " + what,
                setup => new EngineSessionSystem(key,
                    new EngineSessionSpec(IdleStrategyKind.Backoff, false, ReceiveMode.Dedicated, setup.OrdersPerRun), tracing: tracing),
                null));
        }
        // The PostgreSQL store (both sides), one process, yielding busy-poll agents: per-message commit and group commit.
        string? noServer = string.IsNullOrEmpty(System.Environment.GetEnvironmentVariable(EngineSessionSpec.PostgresVariable))
            ? $"needs a PostgreSQL server in {EngineSessionSpec.PostgresVariable} (bash .ci/postgres.sh start)"
            : null;
        foreach ((string name, string sync) in new[] { ("pgmsg", "PerMessage"), ("pggroup", "GroupCommit") })
        {
            string key = $"session-yield-{name}-1proc";
            list.Add(new RoundTripConfiguration(
                key,
                $"FixEngine session ↔ FixEngine session, busy-poll receive, Yielding idle strategy, PostgreSQL store ({sync}), one process",
                setup => new EngineSessionSystem(key, new EngineSessionSpec(IdleStrategyKind.Yielding, false, ReceiveMode.BusyPoll, setup.OrdersPerRun, sync)),
                noServer));
        }
    }

    private static string Describe(ConsoleMonitor monitor) => monitor switch
    {
        ConsoleMonitor.All => "the console's tail open and /health and api/sessions polled every second by a curl process each",
        ConsoleMonitor.Idle => "nobody polling",
        ConsoleMonitor.Tail => "only the console's tail open (one curl process)",
        ConsoleMonitor.Health => "only /health polled every second by a curl process",
        ConsoleMonitor.Sessions => "only api/sessions polled every second by a curl process",
        ConsoleMonitor.Spawn => "two curl processes started every second against a closed port (the monitor's process cost, no server work)",
        _ => "the console's tail open and /health and api/sessions polled every second by one long-lived curl over a kept-alive connection",
    };
}
