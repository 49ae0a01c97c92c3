using System;
using FixEngine.Codec;

namespace FixEngine.Session;

// Role: what the session does with each inbound admin message (Logon, Heartbeat, TestRequest, Reject,
// SequenceReset, Logout, ResendRequest), and the public Logout.

public sealed partial class FixSession
{
    private void OnLogon(FixMessage message, long epochNs)
    {
        bool resetFlag = message.TryGetBool(FixTags.ResetSeqNumFlag, out bool r) == FixValueStatus.Ok && r;
        int seq = message.TryGetInt(FixTags.MsgSeqNum, out int s) == FixValueStatus.Ok ? s : 0;

        if (IsLoggedOn)
        {
            // Mid-session Logon: only a sequence reset (141=Y, 34=1) is legal.
            if (resetFlag && seq == 1 && _sentResetSeqNumFlag)
            {
                // The counterparty's answer to our own in-session reset (an operator's ResetSequenceNumbersInSession):
                // the new sequence is agreed; its Logon was its message 1.
                _sentResetSeqNumFlag = false;
                _store.IncrNextTargetMsgSeqNum();
                Raise(SessionEventKind.Other, Logging.LogLevel.Warning, "Counterparty accepted the sequence reset: Logon with ResetSeqNumFlag=Y, MsgSeqNum 1", epochNs);
                return;
            }
            if (resetFlag && seq == 1)
            {
                Raise(SessionEventKind.Other, Logging.LogLevel.Warning, "Logon with ResetSeqNumFlag=Y: resetting sequence numbers", epochNs);
                ResetStore(epochNs);
                int hb = message.TryGetInt(FixTags.HeartBtInt, out int peerHb) == FixValueStatus.Ok ? peerHb : _heartbeat.HeartBtIntSec;
                _heartbeat.HeartBtIntSec = hb;
                SendLogon(epochNs, true, hb);
                _store.IncrNextTargetMsgSeqNum();
                return;
            }
            SendLogout(epochNs, "Unexpected Logon");
            Disconnect("Unexpected Logon while logged on", epochNs);
            return;
        }

        if (!_isInitiator && _logonWindow is not null && !_logonWindow.IsInSession(epochNs))
        {
            // Inside the session time but outside its logon window (LogonTime-LogoutTime): refuse without touching the
            // sequence numbers (no reset, the Logon not consumed). Not a LogonRefused event: the session is not at fault.
            string text = "Logon outside the logon window (" + _logonWindowText + ")";
            Raise(SessionEventKind.Other, Logging.LogLevel.Warning, "Logon refused: " + text, epochNs);
            SendLogout(epochNs, text);
            Disconnect("Logon refused: outside the logon window", epochNs);
            return;
        }
        if (!_isInitiator && _settings.RefreshOnLogon)
        {
            RefreshStore(epochNs);
        }
        if (!_isInitiator && (_settings.ResetOnLogon || resetFlag))
        {
            ResetStore(epochNs);
        }
        else if (_isInitiator && resetFlag && !_sentResetSeqNumFlag)
        {
            ResetStore(epochNs);
            // Our Logon opened the new sequence: the peer counts it as 1, so our next message is 2 (never 1 again).
            _store.SetNextSenderMsgSeqNum(2);
            Raise(SessionEventKind.Other, Logging.LogLevel.Warning, "Peer answered our Logon with ResetSeqNumFlag=Y: sequence numbers reset, our Logon counts as 1", epochNs);
        }

        if (!Verify(message, epochNs, checkTooHigh: false, checkTooLow: true)) return;

        try
        {
            _application.FromAdmin(this, message);
        }
        catch (RejectLogonException e)
        {
            Raise(SessionEventKind.LogonRefused, Logging.LogLevel.Error, e.Message, epochNs);
            SendLogout(epochNs, e.Message);
            Disconnect("Logon refused: " + e.Message, epochNs);
            return;
        }

        // After a takeover that may have lost our last sent messages: answer at the number the counterparty expects.
        MoveSenderUpToPeerExpectation(message, resetFlag, epochNs);
        // The peer's NextExpectedMsgSeqNum(789) counts from the number our Logon has (acceptor: the one sent just below;
        // initiator: the one already sent, so our next number now).
        int ourLogonNext = _store.NextSenderMsgSeqNum;
        if (!_isInitiator)
        {
            int hb = message.TryGetInt(FixTags.HeartBtInt, out int peerHb) == FixValueStatus.Ok ? peerHb : _heartbeat.HeartBtIntSec;
            _heartbeat.HeartBtIntSec = hb;
            SendLogon(epochNs, resetFlag, hb);
        }
        _sentResetSeqNumFlag = false;
        // An acceptor learns whether the counterparty accepts its Logon reply only from what comes next: a Logout that
        // refuses it as too low may still move the sender number (OnLogout); any other message clears this (ProcessFrame).
        if (_isInitiator) _tailMayBeLost = false;
        EnterState(SessionState.LoggedOn, epochNs);

        if (_settings.EnableNextExpectedMsgSeqNum && _beginStringVersion >= 44
            && message.TryGetInt(FixTags.NextExpectedMsgSeqNum, out int peerExpects) == FixValueStatus.Ok
            && peerExpects < ourLogonNext && peerExpects > 0)
        {
            // The peer missed our messages from peerExpects on (before our Logon): replay them as if it had sent a
            // ResendRequest.
            ResendRange(peerExpects, ourLogonNext - 1, epochNs);
        }

        if (seq > _store.NextTargetMsgSeqNum && !resetFlag)
        {
            OnTargetTooHigh(message, seq, epochNs);
        }
        else
        {
            _store.IncrNextTargetMsgSeqNum();
        }
        // The Logon event (log, live tail, trace activity) once the exchange is complete: our Logon sent (an acceptor's
        // reply just above, an initiator's before), the counterparty's accepted and numbered (the next target is past
        // it, or a ResendRequest for the gap is out), so the event's numbers are the ones the session goes on with.
        Raise(NewEvent(SessionEventKind.Logon, Logging.LogLevel.Information, null) with { Received = seq }, epochNs);
        _counters.OnLogon();
        _application.OnLogon(this);
    }

