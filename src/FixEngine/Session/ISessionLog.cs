using System;

namespace FixEngine.Session;

/// <summary>Receives a session's inbound/outbound messages and events (the message log).</summary>
/// <remarks>
/// Called on the session's owner thread only. Message calls are on the hot path: implementations copy the bytes
/// and do I/O elsewhere (see <see cref="FixLogSessionLog"/>). Event calls are rare and may allocate.
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

    /// <summary>A session event (logon, resend, disconnect reason, garbled message, ...).</summary>
    /// <param name="text">Human-readable text.</param>
    /// <param name="epochNs">Event time.</param>
    void OnEvent(string text, long epochNs);
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
}
