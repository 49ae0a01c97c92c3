using System;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Logging;
using FixEngine.Store;

namespace FixEngine.Session;

// Role: what the session does about its store beyond storing. A store whose medium is away for a while (the PostgreSQL
// database) under StoreFailurePolicy=Hold: the session holds (sends nothing, accepts no new message, keeps the
// connection while the store's lease lasts) and resumes once the store takes writes again. After a takeover whose store
// may have lost its last sent messages: the counterparty's expectation moves the sender number forward. A store that had
// to recover its medium on open: the application is told.
//
// Why nothing at all is sent while holding, not even heartbeats: every outbound message consumes a MsgSeqNum that is
// stored before the message leaves (a message reported sent is never lost by a crash). A heartbeat sent unstored would
// put the counterparty ahead of the database; a standby (or this engine after a crash) would resume below what the
// counterparty expects. And once the lease lapses a standby may be taking the session over: silence is what lets it.
// The counterparty sends a TestRequest after about HeartBtInt of our silence and drops the connection after about two:
// a hold shorter than that is invisible to it; a longer one ends in its disconnect (or ours, when the lease lapses), and
// the session logs on again after it resumes.

public sealed partial class FixSession
{
    private const long HoldFirstRetryNs = 250_000_000L;
    private const long HoldMaxRetryNs = 5_000_000_000L;

    /// <summary>True while the session holds because its message store cannot take writes for a while
    /// (<c>StoreFailurePolicy=Hold</c>): nothing is sent, <see cref="TrySendFromAnyThread{TState}(ReadOnlySpan{byte}, long, in TState, BodyWriter{TState})"/>
    /// returns false and <see cref="Send{TState}(ReadOnlySpan{byte}, in TState, BodyWriter{TState}, long)"/> throws.</summary>
    /// <remarks>Any thread may read it (a recent value). <see cref="StoreHoldReason"/> says why;
    /// <see cref="IApplication.OnStoreHeld"/> and <see cref="IApplication.OnStoreResumed"/> mark both ends.</remarks>
    public bool IsStoreHeld => _held;

    /// <summary>The store failure the session is holding on (the latest one seen), or null when not holding. Owner thread.</summary>
    public MessageStoreException? StoreHoldReason => _storeHold;

    private bool WouldHold(MessageStoreException error) =>
        _settings.StoreFailurePolicy == StoreFailurePolicy.Hold && error.MayRecover;

    private void EnterHold(MessageStoreException error, long epochNs)
    {
        bool first = _storeHold is null;
        _storeHold = error;
        if (!first) return;
        _held = true;
        _heldSinceNs = epochNs;
        _holdRetryNs = HoldFirstRetryNs;
        _holdRetryAtNs = epochNs + _holdRetryNs;
        Raise(SessionEventKind.StoreHold, LogLevel.Warning, "Message store unavailable: " + error.Message + " Holding (StoreFailurePolicy=Hold): nothing is "
            + "sent and no new message is accepted until the store takes writes again; inbound messages are asked for again then", epochNs);
        if (_connection is not null)
        {
            if (!IsLoggedOn) Disconnect("message store unavailable before the logon completed (holding)", epochNs);
            else if (IsLeaseLost(error)) DisconnectForLostLease(epochNs);
        }
        _application.OnStoreHeld(this, error);
    }

    private static bool IsLeaseLost(MessageStoreException? error) => error is { Ownership: MessageStoreOwnership.Lapsed };

    // The lease lapsed: a standby may take the session over and must be able to log on at the counterparty. No Logout:
    // it would need a stored sequence number.
    private void DisconnectForLostLease(long epochNs) =>
        Disconnect("message store lease lost while holding; disconnecting without a Logout so a standby can take the session over", epochNs);

