using System;
using FixEngine.Codec;
using FixEngine.Collections;
using FixEngine.Transport;

namespace FixEngine.Session;

/// <summary>Writes the body of an outbound message (the fields after the standard header).</summary>
/// <typeparam name="TState">Caller state passed through without boxing (may be a ref struct such as <see cref="FixMessage"/>).</typeparam>
/// <param name="writer">Writer positioned after the header.</param>
/// <param name="state">The state given to <c>FixSession.Send</c>.</param>
public delegate void BodyWriter<TState>(ref FixWriter writer, scoped in TState state) where TState : allows ref struct;

/// <summary>Routing fields copied into the header of a Reject (already reversed).</summary>
internal ref struct RoutingFields
{
    public ReadOnlySpan<byte> OnBehalfOfCompId;
    public ReadOnlySpan<byte> OnBehalfOfSubId;
    public ReadOnlySpan<byte> DeliverToCompId;
    public ReadOnlySpan<byte> DeliverToSubId;
    public ReadOnlySpan<byte> OnBehalfOfLocationId;
    public ReadOnlySpan<byte> DeliverToLocationId;
}

public sealed partial class FixSession
{
    private const int OutboxMsgTypeMax = 16;

    /// <summary>Encodes and sends an application (or custom admin) message with the next sequence number.</summary>
    /// <typeparam name="TState">State for <paramref name="body"/>; pass a static lambda so nothing is allocated.</typeparam>
    /// <param name="msgType">MsgType(35).</param>
    /// <param name="state">Passed to <paramref name="body"/>.</param>
    /// <param name="body">Writes the body fields.</param>
    /// <param name="nowNs">Now, epoch nanoseconds (SendingTime).</param>
    /// <returns>The connection's answer: <see cref="SendResult.Sent"/>, or <see cref="SendResult.Queued"/> when the
    /// transport or the session's backlog holds it for sending in order (see <see cref="SendBacklogBytes"/>);
    /// <see cref="SendResult.Closed"/> when not connected (the message is still stored and consumes a sequence number, so
    /// it is resent on request, as in QuickFIX).</returns>
    /// <remarks>Owner thread only (e.g. inside an <see cref="IApplication"/> callback). Allocation-free.</remarks>
    public SendResult Send<TState>(ReadOnlySpan<byte> msgType, scoped in TState state, BodyWriter<TState> body, long nowNs)
        where TState : allows ref struct
    {
        ArgumentNullException.ThrowIfNull(body);
        var w = new FixWriter(_sendBuffer);
        int seq = _store.NextSenderMsgSeqNum;
        RoutingFields routing = default;
        WriteHeader(ref w, msgType, seq, nowNs, ref routing);
        body(ref w, in state);
        return FinishAndSend(ref w, seq, nowNs, isApp: !DataDictionaryIsAdmin(msgType));
    }

    /// <summary>Encodes and sends a message stamped with the time of the event being processed (<see cref="NowNs"/>).</summary>
    /// <typeparam name="TState">State for <paramref name="body"/>.</typeparam>
    /// <param name="msgType">MsgType(35).</param>
    /// <param name="state">Passed to <paramref name="body"/>.</param>
    /// <param name="body">Writes the body fields.</param>
    /// <returns>The connection's answer.</returns>
    /// <remarks>For use inside <see cref="IApplication"/> callbacks (owner thread). Allocation-free.</remarks>
    public SendResult Send<TState>(ReadOnlySpan<byte> msgType, scoped in TState state, BodyWriter<TState> body)
        where TState : allows ref struct => Send(msgType, in state, body, _nowNs);

