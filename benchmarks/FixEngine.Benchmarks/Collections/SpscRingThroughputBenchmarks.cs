using System.Collections.Concurrent;
using System.Threading;
using System.Threading.Channels;
using BenchmarkDotNet.Attributes;
using FixEngine.Collections;

namespace FixEngine.Benchmarks.Collections;

/// <summary>
/// Two-thread throughput: a background producer pushes N longs, the benchmark thread consumes them (Channel and SpscRing
/// bounded at <see cref="Capacity"/>, ConcurrentQueue unbounded as it is normally used).
/// </summary>
/// <remarks>
/// <para>Same item count, same dedicated producer thread and the same wait on every side that finds nothing to do: a
/// <see cref="SpinWait"/> that spins, then yields, never sleeps (reset after progress). Pure spinning (Thread.SpinWait)
/// measures the OS scheduler instead of the queue when the two threads do not have a core each: a spinning side then
/// burns its whole time slice while the other side waits to run.</para>
/// <para>ConcurrentQueue cannot be bounded without adding work to it, so the bounded queues also run with a capacity above
/// the item count (no back-pressure on either side, like the unbounded queue) next to the usual 4096.</para>
/// <para>Fairness of the baseline: a fresh ConcurrentQueue starts with a 32-slot segment and allocates larger ones (on
/// the producer thread, which MemoryDiagnoser does not see) whenever the producer gets ahead; how far it has grown
/// depends on the run's history, and made the baseline swing between about 16 and 50 ns per item. Setup grows it
/// once to its largest segment, the allocation-free steady state a long-running process reaches, so every run
/// measures the same queue (the fast end of that range: a harder baseline for the rings).</para>
/// <para>What the per-item SpscRing numbers depend on: when TryDequeue returned every slot to the producer per item, a
/// consumer that caught up chased the producer item by item (the two cores trading the tail and slot lines, 8-18 ns
/// per item in a scratch harness with the consumer finding the ring empty thousands of times per million items).
/// Releasing slots per ReleaseBatch (64 here) keeps the producer writing whole cache lines ahead of the consumer:
/// 3-5.5 ns per item in the same harness, where it rarely runs dry.</para>
/// <para>That only helped while the producer stayed ahead. Per-item TryDequeue stayed bimodal: once the consumer caught
/// up (every run starts with an empty ring), each tail refresh found a handful of items, and pulling the producer's tail
/// and slot lines every few items slowed the producer to the consumer's pace, so the chase never ended (scratch harness,
/// capacity 4096: 80,000-210,000 refreshes per million items at 8-13 items each, 17-47 ns per item, against a few hundred
/// refreshes and 2.5-5 ns in the good mode). The chase back-off (SpscRing design notes: a spin of 1, then 3 iterations
/// before the refresh that follows a small one) lets the producer fill whole lines meanwhile. BDN, this class, 15
/// iterations (SpscRing ns per item, mean / median, ratio to ConcurrentQueue): capacity 4096 before 6.9 / 4.6 (0.44),
/// 5.4 / 5.3 (0.33), after 3.9 / 3.7 (0.25), 3.4 / 3.3 (0.18), 3.2 / 3.1 (0.20); capacity 2^20 before 9.2 / 7.1
/// (0.55), 9.9 / 10.1 (0.60), after 5.6 / 5.5 (0.31), 4.1 / 4.0 (0.25), 3.1 / 3.0 (0.20).</para>
/// </remarks>
[MemoryDiagnoser]
public class SpscRingThroughputBenchmarks
{
    private const int Items = 1_000_000;

    private ConcurrentQueue<long> _queue = null!;
    private Channel<long> _channel = null!;
    private SpscRing<long> _ring = null!;
    private BackgroundWorker _queueProducer = null!;
    private BackgroundWorker _channelProducer = null!;
    private BackgroundWorker _ringProducer = null!;

