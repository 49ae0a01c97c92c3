using System;
using System.Diagnostics;
using BenchmarkDotNet.Attributes;
using FixEngine.Timing;

namespace FixEngine.Benchmarks.Timing;

/// <summary>Cost of one clock read.</summary>
[MemoryDiagnoser]
public class ClockBenchmarks
{
    private CachedClock _cached = null!;
    private EpochClock _epoch = null!;

    [GlobalSetup]
    public void Setup()
    {
        _cached = new CachedClock();
        _epoch = new EpochClock();
    }

    [GlobalCleanup]
    public void Cleanup() => _cached.Dispose();

    [Benchmark(Baseline = true)]
    public DateTime DateTimeUtcNow() => DateTime.UtcNow;

    [Benchmark]
    public long StopwatchGetTimestamp() => Stopwatch.GetTimestamp();

    [Benchmark]
    public long HighResTimeNowNs() => HighResTime.NowNs();

    [Benchmark]
    public long EpochClockEpochNs() => _epoch.EpochNs;

    [Benchmark]
    public long CachedClockNowNs() => _cached.NowNs;
}