    /// <summary>Queues an application message from another thread; the owner thread sends it in order on its next <see cref="Poll"/>.</summary>
    /// <typeparam name="TState">State for <paramref name="body"/>.</typeparam>
    /// <param name="msgType">MsgType(35), at most 16 bytes.</param>
    /// <param name="state">Passed to <paramref name="body"/>.</param>
    /// <param name="body">Writes the body fields (encoded on the calling thread).</param>
    /// <returns>False when the hand-off ring is full or the body does not fit; retry later.</returns>
    /// <remarks>
    /// Thread-safe for ONE producer thread per session (single-producer ring). Allocation-free: the body is encoded
    /// straight into the ring; the owner thread adds the header, sequence number and trailer.
    /// </remarks>
    public bool TrySendFromAnyThread<TState>(ReadOnlySpan<byte> msgType, scoped in TState state, BodyWriter<TState> body)
        where TState : allows ref struct
    {
        ArgumentNullException.ThrowIfNull(body);
        if (msgType.IsEmpty || msgType.Length > OutboxMsgTypeMax) return false;
        int max = Math.Min(_outbox.MaxRecordLength, _sendBuffer.Length - 256);
        if (!_outbox.TryClaim(max, out Span<byte> span)) return false;
        span[0] = (byte)msgType.Length;
        msgType.CopyTo(span.Slice(1));
        int bodyStart = 1 + msgType.Length;
        var w = new FixWriter(span.Slice(bodyStart));
        body(ref w, in state);
        if (w.Failed)
        {
            _outbox.Abandon();
            return false;
        }
        _outbox.Commit(bodyStart + w.Written);
        return true;
    }

    // Only while nothing waits for the transport: a full backlog stops the drain, so the outbox fills and its producer
    // gets false from TrySendFromAnyThread (back-pressure) instead of the session buffering without bound.
    private int DrainOutbox(long nowNs)
    {
        int work = 0;
        while (work < 256 && _flow.IsEmpty && !_resend.IsReplayPending && _state == SessionState.LoggedOn && _outbox.TryRead(out ReadOnlySpan<byte> record))
        {
            int typeLength = record[0];
            ReadOnlySpan<byte> msgType = record.Slice(1, typeLength);
            ReadOnlySpan<byte> fields = record.Slice(1 + typeLength);
            var w = new FixWriter(_sendBuffer);
            int seq = _store.NextSenderMsgSeqNum;
            RoutingFields routing = default;
            WriteHeader(ref w, msgType, seq, nowNs, ref routing);
            w.WriteRaw(fields);
            FinishAndSend(ref w, seq, nowNs, isApp: true);
            _outbox.Release();
            work++;
        }
        return work;
    }

    private bool DataDictionaryIsAdmin(ReadOnlySpan<byte> msgType) =>
        _sessionDictionary?.IsAdminMessage(msgType) ?? Dictionary.DataDictionary.IsStandardAdminMsgType(msgType);

    // Header order: 8, 9, 35, then every other header field in ascending tag order (QuickFIX's order).
    private void WriteHeader(ref FixWriter w, ReadOnlySpan<byte> msgType, int seq, long nowNs, ref RoutingFields routing)
    {
        w.Begin(_beginString, msgType);
        w.Write(FixTags.MsgSeqNum, seq);
        w.Write(FixTags.SenderCompID, _senderCompId);
        w.WriteTimestamp(FixTags.SendingTime, nowNs, _precision, _timestampCache);
        w.Write(FixTags.TargetCompID, _targetCompId);
        if (!routing.OnBehalfOfCompId.IsEmpty) w.Write(FixTags.OnBehalfOfCompID, routing.OnBehalfOfCompId);
        if (!routing.OnBehalfOfSubId.IsEmpty) w.Write(FixTags.OnBehalfOfSubID, routing.OnBehalfOfSubId);
        if (!routing.DeliverToCompId.IsEmpty) w.Write(FixTags.DeliverToCompID, routing.DeliverToCompId);
        if (!routing.DeliverToSubId.IsEmpty) w.Write(FixTags.DeliverToSubID, routing.DeliverToSubId);
        if (!routing.OnBehalfOfLocationId.IsEmpty) w.Write(FixTags.OnBehalfOfLocationID, routing.OnBehalfOfLocationId);
        if (!routing.DeliverToLocationId.IsEmpty) w.Write(FixTags.DeliverToLocationID, routing.DeliverToLocationId);
        WriteLastMsgSeqNumProcessed(ref w);
    }