    private void OnHeartbeat(FixMessage message, long epochNs)
    {
        if (!Verify(message, epochNs, true, true)) return;
        FromAdmin(message);
        _store.IncrNextTargetMsgSeqNum();
    }

    private void OnTestRequest(FixMessage message, long epochNs)
    {
        if (!Verify(message, epochNs, true, true)) return;
        FromAdmin(message);
        message.TryGetSpan(FixTags.TestReqID, out ReadOnlySpan<byte> id);
        SendHeartbeat(epochNs, id);
        _store.IncrNextTargetMsgSeqNum();
    }

    private void OnReject(FixMessage message, long epochNs)
    {
        if (!Verify(message, epochNs, checkTooHigh: false, checkTooLow: true)) return;
        FromAdmin(message);
        _store.IncrNextTargetMsgSeqNum();
    }

    private void OnSequenceReset(FixMessage message, long epochNs)
    {
        bool gapFill = message.TryGetBool(FixTags.GapFillFlag, out bool g) == FixValueStatus.Ok && g;
        if (!Verify(message, epochNs, gapFill, gapFill)) return;
        // NewSeqNo(36) must be a number the session can expect next: at least 1 and at most MaxUsableMsgSeqNum (the
        // message numbered int.MaxValue could never be consumed).
        FixValueStatus status = message.TryGetInt(FixTags.NewSeqNo, out int newSeqNo);
        if (status != FixValueStatus.Ok || newSeqNo < 1 || newSeqNo > MaxUsableMsgSeqNum)
        {
            string? why = status == FixValueStatus.Ok && newSeqNo > MaxUsableMsgSeqNum
                ? "NewSeqNo(36) " + newSeqNo + " cannot be followed: the largest usable MsgSeqNum is " + MaxUsableMsgSeqNum
                    + "; reset the sequence numbers (Logon with ResetSeqNumFlag(141)=Y) instead"
                : null;
            RejectSeqNumField(message, FixTags.NewSeqNo, "NewSeqNo", status, newSeqNo, why, epochNs);
            return;
        }
        FromAdmin(message);
        int expected = _store.NextTargetMsgSeqNum;
        if (newSeqNo > expected)
        {
            Raise(NewEvent(SessionEventKind.SequenceReset, Logging.LogLevel.Warning, null) with { Expected = expected, Received = newSeqNo }, epochNs);
            _store.SetNextTargetMsgSeqNum(newSeqNo);
            _gapQueue.DropBelow(newSeqNo);
        }
        else if (newSeqNo < expected)
        {
            SendReject(message, epochNs, SessionRejectReason.ValueIsIncorrect, 0, false);
        }
    }

    private void OnLogout(FixMessage message, long epochNs)
    {
        if (!Verify(message, epochNs, false, false)) return;
        FromAdmin(message);
        if (_tailMayBeLost && !_isInitiator && message.TryGetSpan(FixTags.Text, out ReadOnlySpan<byte> refusal)) MoveSenderUpFromRefusal(refusal, epochNs);
        bool wasLogoutSent = _state == SessionState.LogoutSent;
        if (wasLogoutSent)
        {
            Raise(NewEvent(SessionEventKind.Logout, Logging.LogLevel.Information, "response") with { ByCounterparty = true }, epochNs);
        }
        else
        {
            Raise(NewEvent(SessionEventKind.Logout, Logging.LogLevel.Information, "request") with { ByCounterparty = true }, epochNs);
            SendLogout(epochNs, null);
        }
        // Verify did not check the Logout's MsgSeqNum: never increment past the top (the session ends here anyway).
        // After our own Logout, application messages were left unconsumed: the Logout reply consumes its number only
        // when it is the expected one, so those stay expected and are asked for after the next Logon.
        int seq = message.TryGetInt(FixTags.MsgSeqNum, out int s) == FixValueStatus.Ok ? s : 0;
        bool consume = !wasLogoutSent || seq == _store.NextTargetMsgSeqNum;
        if (consume && _store.NextTargetMsgSeqNum <= MaxUsableMsgSeqNum) _store.IncrNextTargetMsgSeqNum();
        if (_settings.ResetOnLogout) ResetStore(epochNs);
        Disconnect("Logout", epochNs);
    }