    // Poll while holding: watch the store (cheap reads every call), try to resume on the back-off schedule, keep the
    // messages already stored moving to the transport, and give up on a silent peer as usual.
    private int PollHeld(long epochNs)
    {
        _epochNs = epochNs;
        MessageStoreException? problem = _store.CurrentFailure;
        if (problem is not null && !problem.MayRecover)
        {
            // Fenced, or a lease that will not come back: the hold ends in the terminal failure.
            EndHold();
            OnStoreFailed(problem, epochNs);
            return 1;
        }
        if (_connection is not null && IsLeaseLost(problem))
        {
            DisconnectForLostLease(epochNs);
            return 1;
        }
        if (epochNs >= _holdRetryAtNs)
        {
            if (problem is null)
            {
                ResumeFromHold(epochNs);
                return 1;
            }
            _storeHold = problem;
            _holdRetryNs = Math.Min(_holdRetryNs * 2, HoldMaxRetryNs);
            _holdRetryAtNs = epochNs + _holdRetryNs;
        }
        if (_connection is null) return 0;
        // Messages stored before the hold and waiting for the transport may go: their numbers are in the store.
        int work = FlushSendBacklog(epochNs);
        if (_heartbeat.Check(epochNs) == HeartbeatDue.Disconnect && !PeerBytesWaitUnread(epochNs))
        {
            Disconnect("Timed out waiting for heartbeat (holding: the session sends nothing, so it answered no TestRequest)", epochNs);
            return work + 1;
        }
        return work;
    }

    // The store takes writes again: sends and connections are accepted again, and inbound messages left unprocessed
    // while holding are asked for again (they come back with PossDupFlag=Y).
    private void ResumeFromHold(long epochNs)
    {
        string reason = _storeHold?.Message ?? "";
        EndHold();
        Raise(SessionEventKind.StoreHold, LogLevel.Warning, "Message store takes writes again after " + (epochNs - _heldSinceNs) / 1_000_000 + " ms of holding; resuming (it had failed: "
            + reason + ")", epochNs);
        int heldCount = _heldInboundCount;
        int heldMax = _heldInboundMax;
        _heldInboundCount = 0;
        _heldInboundMax = 0;
        _application.OnStoreResumed(this);
        if (_connection is not null && IsLoggedOn && heldMax >= _store.NextTargetMsgSeqNum)
        {
            Raise(SessionEventKind.Other, LogLevel.Warning, heldCount + " inbound message(s) were not processed while holding; asking for them again", epochNs);
            try
            {
                RequestResend(_store.NextTargetMsgSeqNum, heldMax, epochNs);
            }
            catch (MessageStoreException e)
            {
                OnStoreFailed(e, epochNs);
            }
        }
    }

    private void EndHold()
    {
        _storeHold = null;
        _held = false;
    }

    // An inbound message arrived while holding: the peer is alive, but nothing is processed (an answer would need a
    // stored sequence number) and the inbound number does not move; it is asked for again on resume. A Logout ends the
    // connection (unanswered, for the same reason).
    private void OnMessageWhileHeld(ReadOnlySpan<byte> frame, long epochNs)
    {
        var message = IndexInbound(frame);
        _heartbeat.OnReceived(epochNs, message.HasStandardPrefix && IsAdminMsgType(message.MsgType));
        if (message.HasStandardPrefix && message.MsgType.SequenceEqual(MsgTypes.Logout))
        {
            FromAdmin(message);
            Disconnect("Logout received while holding (not answered: the store cannot number a reply)", epochNs);
            return;
        }
        NoteHeldInbound(message, epochNs);
    }

    private void NoteHeldInbound(FixMessage message, long epochNs)
    {
        int seq = message.TryGetInt(FixTags.MsgSeqNum, out int s) == FixValueStatus.Ok ? s : 0;
        if (_heldInboundCount++ == 0)
        {
            Raise(SessionEventKind.Other, LogLevel.Warning, "Inbound MsgSeqNum " + seq + " not processed while holding; the session asks for it again when the store is back", epochNs);
        }
        if (seq > _heldInboundMax) _heldInboundMax = seq;
    }

    // The frame being processed when the store failed into a hold: not consumed unless the inbound number moved past it.
    private void NoteHeldInbound(ReadOnlySpan<byte> frame, long epochNs)
    {
        var message = IndexInbound(frame);
        if (message.HasStandardPrefix) NoteHeldInbound(message, epochNs);
    }

