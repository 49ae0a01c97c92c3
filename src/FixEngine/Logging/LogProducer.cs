using System;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Threading;
using FixEngine.Collections;
using FixEngine.Timing;

namespace FixEngine.Logging;

// Design:
// - Each producer owns one SpscByteRing: the producer thread is its only writer, the FixLog drain
//   thread its only reader, so the hot path takes no lock and no interlocked operation.
// - A record is a LogEntryHeader (unmanaged, 56 bytes) followed by the payload bytes. No formatting,
//   strings or boxing happen here. Space is claimed in the ring, the header fields (and payload) are
//   stored in place, then the record is committed. An entry without payload uses the fixed-size
//   SpscByteRing.ClaimRefOrNullRef<LogEntryHeader> (constant size, one space test).
// - Timestamps: with no clock configured the entry carries the raw TscClock.GetTimestamp() value (an
//   unordered RDTSC where the TSC is sound, else Stopwatch ticks) and the drain thread converts it
//   (TscClock.TimestampToNs, then EpochClock), so the caller pays one counter read and no arithmetic.
//   With a CachedClock the caller reads its field directly (no interface call); any other IClock is
//   read through the interface. LogAt takes the caller's own monotonic ns (an agent's nowNs: time is
//   passed in, not read) and flags the record so the drain converts it as ns. ReadTimestamp is the one
//   place that reads; the FixLog constructor picks the matching converters for the drain.
//   PERF: the TSC default costs less than half of a Stopwatch read per entry; caller time and a CachedClock
//   less again (LogCallBenchmarks: docs/benchmarks/toolkit-codec-notes.md).
// - Full ring, LogFullPolicy.Wait (the default): the claim fails on the fast path and the slow path
//   (ClaimSlow, out of line) waits for the drain to make room (FixLog.WaitForRoom: spin, yield, sleep 1 ms;
//   in manual-drain mode the producer drains every ring itself under the drain lock), then claims again.
//   Nothing is lost; the caller runs at the sink's speed. _waits counts the calls that had to wait.
// - Counters (_waits, _pendingDrops, _totalDrops): the producer's thread alone writes them, with plain stores of aligned
//   longs (never torn in a 64-bit process); other threads read them with an acquire read (WaitCount, DroppedCount,
//   PendingDrops) and infer nothing else from them, so the stores need no ordering. Only after the log is disposed (or the producer retired) does a full ring drop (and count) the entry.
// - Full ring, LogFullPolicy.Drop: the entry is dropped, never blocking. _pendingDrops (drops not yet reported) is written
//   only by the producer; _totalDrops is written only by the producer and read by anyone. Before the next entry that fits, the producer writes a "dropped" marker record carrying
//   _pendingDrops, so the drain prints "dropped N entries" exactly where the gap is, with an exact N.
//   If the marker does not fit either, the new entry is dropped and counted too.
// - _pendingDrops is also read by the drain thread at Dispose (producers must have stopped by then) and when the
//   producer is retired (FixLog.Retire, once its thread has stopped logging).
// - Retirement: _retired is set (any thread, under the log's lock) by FixLog.Retire; only the full-ring slow path reads
//   it (a retired ring is no longer drained, so waiting for room would never end: the entry is dropped instead). The
//   fast path does not look at it: an entry logged after retirement goes into a ring nobody reads any more.

/// <summary>A single thread's handle for writing entries to a <see cref="FixLog"/>.</summary>
/// <remarks>
/// Not thread-safe: exactly one thread logs through a producer (create one per thread with
/// <see cref="FixLog.CreateProducer(string)"/>). A call never allocates and never formats: it copies a header and the
/// payload into the producer's ring. When the ring is full it waits for the drain thread
/// (<see cref="LogFullPolicy.Wait"/>, the default; see <see cref="WaitCount"/>) or drops and counts the entry
/// (<see cref="LogFullPolicy.Drop"/>; see <see cref="DroppedCount"/>). When its thread is done with it for good (a
/// session removed from a running engine), <see cref="FixLog.Retire"/> writes what it logged and releases it.
/// </remarks>
public sealed class LogProducer
{
    private static readonly int s_headerSize = Unsafe.SizeOf<LogEntryHeader>();

