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

    private readonly long _reanchorIntervalNs;
    private int _version;
    private long _anchorEpochNs;
    private long _anchorMonotonicNs;

    /// <summary>Creates a clock anchored now.</summary>
    /// <param name="reanchorIntervalNs">How old the anchor may get before a read refreshes it; 0 or less disables automatic re-anchoring.</param>
    public EpochClock(long reanchorIntervalNs = DefaultReanchorIntervalNs)
    {
        _reanchorIntervalNs = reanchorIntervalNs <= 0 ? long.MaxValue : reanchorIntervalNs;
        _anchorMonotonicNs = HighResTime.NowNs();
        _anchorEpochNs = UtcNowEpochNs();
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

    /// <summary>Re-reads <see cref="DateTime.UtcNow"/> and re-anchors. Skipped if another thread is re-anchoring.</summary>
    public void Reanchor()
    {
        int version = Volatile.Read(ref _version);
        if ((version & 1) != 0 || Interlocked.CompareExchange(ref _version, version + 1, version) != version)
        {
            return;
        }
        // Read the pair as close together as possible.
        long monotonic = HighResTime.NowNs();
        long epoch = UtcNowEpochNs();
        // Plain stores: the CAS is a full fence (neither is visible before the odd version) and the release below
        // makes both visible before the even version.
        _anchorMonotonicNs = monotonic;
        _anchorEpochNs = epoch;
        Volatile.Write(ref _version, version + 2);
    }

    private static long UtcNowEpochNs() => (DateTime.UtcNow.Ticks - UnixEpochTicks) * 100;
}
