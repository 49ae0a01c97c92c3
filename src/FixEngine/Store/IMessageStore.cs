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

/// <summary>Persists a FIX session's sequence numbers, creation time, processed-inbound mark and sent messages (for resends).</summary>
/// <remarks>
/// Implementations are NOT thread-safe: the session layer is the single owner and calls every member from its own
/// thread. Sequence numbers start at 1. Steady-state calls (append, increment, range reads) do not allocate; growth of
/// internal buffers is amortised.
/// Errors of the medium (disk full, I/O error, unwritable folder, a store that refuses to open) are thrown as
/// <see cref="MessageStoreException"/> (an <see cref="System.IO.IOException"/>); argument errors as
/// <see cref="ArgumentException"/>. A persistent store keeps its sequence numbers across crashes and damaged records
/// (see <see cref="FileMessageStore"/> for exactly what survives what).
/// </remarks>
public interface IMessageStore : IDisposable
{
    /// <summary>The MsgSeqNum(34) the session will put on its next outbound message.</summary>
    int NextSenderMsgSeqNum { get; }

    /// <summary>The MsgSeqNum(34) the session expects on the next inbound message.</summary>
    int NextTargetMsgSeqNum { get; }

    /// <summary>The time the session (this store's current incarnation) was created, in nanoseconds since the Unix epoch.</summary>
    long CreationTimeEpochNs { get; }

    /// <summary>The highest inbound MsgSeqNum whose processing the session marked complete (0: none since the last reset).</summary>
    /// <remarks>
    /// For exactly-once processing across restarts: the session sets it with
    /// <see cref="AppendAndIncrement(int, ReadOnlySpan{byte}, int)"/> on the outbound message that answers an inbound
    /// one (mark and message persisted as one atomic step), or with <see cref="SetLastProcessedInboundSeqNum"/> when
    /// nothing was sent. After a crash, an inbound message at or below the mark was processed and its answer stored;
    /// one above it was not (or its answer was not stored). <see cref="Reset"/> sets it to 0. The mark is exactly as
    /// precise as the caller's choice of record: when one inbound message is answered by several outbound ones,
    /// carrying the mark on the first answer means a crash before the others loses them (at most once), carrying it
    /// on a separate <see cref="SetLastProcessedInboundSeqNum"/> after the last means a crash in between repeats the
    /// earlier ones (at least once). The store does not check that the mark only grows.
    /// </remarks>
    int LastProcessedInboundSeqNum { get; }

    /// <summary>What the store found and did when the last open or <see cref="Refresh"/> had to recover its medium; null
    /// when that open or refresh found nothing to recover, and always null for in-memory stores.</summary>
    StoreRecoveryReport? LastRecoveryReport { get; }

    /// <summary>The failure that keeps the store from taking writes right now, or null while it takes them. Read
    /// without blocking or allocating.</summary>
    /// <remarks>A store whose medium can come back by itself (a database) returns a failure with
    /// <see cref="MessageStoreException.MayRecover"/> while the medium is away and null again once its background
    /// retries reach it; a terminal failure stays. A session whose <c>StoreFailurePolicy</c> is <c>Hold</c>
    /// polls it (with back-off) to know when to resume. Stores that fail only by throwing (memory, file) return null
    /// (the default).</remarks>
    MessageStoreException? CurrentFailure => null;

    /// <summary>True when the sender sequence number this store opened with may be behind what the counterparty has
    /// received: the last holder of the session stopped without handing its state over cleanly, and the store's
    /// policy lets such a holder send messages the store never got (a PostgreSQL store taken over under an
    /// asynchronous sync policy).</summary>
    /// <remarks>The session then trusts the counterparty's Logon NextExpectedMsgSeqNum(789) (FIX.4.4 and later) to move
    /// its sender number forward, never back, and answers resend requests for the skipped numbers with
    /// SequenceReset-GapFill. False (the default) for stores that keep every number they handed out.</remarks>
    bool MayHaveLostTail => false;

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

    /// <summary>Sets <see cref="LastProcessedInboundSeqNum"/> (the session processed an inbound message and sent nothing
    /// in answer); <paramref name="value"/> must be at least 0.</summary>
    /// <param name="value">The inbound MsgSeqNum whose processing is complete.</param>
    /// <remarks>Durability follows the store's sync policy for outbound messages (the mark guards against processing
    /// an inbound message twice).</remarks>
    void SetLastProcessedInboundSeqNum(int value);