    private void OnResendRequest(FixMessage message, long epochNs)
    {
        if (!Verify(message, epochNs, false, false)) return;
        if (!TryGetResendRange(message, out int begin, out int end, epochNs)) return;
        FromAdmin(message);
        if (_settings.IgnorePossDupResendRequests && message.TryGetBool(FixTags.PossDupFlag, out bool possDup) == FixValueStatus.Ok && possDup)
        {
            Raise(SessionEventKind.Other, Logging.LogLevel.Information, "ResendRequest with PossDupFlag=Y ignored (IgnorePossDupResendRequests)", epochNs);
        }
        else
        {
            ResendRange(begin, end, epochNs);
        }
        int seq = message.TryGetInt(FixTags.MsgSeqNum, out int s) == FixValueStatus.Ok ? s : 0;
        if (seq == _store.NextTargetMsgSeqNum) _store.IncrNextTargetMsgSeqNum();
    }

    // BeginSeqNo(7) at least 1; EndSeqNo(16) at least 0, and not below BeginSeqNo unless it means "to the end" (0, or
    // 999999 up to FIX.4.2). A range that breaks a rule is rejected (373=1, 5 or 6 naming the tag), consuming the
    // ResendRequest's MsgSeqNum when it is the expected one; false then.
    private bool TryGetResendRange(FixMessage message, out int begin, out int end, long epochNs)
    {
        end = 0;
        FixValueStatus beginStatus = message.TryGetInt(FixTags.BeginSeqNo, out begin);
        if (beginStatus != FixValueStatus.Ok || begin < 1)
        {
            RejectSeqNumField(message, FixTags.BeginSeqNo, "BeginSeqNo", beginStatus, begin, null, epochNs);
            return false;
        }
        FixValueStatus endStatus = message.TryGetInt(FixTags.EndSeqNo, out end);
        if (endStatus != FixValueStatus.Ok || end < 0)
        {
            string? why = endStatus == FixValueStatus.Ok ? "EndSeqNo(16) invalid: " + end + " (must be 0, meaning no end, or at least BeginSeqNo)" : null;
            RejectSeqNumField(message, FixTags.EndSeqNo, "EndSeqNo", endStatus, end, why, epochNs);
            return false;
        }
        bool infinite = end == InfiniteEndSeqNo42 || (_beginStringVersion <= 42 && end == InfiniteEndSeqNoOld);
        if (!infinite && end < begin)
        {
            RejectSeqNumField(message, FixTags.BeginSeqNo, "BeginSeqNo", FixValueStatus.Ok, begin,
                "BeginSeqNo(7) " + begin + " is greater than EndSeqNo(16) " + end, epochNs);
            return false;
        }
        return true;
    }

    private void FromAdmin(FixMessage message)
    {
        try
        {
            _application.FromAdmin(this, message);
        }
        catch (RejectLogonException)
        {
            // Only meaningful for Logon; ignored for other admin messages.
        }
    }

    /// <summary>Starts an orderly logout: sends Logout and waits LogoutTimeout for the reply before disconnecting.</summary>
    /// <param name="reason">Text(58), or null.</param>
    /// <param name="epochNs">Now, epoch nanoseconds.</param>
    /// <remarks>Messages already handed to <c>TrySendFromAnyThread</c> are stored and sent (or held, in order) before the
    /// Logout.</remarks>
    public void Logout(string? reason, long epochNs)
    {
        if (_connection is null) return;
        if (_held)
        {
            // A Logout needs a stored sequence number, which the store cannot give now.
            Disconnect((reason ?? "logout") + " (holding: no Logout sent, the message store cannot take it)", epochNs);
            return;
        }
        try
        {
            if (_state == SessionState.LoggedOn)
            {
                DrainOutbox(epochNs, all: true);
                if (_connection is null) return;
                SendLogout(epochNs, reason);
            }
            else
            {
                Disconnect(reason ?? "logout", epochNs);
            }
        }
        catch (Store.MessageStoreException e)
        {
            OnStoreFailed(e, epochNs);
        }
    }
}
