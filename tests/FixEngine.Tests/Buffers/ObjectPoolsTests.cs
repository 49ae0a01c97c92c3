using System;
using System.Collections.Generic;
using FixEngine.Buffers;
using FixEngine.Tests.Infrastructure;
using Microsoft.Extensions.ObjectPool;

namespace FixEngine.Tests.Buffers;

public class ObjectPoolsTests
{
    private sealed class Resource
    {
        public int Uses;
        public bool Broken;
    }

    [Fact]
    public void ReturnedObjectsAreResetAndReused()
    {
        int created = 0;
        ObjectPool<Resource> pool = ObjectPools.Create(() => { created++; return new Resource(); }, r => { r.Uses = 0; return true; });
        Resource a = pool.Get();
        a.Uses = 5;
        pool.Return(a);
        Resource b = pool.Get();
        Assert.Same(a, b);
        Assert.Equal(0, b.Uses);
        Assert.Equal(1, created);
    }

    [Fact]
    public void ResetReturningFalseDiscardsObject()
    {
        ObjectPool<Resource> pool = ObjectPools.Create(() => new Resource(), r => !r.Broken);
        Resource a = pool.Get();
        a.Broken = true;
        pool.Return(a);
        Assert.NotSame(a, pool.Get());
    }

    [Fact]
    public void PoolIsBounded()
    {
        ObjectPool<Resource> pool = ObjectPools.Create(() => new Resource(), maximumRetained: 2);
        var items = new List<Resource>();
        for (int i = 0; i < 5; i++) items.Add(pool.Get());
        foreach (Resource r in items) pool.Return(r);
        var again = new HashSet<Resource>(ReferenceEqualityComparer.Instance);
        for (int i = 0; i < 5; i++) again.Add(pool.Get());
        int reused = 0;
        foreach (Resource r in items) if (again.Contains(r)) reused++;
        Assert.True(reused <= 3, $"reused {reused}"); // maximumRetained plus the fast slot at most
        Assert.Throws<ArgumentOutOfRangeException>(() => ObjectPools.Create(() => new Resource(), maximumRetained: 0));
    }

    [Fact]
    public void GetReturnAllocatesNothingInSteadyState()
    {
        ObjectPool<Resource> pool = ObjectPools.Create(() => new Resource(), r => { r.Uses = 0; return true; });
        long bytes = Allocations.Measure(() =>
        {
            Resource a = pool.Get();
            Resource b = pool.Get();
            pool.Return(a);
            pool.Return(b);
        });
        Assert.Equal(0, bytes);
    }
}
