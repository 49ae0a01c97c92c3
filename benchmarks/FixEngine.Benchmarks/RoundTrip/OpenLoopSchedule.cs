using System;

namespace FixEngine.Benchmarks.RoundTrip;

/// <summary>The intended send times of an open-loop sender at a fixed rate: order i is due at start + i / rate.</summary>
/// <remarks>
/// Immutable value, thread-safe, no allocation. Latency is measured from <see cref="IntendedNs"/>, never from the
/// actual send, so when the sender or the system stalls, every order the stall delays is charged the wait
/// (coordinated-omission correction without synthetic samples). Times are computed from the index, not accumulated,
/// so the schedule does not drift.
/// </remarks>
public readonly struct OpenLoopSchedule
{
    private readonly long _startNs;
    private readonly double _intervalNs;

    /// <summary>Creates a schedule starting at <paramref name="startNs"/>.</summary>
    /// <param name="startNs">Intended time of order 0 (monotonic ns).</param>
    /// <param name="ratePerSecond">Orders per second, greater than 0.</param>
    public OpenLoopSchedule(long startNs, double ratePerSecond)
    {
        if (!(ratePerSecond > 0)) throw new ArgumentOutOfRangeException(nameof(ratePerSecond), ratePerSecond, "rate must be > 0");
        _startNs = startNs;
        _intervalNs = 1_000_000_000.0 / ratePerSecond;
    }

    /// <summary>The interval between orders, rounded to ns.</summary>
    public long IntervalNs => (long)Math.Round(_intervalNs);

    /// <summary>The intended send time of order <paramref name="index"/> (0-based).</summary>
    public long IntendedNs(long index) => _startNs + (long)(index * _intervalNs);

    /// <summary>How many orders are due at <paramref name="nowNs"/> (index of the first not yet due).</summary>
    public long DueCount(long nowNs) => nowNs < _startNs ? 0 : (long)((nowNs - _startNs) / _intervalNs) + 1;
}
