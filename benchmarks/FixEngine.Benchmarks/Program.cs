using BenchmarkDotNet.Running;

namespace FixEngine.Benchmarks;

/// <summary>Single entry point for every BenchmarkDotNet suite (and, later, the round-trip harness).</summary>
public static class Program
{
    public static void Main(string[] args) => BenchmarkSwitcher.FromAssembly(typeof(Program).Assembly).Run(args);
}
