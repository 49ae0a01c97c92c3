using System;
using System.Collections.Generic;
using System.Globalization;

namespace FixEngine.Benchmarks.RoundTrip;

/// <summary>Parsed <c>roundtrip</c> arguments.</summary>
public sealed class RoundTripOptions
{
    /// <summary>Default output directory (under the gitignored artifacts/).</summary>
    public const string DefaultOutput = "artifacts/roundtrip";

    /// <summary>quick or full.</summary>
    public string Mode { get; private set; } = "quick";

    /// <summary>Rates; 0 = max (closed loop).</summary>
    public List<int> Rates { get; } = [2_000, 10_000, 50_000, 0];

    /// <summary>Configuration keys.</summary>
    public List<string> Configs { get; } = [];

    /// <summary>Output directory.</summary>
    public string Output { get; private set; } = DefaultOutput;

    /// <summary>Warm-up orders per run (upper bound in quick mode, see <see cref="WarmupMaxSeconds"/>).</summary>
    public int WarmupCount { get; private set; } = 10_000;

    /// <summary>Warm-up also stops after this many seconds; 0 = count only.</summary>
    public double WarmupMaxSeconds { get; private set; } = 0.4;

    /// <summary>Measured orders per run (upper bound in quick mode, see <see cref="MeasuredFor"/>).</summary>
    public int MeasuredCount { get; private set; } = 40_000;

    /// <summary>Time bound of a measured window in seconds: open loop schedules min(count, rate × seconds) orders,
    /// closed loop stops after this long; 0 = count only.</summary>
    public double MaxSecondsPerRun { get; private set; } = 1.0;

    /// <summary>An open-loop sender this many seconds behind schedule stops (run marked saturated); 0 = never.</summary>
    public double SendLagLimitSeconds { get; private set; } = 1.0;

    /// <summary>Open-loop senders (the harness's and the peers') spin for the whole interval instead of sleeping.</summary>
    public bool SpinPacing { get; private set; }

    /// <summary>Runs per configuration and rate.</summary>
    public int Runs { get; private set; } = 2;

    /// <summary>Run the self-check instead of measuring.</summary>
    public bool SelfCheck { get; private set; }

    /// <summary>List configurations and exit.</summary>
    public bool List { get; private set; }

    /// <summary>Child-process mode: the acceptor role to serve, or null.</summary>
    public string? AcceptorOnlyRole { get; private set; }

    /// <summary>Print <see cref="Usage"/> and exit.</summary>
    public bool Help { get; private set; }

    /// <summary>The command line, printed by <c>--help</c> and after a bad argument.</summary>
    public const string Usage =
        "roundtrip [--quick|--full] [--configs KEY,...|all|comparison] [--rates 2000,10000,max] [--runs N]\n"
        + "          [--warmup N] [--measured N] [--seconds S] [--pacing wait|spin] [--out artifacts/roundtrip]\n"
        + "          [--list] [--self-check] [--help]\n"
        + "  --list prints every configuration key and whether its peer is available on this machine.";

    /// <summary>Orders measured per run at <paramref name="ratePerSecond"/>.</summary>
    public int MeasuredFor(int ratePerSecond) =>
        ratePerSecond <= 0 || MaxSecondsPerRun <= 0
            ? MeasuredCount
            : (int)Math.Max(1, Math.Min(MeasuredCount, ratePerSecond * MaxSecondsPerRun));

    /// <summary>Most orders one run sends (closed-loop warm-up, which may run to twice its count while the JIT settles,
    /// the open-loop warm-up burst, the measured orders, and the closed-loop slices a peer initiator adds while a
    /// FixEngine acceptor in this process still compiles), to size the stores.</summary>
    /// <remarks>The last term was missing until 2026-11-26: a QuickFIX C++ initiator's warm-up against the FixEngine
    /// acceptor ran to 27,878 orders, past the index capacity, and the store's index doubled inside the measured window
    /// (about 1 MB: 105 B/msg in about half of the <c>qfcpp-fixengine</c> windows at 2,000/s, found with an
    /// allocation-tick listener naming the thread and the arrays).</remarks>
    public int OrdersPerRun
    {
        get
        {
            long burst = 0;
            foreach (int rate in Rates) burst = Math.Max(burst, (long)(rate * (RoundTripRunner.RateWarmupNs / 1e9)) + 1);
            long peerSettle = (long)(Math.Max(WarmupHardMaxSeconds, PeerSettleDefaultSeconds) * PeerSettleOrdersPerSecond);
            return (int)Math.Min(int.MaxValue, 2L * WarmupCount + MeasuredCount + burst + peerSettle);
        }
    }

    /// <summary>The bound of a peer initiator's JIT-settling warm-up when the plan has no hard bound (PeerInitiatorRun).</summary>
    public const double PeerSettleDefaultSeconds = 5;

    /// <summary>More closed-loop orders per second than any pairing reaches on the machines this runs on (about 27,000/s
    /// at best on the 2-core VM), to bound the peer's JIT-settling warm-up in orders.</summary>
    private const int PeerSettleOrdersPerSecond = 40_000;

