using System;
using System.Threading;
using FixEngine.Collections;
using FixEngine.Tests.Infrastructure;

namespace FixEngine.Tests.Collections;

public class SpscRingTests
{
    [Theory]
    [InlineData(0)]
    [InlineData(1)]
    [InlineData(3)]
    [InlineData(100)]
    public void RejectsCapacityThatIsNotAPowerOfTwo(int capacity) =>
        Assert.Throws<ArgumentOutOfRangeException>(() => new SpscRing<int>(capacity));

    [Fact]
    public void EmptyRingDequeuesNothing()
    {
        var ring = new SpscRing<int>(4);
        Assert.False(ring.TryDequeue(out int item));
        Assert.Equal(0, item);
        Assert.Equal(0, ring.Count);
    }

    [Fact]
    public void FullRingRejectsUntilOneIsRemoved()
    {
        var ring = new SpscRing<int>(4);
        for (int i = 0; i < 4; i++) Assert.True(ring.TryEnqueue(i));
        Assert.Equal(4, ring.Count);
        Assert.False(ring.TryEnqueue(99));
        Assert.True(ring.TryDequeue(out int first));
        Assert.Equal(0, first);
        Assert.True(ring.TryEnqueue(4));
        Assert.False(ring.TryEnqueue(5));
        for (int expected = 1; expected <= 4; expected++)
        {
            Assert.True(ring.TryDequeue(out int item));
            Assert.Equal(expected, item);
        }
        Assert.False(ring.TryDequeue(out _));
    }

    [Fact]
    public void WrapsAroundManyTimesInOrder()
    {
        var ring = new SpscRing<long>(8);
        long next = 0, expected = 0;
        for (int round = 0; round < 1000; round++)
        {
            int batch = round % 9;
            for (int i = 0; i < batch; i++) if (ring.TryEnqueue(next)) next++;
            for (int i = 0; i < round % 7; i++)
            {
                if (!ring.TryDequeue(out long item)) break;
                Assert.Equal(expected++, item);
            }
        }
        while (ring.TryDequeue(out long item)) Assert.Equal(expected++, item);
        Assert.Equal(next, expected);
    }

    [Fact]
    public void DequeueClearsReferenceSlots()
    {
        var ring = new SpscRing<object>(2);
        WeakReference weak = EnqueueAndDequeue(ring);
        GC.Collect();
        GC.WaitForPendingFinalizers();
        Assert.False(weak.IsAlive);
    }

    private static WeakReference EnqueueAndDequeue(SpscRing<object> ring)
    {
        var payload = new object();
        ring.TryEnqueue(payload);
        ring.TryDequeue(out _);
        return new WeakReference(payload);
    }

    [Fact]
    public void DrainHandsItemsInOrderUpToLimit()
    {
        var ring = new SpscRing<int>(16);
        for (int i = 0; i < 10; i++) ring.TryEnqueue(i);
        var handler = new SumHandler();
        Assert.Equal(4, ring.Drain(ref handler, 4));
        Assert.Equal(0 + 1 + 2 + 3, handler.Sum);
        Assert.Equal(3, handler.Last);
        Assert.Equal(6, ring.Drain(ref handler, 100));
        Assert.Equal(45, handler.Sum);
        Assert.Equal(0, ring.Drain(ref handler, 100));
        Assert.Equal(0, ring.Count);
    }

    [Fact]
    public void DrainAcrossTheArrayEndKeepsOrderAndFreesSpace()
    {
        var ring = new SpscRing<int>(8);
        for (int i = 0; i < 6; i++) Assert.True(ring.TryEnqueue(i));
        for (int i = 0; i < 6; i++) Assert.True(ring.TryDequeue(out _));
        // head = tail = 6: the next 8 items occupy slots 6, 7, 0, 1, ... 5.
        for (int i = 0; i < 8; i++) Assert.True(ring.TryEnqueue(100 + i));
        Assert.False(ring.TryEnqueue(-1));
        var handler = new SumHandler();
        Assert.Equal(0, ring.Drain(ref handler, 0));
        Assert.Equal(0, ring.Drain(ref handler, -5));
        Assert.Equal(8, ring.Count);
        Assert.Equal(3, ring.Drain(ref handler, 3));
        Assert.Equal(102, handler.Last);
        // The producer's cached head is stale (6); a full check must re-read it and find the 3 freed slots.
        for (int i = 0; i < 3; i++) Assert.True(ring.TryEnqueue(200 + i));
        Assert.False(ring.TryEnqueue(-1));
        var rest = new SumHandler();
        Assert.Equal(5, ring.Drain(ref rest, 5));
        Assert.Equal(103 + 104 + 105 + 106 + 107, rest.Sum);
        Assert.Equal(107, rest.Last);
        Assert.True(ring.TryDequeue(out int a));
        Assert.True(ring.TryDequeue(out int b));
        Assert.True(ring.TryDequeue(out int c));
        Assert.Equal((200, 201, 202), (a, b, c));
        Assert.False(ring.TryDequeue(out _));
        Assert.Equal(0, ring.Drain(ref handler, 10));
    }

