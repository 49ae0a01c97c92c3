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

// Role: the send path. Application messages (Send, TrySendFromAnyThread and the outbox), the messages the session
// composes itself (typed admin bodies through SendAdmin, the GapFill), and the common tail: store, ToApp, transmit or
// hold back in the send backlog.

public sealed partial class FixSession
{
    private const int OutboxMsgTypeMax = 16;
    private const int MaxRefMsgTypeLength = 16;

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
        FixWriter w = _header.CreateWriter();
        int seq = _store.NextSenderMsgSeqNum;
        RoutingFields routing = default;
        _header.WriteHeader(ref w, msgType, seq, nowNs, ref routing);
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
        int max = Math.Min(_outbox.MaxRecordLength, _header.BufferLength - SessionHeaderWriter.HeaderAllowanceBytes);
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
            FixWriter w = _header.CreateWriter();
            int seq = _store.NextSenderMsgSeqNum;
            RoutingFields routing = default;
            _header.WriteHeader(ref w, msgType, seq, nowNs, ref routing);
            w.WriteRaw(fields);
            FinishAndSend(ref w, seq, nowNs, isApp: true);
            _outbox.Release();
            work++;
        }
        return work;
    }

    private bool DataDictionaryIsAdmin(ReadOnlySpan<byte> msgType) =>
        _sessionDictionary?.IsAdminMessage(msgType) ?? Dictionary.DataDictionary.IsStandardAdminMsgType(msgType);

    private SendResult FinishAndSend(ref FixWriter w, int seq, long nowNs, bool isApp)
    {
        if (!w.TryFinish(out int length))
        {
            _log.OnEvent("Outbound message did not fit in MaxMessageSize; not sent", nowNs);
            return SendResult.Backpressure;
        }
        ReadOnlySpan<byte> bytes = _header.Encoded(length);
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
        _heartbeat.OnSent(nowNs);
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

    // Every message the session composes itself (not a resend or GapFill) goes this way: header, typed body, the
    // application's fields (ToAdmin), then stored and sent with the next sequence number.
    private void SendAdmin<TBody>(scoped in TBody body, long nowNs, ref RoutingFields routing)
        where TBody : IAdminMessageBody, allows ref struct
    {
        FixWriter w = _header.CreateWriter();
        int seq = _store.NextSenderMsgSeqNum;
        ReadOnlySpan<byte> msgType = body.MsgType;
        _header.WriteHeader(ref w, msgType, seq, nowNs, ref routing);
        body.WriteTo(ref w);
        _application.ToAdmin(this, msgType, ref w);
        FinishAndSend(ref w, seq, nowNs, isApp: false);
    }

    private void SendAdmin<TBody>(scoped in TBody body, long nowNs)
        where TBody : IAdminMessageBody, allows ref struct
    {
        RoutingFields none = default;
        SendAdmin(in body, nowNs, ref none);
    }

    private void SendHeartbeat(long nowNs, ReadOnlySpan<byte> testReqId) => SendAdmin(new HeartbeatBody(testReqId), nowNs);

    private void SendTestRequest(long nowNs, ReadOnlySpan<byte> testReqId) => SendAdmin(new TestRequestBody(testReqId), nowNs);

    private void SendResendRequest(long nowNs, int beginSeqNo, int endSeqNo) => SendAdmin(new ResendRequestBody(beginSeqNo, endSeqNo), nowNs);

    private void SendLogout(long nowNs, string? text)
    {
        SendAdmin(new LogoutBody(_header.Ascii(text)), nowNs);
        if (IsLoggedOn) EnterState(SessionState.LogoutSent, nowNs);
        if (text is not null) _log.OnEvent("Sent Logout: " + text, nowNs);
    }

    private void SendLogon(long nowNs, bool resetSeqNumFlag, int peerHeartBtInt)
    {
        int nextExpected = _settings.EnableNextExpectedMsgSeqNum && _beginStringVersion >= 44 ? _store.NextTargetMsgSeqNum : 0;
        ReadOnlySpan<byte> defaultApplVerId = _isFixt ? _defaultApplVerId : default;
        SendAdmin(new LogonBody(peerHeartBtInt > 0 ? peerHeartBtInt : _heartbeat.HeartBtIntSec, resetSeqNumFlag, nextExpected, defaultApplVerId), nowNs);
    }

    // A GapFill is a resend: it carries the sequence number it replaces, is not stored and does not consume a number.
    private void SendSequenceResetGapFill(long nowNs, int seq, int newSeqNo)
    {
        FixWriter w = _header.CreateWriter();
        _header.WritePossDupHeader(ref w, MsgTypes.SequenceReset, seq, nowNs);
        _header.WriteTimestamp(ref w, FixTags.OrigSendingTime, nowNs);
        _header.WriteLastMsgSeqNumProcessed(ref w);
        w.Write(FixTags.NewSeqNo, newSeqNo);
        w.Write(FixTags.GapFillFlag, 'Y');
        if (w.TryFinish(out int length)) Transmit(_header.Encoded(length), nowNs);
    }

    // Session-level Reject of an inbound message; before the Logon exchange a Reject is not allowed: disconnect instead.
    // Text(58) is the reason's standard text unless a more precise one is given.
    private void SendReject(FixMessage offending, long nowNs, int reason, int refTagId, bool hasRefTag, string? detail = null)
    {
        if (!IsLoggedOn)
        {
            Disconnect("Reject before Logon: " + SessionRejectReason.GetText(reason), nowNs);
            return;
        }
        RoutingFields routing = ReverseRouting(offending);
        int refSeqNum = offending.TryGetInt(FixTags.MsgSeqNum, out int s) == FixValueStatus.Ok ? s : -1;
        ReadOnlySpan<byte> refMsgType = _beginStringVersion < 42 ? default : RefMsgType(offending);
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
        string text = detail ?? SessionRejectReason.GetText(reason);
        SendAdmin(new RejectBody(refSeqNum, _header.Ascii(text), hasRefTag ? refTagId : int.MinValue, refMsgType, code), nowNs, ref routing);
        _log.OnEvent("Sent Reject: " + text + (hasRefTag ? " tag " + refTagId : ""), nowNs);
    }

    private void SendBusinessReject(FixMessage offending, long nowNs, int reason, string text)
    {
        RoutingFields routing = ReverseRouting(offending);
        int refSeqNum = offending.TryGetInt(FixTags.MsgSeqNum, out int s) == FixValueStatus.Ok ? s : -1;
        ReadOnlySpan<byte> defaultApplVerId = _isFixt ? _defaultApplVerId : default;
        SendAdmin(new BusinessMessageRejectBody(refSeqNum, _header.Ascii(text), RefMsgType(offending), reason, defaultApplVerId), nowNs, ref routing);
    }

    // RefMsgType(372) echoes the offending MsgType, cut at MaxRefMsgTypeLength bytes.
    private static ReadOnlySpan<byte> RefMsgType(FixMessage offending)
    {
        ReadOnlySpan<byte> msgType = offending.MsgType;
        return msgType.Length > MaxRefMsgTypeLength ? msgType.Slice(0, MaxRefMsgTypeLength) : msgType;
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
