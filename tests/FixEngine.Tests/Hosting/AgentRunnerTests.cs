using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading;
using FixEngine.Hosting;
using FixEngine.Tests.Infrastructure;
using FixEngine.Timing;

namespace FixEngine.Tests.Hosting;

public class AgentRunnerTests
{
    private static readonly TimeSpan s_wait = TimeSpan.FromSeconds(10);

    private sealed class CountingAgent : IAgent
    {
        private readonly Func<long, int>? _work;
        public int Starts;
        public int Closes;
        public long Calls;
        public long LastNowNs;
        public string? ThreadName;
        public readonly ManualResetEventSlim Ran = new(false);

        public CountingAgent(string name, Func<long, int>? work = null)
        {
            Name = name;
            _work = work;
        }

        public string Name { get; }

        public int DoWork(long nowNs)
        {
            ThreadName = Thread.CurrentThread.Name;
            LastNowNs = nowNs;
            long calls = Interlocked.Increment(ref Calls);
            if (calls >= 10) Ran.Set();
            return _work?.Invoke(nowNs) ?? 0;
        }

        public void OnStart() => Starts++;

        public void OnClose() => Closes++;
    }

    [Fact]
    public void RunsAgentsOnANamedDedicatedThreadAndStopsWithinTimeout()
    {
        var a = new CountingAgent("a");
        var b = new CountingAgent("b");
        var clock = new FakeClock(nowNs: 777);
        using var runner = new AgentRunner([a, b], new AgentRunnerOptions { IdleStrategy = new YieldingIdleStrategy(), Clock = clock });
        Assert.Equal("a+b", runner.ThreadName);
        runner.Start();
        Assert.True(a.Ran.Wait(s_wait));
        Assert.True(b.Ran.Wait(s_wait));
        Assert.True(runner.IsRunning);
        Assert.True(runner.Stop(s_wait));
        Assert.False(runner.IsRunning);
        Assert.Equal(1, a.Starts);
        Assert.Equal(1, a.Closes);
        Assert.Equal(1, b.Closes);
        Assert.Equal("a+b", a.ThreadName);
        Assert.Equal(777, a.LastNowNs);
        Assert.Throws<InvalidOperationException>(() => runner.Start());
    }

    [Fact]
    public void AgentExceptionsAreReportedAndRunnerContinues()
    {
        var errors = new ConcurrentQueue<(IAgent, Exception)>();
        var agent = new CountingAgent("thrower", _ => throw new InvalidDataException("boom"));
        using var runner = new AgentRunner(agent, new AgentRunnerOptions
        {
            IdleStrategy = new YieldingIdleStrategy(),
            ErrorHandler = (ag, ex) => errors.Enqueue((ag, ex)),
        });
        runner.Start();
        Assert.True(agent.Ran.Wait(s_wait));
        Assert.True(runner.IsRunning);
        Assert.True(runner.Stop(s_wait));
        Assert.True(errors.Count >= 10);
        Assert.True(errors.TryPeek(out var first));
        Assert.Same(agent, first.Item1);
        Assert.IsType<InvalidDataException>(first.Item2);
        Assert.True(runner.ErrorCount >= 10);
        Assert.IsType<InvalidDataException>(runner.LastError);
    }

    [Fact]
    public void StopPolicyEndsTheLoopAfterTheFirstError()
    {
        int reported = 0;
        var agent = new CountingAgent("thrower", _ => throw new InvalidOperationException("once"));
        using var runner = new AgentRunner(agent, new AgentRunnerOptions
        {
            ErrorPolicy = AgentErrorPolicy.Stop,
            ErrorHandler = (_, _) => Interlocked.Increment(ref reported),
        });
        runner.Start();
        // The Stop policy ends the loop by itself; wait for that rather than racing Stop() against the first DoWork.
        Assert.True(SpinWait.SpinUntil(() => Volatile.Read(ref reported) == 1 && !runner.IsRunning, s_wait));
        Assert.True(runner.Stop(s_wait));
        Assert.Equal(1, reported);
        Assert.Equal(1, agent.Calls);
        Assert.Equal(1, agent.Closes);
    }

    [Fact]
    public void WithoutAHandlerErrorsGoToDiagnostics()
    {
        var messages = new ConcurrentQueue<string>();
        var agent = new CountingAgent("quiet", _ => throw new InvalidOperationException("visible"));
        using var runner = new AgentRunner(agent, new AgentRunnerOptions
        {
            ErrorPolicy = AgentErrorPolicy.Stop,
            DiagnosticHandler = messages.Enqueue,
        });
        runner.Start();
        Assert.True(SpinWait.SpinUntil(() => !messages.IsEmpty && !runner.IsRunning, s_wait));
        Assert.True(runner.Stop(s_wait));
        Assert.Contains(messages, m => m.Contains("quiet") && m.Contains("visible"));
    }

