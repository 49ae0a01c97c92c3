using System;
using System.IO;
using System.Text;
using System.Threading;
using FixEngine.Collections;
using FixEngine.Timing;

namespace FixEngine.Logging;

// Design:
// - Callers log through a LogProducer (one per thread), each owning an SPSC byte ring; the FixLog
//   owns one drain thread that reads every ring in place, formats in batches into a reusable char
//   buffer (LogFormatter) and writes to the sink, flushing before it sleeps and on Dispose.
// - Registration (RegisterEvent, CreateProducer) happens at startup under _sync and publishes new copies
//   of the drain's tables (event templates, producers, formatters) as one immutable Registry (copy-on-write,
//   one release store in Publish); the drain reads the current Registry once per pass, so it never sees a
//   producer without its formatter. The hot path never touches _sync.
// - _minimumLevel is read on every call (volatile int read) and written rarely by anyone.
// - Timestamps: producers record a raw monotonic value (TscClock.GetTimestamp with no clock configured:
//   TSC ticks, or Stopwatch ticks where the TSC is not used; the clock's NowNs otherwise;
//   LogProducer.ReadTimestamp), or the caller's own monotonic ns (LogAt, flagged in the record); the
//   drain converts both to epoch ns, so unit conversion and wall-clock work stay off the caller's thread.
// - Dispose: sets _stopping, joins the drain thread, which drains every ring until empty, reports
//   drops not yet reported by a marker, flushes, and (if the log owns it) disposes the writer.
// - Sinks: the log's writer, plus one file per distinct path given to CreateProducer(name, path) (per-session
//   layouts: <session>.messages.log, <session>.event.log). Each sink has its own LogFormatter; a producer
//   holds the formatter of its sink, so the drain formats each record straight into its sink's buffer. The
//   file sinks are created under _sync and published copy-on-write like the producers.
// - Full rings (LogFullPolicy.Wait): a producer calls WaitForRoom in a loop. With a drain thread it spins,
//   yields, then sleeps 1 ms at a time until it has room, and gives up (drops) only once the drain thread has
//   ended. In manual-drain mode it drains every ring itself under the drain lock (_formatter's monitor, taken only in
//   DrainAsCaller, which DrainPending, Flush, Retire and Dispose use too), so each ring still has one reader at a time.
// - Retirement (Retire: a session removed from a running engine): the caller marks the producer retired, queues it
//   under _sync with a ticket and takes one reference off its file sink. The drain (the drain thread, or the caller
//   under the drain lock in manual-drain mode) picks the queue up at the start of a pass: it publishes the producer
//   array without the retired ones (copy-on-write, as registration), drains each retired ring to empty (it is still
//   the rings' only reader), writes its pending drop count and buffered text, and then, under _sync, closes each file
//   sink left with no producer (removed from _fileSinks and the formatter array first, so nobody writes to it after
//   the close; a CreateProducer for the same path in between takes the sink back instead). Only then does it publish
//   the ticket as done, which is what Retire waits for. A retired producer is never reused: its ring is dropped with
//   it; a thread still logging through it (misuse) writes into a ring nobody reads, and a full ring then drops
//   (ClaimSlow stops waiting) instead of waiting for ever. The hot path is unchanged (no new check on it).
// - Event templates are deduplicated by text, so sessions added and removed for the life of the log (each registers
//   the same few templates) do not grow the template array.

/// <summary>An asynchronous, allocation-free structured log: callers copy entries into per-thread rings, a background
/// thread formats and writes them.</summary>
/// <remarks>
/// <para>Startup: <see cref="RegisterEvent"/> each message template once, <see cref="CreateProducer(string)"/> one producer per
/// logging thread. Hot path: <see cref="LogProducer.Log(LogLevel, int, long)"/> and friends never lock, allocate or
/// format; a full ring makes the caller wait for the drain (<see cref="LogFullPolicy.Wait"/>, the default: nothing is
/// lost), or drops and counts the entry (<see cref="LogFullPolicy.Drop"/>: the output later shows
/// <c>dropped N entries</c> at the gap).</para>
/// <para>Registration members are thread-safe. <see cref="Retire"/> ends one producer (its ring, its place in the drain
/// thread's list and, when it was the last one on its file, the file) once its thread has stopped logging, so a
/// long-running process that adds and removes sessions does not accumulate them. <see cref="Dispose"/> drains everything
/// logged before it was called (producers must stop logging first).</para>
/// </remarks>
public sealed class FixLog : IDisposable
{
    /// <summary>Smallest per-producer ring.</summary>
    public const int MinRingCapacityBytes = 4096;

