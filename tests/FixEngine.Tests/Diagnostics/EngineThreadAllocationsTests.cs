using System;
using System.Collections.Generic;
using System.Threading;
using FixEngine.Benchmarks.RoundTrip;
using FixEngine.Hosting;

namespace FixEngine.Tests.Diagnostics;

/// <summary>The per-thread allocation ledger the round-trip harness installs as the engine threads' probe (compiled in
/// from benchmarks/): a thread's publication shows what it allocated, under its name; publishing allocates nothing once
/// the thread is registered; an engine thread runs the installed probe once per pass and nothing is installed by default.</summary>
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
    public void AnInstalledProbeRunsOnEachPassOfAnEngineThreadAndNothingRunsWithoutOne()
    {
        // The test process does not set FIXENGINE_THREAD_ALLOCATIONS: the harness's ledger installs nothing.
        Assert.False(EngineThreadAllocations.Enabled, "FIXENGINE_THREAD_ALLOCATIONS=1 is set for the test process");
        string name = "probe-test-" + Guid.NewGuid().ToString("N");
        int passes = 0;
        var agent = new CountingAgent();
        // Other tests' engine threads may call the probe while it is installed: count this runner's thread only.
        EngineThreadProbe.Install(() =>
        {
            if (Thread.CurrentThread.Name == name) Interlocked.Increment(ref passes);
        });
        try
        {
            using var runner = new AgentRunner(agent, new AgentRunnerOptions { ThreadName = name });
            runner.Start();
            SpinWait.SpinUntil(() => Volatile.Read(ref passes) >= 3, TimeSpan.FromSeconds(30));
        }
        finally
        {
            EngineThreadProbe.Install(null);
        }
        Assert.True(Volatile.Read(ref passes) >= 3, $"the agent thread ran the probe {passes} times");
        Assert.True(Volatile.Read(ref agent.Passes) >= passes - 1, $"{agent.Passes} passes of the agent, {passes} probes");
        Assert.Equal(-1, Find(name));
    }

    private sealed class CountingAgent : IAgent
    {
        public int Passes;
        public string Name => "counting";
        public int DoWork(long nowNs)
        {
            Interlocked.Increment(ref Passes);
            return 0;
        }
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