    /// <summary>Slots in the bounded queues: 4096, or 2^20 (above <see cref="Items"/>: the producer never waits).</summary>
    [Params(4096, 1 << 20)]
    public int Capacity { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        _queue = new ConcurrentQueue<long>();
        // Grow to the largest segment now (see remarks): Items items enqueued at once, then drained; the queue keeps its
        // last, largest segment and never allocates again in the runs below.
        for (long i = 0; i < Items; i++) _queue.Enqueue(i);
        while (_queue.TryDequeue(out _))
        {
        }
        _channel = System.Threading.Channels.Channel.CreateBounded<long>(new BoundedChannelOptions(Capacity) { SingleReader = true, SingleWriter = true });
        _ring = new SpscRing<long>(Capacity);
        _queueProducer = new BackgroundWorker("queue-producer", () =>
        {
            // Unbounded, as ConcurrentQueue is normally used (bounding it through Count costs more than the
            // enqueue); the consumer keeps up, so its segments are reused.
            for (long i = 0; i < Items; i++) _queue.Enqueue(i);
        });
        _channelProducer = new BackgroundWorker("channel-producer", () =>
        {
            ChannelWriter<long> writer = _channel.Writer;
            var spin = new SpinWait();
            for (long i = 0; i < Items; i++)
            {
                while (!writer.TryWrite(i)) spin.SpinOnce(sleep1Threshold: -1);
                spin.Reset();
            }
        });
        _ringProducer = new BackgroundWorker("ring-producer", () =>
        {
            var spin = new SpinWait();
            for (long i = 0; i < Items; i++)
            {
                while (!_ring.TryEnqueue(i)) spin.SpinOnce(sleep1Threshold: -1);
                spin.Reset();
            }
        });
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _queueProducer.Dispose();
        _channelProducer.Dispose();
        _ringProducer.Dispose();
    }

    [Benchmark(Baseline = true, OperationsPerInvoke = Items)]
    public long ConcurrentQueue()
    {
        _queueProducer.Start();
        long sum = 0;
        var spin = new SpinWait();
        for (int received = 0; received < Items;)
        {
            if (_queue.TryDequeue(out long item)) { sum += item; received++; spin.Reset(); }
            else spin.SpinOnce(sleep1Threshold: -1);
        }
        _queueProducer.WaitDone();
        return sum;
    }

    [Benchmark(OperationsPerInvoke = Items)]
    public long Channel()
    {
        _channelProducer.Start();
        ChannelReader<long> reader = _channel.Reader;
        long sum = 0;
        var spin = new SpinWait();
        for (int received = 0; received < Items;)
        {
            if (reader.TryRead(out long item)) { sum += item; received++; spin.Reset(); }
            else spin.SpinOnce(sleep1Threshold: -1);
        }
        _channelProducer.WaitDone();
        return sum;
    }

    [Benchmark(OperationsPerInvoke = Items)]
    public long SpscRing()
    {
        _ringProducer.Start();
        long sum = 0;
        var spin = new SpinWait();
        for (int received = 0; received < Items;)
        {
            if (_ring.TryDequeue(out long item)) { sum += item; received++; spin.Reset(); }
            else spin.SpinOnce(sleep1Threshold: -1);
        }
        _ringProducer.WaitDone();
        return sum;
    }

    [Benchmark(OperationsPerInvoke = Items)]
    public long SpscRingDrain()
    {
        _ringProducer.Start();
        var handler = new SumHandler();
        var spin = new SpinWait();
        for (int received = 0; received < Items;)
        {
            int n = _ring.Drain(ref handler, 256);
            if (n == 0) spin.SpinOnce(sleep1Threshold: -1);
            else spin.Reset();
            received += n;
        }
        _ringProducer.WaitDone();
        return handler.Sum;
    }

    private struct SumHandler : IRingHandler<long>
    {
        public long Sum;

        public void OnItem(in long item) => Sum += item;
    }
}
