using System;
using System.Diagnostics.CodeAnalysis;
using System.Runtime.CompilerServices;
using System.Threading;
using FixEngine.Codec;
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
    private const int MaxRefMsgTypeLength = 16;

    /// <summary>Encodes and sends an application (or custom admin) message with the next sequence number.</summary>
    /// <typeparam name="TState">State for <paramref name="body"/>; pass a static lambda so nothing is allocated.</typeparam>
    /// <param name="msgType">MsgType(35).</param>
    /// <param name="state">Passed to <paramref name="body"/>.</param>
    /// <param name="body">Writes the body fields; called again, into a larger encode buffer, when the message did not fit
    /// in the session's buffer so far (it grows on demand up to MaxMessageSize).</param>
    /// <param name="epochNs">Now, epoch nanoseconds (SendingTime).</param>
    /// <returns>The connection's answer: <see cref="SendResult.Sent"/>, or <see cref="SendResult.Queued"/> when the
    /// transport or the session's backlog holds it for sending in order (see <see cref="SendBacklogBytes"/>);
    /// <see cref="SendResult.Closed"/> when not connected (the message is still stored and consumes a sequence number, so
    /// it is resent on request, as in QuickFIX). When it returns, the message is stored under the sequence number
    /// <see cref="NextSenderMsgSeqNum"/> had before the call.</returns>
    /// <remarks>Owner thread only (e.g. inside an <see cref="IApplication"/> callback): the thread that runs the
    /// session. Checked on every call (one comparison); from any other thread use
    /// <see cref="TrySendFromAnyThread{TState}(ReadOnlySpan{byte}, long, in TState, BodyWriter{TState})"/>.
    /// Called inside <see cref="IApplication.FromApp"/>, the stored message also carries the processed-inbound mark
    /// (README "Exactly-once processing"). Allocation-free.</remarks>
    /// <exception cref="InvalidOperationException">Called from a thread other than the session's owner thread, after
    /// the session's message store failed (<see cref="StoreFailure"/>), or while the session holds because its store
    /// cannot take writes (<see cref="IsStoreHeld"/>, <c>StoreFailurePolicy=Hold</c>).</exception>
    /// <exception cref="Store.MessageStoreException">The store failed storing this message (it was not sent): the session
    /// has sent a Logout, disconnected and refuses further sends (<see cref="IApplication.OnStoreFailure"/> was called),
    /// or, for a failure that may pass under <c>StoreFailurePolicy=Hold</c>, it now holds
    /// (<see cref="IApplication.OnStoreHeld"/> was called).</exception>
    public SendResult Send<TState>(ReadOnlySpan<byte> msgType, scoped in TState state, BodyWriter<TState> body, long epochNs)
        where TState : allows ref struct
    {
        ArgumentNullException.ThrowIfNull(body);
        if (Environment.CurrentManagedThreadId != _ownerThreadId) ThrowNotOwnerThread();
        if (_storeFault is not null) ThrowStoreFaulted();
        if (_held) ThrowStoreHeld();
        // Callback-to-socket latency (only while a listener wants it): from here to the bytes handed to the socket.
        long sendStart = _latency?.BeginSend() ?? 0;
        FixWriter w = _header.CreateWriter();
        int seq = _store.NextSenderMsgSeqNum;
        // Tracing: a reply inside a traced activity (fix.receive) gets its own (only when a listener samples it).
        System.Diagnostics.Activity? activity = SessionTracing.MessageSource.HasListeners() ? SessionTracing.StartSend(this, msgType, seq) : null;
        RoutingFields routing = default;
        _header.WriteHeader(ref w, msgType, seq, epochNs, ref routing);
        body(ref w, in state);
        // Larger than the encode buffer so far: again into a larger one (it grows up to MaxMessageSize).
        while (w.Failed && _header.TryGrow())
        {
            w = _header.CreateWriter();
            _header.WriteHeader(ref w, msgType, seq, epochNs, ref routing);
            body(ref w, in state);
        }
        try
        {
            SendResult result = FinishAndSend(ref w, seq, epochNs, isApp: !DataDictionaryIsAdmin(msgType));
            if (result == SendResult.Sent && sendStart != 0) _latency!.EndSend(sendStart);
            return result;
        }
        catch (Store.MessageStoreException e)
        {
            OnStoreFailed(e, epochNs);
            throw;
        }
        finally
        {
            activity?.Dispose();
        }
    }

    /// <summary>Encodes and sends a message stamped with the time of the event being processed (<see cref="EpochNs"/>).</summary>
    /// <typeparam name="TState">State for <paramref name="body"/>.</typeparam>
    /// <param name="msgType">MsgType(35).</param>
    /// <param name="state">Passed to <paramref name="body"/>.</param>
    /// <param name="body">Writes the body fields.</param>
    /// <returns>The connection's answer.</returns>
    /// <remarks>For use inside <see cref="IApplication"/> callbacks (owner thread). Allocation-free.</remarks>
    public SendResult Send<TState>(ReadOnlySpan<byte> msgType, scoped in TState state, BodyWriter<TState> body)
        where TState : allows ref struct => Send(msgType, in state, body, _epochNs);

    /// <summary>The store failure that stopped the session, or null (<see cref="IApplication.OnStoreFailure"/>).</summary>
    public Store.MessageStoreException? StoreFailure => _storeFault;

    // Only while nothing waits for the transport: a full backlog stops the drain, so the outbox fills and its producer
    // gets false from TrySendFromAnyThread (back-pressure) instead of the session buffering without bound. When the
    // engine stops (all: true) everything handed over is stored, and sent or held in order, whatever the transport.
    private int DrainOutbox(long epochNs, bool all = false)
    {
        int work = 0;
        while ((all || (work < 256 && _flow.IsEmpty && !_resend.IsReplayPending && _state == SessionState.LoggedOn))
            && _storeFault is null && !_held && _handOff.TryRead(out ReadOnlySpan<byte> record))
        {
            SendHandOff.Parse(record, out ReadOnlySpan<byte> msgType, out long token, out long handedAtNs, out ReadOnlySpan<byte> fields);
            _header.EnsureCapacity(fields.Length + SessionHeaderWriter.HeaderAllowanceBytes);
            FixWriter w = _header.CreateWriter();
            int seq = _store.NextSenderMsgSeqNum;
            RoutingFields routing = default;
            _header.WriteHeader(ref w, msgType, seq, epochNs, ref routing);
            w.WriteRaw(fields);
            try
            {
                SendResult result = FinishAndSend(ref w, seq, epochNs, isApp: true);
                // TrySendFromAnyThread-to-socket latency (handedAtNs is 0 unless a listener wanted it at the hand-off).
                if (result == SendResult.Sent && handedAtNs != 0) _latency?.EndSend(handedAtNs, fromAnyThread: true);
            }
            catch (Store.MessageStoreException e)
            {
                if (WouldHold(e))
                {
                    // Not stored, not sent: it stays first in the hand-off and is stored when the session resumes.
                    _handOff.Unread();
                }
                else
                {
                    _handOff.Release();
                    NotStored(token, SendNotStoredReason.StoreFailed);
                }
                OnStoreFailed(e, epochNs);
                break;
            }
            _handOff.Release();
            if (_lastFinishFailed) NotStored(token, SendNotStoredReason.TooLarge);
            else if (_lastFinishVetoed) NotStored(token, SendNotStoredReason.Vetoed);
            else _application.OnSendStored(this, token, seq);
            work++;
        }
        return work;
    }

    [DoesNotReturn]
    [MethodImpl(MethodImplOptions.NoInlining)]
    private void ThrowNotOwnerThread() =>
        throw new InvalidOperationException(
            $"FixSession.Send on session {Id} was called from thread {Environment.CurrentManagedThreadId}, but the session is owned by thread "
            + $"{_ownerThreadId} (the thread that runs it). Send is for the session's own thread (inside IApplication callbacks); "
            + "from any other thread use TrySendFromAnyThread.");

    [DoesNotReturn]
    [MethodImpl(MethodImplOptions.NoInlining)]
    private void ThrowStoreHeld() =>
        throw new InvalidOperationException(
            $"Session {Id} is holding: its message store cannot take writes ({_storeHold?.Message}). Nothing is stored or sent until the store "
            + "is back (StoreFailurePolicy=Hold); send again after IApplication.OnStoreResumed (FixSession.IsStoreHeld turns false).",
            _storeHold);

    [DoesNotReturn]
    [MethodImpl(MethodImplOptions.NoInlining)]
    private void ThrowStoreFaulted() =>
        throw new InvalidOperationException(
            $"Session {Id} refuses to send: its message store failed ({_storeFault!.Message}). Nothing more is stored or sent; "
            + "fix the medium and restart the engine.", _storeFault);

    private bool DataDictionaryIsAdmin(ReadOnlySpan<byte> msgType) =>
        _sessionDictionary?.IsAdminMessage(msgType) ?? Dictionary.DataDictionary.IsStandardAdminMsgType(msgType);

    private SendResult FinishAndSend(ref FixWriter w, int seq, long epochNs, bool isApp)
    {
        _lastFinishFailed = false;
        _lastFinishVetoed = false;
        if (!w.TryFinish(out int length))
        {
            Raise(SessionEventKind.Other, Logging.LogLevel.Error, "Outbound message did not fit in MaxMessageSize; not sent", epochNs);
            _lastFinishFailed = true;
            return SendResult.Backpressure;
        }
        ReadOnlySpan<byte> bytes = _header.Encoded(length);
        // The application sees it first and may veto it (QuickFIX's DoNotSend): then it is neither stored nor sent and
        // its sequence number goes to the next message.
        if (isApp && !ToAppAllows(bytes, seq, epochNs))
        {
            _lastFinishVetoed = true;
            return SendResult.Vetoed;
        }
        // Stored BEFORE it reaches the transport, so a message reported sent is never lost by a crash. A message sent
        // while processing inbound N carries the mark "N processed" in the same record (exactly-once across crashes).
        if (_settings.PersistMessages)
        {
            if (_fileStore is { } file) file.AppendAndIncrement(seq, bytes, _answeringInbound != 0 ? _answeringInbound : file.LastProcessedInboundSeqNum, _header.TakeLayout(bytes, seq));
            else if (_answeringInbound != 0) _store.AppendAndIncrement(seq, bytes, _answeringInbound);
            else _store.AppendAndIncrement(seq, bytes);
        }
        else
        {
            _store.IncrNextSenderMsgSeqNum();
        }
        if (isApp && _state == SessionState.LogoutSent)
        {
            // After our Logout nothing but what a ResendRequest asks for goes out: stored, so resent when asked for
            // (after the next Logon), as a message sent while disconnected is.
            Raise(SessionEventKind.Other, Logging.LogLevel.Warning, "Application message " + seq + " stored, not sent: our Logout was sent", epochNs);
            return SendResult.Closed;
        }
        return Transmit(bytes, epochNs, admin: !isApp);
    }

    // ToApp, false when the application vetoed the message by throwing DoNotSendException.
    private bool ToAppAllows(ReadOnlySpan<byte> bytes, int seq, long epochNs)
    {
        try
        {
            _application.ToApp(this, bytes);
            return true;
        }
        catch (DoNotSendException)
        {
            Raise(SessionEventKind.Other, Logging.LogLevel.Information, "Message " + seq + " not sent: ToApp vetoed it (DoNotSend)", epochNs);
            return false;
        }
    }

    // admin: a message the session composed itself (HeartbeatMonitor.OnSent), not an application message or a resend.
    private SendResult Transmit(ReadOnlySpan<byte> bytes, long epochNs, bool admin)
    {
        ISessionConnection? connection = _connection;
        if (connection is null) return SendResult.Closed;
        _heartbeat.OnSent(epochNs, admin);
        _log.OnOutgoing(bytes, epochNs);
        _counters.OnMessageSent();
        // During a replay step every message goes into the step's batch, in order (FixSession.Resend.cs).
        if (_replayBatch is not null)
        {
            if (TryAddToReplayBatch(bytes, epochNs)) return SendResult.Queued;
            connection = _connection;
            if (connection is null) return SendResult.Closed;
        }
        return SendNow(connection, bytes, epochNs);
    }

    // Hands one message to the transport, or to the backlog behind what waits there.
    private SendResult SendNow(ISessionConnection connection, ReadOnlySpan<byte> bytes, long epochNs)
    {
        // Behind messages that wait for the transport: keep the order.
        if (!_flow.IsEmpty) return Hold(bytes, epochNs);
        SendResult result = connection.Send(bytes);
        switch (result)
        {
            case SendResult.Backpressure:
                // The transport's queue is full and took nothing: hold the message back, never drop it.
                _counters.OnSendBackpressure();
                return Hold(bytes, epochNs);
            case SendResult.TooLarge:
                Raise(SessionEventKind.Other, Logging.LogLevel.Error, "Outbound message of " + bytes.Length + " bytes is larger than the transport's send queue; not sent", epochNs);
                break;
        }
        return result;
    }

    // Every message the session composes itself (not a resend or GapFill) goes this way: header, typed body, the
    // application's fields (ToAdmin), then stored and sent with the next sequence number.
    private void SendAdmin<TBody>(scoped in TBody body, long epochNs, ref RoutingFields routing)
        where TBody : IAdminMessageBody, allows ref struct
    {
        FixWriter w = _header.CreateWriter();
        int seq = _store.NextSenderMsgSeqNum;
        ReadOnlySpan<byte> msgType = body.MsgType;
        _header.WriteHeader(ref w, msgType, seq, epochNs, ref routing);
        body.WriteTo(ref w);
        _application.ToAdmin(this, msgType, ref w);
        // Larger than the encode buffer so far (fields ToAdmin added): again into a larger one.
        while (w.Failed && _header.TryGrow())
        {
            w = _header.CreateWriter();
            _header.WriteHeader(ref w, msgType, seq, epochNs, ref routing);
            body.WriteTo(ref w);
            _application.ToAdmin(this, msgType, ref w);
        }
        FinishAndSend(ref w, seq, epochNs, isApp: false);
    }

    private void SendAdmin<TBody>(scoped in TBody body, long epochNs)
        where TBody : IAdminMessageBody, allows ref struct
    {
        RoutingFields none = default;
        SendAdmin(in body, epochNs, ref none);
    }

    private void SendHeartbeat(long epochNs, ReadOnlySpan<byte> testReqId) => SendAdmin(new HeartbeatBody(testReqId), epochNs);

    private void SendTestRequest(long epochNs, ReadOnlySpan<byte> testReqId) => SendAdmin(new TestRequestBody(testReqId), epochNs);

    private void SendResendRequest(long epochNs, int beginSeqNo, int endSeqNo) => SendAdmin(new ResendRequestBody(beginSeqNo, endSeqNo), epochNs);

    private void SendLogout(long epochNs, string? text)
    {
        SendAdmin(new LogoutBody(_header.Ascii(text)), epochNs);
        if (IsLoggedOn) EnterState(SessionState.LogoutSent, epochNs);
        if (text is not null) Raise(SessionEventKind.Logout, Logging.LogLevel.Information, text, epochNs);
    }

    private void SendLogon(long epochNs, bool resetSeqNumFlag, int peerHeartBtInt)
    {
        int nextExpected = _settings.EnableNextExpectedMsgSeqNum && _beginStringVersion >= 44 ? _store.NextTargetMsgSeqNum : 0;
        ReadOnlySpan<byte> defaultApplVerId = _isFixt ? _defaultApplVerId : default;
        SendAdmin(new LogonBody(peerHeartBtInt > 0 ? peerHeartBtInt : _heartbeat.HeartBtIntSec, resetSeqNumFlag, nextExpected, defaultApplVerId), epochNs);
    }

    // A GapFill is a resend: it carries the sequence number it replaces, is not stored and does not consume a number.
    private void SendSequenceResetGapFill(long epochNs, int seq, int newSeqNo)
    {
        FixWriter w = _header.CreateWriter();
        _header.WritePossDupHeader(ref w, MsgTypes.SequenceReset, seq, epochNs);
        _header.WriteTimestamp(ref w, FixTags.OrigSendingTime, epochNs);
        _header.WriteLastMsgSeqNumProcessed(ref w);
        w.Write(FixTags.NewSeqNo, newSeqNo);
        w.Write(FixTags.GapFillFlag, 'Y');
        if (w.TryFinish(out int length)) Transmit(_header.Encoded(length), epochNs, admin: false);
    }

    // Session-level Reject of an inbound message, as QuickFIX writes it; before the Logon exchange a Reject is not
    // allowed: disconnect instead. Text(58) is QuickFIX's text for the reason unless a more precise one is given (none
    // for the reasons QuickFIX has no text for). RefTagID(371), RefMsgType(372) and SessionRejectReason(373) are
    // FIX.4.2 fields: below FIX.4.2 the tag goes into the Text as "<text> (<tag>)" and 372/373 are left out; on FIX.4.2
    // 373 is written for the reasons FIX.4.2 defines (0-11) only.
    private void SendReject(FixMessage offending, long epochNs, int reason, int refTagId, bool hasRefTag, string? detail = null)
    {
        if (!IsLoggedOn)
        {
            Disconnect("Reject before Logon: " + (detail ?? SessionRejectReason.GetText(reason)), epochNs);
            return;
        }
        if (offending.TryGetInt(FixTags.MsgSeqNum, out int s) != FixValueStatus.Ok)
        {
            // QuickFIX C++ sends no Reject it cannot give a RefSeqNum(45); the message is not consumed either.
            _log.OnEvent(Logging.LogLevel.Warning, "Message without MsgSeqNum(34) ignored: " + (detail ?? SessionRejectReason.GetText(reason)), epochNs);
            return;
        }
        RoutingFields routing = ReverseRouting(offending);
        int refSeqNum = s;
        ReadOnlySpan<byte> refMsgType = _beginStringVersion < 42 ? default : RefMsgType(offending);
        int code = _beginStringVersion switch
        {
            < 42 => -1,
            42 => reason is >= 0 and <= SessionRejectReason.InvalidMsgType ? reason : -1,
            _ => reason,
        };
        string? text = detail ?? SessionRejectReason.GetQuickFixText(reason);
        int tag = int.MinValue;
        if (hasRefTag && text is not null)
        {
            if (_beginStringVersion < 42) text = text + " (" + refTagId.ToString(System.Globalization.CultureInfo.InvariantCulture) + ")";
            else tag = refTagId;
        }
        else if (hasRefTag && _beginStringVersion >= 42)
        {
            tag = refTagId;
        }
        _counters.OnRejectSent();
        SendAdmin(new RejectBody(refSeqNum, _header.Ascii(text), tag, refMsgType, code), epochNs, ref routing);
        Raise(NewEvent(SessionEventKind.RejectSent, Logging.LogLevel.Warning, text ?? SessionRejectReason.GetText(reason)) with
        {
            RefSeqNum = refSeqNum,
            RefTagId = hasRefTag ? refTagId : 0,
            RejectReason = reason,
        }, epochNs);
    }

    // A Reject that only carries a text (QuickFIX's generateReject with a text): RefSeqNum(45), RefMsgType(372) from
    // FIX.4.2 on, Text(58); no SessionRejectReason.
    private void SendTextReject(FixMessage offending, long epochNs, string text)
    {
        if (!IsLoggedOn)
        {
            Disconnect("Reject before Logon: " + text, epochNs);
            return;
        }
        RoutingFields routing = ReverseRouting(offending);
        int refSeqNum = offending.TryGetInt(FixTags.MsgSeqNum, out int s) == FixValueStatus.Ok ? s : -1;
        ReadOnlySpan<byte> refMsgType = _beginStringVersion < 42 ? default : RefMsgType(offending);
        _counters.OnRejectSent();
        SendAdmin(new RejectBody(refSeqNum, _header.Ascii(text), int.MinValue, refMsgType, -1), epochNs, ref routing);
        Raise(NewEvent(SessionEventKind.RejectSent, Logging.LogLevel.Warning, text) with { RefSeqNum = refSeqNum }, epochNs);
    }

    private void SendBusinessReject(FixMessage offending, long epochNs, int reason, string text)
    {
        RoutingFields routing = ReverseRouting(offending);
        int refSeqNum = offending.TryGetInt(FixTags.MsgSeqNum, out int s) == FixValueStatus.Ok ? s : -1;
        ReadOnlySpan<byte> defaultApplVerId = _isFixt ? _defaultApplVerId : default;
        _counters.OnRejectSent();
        SendAdmin(new BusinessMessageRejectBody(refSeqNum, _header.Ascii(text), RefMsgType(offending), reason, defaultApplVerId), epochNs, ref routing);
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