    [Fact]
    public void StopTimesOutWhenAnAgentBlocks()
    {
        using var release = new ManualResetEventSlim(false);
        var agent = new CountingAgent("blocker", _ => { release.Wait(); return 0; });
        var runner = new AgentRunner(agent);
        runner.Start();
        Assert.True(SpinWait.SpinUntil(() => Interlocked.Read(ref agent.Calls) > 0, s_wait));
        Assert.False(runner.Stop(TimeSpan.FromMilliseconds(50)));
        release.Set();
        Assert.True(runner.Stop(s_wait));
    }

    [Fact]
    public void StopBeforeStartSucceeds()
    {
        var runner = new AgentRunner(new CountingAgent("idle"));
        Assert.True(runner.Stop(TimeSpan.Zero));
        Assert.False(runner.IsRunning);
        // A second Stop (or Dispose after Stop) must not try to join the thread that never started.
        Assert.True(runner.Stop(TimeSpan.Zero));
        runner.Dispose();
        Assert.Throws<InvalidOperationException>(runner.Start);
    }

    [Fact]
    public void UnsupportedOrInvalidPinningIsReportedOnceAndRunsUnpinned()
    {
        var messages = new ConcurrentQueue<string>();
        var agent = new CountingAgent("unpinned");
        using var runner = new AgentRunner(agent, new AgentRunnerOptions
        {
            CpuAffinity = [CpuAffinity.MaxLinuxCpus + 5],
            DiagnosticHandler = messages.Enqueue,
        });
        runner.Start();
        Assert.True(agent.Ran.Wait(s_wait));
        Assert.True(runner.Stop(s_wait));
        Assert.False(runner.Affinity.Succeeded);
        Assert.Equal(OperatingSystem.IsLinux() || OperatingSystem.IsWindows() ? AffinityStatus.InvalidCpu : AffinityStatus.NotSupported,
            runner.Affinity.Status);
        Assert.Single(messages);
        Assert.Contains("unpinned", messages.Single());
    }

    [Fact]
    public void LinuxPinsRunnerThreadToCpu0()
    {
        if (!OperatingSystem.IsLinux())
        {
            Console.WriteLine("Skipped: CPU pinning read-back test runs on Linux only.");
            return;
        }
        // CPU 0 unless the process may not use it (restricted cpuset): then its first allowed CPU.
        Assert.True(CpuAffinity.TryGetCurrentThreadAffinity(out int[] before));
        int cpu = before.Contains(0) ? 0 : before[0];
        int[]? seen = null;
        string? procList = null;
        using var done = new ManualResetEventSlim(false);
        var agent = new CountingAgent("pinned", _ =>
        {
            if (seen is null)
            {
                CpuAffinity.TryGetCurrentThreadAffinity(out int[] cpus);
                seen = cpus;
                foreach (string line in File.ReadLines("/proc/thread-self/status"))
                {
                    if (line.StartsWith("Cpus_allowed_list:", StringComparison.Ordinal)) procList = line.Split(':')[1].Trim();
                }
                done.Set();
            }
            return 0;
        });
        using var runner = new AgentRunner(agent, new AgentRunnerOptions { CpuAffinity = [cpu] });
        runner.Start();
        Assert.True(done.Wait(s_wait));
        Assert.True(runner.Stop(s_wait));
        Assert.Equal(AffinityStatus.Applied, runner.Affinity.Status);
        Assert.Equal(new[] { cpu }, seen);
        Assert.Equal(cpu.ToString(), procList);
        // The test thread itself is unaffected.
        Assert.True(CpuAffinity.TryGetCurrentThreadAffinity(out int[] after));
        Assert.Equal(before, after);
    }

    [Fact]
    public void RealTimePriorityResultIsReportedEitherWay()
    {
        var messages = new ConcurrentQueue<string>();
        var agent = new CountingAgent("rt");
        using var runner = new AgentRunner(agent, new AgentRunnerOptions { RealTimePriority = 1, DiagnosticHandler = messages.Enqueue });
        runner.Start();
        Assert.True(runner.Stop(s_wait));
        if (OperatingSystem.IsLinux())
        {
            Assert.Contains(runner.RealTimePriority.Status, new List<AffinityStatus> { AffinityStatus.Applied, AffinityStatus.PermissionDenied });
        }
        else
        {
            Assert.Equal(AffinityStatus.NotSupported, runner.RealTimePriority.Status);
        }
        Assert.Single(messages);
    }
}
