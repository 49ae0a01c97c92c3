using System;

namespace FixEngine.Store;

/// <summary>Receives the messages read back by <see cref="IMessageStore.ReadRange{THandler}"/>, one call per stored message.</summary>
/// <remarks>
/// Implement it on a struct so the call is devirtualised and nothing is boxed. The span is only valid during the
/// call (it points into the store's own buffer); copy the bytes to keep them. The handler must not modify the store.
/// </remarks>
public interface IStoredMessageHandler
{
    /// <summary>Called once per stored message, in ascending sequence number order.</summary>
    /// <param name="seqNum">The MsgSeqNum(34) the message was stored under.</param>
    /// <param name="message">The stored bytes, valid until this call returns.</param>
    /// <returns><see langword="true"/> to continue with the next message; <see langword="false"/> to stop reading.</returns>
    bool OnMessage(int seqNum, ReadOnlySpan<byte> message);
}

/// <summary>Persists a FIX session's sequence numbers, creation time and sent messages (for resends).</summary>
/// <remarks>
/// Implementations are NOT thread-safe: the session layer is the single owner and calls every member from its own
/// thread. Sequence numbers start at 1. Steady-state calls (append, increment, range reads) do not allocate; growth of
/// internal buffers is amortised.
/// </remarks>
public interface IMessageStore : IDisposable
{
    /// <summary>The MsgSeqNum(34) the session will put on its next outbound message.</summary>
    int NextSenderMsgSeqNum { get; }

    /// <summary>The MsgSeqNum(34) the session expects on the next inbound message.</summary>
    int NextTargetMsgSeqNum { get; }

    /// <summary>The time the session (this store's current incarnation) was created, in nanoseconds since the Unix epoch.</summary>
    long CreationTimeEpochNs { get; }

    /// <summary>Sets <see cref="NextSenderMsgSeqNum"/>; <paramref name="value"/> must be at least 1.</summary>
    /// <param name="value">The new next outbound sequence number.</param>
    void SetNextSenderMsgSeqNum(int value);

    /// <summary>Sets <see cref="NextTargetMsgSeqNum"/>; <paramref name="value"/> must be at least 1.</summary>
    /// <param name="value">The new next inbound sequence number.</param>
    void SetNextTargetMsgSeqNum(int value);

    /// <summary>Adds one to <see cref="NextSenderMsgSeqNum"/>.</summary>
    void IncrNextSenderMsgSeqNum();

    /// <summary>Adds one to <see cref="NextTargetMsgSeqNum"/>.</summary>
    void IncrNextTargetMsgSeqNum();

    /// <summary>Stores an outbound message under <paramref name="seqNum"/>, replacing any message already stored there.</summary>
    /// <param name="seqNum">The message's MsgSeqNum(34), at least 1.</param>
    /// <param name="message">The encoded message; the store copies it.</param>
    /// <remarks>Does not change <see cref="NextSenderMsgSeqNum"/>; see <see cref="AppendAndIncrement"/>.</remarks>
    void Append(int seqNum, ReadOnlySpan<byte> message);

    /// <summary>Stores an outbound message and sets <see cref="NextSenderMsgSeqNum"/> to <paramref name="seqNum"/> + 1 as one atomic step.</summary>
    /// <param name="seqNum">The message's MsgSeqNum(34), at least 1.</param>
    /// <param name="message">The encoded message; the store copies it.</param>
    /// <remarks>A persistent store writes a single record, so after a crash either both effects are visible or neither.</remarks>
    void AppendAndIncrement(int seqNum, ReadOnlySpan<byte> message);

    /// <summary>Calls <paramref name="handler"/> for each stored message with <paramref name="beginSeqNo"/> &lt;= seq &lt;= <paramref name="endSeqNo"/>, in order.</summary>
    /// <typeparam name="THandler">A struct handler, so the call does not box or allocate.</typeparam>
    /// <param name="beginSeqNo">First sequence number wanted (values below 1 are treated as 1).</param>
    /// <param name="endSeqNo">Last sequence number wanted; 0 means no upper bound (as in ResendRequest EndSeqNo(16)=0).</param>
    /// <param name="handler">Receives each message; it may stop the read early by returning <see langword="false"/>.</param>
    /// <returns>The number of messages delivered to the handler. Sequence numbers with no stored message are skipped.</returns>
    int ReadRange<THandler>(int beginSeqNo, int endSeqNo, ref THandler handler) where THandler : struct, IStoredMessageHandler;

    /// <summary>Starts a new session incarnation: both sequence numbers back to 1, all messages dropped, creation time set.</summary>
    /// <param name="nowEpochNs">The new creation time, in nanoseconds since the Unix epoch (the caller owns the clock).</param>
    void Reset(long nowEpochNs);

    /// <summary>Makes everything written so far durable (a no-op for in-memory stores).</summary>
    void Flush();

    /// <summary>Reloads the state from the backing medium (a no-op for in-memory stores).</summary>
    void Refresh();
}