    /// <summary>Stores an outbound message under <paramref name="seqNum"/>, replacing any message already stored there.</summary>
    /// <param name="seqNum">The message's MsgSeqNum(34), at least 1.</param>
    /// <param name="message">The encoded message; the store copies it.</param>
    /// <remarks>Does not change <see cref="NextSenderMsgSeqNum"/>; see <see cref="AppendAndIncrement(int, ReadOnlySpan{byte})"/>.</remarks>
    void Append(int seqNum, ReadOnlySpan<byte> message);

    /// <summary>Stores an outbound message and sets <see cref="NextSenderMsgSeqNum"/> to <paramref name="seqNum"/> + 1 as one atomic step.</summary>
    /// <param name="seqNum">The message's MsgSeqNum(34), at least 1.</param>
    /// <param name="message">The encoded message; the store copies it.</param>
    /// <remarks>A persistent store writes a single record, so after a crash either both effects are visible or neither.</remarks>
    void AppendAndIncrement(int seqNum, ReadOnlySpan<byte> message);

    /// <summary>Stores an outbound message, sets <see cref="NextSenderMsgSeqNum"/> to <paramref name="seqNum"/> + 1 and
    /// <see cref="LastProcessedInboundSeqNum"/> to <paramref name="processedInboundSeqNum"/> as one atomic step.</summary>
    /// <param name="seqNum">The message's MsgSeqNum(34), at least 1.</param>
    /// <param name="message">The encoded message; the store copies it.</param>
    /// <param name="processedInboundSeqNum">The inbound MsgSeqNum this message answers (processing complete), at least 0.</param>
    /// <remarks>A persistent store writes a single record: after a crash the message, the sender number and the mark
    /// are all visible or none is, so a restarted session neither processes the inbound message again nor loses its
    /// answer. Durability follows the store's sync policy for outbound messages.</remarks>
    void AppendAndIncrement(int seqNum, ReadOnlySpan<byte> message, int processedInboundSeqNum);

    /// <summary>Calls <paramref name="handler"/> for each stored message with <paramref name="beginSeqNo"/> &lt;= seq &lt;= <paramref name="endSeqNo"/>, in order.</summary>
    /// <typeparam name="THandler">A struct handler, so the call does not box or allocate.</typeparam>
    /// <param name="beginSeqNo">First sequence number wanted (values below 1 are treated as 1).</param>
    /// <param name="endSeqNo">Last sequence number wanted; 0 means no upper bound (as in ResendRequest EndSeqNo(16)=0).</param>
    /// <param name="handler">Receives each message; it may stop the read early by returning <see langword="false"/>.</param>
    /// <returns>The number of messages delivered to the handler. Sequence numbers with no stored message (never stored, or a
    /// body a recovery reported lost) are skipped: the session answers those with SequenceReset-GapFill.</returns>
    int ReadRange<THandler>(int beginSeqNo, int endSeqNo, ref THandler handler) where THandler : struct, IStoredMessageHandler;

    /// <summary>Starts a new session incarnation: both sequence numbers back to 1, the processed-inbound mark to 0, all
    /// messages dropped, creation time set.</summary>
    /// <param name="nowEpochNs">The new creation time, in nanoseconds since the Unix epoch (the caller owns the clock).</param>
    void Reset(long nowEpochNs);

    /// <summary>Makes everything written so far durable (a no-op for in-memory stores).</summary>
    void Flush();

    /// <summary>Reloads the state from the backing medium (a no-op for in-memory stores).</summary>
    void Refresh();
}

/// <summary>A <see cref="IStoredMessageHandler"/> that also takes the <see cref="ResendLayout"/> a file store recorded
/// with each message (<see cref="FileMessageStore.ReadRangeLaidOut{THandler}"/>).</summary>
internal interface ILaidOutMessageHandler
{
    /// <summary>Called once per stored message, in ascending sequence number order.</summary>
    /// <param name="seqNum">The MsgSeqNum(34) the message was stored under.</param>
    /// <param name="message">The stored message, valid until this call returns.</param>
    /// <param name="layout">Its layout (not <see cref="ResendLayout.IsKnown"/> when none was recorded).</param>
    /// <returns><see langword="true"/> to continue; <see langword="false"/> to stop reading.</returns>
    bool OnMessage(int seqNum, ReadOnlySpan<byte> message, in ResendLayout layout);
}
