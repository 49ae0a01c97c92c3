using System;
using System.Threading;

namespace FixEngine.Timing;

/// <summary>Lets other threads cut short a duty-cycle thread's park, so work they hand over does not wait out the sleep.
/// Part of the reusable low-latency toolkit: give one to <see cref="BackoffIdleStrategy"/> or
/// <see cref="SleepingIdleStrategy"/> and call <see cref="Signal"/> after publishing work for the loop.</summary>
/// <remarks>
/// <para>Without it a parked loop notices handed-over work only when its sleep ends: with the 1 ms park of the engine's
/// default <see cref="BackoffIdleStrategy"/> an order handed over from a strategy thread waited about 0.5 ms on average
/// when the engine was otherwise idle.</para>
/// <para>Protocol (Dekker style, both sides fence): <see cref="Signal"/> marks work pending, then wakes the loop only if
/// it is parked; <see cref="Park"/> marks the loop parked, then sleeps only if nothing is pending. So a signal is never
/// lost: either the parking thread sees it pending, or the signalling thread sees the park and sets the event. When the
/// loop is not parked a signal costs one interlocked write and one read (no system call); waking a parked loop costs a
/// futex wake on the signalling thread. Allocation-free after construction.</para>
/// <para>Threads: any number of threads may call <see cref="Signal"/>; only the loop's own thread calls <see cref="Park"/>.</para>
/// <para>Lifetime: dispose it once the loop has ended (its thread no longer parks). Signalling threads need not stop
/// first: a <see cref="Signal"/> during or after <see cref="Dispose"/> only marks work pending (there is no loop left to
/// wake) and never throws. A <see cref="Park"/> after <see cref="Dispose"/> (a loop outliving its owner's dispose) sleeps
/// its full time instead of throwing.</para>
/// </remarks>
public sealed class IdleWakeup : IDisposable
{
    // spinCount 0: the idle strategy has already spun and yielded before it parks.
    private readonly ManualResetEventSlim _event = new(false, 0);
    private int _pending;
    private int _parked;
    private int _serviceRequested;
    private volatile bool _disposed;

    /// <summary>Tells the loop there is work: wakes it if it is parked, or makes its next park return at once.</summary>
    /// <remarks>Any thread, at any time, including during and after <see cref="Dispose"/> (then it wakes nobody).</remarks>
    public void Signal()
    {
        Volatile.Write(ref _serviceRequested, 1);
        SignalWork();
    }

    /// <summary><see cref="Signal"/> without asking for a service of everything (<see cref="TakeServiceRequest"/> stays
    /// as it was): for work the loop finds on its own (the engine agent's per-session requests).</summary>
    internal void SignalWork()
    {
        Interlocked.Exchange(ref _pending, 1);
        if (Volatile.Read(ref _parked) != 0) Wake();
    }

    // Out of line: the rare path (a futex wake), and the one that must survive a Dispose racing the signal.
    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.NoInlining)]
    private void Wake()
    {
        if (_disposed) return;
        try
        {
            _event.Set();
        }
        catch (ObjectDisposedException)
        {
            // Disposed between the check and the Set: the loop has ended, there is nobody to wake.
        }
    }

    /// <summary>Parks the calling (loop) thread for up to <paramref name="milliseconds"/>, or less when signalled.</summary>
    /// <param name="milliseconds">Longest park; 0 gives up the rest of the time slice (<c>Thread.Sleep(0)</c>).</param>
    /// <returns>Whether a signal ended (or prevented) the park.</returns>
    public bool Park(int milliseconds)
    {
        if (milliseconds <= 0)
        {
            Thread.Sleep(0);
            return Interlocked.Exchange(ref _pending, 0) != 0;
        }
        if (_disposed)
        {
            return ParkDisposed(milliseconds);
        }
        try
        {
            _event.Reset();
            Interlocked.Exchange(ref _parked, 1);
            if (Volatile.Read(ref _pending) == 0) _event.Wait(milliseconds);
        }
        catch (ObjectDisposedException)
        {
            // Disposed while this loop still runs (its owner did not wait for it): sleep as asked, never throw.
            Volatile.Write(ref _parked, 0);
            return ParkDisposed(milliseconds);
        }
        Volatile.Write(ref _parked, 0);
        return Interlocked.Exchange(ref _pending, 0) != 0;
    }

    private bool ParkDisposed(int milliseconds)
    {
        if (Volatile.Read(ref _pending) == 0) Thread.Sleep(milliseconds);
        return Interlocked.Exchange(ref _pending, 0) != 0;
    }

    /// <summary>Loop thread: whether <see cref="Signal"/> was called since the last call, whether or not a park consumed
    /// it (the engine agent sweeps all its sessions when it was). Clears the request.</summary>
    internal bool TakeServiceRequest() => Volatile.Read(ref _serviceRequested) != 0 && Interlocked.Exchange(ref _serviceRequested, 0) != 0;

    /// <summary>Whether a signal is pending (for tests and diagnostics).</summary>
    public bool IsSignalled => Volatile.Read(ref _pending) != 0;

    /// <summary>Whether <see cref="Dispose"/> was called.</summary>
    public bool IsDisposed => _disposed;

    /// <summary>Releases the event the loop parks on. Call once the loop has ended; signals may still come (they are
    /// ignored). Idempotent.</summary>
    public void Dispose()
    {
        if (_disposed) return;
        _disposed = true;
        _event.Dispose();
    }
}