    private readonly FixLog _log;
    private readonly IClock? _clock;
    private readonly CachedClock? _cachedClock;
    private readonly int _maxPayload;
    private readonly bool _waitWhenFull;
    private volatile bool _retired;
    private long _pendingDrops;
    private long _totalDrops;
    private long _waits;

    internal LogProducer(FixLog log, string name, int ringCapacity, IClock? clock, LogFullPolicy fullPolicy, LogFormatter formatter,
        LogFileSink? sink = null)
    {
        Sink = sink;
        _log = log;
        Name = name;
        Ring = new SpscByteRing(ringCapacity);
        _clock = clock;
        _cachedClock = clock as CachedClock;
        _maxPayload = Ring.MaxRecordLength - s_headerSize;
        _waitWhenFull = fullPolicy == LogFullPolicy.Wait;
        Formatter = formatter;
    }

    /// <summary>The producer's name, printed in every line it logs.</summary>
    public string Name { get; }

    /// <summary>Total entries dropped because the ring was full. Safe to read from any thread.</summary>
    public long DroppedCount => Volatile.Read(ref _totalDrops);

    /// <summary>Longest payload kept whole; longer payloads are truncated (and marked so in the output).</summary>
    public int MaxPayloadLength => _maxPayload;

    /// <summary>Calls that found the ring full and waited for the drain (<see cref="LogFullPolicy.Wait"/>). Safe to read from any thread.</summary>
    public long WaitCount => Volatile.Read(ref _waits);

    internal SpscByteRing Ring { get; }

    /// <summary>Formats this producer's records for its sink (the log's file, or the producer's own file).</summary>
    internal LogFormatter Formatter { get; }

    internal long PendingDrops => Volatile.Read(ref _pendingDrops);

    /// <summary>The file this producer writes to (<see cref="FixLog.CreateProducer(string, string)"/>), or null for the log's own sink.</summary>
    internal LogFileSink? Sink { get; }

    /// <summary>Set (under the log's lock) by <see cref="FixLog.Retire"/>: its place in the retirement queue; 0 before.</summary>
    internal long RetireTicket { get; set; }

    /// <summary>Whether <see cref="FixLog.Retire"/> was called for this producer: it is no longer drained, and
    /// entries logged through it are discarded.</summary>
    public bool IsRetired => _retired;

    internal void MarkRetired() => _retired = true;

    internal bool BelongsTo(FixLog log) => ReferenceEquals(_log, log);

    /// <summary>Whether entries at <paramref name="level"/> are currently written. Check before computing arguments.</summary>
    /// <param name="level">The level.</param>
    /// <returns><see langword="true"/> if enabled.</returns>
    public bool IsEnabled(LogLevel level) => _log.IsEnabled(level);

    /// <summary>Logs an event with no arguments.</summary>
    /// <param name="level">Severity.</param>
    /// <param name="eventId">An id from <see cref="FixLog.RegisterEvent"/>.</param>
    public void Log(LogLevel level, int eventId)
    {
        if (_log.IsEnabled(level)) WriteArgs(ReadTimestamp(), 0, level, eventId, 0, 0, 0, 0, 0);
    }

    /// <summary>Logs an event with one argument.</summary>
    /// <param name="level">Severity.</param>
    /// <param name="eventId">An id from <see cref="FixLog.RegisterEvent"/>.</param>
    /// <param name="arg0">Value for <c>{0}</c>.</param>
    public void Log(LogLevel level, int eventId, long arg0)
    {
        if (_log.IsEnabled(level)) WriteArgs(ReadTimestamp(), 0, level, eventId, 1, arg0, 0, 0, 0);
    }

    /// <summary>Logs an event with two arguments.</summary>
    /// <param name="level">Severity.</param>
    /// <param name="eventId">An id from <see cref="FixLog.RegisterEvent"/>.</param>
    /// <param name="arg0">Value for <c>{0}</c>.</param>
    /// <param name="arg1">Value for <c>{1}</c>.</param>
    public void Log(LogLevel level, int eventId, long arg0, long arg1)
    {
        if (_log.IsEnabled(level)) WriteArgs(ReadTimestamp(), 0, level, eventId, 2, arg0, arg1, 0, 0);
    }

