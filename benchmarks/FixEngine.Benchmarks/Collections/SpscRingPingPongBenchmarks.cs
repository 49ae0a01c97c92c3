using System.Collections.Concurrent;
using System.Threading;
using System.Threading.Channels;
using BenchmarkDotNet.Attributes;
using FixEngine.Collections;

namespace FixEngine.Benchmarks.Collections;

/// <summary>Round trip: the benchmark thread sends a value, a background thread echoes it back; both busy-poll.</summary>
/// <remarks>
/// Pure spinning (no yield), as a latency measurement should: a yield is a system call longer than the round trip. That
/// makes the result meaningful only with a free core per thread; on a loaded machine it measures time slices. Unlike
/// <see cref="SpscRingThroughputBenchmarks"/> (which spins then yields), a ring's cached positions have nothing to
/// amortise here: every item is a cross-core hand-off each way.
/// </remarks>
[MemoryDiagnoser]
public class SpscRingPingPongBenchmarks
{
    private const int RoundTrips = 100_000;

    private ConcurrentQueue<long> _queuePing = null!, _queuePong = null!;
    private Channel<long> _channelPing = null!, _channelPong = null!;
    private SpscRing<long> _ringPing = null!, _ringPong = null!;
    private BackgroundWorker _queueEcho = null!, _channelEcho = null!, _ringEcho = null!;

    [GlobalSetup]
    public void Setup()
    {
        _queuePing = new(); _queuePong = new();
        var options = new BoundedChannelOptions(64) { SingleReader = true, SingleWriter = true };
        _channelPing = System.Threading.Channels.Channel.CreateBounded<long>(options); _channelPong = System.Threading.Channels.Channel.CreateBounded<long>(options);
        _ringPing = new SpscRing<long>(64); _ringPong = new SpscRing<long>(64);
        _queueEcho = new BackgroundWorker("queue-echo", () =>
        {
            for (int i = 0; i < RoundTrips; i++)
            {
                long v;
                while (!_queuePing.TryDequeue(out v)) Thread.SpinWait(1);
                _queuePong.Enqueue(v);
            }
        });
        _channelEcho = new BackgroundWorker("channel-echo", () =>
        {
            for (int i = 0; i < RoundTrips; i++)
            {
                long v;
                while (!_channelPing.Reader.TryRead(out v)) Thread.SpinWait(1);
                _channelPong.Writer.TryWrite(v);
            }
        });
        _ringEcho = new BackgroundWorker("ring-echo", () =>
        {
            for (int i = 0; i < RoundTrips; i++)
            {
                long v;
                while (!_ringPing.TryDequeue(out v)) Thread.SpinWait(1);
                _ringPong.TryEnqueue(v);
            }
        });
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _queueEcho.Dispose();
        _channelEcho.Dispose();
        _ringEcho.Dispose();
    }

    [Benchmark(Baseline = true, OperationsPerInvoke = RoundTrips)]
    public long ConcurrentQueue()
    {
        _queueEcho.Start();
        long sum = 0;
        for (int i = 0; i < RoundTrips; i++)
        {
            _queuePing.Enqueue(i);
            long v;
            while (!_queuePong.TryDequeue(out v)) Thread.SpinWait(1);
            sum += v;
        }
        _queueEcho.WaitDone();
        return sum;
    }

    [Benchmark(OperationsPerInvoke = RoundTrips)]
    public long Channel()
    {
        _channelEcho.Start();
        long sum = 0;
        for (int i = 0; i < RoundTrips; i++)
        {
            _channelPing.Writer.TryWrite(i);
            long v;
            while (!_channelPong.Reader.TryRead(out v)) Thread.SpinWait(1);
            sum += v;
        }
        _channelEcho.WaitDone();
        return sum;
    }

    [Benchmark(OperationsPerInvoke = RoundTrips)]
    public long SpscRing()
    {
        _ringEcho.Start();
        long sum = 0;
        for (int i = 0; i < RoundTrips; i++)
        {
            _ringPing.TryEnqueue(i);
            long v;
            while (!_ringPong.TryDequeue(out v)) Thread.SpinWait(1);
            sum += v;
        }
        _ringEcho.WaitDone();
        return sum;
    }
}
