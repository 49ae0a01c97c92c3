using System;
using System.Globalization;
using System.IO;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using FixEngine.Collections;

namespace FixEngine.Logging;

/// <summary>Formats ring records into lines in a reusable char buffer and writes them to a TextWriter. Drain thread only.</summary>
internal sealed class LogFormatter
{
    private static readonly int s_headerSize = Unsafe.SizeOf<LogEntryHeader>();
    private const int MaxLongChars = 20;

    /// <summary>Most characters one payload byte is written as (<c>\xHH</c>).</summary>
    private const int MaxEscapedChars = 4;
    private const int FixedLineChars = 30 /* timestamp */ + 5 /* level */ + 4 /* brackets, spaces */ + 16 /* truncation mark */ + 1;

    private readonly TextWriter _writer;
    private readonly char? _sohReplacement;
    private char[] _buffer = new char[64 * 1024];
    private int _used;

    public LogFormatter(TextWriter writer, char? sohReplacement)
    {
        _writer = writer;
        _sohReplacement = sohReplacement;
    }

    public bool Dirty { get; private set; }

    public long LinesWritten { get; private set; }

    /// <summary>Converts a record's raw timestamp (see <see cref="LogEntryHeader.Timestamp"/>) to epoch ns.</summary>
    public Func<long, long> ToEpochNs { get; set; } = static ns => ns;

    /// <summary>Converts a caller-supplied monotonic ns timestamp (<see cref="LogEntryHeader.FlagTimestampNs"/>) to epoch ns.</summary>
    public Func<long, long> NsToEpochNs { get; set; } = static ns => ns;

    public EventTemplate?[] Events { get; set; } = [];

    public void FormatRecord(LogProducer producer, ReadOnlySpan<byte> record)
    {
        LogEntryHeader header = MemoryMarshal.Read<LogEntryHeader>(record);
        ReadOnlySpan<byte> payload = record.Slice(s_headerSize, Math.Min(header.PayloadLength, record.Length - s_headerSize));
        if (header.Kind == LogEntryHeader.KindDropped)
        {
            WriteDropped(producer.Name, EpochNsOf(in header), header.Arg0);
            return;
        }
        EventTemplate? template = (uint)header.EventId < (uint)Events.Length ? Events[header.EventId] : null;
        LogRedaction? redaction = (header.Flags & LogEntryHeader.FlagFixMessage) != 0 ? producer.Redaction : null;
        int needed = FixedLineChars + producer.Name.Length
            + (MaxEscapedChars * payload.Length + (redaction?.ExtraChars(payload) ?? 0)) * Math.Max(1, template?.PayloadSlots ?? 1)
            + 4 * MaxLongChars + (template is null ? 32 : template.LiteralLength + (template.Parts.Length * MaxLongChars));
        Span<char> line = Reserve(needed);
        int n = WritePrefix(line, EpochNsOf(in header), header.Level, producer.Name);
        if (template is null)
        {
            n += Append(line[n..], "event#");
            n += AppendLong(line[n..], header.EventId);
            for (int i = 0; i < header.ArgCount; i++)
            {
                line[n++] = ' ';
                n += AppendLong(line[n..], Arg(in header, i));
            }
            if (!payload.IsEmpty)
            {
                line[n++] = ' ';
                n += AppendPayload(line[n..], payload, redaction);
            }
        }
        else
        {
            foreach (EventTemplate.Part part in template.Parts)
            {
                if (part.Literal is not null)
                {
                    n += Append(line[n..], part.Literal);
                }
                else if (part.Slot == EventTemplate.PayloadSlot)
                {
                    n += AppendPayload(line[n..], payload, redaction);
                }
                else
                {
                    n += AppendLong(line[n..], Arg(in header, part.Slot));
                }
            }
            if (!template.HasPayload && !payload.IsEmpty)
            {
                line[n++] = ' ';
                n += AppendPayload(line[n..], payload, redaction);
            }
        }
        if ((header.Flags & LogEntryHeader.FlagTruncated) != 0)
        {
            n += Append(line[n..], " [truncated]");
        }
        line[n++] = '\n';
        Commit(n);
    }

    /// <summary>Writes a "dropped N entries" line stamped <paramref name="epochNs"/>.</summary>
    public void WriteDropped(string producerName, long epochNs, long count)
    {
        Span<char> line = Reserve(FixedLineChars + producerName.Length + 40);
        int n = WritePrefix(line, epochNs, LogLevel.Warning, producerName);
        n += Append(line[n..], "dropped ");
        n += AppendLong(line[n..], count);
        n += Append(line[n..], " entries\n");
        Commit(n);
    }

    private long EpochNsOf(in LogEntryHeader header) =>
        (header.Flags & LogEntryHeader.FlagTimestampNs) != 0 ? NsToEpochNs(header.Timestamp) : ToEpochNs(header.Timestamp);

    /// <summary>Writes buffered characters to the writer (without flushing the writer).</summary>
    public void WriteBuffered()
    {
        if (_used > 0)
        {
            _writer.Write(_buffer, 0, _used);
            _used = 0;
            Dirty = true;
        }
    }

    public void Flush()
    {
        WriteBuffered();
        if (Dirty)
        {
            _writer.Flush();
            Dirty = false;
        }
    }

    private Span<char> Reserve(int needed)
    {
        if (_buffer.Length - _used < needed)
        {
            WriteBuffered();
            if (_buffer.Length < needed)
            {
                _buffer = new char[Math.Max(needed, _buffer.Length * 2)];
            }
        }
        return _buffer.AsSpan(_used);
    }

