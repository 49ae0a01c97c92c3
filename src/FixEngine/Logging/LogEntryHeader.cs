using System.Runtime.InteropServices;

namespace FixEngine.Logging;

/// <summary>The fixed part of a log record in a producer's ring; the payload bytes follow it.</summary>
[StructLayout(LayoutKind.Sequential)]
internal struct LogEntryHeader
{
    public const byte KindEvent = 0;
    public const byte KindDropped = 1;
    public const byte FlagTruncated = 1;
    public const byte FlagTimestampNs = 2;

    /// <summary>The payload is a FIX message (LogProducer.LogMessage): the producer's <see cref="LogRedaction"/> applies.</summary>
    public const byte FlagFixMessage = 4;

    /// <summary>
    /// Monotonic time of the call: a raw <see cref="Timing.TscClock.GetTimestamp"/> value when the log has no clock, the
    /// clock's NowNs otherwise; or, with <see cref="FlagTimestampNs"/>, the caller's own monotonic ns (LogProducer.LogAt).
    /// FixLog's timestamp converters turn it into epoch ns on the drain thread.
    /// </summary>
    public long Timestamp;
    public long Arg0;
    public long Arg1;
    public long Arg2;
    public long Arg3;
    public int EventId;
    public int PayloadLength;
    public LogLevel Level;
    public byte ArgCount;
    public byte Kind;
    public byte Flags;
}
