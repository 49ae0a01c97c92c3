using System;
using System.Globalization;
using System.Text;
using FixEngine.Codec;

namespace FixEngine.Session;

// Role: the limits of sequence numbers, checked before a number is used so that no store increment can fail.
// - Every inbound message needs MsgSeqNum(34), a positive 32-bit integer: without one it cannot be sequenced, so the
//   session logs out naming the problem ("MsgSeqNum(34) missing", "... invalid", "... out of range") and disconnects.
//   A SequenceReset-Reset (no GapFillFlag=Y) is the exception: FIX ignores its own MsgSeqNum, only NewSeqNo counts.
// - The store keeps the next numbers as int, so int.MaxValue (2147483647) can be the next number but never be
//   consumed: the largest usable MsgSeqNum is MaxUsableMsgSeqNum (2147483646), in both directions.
//   Inbound: a message numbered 2147483647 is refused (Logout with the reason, disconnect) before the application sees
//   it; a SequenceReset whose NewSeqNo(36) could not be followed is rejected (FixSession.Admin). Outbound: once our next
//   number is within SenderSeqNumReserve of the top, the session logs out with the reason instead of processing the
//   next inbound message or draining the outbox (enough numbers are left for what one message or one Poll sends).
// - Recovery: reset the sequence numbers (a Logon with ResetSeqNumFlag(141)=Y from either side, ResetOnLogon=Y, or
//   FixSession.ResetSequenceNumbers while disconnected).

public sealed partial class FixSession
{
    /// <summary>The largest MsgSeqNum(34) a session consumes, in either direction: 2147483646 (int.MaxValue - 1).</summary>
    /// <remarks>The next number after it, int.MaxValue, could be expected but never consumed (the next one after that
    /// does not fit in MsgSeqNum's 32-bit range), so a message numbered int.MaxValue is refused with a Logout and a
    /// SequenceReset to it is rejected. Reset the sequence numbers (ResetSeqNumFlag(141)=Y) to go on.</remarks>
    public const int MaxUsableMsgSeqNum = int.MaxValue - 1;

    /// <summary>Outbound sequence numbers kept back at the top of the range: once <see cref="NextSenderMsgSeqNum"/> is
    /// above <c>int.MaxValue - SenderSeqNumReserve</c> the session logs out (reason in Text(58) and the log).</summary>
    /// <remarks>Covers what the session and the application send while one inbound message or one Poll is processed.</remarks>
    public const int SenderSeqNumReserve = 1 << 16;

    private const int MaxEchoedValueLength = 24;

    // ProcessFrame, before the message is validated or acted on: MsgSeqNum must be usable and our own sequence must have
    // room. Returns false when the session logged out (or disconnected) instead.
    private bool CheckSequenceLimits(FixMessage message, bool isLogon, long epochNs)
    {
        // A SequenceReset-Reset's own MsgSeqNum is ignored (FIX): only its NewSeqNo(36) matters (OnSequenceReset).
        bool ignoresSeqNum = IsSequenceResetReset(message);
        FixValueStatus status = message.TryGetInt(FixTags.MsgSeqNum, out int seq);
        if ((status != FixValueStatus.Ok || seq < 1) && !ignoresSeqNum)
        {
            RefuseSequence(InvalidSeqNumText(message, FixTags.MsgSeqNum, status, seq, "MsgSeqNum"), epochNs);
            return false;
        }
        bool resetLogon = isLogon && message.TryGetBool(FixTags.ResetSeqNumFlag, out bool reset) == FixValueStatus.Ok && reset;
        if (seq > MaxUsableMsgSeqNum && !ignoresSeqNum)
        {
            RefuseSequence("MsgSeqNum(34) " + seq + " cannot be processed: it is the largest sequence number and none can follow it;"
                + " reset the sequence numbers (Logon with ResetSeqNumFlag(141)=Y)", epochNs);
            return false;
        }
        if (!resetLogon && _state != SessionState.LogoutSent && !HasSenderSeqRoom(epochNs)) return false;
        return true;
    }

    // True while our next MsgSeqNum leaves SenderSeqNumReserve numbers below int.MaxValue; otherwise logs out (once).
    private bool HasSenderSeqRoom(long epochNs)
    {
        int next = _store.NextSenderMsgSeqNum;
        if (next <= int.MaxValue - SenderSeqNumReserve) return true;
        if (_state is SessionState.LogoutSent || _connection is null) return false;
        RefuseSequence("our MsgSeqNum(34) reached " + next + ", too near the largest (" + int.MaxValue + ") to go on;"
            + " reset the sequence numbers (Logon with ResetSeqNumFlag(141)=Y, ResetOnLogon=Y or ResetSequenceNumbers)", epochNs);
        return false;
    }

