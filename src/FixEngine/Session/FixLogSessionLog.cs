using System;
using System.IO;
using FixEngine.Logging;

namespace FixEngine.Session;

/// <summary>An <see cref="ISessionLog"/> over the struct logger <see cref="FixLog"/>: one producer per session (two in the per-session layout).</summary>
/// <remarks>
/// Owner-thread only (a <see cref="LogProducer"/> is single-producer; the engine serialises a session's calls). Messages
/// are copied into the producer's ring (no allocation, no formatting on the session thread); the FixLog drain thread
/// formats and writes. Events are text (rare, allocate on the caller's side only through the string given).
/// Lossless: with the FixLog's default <see cref="LogFullPolicy.Wait"/> a full ring slows the session to the sink's
/// speed instead of dropping a line (<see cref="WaitCount"/>). Tamper-proof lines: control bytes in what the counterparty
/// sent are escaped by the drain (see <see cref="FixLogOptions.SohReplacement"/>), so a value with a newline cannot
/// start a forged line. A message longer than the ring's largest record (<c>RingCapacityBytes / 2 - 64</c>, 512 KiB by
/// default) is written truncated and marked <c>[truncated]</c>: give the FixLog a ring of at least twice MaxMessageSize.
/// Timestamps: in the FixLog the engine creates (<see cref="Engine.FileSessionLogFactory"/>) every entry carries the time
/// the session passed in, with no clock read per entry; over a FixLog of your own the producer reads that log's
/// <see cref="FixLogOptions.Clock"/>.
/// Lifetime: <see cref="Dispose"/> (the engine's <see cref="Engine.FileSessionLogFactory"/> calls it when the session is
/// removed or the engine disposed) retires the producers once the session has stopped logging: what it logged is
/// written and, in the per-session layout, its files are closed, so a process that adds and removes sessions for months
/// keeps no ring, drain-list entry or file handle of a session that is gone.
/// </remarks>
public sealed class FixLogSessionLog : ISessionLog, IDisposable
{
    // Longest wait of Dispose for the drain thread to write what the session logged.
    private static readonly TimeSpan s_retireTimeout = TimeSpan.FromSeconds(10);

    private readonly FixLog _log;
    private readonly LogProducer _messages;
    private readonly LogProducer _events;
    private readonly int _incoming;
    private readonly int _outgoing;
    private readonly int _event;

    /// <summary>Creates the log of one session in the shared layout: its messages and events, in order, in the log's sink.</summary>
    /// <param name="log">The shared struct logger.</param>
    /// <param name="sessionName">Printed on each line.</param>
    public FixLogSessionLog(FixLog log, string sessionName)
    {
        ArgumentNullException.ThrowIfNull(log);
        _log = log;
        _messages = log.CreateProducer(sessionName);
        _events = _messages;
        _incoming = log.RegisterEvent("< {payload}");
        _outgoing = log.RegisterEvent("> {payload}");
        _event = log.RegisterEvent("{payload}");
    }

    private FixLogSessionLog(FixLog log, LogProducer messages, LogProducer events)
    {
        _log = log;
        _messages = messages;
        _events = events;
        _incoming = log.RegisterEvent("< {payload}");
        _outgoing = log.RegisterEvent("> {payload}");
        _event = log.RegisterEvent("{payload}");
    }

    /// <summary>
    /// Creates the log of one session in QuickFIX's per-session layout: <c>&lt;directory&gt;/&lt;prefix&gt;.messages.log</c>
    /// for its inbound and outbound messages and <c>&lt;directory&gt;/&lt;prefix&gt;.event.log</c> for its events.
    /// </summary>
    /// <param name="log">The struct logger whose drain thread writes the files (one drain thread for every session).</param>
    /// <param name="directory">Directory of the files (created if missing).</param>
    /// <param name="sessionName">Printed on each line; also the file prefix when <paramref name="filePrefix"/> is null.</param>
    /// <param name="filePrefix">File name prefix, e.g. from <see cref="FilePrefix"/>; characters not valid in a file name become '_'.</param>
    /// <returns>The session log.</returns>
    /// <exception cref="IOException">A file cannot be opened.</exception>
    public static FixLogSessionLog CreatePerSessionFiles(FixLog log, string directory, string sessionName, string? filePrefix = null)
    {
        ArgumentNullException.ThrowIfNull(log);
        ArgumentNullException.ThrowIfNull(directory);
        ArgumentNullException.ThrowIfNull(sessionName);
        string prefix = SafeFileName(filePrefix ?? sessionName);
        LogProducer messages = log.CreateProducer(sessionName, Path.Combine(directory, prefix + ".messages.log"));
        LogProducer events;
        try
        {
            events = log.CreateProducer(sessionName, Path.Combine(directory, prefix + ".event.log"));
        }
        catch
        {
            // Nothing was logged through it: no need to wait for the drain.
            log.Retire(messages, TimeSpan.Zero);
            throw;
        }
        return new FixLogSessionLog(log, messages, events);
    }

