using BenchmarkDotNet.Running;
using FixEngine.Benchmarks.Transport;

namespace FixEngine.Benchmarks;

/// <summary>Single entry point for every BenchmarkDotNet suite and the latency harnesses.</summary>
public static class Program
{
    public static int Main(string[] args)
    {
        // Latency harnesses (HDR-style histograms, not BenchmarkDotNet means) are dispatched by name first.
        if (args.Length > 0 && args[0] == "transport-pingpong")
        {
            return TransportPingPong.Run(args);
        }
        if (args.Length > 0 && args[0] == "roundtrip") return RoundTrip.RoundTripCommand.Run(args[1..]);
        BenchmarkSwitcher.FromAssembly(typeof(Program).Assembly).Run(args);
        return 0;
    }
}
