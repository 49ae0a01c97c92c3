using System;
using System.Collections.Generic;
using System.IO;
using System.Text;
using System.Threading;
using FixEngine.Codec;
using FixEngine.Collections;

namespace FixEngine.Session;

/// <summary>A file message log per session: <c>&lt;session&gt;.messages.log</c> and <c>&lt;session&gt;.event.log</c>, written off the hot path.</summary>
/// <remarks>
/// Design: the session's owner thread is the only producer; it copies each record into an SPSC byte ring
/// (no allocation, no I/O). One background thread per <see cref="FileSessionLogWriter"/> drains every registered ring,
/// formats lines and writes the files, flushing before it sleeps. When a ring is full the record is dropped and
/// counted in <see cref="DroppedRecords"/> (policy: drop, never block the session).
/// </remarks>
public sealed class FileSessionLog : ISessionLog, IDisposable
{
    private const byte KindIncoming = 1;
    private const byte KindOutgoing = 2;
    private const byte KindEvent = 3;

    private readonly SpscByteRing _ring;
    private readonly FileStream _messages;
    private readonly FileStream _events;
    private readonly byte[] _line = new byte[64];
    private long _dropped;

    internal FileSessionLog(string directory, string sessionName, int ringCapacity)
    {
        Directory.CreateDirectory(directory);
        string safe = MakeFileName(sessionName);
        _messages = new FileStream(Path.Combine(directory, safe + ".messages.log"), FileMode.Append, FileAccess.Write, FileShare.Read, 1 << 16);
        _events = new FileStream(Path.Combine(directory, safe + ".event.log"), FileMode.Append, FileAccess.Write, FileShare.Read, 1 << 14);
        _ring = new SpscByteRing(ringCapacity);
    }

    /// <summary>Records dropped because the ring was full.</summary>
    public long DroppedRecords => Interlocked.Read(ref _dropped);

    /// <inheritdoc/>
    public void OnIncoming(ReadOnlySpan<byte> message, long epochNs) => Write(KindIncoming, message, epochNs);

    /// <inheritdoc/>
    public void OnOutgoing(ReadOnlySpan<byte> message, long epochNs) => Write(KindOutgoing, message, epochNs);

    /// <inheritdoc/>
    public void OnEvent(string text, long epochNs)
    {
        byte[] bytes = Encoding.UTF8.GetBytes(text);
        Write(KindEvent, bytes, epochNs);
    }

    private void Write(byte kind, ReadOnlySpan<byte> payload, long epochNs)
    {
        int length = 9 + payload.Length;
        if (length > _ring.MaxRecordLength || !_ring.TryClaim(length, out Span<byte> span))
        {
            Interlocked.Increment(ref _dropped);
            return;
        }
        span[0] = kind;
        BitConverter.TryWriteBytes(span.Slice(1, 8), epochNs);
        payload.CopyTo(span.Slice(9));
        _ring.Commit(length);
    }

    // Drainer thread only.
    internal int Drain()
    {
        int n = 0;
        while (n < 1024 && _ring.TryRead(out ReadOnlySpan<byte> record))
        {
            byte kind = record[0];
            long epochNs = BitConverter.ToInt64(record.Slice(1, 8));
            FixValueFormatter.TryFormatUtcTimestamp(epochNs, TimestampPrecision.Micros, _line, out int tsLength);
            FileStream target = kind == KindEvent ? _events : _messages;
            target.Write(_line, 0, tsLength);
            target.Write(kind switch { KindIncoming => " < "u8, KindOutgoing => " > "u8, _ => " : "u8 });
            target.Write(record.Slice(9));
            target.WriteByte((byte)'\n');
            _ring.Release();
            n++;
        }
        return n;
    }

    internal void Flush()
    {
        _messages.Flush();
        _events.Flush();
    }

    /// <summary>Closes the files (after the writer has drained the ring).</summary>
    public void Dispose()
    {
        _messages.Dispose();
        _events.Dispose();
    }

    private static string MakeFileName(string name)
    {
        var sb = new StringBuilder(name.Length);
        foreach (char c in name) sb.Append(char.IsLetterOrDigit(c) || c is '.' or '-' or '_' ? c : '-');
        return sb.ToString();
    }
}

/// <summary>Owns the background thread that writes every <see cref="FileSessionLog"/> it created.</summary>
/// <remarks>
/// Design: <see cref="Create"/> may be called from any thread (it locks the list of logs); the drain thread reads a
/// snapshot array published with a volatile write. <see cref="Dispose"/> stops the thread after a final drain.
/// </remarks>
public sealed class FileSessionLogWriter : IDisposable
{
    private readonly string _directory;
    private readonly int _ringCapacity;
    private readonly object _gate = new();
    private readonly Thread _thread;
    private FileSessionLog[] _logs = [];
    private volatile bool _stopping;

    /// <summary>Creates the writer and starts its thread.</summary>
    /// <param name="directory">Folder of the log files (FileLogPath).</param>
    /// <param name="ringCapacity">Bytes buffered per session before records are dropped (default 4 MiB).</param>
    public FileSessionLogWriter(string directory, int ringCapacity = 4 << 20)
    {
        _directory = directory;
        _ringCapacity = ringCapacity;
        _thread = new Thread(Run) { IsBackground = true, Name = "fix-log-writer" };
        _thread.Start();
    }

    /// <summary>Creates the log of one session.</summary>
    /// <param name="sessionName">Used in the file names.</param>
    /// <returns>The log (owned by this writer).</returns>
    public FileSessionLog Create(string sessionName)
    {
        var log = new FileSessionLog(_directory, sessionName, _ringCapacity);
        lock (_gate)
        {
            var next = new List<FileSessionLog>(_logs) { log };
            Volatile.Write(ref _logs, next.ToArray());
        }
        return log;
    }

    private void Run()
    {
        while (true)
        {
            bool stopping = _stopping;
            int work = 0;
            foreach (FileSessionLog log in Volatile.Read(ref _logs)) work += log.Drain();
            if (work == 0)
            {
                foreach (FileSessionLog log in Volatile.Read(ref _logs)) log.Flush();
                if (stopping) return;
                Thread.Sleep(5);
            }
        }
    }

    /// <summary>Drains what is buffered, stops the thread and closes the files.</summary>
    public void Dispose()
    {
        _stopping = true;
        _thread.Join(TimeSpan.FromSeconds(5));
        foreach (FileSessionLog log in _logs) log.Dispose();
    }
}
