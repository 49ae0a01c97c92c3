using System;

namespace FixEngine.Tests.Infrastructure;

/// <summary>Measures bytes allocated on the current thread by an action run many times after a warm-up.</summary>
public static class Allocations
{
    public static long Measure(Action action, int warmup = 1_000, int iterations = 10_000)
    {
        for (int i = 0; i < warmup; i++) action();
        long before = GC.GetAllocatedBytesForCurrentThread();
        for (int i = 0; i < iterations; i++) action();
        return GC.GetAllocatedBytesForCurrentThread() - before;
    }
}