    // After a takeover under an asynchronous sync policy, the store may be behind what the counterparty received. A FIX.4.4+ counterparty says what it expects in its Logon's
    // NextExpectedMsgSeqNum(789): move the sender number up to it (never down), once, and only when the store says it
    // may have lost its tail. The skipped numbers have no stored body: a ResendRequest for them gets a GapFill.
    private void MoveSenderUpToPeerExpectation(FixMessage logon, bool resetFlag, long epochNs)
    {
        if (resetFlag || _beginStringVersion < 44) return;
        if (logon.TryGetInt(FixTags.NextExpectedMsgSeqNum, out int expects) != FixValueStatus.Ok) return;
        if (_tailMayBeLost)
        {
            MoveSenderUpTo(expects, "NextExpectedMsgSeqNum(789) of its Logon", epochNs);
        }
        else if (expects > _store.NextSenderMsgSeqNum)
        {
            Raise(SessionEventKind.Other, LogLevel.Warning, "The counterparty expects MsgSeqNum " + expects + " (NextExpectedMsgSeqNum(789)) but our next is "
                + _store.NextSenderMsgSeqNum + "; not moved: the store does not report that it may have lost sent messages, so the "
                + "counterparty's number is not trusted over it (an operator who knows it is right sets it through FixSession.Store.SetNextSenderMsgSeqNum)", epochNs);
        }
    }

    // Our Logon refused as "MsgSeqNum too low, expecting X but received Y" (the text QuickFIX engines and this one send),
    // by a Logout before the logon completed (initiator) or right after it (acceptor: its Logon reply is what the
    // counterparty refuses): the same move, from the Logout's Text(58), bounded by MaxSenderSeqNumCatchUp, so the next
    // logon goes through whether or not the counterparty sends NextExpectedMsgSeqNum(789).
    private void MoveSenderUpFromRefusal(ReadOnlySpan<byte> text, long epochNs)
    {
        if (!_tailMayBeLost) return;
        ReadOnlySpan<byte> marker = "MsgSeqNum too low, expecting "u8;
        int at = text.IndexOf(marker);
        if (at < 0) return;
        ReadOnlySpan<byte> rest = text.Slice(at + marker.Length);
        int digits = 0;
        while (digits < rest.Length && digits < 10 && (uint)(rest[digits] - '0') <= 9) digits++;
        if (digits == 0 || !FixValueParser.TryParseInt(rest.Slice(0, digits), out int expects)) return;
        // "... but received Y": when the refusal names the number it got, it must be one we sent.
        ReadOnlySpan<byte> received = " but received "u8;
        rest = rest.Slice(digits);
        if (rest.StartsWith(received))
        {
            rest = rest.Slice(received.Length);
            int n = 0;
            while (n < rest.Length && n < 10 && (uint)(rest[n] - '0') <= 9) n++;
            if (n > 0 && FixValueParser.TryParseInt(rest.Slice(0, n), out int got) && got >= _store.NextSenderMsgSeqNum) return;
        }
        MoveSenderUpTo(expects, "Text(58) of the Logout that refused our Logon", epochNs);
    }

    private void MoveSenderUpTo(int expects, string source, long epochNs)
    {
        int next = _store.NextSenderMsgSeqNum;
        if (expects <= next || expects > MaxUsableMsgSeqNum) return;
        int limit = _settings.MaxSenderSeqNumCatchUp;
        if ((long)expects - next > limit)
        {
            Raise(SessionEventKind.Other, LogLevel.Error, "The counterparty expects MsgSeqNum " + expects + " (" + source + ") but our next is " + next + ": a jump of "
                + ((long)expects - next) + " exceeds MaxSenderSeqNumCatchUp=" + limit + ", so the sender number is not moved; an operator who knows the "
                + "counterparty is right sets it (FixSession.Store.SetNextSenderMsgSeqNum) or raises the limit", epochNs);
            return;
        }
        _store.SetNextSenderMsgSeqNum(expects);
        _tailMayBeLost = false;
        Raise(SessionEventKind.Other, LogLevel.Warning, "The counterparty expects MsgSeqNum " + expects + " (" + source + ") but the store's next was " + next
            + ": the store may have lost the last messages sent before a takeover or crash. Sender sequence number moved up to " + expects
            + "; a ResendRequest for " + next + ".." + (expects - 1) + " is answered with SequenceReset-GapFill (their content is not in the store)", epochNs);
    }

    // A store that had to recover its medium when it was opened (or refreshed) tells the application, once per report.
    private void RaiseStoreRecovered()
    {
        if (_store.LastRecoveryReport is not StoreRecoveryReport report || ReferenceEquals(report, _raisedRecovery)) return;
        _raisedRecovery = report;
        _application.OnStoreRecovered(this, report);
    }
}