    /// <summary>Logs an event with three arguments.</summary>
    /// <param name="level">Severity.</param>
    /// <param name="eventId">An id from <see cref="FixLog.RegisterEvent"/>.</param>
    /// <param name="arg0">Value for <c>{0}</c>.</param>
    /// <param name="arg1">Value for <c>{1}</c>.</param>
    /// <param name="arg2">Value for <c>{2}</c>.</param>
    public void Log(LogLevel level, int eventId, long arg0, long arg1, long arg2)
    {
        if (_log.IsEnabled(level)) WriteArgs(ReadTimestamp(), 0, level, eventId, 3, arg0, arg1, arg2, 0);
    }

    /// <summary>Logs an event with four arguments.</summary>
    /// <param name="level">Severity.</param>
    /// <param name="eventId">An id from <see cref="FixLog.RegisterEvent"/>.</param>
    /// <param name="arg0">Value for <c>{0}</c>.</param>
    /// <param name="arg1">Value for <c>{1}</c>.</param>
    /// <param name="arg2">Value for <c>{2}</c>.</param>
    /// <param name="arg3">Value for <c>{3}</c>.</param>
    public void Log(LogLevel level, int eventId, long arg0, long arg1, long arg2, long arg3)
    {
        if (_log.IsEnabled(level)) WriteArgs(ReadTimestamp(), 0, level, eventId, 4, arg0, arg1, arg2, arg3);
    }

    /// <summary>Logs an event with a byte payload (ASCII text or a FIX message, SOH kept).</summary>
    /// <param name="level">Severity.</param>
    /// <param name="eventId">An id from <see cref="FixLog.RegisterEvent"/>.</param>
    /// <param name="payload">Bytes for <c>{payload}</c>, copied into the ring.</param>
    public void Log(LogLevel level, int eventId, ReadOnlySpan<byte> payload)
    {
        if (_log.IsEnabled(level)) Write(ReadTimestamp(), 0, level, eventId, 0, 0, 0, 0, 0, payload);
    }

    /// <summary>Logs a FIX message as the payload of an event (the drain writes it through the producer's
    /// <see cref="Redaction"/>, if any).</summary>
    /// <param name="level">Severity.</param>
    /// <param name="eventId">An id from <see cref="FixLog.RegisterEvent"/>.</param>
    /// <param name="message">The message, SOH kept, copied into the ring as is.</param>
    internal void LogMessage(LogLevel level, int eventId, ReadOnlySpan<byte> message)
    {
        if (_log.IsEnabled(level)) Write(ReadTimestamp(), LogEntryHeader.FlagFixMessage, level, eventId, 0, 0, 0, 0, 0, message);
    }

    /// <summary>Tags whose values the drain writes as a replacement text in the messages logged with
    /// <see cref="LogMessage"/>; null: none. Set before the first message is logged: the drain reads it only while
    /// formatting a record of this producer, and the ring's commit (a release) and read (an acquire) order the setting
    /// before that read, so a plain property is enough.</summary>
    internal LogRedaction? Redaction { get; set; }

    /// <summary>Logs an event with one argument and a byte payload.</summary>
    /// <param name="level">Severity.</param>
    /// <param name="eventId">An id from <see cref="FixLog.RegisterEvent"/>.</param>
    /// <param name="arg0">Value for <c>{0}</c>.</param>
    /// <param name="payload">Bytes for <c>{payload}</c>, copied into the ring.</param>
    public void Log(LogLevel level, int eventId, long arg0, ReadOnlySpan<byte> payload)
    {
        if (_log.IsEnabled(level)) Write(ReadTimestamp(), 0, level, eventId, 1, arg0, 0, 0, 0, payload);
    }

    /// <summary>Logs an event with two arguments and a byte payload.</summary>
    /// <param name="level">Severity.</param>
    /// <param name="eventId">An id from <see cref="FixLog.RegisterEvent"/>.</param>
    /// <param name="arg0">Value for <c>{0}</c>.</param>
    /// <param name="arg1">Value for <c>{1}</c>.</param>
    /// <param name="payload">Bytes for <c>{payload}</c>, copied into the ring.</param>
    public void Log(LogLevel level, int eventId, long arg0, long arg1, ReadOnlySpan<byte> payload)
    {
        if (_log.IsEnabled(level)) Write(ReadTimestamp(), 0, level, eventId, 2, arg0, arg1, 0, 0, payload);
    }

