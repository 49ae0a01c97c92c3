using System;
using System.IO;
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
        config = FromRepository(config);
        BenchmarkSwitcher.FromAssembly(typeof(Program).Assembly).Run(args, config);
        return 0;
    }

    // BenchmarkDotNet builds each benchmark's host from this project's csproj, which it looks for under the solution
    // folder found by walking up from the working directory; started from anywhere else it stopped with "Unable to find
    // FixEngine.Benchmarks". The built dll sits inside the repository, so work from there and keep the reports where
    // the user started.
    private static IConfig FromRepository(IConfig config)
    {
        string started = Directory.GetCurrentDirectory();
        if (HasSolutionAbove(started) || !HasSolutionAbove(AppContext.BaseDirectory)) return config;
        Directory.SetCurrentDirectory(AppContext.BaseDirectory);
        return config.WithArtifactsPath(Path.Combine(started, "BenchmarkDotNet.Artifacts"));
    }

    private static bool HasSolutionAbove(string directory)
    {
        for (DirectoryInfo? d = new(directory); d is not null; d = d.Parent)
        {
            if (File.Exists(Path.Combine(d.FullName, "FixEngine.sln"))) return true;
        }
        return false;
    }
}
