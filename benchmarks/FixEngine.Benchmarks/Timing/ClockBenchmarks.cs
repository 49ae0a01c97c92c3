using System;
using System.Diagnostics;
using BenchmarkDotNet.Attributes;
using FixEngine.Timing;

namespace FixEngine.Benchmarks.Timing;

/// <summary>Cost of one clock read, measured over a loop of reads whose results are summed.</summary>
/// <remarks>
/// A loop rather than one read per benchmark call: a single read of <see cref="CachedClock.NowNs"/> is one load, far
/// below the cost of the benchmark method's own call and return, which a one-read benchmark would report instead. The
/// reads cannot be hoisted out of the loop (volatile loads, or calls into the runtime).
/// </remarks>
[MemoryDiagnoser]
public class ClockBenchmarks
{
    private const int Reads = 1000;

    private CachedClock _cached = null!;
    private EpochClock _epoch = null!;

    [GlobalSetup]
    public void Setup()
    {
        Console.WriteLine("// TscClock: " + TscClock.Description);
        _cached = new CachedClock();
        _epoch = new EpochClock();
    }

    [GlobalCleanup]
    public void Cleanup() => _cached.Dispose();

    [Benchmark(Baseline = true, OperationsPerInvoke = Reads)]
    public long DateTimeUtcNow()
    {
        long sum = 0;
        for (int i = 0; i < Reads; i++)
        {
            sum += DateTime.UtcNow.Ticks;
        }
        return sum;
    }

    [Benchmark(OperationsPerInvoke = Reads)]
    public long StopwatchGetTimestamp()
    {
        long sum = 0;
        for (int i = 0; i < Reads; i++)
        {
            sum += Stopwatch.GetTimestamp();
        }
        return sum;
    }

    /// <summary>The raw TSC (unordered RDTSC through the mapped stub), or Stopwatch where the TSC is not used.</summary>
    [Benchmark(OperationsPerInvoke = Reads)]
    public long TscClockGetTimestamp()
    {
        long sum = 0;
        for (int i = 0; i < Reads; i++)
        {
            sum += TscClock.GetTimestamp();
        }
        return sum;
    }

    /// <summary>Ordered TSC read plus the sequence-locked conversion to ns (cross-thread monotonic).</summary>
    [Benchmark(OperationsPerInvoke = Reads)]
    public long TscClockNowNs()
    {
        long sum = 0;
        for (int i = 0; i < Reads; i++)
        {
            sum += TscClock.NowNs();
        }
        return sum;
    }

    [Benchmark(OperationsPerInvoke = Reads)]
    public long HighResTimeNowNs()
    {
        long sum = 0;
        for (int i = 0; i < Reads; i++)
        {
            sum += HighResTime.NowNs();
        }
        return sum;
    }

    [Benchmark(OperationsPerInvoke = Reads)]
    public long EpochClockEpochNs()
    {
        long sum = 0;
        for (int i = 0; i < Reads; i++)
        {
            sum += _epoch.EpochNs;
        }
        return sum;
    }

    /// <summary>One re-anchor: the bracketed (monotonic, UtcNow) pair read, best of up to 8 tries, and the sequence-locked
    /// store (what a reader pays once a second).</summary>
    [Benchmark]
    public long EpochClockReanchor()
    {
        _epoch.Reanchor();
        return _epoch.EpochNs;
    }

    [Benchmark(OperationsPerInvoke = Reads)]
    public long CachedClockNowNs()
    {
        CachedClock clock = _cached;
        long sum = 0;
        for (int i = 0; i < Reads; i++)
        {
            sum += clock.NowNs;
        }
        return sum;
    }

    /// <summary>The same read through the <see cref="IClock"/> interface, as code holding an injected clock pays it.</summary>
    [Benchmark(OperationsPerInvoke = Reads)]
    public long CachedClockNowNsThroughIClock()
    {
        IClock clock = _cached;
        long sum = 0;
        for (int i = 0; i < Reads; i++)
        {
            sum += clock.NowNs;
        }
        return sum;
    }
}
