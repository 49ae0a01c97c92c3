using System;
using System.Text;
using FixEngine.Buffers;
using FixEngine.Codec;
using FixEngine.Dictionary;

namespace FixEngine.Session;

// Role: the receive path. OnMessage and OnGarbled, the checks every message passes (Verify), early messages kept in
// the InboundGapQueue and processed once the gap is filled, and application messages handed to FromApp.

public sealed partial class FixSession
{
    /// <summary>Processes one framed inbound message (CheckSum and BodyLength already verified by the framer).</summary>
    /// <param name="frame">The whole message; valid only during the call (it is indexed in place, not copied).</param>
    /// <param name="epochNs">Receive time, epoch nanoseconds.</param>
    /// <returns>1 (work done).</returns>
    /// <remarks>Owner thread only. Allocation-free in steady state; early messages are copied into pooled buffers.</remarks>
    internal int OnMessage(ReadOnlySpan<byte> frame, long epochNs)
    {
        if (_connection is null) return 0;
        _inboundDepth++;
        try
        {
            OnMessageCore(frame, epochNs);
        }
        finally
        {
            if (--_inboundDepth == 0) ReturnIndexes();
        }
        return 1;
    }

    /// <summary>The index inbound messages are read with (rented on first use, see <see cref="FixMessageIndexPool"/>).</summary>
    private FixMessageIndex Index => _index ??= FixMessageIndexPool.Rent();

    /// <summary>The index stored messages are read with while resending.</summary>
    private FixMessageIndex ResendIndex => _resendIndex ??= FixMessageIndexPool.Rent();

    /// <summary>Indexes an inbound message with <see cref="Index"/>, swapped for a larger one when the message has more
    /// fields than the index holds (see <see cref="FixMessageIndexPool.Grow"/>), so a large message (a market-data
    /// snapshot with thousands of entries) is read whole, never cut at the index's capacity.</summary>
    private FixMessage IndexInbound(ReadOnlySpan<byte> frame)
    {
        FixMessageIndex index = Index;
        if (!index.Parse(frame) && index.Defect.Kind == FixDefectKind.TooManyFields)
        {
            index = FixMessageIndexPool.Grow(index, frame);
            _index = index;
            index.Parse(frame);
        }
        return new FixMessage(frame, index);
    }

    /// <summary>Indexes a stored message for a resend with <see cref="ResendIndex"/>, grown as <see cref="IndexInbound"/>
    /// grows its index: a resent message is re-encoded from its index, so a cut index would resend a cut message.</summary>
    private FixMessage IndexStored(ReadOnlySpan<byte> stored)
    {
        FixMessageIndex index = ResendIndex;
        if (!index.Parse(stored) && index.Defect.Kind == FixDefectKind.TooManyFields)
        {
            index = FixMessageIndexPool.Grow(index, stored);
            _resendIndex = index;
            index.Parse(stored);
        }
        return new FixMessage(stored, index);
    }

    // Owner thread, outside any message: no FixMessage over the indexes is in use any more.
    private void ReturnIndexes()
    {
        if (_index is FixMessageIndex index)
        {
            _index = null;
            FixMessageIndexPool.Return(index);
        }
        if (_resendIndex is FixMessageIndex resend)
        {
            _resendIndex = null;
            FixMessageIndexPool.Return(resend);
        }
    }

    private void OnMessageCore(ReadOnlySpan<byte> frame, long epochNs)
    {
        _epochNs = epochNs;
        _log.OnIncoming(frame, epochNs);
        _counters.OnMessageReceived();
        if (_held)
        {
            OnMessageWhileHeld(frame, epochNs);
            return;
        }
        try
        {
            ProcessFrame(frame, epochNs);
            if (!_processingQueue && !_held)
            {
                ProcessQueue(epochNs);
                ContinueChunkedResend(epochNs);
            }
        }
        catch (Store.MessageStoreException e)
        {
            OnStoreFailed(e, epochNs);
            // Holding: the message being processed is asked for again on resume unless it was consumed.
            if (_held && _connection is not null) NoteHeldInbound(frame, epochNs);
        }
    }