    private readonly object _sync = new();
    private readonly FixLogOptions _options;
    private readonly TextWriter _writer;
    private readonly bool _ownsWriter;
    private readonly LogFormatter _formatter;
    private readonly Thread? _thread;
    private volatile int _minimumLevel;
    private volatile bool _stopping;
    // What the drain reads each pass, one immutable snapshot; replaced (Publish) only under _sync.
    private Registry _registry;
    private readonly System.Collections.Generic.Dictionary<string, int> _eventIds = new(StringComparer.Ordinal);
    private readonly System.Collections.Generic.Dictionary<string, LogFileSink> _fileSinks = new(StringComparer.Ordinal);
    // Retirement (see the design notes): queued and numbered under _sync, done by the drain.
    private readonly System.Collections.Generic.List<LogProducer> _retiring = [];
    private long _retireRequested;
    private long _retireDone;
    private volatile bool _retirementsPending;
    // Lines written to file sinks closed by a retirement (drain side only), so LinesWritten does not go back.
    private long _closedSinkLines;
    // Written by the drain thread on every pass: padded so the callers' reads of _minimumLevel
    // (every log call) never share a cache line with them.
    private PaddedLong _idlePasses;
    private PaddedLong _linesWritten;
    private long _sinkErrors;
    private bool _disposed;

    /// <summary>Creates a log writing lines to <paramref name="writer"/> (not disposed by the log).</summary>
    /// <param name="writer">The sink; written and flushed only by the drain thread.</param>
    /// <param name="options">Settings; defaults when null.</param>
    public FixLog(TextWriter writer, FixLogOptions? options = null)
        : this(writer ?? throw new ArgumentNullException(nameof(writer)), ownsWriter: false, options)
    {
    }

    /// <summary>Creates a log writing ASCII lines to <paramref name="stream"/> (left open on dispose).</summary>
    /// <param name="stream">The sink stream.</param>
    /// <param name="options">Settings; defaults when null.</param>
    public FixLog(Stream stream, FixLogOptions? options = null)
        : this(new StreamWriter(stream ?? throw new ArgumentNullException(nameof(stream)), new UTF8Encoding(false), 64 * 1024, leaveOpen: true),
            ownsWriter: true, options)
    {
    }

    private FixLog(TextWriter writer, bool ownsWriter, FixLogOptions? options)
    {
        _options = options ?? new FixLogOptions();
        if (_options.RingCapacityBytes < MinRingCapacityBytes || !int.IsPow2(_options.RingCapacityBytes))
        {
            throw new ArgumentOutOfRangeException(nameof(options), _options.RingCapacityBytes,
                $"FixLogOptions.RingCapacityBytes must be a power of two of at least {MinRingCapacityBytes}.");
        }
        if (_options.DrainBatchSize < 1 || _options.IdleSleepMs < 0)
        {
            throw new ArgumentOutOfRangeException(nameof(options), "FixLogOptions.DrainBatchSize must be positive and IdleSleepMs not negative.");
        }
        _writer = writer;
        _ownsWriter = ownsWriter;
        _minimumLevel = (int)_options.MinimumLevel;
        _formatter = new LogFormatter(writer, _options.SohReplacement);
        _registry = new Registry([], [], [_formatter]);
        IClock? clock = _options.Clock;
        if (clock is null)
        {
            // Calibrates the TSC now (about 1 ms) rather than in the first log call.
            _ = TscClock.IsTscBacked;
            _formatter.ToEpochNs = static raw => EpochClock.Shared.ToEpochNs(TscClock.TimestampToNs(raw));
            _formatter.NsToEpochNs = static ns => EpochClock.Shared.ToEpochNs(ns);
        }
        else
        {
            _formatter.ToEpochNs = ns => ns + (clock.EpochNs - clock.NowNs);
            _formatter.NsToEpochNs = _formatter.ToEpochNs;
        }
        if (_options.BackgroundDrain)
        {
            _thread = new Thread(DrainLoop) { IsBackground = true, Name = "FixEngine.FixLog.Drain" };
            _thread.Start();
        }
    }