    // LastMsgSeqNumProcessed(369), when enabled: the last inbound MsgSeqNum fully processed, i.e. one below the next
    // expected. A message sent while an inbound message is being processed (a reply from FromApp, a Logon or Heartbeat
    // answer) therefore carries the number before that message's, as in QuickFIX.
    private void WriteLastMsgSeqNumProcessed(ref FixWriter w)
    {
        if (_settings.EnableLastMsgSeqNumProcessed) w.Write(FixTags.LastMsgSeqNumProcessed, _store.NextTargetMsgSeqNum - 1);
    }

    private SendResult FinishAndSend(ref FixWriter w, int seq, long nowNs, bool isApp)
    {
        if (!w.TryFinish(out int length))
        {
            _log.OnEvent("Outbound message did not fit in MaxMessageSize; not sent", nowNs);
            return SendResult.Backpressure;
        }
        ReadOnlySpan<byte> bytes = _sendBuffer.AsSpan(0, length);
        // Stored BEFORE it reaches the transport, so a message reported sent is never lost by a crash.
        if (_settings.PersistMessages) _store.AppendAndIncrement(seq, bytes);
        else _store.IncrNextSenderMsgSeqNum();
        if (isApp) _application.ToApp(this, bytes);
        return Transmit(bytes, nowNs);
    }

    private SendResult Transmit(ReadOnlySpan<byte> bytes, long nowNs)
    {
        ISessionConnection? connection = _connection;
        if (connection is null) return SendResult.Closed;
        _lastSentNs = nowNs;
        _log.OnOutgoing(bytes, nowNs);
        // Behind messages that wait for the transport: keep the order.
        if (!_flow.IsEmpty) return Hold(bytes, nowNs);
        SendResult result = connection.Send(bytes);
        switch (result)
        {
            case SendResult.Backpressure:
                // The transport's queue is full and took nothing: hold the message back, never drop it.
                _counters.OnSendBackpressure();
                return Hold(bytes, nowNs);
            case SendResult.TooLarge:
                _log.OnEvent("Outbound message of " + bytes.Length + " bytes is larger than the transport's send queue; not sent", nowNs);
                break;
        }
        return result;
    }

    private void SendAdmin(ReadOnlySpan<byte> msgType, long nowNs, ref RoutingFields routing, AdminBody body, int intValue, ReadOnlySpan<byte> text, int tag2, int int2, int int3)
    {
        var w = new FixWriter(_sendBuffer);
        int seq = _store.NextSenderMsgSeqNum;
        WriteHeader(ref w, msgType, seq, nowNs, ref routing);
        switch (body)
        {
            case AdminBody.Heartbeat:
                if (!text.IsEmpty) w.Write(FixTags.TestReqID, text);
                break;
            case AdminBody.TestRequest:
                w.Write(FixTags.TestReqID, text);
                break;
            case AdminBody.ResendRequest:
                w.Write(FixTags.BeginSeqNo, intValue);
                w.Write(FixTags.EndSeqNo, int2);
                break;
            case AdminBody.Logout:
                if (!text.IsEmpty) w.Write(FixTags.Text, text);
                break;
            case AdminBody.Reject:
                // 45, 58, 371, 372, 373 (ascending).
                if (intValue >= 0) w.Write(FixTags.RefSeqNum, intValue);
                w.Write(FixTags.Text, text);
                if (tag2 != int.MinValue) w.Write(FixTags.RefTagID, tag2);
                if (!_rejectRefMsgType.IsEmpty) w.Write(FixTags.RefMsgType, _rejectRefMsgType);
                if (int3 >= 0) w.Write(FixTags.SessionRejectReason, int3);
                break;
            case AdminBody.BusinessReject:
                if (intValue >= 0) w.Write(FixTags.RefSeqNum, intValue);
                w.Write(FixTags.Text, text);
                w.Write(FixTags.RefMsgType, _rejectRefMsgType);
                w.Write(FixTags.BusinessRejectReason, int3);
                break;
        }
        _application.ToAdmin(this, msgType, ref w);
        FinishAndSend(ref w, seq, nowNs, isApp: false);
    }

