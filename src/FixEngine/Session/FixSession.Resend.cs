using System;
using System.Buffers;
using System.Runtime.CompilerServices;
using FixEngine.Codec;
using FixEngine.Store;
using FixEngine.Transport;

namespace FixEngine.Session;

// Role: resend and gap-fill in both directions, on the state kept in ResendState: asking the peer for a gap (in chunks
// when configured) and replaying our stored messages when the peer asks.

public sealed partial class FixSession
{
    private const int InfiniteEndSeqNo42 = 0;
    private const int InfiniteEndSeqNoOld = 999_999;

    // Requesting side: ask for [begin, end]; EndSeqNo 0 (or 999999 before FIX.4.2) means "to the end". With a chunk
    // size, a gap larger than one chunk is asked for one chunk at a time: [begin, begin+chunk-1] now, the next chunk
    // once the inbound sequence has passed this one (ContinueChunkedResend); the last chunk asks "to the end".
    private void RequestResend(int begin, int end, long epochNs)
    {
        int sentEnd = _resend.StartRequest(begin, end, _settings.ResendRequestChunkSize,
            _beginStringVersion >= 42 ? InfiniteEndSeqNo42 : InfiniteEndSeqNoOld);
        _counters.OnResendRequestSent();
        Raise(NewEvent(SessionEventKind.ResendRequest, Logging.LogLevel.Warning, null) with { BeginSeqNo = begin, EndSeqNo = sentEnd }, epochNs);
        SendResendRequest(epochNs, begin, sentEnd);
    }

    // After an inbound message (and the queue) was processed: when a chunk of a chunked ResendRequest has been filled
    // (the next expected number is past the chunk's end, by resent messages or a GapFill) and the gap is still open,
    // request the next chunk; when the whole gap is filled, the resend is over.
    private void ContinueChunkedResend(long epochNs)
    {
        int gapEnd = _resend.GapEnd;
        if (gapEnd == 0 || _connection is null) return;
        int expected = _store.NextTargetMsgSeqNum;
        if (expected <= _resend.RequestEnd) return;
        if (expected <= gapEnd)
        {
            Raise(SessionEventKind.Other, Logging.LogLevel.Information, "ResendRequest chunk to " + _resend.RequestEnd + " satisfied", epochNs);
            RequestResend(expected, gapEnd, epochNs);
            return;
        }
        Raise(SessionEventKind.Other, Logging.LogLevel.Information, "ResendRequest satisfied", epochNs);
        _resend.EndRequest();
    }

    // Answering side: replay [begin, end] from the store. Application messages go out again with their original
    // MsgSeqNum, PossDupFlag=Y and OrigSendingTime; runs of admin messages and missing numbers become one
    // SequenceReset-GapFill each. Nothing here consumes a new sequence number. The replay runs in steps
    // (ContinueReplay): a step reads at most ReplayMessagesPerStep stored messages, and stops early while the send
    // backlog holds OutboundFlowControl.ReplayBudgetBytes or more; the next step runs from Poll (as the transport
    // drains). So a long replay is never copied into memory at once, and a thread that runs other sessions too (the
    // engine agent, busy-poll) gets back to them between steps. A new ResendRequest replaces a replay still in progress.
    // What a step sends (resent messages, GapFills, anything the application sends from ToApp) is gathered, in order,
    // into one batch buffer and handed to the transport as one write at the end of the step (or when the buffer is
    // full): one send call per step instead of one per message.
    internal const int ReplayMessagesPerStep = 128;

    /// <summary>Bytes of a replay step's batch buffer (rented from the shared pool for the step); a message larger than
    /// this goes to the transport on its own, after the batch so far.</summary>
    internal const int ReplayBatchBytes = 64 * 1024;

    private byte[]? _replayBatch;
    private int _replayBatchLength;