    /// <summary>Creates a log appending to the file at <paramref name="path"/> (created if missing).</summary>
    /// <param name="path">File path.</param>
    /// <param name="options">Settings; defaults when null.</param>
    /// <returns>The log; disposing it closes the file.</returns>
    public static FixLog CreateFile(string path, FixLogOptions? options = null)
    {
        var stream = new FileStream(path, FileMode.Append, FileAccess.Write, FileShare.Read, 4096);
        return new FixLog(new StreamWriter(stream, new UTF8Encoding(false), 64 * 1024, leaveOpen: false), ownsWriter: true, options);
    }

    /// <summary>The lowest level written; may be changed at any time from any thread.</summary>
    public LogLevel MinimumLevel
    {
        get => (LogLevel)_minimumLevel;
        set => _minimumLevel = (int)value;
    }

    /// <summary>Lines written to the sink and handed to the operating system so far (counted after each drain pass's flush,
    /// so a line counted here survives a kill of the process; approximate while running).</summary>
    public long LinesWritten => _linesWritten.VolatileValue;

    /// <summary>Failed writes to the sink or unformattable records (the drain thread keeps going).</summary>
    public long SinkErrors => Interlocked.Read(ref _sinkErrors);

    /// <summary>Whether an entry at <paramref name="level"/> would be written.</summary>
    /// <param name="level">The level.</param>
    /// <returns><see langword="true"/> if enabled.</returns>
    public bool IsEnabled(LogLevel level) => (int)level >= _minimumLevel && level != LogLevel.None;

    /// <summary>Registers a message template and returns its event id. Call at startup.</summary>
    /// <param name="template">Text with <c>{0}</c>..<c>{3}</c> for the long arguments and <c>{payload}</c> for the payload
    /// (<c>{{</c> and <c>}}</c> print braces). A payload logged with a template lacking <c>{payload}</c> is appended.</param>
    /// <returns>The event id to pass to <see cref="LogProducer.Log(LogLevel, int)"/>; the same id for the same template
    /// text registered again (each session log registers its templates: adding sessions for the life of the log does
    /// not grow the table).</returns>
    /// <exception cref="ArgumentException">The template has an unknown placeholder or unbalanced braces (the message gives the offset).</exception>
    /// <remarks>Thread-safe; allocates.</remarks>
    public int RegisterEvent(string template)
    {
        ArgumentNullException.ThrowIfNull(template);
        // Parsed (and checked) outside the lock, also when the text is registered already: registration is not a hot path.
        EventTemplate parsed = EventTemplate.Parse(template);
        lock (_sync)
        {
            if (_eventIds.TryGetValue(template, out int existing)) return existing;
            EventTemplate?[] events = _registry.Events;
            _eventIds.Add(template, events.Length);
            Publish(_registry with { Events = [.. events, parsed] });
            return events.Length;
        }
    }

    /// <summary>Creates a producer for one logging thread, with its own ring.</summary>
    /// <param name="name">Printed in each line (e.g. the session or thread name).</param>
    /// <returns>The producer; use it from one thread only, and <see cref="Retire"/> it when that thread is done with it
    /// before the log is disposed (a removed session).</returns>
    /// <exception cref="ObjectDisposedException">The log is disposed.</exception>
    /// <remarks>Thread-safe; allocates the ring.</remarks>
    public LogProducer CreateProducer(string name)
    {
        ArgumentNullException.ThrowIfNull(name);
        return AddProducer(name, fullPath: null);
    }

    /// <summary>Creates a producer for one logging thread whose lines go to their own file instead of the log's sink.</summary>
    /// <param name="name">Printed in each line.</param>
    /// <param name="filePath">File appended to (created if missing, its directory too); producers given the same path share it.</param>
    /// <returns>The producer; use it from one thread only.</returns>
    /// <remarks>
    /// Thread-safe; allocates the ring (and opens the file the first time a path is given, or again after the last
    /// producer on it was retired). The same drain thread writes every file; the log closes a file when the last producer
    /// on it is <see cref="Retire">retired</see>, and every file still open on <see cref="Dispose"/>. This is how a
    /// session gets QuickFIX's per-session layout (<c>&lt;session&gt;.messages.log</c>, <c>&lt;session&gt;.event.log</c>): see
    /// <see cref="Session.FixLogSessionLog.CreatePerSessionFiles"/>.
    /// </remarks>
    /// <exception cref="IOException">The file cannot be opened.</exception>
    /// <exception cref="ObjectDisposedException">The log is disposed.</exception>
    public LogProducer CreateProducer(string name, string filePath)
    {
        ArgumentNullException.ThrowIfNull(name);
        ArgumentNullException.ThrowIfNull(filePath);
        return AddProducer(name, Path.GetFullPath(filePath));
    }

