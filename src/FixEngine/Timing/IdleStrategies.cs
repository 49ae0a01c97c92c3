using System;
using System.Threading;

namespace FixEngine.Timing;

/// <summary>Decides what a duty-cycle loop does when an iteration did little or no work.</summary>
/// <remarks>
/// Called from the single thread running the loop: implementations are not thread-safe and never allocate.
/// <para>Part of FixEngine's reusable low-latency toolkit (with the other types of Buffers, Collections, Timing and
/// Hosting): public and supported for trading code to use on its own threads, independently of the FIX layers.</para>
/// </remarks>
public interface IIdleStrategy
{
    /// <summary>Idles according to the amount of work the last iteration did (0 = none: back off; &gt; 0: reset).</summary>
    /// <param name="workCount">Work items done by the last iteration.</param>
    void Idle(int workCount);

    /// <summary>Forgets any back-off state.</summary>
    void Reset();
}

/// <summary>Never gives up the core: spins with a pause instruction. Lowest latency, one full core per thread.</summary>
/// <remarks>Single-threaded use; allocation-free.</remarks>
public sealed class BusySpinIdleStrategy : IIdleStrategy
{
    /// <inheritdoc/>
    public void Idle(int workCount)
    {
        if (workCount <= 0)
        {
            Thread.SpinWait(1);
        }
    }

    /// <inheritdoc/>
    public void Reset()
    {
    }
}

/// <summary>Yields the rest of the time slice when idle. Low latency; burns a core unless other threads want it.</summary>
/// <remarks>Single-threaded use; allocation-free.</remarks>
public sealed class YieldingIdleStrategy : IIdleStrategy
{
    /// <inheritdoc/>
    public void Idle(int workCount)
    {
        if (workCount <= 0)
        {
            Thread.Yield();
        }
    }

    /// <inheritdoc/>
    public void Reset()
    {
    }
}

/// <summary>Parks for a fixed period when idle. Cheapest on CPU; latency up to the period plus the OS timer slack.</summary>
/// <remarks>Single-threaded use; allocation-free.</remarks>
public sealed class SleepingIdleStrategy : IIdleStrategy
{
    private readonly int _periodMs;
    private readonly IdleWakeup? _wakeup;

    /// <summary>Creates the strategy.</summary>
    /// <param name="periodMs">Milliseconds to sleep per idle iteration (0 = yield to any ready thread).</param>
    /// <param name="wakeup">Lets other threads end a sleep early (<see cref="IdleWakeup.Signal"/>); null: sleeps run to
    /// the end.</param>
    public SleepingIdleStrategy(int periodMs = 1, IdleWakeup? wakeup = null)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(periodMs);
        _periodMs = periodMs;
        _wakeup = wakeup;
    }

    /// <summary>The wakeup that ends a sleep early, or null.</summary>
    internal IdleWakeup? Wakeup => _wakeup;

    /// <inheritdoc/>
    public void Idle(int workCount)
    {
        if (workCount <= 0)
        {
            if (_wakeup is null) Thread.Sleep(_periodMs);
            else _wakeup.Park(_periodMs);
        }
    }

    /// <inheritdoc/>
    public void Reset()
    {
    }
}

/// <summary>Spins, then yields, then parks with growing sleeps up to a maximum; resets as soon as there is work.</summary>
/// <remarks>
/// States: spinning (<c>maxSpins</c> pause loops) → yielding (<c>maxYields</c> yields) → parking
/// (<c>Thread.Sleep(0)</c>, then 1 ms doubling up to <c>maxParkMs</c>). Good default for shared cores. With an
/// <see cref="IdleWakeup"/>, a park ends as soon as another thread signals work.
/// Single-threaded use; allocation-free.
/// </remarks>
public sealed class BackoffIdleStrategy : IIdleStrategy
{
    /// <summary>Default number of spin iterations before yielding.</summary>
    public const int DefaultMaxSpins = 100;

    /// <summary>Default number of yields before parking.</summary>
    public const int DefaultMaxYields = 50;