    private void ResendRange(int begin, int end, long epochNs)
    {
        int nextSender = _store.NextSenderMsgSeqNum;
        if (begin < 1) begin = 1;
        if ((_beginStringVersion >= 42 && end == InfiniteEndSeqNo42) || (_beginStringVersion <= 42 && end == InfiniteEndSeqNoOld) || end >= nextSender)
        {
            end = nextSender - 1;
        }
        _counters.OnResendRequestReceived();
        Raise(NewEvent(SessionEventKind.ResendRequest, Logging.LogLevel.Warning, null) with { ByCounterparty = true, BeginSeqNo = begin, EndSeqNo = end }, epochNs);
        // A replay method the first session could not compile ahead (it then compiles at its first call, here): told once
        // per process, by the first session to answer a ResendRequest after it.
        if (ReplayCompilation.TakeFailureReport() is string notCompiled) Raise(SessionEventKind.Other, Logging.LogLevel.Warning, notCompiled, epochNs);
        if (end < begin)
        {
            // BeginSeqNo above the last number we sent: there is nothing to resend (and no number a GapFill could carry).
            Raise(SessionEventKind.Other, Logging.LogLevel.Warning, "Nothing to resend: BeginSeqNo " + begin + " is above the last MsgSeqNum sent, " + (nextSender - 1), epochNs);
            return;
        }
        if (!_settings.PersistMessages)
        {
            SendSequenceResetGapFill(epochNs, begin, end + 1);
            return;
        }
        _resend.StartReplay(begin, end);
        ContinueReplay(epochNs);
    }

    // The replay's per-message methods (AggressiveOptimization), for ReplayCompilation: the session's when `session`, the
    // file store's range read over this session's handler and its read path when `store` is given.
    internal Delegate[] ReplayMethods(bool session, FileMessageStore? store)
    {
        var methods = new System.Collections.Generic.List<Delegate>();
        if (session)
        {
            ResendHandler handler = default;
            methods.Add(new ReplayStepMethod(ReplayStep));
            methods.Add(new OnMessageMethod(handler.OnMessage));
            methods.Add(new ResendOneMethod(ResendOne));
            methods.Add(new UseRecordedLayoutMethod(TryUseRecordedLayout));
            methods.Add(new TransmitResendMethod(TransmitResend));
            methods.Add(new EncodeStoredMethod(TryEncodeStored));
            methods.Add(new EncodeCopiedMethod(TryEncodeResend));
            methods.Add(new AddToBatchMethod(TryAddToReplayBatch));
            methods.Add(new LocateStoredMethod(TryLocateStored));
            methods.Add(new ReadStoredFieldMethod(StoredFields.ReadField));
            methods.Add(new IsHeaderTagMethod(IsHeaderTag));
            methods.Add(new PossDupHeaderMethod(_header.WritePossDupHeader));
            methods.Add(new CopyAndSumMethod(AsciiParsing.CopyAndSum));
        }
        if (store is not null)
        {
            methods.Add(new ReadRangeMethod(store.ReadRangeLaidOut<ResendHandler>));
            methods.AddRange(FileMessageStore.ReadPathMethods(store));
        }
        return methods.ToArray();
    }

    private delegate int ReplayStepMethod(long epochNs);

    private delegate bool OnMessageMethod(int seqNum, ReadOnlySpan<byte> message, in ResendLayout layout);

    private delegate bool ResendOneMethod(int seqNum, ReadOnlySpan<byte> stored, in ResendLayout recorded, long epochNs, int gapStart);

    private delegate bool UseRecordedLayoutMethod(ReadOnlySpan<byte> stored, in ResendLayout recorded, out StoredLayout layout);

    private delegate bool TransmitResendMethod(int seqNum, ReadOnlySpan<byte> stored, in StoredLayout layout, bool indexed, FixMessage original, long epochNs, int gapStart);

    private delegate bool EncodeStoredMethod(ReadOnlySpan<byte> stored, in StoredLayout layout, bool indexed, FixMessage original, int seqNum, long epochNs, out int length);

    private delegate bool EncodeCopiedMethod(ReadOnlySpan<byte> stored, in StoredLayout layout, int seqNum, long epochNs, out int length);

    private delegate bool AddToBatchMethod(ReadOnlySpan<byte> bytes, long epochNs);

