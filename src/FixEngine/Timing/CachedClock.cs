using System;
using System.Diagnostics;
using System.Threading;
using FixEngine.Collections;

namespace FixEngine.Timing;

/// <summary>How <see cref="CachedClock"/>'s background thread waits between refreshes.</summary>
public enum CachedClockRefreshMode
{
    /// <summary>
    /// <see cref="Thread.Sleep(int)"/> between refreshes: nearly free CPU, but the OS timer limits the period to about
    /// 1 ms on Linux (often ~15.6 ms on Windows without a raised timer resolution), so readers see time in steps of
    /// that size. The default.
    /// </summary>
    Sleep = 0,

    /// <summary>
    /// Spin with <see cref="Thread.Yield"/>/<see cref="Thread.SpinWait(int)"/> until the interval passes: honours
    /// intervals of tens of microseconds but keeps one core busy whenever nothing else wants it. Only for deployments
    /// with a spare core.
    /// </summary>
    Spin = 1,
}

// Design:
// - One background thread (named, IsBackground) writes the current monotonic and epoch time into two
//   PaddedLongs; readers on any thread pay one volatile load (a plain mov on x64). The two values are
//   separate fields: a reader that reads both may see them from adjacent refreshes (at most one
//   interval apart).
// - Only the refresher writes _nowNs/_epochNs (release); readers acquire. _stopping is written by
//   Dispose and read by the refresher.

/// <summary>A clock whose reads cost one memory load, refreshed by a background thread.</summary>
/// <remarks>
/// Thread-safe; reads never allocate. Resolution equals the refresh period (see <see cref="CachedClockRefreshMode"/>
/// for the CPU trade-off). Dispose stops the thread; reads after Dispose return the last value.
/// <para>Part of FixEngine's reusable low-latency toolkit (with the other types of Buffers, Collections, Timing and
/// Hosting): public and supported for trading code to use on its own threads, independently of the FIX layers.</para>
/// </remarks>
public sealed class CachedClock : IClock, IDisposable
{
    /// <summary>The default refresh interval (50 µs; with <see cref="CachedClockRefreshMode.Sleep"/> the OS rounds it up to its timer tick).</summary>
    public static readonly TimeSpan DefaultRefreshInterval = TimeSpan.FromMicroseconds(50);

    private readonly EpochClock _epochClock;
    private readonly long _intervalNs;
    private readonly CachedClockRefreshMode _mode;
    private readonly Thread _thread;
    private PaddedLong _nowNs;
    private PaddedLong _epochNs;
    private volatile bool _stopping;

    /// <summary>Creates and starts the clock.</summary>
    /// <param name="refreshInterval">Time between refreshes; <see cref="DefaultRefreshInterval"/> when null.</param>
    /// <param name="mode">How the refresher waits.</param>
    /// <param name="epochClock">Source of epoch time; a new <see cref="EpochClock"/> when null.</param>
    public CachedClock(TimeSpan? refreshInterval = null, CachedClockRefreshMode mode = CachedClockRefreshMode.Sleep, EpochClock? epochClock = null)
    {
        TimeSpan interval = refreshInterval ?? DefaultRefreshInterval;
        if (interval <= TimeSpan.Zero)
        {
            throw new ArgumentOutOfRangeException(nameof(refreshInterval), interval, "The refresh interval must be positive.");
        }
        _intervalNs = interval.Ticks * 100;
        _mode = mode;
        _epochClock = epochClock ?? new EpochClock();
        Refresh();
        _thread = new Thread(Run) { IsBackground = true, Name = "FixEngine.CachedClock" };
        _thread.Start();
    }

    /// <summary>Monotonic nanoseconds as of the last refresh.</summary>
    public long NowNs => _nowNs.VolatileValue;

    /// <summary>UTC epoch nanoseconds as of the last refresh.</summary>
    public long EpochNs => _epochNs.VolatileValue;

    /// <summary>Stops the refresher thread and waits for it.</summary>
    public void Dispose()
    {
        if (_stopping)
        {
            return;
        }
        _stopping = true;
        if (Thread.CurrentThread != _thread)
        {
            _thread.Join();
        }
    }

    private void Refresh()
    {
        long now = HighResTime.NowNs();
        _epochNs.VolatileValue = _epochClock.ToEpochNs(now);
        _nowNs.VolatileValue = now;
    }

    private void Run()
    {
        int sleepMs = (int)Math.Clamp(_intervalNs / 1_000_000, 0, int.MaxValue);
        while (!_stopping)
        {
            Refresh();
            if (_mode == CachedClockRefreshMode.Sleep)
            {
                // Sleep(0) only yields; a sub-millisecond interval in Sleep mode would spin, so park at least 1 ms.
                Thread.Sleep(Math.Max(sleepMs, 1));
            }
            else
            {
                long deadline = HighResTime.NowNs() + _intervalNs;
                int spins = 0;
                while (HighResTime.NowNs() < deadline && !_stopping)
                {
                    if (++spins % 16 == 0)
                    {
                        Thread.Yield();
                    }
                    else
                    {
                        Thread.SpinWait(8);
                    }
                }
            }
        }
        Debug.Assert(_stopping);
    }
}