    [Fact]
    public void SmallestRingAlternatesFullAndEmpty()
    {
        var ring = new SpscRing<long>(2);
        for (long i = 0; i < 1000; i += 2)
        {
            Assert.True(ring.TryEnqueue(i));
            Assert.True(ring.TryEnqueue(i + 1));
            Assert.False(ring.TryEnqueue(-1));
            Assert.Equal(2, ring.Count);
            Assert.True(ring.TryDequeue(out long x));
            Assert.True(ring.TryDequeue(out long y));
            Assert.False(ring.TryDequeue(out _));
            Assert.Equal((i, i + 1), (x, y));
        }
    }

    [Fact]
    public void EnqueueDequeueAndDrainAllocateNothing()
    {
        var ring = new SpscRing<string>(64);
        string item = "x";
        var handler = new CountHandler();
        long bytes = Allocations.Measure(() =>
        {
            ring.TryEnqueue(item);
            ring.TryEnqueue(item);
            ring.TryDequeue(out _);
            ring.Drain(ref handler, 10);
        });
        Assert.Equal(0, bytes);
    }

    [Theory]
    [InlineData(2, 1)]
    [InlineData(16, 1)]
    [InlineData(64, 4)]
    [InlineData(1024, 64)]
    [InlineData(1 << 20, 64)]
    public void ReleaseBatchIsASixteenthOfTheCapacityFromOneTo64(int capacity, int batch) =>
        Assert.Equal(batch, new SpscRing<int>(capacity).ReleaseBatch);

    [Fact]
    public void ConsumedSlotsReturnToTheProducerPerBatchAndWhenTheRingRunsDry()
    {
        var ring = new SpscRing<int>(64); // ReleaseBatch 4
        for (int i = 0; i < 64; i++) Assert.True(ring.TryEnqueue(i));
        for (int i = 0; i < 3; i++)
        {
            Assert.True(ring.TryDequeue(out int item));
            Assert.Equal(i, item);
        }
        Assert.Equal(61, ring.Count); // Count sees the consumer's own position
        Assert.False(ring.TryEnqueue(-1)); // three read, none handed back yet
        Assert.True(ring.TryDequeue(out int fourth));
        Assert.Equal(3, fourth);
        for (int i = 0; i < 4; i++) Assert.True(ring.TryEnqueue(64 + i)); // the batch of four is free
        Assert.False(ring.TryEnqueue(-1));
        // Read five (one batch plus one), then run dry: the empty check hands back the rest.
        int expected = 4;
        while (ring.TryDequeue(out int item)) Assert.Equal(expected++, item);
        Assert.Equal(68, expected);
        for (int i = 0; i < 64; i++) Assert.True(ring.TryEnqueue(i));
        Assert.False(ring.TryEnqueue(-1));
        Assert.Equal(64, ring.Count);
    }

    [Fact]
    public void ConsumerThatKeepsFindingFewItemsStillGetsEveryItemAtOnce()
    {
        // Each refresh finds fewer than ReleaseBatch items, so the consumer backs off before its next refresh; the back-off
        // may only delay that refresh, never hide an item already published (no false "empty").
        var ring = new SpscRing<long>(1024); // ReleaseBatch 64
        long next = 0, expected = 0;
        for (int round = 0; round < 2000; round++)
        {
            int burst = 1 + round % 5;
            for (int i = 0; i < burst; i++) Assert.True(ring.TryEnqueue(next++));
            for (int i = 0; i < burst; i++)
            {
                Assert.True(ring.TryDequeue(out long item));
                Assert.Equal(expected++, item);
            }
            if (round % 3 == 0) Assert.False(ring.TryDequeue(out _)); // runs dry now and then: the back-off resets
        }
        var handler = new OrderHandler { Expected = expected };
        for (int i = 0; i < 3; i++) Assert.True(ring.TryEnqueue(next++));
        Assert.Equal(3, ring.Drain(ref handler, 100));
        Assert.Equal(0, handler.Errors);
        Assert.Equal(next, handler.Expected);
        Assert.Equal(0, ring.Count);
    }