    /// <summary>Default longest park in milliseconds.</summary>
    public const int DefaultMaxParkMs = 1;

    private readonly int _maxSpins;
    private readonly int _maxYields;
    private readonly int _maxParkMs;
    private int _spins;
    private int _yields;
    private int _parkMs = -1;
    private readonly IdleWakeup? _wakeup;

    /// <summary>Creates the strategy.</summary>
    /// <param name="maxSpins">Spin iterations before yielding.</param>
    /// <param name="maxYields">Yields before parking.</param>
    /// <param name="maxParkMs">Longest sleep in milliseconds (at least 1).</param>
    /// <param name="wakeup">Lets other threads end a park early (<see cref="IdleWakeup.Signal"/>); null: parks run to
    /// the end.</param>
    public BackoffIdleStrategy(int maxSpins = DefaultMaxSpins, int maxYields = DefaultMaxYields, int maxParkMs = DefaultMaxParkMs,
        IdleWakeup? wakeup = null)
    {
        _wakeup = wakeup;
        ArgumentOutOfRangeException.ThrowIfNegative(maxSpins);
        ArgumentOutOfRangeException.ThrowIfNegative(maxYields);
        ArgumentOutOfRangeException.ThrowIfLessThan(maxParkMs, 1);
        _maxSpins = maxSpins;
        _maxYields = maxYields;
        _maxParkMs = maxParkMs;
    }

    /// <summary>The sleep the next park would use (-1 = not parking yet, 0 = Sleep(0)); after a park to a deadline
    /// (the engine agent's), that park's. For tests and diagnostics.</summary>
    public int CurrentParkMs => _parkMs;

    /// <summary>The wakeup that ends a park early, or null.</summary>
    internal IdleWakeup? Wakeup => _wakeup;

    /// <inheritdoc/>
    public void Idle(int workCount)
    {
        if (workCount > 0)
        {
            Reset();
            return;
        }
        if (_spins < _maxSpins)
        {
            _spins++;
            Thread.SpinWait(1);
        }
        else if (_yields < _maxYields)
        {
            _yields++;
            Thread.Yield();
        }
        else
        {
            if (_parkMs < 0)
            {
                _parkMs = 0;
            }
            if (_wakeup is null)
            {
                Thread.Sleep(_parkMs);
            }
            else if (_wakeup.Park(_parkMs))
            {
                // Woken for work: the next iteration does it; come back to the spin phase rather than park longer.
                Reset();
                return;
            }
            _parkMs = _parkMs == 0 ? 1 : Math.Min(_parkMs * 2, _maxParkMs);
        }
    }

    /// <summary>As <see cref="Idle(int)"/>, but once past the spin, yield and <c>Thread.Sleep(0)</c> steps each park lasts
    /// until <paramref name="parkLimitNs"/> from now (rounded up to a millisecond, at least 1 ms) instead of the growing
    /// sleep: for a loop that knows when it next has something to do (the engine agent's next deadline), woken earlier
    /// through the <see cref="IdleWakeup"/> for work other threads hand it.</summary>
    /// <param name="workCount">Work items done by the last iteration.</param>
    /// <param name="parkLimitNs">Nanoseconds until the loop's next deadline; the caller caps it.</param>
    internal void Idle(int workCount, long parkLimitNs)
    {
        if (workCount > 0 || _spins < _maxSpins || _yields < _maxYields || _parkMs < 0)
        {
            Idle(workCount);
            return;
        }
        const long NsPerMs = 1_000_000L;
        _parkMs = parkLimitNs <= NsPerMs ? 1 : (int)Math.Min(int.MaxValue, (parkLimitNs + NsPerMs - 1) / NsPerMs);
        if (_wakeup is null)
        {
            Thread.Sleep(_parkMs);
        }
        else if (_wakeup.Park(_parkMs))
        {
            Reset();
        }
    }

    /// <inheritdoc/>
    public void Reset()
    {
        _spins = 0;
        _yields = 0;
        _parkMs = -1;
    }
}
