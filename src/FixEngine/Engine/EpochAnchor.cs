using System.Threading;
using FixEngine.Timing;

namespace FixEngine.Engine;

// Design:
// - Owner thread: the engine agent. It alone writes the anchor (BeginCycle, once a second of monotonic time) and the
//   cycle's epoch time; the FixEngineHost constructor sets it once before the agent starts.
// - Epoch = monotonic + offset, the offset (epoch minus monotonic, read from the clock together) refreshed once a second,
//   so an adjusted system clock is followed within a second and the epoch clock is not read per duty cycle. Other threads
//   (socket completion threads, the accept and connect threads) read the offset with Volatile.Read and the monotonic
//   clock themselves: EpochNow.
// - Names: nowNs is monotonic time (the agent's duty-cycle argument), epochNs is epoch time (what sessions, stores and
//   logs are given).

/// <summary>The engine's time: the agent's duty-cycle epoch time and the anchor that derives epoch time from monotonic time.</summary>
internal sealed class EpochAnchor
{
    private const long RefreshIntervalNs = 1_000_000_000L;

    /// <summary>A pair whose monotonic reads are this close around the epoch read ends the tries (a real clock moves well
    /// under a microsecond; a preempted reader just reads again).</summary>
    private const long GoodPairWindowNs = 100_000L;

    private const int PairTries = 5;

    private readonly IClock _clock;
    private long _offsetNs;
    private long _nextRefreshNs;

    public EpochAnchor(IClock clock)
    {
        _clock = clock;
        Refresh();
    }

    /// <summary>The epoch time of the current duty cycle (agent thread only).</summary>
    public long CycleEpochNs { get; private set; }

    /// <summary>Agent: starts a duty cycle at monotonic <paramref name="nowNs"/>; returns its epoch time.</summary>
    public long BeginCycle(long nowNs)
    {
        if (nowNs >= _nextRefreshNs) Refresh();
        long epochNs = nowNs + _offsetNs;
        CycleEpochNs = epochNs;
        return epochNs;
    }

    /// <summary>Epoch now, from one monotonic clock read and the anchor (any thread).</summary>
    public long EpochNow() => _clock.NowNs + Volatile.Read(ref _offsetNs);

    private void Refresh()
    {
        // The epoch time must be paired with the monotonic time it belongs to. A clock that moves between the two reads
        // by a step (a test's or a simulation's clock advanced by another thread, EngineOptions.Clock) would otherwise
        // give an offset wrong by that step for a whole refresh interval: sessions' time jumps back and forth, and a
        // timer sees a peer silent for two steps (a spurious TestRequest, seen in CompletionModeTests). So the pair is
        // read bracketed (Timing/ClockPair.cs): the monotonic clock on both sides of the epoch read, a few tries, the
        // narrowest kept (bounded: with no narrow try, the narrowest is used).
        ClockPair pair = ClockPair.ReadBest(new PairClocks(_clock), PairTries, GoodPairWindowNs);
        Volatile.Write(ref _offsetNs, pair.Inner - pair.OuterNs);
        _nextRefreshNs = pair.OuterNs + RefreshIntervalNs;
    }

    private readonly struct PairClocks(IClock clock) : IPairClocks
    {
        public long ReadOuterNs() => clock.NowNs;

        public long ReadInner() => clock.EpochNs;
    }
}
