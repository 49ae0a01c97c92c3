using System;
using System.Runtime.CompilerServices;
using System.Text;
using FixEngine.Codec;
using FixEngine.Store;

namespace FixEngine.Session;

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

/// <summary>Writes the standard header of every message a session sends, into the session's one encode buffer.</summary>
/// <remarks>
/// <para>Design: owned by the thread running the session. It holds the session's identity as bytes (BeginString,
/// SenderCompID, TargetCompID), the SendingTime format and the reusable buffers: the encode buffer every outbound
/// message is written into (one message at a time: a message is handed to the transport or copied into the backlog
/// before the next is encoded) and a scratch buffer for ASCII text fields.</para>
/// <para>The encode buffer starts at <see cref="InitialBufferBytes"/> and grows (doubling, up to MaxMessageSize plus
/// <see cref="HeaderAllowanceBytes"/>) when a message does not fit: the sender encodes it again after
/// <see cref="TryGrow"/>, or sizes the buffer first with <see cref="EnsureCapacity"/> when it knows the length. So a
/// configured session holds a few KB, not MaxMessageSize; growth allocates once per doubling, a session's steady state
/// nothing.</para>
/// <para>Header order: 8, 9, 35, then every other header field in ascending tag order (QuickFIX's order). Two
/// headers exist: <see cref="WriteHeader"/> for a message with a new sequence number, and
/// <see cref="WritePossDupHeader"/> for a message sent again under the number it replaces (a resent application
/// message or a SequenceReset-GapFill), which carries PossDupFlag(43)=Y.</para>
/// </remarks>
internal sealed class SessionHeaderWriter
{
    /// <summary>Bytes of the encode buffer beyond MaxMessageSize, for the header and trailer.</summary>
    public const int HeaderAllowanceBytes = 256;

    /// <summary>The encode buffer's first length (most FIX messages are well under 1 KB).</summary>
    public const int InitialBufferBytes = 4096;

    private const int TextScratchBytes = 512;

    private readonly byte[] _beginString;
    private readonly byte[] _senderCompId;
    private readonly byte[] _targetCompId;
    private readonly TimestampPrecision _precision;
    private readonly UtcTimestampCache _timestampCache = new();
    private readonly bool _writeLastMsgSeqNumProcessed;
    private readonly IMessageStore _store;
    private readonly int _maxBufferLength;
    private byte[] _buffer;
    private readonly byte[] _text = new byte[TextScratchBytes];

    // Where WriteHeader put MsgType, SendingTime and the first field after TargetCompID in the message under
    // _laidOutSeqNum (before TryFinish moves it by the BodyLength digits it did not use): TakeLayout.
    private int _laidOutSeqNum;
    private int _msgTypeStart;
    private int _msgTypeLength;
    private int _sendingTimeStart;
    private int _sendingTimeLength;
    private int _bodyStart;

    /// <summary>Creates the header writer of one session.</summary>
    /// <param name="beginString">BeginString(8).</param>
    /// <param name="senderCompId">Our SenderCompID(49).</param>
    /// <param name="targetCompId">The peer's CompID, our TargetCompID(56).</param>
    /// <param name="timestampDigits">Fraction digits of SendingTime: 0, 3, 6 or 9 (anything else: 3).</param>
    /// <param name="writeLastMsgSeqNumProcessed">Write LastMsgSeqNumProcessed(369) in every header.</param>
    /// <param name="maxMessageSize">Largest message the session sends.</param>
    /// <param name="store">The session's store (its next expected inbound number gives 369).</param>
    public SessionHeaderWriter(string beginString, string senderCompId, string targetCompId, int timestampDigits,
        bool writeLastMsgSeqNumProcessed, int maxMessageSize, IMessageStore store)
    {
        _beginString = Encoding.ASCII.GetBytes(beginString);
        _senderCompId = Encoding.ASCII.GetBytes(senderCompId);
        _targetCompId = Encoding.ASCII.GetBytes(targetCompId);
        _precision = timestampDigits switch
        {
            0 => TimestampPrecision.Seconds,
            6 => TimestampPrecision.Micros,
            9 => TimestampPrecision.Nanos,
            _ => TimestampPrecision.Millis,
        };
        _writeLastMsgSeqNumProcessed = writeLastMsgSeqNumProcessed;
        _store = store;
        _maxBufferLength = Math.Max(maxMessageSize, 4096) + HeaderAllowanceBytes;
        _buffer = new byte[Math.Min(InitialBufferBytes, _maxBufferLength)];
    }

    /// <summary>BeginString(8) of the session.</summary>
    public ReadOnlySpan<byte> BeginString => _beginString;

    /// <summary>Our SenderCompID(49).</summary>
    public ReadOnlySpan<byte> SenderCompId => _senderCompId;

    /// <summary>Our TargetCompID(56).</summary>
    public ReadOnlySpan<byte> TargetCompId => _targetCompId;

    /// <summary>Length of the encode buffer now.</summary>
    public int BufferLength => _buffer.Length;

    /// <summary>The length the encode buffer may grow to: MaxMessageSize plus <see cref="HeaderAllowanceBytes"/>.</summary>
    public int MaxBufferLength => _maxBufferLength;

    /// <summary>After a message did not fit: doubles the encode buffer (at most <see cref="MaxBufferLength"/>), so the
    /// caller encodes it again. False when it is already that long (the message is too large).</summary>
    /// <remarks>Writers created before the call keep the old buffer.</remarks>
    public bool TryGrow()
    {
        if (_buffer.Length >= _maxBufferLength) return false;
        _buffer = new byte[(int)Math.Min((long)_buffer.Length * 2, _maxBufferLength)];
        return true;
    }

