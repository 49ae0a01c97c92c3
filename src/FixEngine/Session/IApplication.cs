using System;
using FixEngine.Codec;

namespace FixEngine.Session;

/// <summary>What the application decided about an inbound application message.</summary>
public enum FromAppAction : byte
{
    /// <summary>Processed (or deliberately ignored); nothing more to send.</summary>
    Accepted,

    /// <summary>The application does not handle this MsgType: the session sends BusinessMessageReject(380=3).</summary>
    UnsupportedMessageType,

    /// <summary>The session sends a session Reject with <see cref="FromAppResult.RejectReason"/> and <see cref="FromAppResult.RefTagId"/>.</summary>
    Reject,
}

/// <summary>Result of <see cref="IApplication.FromApp"/>: accept, unsupported message type, or a session-level Reject.</summary>
/// <remarks>A plain value: returning it allocates nothing (unlike throwing).</remarks>
public readonly struct FromAppResult
{
    private FromAppResult(FromAppAction action, int reason, int tag)
    {
        Action = action;
        RejectReason = reason;
        RefTagId = tag;
    }

    /// <summary>What the session does next.</summary>
    public FromAppAction Action { get; }

    /// <summary>SessionRejectReason(373) for <see cref="FromAppAction.Reject"/>.</summary>
    public int RejectReason { get; }

    /// <summary>RefTagID(371) for <see cref="FromAppAction.Reject"/>, 0 for none.</summary>
    public int RefTagId { get; }

    /// <summary>The message was handled.</summary>
    public static FromAppResult Accepted => default;

    /// <summary>The MsgType is not supported: BusinessMessageReject with BusinessRejectReason 3.</summary>
    public static FromAppResult UnsupportedMessageType => new(FromAppAction.UnsupportedMessageType, 0, 0);

    /// <summary>A required field is missing: Reject 373=1.</summary>
    /// <param name="tag">The missing tag.</param>
    /// <returns>The result.</returns>
    public static FromAppResult RequiredTagMissing(int tag) => new(FromAppAction.Reject, SessionRejectReason.RequiredTagMissing, tag);

    /// <summary>A value is not acceptable: Reject 373=5.</summary>
    /// <param name="tag">The offending tag.</param>
    /// <returns>The result.</returns>
    public static FromAppResult IncorrectTagValue(int tag) => new(FromAppAction.Reject, SessionRejectReason.ValueIsIncorrect, tag);

    /// <summary>Any session Reject.</summary>
    /// <param name="reason">SessionRejectReason(373).</param>
    /// <param name="tag">RefTagID(371), 0 for none.</param>
    /// <returns>The result.</returns>
    public static FromAppResult Reject(int reason, int tag) => new(FromAppAction.Reject, reason, tag);
}

/// <summary>Thrown by <see cref="IApplication.FromAdmin"/> on a Logon to refuse it: the session answers Logout(58=message) and disconnects.</summary>
public sealed class RejectLogonException : Exception
{
    /// <summary>Creates the exception.</summary>
    /// <param name="reason">Sent as Text(58) of the Logout.</param>
    public RejectLogonException(string reason) : base(reason)
    {
    }
}

/// <summary>Thrown by <see cref="IApplication.FromApp"/> instead of returning <see cref="FromAppResult.UnsupportedMessageType"/>.</summary>
public sealed class UnsupportedMessageTypeException : Exception
{
    /// <summary>Creates the exception.</summary>
    public UnsupportedMessageTypeException() : base("Unsupported Message Type")
    {
    }
}

/// <summary>Why a message handed to <c>FixSession.TrySendFromAnyThread</c> was never stored (<see cref="IApplication.OnSendNotStored"/>).</summary>
public enum SendNotStoredReason
{
    /// <summary>The engine stopped (or its Stop timed out) before the session's thread took the message.</summary>
    EngineStopped,

    /// <summary>The message store failed (the session is stopped: <c>FixSession.StoreFailure</c>).</summary>
    StoreFailed,

    /// <summary>With its header the message did not fit in MaxMessageSize.</summary>
    TooLarge,

    /// <summary>The application vetoed it in <see cref="IApplication.ToApp"/> (<see cref="DoNotSendException"/>).</summary>
    Vetoed,
}

/// <summary>Thrown by <see cref="IApplication.ToApp"/> to veto an outgoing application message (QuickFIX/n's
/// <c>DoNotSend</c>).</summary>
/// <remarks>A new message that is vetoed is neither stored nor sent and uses no sequence number
/// (<c>FixSession.Send</c> returns <see cref="Transport.SendResult.Vetoed"/>; a handed-over one is reported through
/// <see cref="IApplication.OnSendNotStored"/> with <see cref="SendNotStoredReason.Vetoed"/>). A stored message that is
/// vetoed when a ResendRequest asks for it again is replaced by a SequenceReset-GapFill, as QuickFIX does. Throwing
/// allocates: a veto is meant to be rare (one cached instance, <see cref="Instance"/>, may be thrown each time).</remarks>
public sealed class DoNotSendException : Exception
{
    /// <summary>Creates the exception.</summary>
    public DoNotSendException() : base("Do not send this message")
    {
    }

