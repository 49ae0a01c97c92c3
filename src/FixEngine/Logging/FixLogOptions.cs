using FixEngine.Timing;

namespace FixEngine.Logging;

/// <summary>What a <see cref="LogProducer"/> does when its ring has no room for an entry.</summary>
public enum LogFullPolicy : byte
{
    /// <summary>
    /// The caller waits until the drain has made room (spinning, then yielding, then sleeping 1 ms at a time; in
    /// manual-drain mode it drains the rings itself): nothing is lost, the caller is slowed to the sink's speed. The
    /// default: an audit log must not lose a line. An entry is dropped (and counted) only once the log is disposed.
    /// </summary>
    Wait,

    /// <summary>The entry is dropped and counted; the output shows <c>dropped N entries</c> at the gap. The caller never waits.</summary>
    Drop,
}

/// <summary>Settings for a <see cref="FixLog"/>.</summary>
/// <remarks>Read once by the <see cref="FixLog"/> constructor.</remarks>
public sealed class FixLogOptions
{
    /// <summary>Entries below this level are discarded on the caller's thread. Default <see cref="LogLevel.Information"/>.</summary>
    public LogLevel MinimumLevel { get; set; } = LogLevel.Information;

    /// <summary>Bytes of ring per producer (power of two, at least 4096). Default 1 MiB.</summary>
    /// <remarks>The largest payload kept whole is <c>RingCapacityBytes / 2 - 64</c>; longer payloads are truncated.</remarks>
    public int RingCapacityBytes { get; set; } = 1 << 20;

    /// <summary>
    /// Timestamp source: <see cref="IClock.NowNs"/> is read on the caller's thread, and converted to wall time on the
    /// drain thread with <see cref="IEpochClock.EpochNs"/> minus <see cref="IClock.NowNs"/>. When null (the default) the
    /// caller stores the raw <see cref="TscClock.GetTimestamp"/> value (the TSC read directly where that is sound, else
    /// <see cref="System.Diagnostics.Stopwatch.GetTimestamp"/>; no interface call, no arithmetic) and the drain thread
    /// converts it with <see cref="TscClock.TimestampToNs"/> and <see cref="EpochClock.Shared"/>: full resolution.
    /// Callers that already hold the time use <see cref="LogProducer.LogAt(long, LogLevel, int)"/> and friends, which
    /// read no clock; their time is on this clock's <see cref="IClock.NowNs"/> scale (<see cref="HighResTime"/> when
    /// null). A <see cref="CachedClock"/> is read without an interface call
    /// and is the cheapest, at the clock's resolution; a test passes a clock of its own that it moves by hand.
    /// </summary>
    public IClock? Clock { get; set; }

    /// <summary>Most records the drain thread takes from one producer per pass. Default 4096.</summary>
    public int DrainBatchSize { get; set; } = 4096;

    /// <summary>Milliseconds the drain thread sleeps when every ring is empty (after flushing). Default 1.</summary>
    public int IdleSleepMs { get; set; } = 1;

    /// <summary>
    /// Whether the log runs its own drain thread (default). When false nothing is written until someone calls
    /// <see cref="FixLog.DrainPending"/>, e.g. an agent on an existing thread, or a deterministic test.
    /// </summary>
    public bool BackgroundDrain { get; set; } = true;

    /// <summary>Character printed for the FIX field separator SOH (0x01) in payloads; null keeps SOH as is.</summary>
    /// <remarks>
    /// Every other byte of a payload that could break a line or hide text is escaped, so one entry is always one line:
    /// <c>\n</c>, <c>\r</c>, <c>\t</c>, <c>\\</c> for a backslash, and <c>\xHH</c> for the other control bytes
    /// (0x00-0x1F, 0x7F) and for bytes 0x80-0xFF.
    /// </remarks>
    public char? SohReplacement { get; set; }

    /// <summary>What a producer does when its ring is full. Default <see cref="LogFullPolicy.Wait"/> (lossless).</summary>
    public LogFullPolicy FullPolicy { get; set; } = LogFullPolicy.Wait;
}
