using System;
using System.IO;
using System.Threading;
using System.Threading.Tasks;
using FixEngine.Transport;
using Xunit.Abstractions;

namespace FixEngine.Tests.Transport;

/// <summary>The awaitable receive pause of the hosted pipe connection's read loop: one completion per park, a resume
/// before the park is not lost, and racing resumes (the agent's and a close's) neither throw nor leave the loop parked.</summary>
public sealed class AwaitableReceivePauseTests(ITestOutputHelper output)
{
    internal const string Probe = "awaitable-receive-pause-cycles";

    /// <summary>A pause and its resume allocate nothing on any thread: the park, the wait (the awaiting async method's
    /// continuation queued to the thread pool) and the resume from another thread, 10,000 times per window, measured in a
    /// process of its own.</summary>
    [Fact]
    public void PauseAndResumeCyclesAllocateNothingOnAnyThread()
    {
        // A hang bound: the probe takes a second idle and over a minute beside a CPU hog.
        (int exitCode, string report) = IsolatedProcess.Run(Probe, TimeSpan.FromMinutes(10));
        output.WriteLine(report);
        Assert.True(exitCode == 0, $"exit code {exitCode}: {report}");
        Assert.Contains(": 0 B all threads", report);
    }

    /// <summary>The measurement behind <see cref="PauseAndResumeCyclesAllocateNothingOnAnyThread"/>, run in a child process.</summary>
    /// <returns>0 when one window of 10,000 pause-resume cycles allocated exactly 0 bytes in the process and most cycles
    /// waited for the resume (rather than completing at once).</returns>
    /// <remarks>As in TcpAllocationTests, up to 8 windows are measured and one must read 0: the thread pool may inject a
    /// worker (its Thread object and queues) in the first windows; a per-cycle allocation shows in every window.</remarks>
    internal static int MeasureCycleAllocation(TextWriter output)
    {
        const int Window = 10_000;
        const int MaxRounds = 8;
        var pause = new AwaitableReceivePause();
        int requested = 0;
        int stop = 0;
        long cycles = 0;
        long waited = 0;

        async Task Loop()
        {
            while (Volatile.Read(ref stop) == 0)
            {
                Volatile.Write(ref requested, 1);
                while (Volatile.Read(ref requested) == 1)
                {
                    if (!pause.TryPark()) continue;
                    if (Volatile.Read(ref requested) == 0) pause.Resume();
                    ValueTask wait = pause.WaitAsync();
                    if (!wait.IsCompleted) waited++;
                    await wait.ConfigureAwait(false);
                }
                Volatile.Write(ref cycles, cycles + 1);
            }
        }

        var resumer = new Thread(() =>
        {
            while (Volatile.Read(ref stop) == 0)
            {
                if (Volatile.Read(ref requested) == 1 && pause.IsParked)
                {
                    Volatile.Write(ref requested, 0);
                    pause.Resume();
                }
                else
                {
                    Thread.SpinWait(20);
                }
            }
        }) { IsBackground = true };
        resumer.Start();
        Task loop = Task.Run(Loop);
        // Bounded by progress, not speed: false once no cycle completed for 30 s (a lost wake), however slow the machine.
        bool WaitCycles(long target)
        {
            var stalled = System.Diagnostics.Stopwatch.StartNew();
            long seen = Volatile.Read(ref cycles);
            while (seen < target)
            {
                if (stalled.ElapsedMilliseconds > 30_000) return false;
                Thread.Sleep(1);
                long now = Volatile.Read(ref cycles);
                if (now != seen)
                {
                    seen = now;
                    stalled.Restart();
                }
            }
            return true;
        }
        bool progressed = WaitCycles(Window);
        long[] total = new long[MaxRounds];
        int rounds = 0;
        while (progressed && rounds < MaxRounds)
        {
            long target = Volatile.Read(ref cycles) + Window;
            long before = GC.GetTotalAllocatedBytes(precise: true);
            progressed = WaitCycles(target);
            total[rounds] = GC.GetTotalAllocatedBytes(precise: true) - before;
            rounds++;
            if (total[rounds - 1] == 0) break;
        }
        Volatile.Write(ref stop, 1);
        Volatile.Write(ref requested, 0);
        pause.Resume();
        bool ended = loop.Wait(TimeSpan.FromSeconds(10));
        for (int r = 0; r < rounds; r++) output.WriteLine($"window {r} ({Window} pause-resume cycles): {total[r]} B all threads");
        long all = Volatile.Read(ref cycles);
        output.WriteLine($"{all} cycles, {Volatile.Read(ref waited)} waited for the resume; progressed {progressed}, loop ended {ended}");
        return progressed && ended && rounds > 0 && total[rounds - 1] == 0 && Volatile.Read(ref waited) > all / 2 ? 0 : 1;
    }

    [Fact]
    public async Task AParkIsCompletedOnceByTheFirstResume()
    {
        var pause = new AwaitableReceivePause();
        Assert.False(pause.Resume(), "nothing was parked");
        Assert.True(pause.TryPark());
        Assert.True(pause.IsParked);
        ValueTask wait = pause.WaitAsync();
        Assert.False(wait.IsCompleted);
        Assert.True(pause.Resume());
        Assert.False(pause.Resume(), "a second resume (a close after the drain) finds nothing to wake");
        await wait;
        Assert.True(pause.IsRunning);
        Assert.Equal(1, pause.Parks);

        // The next pause parks again on the same source.
        Assert.True(pause.TryPark());
        ValueTask second = pause.WaitAsync();
        Assert.False(second.IsCompleted);
        Assert.True(pause.Resume());
        await second;
        Assert.Equal(2, pause.Parks);
    }

