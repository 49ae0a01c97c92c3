using System;
using System.Numerics;
using BenchmarkDotNet.Attributes;
using FixEngine.Diagnostics;
using HdrHistogram;

namespace FixEngine.Benchmarks.Diagnostics;

/// <summary>Cost of recording one latency: the HdrHistogram package's <see cref="LongHistogram"/> (what the harnesses
/// record into) and the runtime's own HDR-style <see cref="LatencyHistogram"/>, against a bare power-of-two bucket
/// count (BitOperations.Log2 + array increment, the cheapest possible log histogram).</summary>
[MemoryDiagnoser]
public class LatencyHistogramBenchmarks
{
    private const int Operations = 4096;
    private readonly long[] _values = new long[Operations];
    private readonly long[] _log2Counts = new long[64];
    private readonly LatencyHistogram _histogram = new(3_600_000_000_000L, 3);
    private readonly LongHistogram _hdrHistogram = new(1, 3_600_000_000_000L, 3);

    [GlobalSetup]
    public void Setup()
    {
        var random = new Random(42);
        // Latency-shaped: mostly 5-50 us with a long tail to tens of milliseconds.
        for (int i = 0; i < Operations; i++) _values[i] = (long)(5_000 * Math.Exp(random.NextDouble() * 9));
    }

    [Benchmark(Baseline = true, OperationsPerInvoke = Operations)]
    public void Log2BucketIncrement()
    {
        long[] counts = _log2Counts;
        foreach (long value in _values) counts[BitOperations.Log2((ulong)value)]++;
    }

    [Benchmark(OperationsPerInvoke = Operations)]
    public void RecordValue()
    {
        LatencyHistogram histogram = _histogram;
        foreach (long value in _values) histogram.RecordValue(value);
    }

    [Benchmark(OperationsPerInvoke = Operations)]
    public void HdrHistogramRecordValue()
    {
        LongHistogram histogram = _hdrHistogram;
        foreach (long value in _values) histogram.RecordValue(value);
    }
}
