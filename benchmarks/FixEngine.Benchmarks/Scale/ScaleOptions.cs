using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;

namespace FixEngine.Benchmarks.Scale;

/// <summary>The acceptors the scale mode can put under load.</summary>
public enum ScaleAcceptorKind
{
    /// <summary>FixEngine, memory store.</summary>
    FixEngineMemory,

    /// <summary>FixEngine, file store (FileStoreSync=OS).</summary>
    FixEngineFile,

    /// <summary>QuickFIX C++ SocketAcceptor (one reactor thread).</summary>
    QuickFixCppReactor,

    /// <summary>QuickFIX C++ ThreadedSocketAcceptor (a thread per session).</summary>
    QuickFixCppThreaded,

    /// <summary>QuickFIX/n ThreadedSocketAcceptor.</summary>
    QuickFixN,
}

/// <summary>Command line of <c>scale</c> (see benchmarks/FixEngine.Benchmarks/Scale/README.md).</summary>
public sealed record ScaleOptions
{
    public IReadOnlyList<int> Sessions { get; init; } = [1, 10, 100, 1_000];

    public IReadOnlyList<ScaleAcceptorKind> Acceptors { get; init; } = [ScaleAcceptorKind.FixEngineMemory];

    /// <summary>Share of the sessions that send orders in the busy phase (at least one session).</summary>
    public double BusyShare { get; init; } = 0.01;

    /// <summary>Orders per second each busy session sends (open loop).</summary>
    public int RatePerBusySession { get; init; } = 100;

    public int HeartBtInt { get; init; } = 5;

    public double IdleSeconds { get; init; } = 12;

    public double WarmupSeconds { get; init; } = 3;

    public double BusySeconds { get; init; } = 15;

    public double LogonTimeoutSeconds { get; init; } = 90;

    /// <summary>The FixEngine acceptor's ReceiveMode.</summary>
    public string ReceiveMode { get; init; } = "Completion";

    public string OutDirectory { get; init; } = "artifacts/scale";

    /// <summary>The FixEngine acceptor's admin console: <c>none</c>; <c>idle</c> (started with the engine,
    /// <c>HttpAcceptPort=0</c>, nobody asks it anything); <c>poll</c> (started, and <c>GET api/sessions</c> every
    /// <see cref="ConsolePollSeconds"/> during the busy window over one kept-alive connection, as an open page does).</summary>
    public string ConsoleMode { get; init; } = "none";

    /// <summary><c>--trace</c>: a line every 250 ms from the harness and the FixEngine acceptor (thread pool, GC, CPU,
    /// counters) on stderr, to place a stall (<see cref="ScaleTrace"/>).</summary>
    public bool Trace { get; init; }

    /// <summary><c>--sender spin|sleep</c>: how the order sender waits between orders. <c>sleep</c> (default): nanosleep
    /// to each order's time; <c>spin</c>: the round-trip harness's wait (sleep, then yield and spin for the last 120 µs),
    /// which holds a whole core once the busy sessions' total rate passes about 8,000/s (the sittings before 2026-12-07).</summary>
    public bool SenderSpins { get; init; }

    /// <summary><c>--pool-spin-limit N</c>: the thread pool's spin before an idle worker sleeps
    /// (<c>DOTNET_ThreadPool_UnfairSemaphoreSpinLimit</c>, the runtime's default 70), set in the FixEngine acceptor child's
    /// environment; null leaves the runtime's default. A process-wide runtime setting, read when the pool starts: the
    /// initiators' process (this one) takes it from its own environment (<c>benchmarks/scale.sh</c> exports it when this
    /// option is given).</summary>
    public int? PoolSpinLimit { get; init; }

    /// <summary>The environment variable <see cref="PoolSpinLimit"/> sets.</summary>
    public const string PoolSpinLimitVariable = "DOTNET_ThreadPool_UnfairSemaphoreSpinLimit";

    /// <summary>The period of <c>--console poll</c>.</summary>
    public double ConsolePollSeconds { get; init; } = 1;

    /// <summary>Loopback source addresses the initiators connect from (127.0.0.1 .. 127.0.0.k), sessions dealt round
    /// robin; null: as few as keep every address within the acceptor's default MaxUnauthenticatedConnectionsPerAddress,
    /// so a logon storm of N is never refused by the per-address limit (the limit is a hostile-input protection, and
    /// thousands of clients of a real gateway arrive from a few NAT addresses, not one).</summary>
    public int? SourceAddresses { get; init; }

    /// <summary>The largest k of <see cref="SourceAddresses"/> (127.0.0.1 .. 127.0.0.254).</summary>
    public const int MaxSourceAddresses = 254;

    /// <summary>Source addresses for <paramref name="sessions"/> initiators.</summary>
    public int SourceAddressCount(int sessions)
    {
        if (SourceAddresses is int k) return Math.Min(k, sessions);
        int perAddress = new Config.SessionSettings().MaxUnauthenticatedConnectionsPerAddress;
        return Math.Clamp((sessions + perAddress - 1) / perAddress, 1, MaxSourceAddresses);
    }