    /// <summary>The loop's protocol (as in PipeEngineConnection.RunAsync): check, park, check again and resume itself if
    /// the pause ended in between, then wait. A resume that came after the first check and before the park found nothing
    /// parked; the second check keeps it from being lost.</summary>
    [Fact]
    public async Task AResumeBetweenTheChecksAndTheParkIsNotLost()
    {
        var pause = new AwaitableReceivePause();
        bool requested;                    // the loop has seen the request; then
        requested = false;                 // the backlog drains ...
        Assert.False(pause.Resume());      // ... and the agent's resume finds no parked loop
        Assert.True(pause.TryPark());
        if (!requested) pause.Resume();
        ValueTask wait = pause.WaitAsync();
        Assert.True(wait.IsCompleted, "the loop did not wait for a resume that had already come");
        await wait;
        Assert.True(pause.IsRunning);
    }

    /// <summary>A loop pausing and resuming 20,000 times against a resumer (the agent: it lifts the request and resumes)
    /// and a third thread resuming at random (a close racing the drain): every pause ends, no resume completes a park
    /// twice (the core would throw), and nothing waits forever (the run is bounded).</summary>
    [Fact]
    public async Task RacingResumesNeitherThrowNorLoseAWake()
    {
        const int Pauses = 20_000;
        var pause = new AwaitableReceivePause();
        int requested = 0;
        int done = 0;
        int asyncWaits = 0;
        int completed = 0;
        Exception? failure = null;

        async Task Loop()
        {
            for (int i = 0; i < Pauses; i++)
            {
                Volatile.Write(ref requested, 1);
                while (Volatile.Read(ref requested) == 1)
                {
                    if (!pause.TryPark()) continue;
                    if (Volatile.Read(ref requested) == 0) pause.Resume();
                    ValueTask wait = pause.WaitAsync();
                    if (!wait.IsCompleted) asyncWaits++;
                    await wait.ConfigureAwait(false);
                }
                Volatile.Write(ref completed, i + 1);
            }
            Volatile.Write(ref done, 1);
        }

        void Resumer(bool liftRequest)
        {
            try
            {
                var random = new Random(liftRequest ? 1 : 2);
                while (Volatile.Read(ref done) == 0)
                {
                    if (liftRequest)
                    {
                        if (Volatile.Read(ref requested) == 0)
                        {
                            Thread.Yield();
                            continue;
                        }
                        if (random.Next(4) == 0) Thread.SpinWait(random.Next(50));
                        Volatile.Write(ref requested, 0);
                        pause.Resume();
                    }
                    else
                    {
                        pause.Resume();
                        if (random.Next(8) == 0) Thread.Yield();
                        else Thread.SpinWait(random.Next(200));
                    }
                }
            }
            catch (Exception e)
            {
                failure = e;
                Volatile.Write(ref done, 1);
            }
        }

        var agent = new Thread(() => Resumer(liftRequest: true)) { IsBackground = true };
        var closer = new Thread(() => Resumer(liftRequest: false)) { IsBackground = true };
        agent.Start();
        closer.Start();
        Task loop = Task.Run(Loop);
        // A lost wake shows as a loop that stops making progress, not as a slow one: beside a CPU hog the spinning threads
        // and the thread pool's continuations share two cores with it and the 20,000 pauses take minutes (0.4 s idle).
        // So the bound is 30 s without a completed pause (and 10 minutes in all), not a total time.
        var total = System.Diagnostics.Stopwatch.StartNew();
        var stalled = System.Diagnostics.Stopwatch.StartNew();
        int seen = 0;
        while (!loop.IsCompleted && stalled.Elapsed < TimeSpan.FromSeconds(30) && total.Elapsed < TimeSpan.FromMinutes(10))
        {
            await Task.WhenAny(loop, Task.Delay(100));
            int now = Volatile.Read(ref completed);
            if (now != seen)
            {
                seen = now;
                stalled.Restart();
            }
        }
        Volatile.Write(ref done, 1);
        Assert.True(agent.Join(TimeSpan.FromSeconds(10)) && closer.Join(TimeSpan.FromSeconds(10)));
        Assert.Null(failure);
        Assert.True(loop.IsCompleted, $"the loop stopped at pause {Volatile.Read(ref completed)} of {Pauses}: none completed for {stalled.Elapsed.TotalSeconds:0} s " +
            $"({total.Elapsed.TotalSeconds:0} s in all; parked {pause.IsParked}, {pause.Parks} parks)");
        await loop;
        // The run must have exercised the park that waits (not only pauses cancelled before it, or resumed at once).
        Assert.True(asyncWaits > 0 && pause.Parks > 0, $"{pause.Parks} parks, {asyncWaits} waited");
        output.WriteLine($"{Pauses} pauses: {pause.Parks} parks, {asyncWaits} waited for a resume");
    }
}
