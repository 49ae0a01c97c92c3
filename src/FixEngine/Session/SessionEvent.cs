using System.Globalization;
using FixEngine.Logging;

namespace FixEngine.Session;

/// <summary>What a <see cref="SessionEvent"/> reports. Each kind has its own ILogger EventId in the hosting package
/// (docs/operations.md, "Session events", tables the ids and the properties each kind fills).</summary>
public enum SessionEventKind : byte
{
    /// <summary>Any other event: <see cref="SessionEvent.Text"/> says what (a garbled frame, a duplicate, a TestRequest...).</summary>
    Other = 0,

    /// <summary>A connection was attached.</summary>
    Connected,

    /// <summary>The connection ended; <see cref="SessionEvent.Text"/> is the reason.</summary>
    Disconnected,

    /// <summary>The Logon exchange completed; the session is logged on. Raised after our Logon was sent and the
    /// counterparty's was accepted and numbered: <see cref="SessionEvent.Received"/> is its MsgSeqNum(34), and
    /// <see cref="SessionEvent.NextTargetMsgSeqNum"/> is past it (or, when it was higher than expected, the number the
    /// ResendRequest just sent starts from).</summary>
    Logon,

    /// <summary>A Logout was sent (<see cref="SessionEvent.Text"/> = its Text(58)) or received
    /// (<see cref="SessionEvent.ByCounterparty"/>; <see cref="SessionEvent.Text"/> = "request" or "response").</summary>
    Logout,

    /// <summary>A Logon was refused: by the application or by us for its MsgSeqNum (<see cref="SessionEvent.ByCounterparty"/>
    /// false; for the MsgSeqNum, <see cref="SessionEvent.Expected"/> and <see cref="SessionEvent.Received"/> are set), or
    /// ours by the counterparty (true); <see cref="SessionEvent.Text"/> is the reason.</summary>
    LogonRefused,

    /// <summary>An inbound MsgSeqNum was higher than expected: <see cref="SessionEvent.Expected"/>, <see cref="SessionEvent.Received"/>.</summary>
    SequenceGap,

    /// <summary>A ResendRequest was sent (<see cref="SessionEvent.ByCounterparty"/> false) or received (true) for
    /// <see cref="SessionEvent.BeginSeqNo"/>..<see cref="SessionEvent.EndSeqNo"/> (0 = to the end).</summary>
    ResendRequest,

    /// <summary>The expected inbound number moved from <see cref="SessionEvent.Expected"/> to <see cref="SessionEvent.Received"/>
    /// (a SequenceReset), or both sides were reset to 1 (<see cref="SessionEvent.Text"/> says which).</summary>
    SequenceReset,

    /// <summary>A session Reject(3) was sent for <see cref="SessionEvent.RefSeqNum"/>: <see cref="SessionEvent.RefTagId"/>
    /// (0 = none), <see cref="SessionEvent.RejectReason"/> (SessionRejectReason(373), -1 = none), <see cref="SessionEvent.Text"/>.</summary>
    RejectSent,

    /// <summary>The message store failed (<see cref="SessionEvent.Text"/> = the error); the session refuses further sends.</summary>
    StoreFailed,

    /// <summary>The store cannot take writes for a while and the session holds (StoreFailurePolicy=Hold), or it takes
    /// writes again (<see cref="SessionEvent.Text"/> says which and why).</summary>
    StoreHold,

    /// <summary>Another engine took the session's store over (fenced); this one disconnected without a Logout.</summary>
    TakenOver,

    /// <summary>An operator acted on the session: <see cref="SessionEvent.Action"/>, by <see cref="SessionEvent.Actor"/>,
    /// <see cref="SessionEvent.Text"/> = detail.</summary>
    AdminAction,
}

