using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Running;
using FixEngine.Benchmarks.Transport;

namespace FixEngine.Benchmarks;

/// <summary>Single entry point for every BenchmarkDotNet suite and the latency harnesses.</summary>
public static class Program
{
    public static int Main(string[] args)
    {
        // FIXENGINE_THREAD_ALLOCATIONS=1: the engine threads of this process publish what they allocate (WindowProbe).
        RoundTrip.EngineThreadAllocations.InstallIfEnabled();
        // Latency harnesses (HDR-style histograms, not BenchmarkDotNet means) are dispatched by name first.
        if (args.Length > 0 && args[0] == "transport-pingpong")
        {
            return TransportPingPong.Run(args);
        }
        if (args.Length > 0 && args[0] == "store") return Store.LongHistoryCommand.Run(args[1..]);
        if (args.Length > 0 && args[0] == "roundtrip") return RoundTrip.RoundTripCommand.Run(args[1..]);
        if (args.Length > 0 && args[0] == "scale") return Scale.ScaleCommand.Run(args[1..]);
        if (args.Length > 0 && args[0] == "standby-takeover") return Takeover.StandbyTakeoverCommand.Run(args[1..]);
        // The CI/dev machines are shared VMs whose speed flips between two levels (a plain CPU loop measured
        // 14 ms in one minute and 31 ms in the next): Min and Median are reported beside the Mean so a
        // reader can see which phase a run caught.
        IConfig config = DefaultConfig.Instance.AddColumn(StatisticColumn.Min, StatisticColumn.Median);
        BenchmarkSwitcher.FromAssembly(typeof(Program).Assembly).Run(args, config);
        return 0;
    }
}
