using System;
using FixEngine.Transport;

namespace FixEngine.Session;

/// <summary>The transport side of a session: what the session needs from one connected socket.</summary>
/// <remarks>
/// Called only by the thread currently running the session (one at a time). <see cref="Send"/> must copy or write the bytes before it returns
/// (the session reuses its buffer) and must not call back into the session. Implementations: the engine's
/// <c>SessionConnection</c> (over a TCP or TLS transport connection), and in-memory fakes in tests.
/// </remarks>
internal interface ISessionConnection
{
    /// <summary>Writes one encoded message, or several whole messages back to back (a replay step's batch).</summary>
    /// <param name="message">The complete message or messages; valid only during the call.</param>
    /// <returns>The transport's answer: <see cref="SendResult.Sent"/> or <see cref="SendResult.Queued"/> when the bytes
    /// were taken (in order), <see cref="SendResult.Backpressure"/> or <see cref="SendResult.TooLarge"/> when not,
    /// <see cref="SendResult.Closed"/> when the connection is gone.</returns>
    /// <remarks>Backpressure must mean that no byte of the message was taken: the session then keeps the message in its
    /// send backlog and offers it again, whole and in order, on a later <see cref="FixSession.Poll"/>. TooLarge must
    /// take nothing either: a batch refused either way is offered again one message at a time.</remarks>
    SendResult Send(ReadOnlySpan<byte> message);

    /// <summary>Bytes the peer has sent that no thread has read from the connection yet (the socket's receive queue):
    /// evidence that the peer is alive when its messages have not been processed. 0 when there are none, the connection
    /// is closed, or the transport cannot tell (the default).</summary>
    /// <remarks>May be a system call; the session asks only when a TestRequest or a heartbeat timeout is due.</remarks>
    int UnreadInboundBytes => 0;

    /// <summary>Closes the connection; bytes already taken by <see cref="Send"/> still leave first (the engine bounds that
    /// wait). Must not call back into the session; the session already knows.</summary>
    /// <param name="reason">Why, for the log.</param>
    void Disconnect(string reason);
}
