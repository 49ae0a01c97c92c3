using System;
using System.Threading;
using System.Threading.Tasks;
using FixEngine.Transport;
using Xunit.Abstractions;

namespace FixEngine.Tests.Transport;

/// <summary>The awaitable receive pause of the hosted pipe connection's read loop: one completion per park, a resume
/// before the park is not lost, and racing resumes (the agent's and a close's) neither throw nor leave the loop parked.</summary>
public sealed class AwaitableReceivePauseTests(ITestOutputHelper output)
{
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
        Task finished = await Task.WhenAny(loop, Task.Delay(TimeSpan.FromSeconds(60)));
        Volatile.Write(ref done, 1);
        Assert.True(agent.Join(TimeSpan.FromSeconds(10)) && closer.Join(TimeSpan.FromSeconds(10)));
        Assert.Null(failure);
        Assert.True(ReferenceEquals(finished, loop), $"the loop did not finish its {Pauses} pauses within 60 s (parked {pause.IsParked}, {pause.Parks} parks)");
        await loop;
        // The run must have exercised the park that waits (not only pauses cancelled before it, or resumed at once).
        Assert.True(asyncWaits > 0 && pause.Parks > 0, $"{pause.Parks} parks, {asyncWaits} waited");
        output.WriteLine($"{Pauses} pauses: {pause.Parks} parks, {asyncWaits} waited for a resume");
    }
}