    /// <summary>Logs an event with four arguments and a byte payload.</summary>
    /// <param name="level">Severity.</param>
    /// <param name="eventId">An id from <see cref="FixLog.RegisterEvent"/>.</param>
    /// <param name="arg0">Value for <c>{0}</c>.</param>
    /// <param name="arg1">Value for <c>{1}</c>.</param>
    /// <param name="arg2">Value for <c>{2}</c>.</param>
    /// <param name="arg3">Value for <c>{3}</c>.</param>
    /// <param name="payload">Bytes for <c>{payload}</c>, copied into the ring.</param>
    public void Log(LogLevel level, int eventId, long arg0, long arg1, long arg2, long arg3, ReadOnlySpan<byte> payload)
    {
        if (_log.IsEnabled(level)) Write(ReadTimestamp(), 0, level, eventId, 4, arg0, arg1, arg2, arg3, payload);
    }

    /// <summary>Logs an event with no arguments, stamped with a time the caller already has (no clock read).</summary>
    /// <param name="nowNs">Monotonic ns on the log's clock: <see cref="IClock.NowNs"/> of <see cref="FixLogOptions.Clock"/>,
    /// or <see cref="HighResTime"/>/<see cref="TscClock.NowNs"/> when it is null (an agent's <c>nowNs</c>).</param>
    /// <param name="level">Severity.</param>
    /// <param name="eventId">An id from <see cref="FixLog.RegisterEvent"/>.</param>
    public void LogAt(long nowNs, LogLevel level, int eventId)
    {
        if (_log.IsEnabled(level)) WriteArgs(nowNs, LogEntryHeader.FlagTimestampNs, level, eventId, 0, 0, 0, 0, 0);
    }

    /// <summary>Logs an event with one argument, stamped with a time the caller already has (no clock read).</summary>
    /// <param name="nowNs">Monotonic ns on the log's clock (see <see cref="LogAt(long, LogLevel, int)"/>).</param>
    /// <param name="level">Severity.</param>
    /// <param name="eventId">An id from <see cref="FixLog.RegisterEvent"/>.</param>
    /// <param name="arg0">Value for <c>{0}</c>.</param>
    public void LogAt(long nowNs, LogLevel level, int eventId, long arg0)
    {
        if (_log.IsEnabled(level)) WriteArgs(nowNs, LogEntryHeader.FlagTimestampNs, level, eventId, 1, arg0, 0, 0, 0);
    }

    /// <summary>Logs an event with two arguments, stamped with a time the caller already has (no clock read).</summary>
    /// <param name="nowNs">Monotonic ns on the log's clock (see <see cref="LogAt(long, LogLevel, int)"/>).</param>
    /// <param name="level">Severity.</param>
    /// <param name="eventId">An id from <see cref="FixLog.RegisterEvent"/>.</param>
    /// <param name="arg0">Value for <c>{0}</c>.</param>
    /// <param name="arg1">Value for <c>{1}</c>.</param>
    public void LogAt(long nowNs, LogLevel level, int eventId, long arg0, long arg1)
    {
        if (_log.IsEnabled(level)) WriteArgs(nowNs, LogEntryHeader.FlagTimestampNs, level, eventId, 2, arg0, arg1, 0, 0);
    }

    /// <summary>Logs an event with four arguments, stamped with a time the caller already has (no clock read).</summary>
    /// <param name="nowNs">Monotonic ns on the log's clock (see <see cref="LogAt(long, LogLevel, int)"/>).</param>
    /// <param name="level">Severity.</param>
    /// <param name="eventId">An id from <see cref="FixLog.RegisterEvent"/>.</param>
    /// <param name="arg0">Value for <c>{0}</c>.</param>
    /// <param name="arg1">Value for <c>{1}</c>.</param>
    /// <param name="arg2">Value for <c>{2}</c>.</param>
    /// <param name="arg3">Value for <c>{3}</c>.</param>
    public void LogAt(long nowNs, LogLevel level, int eventId, long arg0, long arg1, long arg2, long arg3)
    {
        if (_log.IsEnabled(level)) WriteArgs(nowNs, LogEntryHeader.FlagTimestampNs, level, eventId, 4, arg0, arg1, arg2, arg3);
    }

