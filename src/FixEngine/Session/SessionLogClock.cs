using System;
using FixEngine.Timing;

namespace FixEngine.Session;

// Design:
// - A session is given the time with every call (nowNs, epoch ns) and never reads a clock. FixLogSessionLog stores that
//   time in a [ThreadStatic] slot right before it calls its LogProducer on the same thread, and the producer, built
//   over a FixLog whose clock is this one, reads it back as the entry's timestamp: one thread-local store and load
//   per entry instead of a clock read, and the log shows the session's own (possibly fake) time.
// - "Monotonic" and epoch time are the same value here, so the FixLog drain thread's conversion (EpochNs - NowNs,
//   read on the drain thread) is the identity. A thread that never set the slot (the drain thread, a producer used
//   outside FixLogSessionLog) gets the epoch time of its first read, fixed from then on, so that difference stays 0.

/// <summary>The <see cref="IClock"/> to give a <see cref="Logging.FixLog"/> whose producers are <see cref="FixLogSessionLog"/>s:
/// entries are stamped with the time the session was given, without reading a clock.</summary>
/// <remarks>Thread-safe (per-thread state) and allocation-free. <see cref="NowNs"/> and <see cref="EpochNs"/> both
/// return the current thread's last time set by <see cref="FixLogSessionLog"/>, in epoch nanoseconds.</remarks>
internal sealed class SessionLogClock : IClock
{
    [ThreadStatic]
    private static long t_epochNs;

    private SessionLogClock()
    {
    }

    /// <summary>The process-wide instance (pass it as <see cref="Logging.FixLogOptions.Clock"/>).</summary>
    public static SessionLogClock Instance { get; } = new();

    /// <inheritdoc/>
    public long NowNs => Current();

    /// <inheritdoc/>
    public long EpochNs => Current();

    /// <summary>Sets the calling thread's time (epoch nanoseconds) for the entries it logs next.</summary>
    /// <param name="epochNs">The time the session was given.</param>
    internal static void Set(long epochNs) => t_epochNs = epochNs;

    private static long Current()
    {
        long value = t_epochNs;
        if (value == 0)
        {
            value = EpochClock.Shared.EpochNs;
            t_epochNs = value;
        }
        return value;
    }
}
