using System;
using System.Collections.Generic;

namespace FixEngine.Benchmarks.RoundTrip;

/// <summary>A named configuration the harness can measure, or one it knows how to build but does not run yet.</summary>
/// <param name="Key">Command-line key and report name.</param>
/// <param name="Description">One line for the report.</param>
/// <param name="Factory">Creates a fresh system per run; null when there is nothing to build yet.</param>
/// <param name="UnavailableReason">Why the configuration is not measured (shown in <c>--list</c> and the report);
/// null when it is available. A configuration can have a factory and still a reason, so that making it available is
/// a one-line change.</param>
public sealed record RoundTripConfiguration(
    string Key, string Description, Func<RoundTripSetup, IRoundTripSystem>? Factory, string? UnavailableReason)
{
    /// <summary>For configurations whose initiator is a QuickFIX peer (which paces and times the orders itself): creates
    /// the run; <see cref="Factory"/> is then null.</summary>
    public Func<RoundTripSetup, PeerInitiatorRun>? PeerInitiator { get; init; }

    /// <summary>Peer programs the configuration runs (built before the first run, see <see cref="PeerPrograms"/>).</summary>
    public IReadOnlyList<PeerKind> Peers { get; init; } = [];

    /// <summary>True when the configuration can run.</summary>
    public bool IsAvailable => (Factory is not null || PeerInitiator is not null) && UnavailableReason is null;
}

/// <summary>What a factory may need.</summary>
/// <param name="OrderLength">Typical NewOrderSingle length (the floor sends the same).</param>
/// <param name="ReportLength">Typical ExecutionReport length.</param>
/// <param name="OrdersPerRun">Most orders one run sends (warm-up + measured), to size stores.</param>
public sealed record RoundTripSetup(int OrderLength, int ReportLength, int OrdersPerRun);

/// <summary>The registry of configurations; new ones plug in by adding an entry here.</summary>
public static class RoundTripConfigurations
{
    /// <summary>The floor's key; ratios in the report are to this configuration.</summary>
    public const string FloorKey = "floor";

    /// <summary>The floor with its acceptor in a child process: the comparator of the two-process configurations.</summary>
    public const string FloorTwoProcessKey = "floor-2proc";

    /// <summary>Every configuration, available or not, in report order.</summary>
    public static IReadOnlyList<RoundTripConfiguration> All { get; } = Build();

    /// <summary>Keys measured when <c>--configs</c> is not given (kept small so <c>--quick</c> takes about a minute);
    /// <c>--configs all</c> selects every available configuration.</summary>
    /// <remarks>Chosen for a 2-core machine: the floor, the codec alone, and the engine with yielding agents in one and
    /// in two processes. Busy-spin needs a core per spinning thread (two engine agents plus the sender: at least 3
    /// cores; on 2 cores one run took ~100 s). Backoff parks for up to 1 ms when idle, so closed-loop and low-rate
    /// numbers measure the park, not the engine, and its closed-loop warm-up is the slowest part of a quick run; it and
    /// the file-store variants stay available through <c>--configs</c>.</remarks>
    public static IEnumerable<string> DefaultKeys { get; } = [FloorKey, "codec", "session-yield-mem-1proc", "session-yield-mem-2proc"];

    /// <summary>The incumbent comparison (<c>--configs comparison</c>): every pairing of QuickFIX C++, QuickFIX/n and
    /// FixEngine in its default configuration and with busy-poll + Yielding, acceptor in a separate process in each.</summary>
    public static IReadOnlyList<string> ComparisonKeys { get; } =
    [
        PeerConfigurations.BaselineKey, "qfn-qfn",
        "qfcpp-fixengine", "qfcpp-fixengine-yield", "qfn-fixengine",
        "fixengine-qfcpp", "fixengine-yield-qfcpp", "fixengine-qfn",
        "session-default-mem-2proc", "session-yield-mem-2proc",
    ];

    /// <summary>Every available key.</summary>
    public static IEnumerable<string> AvailableKeys
    {
        get
        {
            foreach (RoundTripConfiguration c in All)
            {
                if (c.IsAvailable) yield return c.Key;
            }
        }
    }

    /// <summary>Finds a configuration by key (case-insensitive).</summary>
    public static RoundTripConfiguration? Find(string key)
    {
        foreach (RoundTripConfiguration c in All)
        {
            if (string.Equals(c.Key, key, StringComparison.OrdinalIgnoreCase)) return c;
        }
        return null;
    }

    private static List<RoundTripConfiguration> Build()
    {
        var list = new List<RoundTripConfiguration>
        {
            new(FloorKey, "raw TCP ping-pong, same-sized messages, blocking sockets, NoDelay",
                setup => new RawTcpFloorSystem(setup.OrderLength, setup.ReportLength), null),
            new(FloorTwoProcessKey, "floor configuration with the acceptor in a child process (the floor of the -2proc configurations)",
                setup => new ChildProcessSystem(FloorTwoProcessKey, $"{ChildProcessSystem.FloorAcceptorRole}:{setup.OrderLength}:{setup.ReportLength}",
                    port => new RawTcpFloorSystem(setup.OrderLength, setup.ReportLength, FloorTwoProcessKey, port)), null),
            new("codec", "FixWriter/FixFramer/FixMessage over the same raw sockets, no session layer",
                _ => new CodecTcpSystem(), null),
            new("codec-2proc", "codec configuration with the acceptor in a child process",
                _ => new ChildProcessSystem("codec-2proc", ChildProcessSystem.CodecAcceptorRole, port => new CodecTcpSystem("codec-2proc", port)), null),
        };
        SessionConfigurations.Register(list);
        PeerConfigurations.Register(list);
        return list;
    }
}
