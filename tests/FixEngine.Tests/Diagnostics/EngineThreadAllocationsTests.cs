using System;
using System.Collections.Generic;
using System.Threading;
using FixEngine.Diagnostics;

namespace FixEngine.Tests.Diagnostics;

/// <summary>The per-thread allocation ledger the round-trip harness reads: a thread's publication shows what it
/// allocated, under its name; publishing allocates nothing once the thread is registered; off by default.</summary>
public sealed class EngineThreadAllocationsTests
{
    private static object? s_sink;

    [Fact]
    public void APublishingThreadIsListedWithWhatItAllocated()
    {
        string name = "ledger-test-" + Guid.NewGuid().ToString("N");
        long first = -1, second = -1, publishingBytes = -1;
        var thread = new Thread(() =>
        {
            EngineThreadAllocations.PublishNow(); // registers (allocates) before the measured part
            // Once registered, publishing allocates nothing (it runs once per pass of the engine's loops when on).
            long before = GC.GetAllocatedBytesForCurrentThread();
            for (int i = 0; i < 1_000; i++) EngineThreadAllocations.PublishNow();
            publishingBytes = GC.GetAllocatedBytesForCurrentThread() - before;
            first = Find(name);
            s_sink = new byte[10_000];
            EngineThreadAllocations.PublishNow();
            second = Find(name);
        }) { Name = name };
        thread.Start();
        Assert.True(thread.Join(TimeSpan.FromSeconds(30)));
        Assert.NotNull(s_sink);
        Assert.Equal(0, publishingBytes);
        Assert.True(first > 0, $"the thread was not listed ({first})");
        // The array (10,000 bytes and its header) and nothing else between the two publications but Find's own list.
        Assert.InRange(second - first, 10_000, 12_000);
    }

    [Fact]
    public void PublishIsOffUnlessTheProcessAskedForIt()
    {
        // The test process does not set FIXENGINE_THREAD_ALLOCATIONS, so Publish (what the engine's threads call)
        // neither registers nor publishes a thread.
        Assert.False(EngineThreadAllocations.Enabled, "FIXENGINE_THREAD_ALLOCATIONS=1 is set for the test process");
        string name = "ledger-off-" + Guid.NewGuid().ToString("N");
        var thread = new Thread(EngineThreadAllocations.Publish) { Name = name };
        thread.Start();
        Assert.True(thread.Join(TimeSpan.FromSeconds(30)));
        Assert.Equal(-1, Find(name));
    }

    [Fact]
    public void EndedThreadsLeaveTheLedgerWhenAnotherRegisters()
    {
        string prefix = "ledger-ended-" + Guid.NewGuid().ToString("N");
        for (int i = 0; i < 20; i++)
        {
            var ended = new Thread(EngineThreadAllocations.PublishNow) { Name = $"{prefix}-{i}" };
            ended.Start();
            Assert.True(ended.Join(TimeSpan.FromSeconds(30)));
        }
        // The 19 threads that ended before the last registered are gone; the last stays until the next registration.
        Assert.Equal(1, Count(prefix));
        var next = new Thread(EngineThreadAllocations.PublishNow) { Name = prefix + "-next" };
        next.Start();
        Assert.True(next.Join(TimeSpan.FromSeconds(30)));
        Assert.Equal(1, Count(prefix));

        // Ids are never reused, so two snapshots pair by id even when names and managed thread ids repeat.
        var ids = new HashSet<long>();
        foreach ((long id, _, _) in EngineThreadAllocations.Snapshot()) Assert.True(ids.Add(id), $"id {id} listed twice");
    }

    private static int Count(string prefix)
    {
        int count = 0;
        foreach ((_, string thread, _) in EngineThreadAllocations.Snapshot())
        {
            if (thread.StartsWith(prefix, StringComparison.Ordinal)) count++;
        }
        return count;
    }

    private static long Find(string name)
    {
        foreach ((_, string thread, long bytes) in EngineThreadAllocations.Snapshot())
        {
            if (thread.StartsWith(name, StringComparison.Ordinal)) return bytes;
        }
        return -1;
    }
}