    /// <summary>The plan of one run at <paramref name="ratePerSecond"/>.</summary>
    public RunPlan PlanFor(int ratePerSecond) => new(
        WarmupCount,
        MeasuredFor(ratePerSecond),
        ratePerSecond,
        WarmupMaxNs: (long)(WarmupMaxSeconds * 1e9),
        ClosedLoopMaxNs: (long)(MaxSecondsPerRun * 1e9),
        SendLagLimitNs: (long)(SendLagLimitSeconds * 1e9),
        WarmupHardMaxNs: WarmupMaxSeconds > 0 ? (long)(WarmupHardMaxSeconds * 1e9) : 0,
        SpinPacing: SpinPacing);

    /// <summary>In quick mode, a warm-up still compiling after this many seconds stops anyway (run flagged).</summary>
    public double WarmupHardMaxSeconds { get; private set; } = 5;

    /// <summary>Parses arguments after <c>roundtrip</c>; throws <see cref="ArgumentException"/> naming the bad one.</summary>
    public static RoundTripOptions Parse(IReadOnlyList<string> args)
    {
        var o = new RoundTripOptions();
        int? warmup = null, measured = null, runs = null;
        double? seconds = null;
        for (int i = 0; i < args.Count; i++)
        {
            string a = args[i];
            switch (a)
            {
                case "--quick":
                    o.Mode = "quick";
                    break;
                case "--full":
                    o.Mode = "full";
                    break;
                case "--rates":
                    o.Rates.Clear();
                    foreach (string r in Value(args, ref i, a).Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries))
                    {
                        if (r.Equals("max", StringComparison.OrdinalIgnoreCase)) o.Rates.Add(0);
                        else if (int.TryParse(r, NumberStyles.None, CultureInfo.InvariantCulture, out int rate) && rate > 0) o.Rates.Add(rate);
                        else throw new ArgumentException($"--rates: '{r}' is not a positive integer or 'max'");
                    }
                    break;
                case "--configs":
                    o.Configs.Clear();
                    foreach (string c in Value(args, ref i, a).Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries))
                    {
                        if (c == "all")
                        {
                            o.Configs.AddRange(RoundTripConfigurations.AvailableKeys);
                            continue;
                        }
                        if (c == "comparison")
                        {
                            o.Configs.AddRange(RoundTripConfigurations.ComparisonKeys);
                            continue;
                        }
                        if (RoundTripConfigurations.Find(c) is null) throw new ArgumentException($"--configs: unknown configuration '{c}' (see --list)");
                        o.Configs.Add(c);
                    }
                    break;
                case "--out":
                    o.Output = Value(args, ref i, a);
                    break;
                case "--warmup":
                    warmup = PositiveInt(args, ref i, a);
                    break;
                case "--measured":
                    measured = PositiveInt(args, ref i, a);
                    break;
                case "--runs":
                    runs = PositiveInt(args, ref i, a);
                    break;
                case "--seconds":
                    string v = Value(args, ref i, a);
                    if (!double.TryParse(v, NumberStyles.Float, CultureInfo.InvariantCulture, out double sec) || !(sec >= 0) || sec > 3600)
                    {
                        throw new ArgumentException($"--seconds: '{v}' is not a number of seconds (0..3600)");
                    }
                    seconds = sec;
                    break;
                case "--pacing":
                    string pacing = Value(args, ref i, a);
                    if (pacing is not ("spin" or "wait")) throw new ArgumentException($"--pacing: '{pacing}' is not 'wait' (sleep, yield, spin: the default) or 'spin'");
                    o.SpinPacing = pacing == "spin";
                    break;
                case "--self-check":
                    o.SelfCheck = true;
                    break;
                case "--list":
                    o.List = true;
                    break;
                case "--help" or "-h":
                    o.Help = true;
                    break;
                case "--acceptor-only":
                    o.AcceptorOnlyRole = Value(args, ref i, a);
                    break;
                default:
                    throw new ArgumentException($"unknown argument '{a}'");
            }
        }
        if (o.Mode == "full")
        {
            o.WarmupCount = 100_000;
            o.WarmupMaxSeconds = 0;
            o.MeasuredCount = 1_000_000;
            o.MaxSecondsPerRun = 0;
            o.SendLagLimitSeconds = 5;
            o.Runs = 3;
        }
        if (warmup is int w)
        {
            o.WarmupCount = w;
            o.WarmupMaxSeconds = 0;
        }
        if (measured is int m)
        {
            o.MeasuredCount = m;
            o.MaxSecondsPerRun = 0;
        }
        if (seconds is double t) o.MaxSecondsPerRun = t;
        if (runs is int n) o.Runs = n;
        if (o.Configs.Count == 0) o.Configs.AddRange(RoundTripConfigurations.DefaultKeys);
        return o;
    }

    private static string Value(IReadOnlyList<string> args, ref int i, string name)
    {
        if (i + 1 >= args.Count) throw new ArgumentException($"{name} needs a value");
        return args[++i];
    }

    private static int PositiveInt(IReadOnlyList<string> args, ref int i, string name)
    {
        string v = Value(args, ref i, name);
        if (!int.TryParse(v, NumberStyles.None, CultureInfo.InvariantCulture, out int n) || n <= 0)
        {
            throw new ArgumentException($"{name}: '{v}' is not a positive integer");
        }
        return n;
    }
}
