using System;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Threading;

namespace FixEngine.Timing;

// Design:
// - Monotonic nanoseconds from the TSC: ns = AnchorNs + (ticks - AnchorTicks) * Mult / 2^32, where the
//   anchor and Mult (ns per tick, 32.32 fixed point) are calibrated against Stopwatch (HighResTime), so
//   the result has HighResTime's origin and scale and the two can be mixed (EpochClock.ToEpochNs).
//   Without a usable TSC (TscReader.Reason) every member reads Stopwatch instead.
// - Start-up: two (ticks, Stopwatch ns) pairs InitialCalibrationNs apart give the first rate. Each pair
//   is read as Stopwatch, TSC, Stopwatch and kept only from a short window (the best of a few tries, ClockPair).
// - Re-anchoring, as EpochClock does, when a reader finds the anchor older than the current interval
//   (16 ms after start-up, doubling to ReanchorIntervalNs): the re-anchoring thread reads a fresh pair,
//   measures the rate over the last interval, takes the lock, reads t0 and extrapolates the pair to
//   Stopwatch time sw0 at t0 (so the lock is held for one TSC read and some arithmetic, not for the
//   Stopwatch reads), and starts a new segment at t0 that is
//   continuous with the old one (+2 ns, see below) and whose slope makes it meet Stopwatch time one
//   interval later. So the clock never steps back: a drift from Stopwatch is slewed away (by at most
//   MaxSlewPpm, and only until the planned next re-anchor: past it the old segment counts at the
//   plain rate), and only a lag of more than StepThresholdNs is stepped forward. It follows Stopwatch, NTP slewing of CLOCK_MONOTONIC included, within the
//   measurement noise of a pair (tens of ns) plus what the rate changes within one interval.
// - A re-anchor more than ResyncLatenessNs after the planned one (no reader for a while, a descheduled
//   thread, a VM pause) does not extrapolate the old segment over the gap: a rate error of 50 ppm over a
//   100 s gap would start the new segment 5 ms ahead, and a lead is only slewed away (0.5 ms a second).
//   No reader got a value past the old segment's planned end (a reader past it re-anchors instead), so the
//   new segment starts at max(Stopwatch, that end + 2 ns): monotonic, and the lead it keeps is at most the
//   one the old segment had built up by its planned end.
// - The promise (MaxDivergenceNs, 250 us): while the rate of CLOCK_MONOTONIC against the TSC stays within
//   50 ppm of the last measured rate (and measured rates are accepted only within 50 ppm), a segment of at
//   most 1 s drifts at most ~100 us from Stopwatch, a segment starts within the previous one's end
//   divergence (slewed toward 0 by up to 500 us a second), so NowNs stays within about 200 us of Stopwatch.
//   TscDivergenceTests check it against a simulated TSC and OS clock (TscReader.MapCellReader).
// - A pair whose best window exceeds MaxPairWindowNs (every try held up between its reads) is not used:
//   its midpoint may be off by half the window, and stepping forward to it (a "lag" above StepThresholdNs)
//   would leave the clock that far ahead. The old segment continues at the plain rate, retried one interval later.
//   Calibration retries such pairs for up to MaxCalibrationNs (the first anchor is a pair's midpoint), then gives
//   up: the source reads Stopwatch, with the reason in FallbackReason.
// - Readers and the re-anchoring thread share (_anchorTicks, _anchorNs, _mult, _nextReanchorTicks)
//   through a sequence lock: _version is odd while the single writer (won by CAS, others skip)
//   updates them; readers retry while it is odd or changed. Readers write nothing and never allocate.
// - Cross-thread monotonicity of NowNs: the reader reads the TSC (ordered: not before its earlier
//   loads) first, then the record. If it gets record k, its version reads happened before the
//   writer's CAS, so its TSC value is below the writer's t0 except for the out-of-order window in
//   which later loads can run ahead of RDTSCP (tens of cycles); record k+1 starts 2 ns above record
//   k's value at t0, which covers the slope change over that window (|slope change| * window << 1 ns,
//   and 2 ns also absorbs the rounding of both segments). A reader that gets record k+1 read its TSC
//   after it was published, so at or after t0 (a few ticks of cross-core skew are clamped to t0).
// - TimestampToNs converts a raw reading taken earlier (a log record's): it extrapolates the current
//   segment backwards instead of clamping, so a value read up to a few seconds ago converts to within
//   a few ns of what NowNs would have said then.

