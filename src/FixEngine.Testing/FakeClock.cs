using System.Threading;
using FixEngine.Timing;

namespace FixEngine.Testing;

/// <summary>A settable clock for tests: monotonic and epoch time move only when told to. Give it to the engine
/// (<c>EngineOptions.Clock</c>) or to code that takes an <see cref="IClock"/>, and move it with <see cref="Advance"/>.</summary>
/// <remarks>Thread-safe (volatile reads, atomic advance); allocation-free.</remarks>
public sealed class FakeClock : IClock
{
    // Epoch time is kept as an offset from monotonic time, so Advance moves both with one atomic add: a reader never sees
    // one advanced and the other not (EpochAnchor pairs them by reading the monotonic clock around the epoch read).
    private long _nowNs;
    private long _epochOffsetNs;

    /// <summary>Creates a clock at the given times.</summary>
    /// <param name="nowNs">Initial monotonic time.</param>
    /// <param name="epochNs">Initial epoch time (UTC ns since the Unix epoch).</param>
    public FakeClock(long nowNs = 0, long epochNs = 0)
    {
        _nowNs = nowNs;
        _epochOffsetNs = epochNs - nowNs;
    }

    /// <summary>Monotonic time; settable (epoch time stays where it is).</summary>
    public long NowNs
    {
        get => Volatile.Read(ref _nowNs);
        set
        {
            long epochNs = EpochNs;
            Volatile.Write(ref _nowNs, value);
            Volatile.Write(ref _epochOffsetNs, epochNs - value);
        }
    }

    /// <summary>Epoch time; settable (monotonic time stays where it is).</summary>
    public long EpochNs
    {
        get => Volatile.Read(ref _nowNs) + Volatile.Read(ref _epochOffsetNs);
        set => Volatile.Write(ref _epochOffsetNs, value - Volatile.Read(ref _nowNs));
    }

    /// <summary>Moves both clocks forward by <paramref name="deltaNs"/> (one atomic step).</summary>
    /// <param name="deltaNs">Nanoseconds to advance.</param>
    public void Advance(long deltaNs) => Interlocked.Add(ref _nowNs, deltaNs);
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