    /// <summary>The transport found bytes that are not a valid message (bad BodyLength or CheckSum, garbage).</summary>
    /// <param name="bytes">The skipped bytes, valid during the call.</param>
    /// <param name="reason">What was wrong.</param>
    /// <param name="epochNs">Now, epoch nanoseconds.</param>
    /// <remarks>Ignored (no sequence number consumed) once logged on; before the first Logon the connection is dropped.</remarks>
    internal void OnGarbled(ReadOnlySpan<byte> bytes, string reason, long epochNs)
    {
        if (_connection is null) return;
        Raise(SessionEventKind.Other, Logging.LogLevel.Warning, "Garbled message ignored: " + reason, epochNs);
        if (!IsLoggedOn) Disconnect("garbled message before Logon: " + reason, epochNs);
    }

    private void ProcessFrame(ReadOnlySpan<byte> frame, long epochNs)
    {
        var message = IndexInbound(frame);
        if (!message.HasStandardPrefix)
        {
            OnGarbled(frame, "the first three fields are not 8, 9, 35", epochNs);
            return;
        }
        if (!message.BeginString.SequenceEqual(_header.BeginString))
        {
            if (_state == SessionState.LoggedOn)
            {
                SendLogout(epochNs, "Incorrect BeginString");
            }
            Disconnect("Incorrect BeginString", epochNs);
            return;
        }
        ReadOnlySpan<byte> msgType = message.MsgType;
        bool isLogon = msgType.SequenceEqual(MsgTypes.Logon);
        if (!IsLoggedOn)
        {
            if (!isLogon)
            {
                if (msgType.SequenceEqual(MsgTypes.Logout))
                {
                    // The peer refused our Logon (or logged us out before it): its reason is what the user needs.
                    string text = message.TryGetSpan(FixTags.Text, out ReadOnlySpan<byte> t) ? Encoding.ASCII.GetString(t) : "(no Text)";
                    Raise(NewEvent(SessionEventKind.LogonRefused, Logging.LogLevel.Error, text) with { ByCounterparty = true }, epochNs);
                    FromAdmin(message);
                    if (t.Length != 0) MoveSenderUpFromRefusal(t, epochNs);
                    Disconnect("Logout received before logon completed: " + text, epochNs);
                    return;
                }
                Disconnect("first message is not a Logon", epochNs);
                return;
            }
            if (isLogon && _isFixt && !message.Contains(FixTags.DefaultApplVerID))
            {
                Disconnect("Logon without DefaultApplVerID(1137)", epochNs);
                return;
            }
        }
        if (!CheckSequenceLimits(message, isLogon, epochNs)) return;
        if (!message.Contains(FixTags.SenderCompID) || !message.Contains(FixTags.TargetCompID))
        {
            OnCompIdMissing(message, isLogon, epochNs);
            return;
        }
        // Anything but a Logout after our Logon reply: the counterparty accepted our numbers (FixSession.Admin OnLogon).
        if (_tailMayBeLost && IsLoggedOn && !msgType.SequenceEqual(MsgTypes.Logout)) _tailMayBeLost = false;

        // FIXT.1.1 with several application versions: the counterparty's DefaultApplVerID(1137) chooses the dictionary of
        // its application messages without ApplVerID(1128) (QuickFIX C++ Session::next).
        if (isLogon && _appVersions is not null) NoteCounterpartyApplVerId(message, epochNs);

        if (_validator is not null)
        {
            ValidationError error;
            if (_appVersions is not null && !IsAdminMsgType(msgType))
            {
                bool named = message.TryGetSpan(FixTags.ApplVerID, out ReadOnlySpan<byte> applVerId);
                DataDictionary? app = named ? _appVersions.Find(applVerId) : _counterpartyAppDictionary;
                if (app is null)
                {
                    RejectUnsupportedApplVersion(message, named, epochNs);
                    return;
                }
                error = _validator.Validate(message, app);
            }
            else
            {
                error = _validator.Validate(message);
            }
            if (error.IsError)
            {
                RejectAndConsume(message, epochNs, error.Reason, error.RefTagId, error.HasRefTag);
                return;
            }
        }
        else if (Index.Defect.IsInvalidTagNumber)
        {
            // Strict framing without a dictionary: a field with no valid tag number never reaches the application.
            Raise(SessionEventKind.Other, Logging.LogLevel.Warning, "Invalid tag number: " + Index.Defect.Describe(frame), epochNs);
            RejectAndConsume(message, epochNs, SessionRejectReason.InvalidTagNumber, Index.Defect.Tag, true);
            return;
        }

        if (msgType.Length == 1)
        {
            switch (msgType[0])
            {
                case MsgTypes.LogonCode: OnLogon(message, epochNs); return;
                case MsgTypes.HeartbeatCode: OnHeartbeat(message, epochNs); return;
                case MsgTypes.TestRequestCode: OnTestRequest(message, epochNs); return;
                case MsgTypes.ResendRequestCode: OnResendRequest(message, epochNs); return;
                case MsgTypes.RejectCode: OnReject(message, epochNs); return;
                case MsgTypes.SequenceResetCode: OnSequenceReset(message, epochNs); return;
                case MsgTypes.LogoutCode: OnLogout(message, epochNs); return;
            }
        }
        OnApplicationMessage(message, epochNs);
    }

