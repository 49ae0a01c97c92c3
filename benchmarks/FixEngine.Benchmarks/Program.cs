using BenchmarkDotNet.Running;

namespace FixEngine.Benchmarks;

/// <summary>Single entry point for every BenchmarkDotNet suite (and, later, the round-trip harness).</summary>
public static class Program
{
    public static void Main(string[] args)
    {
        if (args.Length > 0 && args[0] == "roundtrip") { System.Environment.ExitCode = RoundTrip.RoundTripCommand.Run(args[1..]); return; }
        BenchmarkSwitcher.FromAssembly(typeof(Program).Assembly).Run(args);
    }
}
