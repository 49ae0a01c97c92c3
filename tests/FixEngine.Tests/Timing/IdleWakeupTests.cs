using System;
using System.Threading;
using FixEngine.Timing;
using FixEngine.Tests.Infrastructure;

namespace FixEngine.Tests.Timing;

/// <summary><see cref="IdleWakeup"/> ends a park early and never loses a signal. Parks here are ten minutes long, so a
/// park that returns within the test's bounded wait can only have been ended by the signal (no wall-clock assertion on
/// how fast).</summary>
public class IdleWakeupTests
{
    private const int LongParkMs = 600_000;
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(60);

    [Fact]
    public void ASignalEndsAParkInProgress()
    {
        using var wakeup = new IdleWakeup();
        bool? woken = null;
        var parker = new Thread(() => woken = wakeup.Park(LongParkMs)) { IsBackground = true };
        parker.Start();
        // Signal until the parker is back (the first signals may land before it parks: then its park returns at once).
        while (!parker.Join(1)) wakeup.Signal();
        Assert.True(woken);
        Assert.False(wakeup.IsSignalled);
    }

    [Fact]
    public void ASignalBeforeTheParkMakesThatParkReturnAtOnce()
    {
        using var wakeup = new IdleWakeup();
        wakeup.Signal();
        Assert.True(wakeup.IsSignalled);
        bool woken = false;
        var parker = new Thread(() => woken = wakeup.Park(LongParkMs)) { IsBackground = true };
        parker.Start();
        Assert.True(parker.Join(Bound), "the park ignored a signal given before it");
        Assert.True(woken);
    }

    [Fact]
    public void EverySignalFromAnotherThreadIsSeenByTheLoop()
    {
        // A loop that parks for ten minutes whenever it finds no work; a producer publishes 2,000 work items one at a
        // time, signalling after each, and waits for each to be taken: a lost wake-up would stall the test for ten
        // minutes (the Join bound fails it first).
        using var wakeup = new IdleWakeup();
        var idle = new BackoffIdleStrategy(maxSpins: 0, maxYields: 0, maxParkMs: LongParkMs, wakeup: wakeup);
        int published = 0, taken = 0;
        const int Items = 2_000;
        var loop = new Thread(() =>
        {
            while (Volatile.Read(ref taken) < Items)
            {
                int work = 0;
                if (Volatile.Read(ref published) > taken) { Interlocked.Increment(ref taken); work = 1; }
                idle.Idle(work);
            }
        }) { IsBackground = true };
        loop.Start();
        var producer = new Thread(() =>
        {
            for (int i = 1; i <= Items; i++)
            {
                Volatile.Write(ref published, i);
                wakeup.Signal();
                while (Volatile.Read(ref taken) < i) Thread.Yield();
            }
        }) { IsBackground = true };
        producer.Start();
        Assert.True(producer.Join(Bound) && loop.Join(Bound), $"stalled at {Volatile.Read(ref taken)} of {Items}: a signal was lost");
    }

    [Fact]
    public void SleepingStrategyWakesToo()
    {
        using var wakeup = new IdleWakeup();
        var idle = new SleepingIdleStrategy(LongParkMs, wakeup);
        var parker = new Thread(() => idle.Idle(0)) { IsBackground = true };
        parker.Start();
        while (!parker.Join(1)) wakeup.Signal();
    }

    [Fact]
    public void SignalAndParkAllocateNothing()
    {
        using var wakeup = new IdleWakeup();
        long bytes = Allocations.Measure(() =>
        {
            wakeup.Signal();
            wakeup.Park(1);
            wakeup.Park(0);
        }, warmup: 20, iterations: 200);
        Assert.Equal(0, bytes);
    }

    [Fact]
    public void SignalAndParkAfterDisposeNeverThrow()
    {
        var wakeup = new IdleWakeup();
        wakeup.Dispose();
        Assert.True(wakeup.IsDisposed);
        wakeup.Signal();
        Assert.True(wakeup.IsSignalled);
        // A park after dispose still consumes the pending signal, and sleeps (no event to wait on) when there is none.
        Assert.True(wakeup.Park(1));
        Assert.False(wakeup.Park(1));
        Assert.False(wakeup.Park(0));
        wakeup.Dispose();
    }

    [Fact]
    public void DisposeRacingSignallersAndAParkingLoopThrowsNowhere()
    {
        // The engine disposes its wake-up after its thread ended, but application threads handing messages over may still
        // signal it at that moment; here the loop even keeps parking (1 ms) through the dispose. Any exception on any
        // thread fails the test.
        for (int round = 0; round < 20; round++)
        {
            var wakeup = new IdleWakeup();
            Exception? failure = null;
            bool stop = false;
            var loop = new Thread(() =>
            {
                try
                {
                    while (!Volatile.Read(ref stop)) wakeup.Park(1);
                }
                catch (Exception e)
                {
                    failure = e;
                }
            }) { IsBackground = true };
            var signallers = new Thread[2];
            for (int i = 0; i < signallers.Length; i++)
            {
                signallers[i] = new Thread(() =>
                {
                    try
                    {
                        while (!Volatile.Read(ref stop)) wakeup.Signal();
                    }
                    catch (Exception e)
                    {
                        failure = e;
                    }
                }) { IsBackground = true };
            }
            loop.Start();
            foreach (Thread t in signallers) t.Start();
            Thread.Sleep(2);
            wakeup.Dispose();
            Thread.Sleep(5);
            Volatile.Write(ref stop, true);
            Assert.True(loop.Join(Bound));
            foreach (Thread t in signallers) Assert.True(t.Join(Bound));
            Assert.Null(failure);
        }
    }
}
