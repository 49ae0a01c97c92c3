using BenchmarkDotNet.Attributes;
using FixEngine.Buffers;

namespace FixEngine.Benchmarks.Buffers;

/// <summary>A 4 KiB scratch buffer: PooledBuffer rental vs a fresh array.</summary>
[MemoryDiagnoser]
public class PooledBufferBenchmarks
{
    private readonly RefCountedBufferPool _refCounted = new();

    [Benchmark(Baseline = true)]
    public byte NewArray()
    {
        byte[] buffer = new byte[4096];
        buffer[100] = 1;
        return buffer[100];
    }

    [Benchmark]
    public byte PooledBufferRent()
    {
        using var buffer = PooledBuffer.Rent(4096);
        buffer.Span[100] = 1;
        return buffer.Span[100];
    }

    [Benchmark]
    public int RefCountedShareWithThree()
    {
        RefCountedBuffer buffer = _refCounted.Rent(4096);
        buffer.SetLength(100);
        buffer.AddRef();
        buffer.AddRef();
        int length = buffer.Length;
        buffer.Release();
        buffer.Release();
        buffer.Release();
        return length;
    }
}