    /// <summary>Grows the encode buffer, when needed, to hold <paramref name="bytes"/> (at most <see cref="MaxBufferLength"/>).</summary>
    public void EnsureCapacity(int bytes)
    {
        if (bytes <= _buffer.Length || _buffer.Length >= _maxBufferLength) return;
        long length = _buffer.Length;
        while (length < bytes) length *= 2;
        _buffer = new byte[(int)Math.Min(length, _maxBufferLength)];
    }

    /// <summary>A writer over the encode buffer (which holds one message at a time).</summary>
    public FixWriter CreateWriter() => new(_buffer);

    /// <summary>The first <paramref name="length"/> bytes of the encode buffer: the message just finished.</summary>
    public ReadOnlySpan<byte> Encoded(int length) => _buffer.AsSpan(0, length);

    /// <summary>Writes the header of a message with a new sequence number: 8, 9, 35, 34, 49, 52, 56, the routing
    /// fields given (a Reject's reversed routing) and 369 when enabled.</summary>
    public void WriteHeader(ref FixWriter w, ReadOnlySpan<byte> msgType, int seqNum, long epochNs, ref RoutingFields routing)
    {
        w.Begin(_beginString, msgType);
        _msgTypeStart = w.Written - 1 - msgType.Length;
        _msgTypeLength = msgType.Length;
        w.Write(FixTags.MsgSeqNum, seqNum);
        w.Write(FixTags.SenderCompID, _senderCompId);
        _sendingTimeStart = w.Written + 3;
        w.WriteTimestamp(FixTags.SendingTime, epochNs, _precision, _timestampCache);
        _sendingTimeLength = w.Written - 1 - _sendingTimeStart;
        w.Write(FixTags.TargetCompID, _targetCompId);
        _bodyStart = w.Written;
        _laidOutSeqNum = seqNum;
        if (!routing.OnBehalfOfCompId.IsEmpty) w.Write(FixTags.OnBehalfOfCompID, routing.OnBehalfOfCompId);
        if (!routing.OnBehalfOfSubId.IsEmpty) w.Write(FixTags.OnBehalfOfSubID, routing.OnBehalfOfSubId);
        if (!routing.DeliverToCompId.IsEmpty) w.Write(FixTags.DeliverToCompID, routing.DeliverToCompId);
        if (!routing.DeliverToSubId.IsEmpty) w.Write(FixTags.DeliverToSubID, routing.DeliverToSubId);
        if (!routing.OnBehalfOfLocationId.IsEmpty) w.Write(FixTags.OnBehalfOfLocationID, routing.OnBehalfOfLocationId);
        if (!routing.DeliverToLocationId.IsEmpty) w.Write(FixTags.DeliverToLocationID, routing.DeliverToLocationId);
        WriteLastMsgSeqNumProcessed(ref w);
    }

    /// <summary>The resend layout of the message whose header <see cref="WriteHeader"/> wrote last, once it is finished
    /// as <paramref name="message"/> under <paramref name="seqNum"/>; taken once (a second call, or one for another
    /// number, gets none and the store reads the header itself).</summary>
    public ResendLayout TakeLayout(ReadOnlySpan<byte> message, int seqNum)
    {
        if (_laidOutSeqNum != seqNum || seqNum == 0) return default;
        _laidOutSeqNum = 0;
        return ResendLayout.FromEncoder(message, _msgTypeStart, _msgTypeLength, _sendingTimeStart, _sendingTimeLength, _bodyStart);
    }

    /// <summary>Writes the start of the header of a message sent again under the number it replaces: 8, 9, 35, 34,
    /// 43=Y, 49, 52 (now), 56. The caller writes the rest of the header (OrigSendingTime(122) at least).</summary>
    // Resends and GapFills only: optimised at once (ReplayCompilation compiles it ahead).
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public void WritePossDupHeader(ref FixWriter w, ReadOnlySpan<byte> msgType, int seqNum, long epochNs)
    {
        w.Begin(_beginString, msgType);
        w.Write(FixTags.MsgSeqNum, seqNum);
        w.Write(FixTags.PossDupFlag, 'Y');
        w.Write(FixTags.SenderCompID, _senderCompId);
        w.WriteTimestamp(FixTags.SendingTime, epochNs, _precision, _timestampCache);
        w.Write(FixTags.TargetCompID, _targetCompId);
    }

    /// <summary>Writes a UTCTimestamp field in the session's SendingTime format.</summary>
    public void WriteTimestamp(ref FixWriter w, int tag, long epochNs) => w.WriteTimestamp(tag, epochNs, _precision, _timestampCache);

    /// <summary>LastMsgSeqNumProcessed(369), when enabled: the last inbound MsgSeqNum fully processed, i.e. one below
    /// the next expected. A message sent while an inbound message is being processed (a reply from FromApp, a Logon or
    /// Heartbeat answer) therefore carries the number before that message's, as in QuickFIX.</summary>
    public void WriteLastMsgSeqNumProcessed(ref FixWriter w)
    {
        if (_writeLastMsgSeqNumProcessed) w.Write(FixTags.LastMsgSeqNumProcessed, _store.NextTargetMsgSeqNum - 1);
    }

    /// <summary>The text as ASCII bytes (one byte per char, cut at 512), in a scratch buffer valid until the next call.</summary>
    public ReadOnlySpan<byte> Ascii(string? text)
    {
        if (text is null) return default;
        int n = Math.Min(text.Length, _text.Length);
        for (int i = 0; i < n; i++) _text[i] = (byte)text[i];
        return _text.AsSpan(0, n);
    }
}
