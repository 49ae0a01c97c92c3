using System;
using FixEngine.Logging;

namespace FixEngine.Session;

/// <summary>Receives a session's inbound/outbound messages and events (the message log).</summary>
/// <remarks>
/// Called on the session's owner thread only. Message calls are on the hot path: implementations copy the bytes
/// and do I/O elsewhere (see <see cref="FixLogSessionLog"/>). Event calls are rare and may allocate. An audit log
/// records every call, in order, and escapes what the counterparty sent so that one call is one line.
/// </remarks>
public interface ISessionLog
{
    /// <summary>A message was received (framed, before processing).</summary>
    /// <param name="message">The bytes, valid during the call.</param>
    /// <param name="epochNs">Receive time.</param>
    void OnIncoming(ReadOnlySpan<byte> message, long epochNs);

    /// <summary>A message was written to the connection.</summary>
    /// <param name="message">The bytes, valid during the call.</param>
    /// <param name="epochNs">Send time.</param>
    void OnOutgoing(ReadOnlySpan<byte> message, long epochNs);

    /// <summary>A session event at level Information (for logs that ignore levels; the session itself calls the overload with a level).</summary>
    /// <param name="text">Human-readable text.</param>
    /// <param name="epochNs">Event time.</param>
    void OnEvent(string text, long epochNs);

    /// <summary>A session event with a level. The session uses: <see cref="LogLevel.Information"/> for normal operation
    /// (connected, logon, logout, disconnected, new session period, a recovery that completed);
    /// <see cref="LogLevel.Warning"/> for what the session rejected, ignored or had to recover from (Reject sent, garbled
    /// frame, invalid tag, duplicate, SendingTime problem, sequence gap, ResendRequest sent or received, sequence reset,
    /// a receive pause, a recovered store journal); <see cref="LogLevel.Error"/> when it gives up on something (a Logon it
    /// refused or that was refused, a store failure, messages not stored or not sent, the send backlog limit, unusable
    /// sequence numbers); <see cref="LogLevel.Debug"/> for heartbeat traffic (a TestRequest sent).</summary>
    /// <param name="level">Severity.</param>
    /// <param name="text">Human-readable text.</param>
    /// <param name="epochNs">Event time.</param>
    /// <remarks>The default implementation (for logs written before levels existed) calls <see cref="OnEvent(string, long)"/>.</remarks>
    void OnEvent(LogLevel level, string text, long epochNs) => OnEvent(text, epochNs);

    /// <summary>A session event with its properties (kind, sequence numbers, reasons): the session raises every event
    /// through this method.</summary>
    /// <param name="sessionEvent">The event, valid during the call.</param>
    /// <param name="epochNs">Event time.</param>
    /// <remarks>The default implementation formats the event (<see cref="SessionEvent.ToString"/>) and calls
    /// <see cref="OnEvent(LogLevel, string, long)"/>, so a log that wants text needs nothing more; a structured sink (the
    /// hosting package's ILogger bridge, an admin console's live tail) overrides it and formats nothing.</remarks>
    void OnEvent(in SessionEvent sessionEvent, long epochNs) => OnEvent(sessionEvent.Level, sessionEvent.ToString(), epochNs);
}

/// <summary>An <see cref="ISessionLog"/> that discards everything.</summary>
/// <remarks>Stateless and thread-safe.</remarks>
public sealed class NullSessionLog : ISessionLog
{
    /// <summary>The shared instance.</summary>
    public static NullSessionLog Instance { get; } = new();

    /// <inheritdoc/>
    public void OnIncoming(ReadOnlySpan<byte> message, long epochNs)
    {
    }

    /// <inheritdoc/>
    public void OnOutgoing(ReadOnlySpan<byte> message, long epochNs)
    {
    }

    /// <inheritdoc/>
    public void OnEvent(string text, long epochNs)
    {
    }

    /// <inheritdoc/>
    public void OnEvent(LogLevel level, string text, long epochNs)
    {
    }

    /// <inheritdoc/>
    public void OnEvent(in SessionEvent sessionEvent, long epochNs)
    {
    }
}