    public const string Usage =
        "scale [--sessions 1,10,100,1000,10000] [--acceptors fixengine-mem,fixengine-file,qfcpp-reactor,qfcpp-threaded,qfn|all]\n"
        + "      [--busy-share 0.01] [--rate 100] [--heartbeat 5] [--idle-seconds 12] [--warmup-seconds 3] [--busy-seconds 15]\n"
        + "      [--receive-mode Completion|Dedicated|BusyPoll] [--logon-timeout 90] [--source-addresses k] [--out artifacts/scale]\n"
        + "      [--console none|idle|poll] [--console-poll-seconds 1] [--sender sleep|spin] [--pool-spin-limit N] [--trace] [--help]";

    public static string Key(ScaleAcceptorKind kind) => kind switch
    {
        ScaleAcceptorKind.FixEngineMemory => "fixengine-mem",
        ScaleAcceptorKind.FixEngineFile => "fixengine-file",
        ScaleAcceptorKind.QuickFixCppReactor => "qfcpp-reactor",
        ScaleAcceptorKind.QuickFixCppThreaded => "qfcpp-threaded",
        _ => "qfn",
    };

    public int BusyCount(int sessions) => Math.Clamp((int)Math.Round(sessions * BusyShare), 1, sessions);

    /// <summary>Parses the arguments after <c>scale</c>; throws <see cref="ArgumentException"/> naming the bad one.</summary>
    public static ScaleOptions Parse(IReadOnlyList<string> args)
    {
        var o = new ScaleOptions();
        for (int i = 0; i < args.Count; i++)
        {
            string name = args[i];
            if (name == "--trace")
            {
                o = o with { Trace = true };
                continue;
            }
            string Value() => i + 1 < args.Count ? args[++i] : throw new ArgumentException($"{name} needs a value");
            double Number(double min)
            {
                string v = Value();
                if (!double.TryParse(v, NumberStyles.Float, CultureInfo.InvariantCulture, out double d) || d < min)
                {
                    throw new ArgumentException($"{name}: '{v}' is not a number >= {min.ToString(CultureInfo.InvariantCulture)}");
                }
                return d;
            }
            o = name switch
            {
                "--sessions" => o with { Sessions = ParseCounts(name, Value()) },
                "--acceptors" => o with { Acceptors = ParseAcceptors(Value()) },
                "--busy-share" => o with { BusyShare = Number(0) },
                "--rate" => o with { RatePerBusySession = (int)Number(1) },
                "--heartbeat" => o with { HeartBtInt = (int)Number(1) },
                "--idle-seconds" => o with { IdleSeconds = Number(1) },
                "--warmup-seconds" => o with { WarmupSeconds = Number(0) },
                "--busy-seconds" => o with { BusySeconds = Number(1) },
                "--logon-timeout" => o with { LogonTimeoutSeconds = Number(1) },
                "--receive-mode" => o with { ReceiveMode = Value() },
                "--source-addresses" => o with { SourceAddresses = SourceAddressArgument(name, Number(1)) },
                "--out" => o with { OutDirectory = Value() },
                "--console" => o with { ConsoleMode = Value() is var c && c is "none" or "idle" or "poll" ? c : throw new ArgumentException($"{name}: '{c}' is not none, idle or poll") },
                "--console-poll-seconds" => o with { ConsolePollSeconds = Number(0.05) },
                "--sender" => o with { SenderSpins = Value() is var w && w is "spin" or "sleep" ? w == "spin" : throw new ArgumentException($"{name}: '{w}' is not spin or sleep") },
                "--pool-spin-limit" => o with { PoolSpinLimit = Number(0) is var l && l == Math.Floor(l) && l <= short.MaxValue ? (int)l : throw new ArgumentException($"{name}: '{l.ToString(CultureInfo.InvariantCulture)}' is not a whole number 0..{short.MaxValue}") },
                _ => throw new ArgumentException($"unknown option '{name}'"),
            };
        }
        return o;
    }

    private static int SourceAddressArgument(string name, double k) => k == Math.Floor(k) && k <= MaxSourceAddresses
        ? (int)k
        : throw new ArgumentException($"{name}: '{k.ToString(CultureInfo.InvariantCulture)}' is not a whole number 1..{MaxSourceAddresses} (127.0.0.1 .. 127.0.0.k)");

    private static int[] ParseCounts(string name, string text)
    {
        var list = new List<int>();
        foreach (string part in text.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries))
        {
            if (!int.TryParse(part.Replace("_", ""), NumberStyles.None, CultureInfo.InvariantCulture, out int n) || n < 1 || n > 60_000)
            {
                throw new ArgumentException($"{name}: '{part}' is not a session count 1..60000");
            }
            list.Add(n);
        }
        if (list.Count == 0) throw new ArgumentException($"{name}: no session count");
        return [.. list];
    }

    private static ScaleAcceptorKind[] ParseAcceptors(string text)
    {
        if (text == "all") return Enum.GetValues<ScaleAcceptorKind>();
        var all = Enum.GetValues<ScaleAcceptorKind>().ToDictionary(Key);
        var list = new List<ScaleAcceptorKind>();
        foreach (string part in text.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries))
        {
            if (!all.TryGetValue(part, out ScaleAcceptorKind kind))
            {
                throw new ArgumentException($"--acceptors: unknown acceptor '{part}' (known: {string.Join(", ", all.Keys)}, all)");
            }
            list.Add(kind);
        }
        return [.. list];
    }
}