    // Both CreateProducer overloads: the log's own sink (fullPath null) or the file's, opened on first use.
    private LogProducer AddProducer(string name, string? fullPath)
    {
        lock (_sync)
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            LogFileSink? sink = null;
            if (fullPath is not null && !_fileSinks.TryGetValue(fullPath, out sink))
            {
                string? directory = Path.GetDirectoryName(fullPath);
                if (!string.IsNullOrEmpty(directory)) Directory.CreateDirectory(directory);
                var stream = new FileStream(fullPath, FileMode.Append, FileAccess.Write, FileShare.Read, 4096);
                var writer = new StreamWriter(stream, new UTF8Encoding(false), 64 * 1024, leaveOpen: false);
                var formatter = new LogFormatter(writer, _options.SohReplacement)
                {
                    ToEpochNs = _formatter.ToEpochNs,
                    NsToEpochNs = _formatter.NsToEpochNs,
                };
                sink = new LogFileSink(fullPath, formatter, writer);
                _fileSinks.Add(fullPath, sink);
                Publish(_registry with { Formatters = [.. _registry.Formatters, formatter] });
            }
            var producer = new LogProducer(this, name, _options.RingCapacityBytes, _options.Clock, _options.FullPolicy,
                sink?.Formatter ?? _formatter, sink);
            Publish(_registry with { Producers = [.. _registry.Producers, producer] });
            if (sink is not null) sink.Producers++;
            return producer;
        }
    }

    // Under _sync, the only place _registry is replaced: the release store publishes the new arrays with it.
    private void Publish(Registry next) => Volatile.Write(ref _registry, next);

    /// <summary>Producers the drain reads: created and not yet taken out by a retirement (diagnostics).</summary>
    public int ProducerCount => Volatile.Read(ref _registry).Producers.Length;

    /// <summary>Files opened by <see cref="CreateProducer(string, string)"/> that are still open (diagnostics).</summary>
    /// <remarks>A file's formatter joins and leaves the drain's formatters together with the file (under the log's lock),
    /// after the log's own formatter.</remarks>
    public int OpenFileCount => Volatile.Read(ref _registry).Formatters.Length - 1;

    /// <summary>Retires a producer whose thread has stopped logging: everything it logged is written, then it leaves the
    /// drain's list and its ring is released; when it was the last producer on its file
    /// (<see cref="CreateProducer(string, string)"/>), the file is flushed and closed.</summary>
    /// <param name="producer">A producer of this log. Its thread must have stopped logging through it: entries logged
    /// after the retirement are discarded (a full ring drops them instead of waiting), and a retired producer is never
    /// used again by the log.</param>
    /// <param name="timeout">Longest wait for the drain thread to finish the retirement.</param>
    /// <returns><see langword="true"/> once done (or when the log is disposed, whose <see cref="Dispose"/> writes
    /// everything); <see langword="false"/> if the drain thread did not get to it in time (it still will). Retiring a
    /// producer twice waits for the first retirement. Retirements are carried out in the order they were asked for, so
    /// a wait that succeeds covers every retirement asked for before it.</returns>
    /// <exception cref="ArgumentException">The producer belongs to another log.</exception>
    /// <remarks>Thread-safe; not for the drain thread or a hot path (it polls, as <see cref="Flush"/>). Allocates. In
    /// manual-drain mode (<see cref="FixLogOptions.BackgroundDrain"/> false) the calling thread does the work under the
    /// drain lock.</remarks>
    public bool Retire(LogProducer producer, TimeSpan timeout)
    {
        ArgumentNullException.ThrowIfNull(producer);
        if (!producer.BelongsTo(this)) throw new ArgumentException($"producer '{producer.Name}' belongs to another FixLog", nameof(producer));
        long ticket;
        lock (_sync)
        {
            if (_disposed)
            {
                // Dispose drains every ring it still lists (this one included) and closes every file.
                producer.MarkRetired();
                return true;
            }
            ticket = producer.RetireTicket;
            if (ticket == 0)
            {
                ticket = ++_retireRequested;
                producer.RetireTicket = ticket;
                producer.MarkRetired();
                _retiring.Add(producer);
                if (producer.Sink is LogFileSink sink) sink.Producers--;
                _retirementsPending = true;
            }
        }
        if (_thread is null)
        {
            // Dispose may have drained (and retired) it meanwhile: then the queue is empty and this does nothing.
            DrainAsCaller(CallerDrain.Retirements);
            return true;
        }
        // Only Dispose ends the drain thread, after a last pass that retires what was queued.
        return WaitForDrain(static (log, ticket) => Volatile.Read(ref log._retireDone) >= ticket, ticket, timeout);
    }

    // Polls (1 ms) until the drain thread has reached the target or ended; false at the timeout. Not for hot paths.
    private bool WaitForDrain(Func<FixLog, long, bool> reached, long target, TimeSpan timeout)
    {
        long deadline = HighResTime.NowNs() + (long)timeout.TotalMilliseconds * 1_000_000;
        while (!reached(this, target))
        {
            if (!_thread!.IsAlive)
            {
                return true;
            }
            if (HighResTime.NowNs() > deadline)
            {
                return false;
            }
            Thread.Sleep(1);
        }
        return true;
    }

    // The drain (drain thread, or the caller under the drain lock): see the design notes. Allocates (retirements are rare).
    private void ProcessRetirements()
    {
        LogProducer[] retiring;
        long upTo;
        EventTemplate?[] events;
        lock (_sync)
        {
            _retirementsPending = false;
            if (_retiring.Count == 0) return;
            retiring = [.. _retiring];
            _retiring.Clear();
            upTo = _retireRequested;
            events = _registry.Events;
            Publish(_registry with { Producers = Array.FindAll(_registry.Producers, p => p.RetireTicket == 0 || p.RetireTicket > upTo) });
        }
        // Out of the array, but this is still the rings' only reader: drain each to empty.
        foreach (LogProducer producer in retiring)
        {
            producer.Formatter.Events = events;
            while (DrainProducer(producer, _options.DrainBatchSize) > 0)
            {
                WriteBuffered(producer.Formatter);
            }
            long pending = producer.PendingDrops;
            if (pending > 0)
            {
                producer.Formatter.WriteDropped(producer.Name, _formatter.ToEpochNs(producer.ReadTimestamp()), pending);
            }
            WriteBuffered(producer.Formatter);
        }
        System.Collections.Generic.List<LogFileSink>? closing = null;
        lock (_sync)
        {
            foreach (LogProducer producer in retiring)
            {
                // Closed only if no producer took the file back meanwhile (a session added again under the same name).
                if (producer.Sink is not LogFileSink sink || sink.Producers != 0 || !_fileSinks.Remove(sink.Path)) continue;
                (closing ??= []).Add(sink);
                _closedSinkLines += sink.Formatter.LinesWritten;
                Publish(_registry with { Formatters = Array.FindAll(_registry.Formatters, f => !ReferenceEquals(f, sink.Formatter)) });
            }
        }
        if (closing is not null)
        {
            // Nobody else writes these any more: the drain no longer lists their formatters and no producer holds them.
            foreach (LogFileSink sink in closing)
            {
                try
                {
                    sink.Formatter.Flush();
                    sink.Writer.Dispose();
                }
                catch (Exception ex) when (ex is IOException or ObjectDisposedException or NotSupportedException)
                {
                    Interlocked.Increment(ref _sinkErrors);
                }
            }
        }
        Volatile.Write(ref _retireDone, upTo);
    }

    /// <summary>Waits until everything logged before the call has been written and flushed to the sink.</summary>
    /// <param name="timeout">Longest wait.</param>
    /// <returns><see langword="true"/> if flushed in time.</returns>
    /// <remarks>For tests and orderly shutdown; polls, so do not call on a hot path.</remarks>
    public bool Flush(TimeSpan timeout)
    {
        if (_thread is null)
        {
            DrainAsCaller(CallerDrain.Flush);
            return true;
        }
        if (!_thread.IsAlive)
        {
            return true;
        }
        return WaitForDrain(static (log, target) => log._idlePasses.VolatileValue >= target, _idlePasses.VolatileValue + 2, timeout);
    }

    /// <summary>Drains every ring, writes pending drop counts, flushes, and stops the drain thread.</summary>
    public void Dispose()
    {
        lock (_sync)
        {
            if (_disposed)
            {
                return;
            }
            _disposed = true;
        }
        _stopping = true;
        if (_thread is null)
        {
            DrainAsCaller(CallerDrain.Remaining);
        }
        else
        {
            _thread.Join();
        }
        if (_ownsWriter)
        {
            _writer.Dispose();
        }
        // No lock: nothing changes _fileSinks any more. With _disposed set, CreateProducer throws and Retire queues
        // nothing; a retirement queued before was carried out by the drain, which has ended (joined above) or, in
        // manual-drain mode, ran under the drain lock that DrainAsCaller above took after it (its last pass finds the
        // queue empty and leaves _fileSinks alone). The join or the drain lock orders its changes before this loop.
        foreach (LogFileSink sink in _fileSinks.Values)
        {
            try
            {
                sink.Writer.Dispose();
            }
            catch (Exception ex) when (ex is IOException or ObjectDisposedException or NotSupportedException)
            {
                Interlocked.Increment(ref _sinkErrors);
            }
        }
    }

    /// <summary>
    /// Called by a producer whose ring is full (<see cref="LogFullPolicy.Wait"/>), before each new claim attempt.
    /// </summary>
    /// <param name="attempt">0 on the first call of one wait, then 1, 2, ...</param>
    /// <returns>False when no room will ever come (the log is disposed): the caller drops the entry.</returns>
    internal bool WaitForRoom(int attempt)
    {
        if (_thread is null)
        {
            // Dispose sets _stopping right after _disposed, before its last drain.
            if (_stopping) return false;
            DrainAsCaller(CallerDrain.Pass);
            return true;
        }
        if (!_thread.IsAlive) return false;
        if (attempt < 16)
        {
            Thread.SpinWait(64 << Math.Min(attempt, 6));
        }
        else if (attempt < 32)
        {
            Thread.Yield();
        }
        else
        {
            Thread.Sleep(1);
        }
        return true;
    }

    private void DrainLoop()
    {
        while (!_stopping)
        {
            int drained = DrainOnce();
            // Every pass hands what it wrote to the operating system (one write per pass, not per line), busy or idle: a
            // line the drain has taken survives a SIGKILL of the process; only lines still in the producers' rings (at
            // most one pass, about IdleSleepMs, behind) can be lost with it. A power loss may still lose page-cache data.
            SafeFlush();
            if (drained == 0)
            {
                _idlePasses.IncrementAndGet();
                Hosting.EngineThreadProbe.OnPass();
                Thread.Sleep(_options.IdleSleepMs);
            }
        }
        DrainRemaining();
    }

    /// <summary>Formats and writes up to <see cref="FixLogOptions.DrainBatchSize"/> records per producer, then flushes (manual-drain mode).</summary>
    /// <returns>The number of records drained (0 when every ring was empty).</returns>
    /// <exception cref="InvalidOperationException">The log runs its own drain thread (<see cref="FixLogOptions.BackgroundDrain"/>).</exception>
    /// <remarks>Calls are serialised; call from one thread (e.g. an agent's duty cycle). Allocation-free in steady state.</remarks>
    public int DrainPending()
    {
        if (_thread is not null)
        {
            throw new InvalidOperationException("DrainPending is only for a FixLog created with BackgroundDrain = false.");
        }
        return DrainAsCaller(CallerDrain.Pass);
    }

    private enum CallerDrain
    {
        Pass,
        Retirements,
        Flush,
        Remaining,
    }

    // Manual-drain mode: the calling thread is the drain, under the drain lock (_formatter's monitor), taken here only, so
    // each ring keeps one reader and the formatters one writer at a time. Returns the records drained (Pass).
    private int DrainAsCaller(CallerDrain work)
    {
        lock (_formatter)
        {
            switch (work)
            {
                case CallerDrain.Pass:
                    int drained = DrainOnce();
                    SafeFlush();
                    return drained;
                case CallerDrain.Retirements:
                    ProcessRetirements();
                    return 0;
                case CallerDrain.Flush:
                    SafeFlush();
                    return 0;
                default:
                    DrainRemaining();
                    return 0;
            }
        }
    }

    /// <summary>Releases every pending record unread (benchmarks: isolates the caller's cost). Manual-drain mode only.</summary>
    /// <returns>The ring bytes released.</returns>
    internal long DiscardPending()
    {
        long total = 0;
        foreach (LogProducer producer in Volatile.Read(ref _registry).Producers)
        {
            total += producer.Ring.DiscardAll();
        }
        return total;
    }

    private void DrainRemaining()
    {
        while (DrainOnce() > 0)
        {
        }
        foreach (LogProducer producer in Volatile.Read(ref _registry).Producers)
        {
            long pending = producer.PendingDrops;
            if (pending > 0)
            {
                producer.Formatter.WriteDropped(producer.Name, _formatter.ToEpochNs(producer.ReadTimestamp()), pending);
            }
        }
        SafeFlush();
        _idlePasses.IncrementAndGet();
    }

    private int DrainOnce()
    {
        // First, so that the snapshot read below no longer holds a file a retirement closed.
        if (_retirementsPending) ProcessRetirements();
        Registry registry = Volatile.Read(ref _registry);
        foreach (LogFormatter formatter in registry.Formatters) formatter.Events = registry.Events;
        int total = 0;
        foreach (LogProducer producer in registry.Producers)
        {
            total += DrainProducer(producer, _options.DrainBatchSize);
        }
        foreach (LogFormatter formatter in registry.Formatters) WriteBuffered(formatter);
        return total;
    }

    private void WriteBuffered(LogFormatter formatter)
    {
        try
        {
            formatter.WriteBuffered();
        }
        catch (Exception ex) when (ex is IOException or ObjectDisposedException or NotSupportedException)
        {
            Interlocked.Increment(ref _sinkErrors);
        }
    }

    private int DrainProducer(LogProducer producer, int maxRecords)
    {
        var handler = new DrainHandler(producer.Formatter, producer);
        try
        {
            return producer.Ring.Read(ref handler, maxRecords);
        }
        catch (Exception)
        {
            // A failing sink (or a record that cannot be formatted) must not kill the drain thread:
            // the records up to and including the failing one are consumed and counted here.
            Interlocked.Increment(ref _sinkErrors);
            return 1;
        }
    }

    private void SafeFlush()
    {
        LogFormatter[] formatters = Volatile.Read(ref _registry).Formatters;
        long lines = _closedSinkLines;
        foreach (LogFormatter formatter in formatters)
        {
            try
            {
                formatter.Flush();
            }
            catch (Exception ex) when (ex is IOException or ObjectDisposedException or NotSupportedException)
            {
                Interlocked.Increment(ref _sinkErrors);
            }
        }
        // Published after the flush: a line counted here has been handed to the operating system.
        foreach (LogFormatter formatter in formatters) lines += formatter.LinesWritten;
        _linesWritten.VolatileValue = lines;
    }

    // The registration tables the drain reads, replaced as a whole (copy-on-write) so a pass sees one consistent set.
    private sealed record Registry(EventTemplate?[] Events, LogProducer[] Producers, LogFormatter[] Formatters);

    private readonly struct DrainHandler : IByteRecordHandler
    {
        private readonly LogFormatter _formatter;
        private readonly LogProducer _producer;

        public DrainHandler(LogFormatter formatter, LogProducer producer)
        {
            _formatter = formatter;
            _producer = producer;
        }

        public void OnRecord(ReadOnlySpan<byte> record) => _formatter.FormatRecord(_producer, record);
    }
}

/// <summary>A file opened by <see cref="FixLog.CreateProducer(string, string)"/>: its writer, its formatter and how many
/// producers not yet retired write to it (under the log's lock).</summary>
internal sealed class LogFileSink(string path, LogFormatter formatter, TextWriter writer)
{
    public string Path { get; } = path;

    public LogFormatter Formatter { get; } = formatter;

    public TextWriter Writer { get; } = writer;

    public int Producers { get; set; }
}