    // Logout with the reason (when logged on) and disconnect: the message cannot be sequenced.
    private void RefuseSequence(string text, long epochNs)
    {
        Raise(SessionEventKind.Other, Logging.LogLevel.Error, text, epochNs);
        // In answer to the peer's Logon too: the peer learns why (as for a refused Logon). Not before any Logon was
        // exchanged (an initiator connecting) and not twice.
        if (_state is SessionState.LoggedOn or SessionState.AwaitingLogon or SessionState.LogonSent
            && _store.NextSenderMsgSeqNum <= MaxUsableMsgSeqNum)
        {
            SendLogout(epochNs, text);
        }
        Disconnect(text, epochNs);
    }

    private static bool IsSequenceResetReset(FixMessage message) =>
        message.MsgType.SequenceEqual(MsgTypes.SequenceReset)
        && !(message.TryGetBool(FixTags.GapFillFlag, out bool gapFill) == FixValueStatus.Ok && gapFill);

    // Why a sequence number field (34, 7, 16, 36) cannot be used, naming the tag and the value received (printable
    // ASCII, cut short). Error path only (allocates).
    private static string InvalidSeqNumText(FixMessage message, int tag, FixValueStatus status, int value, string name)
    {
        string field = name + "(" + tag.ToString(CultureInfo.InvariantCulture) + ")";
        if (status == FixValueStatus.Missing) return field + " missing";
        if (status == FixValueStatus.Ok) return field + " invalid: " + value.ToString(CultureInfo.InvariantCulture) + " (must be at least 1)";
        string echoed = Echo(message.TryGetSpan(tag, out ReadOnlySpan<byte> raw) ? raw : default);
        return IsOutOfIntRange(message, tag)
            ? field + " out of range: '" + echoed + "' (the largest is " + int.MaxValue.ToString(CultureInfo.InvariantCulture) + ")"
            : field + " invalid: '" + echoed + "' is not an integer";
    }

    // True for an all-digit (optionally signed) value too large for an int, as opposed to one that is not a number.
    private static bool IsOutOfIntRange(FixMessage message, int tag)
    {
        if (!message.TryGetSpan(tag, out ReadOnlySpan<byte> raw) || raw.IsEmpty) return false;
        ReadOnlySpan<byte> digits = raw[0] is (byte)'-' or (byte)'+' ? raw.Slice(1) : raw;
        return !digits.IsEmpty && digits.IndexOfAnyExceptInRange((byte)'0', (byte)'9') < 0;
    }

    private static string Echo(ReadOnlySpan<byte> raw)
    {
        var text = new StringBuilder(Math.Min(raw.Length, MaxEchoedValueLength) + 3);
        for (int i = 0; i < raw.Length && i < MaxEchoedValueLength; i++)
        {
            byte b = raw[i];
            text.Append(b is >= 0x20 and < 0x7F and not (byte)'\'' ? (char)b : '?');
        }
        if (raw.Length > MaxEchoedValueLength) text.Append("...");
        return text.ToString();
    }

    // A sequence number field of an admin message (BeginSeqNo, EndSeqNo, NewSeqNo) that cannot be used: the session
    // Reject names the tag (373=1 missing, 6 not a number, 5 out of range) and the log says why.
    private void RejectSeqNumField(FixMessage message, int tag, string name, FixValueStatus status, int value, string? why, long epochNs)
    {
        int reason = status switch
        {
            FixValueStatus.Missing => SessionRejectReason.RequiredTagMissing,
            FixValueStatus.IncorrectDataFormat when !IsOutOfIntRange(message, tag) => SessionRejectReason.IncorrectDataFormat,
            _ => SessionRejectReason.ValueIsIncorrect,
        };
        string text = why ?? InvalidSeqNumText(message, tag, status, value, name);
        Raise(SessionEventKind.Other, Logging.LogLevel.Warning, "Rejected " + (message.MsgType.SequenceEqual(MsgTypes.ResendRequest) ? "ResendRequest" : "SequenceReset") + ": " + text, epochNs);
        RejectAndConsume(message, epochNs, reason, tag, true, text);
    }
}