    private delegate bool LocateStoredMethod(ReadOnlySpan<byte> stored, out StoredLayout layout);

    private delegate int ReadStoredFieldMethod(ReadOnlySpan<byte> message, ref StoredSohCursor soh, int pos, int limit, out int tag, out int valueStart);

    private delegate bool IsHeaderTagMethod(int tag);

    private delegate void PossDupHeaderMethod(ref FixWriter w, ReadOnlySpan<byte> msgType, int seqNum, long epochNs);

    private delegate byte CopyAndSumMethod(ReadOnlySpan<byte> source, Span<byte> destination);

    private delegate int ReadRangeMethod(int beginSeqNo, int endSeqNo, int expectedMessages, ref ResendHandler handler);

    // One step of the replay in progress; returns 1 when it sent something.
    private int ContinueReplay(long epochNs)
    {
        if (_resend.ReplayEndSeq == 0 || _connection is null || !_flow.HasReplayBudget) return 0;
        if (_replayBatch is not null) return ReplayStep(epochNs); // within a step (never expected): its batch serves
        _replayBatch = ArrayPool<byte>.Shared.Rent(ReplayBatchBytes);
        _replayBatchLength = 0;
        try
        {
            return ReplayStep(epochNs);
        }
        finally
        {
            FlushReplayBatch(epochNs);
            byte[] batch = _replayBatch!;
            _replayBatch = null;
            ArrayPool<byte>.Shared.Return(batch);
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private int ReplayStep(long epochNs)
    {
        int end = _resend.ReplayEndSeq;
        var replay = new ResendHandler(this, _resend.ReplayNextSeq, _resend.ReplayGapStart, epochNs);
        // A file store hands each message's resend layout over with it, recorded when the message was stored.
        if (_store is FileMessageStore fileStore) fileStore.ReadRangeLaidOut(_resend.ReplayNextSeq, end, ReplayMessagesPerStep, ref replay);
        else _store.ReadRange(_resend.ReplayNextSeq, end, ref replay);
        if (_connection is null) return 1;
        if (replay.Paused && replay.Current <= end)
        {
            _resend.PauseReplay(replay.Current, replay.GapStart);
            return 1;
        }
        _resend.EndReplay();
        int gapStart = replay.GapStart != 0 ? replay.GapStart : replay.Current;
        if (gapStart <= end)
        {
            SendSequenceResetGapFill(epochNs, gapStart, end + 1);
        }
        return 1;
    }

    // Copies a message into the step's batch (flushing the batch first when it is full); false when the message must go
    // on its own (larger than the batch buffer, or the flush closed the connection).
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private bool TryAddToReplayBatch(ReadOnlySpan<byte> bytes, long epochNs)
    {
        byte[] batch = _replayBatch!;
        if (bytes.Length > batch.Length - _replayBatchLength)
        {
            FlushReplayBatch(epochNs);
            if (bytes.Length > batch.Length || _connection is null) return false;
        }
        bytes.CopyTo(batch.AsSpan(_replayBatchLength));
        _replayBatchLength += bytes.Length;
        return true;
    }

    // Hands the batch to the transport as one write. When it cannot go whole (messages already wait in the backlog, the
    // transport refuses it for now or is too small for it), its messages go one by one the usual way: sent, or held in
    // order in the backlog. Nothing of the batch is dropped unless the connection is gone, as with single sends.
    private void FlushReplayBatch(long epochNs)
    {
        int length = _replayBatchLength;
        if (length == 0) return;
        _replayBatchLength = 0;
        ISessionConnection? connection = _connection;
        if (connection is null) return;
        ReadOnlySpan<byte> batch = _replayBatch.AsSpan(0, length);
        if (_flow.IsEmpty)
        {
            SendResult result = connection.Send(batch);
            if (result is SendResult.Sent or SendResult.Queued or SendResult.Closed) return;
            if (result == SendResult.Backpressure) _counters.OnSendBackpressure();
        }
        while (!batch.IsEmpty)
        {
            // The batch holds only messages this session encoded: each frames whole.
            int size = FixFramer.Frame(batch, int.MaxValue).Length;
            if (size <= 0 || size > batch.Length) size = batch.Length;
            connection = _connection;
            if (connection is null) return;
            SendNow(connection, batch.Slice(0, size), epochNs);
            batch = batch.Slice(size);
        }
    }

    private struct ResendHandler : IStoredMessageHandler, ILaidOutMessageHandler
    {
        private readonly FixSession _session;
        private readonly long _epochNs;
        private int _left;

        public ResendHandler(FixSession session, int begin, int gapStart, long epochNs)
        {
            _session = session;
            _epochNs = epochNs;
            Current = begin;
            GapStart = gapStart;
            Paused = false;
            _left = ReplayMessagesPerStep;
        }

        public int Current;
        public int GapStart;

        /// <summary>The read stopped before the end of the range: the step's message count or the send backlog's
        /// replay budget was reached.</summary>
        public bool Paused;

        public bool OnMessage(int seqNum, ReadOnlySpan<byte> message) => OnMessage(seqNum, message, default);

        [MethodImpl(MethodImplOptions.AggressiveOptimization)]
        public bool OnMessage(int seqNum, ReadOnlySpan<byte> message, in ResendLayout layout)
        {
            if (seqNum != Current && GapStart == 0) GapStart = Current;
            if (_session.ResendOne(seqNum, message, in layout, _epochNs, GapStart))
            {
                GapStart = 0;
            }
            else if (GapStart == 0)
            {
                GapStart = seqNum;
            }
            Current = seqNum + 1;
            if (_session._connection is null) return false;
            Paused = --_left == 0 || !_session._flow.HasReplayBudget;
            return !Paused;
        }
    }

    /// <summary>Stored messages a replay read by their header only, their body copied (the session's thread; for tests).</summary>
    internal long StoredMessagesCopiedForResend { get; private set; }

    /// <summary>Of <see cref="StoredMessagesCopiedForResend"/>, those whose header was not read at all: the store handed
    /// over their layout (the session's thread; for tests).</summary>
    internal long StoredMessagesLaidOutForResend { get; private set; }

    /// <summary>Stored messages a replay indexed field by field because the header-only read did not take them (the
    /// session's thread; for tests).</summary>
    internal long StoredMessagesIndexedForResend { get; private set; }

    // Returns true when the message was an application message and was resent (after a pending GapFill, if any).
    // A stored message is read by its header only (TryLocateStored): the body is copied as it is, never parsed. A stored
    // message whose header that quick read does not take (a data field in the header, a BodyLength that does not end at
    // the trailer, no SendingTime, a tag with a leading zero...) goes the full way: indexed field by field, as before.
    // A message whose layout the store recorded (ResendLayout) is not read at all: its layout gives the MsgType, the
    // SendingTime, where the body starts and the body's byte sum, so the body is only copied.
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private bool ResendOne(int seqNum, ReadOnlySpan<byte> stored, in ResendLayout recorded, long epochNs, int gapStart)
    {
        StoredLayout layout;
        if (recorded.IsKnown && TryUseRecordedLayout(stored, in recorded, out layout))
        {
            StoredMessagesLaidOutForResend++;
        }
        else if (!TryLocateStored(stored, out layout))
        {
            StoredMessagesIndexedForResend++;
            return ResendOneIndexed(seqNum, stored, epochNs, gapStart);
        }
        StoredMessagesCopiedForResend++;
        ReadOnlySpan<byte> msgType = stored.Slice(layout.MsgTypeStart, layout.MsgTypeLength);
        if (DataDictionaryIsAdmin(msgType)) return false;
        return TransmitResend(seqNum, stored, in layout, indexed: false, original: default, epochNs, gapStart);
    }

    // The full way: the stored message indexed field by field (ResendIndex) and re-encoded from its index.
    private bool ResendOneIndexed(int seqNum, ReadOnlySpan<byte> stored, long epochNs, int gapStart)
    {
        var original = IndexStored(stored);
        ReadOnlySpan<byte> msgType = original.MsgType;
        if (!original.HasStandardPrefix) return NotResent(seqNum, "it does not start with BeginString(8), BodyLength(9) and MsgType(35)", epochNs);
        if (DataDictionaryIsAdmin(msgType)) return false;
        return TransmitResend(seqNum, stored, layout: default, indexed: true, original, epochNs, gapStart);
    }

    // The tail both ways share: encode the resend (from the located header, or from the index when indexed), let the
    // application veto it, send the pending GapFill first, then the message.
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private bool TransmitResend(int seqNum, ReadOnlySpan<byte> stored, in StoredLayout layout, bool indexed, FixMessage original, long epochNs, int gapStart)
    {
        if (!TryEncodeStored(stored, in layout, indexed, original, seqNum, epochNs, out int length)) return NotResent(seqNum, "it does not fit in MaxMessageSize once its header is rewritten", epochNs);
        // The application may veto the resend (DoNotSend): the message is then gap-filled like an admin message.
        if (!ToAppAllows(_header.Encoded(length), seqNum, epochNs)) return false;
        if (gapStart != 0)
        {
            // The GapFill goes first and takes the encode buffer (and the resend index): encode the message again after it.
            SendSequenceResetGapFill(epochNs, gapStart, seqNum);
            if (indexed) original = IndexStored(stored);
            if (!TryEncodeStored(stored, in layout, indexed, original, seqNum, epochNs, out length)) return false;
        }
        Transmit(_header.Encoded(length), epochNs, admin: false);
        return true;
    }

    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private bool TryEncodeStored(ReadOnlySpan<byte> stored, in StoredLayout layout, bool indexed, FixMessage original, int seqNum, long epochNs, out int length) =>
        indexed
            ? TryEncodeResend(original, stored, original.MsgType, seqNum, epochNs, out length)
            : TryEncodeResend(stored, in layout, seqNum, epochNs, out length);

    // A stored message that cannot be resent is gap-filled; the reason is logged (error path: allocates).
    private bool NotResent(int seqNum, string reason, long epochNs)
    {
        Raise(SessionEventKind.Other, Logging.LogLevel.Warning, "Stored message " + seqNum + " not resent (gap-filled): " + reason, epochNs);
        return false;
    }

    // The layout the store recorded for a message, as TryLocateStored would find it: taken when the message's first body
    // field is well formed and not a header field of this session's dictionary (the store stopped at the first field
    // that a resend does not rewrite, whichever dictionary), and the fields a resend rewrites are header fields of the
    // dictionary. Otherwise the header is read as before.
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private bool TryUseRecordedLayout(ReadOnlySpan<byte> stored, in ResendLayout recorded, out StoredLayout layout)
    {
        layout = default;
        if (!_rewrittenAreHeaderTags || !recorded.FitsMessage(stored.Length)) return false;
        int trailer = stored.Length - FixFramer.TrailerLength;
        int bodyStart = recorded.BodyStart;
        if (bodyStart < trailer)
        {
            var soh = new StoredSohCursor(stored);
            if (StoredFields.ReadField(stored, ref soh, bodyStart, trailer, out int tag, out _) < 0 || IsHeaderTag(tag)) return false;
        }
        layout.MsgTypeStart = recorded.MsgTypeStart;
        layout.MsgTypeLength = recorded.MsgTypeLength;
        layout.SendingTimeStart = recorded.SendingTimeStart;
        layout.SendingTimeLength = recorded.SendingTimeLength;
        layout.HeaderStart = bodyStart;
        layout.KeptFields = 0;
        layout.BodyStart = bodyStart;
        layout.TrailerStart = trailer;
        layout.BodySum = recorded.BodySum;
        layout.BodySummed = true;
        return true;
    }

    // True when the header fields a resend rewrites are header fields of this session (its dictionary's, or the standard
    // set): the condition under which a recorded layout reads as TryLocateStored would.
    private bool RewrittenAreHeaderTags() =>
        IsHeaderTag(FixTags.MsgSeqNum) && IsHeaderTag(FixTags.PossDupFlag) && IsHeaderTag(FixTags.SenderCompID) && IsHeaderTag(FixTags.SendingTime)
        && IsHeaderTag(FixTags.TargetCompID) && IsHeaderTag(FixTags.OrigSendingTime);

    /// <summary>Where the parts of a stored message are, found by <see cref="TryLocateStored"/> (byte offsets into it).</summary>
    private struct StoredLayout
    {
        /// <summary>MsgType(35)'s value.</summary>
        public int MsgTypeStart;
        public int MsgTypeLength;

        /// <summary>SendingTime(52)'s value (its first occurrence in the header).</summary>
        public int SendingTimeStart;
        public int SendingTimeLength;

        /// <summary>The first field after MsgType.</summary>
        public int HeaderStart;

        /// <summary>Header fields after MsgType that the resend keeps (all but 34, 43, 49, 52, 56 and 122).</summary>
        public int KeptFields;

        /// <summary>The first field that is not a header field (<see cref="TrailerStart"/> when there is none).</summary>
        public int BodyStart;

        /// <summary>The CheckSum(10) field, <c>10=ddd|</c>, the last seven bytes of the message.</summary>
        public int TrailerStart;

        /// <summary>The body's byte sum (mod 256), when <see cref="BodySummed"/>: recorded by the store.</summary>
        public byte BodySum;

        public bool BodySummed;
    }

    // Reads only the header of a stored message: 8, 9, 35, then the fields that are header fields, up to the first that
    // is not. The trailer is where BodyLength says, and must be "10=ddd|" ending the message. False when any of it does
    // not hold, or the header has a field the full index reads differently (a data field, whose value may hold SOH; a
    // tag with a leading zero or that is not a number), or has no SendingTime: the caller then indexes the message whole.
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private bool TryLocateStored(ReadOnlySpan<byte> stored, out StoredLayout layout)
    {
        layout = default;
        var soh = new StoredSohCursor(stored);
        int next = StoredFields.ReadFrame(stored, ref soh, out int trailer, out int msgTypeStart);
        if (next < 0) return false;
        layout.TrailerStart = trailer;
        layout.MsgTypeStart = msgTypeStart;
        layout.MsgTypeLength = next - 1 - msgTypeStart;
        layout.HeaderStart = next;
        layout.SendingTimeStart = -1;
        int pos = next;
        while (pos < trailer)
        {
            next = StoredFields.ReadField(stored, ref soh, pos, trailer, out int tag, out int valueStart);
            if (next < 0) return false;
            if (!IsHeaderTag(tag)) break;
            if (DataFieldPairs.Standard.GetDataTag(tag) != 0) return false;
            if (!ResendLayout.IsRewrittenOnResend(tag))
            {
                layout.KeptFields++;
            }
            else if (tag == FixTags.SendingTime && layout.SendingTimeStart < 0)
            {
                layout.SendingTimeStart = valueStart;
                layout.SendingTimeLength = next - 1 - valueStart;
            }
            pos = next;
        }
        layout.BodyStart = pos;
        return layout.SendingTimeStart >= 0;
    }

    // One stored header field into a resend's header, in stored order, with OrigSendingTime(122) written before the first
    // kept field above it (or by the caller after the last, when none is).
    private static void WriteKeptHeaderField(ref FixWriter w, int tag, ReadOnlySpan<byte> value, ReadOnlySpan<byte> origSendingTime, ref bool wroteOrig)
    {
        if (ResendLayout.IsRewrittenOnResend(tag)) return;
        if (!wroteOrig && tag > FixTags.OrigSendingTime)
        {
            w.Write(FixTags.OrigSendingTime, origSendingTime);
            wroteOrig = true;
        }
        w.Write(tag, value);
    }

    // Encodes a stored message located by TryLocateStored as a possible duplicate into the encode buffer: the new header
    // (43=Y, 52 now, 122 = its SendingTime, its other header fields as stored), then its body and nothing else copied as
    // it is. The same bytes as the indexed TryEncodeResend below.
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private bool TryEncodeResend(ReadOnlySpan<byte> stored, in StoredLayout layout, int seqNum, long epochNs, out int length)
    {
        ReadOnlySpan<byte> origSendingTime = stored.Slice(layout.SendingTimeStart, layout.SendingTimeLength);
        _header.EnsureCapacity(stored.Length + SessionHeaderWriter.HeaderAllowanceBytes);
        FixWriter w = _header.CreateWriter();
        _header.WritePossDupHeader(ref w, stored.Slice(layout.MsgTypeStart, layout.MsgTypeLength), seqNum, epochNs);
        bool wroteOrig = false;
        int pos = layout.KeptFields == 0 ? layout.BodyStart : layout.HeaderStart;
        int bodyStart = layout.BodyStart;
        var soh = new StoredSohCursor(stored);
        while (pos < bodyStart)
        {
            // Every field here was read by TryLocateStored.
            int next = StoredFields.ReadField(stored, ref soh, pos, bodyStart, out int tag, out int valueStart);
            ReadOnlySpan<byte> value = stored.Slice(valueStart, next - 1 - valueStart);
            pos = next;
            WriteKeptHeaderField(ref w, tag, value, origSendingTime, ref wroteOrig);
        }
        if (!wroteOrig) w.Write(FixTags.OrigSendingTime, origSendingTime);
        // The body is copied and summed for the CheckSum in one pass, or only copied when the store recorded its sum (over
        // the same bytes, under the record's CRC); the CheckSum is never taken from the stored trailer.
        ReadOnlySpan<byte> body = stored.Slice(bodyStart, layout.TrailerStart - bodyStart);
        return layout.BodySummed ? w.TryFinishWithRaw(body, layout.BodySum, out length) : w.TryFinishWithRaw(body, out length);
    }

    // Encodes the stored message as a possible duplicate (43=Y, 122 = its SendingTime) into the encode buffer.
    private bool TryEncodeResend(FixMessage original, ReadOnlySpan<byte> stored, ReadOnlySpan<byte> msgType, int seqNum, long epochNs, out int length)
    {
        original.TryGetSpan(FixTags.SendingTime, out ReadOnlySpan<byte> origSendingTime);
        int count = original.Count;
        int bodyStart = count;
        int trailerStart = count;
        for (int i = 3; i < count; i++)
        {
            int tag = original.GetTag(i);
            if (tag == FixTags.CheckSum)
            {
                trailerStart = i;
                break;
            }
            if (bodyStart == count && !IsHeaderTag(tag)) bodyStart = i;
        }
        if (bodyStart > trailerStart) bodyStart = trailerStart;

        _header.EnsureCapacity(stored.Length + SessionHeaderWriter.HeaderAllowanceBytes);
        FixWriter w = _header.CreateWriter();
        _header.WritePossDupHeader(ref w, msgType, seqNum, epochNs);
        bool wroteOrig = false;
        for (int i = 3; i < bodyStart; i++)
        {
            WriteKeptHeaderField(ref w, original.GetTag(i), original.GetValue(i), origSendingTime, ref wroteOrig);
        }
        if (!wroteOrig) w.Write(FixTags.OrigSendingTime, origSendingTime);
        if (bodyStart < trailerStart)
        {
            int from = original.GetFieldOffset(bodyStart);
            int to = original.GetFieldOffset(trailerStart);
            w.WriteRaw(stored.Slice(from, to - from));
        }
        return w.TryFinish(out length);
    }

    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private bool IsHeaderTag(int tag)
    {
        if (_sessionDictionary is not null) return _sessionDictionary.IsHeaderField(tag);
        return tag is 8 or 9 or 35 or 34 or 43 or 49 or 50 or 52 or 56 or 57 or 90 or 91 or 97 or 115 or 116 or 122 or 128 or 129
            or 142 or 143 or 144 or 145 or 212 or 213 or 347 or 369 or 370 or 627 or 628 or 629 or 630 or 1128 or 1129 or 1156;
    }
}
