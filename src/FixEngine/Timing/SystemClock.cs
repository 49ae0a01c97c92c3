namespace FixEngine.Timing;

/// <summary>The real clock: monotonic time from <see cref="HighResTime"/>, epoch time from <see cref="EpochClock.Shared"/>.</summary>
/// <remarks>Thread-safe, allocation-free; each read costs one timestamp.</remarks>
public sealed class SystemClock : IClock
{
    /// <summary>The process-wide instance.</summary>
    public static SystemClock Instance { get; } = new();

    private SystemClock()
    {
    }

    /// <inheritdoc/>
    public long NowNs => HighResTime.NowNs();

    /// <inheritdoc/>
    public long EpochNs => EpochClock.Shared.EpochNs;
}