    /// <summary>Logs an event with one argument and a byte payload, stamped with a time the caller already has.</summary>
    /// <param name="nowNs">Monotonic ns on the log's clock (see <see cref="LogAt(long, LogLevel, int)"/>).</param>
    /// <param name="level">Severity.</param>
    /// <param name="eventId">An id from <see cref="FixLog.RegisterEvent"/>.</param>
    /// <param name="arg0">Value for <c>{0}</c>.</param>
    /// <param name="payload">Bytes for <c>{payload}</c>, copied into the ring.</param>
    public void LogAt(long nowNs, LogLevel level, int eventId, long arg0, ReadOnlySpan<byte> payload)
    {
        if (_log.IsEnabled(level)) Write(nowNs, LogEntryHeader.FlagTimestampNs, level, eventId, 1, arg0, 0, 0, 0, payload);
    }

    /// <summary>Logs an event with a byte payload, stamped with a time the caller already has (no clock read).</summary>
    /// <param name="nowNs">Monotonic ns on the log's clock (see <see cref="LogAt(long, LogLevel, int)"/>).</param>
    /// <param name="level">Severity.</param>
    /// <param name="eventId">An id from <see cref="FixLog.RegisterEvent"/>.</param>
    /// <param name="payload">Bytes for <c>{payload}</c>, copied into the ring.</param>
    public void LogAt(long nowNs, LogLevel level, int eventId, ReadOnlySpan<byte> payload)
    {
        if (_log.IsEnabled(level)) Write(nowNs, LogEntryHeader.FlagTimestampNs, level, eventId, 0, 0, 0, 0, 0, payload);
    }

    /// <summary>Logs an event with a text payload; characters outside ASCII are written as '?'.</summary>
    /// <param name="level">Severity.</param>
    /// <param name="eventId">An id from <see cref="FixLog.RegisterEvent"/>.</param>
    /// <param name="text">Text for <c>{payload}</c>, narrowed to bytes in the ring.</param>
    public void LogText(LogLevel level, int eventId, ReadOnlySpan<char> text)
    {
        if (!_log.IsEnabled(level))
        {
            return;
        }
        if (!TryClaim(ReadTimestamp(), 0, level, eventId, 0, 0, 0, 0, 0, text.Length, out Span<byte> payload))
        {
            return;
        }
        for (int i = 0; i < payload.Length; i++)
        {
            char c = text[i];
            payload[i] = c < 128 ? (byte)c : (byte)'?';
        }
        Ring.Commit();
    }

    /// <summary>The current time in the unit this producer's entries carry (see the design notes).</summary>
    internal long ReadTimestamp()
    {
        if (_clock is null)
        {
            return TscClock.GetTimestamp();
        }
        return _cachedClock is not null ? _cachedClock.NowNs : _clock.NowNs;
    }

    /// <summary>An entry without payload: a fixed-size record written in place.</summary>
    private void WriteArgs(long timestamp, byte flags, LogLevel level, int eventId, byte argCount, long a0, long a1, long a2, long a3)
    {
        if (_pendingDrops != 0 && !TryWriteDropMarker(timestamp, flags))
        {
            CountDrop();
            return;
        }
        ref LogEntryHeader header = ref Ring.ClaimRefOrNullRef<LogEntryHeader>();
        if (Unsafe.IsNullRef(ref header))
        {
            header = ref ClaimHeaderSlow();
            if (Unsafe.IsNullRef(ref header))
            {
                CountDrop();
                return;
            }
        }
        // PERF: each field is stored straight into the ring; a header built on the stack and copied is slower (the
        // copy's wide loads cannot forward from the field stores; LogCallBenchmarks.FixLogTwoArgs,
        // docs/benchmarks/toolkit-codec-notes.md).
        header.Timestamp = timestamp;
        header.Arg0 = a0;
        header.Arg1 = a1;
        header.Arg2 = a2;
        header.Arg3 = a3;
        header.EventId = eventId;
        header.PayloadLength = 0;
        header.Level = level;
        header.ArgCount = argCount;
        header.Kind = LogEntryHeader.KindEvent;
        header.Flags = flags;
        Ring.Commit();
    }