    /// <summary>Writes the values of these tags as a replacement text in the messages this log writes (the engine sets it
    /// from RedactFieldsInLogs/RedactionLogText before the session logs anything); events are not redacted.</summary>
    internal LogRedaction? Redaction
    {
        get => _messages.Redaction;
        set => _messages.Redaction = value;
    }

    /// <summary>Whether <see cref="Dispose"/> was called.</summary>
    public bool IsDisposed => _messages.IsRetired;

    /// <summary>Retires the session's producers (<see cref="FixLog.Retire"/>): everything the session logged is written,
    /// then its rings are released and, in the per-session layout, its two files are flushed and closed (unless another
    /// producer of the FixLog still writes to the same path). Call once the session no longer logs (after it was
    /// disposed); anything logged afterwards is discarded.</summary>
    /// <remarks>Waits up to 10 seconds for the FixLog's drain thread; if it is slower, the drain still
    /// writes everything and closes the files later. Idempotent.</remarks>
    public void Dispose()
    {
        if (ReferenceEquals(_events, _messages))
        {
            _log.Retire(_messages, s_retireTimeout);
            return;
        }
        // Both queued before waiting: the drain carries out retirements in the order they were asked for, so the wait for
        // the second covers the first (one wait of at most 10 s, not two).
        _log.Retire(_messages, TimeSpan.Zero);
        _log.Retire(_events, s_retireTimeout);
    }

    /// <summary>QuickFIX's file prefix for a session: <c>BeginString-SenderCompID-TargetCompID</c> (plus <c>-qualifier</c>).</summary>
    /// <param name="beginString">BeginString(8).</param>
    /// <param name="senderCompId">SenderCompID(49).</param>
    /// <param name="targetCompId">TargetCompID(56).</param>
    /// <param name="qualifier">Session qualifier, or null.</param>
    /// <returns>The prefix, e.g. <c>FIX.4.4-EXEC-CLIENT</c>.</returns>
    public static string FilePrefix(string beginString, string senderCompId, string targetCompId, string? qualifier = null) =>
        SafeFileName(string.IsNullOrEmpty(qualifier)
            ? $"{beginString}-{senderCompId}-{targetCompId}"
            : $"{beginString}-{senderCompId}-{targetCompId}-{qualifier}");

    /// <summary>Calls (messages and events) that found the ring full and waited for the drain (see <see cref="LogProducer.WaitCount"/>).</summary>
    public long WaitCount => ReferenceEquals(_messages, _events) ? _messages.WaitCount : _messages.WaitCount + _events.WaitCount;

    /// <summary>Entries dropped (only when the FixLog uses <see cref="LogFullPolicy.Drop"/>, or after it was disposed).</summary>
    public long DroppedCount => ReferenceEquals(_messages, _events) ? _messages.DroppedCount : _messages.DroppedCount + _events.DroppedCount;

    /// <inheritdoc/>
    public void OnIncoming(ReadOnlySpan<byte> message, long epochNs)
    {
        if (!_messages.IsEnabled(LogLevel.Information)) return;
        SessionLogClock.Set(epochNs);
        _messages.LogMessage(LogLevel.Information, _incoming, message);
    }

    /// <inheritdoc/>
    public void OnOutgoing(ReadOnlySpan<byte> message, long epochNs)
    {
        if (!_messages.IsEnabled(LogLevel.Information)) return;
        SessionLogClock.Set(epochNs);
        _messages.LogMessage(LogLevel.Information, _outgoing, message);
    }

    /// <inheritdoc/>
    public void OnEvent(string text, long epochNs) => OnEvent(LogLevel.Information, text, epochNs);

    /// <inheritdoc/>
    public void OnEvent(LogLevel level, string text, long epochNs)
    {
        if (!_events.IsEnabled(level)) return;
        SessionLogClock.Set(epochNs);
        _events.LogText(level, _event, text);
    }

    private static string SafeFileName(string name)
    {
        char[] invalid = Path.GetInvalidFileNameChars();
        Span<char> chars = name.Length <= 256 ? stackalloc char[name.Length] : new char[name.Length];
        for (int i = 0; i < name.Length; i++)
        {
            char c = name[i];
            chars[i] = Array.IndexOf(invalid, c) >= 0 || c == ':' || c == '\\' || c == '/' ? '_' : c;
        }
        return new string(chars);
    }
}