    /// <summary>A shared instance to throw.</summary>
    public static DoNotSendException Instance { get; } = new();
}

/// <summary>Callbacks from a <see cref="FixSession"/> to the application, in the QuickFIX shape.</summary>
/// <remarks>
/// Every callback runs on the session's owner thread of the moment, inline in message processing, so it must not
/// block. Which thread that is depends on <see cref="Config.SessionSettings.ReceiveMode"/>: the engine agent
/// (<c>fix-engine</c>) for everything in busy-poll mode; in dedicated mode (the default) the connection's receive thread
/// (<c>fix-receive#N</c>) for inbound messages; in completion mode and for TLS a socket completion thread (thread pool)
/// for inbound messages. In dedicated, completion and TLS sessions the agent runs the timers, the outbox and the send
/// backlog, so it raises the callbacks those cause (Heartbeats in <see cref="ToAdmin"/>, <see cref="OnSendStored"/>,
/// a timeout's <see cref="OnLogout"/>). Messages handed over with <c>FixSession.TrySendFromAnyThread</c> are sent, and
/// <see cref="OnSendStored"/> and <see cref="ToApp"/> raised, by the calling thread itself when the session is free,
/// else by the receiving thread in the session before it leaves, else by the agent. The threads take turns under the
/// session's gate (docs/architecture.md draws each path). Callbacks of one session never run concurrently; <see cref="OnCreate"/> runs on the thread that builds
/// the engine. Inbound messages are zero-copy
/// <see cref="FixMessage"/> readers valid only during the callback. The application may call <c>FixSession.Send</c>
/// from inside a callback; from any other thread it uses <c>FixSession.TrySendFromAnyThread</c>. Default
/// implementations do nothing.
/// </remarks>
public interface IApplication
{
    /// <summary>The session was created (once per session object).</summary>
    /// <param name="session">The session.</param>
    void OnCreate(FixSession session)
    {
    }

    /// <summary>Logon completed.</summary>
    /// <param name="session">The session.</param>
    void OnLogon(FixSession session)
    {
    }

    /// <summary>The session logged out or lost its connection after logon.</summary>
    /// <param name="session">The session.</param>
    void OnLogout(FixSession session)
    {
    }

    /// <summary>An admin message is being built; the application may append body fields (e.g. Username/Password on Logon).</summary>
    /// <param name="session">The session.</param>
    /// <param name="msgType">MsgType(35) of the message.</param>
    /// <param name="body">Writer positioned after the session's body fields, before the trailer.</param>
    /// <remarks>Called again for the same message, into a larger buffer, when the message did not fit in the
    /// session's encode buffer so far (it starts at a few KB and grows on demand up to MaxMessageSize).</remarks>
    void ToAdmin(FixSession session, ReadOnlySpan<byte> msgType, ref FixWriter body)
    {
    }

    /// <summary>An admin message arrived (after the session's checks). Throw <see cref="RejectLogonException"/> to refuse a Logon.</summary>
    /// <param name="session">The session.</param>
    /// <param name="message">The message, valid during the call.</param>
    /// <remarks>A Logout that refuses our Logon (it arrives before the logon completed) is passed here too, so its
    /// Text(58), e.g. "MsgSeqNum too low, expecting 18705 but received 18701", reaches the application; the session
    /// then disconnects (no <see cref="OnLogout"/>: it never logged on).</remarks>
    void FromAdmin(FixSession session, FixMessage message)
    {
    }

    /// <summary>An application message was encoded and is about to be stored and written (also for resends, with
    /// PossDupFlag=Y). Throw <see cref="DoNotSendException"/> to veto it.</summary>
    /// <param name="session">The session.</param>
    /// <param name="message">The complete encoded message, valid during the call.</param>
    /// <remarks>A vetoed new message is neither stored nor sent and uses no sequence number; a vetoed resend is
    /// gap-filled (QuickFIX's DoNotSend).</remarks>
    void ToApp(FixSession session, ReadOnlySpan<byte> message)
    {
    }

    /// <summary>An application message arrived, in sequence and validated.</summary>
    /// <param name="session">The session.</param>
    /// <param name="message">The message, valid during the call.</param>
    /// <returns>What the session should answer.</returns>
    /// <remarks>Each inbound message is handed over once: one the session already processed before a restart (its
    /// answer stored with the processed mark) is not handed over again. <see cref="FixSession.IsPossibleRedelivery"/>
    /// is true during the call when this message may have been handed over before (the peer resent it, or the process
    /// stopped while it was being processed): check your own records for work done outside the engine (README
    /// "Exactly-once processing").</remarks>
    FromAppResult FromApp(FixSession session, FixMessage message);

