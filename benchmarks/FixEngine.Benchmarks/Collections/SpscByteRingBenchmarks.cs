using System;
using System.Collections.Concurrent;
using BenchmarkDotNet.Attributes;
using FixEngine.Collections;

namespace FixEngine.Benchmarks.Collections;

/// <summary>Single-thread cost of passing one 64-byte record: byte ring claim/commit/read in place vs copying into a new array queued.</summary>
[MemoryDiagnoser]
public class SpscByteRingBenchmarks
{
    private const int Batch = 1000;
    private readonly byte[] _record = new byte[64];
    private SpscByteRing _ring = null!;
    private ConcurrentQueue<byte[]> _queue = null!;

    [GlobalSetup]
    public void Setup()
    {
        _ring = new SpscByteRing(1 << 20);
        _queue = new ConcurrentQueue<byte[]>();
        _record.AsSpan().Fill(7);
    }

    [Benchmark(Baseline = true, OperationsPerInvoke = Batch)]
    public int QueueOfCopiedArrays()
    {
        for (int i = 0; i < Batch; i++) _queue.Enqueue(_record.AsSpan().ToArray());
        int total = 0;
        while (_queue.TryDequeue(out byte[]? a)) total += a[0];
        return total;
    }

    [Benchmark(OperationsPerInvoke = Batch)]
    public int ByteRing()
    {
        for (int i = 0; i < Batch; i++)
        {
            _ring.TryClaim(_record.Length, out Span<byte> span);
            _record.CopyTo(span);
            _ring.Commit();
        }
        var handler = new SumHandler();
        _ring.Read(ref handler, int.MaxValue);
        return handler.Sum;
    }

    private struct SumHandler : IByteRecordHandler
    {
        public int Sum;

        public void OnRecord(ReadOnlySpan<byte> record) => Sum += record[0];
    }
}