    private void Write(long timestamp, byte flags, LogLevel level, int eventId, byte argCount, long a0, long a1, long a2, long a3,
        ReadOnlySpan<byte> payload)
    {
        if (TryClaim(timestamp, flags, level, eventId, argCount, a0, a1, a2, a3, payload.Length, out Span<byte> destination))
        {
            payload[..destination.Length].CopyTo(destination);
            Ring.Commit();
        }
    }

    /// <summary>Claims ring space, writes the header (after a pending drop marker) and returns the payload area.</summary>
    private bool TryClaim(long timestamp, byte flags, LogLevel level, int eventId, byte argCount, long a0, long a1, long a2, long a3,
        int payloadLength, out Span<byte> payload)
    {
        if (_pendingDrops != 0 && !TryWriteDropMarker(timestamp, flags))
        {
            CountDrop();
            payload = default;
            return false;
        }
        if (payloadLength > _maxPayload)
        {
            payloadLength = _maxPayload;
            flags |= LogEntryHeader.FlagTruncated;
        }
        if (!Ring.TryClaim(s_headerSize + payloadLength, out Span<byte> record) && !ClaimSlow(s_headerSize + payloadLength, out record))
        {
            CountDrop();
            payload = default;
            return false;
        }
        // PERF: fields are stored straight into the ring (no stack temporary and 56-byte copy);
        // LogCallBenchmarks.FixLogFixMessagePayload. The ring keeps records 8-byte aligned, so this is an aligned ref.
        ref LogEntryHeader header = ref Unsafe.As<byte, LogEntryHeader>(ref MemoryMarshal.GetReference(record));
        header.Timestamp = timestamp;
        header.Arg0 = a0;
        header.Arg1 = a1;
        header.Arg2 = a2;
        header.Arg3 = a3;
        header.EventId = eventId;
        header.PayloadLength = payloadLength;
        header.Level = level;
        header.ArgCount = argCount;
        header.Kind = LogEntryHeader.KindEvent;
        header.Flags = flags;
        payload = record.Slice(s_headerSize);
        return true;
    }

    /// <summary>Full ring: waits for room under <see cref="LogFullPolicy.Wait"/>; false (drop) under Drop or once the log is disposed.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private bool ClaimSlow(int length, out Span<byte> record)
    {
        record = default;
        if (!_waitWhenFull) return false;
        _waits++;
        // A retired ring is not drained any more: no room will come.
        for (int attempt = 0; !_retired && _log.WaitForRoom(attempt); attempt++)
        {
            if (Ring.TryClaim(length, out record)) return true;
        }
        return false;
    }

    /// <summary><see cref="ClaimSlow"/> for a fixed-size record without payload.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private ref LogEntryHeader ClaimHeaderSlow()
    {
        if (_waitWhenFull)
        {
            _waits++;
            for (int attempt = 0; !_retired && _log.WaitForRoom(attempt); attempt++)
            {
                ref LogEntryHeader header = ref Ring.ClaimRefOrNullRef<LogEntryHeader>();
                if (!Unsafe.IsNullRef(ref header)) return ref header;
            }
        }
        return ref Unsafe.NullRef<LogEntryHeader>();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private bool TryWriteDropMarker(long timestamp, byte flags)
    {
        ref LogEntryHeader header = ref Ring.ClaimRefOrNullRef<LogEntryHeader>();
        if (Unsafe.IsNullRef(ref header))
        {
            return false;
        }
        header = new LogEntryHeader
        {
            Timestamp = timestamp,
            Arg0 = _pendingDrops,
            Level = LogLevel.Warning,
            Kind = LogEntryHeader.KindDropped,
            Flags = (byte)(flags & LogEntryHeader.FlagTimestampNs),
        };
        Ring.Commit();
        _pendingDrops = 0;
        return true;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void CountDrop()
    {
        _pendingDrops++;
        _totalDrops++;
    }
}