    [Theory]
    [InlineData(1024)]
    [InlineData(64)]
    public void TwoMillionItemsDequeuedOneByOneCrossThreadsInOrder(int capacity)
    {
        // Thousands of full and empty turns of the ring between two threads. Not more: beside a CPU hog every full or
        // empty ring costs the spinning thread a scheduler slice, and ten million items took minutes there (issue 34).
        const long Total = 2_000_000;
        var ring = new SpscRing<long>(capacity);
        long received = 0;
        long errors = 0;
        var consumer = new Thread(() =>
        {
            var spin = new SpinWait();
            long expected = 0;
            long wrong = 0;
            while (expected < Total)
            {
                if (ring.TryDequeue(out long item))
                {
                    if (item != expected) wrong++;
                    expected++;
                    spin.Reset();
                }
                else
                {
                    spin.SpinOnce(sleep1Threshold: -1);
                }
            }
            received = expected;
            errors = wrong;
        }) { IsBackground = true, Name = "spsc-consumer" };
        var producer = new Thread(() =>
        {
            var spin = new SpinWait();
            for (long i = 0; i < Total; i++)
            {
                while (!ring.TryEnqueue(i)) spin.SpinOnce(sleep1Threshold: -1);
                spin.Reset();
            }
        }) { IsBackground = true, Name = "spsc-producer" };
        consumer.Start();
        producer.Start();
        // A hang detector, not a speed check: seconds on an idle machine, well under this beside a CPU hog.
        Assert.True(producer.Join(TimeSpan.FromMinutes(5)), "producer did not finish within 5 minutes (hung)");
        Assert.True(consumer.Join(TimeSpan.FromMinutes(5)), "consumer did not finish within 5 minutes (hung)");
        Assert.Equal(0, errors);
        Assert.Equal(Total, received);
        Assert.Equal(0, ring.Count);
        Assert.False(ring.TryDequeue(out _));
    }

    [Fact]
    public void TwoMillionItemsCrossThreadsCompleteAndInOrder()
    {
        // Thousands of full and empty turns of the ring between two threads. Not more: beside a CPU hog every full or
        // empty ring costs the spinning thread a scheduler slice, and ten million items took minutes there (issue 34).
        const long Total = 2_000_000;
        var ring = new SpscRing<long>(1024);
        long received = 0;
        long errors = 0;
        var consumer = new Thread(() =>
        {
            var spin = new SpinWait();
            long expected = 0;
            var handler = new OrderHandler();
            while (expected < Total)
            {
                handler.Expected = expected;
                int n = ring.Drain(ref handler, 256);
                expected = handler.Expected;
                if (n == 0) spin.SpinOnce(sleep1Threshold: -1); else spin.Reset();
            }
            received = expected;
            errors = handler.Errors;
        }) { IsBackground = true, Name = "spsc-consumer" };
        var producer = new Thread(() =>
        {
            var spin = new SpinWait();
            for (long i = 0; i < Total; i++)
            {
                while (!ring.TryEnqueue(i)) spin.SpinOnce(sleep1Threshold: -1);
            }
        }) { IsBackground = true, Name = "spsc-producer" };
        consumer.Start();
        producer.Start();
        // A hang detector, not a speed check: seconds on an idle machine, well under this beside a CPU hog.
        Assert.True(producer.Join(TimeSpan.FromMinutes(5)), "producer did not finish within 5 minutes (hung)");
        Assert.True(consumer.Join(TimeSpan.FromMinutes(5)), "consumer did not finish within 5 minutes (hung)");
        Assert.Equal(0, errors);
        Assert.Equal(Total, received);
        Assert.Equal(0, ring.Count);
    }

    private struct SumHandler : IRingHandler<int>
    {
        public int Sum;
        public int Last;

        public void OnItem(in int item)
        {
            Sum += item;
            Last = item;
        }
    }

    private struct CountHandler : IRingHandler<string>
    {
        public int Count;

        public void OnItem(in string item) => Count++;
    }

    private struct OrderHandler : IRingHandler<long>
    {
        public long Expected;
        public long Errors;

        public void OnItem(in long item)
        {
            if (item != Expected) Errors++;
            Expected++;
        }
    }
}