    // The counterparty's DefaultApplVerID(1137) from its Logon: the application version of its messages without
    // ApplVerID(1128). One without a dictionary is logged now; each such message is rejected when it comes.
    private void NoteCounterpartyApplVerId(FixMessage logon, long epochNs)
    {
        if (!logon.TryGetSpan(FixTags.DefaultApplVerID, out ReadOnlySpan<byte> value)) return;
        _counterpartyAppDictionary = _appVersions!.Find(value);
        _counterpartyApplVerId = Encoding.ASCII.GetString(value);
        if (_counterpartyAppDictionary is null)
        {
            Raise(SessionEventKind.Other, Logging.LogLevel.Warning, "The counterparty's DefaultApplVerID(1137) " + _counterpartyApplVerId
                + " has no application dictionary (this session has ApplVerID " + _appVersions.Versions
                + "): its application messages without ApplVerID(1128) will be rejected", epochNs);
        }
    }

    // An application message whose version (its ApplVerID(1128), else the counterparty's DefaultApplVerID) has no
    // dictionary: session Reject 373=18, consumed like any other rejected message, not handed to the application.
    private void RejectUnsupportedApplVersion(FixMessage message, bool named, long epochNs)
    {
        string version = named && message.TryGetSpan(FixTags.ApplVerID, out ReadOnlySpan<byte> v)
            ? "ApplVerID(1128) " + Encoding.ASCII.GetString(v)
            : "DefaultApplVerID(1137) " + (_counterpartyApplVerId ?? "(none)");
        RejectAndConsume(message, epochNs, SessionRejectReason.InvalidUnsupportedApplicationVersion, FixTags.ApplVerID, named,
            "Invalid/unsupported application version: " + version + " has no dictionary (this session has ApplVerID " + _appVersions!.Versions + ")");
    }

    // SenderCompID(49) or TargetCompID(56) missing, found before validation (QuickFIX C++ Session::next): an application
    // message from FIX.4.2 on gets a BusinessMessageReject 380=5 "Conditionally Required Field Missing (tag)", any other
    // message a session Reject 373=1; either consumes the number. A Logon without one ends the connection.
    private void OnCompIdMissing(FixMessage message, bool isLogon, long epochNs)
    {
        int tag = message.Contains(FixTags.SenderCompID) ? FixTags.TargetCompID : FixTags.SenderCompID;
        if (isLogon || !IsLoggedOn)
        {
            Disconnect("Required field missing from " + (isLogon ? "Logon" : "the first message") + ": tag " + tag, epochNs);
            return;
        }
        if (message.TryGetInt(FixTags.MsgSeqNum, out int seq) != FixValueStatus.Ok)
        {
            // Only a SequenceReset-Reset gets here without MsgSeqNum: QuickFIX's reject could not name it either.
            _log.OnEvent(Logging.LogLevel.Warning, "Message without MsgSeqNum(34) and tag " + tag + " ignored (no reject can name it)", epochNs);
            return;
        }
        if (_beginStringVersion >= 42 && !IsAdminMsgType(message.MsgType))
        {
            SendBusinessReject(message, epochNs, 5, "Conditionally Required Field Missing (" + tag.ToString(System.Globalization.CultureInfo.InvariantCulture) + ")");
            if (_connection is not null && seq == _store.NextTargetMsgSeqNum) _store.IncrNextTargetMsgSeqNum();
            return;
        }
        RejectAndConsume(message, epochNs, SessionRejectReason.RequiredTagMissing, tag, true);
    }