/// <summary>A TSC-based monotonic clock calibrated against <see cref="Stopwatch"/>, or Stopwatch itself as a fallback.</summary>
/// <remarks>Thread-safe; reads never allocate. <see cref="TscClock"/> is the process-wide instance.</remarks>
internal sealed unsafe class TscTimeSource
{
    /// <summary>Longest interval between re-anchors (1 s).</summary>
    public const long ReanchorIntervalNs = 1_000_000_000;

    /// <summary>A lag behind Stopwatch larger than this is stepped forward instead of slewed away (1 ms).</summary>
    public const long StepThresholdNs = 1_000_000;

    /// <summary>
    /// How far <see cref="NowNs"/> may be from <see cref="HighResTime"/> (250 us) while the OS clock's rate stays within
    /// 50 ppm of the last measured rate over an interval; see the design notes.
    /// </summary>
    public const long MaxDivergenceNs = 250_000;

    /// <summary>A re-anchor this much later than planned resynchronises instead of continuing the old segment (1 ms).</summary>
    public const long ResyncLatenessNs = 1_000_000;

    private const long FirstReanchorIntervalNs = 16_000_000;
    private const long InitialCalibrationNs = 1_000_000;
    private const long GoodPairWindowNs = 250;
    private const long MaxPairWindowNs = 50_000;
    private const long MaxCalibrationNs = 200_000_000;
    private const long MinRateBaselineNs = 8_000_000;
    private const long MaxRateErrorDivisor = 20_000; // 50 ppm
    private const long MaxSlewPpm = 500;
    private const int PairAttempts = 16;
    private const long GuardStepNs = 2;

    private readonly delegate* unmanaged[SuppressGCTransition]<long> _ordered;
    private readonly delegate* unmanaged[SuppressGCTransition]<long> _unordered;
    private readonly Func<long>? _osNowNs;

    private int _version;
    private long _anchorTicks;
    private long _anchorNs;
    private ulong _mult;
    private long _nextReanchorTicks;

    // Written by the re-anchoring thread only, while it holds the odd version.
    private ulong _rate;
    private long _lastTicks;
    private long _lastStopwatchNs;
    private long _intervalNs;
    private long _reanchorCount;

    /// <summary>Creates a source over the process's TSC readers, or a Stopwatch fallback.</summary>
    /// <param name="forceFallback">Use Stopwatch even when the TSC is usable (tests).</param>
    public TscTimeSource(bool forceFallback = false)
    {
        if (forceFallback || TscReader.Reason is not null)
        {
            FallbackReason = forceFallback ? "forced (test or caller)" : TscReader.Reason;
            Description = $"Stopwatch (TSC not used: {FallbackReason})";
            return;
        }
        _ordered = TscReader.Ordered;
        _unordered = TscReader.Unordered;
        string? failure = Calibrate();
        if (failure is not null)
        {
            _ordered = null;
            _unordered = null;
            FallbackReason = failure;
            Description = $"Stopwatch (TSC not used: {failure})";
            return;
        }
        Description = $"TSC via {(TscReader.HasRdtscp ? "rdtscp" : "lfence+rdtsc")} (rdtsc for raw timestamps), {CalibratedGhz()} GHz calibrated against Stopwatch";
    }

    /// <summary>A source over given counter readers and OS clock (tests: a simulated TSC and Stopwatch).</summary>
    /// <param name="ordered">Stands in for the ordered TSC read.</param>
    /// <param name="unordered">Stands in for the unordered TSC read.</param>
    /// <param name="osNowNs">Stands in for <see cref="HighResTime.NowNs"/> in calibration and re-anchoring.</param>
    /// <exception cref="InvalidOperationException">The calibration failed (e.g. the counter did not advance).</exception>
    internal TscTimeSource(delegate* unmanaged[SuppressGCTransition]<long> ordered, delegate* unmanaged[SuppressGCTransition]<long> unordered,
        Func<long> osNowNs)
    {
        ArgumentNullException.ThrowIfNull(osNowNs);
        _ordered = ordered;
        _unordered = unordered;
        _osNowNs = osNowNs;
        string? failure = Calibrate();
        if (failure is not null)
        {
            throw new InvalidOperationException(failure);
        }
        Description = $"injected counter, {CalibratedGhz()} GHz calibrated against an injected clock";
    }

