using System.Threading;
using FixEngine.Timing;

namespace FixEngine.Tests.Infrastructure;

/// <summary>A settable clock for tests: monotonic and epoch time move only when told to.</summary>
/// <remarks>Thread-safe (volatile reads, atomic advance); allocation-free.</remarks>
public sealed class FakeClock : IClock
{
    private long _nowNs;
    private long _epochNs;

    /// <summary>Creates a clock at the given times.</summary>
    /// <param name="nowNs">Initial monotonic time.</param>
    /// <param name="epochNs">Initial epoch time (UTC ns since the Unix epoch).</param>
    public FakeClock(long nowNs = 0, long epochNs = 0)
    {
        _nowNs = nowNs;
        _epochNs = epochNs;
    }

    /// <summary>Monotonic time; settable.</summary>
    public long NowNs
    {
        get => Volatile.Read(ref _nowNs);
        set => Volatile.Write(ref _nowNs, value);
    }

    /// <summary>Epoch time; settable.</summary>
    public long EpochNs
    {
        get => Volatile.Read(ref _epochNs);
        set => Volatile.Write(ref _epochNs, value);
    }

    /// <summary>Moves both clocks forward by <paramref name="deltaNs"/>.</summary>
    /// <param name="deltaNs">Nanoseconds to advance.</param>
    public void Advance(long deltaNs)
    {
        Interlocked.Add(ref _nowNs, deltaNs);
        Interlocked.Add(ref _epochNs, deltaNs);
    }
}

/// <summary>A settable epoch clock for tests.</summary>
/// <remarks>Thread-safe; allocation-free.</remarks>
public sealed class FakeEpochClock : IEpochClock
{
    private long _epochNs;

    /// <summary>Creates a clock at <paramref name="epochNs"/>.</summary>
    /// <param name="epochNs">Initial UTC ns since the Unix epoch.</param>
    public FakeEpochClock(long epochNs = 0) => _epochNs = epochNs;

    /// <summary>Epoch time; settable.</summary>
    public long EpochNs
    {
        get => Volatile.Read(ref _epochNs);
        set => Volatile.Write(ref _epochNs, value);
    }

    /// <summary>Moves the clock forward by <paramref name="deltaNs"/>.</summary>
    /// <param name="deltaNs">Nanoseconds to advance.</param>
    public void Advance(long deltaNs) => Interlocked.Add(ref _epochNs, deltaNs);
}