    private static bool IsAdminMsgType(ReadOnlySpan<byte> msgType) =>
        msgType.Length == 1 && msgType[0] is (byte)'0' or (byte)'1' or (byte)'2' or (byte)'3' or (byte)'4' or (byte)'5' or (byte)'A';

    // A Reject for a message whose MsgSeqNum is the expected one consumes it (QuickFIX generateReject).
    private void RejectAndConsume(FixMessage message, long epochNs, int reason, int refTagId, bool hasRefTag, string? text = null)
    {
        SendReject(message, epochNs, reason, refTagId, hasRefTag, text);
        if (_connection is null) return;
        ReadOnlySpan<byte> msgType = message.MsgType;
        bool exempt = msgType.SequenceEqual(MsgTypes.Logon) || msgType.SequenceEqual(MsgTypes.SequenceReset);
        if (!exempt && message.TryGetInt(FixTags.MsgSeqNum, out int seq) == FixValueStatus.Ok && seq == _store.NextTargetMsgSeqNum)
        {
            _store.IncrNextTargetMsgSeqNum();
        }
    }

    /// <summary>The session-level checks every message passes before it is acted on (QuickFIX "verify").</summary>
    /// <returns>True when the message should be processed; false when it was handled (queued, ignored, rejected).</returns>
    private bool Verify(FixMessage message, long epochNs, bool checkTooHigh, bool checkTooLow)
    {
        bool hasSeq = message.TryGetInt(FixTags.MsgSeqNum, out int s) == FixValueStatus.Ok;
        int seq = hasSeq ? s : 0;
        if (!message.Contains(FixTags.SendingTime) || (!hasSeq && (checkTooHigh || checkTooLow)))
        {
            // QuickFIX C++ (Session::verify): a message without SendingTime, or without the MsgSeqNum its checks need,
            // ends the connection without a Logout or Reject; its number is not consumed, so nothing is lost.
            Disconnect("Required field missing: " + (message.Contains(FixTags.SendingTime) ? "MsgSeqNum(34)" : "SendingTime(52)")
                + " in a message of type " + Encoding.ASCII.GetString(message.MsgType), epochNs);
            return false;
        }
        if (_settings.CheckLatency && !IsGoodTime(message, epochNs))
        {
            Raise(SessionEventKind.Other, Logging.LogLevel.Warning, "SendingTime accuracy problem", epochNs);
            SendReject(message, epochNs, SessionRejectReason.SendingTimeAccuracyProblem, 0, false);
            if (_connection is not null) SendLogout(epochNs, null);
            return false;
        }
        if (_settings.CheckCompID && !IsCorrectCompId(message))
        {
            SendReject(message, epochNs, SessionRejectReason.CompIdProblem, 0, false);
            if (_connection is not null) SendLogout(epochNs, null);
            return false;
        }
        // From the right peer at a sane time: the peer is alive, whatever its sequence number (a message too high while a
        // resend is pending is a busy peer, not a dead one).
        _heartbeat.OnReceived(epochNs, IsAdminMsgType(message.MsgType));
        int expected = _store.NextTargetMsgSeqNum;
        if (checkTooHigh && seq > expected)
        {
            OnTargetTooHigh(message, seq, epochNs);
            return false;
        }
        if (checkTooLow && seq < expected)
        {
            OnTargetTooLow(message, seq, expected, epochNs);
            return false;
        }
        if ((checkTooHigh || checkTooLow) && _resend.IsSatisfiedBy(seq))
        {
            Raise(SessionEventKind.Other, Logging.LogLevel.Information, "ResendRequest satisfied", epochNs);
            _resend.EndRequest();
        }
        return true;
    }