    private string CalibratedGhz() => (1.0 / ((double)_mult / (1UL << 32))).ToString("F3", System.Globalization.CultureInfo.InvariantCulture);

    /// <summary>The OS clock the TSC is calibrated against: <see cref="HighResTime.NowNs"/> unless injected.</summary>
    private long OsNowNs() => _osNowNs is null ? HighResTime.NowNs() : _osNowNs();

    /// <summary>Whether reads come from the TSC.</summary>
    public bool IsTscBacked => _ordered != null;

    /// <summary>Why the TSC is not used, or null when it is.</summary>
    public string? FallbackReason { get; }

    /// <summary>One line saying which counter is read (and why not the TSC, when it is not).</summary>
    public string Description { get; }

    /// <summary>The unordered TSC reader, or null when this source reads Stopwatch.</summary>
    public delegate* unmanaged[SuppressGCTransition]<long> UnorderedReader => _unordered;

    /// <summary>How many times the anchor has been moved since start-up (tests, diagnostics).</summary>
    public long ReanchorCount => Volatile.Read(ref _reanchorCount);

    /// <summary>Monotonic nanoseconds, cross-thread monotonic, with <see cref="HighResTime"/>'s origin and scale.</summary>
    /// <returns>Nanoseconds since an arbitrary fixed origin.</returns>
    public long NowNs()
    {
        if (_ordered == null)
        {
            return HighResTime.NowNs();
        }
        while (true)
        {
            long ticks = _ordered();
            if (TryReadSegment(out Segment segment))
            {
                if (ticks - segment.NextReanchorTicks >= 0)
                {
                    Reanchor();
                    continue;
                }
                long delta = ticks - segment.AnchorTicks;
                return segment.AnchorNs + (delta > 0 ? Scale((ulong)delta, segment.Mult) : 0);
            }
            Thread.SpinWait(1);
        }
    }

    /// <summary>A raw counter value: TSC ticks (unordered read), or Stopwatch ticks on the fallback.</summary>
    /// <returns>The counter; convert it with <see cref="TimestampToNs"/>.</returns>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public long GetTimestamp() => _unordered != null ? _unordered() : Stopwatch.GetTimestamp();

    /// <summary>Converts a recent <see cref="GetTimestamp"/> value to <see cref="NowNs"/>'s nanoseconds.</summary>
    /// <param name="timestamp">A raw value from this source.</param>
    /// <returns>Monotonic nanoseconds.</returns>
    public long TimestampToNs(long timestamp)
    {
        if (_ordered == null)
        {
            return HighResTime.TicksToNs(timestamp);
        }
        bool reanchored = false;
        while (true)
        {
            if (TryReadSegment(out Segment segment))
            {
                if (!reanchored && timestamp - segment.NextReanchorTicks >= 0)
                {
                    reanchored = true;
                    Reanchor();
                    continue;
                }
                long delta = timestamp - segment.AnchorTicks;
                return delta >= 0 ? segment.AnchorNs + Scale((ulong)delta, segment.Mult) : segment.AnchorNs - Scale((ulong)-delta, segment.Mult);
            }
            Thread.SpinWait(1);
        }
    }

    /// <summary>The current segment, read under the sequence lock; false while the writer holds it or moved it meanwhile (retry).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private bool TryReadSegment(out Segment segment)
    {
        int version = Volatile.Read(ref _version);
        // Each field is an acquire read, so none of them can be moved after the version is read again below.
        segment = new Segment(
            Volatile.Read(ref _anchorTicks), Volatile.Read(ref _anchorNs), Volatile.Read(ref _mult), Volatile.Read(ref _nextReanchorTicks));
        return (version & 1) == 0 && Volatile.Read(ref _version) == version;
    }

    /// <summary>One segment of the clock: ns = AnchorNs + (ticks - AnchorTicks) * Mult / 2^32, valid until NextReanchorTicks.</summary>
    private readonly record struct Segment(long AnchorTicks, long AnchorNs, ulong Mult, long NextReanchorTicks);

