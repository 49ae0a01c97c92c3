using System;

namespace FixEngine.Session;

/// <summary>Outcome of handing encoded bytes to a <see cref="ISessionConnection"/>.</summary>
public enum SendResult : byte
{
    /// <summary>The bytes were written or queued in order behind earlier bytes.</summary>
    Sent,

    /// <summary>The connection's bounded send queue is full; the bytes were not taken.</summary>
    Backpressured,

    /// <summary>The connection is closed; the bytes were dropped.</summary>
    Closed,
}

/// <summary>The transport side of a session: what the session needs from one connected socket.</summary>
/// <remarks>
/// Called only on the session's owner thread. <see cref="Send"/> must copy or write the bytes before it returns
/// (the session reuses its buffer) and must not call back into the session. Implementations: the engine's socket
/// adapter, and in-memory fakes in tests.
/// </remarks>
public interface ISessionConnection
{
    /// <summary>Writes one encoded message.</summary>
    /// <param name="message">The complete message; valid only during the call.</param>
    /// <returns>Whether the bytes were taken.</returns>
    SendResult Send(ReadOnlySpan<byte> message);

    /// <summary>Closes the connection. Must not call back into the session; the session already knows.</summary>
    /// <param name="reason">Why, for the log.</param>
    void Disconnect(string reason);
}