    private bool IsGoodTime(FixMessage message, long epochNs)
    {
        if (message.TryGetTimestamp(FixTags.SendingTime, out long sendingNs) != FixValueStatus.Ok) return false;
        long maxNs = _settings.MaxLatency * 1_000_000_000L;
        return Math.Abs(sendingNs - epochNs) <= maxNs;
    }

    private bool IsCorrectCompId(FixMessage message)
    {
        return message.TryGetSpan(FixTags.SenderCompID, out ReadOnlySpan<byte> sender) && sender.SequenceEqual(_header.TargetCompId)
            && message.TryGetSpan(FixTags.TargetCompID, out ReadOnlySpan<byte> target) && target.SequenceEqual(_header.SenderCompId);
    }

    private void OnTargetTooHigh(FixMessage message, int seq, long epochNs)
    {
        int expected = _store.NextTargetMsgSeqNum;
        _counters.OnGapDetected();
        Raise(NewEvent(SessionEventKind.SequenceGap, Logging.LogLevel.Warning, null) with { Expected = expected, Received = seq }, epochNs);
        _gapQueue.Add(seq, message.Buffer);
        if (_state == SessionState.LogoutSent)
        {
            // After our Logout only what a ResendRequest asks for goes out; the gap is asked for after the next Logon.
            Raise(SessionEventKind.Other, Logging.LogLevel.Information, "Our Logout was sent: no ResendRequest", epochNs);
            return;
        }
        if (!_settings.SendRedundantResendRequests && _resend.IsAlreadyRequested(seq))
        {
            Raise(SessionEventKind.Other, Logging.LogLevel.Information, "Already sent ResendRequest from " + _resend.RequestBegin + " to " + _resend.RequestEnd + "; not sending another", epochNs);
            return;
        }
        RequestResend(expected, seq - 1, epochNs);
    }

    private void OnTargetTooLow(FixMessage message, int seq, int expected, long epochNs)
    {
        bool possDup = message.TryGetBool(FixTags.PossDupFlag, out bool pd) == FixValueStatus.Ok && pd;
        if (!possDup)
        {
            string text = "MsgSeqNum too low, expecting " + expected + " but received " + seq;
            if (!IsLoggedOn && message.MsgType.SequenceEqual(MsgTypes.Logon))
            {
                Raise(NewEvent(SessionEventKind.LogonRefused, Logging.LogLevel.Error, text) with { Expected = expected, Received = seq }, epochNs);
            }
            SendLogout(epochNs, text);
            Disconnect(text, epochNs);
            return;
        }
        if (message.MsgType.SequenceEqual(MsgTypes.SequenceReset)) return;
        if (!message.Contains(FixTags.OrigSendingTime))
        {
            SendReject(message, epochNs, SessionRejectReason.RequiredTagMissing, FixTags.OrigSendingTime, true);
            return;
        }
        if (message.TryGetTimestamp(FixTags.OrigSendingTime, out long origNs) == FixValueStatus.Ok
            && message.TryGetTimestamp(FixTags.SendingTime, out long sendingNs) == FixValueStatus.Ok
            && origNs > sendingNs)
        {
            SendReject(message, epochNs, SessionRejectReason.SendingTimeAccuracyProblem, 0, false);
            if (_connection is not null) SendLogout(epochNs, null);
            return;
        }
        Raise(SessionEventKind.Other, Logging.LogLevel.Warning, "Duplicate message " + seq + " ignored", epochNs);
    }

    // Processes queued early messages that have become the expected one, in order.
    private void ProcessQueue(long epochNs)
    {
        if (_gapQueue.Count == 0) return;
        _processingQueue = true;
        try
        {
            while (_connection is not null && !_held && _gapQueue.Count > 0)
            {
                int expected = _store.NextTargetMsgSeqNum;
                if (!_gapQueue.TryTake(expected, out PooledBuffer buffer))
                {
                    _gapQueue.DropBelow(expected);
                    break;
                }
                using (buffer)
                {
                    ReadOnlySpan<byte> frame = buffer.Span;
                    var message = IndexInbound(frame);
                    ReadOnlySpan<byte> msgType = message.MsgType;
                    if (msgType.SequenceEqual(MsgTypes.Logon) || msgType.SequenceEqual(MsgTypes.ResendRequest))
                    {
                        _store.IncrNextTargetMsgSeqNum();
                    }
                    else
                    {
                        ProcessFrame(frame, epochNs);
                    }
                }
            }
        }
        finally
        {
            _processingQueue = false;
        }
    }