    private ReadOnlySpan<byte> _rejectRefMsgType => _rejectMsgTypeLength == 0 ? default : _rejectMsgType.AsSpan(0, _rejectMsgTypeLength);

    private readonly byte[] _rejectMsgType = new byte[OutboxMsgTypeMax];
    private int _rejectMsgTypeLength;

    private void SetRejectMsgType(ReadOnlySpan<byte> msgType)
    {
        int n = Math.Min(msgType.Length, _rejectMsgType.Length);
        msgType.Slice(0, n).CopyTo(_rejectMsgType);
        _rejectMsgTypeLength = n;
    }

    private readonly byte[] _text = new byte[512];

    private int CopyText(string? text)
    {
        if (text is null) return 0;
        int n = Math.Min(text.Length, _text.Length);
        for (int i = 0; i < n; i++) _text[i] = (byte)text[i];
        return n;
    }

    private enum AdminBody : byte
    {
        Heartbeat,
        TestRequest,
        ResendRequest,
        Logout,
        Reject,
        BusinessReject,
    }

    private void SendHeartbeat(long nowNs, ReadOnlySpan<byte> testReqId)
    {
        RoutingFields r = default;
        SendAdmin(MsgTypes.Heartbeat, nowNs, ref r, AdminBody.Heartbeat, 0, testReqId, 0, 0, 0);
    }

    private void SendTestRequest(long nowNs, ReadOnlySpan<byte> testReqId)
    {
        RoutingFields r = default;
        SendAdmin(MsgTypes.TestRequest, nowNs, ref r, AdminBody.TestRequest, 0, testReqId, 0, 0, 0);
    }

    private void SendLogout(long nowNs, string? text)
    {
        RoutingFields r = default;
        int n = CopyText(text);
        SendAdmin(MsgTypes.Logout, nowNs, ref r, AdminBody.Logout, 0, _text.AsSpan(0, n), 0, 0, 0);
        _state = SessionState.LogoutSent;
        _stateSinceNs = nowNs;
        if (text is not null) _log.OnEvent("Sent Logout: " + text, nowNs);
    }

    private void SendResendRequest(long nowNs, int beginSeqNo, int endSeqNo)
    {
        RoutingFields r = default;
        SendAdmin(MsgTypes.ResendRequest, nowNs, ref r, AdminBody.ResendRequest, beginSeqNo, default, 0, endSeqNo, 0);
    }

    private void SendLogon(long nowNs, bool resetSeqNumFlag, int peerHeartBtInt)
    {
        var w = new FixWriter(_sendBuffer);
        int seq = _store.NextSenderMsgSeqNum;
        RoutingFields routing = default;
        WriteHeader(ref w, MsgTypes.Logon, seq, nowNs, ref routing);
        w.Write(FixTags.EncryptMethod, 0);
        w.Write(FixTags.HeartBtInt, peerHeartBtInt > 0 ? peerHeartBtInt : _heartBtIntSec);
        if (resetSeqNumFlag) w.Write(FixTags.ResetSeqNumFlag, 'Y');
        if (_settings.EnableNextExpectedMsgSeqNum && _beginStringVersion >= 44)
        {
            w.Write(FixTags.NextExpectedMsgSeqNum, _store.NextTargetMsgSeqNum);
        }
        if (_isFixt && _defaultApplVerId.Length > 0) w.Write(FixTags.DefaultApplVerID, _defaultApplVerId);
        _application.ToAdmin(this, MsgTypes.Logon, ref w);
        FinishAndSend(ref w, seq, nowNs, isApp: false);
    }