    /// <summary>Moves the anchor now (normally done by the first read after the interval). Skipped if another thread is at it.</summary>
    public void Reanchor()
    {
        if (_ordered == null)
        {
            return;
        }
        int version = Volatile.Read(ref _version);
        if ((version & 1) != 0)
        {
            return;
        }
        // The pair is read before taking the lock (it may take a few tries): readers keep going meanwhile.
        (long pairTicks, long pairNs, long pairWindowNs) = ReadPair();
        // The CAS is a full fence: t0 below is read after every reader can see the odd version.
        if (Interlocked.CompareExchange(ref _version, version + 1, version) != version)
        {
            return;
        }
        long t0 = _ordered();
        ulong segmentRate = _rate;
        ulong rate = segmentRate;
        long elapsedTicks = pairTicks - _lastTicks;
        long elapsedNs = pairNs - _lastStopwatchNs;
        bool pairUsable = pairWindowNs <= MaxPairWindowNs;
        if (pairUsable && elapsedNs >= MinRateBaselineNs && elapsedTicks > 0 && pairWindowNs * MaxRateErrorDivisor <= elapsedNs)
        {
            // The rate over the last baseline, taken only when the pair's uncertainty (its window, e.g. after a
            // preemption between the reads) is below 1 / MaxRateErrorDivisor of the baseline; otherwise the baseline
            // keeps growing until a good pair comes.
            rate = RateOf(elapsedNs, elapsedTicks);
            _rate = rate;
            _lastTicks = pairTicks;
            _lastStopwatchNs = pairNs;
        }
        long sw0 = pairNs + Scale((ulong)Math.Max(t0 - pairTicks, 0), rate);
        // The old segment's value at min(t0, planned re-anchor), + the guard: no reader got more from it, since a reader
        // past the planned re-anchor re-anchors instead of reading.
        long slewedEnd = Math.Min(t0, _nextReanchorTicks);
        long endNs = _anchorNs + Scale((ulong)Math.Max(slewedEnd - _anchorTicks, 0), _mult) + GuardStepNs;
        long lateTicks = t0 - _nextReanchorTicks;
        long anchorNs;
        if (pairUsable && lateTicks > TicksFor(ResyncLatenessNs, segmentRate))
        {
            // Late (no reader for a while, a descheduled thread, a VM pause): extrapolating the old rate over the gap
            // would carry its error (50 ppm over 100 s is 5 ms) into the new segment, and a lead is only slewed away.
            // Start at the OS clock instead, or at the old segment's end if that is higher (a lead it already gave out).
            anchorNs = Math.Max(endNs, sw0);
        }
        else
        {
            // On time: continue the old segment at its plain rate past the planned re-anchor (so the slew is not
            // carried on), then slew or step below. Every try of the pair held up (a loaded machine, a VM stealing the
            // CPU): its midpoint may be off by half its window, so neither resync nor step nor slew to it; the same
            // continuation, tried again after the same interval (set below).
            anchorNs = endNs + Scale((ulong)Math.Max(lateTicks, 0), segmentRate);
            if (!pairUsable) sw0 = anchorNs;
        }
        long intervalNs = pairUsable ? Math.Min(_intervalNs * 2, ReanchorIntervalNs) : _intervalNs;
        ulong mult;
        if (sw0 - anchorNs > StepThresholdNs)
        {
            anchorNs = sw0; // far behind (e.g. Stopwatch jumped on resume): step forward, never back
            mult = rate;
        }
        else
        {
            // Meet Stopwatch one interval from now: cover intervalNs - offset ns in intervalNs of ticks, slewing
            // by at most MaxSlewPpm (a larger lead is worked off over several intervals).
            long offsetNs = anchorNs - sw0;
            long maxSlewNs = intervalNs / 1_000_000 * MaxSlewPpm;
            long coverNs = intervalNs - Math.Clamp(offsetNs, -maxSlewNs, maxSlewNs);
            mult = (ulong)((UInt128)rate * (ulong)coverNs / (ulong)intervalNs);
        }
        // Plain stores: the CAS above is a full fence (none of them becomes visible before the odd version) and the
        // release below keeps all of them before the even version.
        _intervalNs = intervalNs;
        _anchorTicks = t0;
        _anchorNs = anchorNs;
        _mult = mult;
        _nextReanchorTicks = t0 + TicksFor(intervalNs, rate);
        _reanchorCount++;
        Volatile.Write(ref _version, version + 2);
    }

