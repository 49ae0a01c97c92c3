using System;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Runtime.InteropServices;
using System.Threading;
using FixEngine.Tests.Infrastructure;
using FixEngine.Timing;

namespace FixEngine.Tests.Timing;

public class TscClockTests
{
    [Fact]
    public void UsesTheTscExactlyWhereThePlatformAllowsIt()
    {
        // Re-derive the preconditions independently of TscReader, so a detection bug fails here.
        bool allowed = RuntimeInformation.ProcessArchitecture == Architecture.X64
            && OperatingSystem.IsLinux()
            && Environment.GetEnvironmentVariable("FIXENGINE_DISABLE_TSC") is null or "" or "0"
            && ReadOrNull("/sys/devices/system/clocksource/clocksource0/current_clocksource")?.Trim() == "tsc"
            && CpuFlags() is { } flags && flags.Contains("constant_tsc") && flags.Contains("nonstop_tsc");
        Assert.Equal(TscClock.FallbackReason is null, TscClock.IsTscBacked);
        Assert.False(string.IsNullOrWhiteSpace(TscClock.Description));
        if (allowed)
        {
            // Only a refused executable mapping may still keep it off.
            Assert.True(TscClock.IsTscBacked || TscClock.FallbackReason!.Contains("mmap") || TscClock.FallbackReason.Contains("mprotect"),
                TscClock.Description);
        }
        else
        {
            Assert.False(TscClock.IsTscBacked, TscClock.Description);
            Assert.StartsWith("Stopwatch (TSC not used: ", TscClock.Description);
        }
    }

    [Fact]
    public void ForcedFallbackReadsStopwatch()
    {
        var source = new TscTimeSource(forceFallback: true);
        Assert.False(source.IsTscBacked);
        Assert.Contains("forced", source.FallbackReason);
        Assert.Contains("Stopwatch", source.Description);

        long before = HighResTime.NowNs();
        long now = source.NowNs();
        long after = HighResTime.NowNs();
        Assert.InRange(now, before, after);

        long ticksBefore = Stopwatch.GetTimestamp();
        long raw = source.GetTimestamp();
        long ticksAfter = Stopwatch.GetTimestamp();
        Assert.InRange(raw, ticksBefore, ticksAfter);
        Assert.Equal(HighResTime.TicksToNs(raw), source.TimestampToNs(raw));
        source.Reanchor(); // a no-op
        Assert.Equal(0, source.ReanchorCount);
    }

    [Fact]
    public void NowNsIsMonotonicAcrossThreadsWhileTheAnchorMoves()
    {
        var source = new TscTimeSource();
        const int Readers = 3;
        const int ReadsPerThread = 200_000;
        long published = source.NowNs();
        long violations = 0;
        long worst = 0;
        using var stop = new CancellationTokenSource();
        var reanchorer = new Thread(() =>
        {
            // Keeps the sequence lock busy so the readers cross many segment boundaries.
            while (!stop.IsCancellationRequested)
            {
                source.Reanchor();
                Thread.SpinWait(50);
            }
        }) { IsBackground = true, Name = "tsc-reanchor" };
        reanchorer.Start();
        Thread[] readers = Enumerable.Range(0, Readers).Select(i => new Thread(() =>
        {
            long own = long.MinValue;
            for (int n = 0; n < ReadsPerThread; n++)
            {
                long seen = Volatile.Read(ref published);
                long now = source.NowNs();
                if (now < seen || now < own)
                {
                    Interlocked.Increment(ref violations);
                    long back = Math.Max(seen, own) - now;
                    long current;
                    while ((current = Volatile.Read(ref worst)) < back && Interlocked.CompareExchange(ref worst, back, current) != current)
                    {
                    }
                }
                own = now;
                long prior;
                while ((prior = Volatile.Read(ref published)) < now && Interlocked.CompareExchange(ref published, now, prior) != prior)
                {
                }
            }
        }) { IsBackground = true, Name = $"tsc-reader-{i}" }).ToArray();
        foreach (Thread reader in readers) reader.Start();
        foreach (Thread reader in readers) Assert.True(reader.Join(TimeSpan.FromSeconds(60)), "reader did not finish");
        stop.Cancel();
        Assert.True(reanchorer.Join(TimeSpan.FromSeconds(10)));
        Assert.True(violations == 0, $"{violations} reads went back (worst {worst} ns); {source.Description}");
        if (source.IsTscBacked)
        {
            Assert.True(source.ReanchorCount > 0, "the anchor never moved, so the test crossed no boundary");
        }
    }