    private void Commit(int chars)
    {
        _used += chars;
        LinesWritten++;
    }

    private static long Arg(in LogEntryHeader header, int index) => index switch
    {
        0 => header.Arg0,
        1 => header.Arg1,
        2 => header.Arg2,
        _ => header.Arg3,
    };

    private static int WritePrefix(Span<char> line, long epochNs, LogLevel level, string producer)
    {
        int n = WriteTimestamp(line, epochNs);
        line[n++] = ' ';
        n += Append(line[n..], level switch
        {
            LogLevel.Trace => "TRC",
            LogLevel.Debug => "DBG",
            LogLevel.Information => "INF",
            LogLevel.Warning => "WRN",
            LogLevel.Error => "ERR",
            _ => "CRT",
        });
        line[n++] = ' ';
        line[n++] = '[';
        n += Append(line[n..], producer);
        line[n++] = ']';
        line[n++] = ' ';
        return n;
    }

    /// <summary>Writes <c>yyyy-MM-ddTHH:mm:ss.fffffffffZ</c> (30 chars).</summary>
    internal static int WriteTimestamp(Span<char> line, long epochNs)
    {
        long ticks = DateTime.UnixEpoch.Ticks + Math.Max(epochNs, 0) / 100;
        if (ticks > DateTime.MaxValue.Ticks)
        {
            ticks = DateTime.MaxValue.Ticks;
        }
        var time = new DateTime(ticks, DateTimeKind.Utc);
        long nsOfSecond = Math.Max(epochNs, 0) % 1_000_000_000;
        int n = 0;
        n += Digits(line[n..], time.Year, 4);
        line[n++] = '-';
        n += Digits(line[n..], time.Month, 2);
        line[n++] = '-';
        n += Digits(line[n..], time.Day, 2);
        line[n++] = 'T';
        n += Digits(line[n..], time.Hour, 2);
        line[n++] = ':';
        n += Digits(line[n..], time.Minute, 2);
        line[n++] = ':';
        n += Digits(line[n..], time.Second, 2);
        line[n++] = '.';
        n += Digits(line[n..], nsOfSecond, 9);
        line[n++] = 'Z';
        return n;
    }

    private static int Digits(Span<char> destination, long value, int width)
    {
        for (int i = width - 1; i >= 0; i--)
        {
            destination[i] = (char)('0' + (int)(value % 10));
            value /= 10;
        }
        return width;
    }

    private static int Append(Span<char> destination, string text)
    {
        text.CopyTo(destination);
        return text.Length;
    }

    private static int AppendLong(Span<char> destination, long value)
    {
        value.TryFormat(destination, out int written, default, CultureInfo.InvariantCulture);
        return written;
    }

    /// <summary>
    /// Writes a payload so that it stays one line and reads back unambiguously: SOH as configured, printable ASCII as
    /// is, and the rest escaped (<c>\n</c>, <c>\r</c>, <c>\t</c>, <c>\\</c>, <c>\xHH</c>). A counterparty's
    /// <c>58=x\n2026-... INF [..] forged</c> therefore prints as <c>58=x\n2026-...</c> inside its own line.
    /// </summary>
    /// <returns>Characters written (at most <see cref="MaxEscapedChars"/> per byte).</returns>
    internal int AppendPayload(Span<char> destination, ReadOnlySpan<byte> payload)
    {
        char soh = _sohReplacement ?? '\u0001';
        int n = 0;
        for (int i = 0; i < payload.Length; i++)
        {
            byte b = payload[i];
            if ((uint)(b - 0x20) < 0x5F && b != (byte)'\\')
            {
                destination[n++] = (char)b;
                continue;
            }
            if (b == 0x01)
            {
                destination[n++] = soh;
                continue;
            }
            destination[n++] = '\\';
            switch (b)
            {
                case (byte)'\n': destination[n++] = 'n'; break;
                case (byte)'\r': destination[n++] = 'r'; break;
                case (byte)'\t': destination[n++] = 't'; break;
                case (byte)'\\': destination[n++] = '\\'; break;
                default:
                    destination[n++] = 'x';
                    destination[n++] = HexDigit(b >> 4);
                    destination[n++] = HexDigit(b & 0xF);
                    break;
            }
        }
        return n;
    }

    /// <summary>Writes a FIX message as <see cref="AppendPayload(Span{char}, ReadOnlySpan{byte})"/> does, with the value
    /// of each field whose tag <paramref name="redaction"/> lists written as its text (no allocation).</summary>
    /// <returns>Characters written (at most <see cref="MaxEscapedChars"/> per byte plus
    /// <see cref="LogRedaction.ExtraChars"/>).</returns>
    internal int AppendPayload(Span<char> destination, ReadOnlySpan<byte> payload, LogRedaction? redaction)
    {
        if (redaction is null) return AppendPayload(destination, payload);
        int n = 0;
        int at = 0;
        while (at < payload.Length)
        {
            int soh = payload[at..].IndexOf((byte)1);
            int end = soh < 0 ? payload.Length : at + soh;
            if (LogRedaction.FieldTag(payload, at, out int tag, out int valueStart) && redaction.Redacts(tag))
            {
                n += AppendPayload(destination[n..], payload[at..valueStart]);
                n += Append(destination[n..], redaction.Text);
            }
            else
            {
                n += AppendPayload(destination[n..], payload[at..end]);
            }
            if (soh < 0) break;
            n += AppendPayload(destination[n..], payload.Slice(end, 1));
            at = end + 1;
        }
        return n;
    }

    private static char HexDigit(int nibble) => (char)(nibble < 10 ? '0' + nibble : 'A' + nibble - 10);
}