    /// <summary>First calibration; returns why the TSC cannot be used, or null.</summary>
    private string? Calibrate()
    {
        // The first pair anchors the clock: one held up on every try would start it up to half its window ahead, and a
        // lead is only slewed away. Retry such a pair for up to MaxCalibrationNs, then give up (Stopwatch is read instead).
        long started = OsNowNs();
        (long t1, long sw1, long w1) = ReadPair();
        while (w1 > MaxPairWindowNs && OsNowNs() - started < MaxCalibrationNs)
        {
            (t1, sw1, w1) = ReadPair();
        }
        long t2, sw2, w2;
        do
        {
            // At least InitialCalibrationNs, longer (up to 20x) while the two pairs' windows exceed 1/2000 of it:
            // a preempted pair would otherwise skew the first rate until the first re-anchor.
            long deadline = OsNowNs() + InitialCalibrationNs / 4;
            while (OsNowNs() < deadline)
            {
                Thread.SpinWait(16);
            }
            (t2, sw2, w2) = ReadPair();
        }
        while (sw2 - sw1 < InitialCalibrationNs
            || ((w1 + w2) * 2000 > sw2 - sw1 && sw2 - sw1 < 20 * InitialCalibrationNs)
            || (w2 > MaxPairWindowNs && sw2 - started < MaxCalibrationNs));
        if (Math.Max(w1, w2) > MaxPairWindowNs)
        {
            return $"every calibration pair was held up for {MaxCalibrationNs / 1_000_000} ms (best window {Math.Max(w1, w2)} ns, over {MaxPairWindowNs} ns)";
        }
        long elapsedTicks = t2 - t1;
        long elapsedNs = sw2 - sw1;
        if (elapsedTicks <= 0 || elapsedNs <= 0)
        {
            return $"the TSC did not advance during calibration ({elapsedTicks} ticks in {elapsedNs} ns)";
        }
        ulong rate = RateOf(elapsedNs, elapsedTicks);
        double ghz = (double)elapsedTicks / elapsedNs;
        if (ghz < 0.1 || ghz > 20)
        {
            return $"the TSC rate measured {ghz:F3} GHz, outside 0.1-20 GHz";
        }
        _anchorTicks = t2;
        _anchorNs = sw2;
        _mult = rate;
        _rate = rate;
        _lastTicks = t2;
        _lastStopwatchNs = sw2;
        _intervalNs = FirstReanchorIntervalNs / 2;
        _nextReanchorTicks = t2 + TicksFor(FirstReanchorIntervalNs, rate);
        return null;
    }

    /// <summary>A (TSC ticks, Stopwatch ns) pair read as close together as a few tries allow, and its window
    /// (<see cref="ClockPair"/>: Stopwatch on both sides of the TSC read, the narrowest window's middle).</summary>
    private (long Ticks, long StopwatchNs, long WindowNs) ReadPair()
    {
        ClockPair pair = ClockPair.ReadBest(new PairClocks(this), PairAttempts, GoodPairWindowNs);
        return (pair.Inner, pair.OuterNs, pair.WindowNs);
    }

    private readonly struct PairClocks(TscTimeSource source) : IPairClocks
    {
        public long ReadOuterNs() => source.OsNowNs();

        public long ReadInner() => source._ordered();
    }

    /// <summary>ns per tick in 32.32 fixed point.</summary>
    private static ulong RateOf(long ns, long ticks) => (ulong)(((UInt128)(ulong)ns << 32) / (ulong)ticks);

    /// <summary>Ticks that take <paramref name="ns"/> at <paramref name="mult"/>.</summary>
    private static long TicksFor(long ns, ulong mult) => (long)(((UInt128)(ulong)ns << 32) / mult);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static long Scale(ulong ticks, ulong mult)
    {
        ulong high = Math.BigMul(ticks, mult, out ulong low);
        return (long)((high << 32) | (low >> 32));
    }
}