    private void SendSequenceResetGapFill(long nowNs, int seq, int newSeqNo)
    {
        // A resend: carries the sequence number it replaces, is not stored and does not consume a number.
        var w = new FixWriter(_sendBuffer);
        w.Begin(_beginString, MsgTypes.SequenceReset);
        w.Write(FixTags.MsgSeqNum, seq);
        w.Write(FixTags.PossDupFlag, 'Y');
        w.Write(FixTags.SenderCompID, _senderCompId);
        w.WriteTimestamp(FixTags.SendingTime, nowNs, _precision, _timestampCache);
        w.Write(FixTags.TargetCompID, _targetCompId);
        w.WriteTimestamp(FixTags.OrigSendingTime, nowNs, _precision, _timestampCache);
        WriteLastMsgSeqNumProcessed(ref w);
        w.Write(FixTags.NewSeqNo, newSeqNo);
        w.Write(FixTags.GapFillFlag, 'Y');
        if (w.TryFinish(out int length)) Transmit(_sendBuffer.AsSpan(0, length), nowNs);
    }

    // Reject for the message currently indexed in _index.
    private void SendReject(FixMessage offending, long nowNs, int reason, int refTagId, bool hasRefTag)
    {
        if (!_receivedLogon)
        {
            Disconnect("Reject before Logon: " + SessionRejectReason.GetText(reason), nowNs);
            return;
        }
        RoutingFields routing = ReverseRouting(offending);
        int refSeqNum = offending.TryGetInt(FixTags.MsgSeqNum, out int s) == FixValueStatus.Ok ? s : -1;
        SetRejectMsgType(offending.MsgType);
        if (_beginStringVersion < 42) _rejectMsgTypeLength = 0;
        int code = reason;
        if (_sessionDictionary is not null)
        {
            Span<byte> digits = stackalloc byte[4];
            FixValueFormatter.TryFormatLong(reason, digits, out int digitCount);
            if (!_sessionDictionary.IsValidEnumValue(FixTags.SessionRejectReason, digits.Slice(0, digitCount)) || !_sessionDictionary.IsDefinedField(FixTags.SessionRejectReason)) code = -1;
        }
        else if (_beginStringVersion < 42)
        {
            code = -1;
        }
        string s58 = SessionRejectReason.GetText(reason);
        int n = CopyText(s58);
        SendAdmin(MsgTypes.Reject, nowNs, ref routing, AdminBody.Reject, refSeqNum, _text.AsSpan(0, n), hasRefTag ? refTagId : int.MinValue, 0, code);
        _log.OnEvent("Sent Reject: " + s58 + (hasRefTag ? " tag " + refTagId : ""), nowNs);
    }

    private void SendBusinessReject(FixMessage offending, long nowNs, int reason, string text)
    {
        RoutingFields routing = ReverseRouting(offending);
        int refSeqNum = offending.TryGetInt(FixTags.MsgSeqNum, out int s) == FixValueStatus.Ok ? s : -1;
        SetRejectMsgType(offending.MsgType);
        int n = CopyText(text);
        SendAdmin(MsgTypes.BusinessMessageReject, nowNs, ref routing, AdminBody.BusinessReject, refSeqNum, _text.AsSpan(0, n), 0, 0, reason);
    }

    private static RoutingFields ReverseRouting(FixMessage m)
    {
        RoutingFields r = default;
        if (m.TryGetSpan(FixTags.OnBehalfOfCompID, out ReadOnlySpan<byte> v)) r.DeliverToCompId = v;
        if (m.TryGetSpan(FixTags.OnBehalfOfSubID, out v)) r.DeliverToSubId = v;
        if (m.TryGetSpan(FixTags.OnBehalfOfLocationID, out v)) r.DeliverToLocationId = v;
        if (m.TryGetSpan(FixTags.DeliverToCompID, out v)) r.OnBehalfOfCompId = v;
        if (m.TryGetSpan(FixTags.DeliverToSubID, out v)) r.OnBehalfOfSubId = v;
        if (m.TryGetSpan(FixTags.DeliverToLocationID, out v)) r.OnBehalfOfLocationId = v;
        return r;
    }
}