    /// <summary>A message handed to <c>FixSession.TrySendFromAnyThread</c> was numbered and stored (and sent, or held to
    /// be sent in order): it survives a crash of this process and is resent on request.</summary>
    /// <param name="session">The session.</param>
    /// <param name="token">The token given to <c>TrySendFromAnyThread</c> (0 for the overload without one).</param>
    /// <param name="msgSeqNum">The MsgSeqNum(34) it was stored under.</param>
    /// <remarks>On the session's thread, in hand-over order, right after the store write. Must not block for long.
    /// After a restart, messages stored after the last one you recorded are in <c>FixSession.Store</c>
    /// (<see cref="Store.IMessageStore.ReadRange{THandler}"/> from that MsgSeqNum, before the engine starts):
    /// README "Sending".</remarks>
    void OnSendStored(FixSession session, long token, int msgSeqNum)
    {
    }

    /// <summary>A message the session accepted from <c>FixSession.TrySendFromAnyThread</c> will never be stored or
    /// sent (counted in <c>FixSession.HandedOverNotStoredCount</c>).</summary>
    /// <param name="session">The session.</param>
    /// <param name="token">The token given to <c>TrySendFromAnyThread</c>.</param>
    /// <param name="reason">Why.</param>
    /// <remarks>On the session's thread (or the engine's, when it stops).</remarks>
    void OnSendNotStored(FixSession session, long token, SendNotStoredReason reason)
    {
    }

    /// <summary>The session's message store failed (disk full, I/O error, the PostgreSQL database lost under
    /// <c>StoreFailurePolicy=Logout</c>): the session disconnected without a Logout (a Logout needs a sequence
    /// number the store cannot keep, and one sent unstored would put the counterparty a number ahead of the store, so the
    /// next Logon would be refused as too low), logged the reason, and refuses every further send and connection. The
    /// counterparty sees the connection close.</summary>
    /// <param name="session">The session.</param>
    /// <param name="error">What failed: the file (or database) and the operation; the PostgreSQL store
    /// (FixEngine.PostgreSQL) throws its <c>PostgresStoreException</c>, which says which failure.</param>
    /// <remarks>On the session's thread, once. Restart the engine once the medium is fixed: the store replays its
    /// journal (or reloads from the database) and the session resumes where it ends.</remarks>
    void OnStoreFailure(FixSession session, Store.MessageStoreException error)
    {
    }

    /// <summary>The session's message store cannot take writes for a while (the PostgreSQL database is away) and the
    /// session holds (<c>StoreFailurePolicy=Hold</c>): it sends nothing, <c>TrySendFromAnyThread</c> returns
    /// false and <c>Send</c> throws <see cref="InvalidOperationException"/> until <see cref="OnStoreResumed"/>.</summary>
    /// <param name="session">The session.</param>
    /// <param name="error">Why the store cannot take writes.</param>
    /// <remarks>On the session's thread, once per hold. A message whose <c>Send</c> threw was not stored or sent; messages
    /// already handed to <c>TrySendFromAnyThread</c> wait and are stored when the session resumes. If the failure turns
    /// terminal meanwhile (another engine took the session over), <see cref="OnStoreFailure"/> follows instead.</remarks>
    void OnStoreHeld(FixSession session, Store.MessageStoreException error)
    {
    }

    /// <summary>The message store takes writes again after <see cref="OnStoreHeld"/>: the session sends and accepts
    /// messages again (and asks the counterparty again for the inbound messages it left unprocessed meanwhile).</summary>
    /// <param name="session">The session.</param>
    /// <remarks>On the session's thread.</remarks>
    void OnStoreResumed(FixSession session)
    {
    }

    /// <summary>The session's store had to recover its medium when it was opened (a damaged or torn journal):
    /// <paramref name="report"/> says what was found, where, what was kept and what was lost.</summary>
    /// <param name="session">The session.</param>
    /// <param name="report">The store's <see cref="Store.IMessageStore.LastRecoveryReport"/>.</param>
    /// <remarks>Once per report: from the session's constructor, right after <see cref="OnCreate"/> (on the thread that
    /// builds the session, before any connection), and again only if a later refresh of the store
    /// (<c>RefreshOnLogon</c>) had to recover. The engine also writes the report to the session log. When
    /// <see cref="Store.StoreRecoveryReport.LostData"/> is true, resend requests for the lost numbers are answered with
    /// SequenceReset-GapFill: an application that must re-send lost business messages finds them in its own records.</remarks>
    void OnStoreRecovered(FixSession session, Store.StoreRecoveryReport report)
    {
    }
}