    [Fact]
    public void ElapsedTimeAgreesWithStopwatchOverASleep()
    {
        var source = new TscTimeSource();
        (long firstBefore, long first, long firstAfter) = Bracket(source);
        Thread.Sleep(100);
        (long secondBefore, long second, long secondAfter) = Bracket(source);
        // The reads may be preempted: the TSC interval must lie within the Stopwatch intervals bracketing it, with
        // slack for calibration (2% of the interval and 2 ms), generous enough that only a wrong rate or step fails.
        long elapsed = second - first;
        long shortest = secondBefore - firstAfter;
        long longest = secondAfter - firstBefore;
        long slack = 2_000_000 + longest / 50;
        Assert.InRange(elapsed, shortest - slack, longest + slack);
        Assert.True(elapsed > 0);
    }

    [Fact]
    public void RawTimestampsConvertToTheClocksNanoseconds()
    {
        var source = new TscTimeSource();
        for (int i = 0; i < 1000; i++)
        {
            long before = source.NowNs();
            long raw = source.GetTimestamp();
            long after = source.NowNs();
            // The raw read is unordered (it may run tens of ns early); 1 ms covers that and a preemption-free bound is
            // not needed: before and after already bracket any preemption.
            Assert.InRange(source.TimestampToNs(raw), before - 1_000_000, after + 1_000_000);
        }
        long later = source.GetTimestamp();
        Thread.Sleep(20);
        long latest = source.GetTimestamp();
        Assert.True(source.TimestampToNs(latest) - source.TimestampToNs(later) >= 15_000_000, "20 ms of raw ticks converted to less than 15 ms");
    }

    [Fact]
    public void ProcessClockAgreesWithHighResTime()
    {
        long before = HighResTime.NowNs();
        long now = TscClock.NowNs();
        long after = HighResTime.NowNs();
        // Same origin and scale as HighResTime: within 2 ms of the bracket (calibration error, slew).
        Assert.InRange(now, before - 2_000_000, after + 2_000_000);
        long raw = TscClock.GetTimestamp();
        Assert.InRange(TscClock.TimestampToNs(raw), before - 2_000_000, HighResTime.NowNs() + 2_000_000);
    }

    [Fact]
    public void ReadsAllocateNothing()
    {
        long sink = 0;
        long bytes = Allocations.Measure(() => sink += TscClock.NowNs() + TscClock.TimestampToNs(TscClock.GetTimestamp()));
        Assert.Equal(0, bytes);
        Assert.NotEqual(0, sink);
    }

    private static (long Before, long Value, long After) Bracket(TscTimeSource source)
    {
        long before = HighResTime.NowNs();
        long value = source.NowNs();
        long after = HighResTime.NowNs();
        return (before, value, after);
    }

    private static string? ReadOrNull(string path) => File.Exists(path) ? File.ReadAllText(path) : null;

    private static string[]? CpuFlags()
    {
        if (!File.Exists("/proc/cpuinfo")) return null;
        string? line = File.ReadLines("/proc/cpuinfo").FirstOrDefault(l => l.StartsWith("flags", StringComparison.Ordinal));
        return line?[(line.IndexOf(':') + 1)..].Split(' ', StringSplitOptions.RemoveEmptyEntries);
    }
}
