using System;
using System.Collections.Generic;
using FixEngine.Collections;
using FixEngine.Tests.Infrastructure;

namespace FixEngine.Tests.Collections;

public class SlabPoolTests
{
    private struct Order
    {
        public long Id;
        public double Price;
    }

    [Fact]
    public void RentReturnsClearedSlotAndIndexerSeesWrites()
    {
        var pool = new SlabPool<Order>(chunkShift: 2);
        ref Order order = ref pool.Rent(out int id);
        order.Id = 7;
        order.Price = 1.5;
        Assert.Equal(7, pool[id].Id);
        pool.Return(id);
        ref Order again = ref pool.Rent(out int id2);
        Assert.Equal(id, id2); // free list reuses the slot
        Assert.Equal(0, again.Id);
    }

    [Fact]
    public void RefsStayValidWhileChunksAreAdded()
    {
        var pool = new SlabPool<Order>(chunkShift: 1);
        ref Order first = ref pool.Rent(out int firstId);
        first.Id = 42;
        for (int i = 0; i < 100; i++) pool.Rent(out _).Id = i;
        Assert.Equal(42, first.Id);
        first.Id = 43;
        Assert.Equal(43, pool[firstId].Id);
        Assert.Equal(101, pool.Count);
        Assert.True(pool.Capacity >= 101);
    }

    [Fact]
    public void DoubleReturnAndStaleAccessAreDetected()
    {
        var pool = new SlabPool<Order>();
        pool.Rent(out int id);
        pool.Return(id);
        var ex = Assert.Throws<InvalidOperationException>(() => pool.Return(id));
        Assert.Contains(id.ToString(), ex.Message);
        Assert.Throws<InvalidOperationException>(() => pool[id].Id);
        Assert.Throws<ArgumentOutOfRangeException>(() => pool.Return(12345));
        Assert.False(pool.IsLive(id));
    }

    [Fact]
    public void LiveIdsTrackRentsAndReturns()
    {
        var pool = new SlabPool<Order>(chunkShift: 3);
        var live = new HashSet<int>();
        var rng = new Random(1);
        for (int step = 0; step < 5_000; step++)
        {
            if (live.Count == 0 || rng.Next(3) != 0)
            {
                pool.Rent(out int id).Id = id;
                Assert.True(live.Add(id));
            }
            else
            {
                int victim = pool.LiveIds[rng.Next(pool.Count)];
                pool.Return(victim);
                live.Remove(victim);
            }
            Assert.Equal(live.Count, pool.Count);
        }
        var seen = new HashSet<int>();
        foreach (int id in pool.LiveIds)
        {
            Assert.True(seen.Add(id));
            Assert.Equal(id, pool[id].Id);
        }
        Assert.True(live.SetEquals(seen));
    }

    [Fact]
    public void ReturningWhileWalkingBackwardsVisitsEverySlot()
    {
        var pool = new SlabPool<Order>();
        for (int i = 0; i < 50; i++) pool.Rent(out _);
        int visited = 0;
        for (int i = pool.LiveIds.Length - 1; i >= 0; i--)
        {
            pool.Return(pool.LiveIds[i]);
            visited++;
        }
        Assert.Equal(50, visited);
        Assert.Equal(0, pool.Count);
    }

    [Fact]
    public void SteadyStateRentReturnAllocatesNothing()
    {
        var pool = new SlabPool<Order>(initialCapacity: 64);
        long bytes = Allocations.Measure(() =>
        {
            pool.Rent(out int a).Price = 1;
            pool.Rent(out int b).Price = 2;
            pool[a].Id = 5;
            pool.Return(a);
            pool.Return(b);
        });
        Assert.Equal(0, bytes);
    }
}
