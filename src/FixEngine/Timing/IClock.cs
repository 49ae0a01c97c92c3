namespace FixEngine.Timing;

/// <summary>Wall-clock time as UTC nanoseconds since the Unix epoch.</summary>
/// <remarks>Implementations are thread-safe and allocation-free unless stated otherwise.</remarks>
public interface IEpochClock
{
    /// <summary>UTC nanoseconds since 1970-01-01T00:00:00Z. Not guaranteed monotonic (re-anchoring may step it).</summary>
    long EpochNs { get; }
}

/// <summary>A clock giving both monotonic time (for durations and timers) and wall-clock time (for timestamps).</summary>
/// <remarks>
/// Session logic takes an <see cref="IClock"/> or is passed <c>nowNs</c> directly and never reads the system clock itself,
/// so a test drives it with a clock of its own that it moves by hand.
/// </remarks>
public interface IClock : IEpochClock
{
    /// <summary>Monotonic nanoseconds since an arbitrary origin.</summary>
    long NowNs { get; }
}