/// <summary>One session event with its properties, as the session produces it: an <see cref="ISessionLog"/> gets it
/// through <see cref="ISessionLog.OnEvent(in SessionEvent, long)"/> and formats it only if it wants text.</summary>
/// <remarks>
/// A value type passed by reference: raising an event builds no string (only <see cref="ToString"/> does, on the log's
/// side). Every event carries the session's <see cref="NextSenderMsgSeqNum"/> and <see cref="NextTargetMsgSeqNum"/> at the
/// time; the other properties are filled as <see cref="SessionEventKind"/> documents, and are 0 (or null) otherwise.
/// </remarks>
public readonly struct SessionEvent
{
    internal SessionEvent(SessionEventKind kind, LogLevel level, string? text, int nextSender, int nextTarget)
    {
        Kind = kind;
        Level = level;
        Text = text;
        NextSenderMsgSeqNum = nextSender;
        NextTargetMsgSeqNum = nextTarget;
        RejectReason = -1;
    }

    /// <summary>What happened.</summary>
    public SessionEventKind Kind { get; }

    /// <summary>The severity (see <see cref="ISessionLog.OnEvent(LogLevel, string, long)"/> for the levels the session uses).</summary>
    public LogLevel Level { get; }

    /// <summary>The reason, detail or (for <see cref="SessionEventKind.Other"/>) the whole text; null when the kind has none.</summary>
    public string? Text { get; }

    /// <summary>MsgSeqNum(34) of the next message the session sends, when the event was raised.</summary>
    public int NextSenderMsgSeqNum { get; }

    /// <summary>MsgSeqNum(34) the session expects next, when the event was raised.</summary>
    public int NextTargetMsgSeqNum { get; }

    /// <summary>True when the counterparty did it (a Logout or ResendRequest received, our Logon refused by it).</summary>
    public bool ByCounterparty { get; init; }

    /// <summary>The expected MsgSeqNum (gap), or the old expected number (SequenceReset).</summary>
    public int Expected { get; init; }

    /// <summary>The MsgSeqNum received (gap, the counterparty's Logon), or the new expected number (SequenceReset).</summary>
    public int Received { get; init; }

    /// <summary>BeginSeqNo(7) of a ResendRequest.</summary>
    public int BeginSeqNo { get; init; }

    /// <summary>EndSeqNo(16) of a ResendRequest (0 = to the end).</summary>
    public int EndSeqNo { get; init; }

    /// <summary>RefSeqNum(45) of a Reject (-1 when the rejected message had none).</summary>
    public int RefSeqNum { get; init; }

    /// <summary>RefTagID(371) of a Reject (0 = none).</summary>
    public int RefTagId { get; init; }

    /// <summary>SessionRejectReason(373) of a Reject (-1 = none).</summary>
    public int RejectReason { get; init; }

    /// <summary>The operator action (<see cref="SessionEventKind.AdminAction"/>), e.g. <c>reset</c>, <c>logout</c>.</summary>
    public string? Action { get; init; }

    /// <summary>Who acted (<see cref="SessionEventKind.AdminAction"/>): the authenticated user name, or null.</summary>
    public string? Actor { get; init; }

    /// <summary>The event as one line of text (the text the session logged before events had properties).</summary>
    /// <returns>The text; allocates.</returns>
    public override string ToString()
    {
        CultureInfo inv = CultureInfo.InvariantCulture;
        return Kind switch
        {
            SessionEventKind.Connected => "Connected",
            SessionEventKind.Disconnected => "Disconnected: " + Text,
            SessionEventKind.Logon => "Logon received; logged on",
            SessionEventKind.Logout => ByCounterparty ? "Received Logout " + Text : "Sent Logout: " + Text,
            SessionEventKind.LogonRefused => ByCounterparty ? "Logout received before logon completed: " + Text
                : Expected != 0 ? "Logon refused: " + Text
                : "Logon refused by the application: " + Text,
            SessionEventKind.SequenceGap => string.Format(inv, "MsgSeqNum too high, expecting {0} but received {1}", Expected, Received),
            SessionEventKind.ResendRequest => string.Format(inv, ByCounterparty ? "Received ResendRequest from {0} to {1}" : "Sent ResendRequest from {0} to {1}", BeginSeqNo, EndSeqNo),
            SessionEventKind.SequenceReset => Text ?? string.Format(inv, "SequenceReset: next expected inbound {0} -> {1}", Expected, Received),
            SessionEventKind.RejectSent => "Sent Reject: " + Text + (RefTagId != 0 ? " tag " + RefTagId.ToString(inv) : ""),
            SessionEventKind.StoreFailed => "Message store failed: " + Text + " Disconnecting without a Logout (the store cannot number one); the session refuses further sends",
            SessionEventKind.TakenOver => "Message store failed: " + Text + " Another engine holds the session now: disconnecting without a Logout; the session refuses further sends",
            SessionEventKind.AdminAction => "Operator " + (Actor ?? "(unknown)") + ": " + Action + (Text is null ? "" : ": " + Text),
            _ => Text ?? Kind.ToString(),
        };
    }
}
