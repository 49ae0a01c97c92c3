using System;
using System.Collections.Generic;
using System.Threading;
using FixEngine.Diagnostics;

namespace FixEngine.Tests.Diagnostics;

/// <summary>The per-thread allocation ledger the round-trip harness reads: a thread's publication shows what it
/// allocated, under its name, and a thread that allocates nothing more shows no change.</summary>
public sealed class EngineThreadAllocationsTests
{
    private static object? s_sink;

    [Fact]
    public void APublishingThreadIsListedWithWhatItAllocated()
    {
        string name = "ledger-test-" + Guid.NewGuid().ToString("N");
        long first = -1, second = -1, third = -1;
        var thread = new Thread(() =>
        {
            EngineThreadAllocations.PublishNow(); // registers (allocates) before the measured part
            EngineThreadAllocations.PublishNow();
            first = Find(name);
            s_sink = new byte[10_000];
            EngineThreadAllocations.PublishNow();
            second = Find(name);
            EngineThreadAllocations.PublishNow();
            third = Find(name);
        }) { Name = name };
        thread.Start();
        Assert.True(thread.Join(TimeSpan.FromSeconds(30)));
        Assert.NotNull(s_sink);
        Assert.True(first > 0, $"the thread was not listed ({first})");
        // The array (10,000 bytes and its header) and nothing else between the two publications but Find's own list.
        Assert.InRange(second - first, 10_000, 12_000);
        Assert.True(third - second < 2_000, $"publishing without allocating moved the count by {third - second} B");
        Assert.True(EngineThreadAllocations.Total() >= second);
    }

    [Fact]
    public void PublishIsOffUnlessTheProcessAskedForIt()
    {
        // The test process does not set FIXENGINE_THREAD_ALLOCATIONS: the engine's threads do not publish.
        Assert.Equal(Environment.GetEnvironmentVariable("FIXENGINE_THREAD_ALLOCATIONS") == "1", EngineThreadAllocations.Enabled);
        long before = EngineThreadAllocations.Total();
        var thread = new Thread(EngineThreadAllocations.Publish);
        thread.Start();
        thread.Join();
        if (!EngineThreadAllocations.Enabled) Assert.Equal(before, EngineThreadAllocations.Total());
    }

    private static long Find(string name)
    {
        foreach ((string thread, long bytes) in EngineThreadAllocations.Snapshot())
        {
            if (thread.StartsWith(name, StringComparison.Ordinal)) return bytes;
        }
        return -1;
    }
}
