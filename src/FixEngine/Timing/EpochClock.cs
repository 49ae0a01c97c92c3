using System;
using System.Threading;

namespace FixEngine.Timing;

// Design:
// - Wall time = anchor epoch + (monotonic now - anchor monotonic). DateTime.UtcNow is read only when
//   (re-)anchoring, so a read costs one Stopwatch timestamp; re-anchoring every interval keeps the
//   result within the drift of the monotonic clock over that interval from the system clock.
// - The anchor pair is guarded by a sequence lock: _version odd while a writer updates it. Writers
//   (whoever notices the anchor is stale, or calls Reanchor) win the odd version with a CAS, so at most
//   one writes at a time with plain stores between the CAS (a full fence) and the even version (a release),
//   and a losing writer just skips; readers take each field with an acquire read and retry while odd or changed. No locks,
//   no allocation.
// - The pair is read bracketed (ClockPair): monotonic, UtcNow, monotonic again, up to PairTries times, keeping the try
//   with the narrowest window, and anchored at its middle. A thread preempted between the two reads of an unbracketed pair
//   anchored epoch time ahead by the delay (milliseconds on a loaded machine) for a whole interval, and the next
//   re-anchor stepped it back: SendingTime going backwards. When every try is held up (best window over
//   MaxPairWindowNs) a re-anchor keeps the old anchor (the next stale read tries again); the first anchor, having no
//   other, takes the best try's middle, off by at most half its window.

/// <summary>UTC epoch nanoseconds from a monotonic clock anchored to <see cref="DateTime.UtcNow"/>.</summary>
/// <remarks>
/// Thread-safe, allocation-free. Re-anchors itself when the anchor is older than the re-anchor interval
/// (checked on read) or when <see cref="Reanchor"/> is called, so the value can step when the system clock
/// is adjusted. Use <see cref="HighResTime"/> for durations.
/// </remarks>
public sealed class EpochClock : IClock
{
    /// <summary>The default re-anchor interval (1 s).</summary>
    public const long DefaultReanchorIntervalNs = 1_000_000_000;

    private const long UnixEpochTicks = 621_355_968_000_000_000; // DateTime.UnixEpoch.Ticks

    /// <summary>Widest window (monotonic before and after the UtcNow read) of a pair a re-anchor uses (50 us).</summary>
    internal const long MaxPairWindowNs = 50_000;

    private const int PairTries = 8;

    /// <summary>A window this narrow ends the tries early (a pair of unpreempted reads takes well under a microsecond).</summary>
    private const long GoodPairWindowNs = 2_000;

    private readonly long _reanchorIntervalNs;
    private readonly Func<long>? _monotonicNs;
    private readonly Func<long>? _utcEpochNs;
    private int _version;
    private long _anchorEpochNs;
    private long _anchorMonotonicNs;

    /// <summary>Creates a clock anchored now.</summary>
    /// <param name="reanchorIntervalNs">How old the anchor may get before a read refreshes it; 0 or less disables automatic re-anchoring.</param>
    public EpochClock(long reanchorIntervalNs = DefaultReanchorIntervalNs)
        : this(reanchorIntervalNs, null, null)
    {
    }

    /// <summary>A clock whose anchor pairs are read from the given sources, or from <see cref="HighResTime"/> and
    /// <see cref="DateTime.UtcNow"/> where null (tests: a monotonic clock and a system clock that a test moves, including
    /// between the two reads of a pair). Reads still take monotonic time from
    /// <see cref="HighResTime"/>: pass the test's monotonic values to <see cref="ToEpochNs"/>.</summary>
    internal EpochClock(long reanchorIntervalNs, Func<long>? monotonicNs, Func<long>? utcEpochNs)
    {
        _reanchorIntervalNs = reanchorIntervalNs <= 0 ? long.MaxValue : reanchorIntervalNs;
        _monotonicNs = monotonicNs;
        _utcEpochNs = utcEpochNs;
        (_anchorMonotonicNs, _anchorEpochNs, _) = ReadPair();
    }

    /// <summary>A process-wide instance with the default interval.</summary>
    public static EpochClock Shared { get; } = new();

    /// <inheritdoc/>
    public long NowNs => HighResTime.NowNs();

    /// <inheritdoc/>
    public long EpochNs => ToEpochNs(HighResTime.NowNs());

    /// <summary>Converts a monotonic time from <see cref="HighResTime.NowNs"/> to epoch nanoseconds with the current anchor.</summary>
    /// <param name="monotonicNs">A monotonic timestamp (recent: the anchor is applied as is).</param>
    /// <returns>UTC nanoseconds since the Unix epoch.</returns>
    public long ToEpochNs(long monotonicNs)
    {
        bool reanchored = false;
        while (true)
        {
            int version = Volatile.Read(ref _version);
            long anchorEpoch = Volatile.Read(ref _anchorEpochNs);
            long anchorMonotonic = Volatile.Read(ref _anchorMonotonicNs);
            if ((version & 1) == 0 && Volatile.Read(ref _version) == version)
            {
                if (!reanchored && monotonicNs - anchorMonotonic > _reanchorIntervalNs)
                {
                    reanchored = true;
                    Reanchor();
                    continue;
                }
                return anchorEpoch + (monotonicNs - anchorMonotonic);
            }
            Thread.SpinWait(1);
        }
    }

    /// <summary>Re-reads <see cref="DateTime.UtcNow"/> and re-anchors. Skipped if another thread is re-anchoring; the old
    /// anchor is kept when every try of the pair was held up (see the design notes).</summary>
    public void Reanchor()
    {
        int version = Volatile.Read(ref _version);
        if ((version & 1) != 0 || Interlocked.CompareExchange(ref _version, version + 1, version) != version)
        {
            return;
        }
        (long monotonic, long epoch, long windowNs) = ReadPair();
        if (windowNs <= MaxPairWindowNs)
        {
            // Plain stores: the CAS is a full fence (neither is visible before the odd version) and the release below
            // makes both visible before the even version.
            _anchorMonotonicNs = monotonic;
            _anchorEpochNs = epoch;
        }
        else
        {
            HeldUpReanchors++;
        }
        Volatile.Write(ref _version, version + 2);
    }

    /// <summary>Number of re-anchors that kept the old anchor because every try of the pair was held up (tests).</summary>
    internal int HeldUpReanchors { get; private set; }

    // The best of up to PairTries bracketed pairs (ClockPair): (monotonic at the middle of its window, epoch, window).
    private ClockPair ReadPair() => ClockPair.ReadBest(new PairClocks(this), PairTries, GoodPairWindowNs);

    private readonly struct PairClocks(EpochClock clock) : IPairClocks
    {
        public long ReadOuterNs() => clock.MonotonicNow();

        public long ReadInner() => clock.UtcNowEpochNs();
    }

    private long MonotonicNow() => _monotonicNs is null ? HighResTime.NowNs() : _monotonicNs();

    private long UtcNowEpochNs() => _utcEpochNs is null ? (DateTime.UtcNow.Ticks - UnixEpochTicks) * 100 : _utcEpochNs();
}