    private void OnApplicationMessage(FixMessage message, long epochNs)
    {
        if (_state == SessionState.LogoutSent)
        {
            // Our Logout is out: the FIX session rules let its sender send nothing more but what a ResendRequest asks
            // for, so the application gets no message it would have to answer. The message is not consumed: its number
            // stays expected and the counterparty resends it after the next Logon (or the peer's reset drops it).
            int n = message.TryGetInt(FixTags.MsgSeqNum, out int ns) == FixValueStatus.Ok ? ns : 0;
            Raise(SessionEventKind.Other, Logging.LogLevel.Warning, "Application message " + n + " not processed: our Logout was sent; it stays expected (" + _store.NextTargetMsgSeqNum + ")", epochNs);
            return;
        }
        if (!Verify(message, epochNs, true, true)) return;
        int seq = message.TryGetInt(FixTags.MsgSeqNum, out int s) == FixValueStatus.Ok ? s : 0;
        // Exactly-once across restarts: an answer to this message was stored with the processed mark before the
        // process stopped (the inbound number itself was not yet persisted); the application has processed it.
        if (seq <= _store.LastProcessedInboundSeqNum)
        {
            Raise(SessionEventKind.Other, Logging.LogLevel.Warning, "Inbound message " + seq + " was processed before a restart (its answer is stored); not handed to the application again", epochNs);
            _store.IncrNextTargetMsgSeqNum();
            return;
        }
        _possibleRedelivery = seq == _interruptedInbound
            || (message.TryGetBool(FixTags.PossDupFlag, out bool possDup) == FixValueStatus.Ok && possDup);
        _answeringInbound = seq;
        // Tracing (only when a listener samples it): from the receive time through FromApp and the replies.
        System.Diagnostics.Activity? activity = SessionTracing.MessageSource.HasListeners() ? SessionTracing.StartReceive(this, message, seq, epochNs) : null;
        try
        {
            FromAppResult result;
            // Inbound-to-callback latency: epochNs is the time this message was received.
            _latency?.OnFromApp(epochNs);
            try
            {
                result = _application.FromApp(this, message);
            }
            catch (UnsupportedMessageTypeException)
            {
                result = FromAppResult.UnsupportedMessageType;
            }
            catch (Exception) when (_storeFault is not null || _held)
            {
                // The store failed under the application's Send: already handled (Logout, disconnect, OnStoreFailure),
                // or the session holds: the message is not consumed, it is asked for again on resume.
                if (_held && _connection is not null) NoteHeldInbound(message, epochNs);
                return;
            }
            _possibleRedelivery = false;
            if (_held)
            {
                // The application caught the failure of its Send: its answer was not stored, so the message is not
                // consumed; it comes back (PossDupFlag=Y) when the session asks for it again on resume.
                if (_connection is not null) NoteHeldInbound(message, epochNs);
                return;
            }
            if (_connection is null) return;
            switch (result.Action)
            {
                case FromAppAction.UnsupportedMessageType:
                    // QuickFIX: BusinessMessageReject from FIX.4.2 on (which defines it), a text-only Reject before.
                    if (_beginStringVersion >= 42) SendBusinessReject(message, epochNs, 3, "Unsupported Message Type");
                    else SendTextReject(message, epochNs, "Unsupported message type");
                    break;
                case FromAppAction.Reject:
                    SendReject(message, epochNs, result.RejectReason, result.RefTagId, result.RefTagId != 0);
                    break;
            }
        }
        finally
        {
            _answeringInbound = 0;
            _possibleRedelivery = false;
            activity?.Dispose();
        }
        if (seq == _interruptedInbound) _interruptedInbound = 0;
        _store.IncrNextTargetMsgSeqNum();
    }
}
