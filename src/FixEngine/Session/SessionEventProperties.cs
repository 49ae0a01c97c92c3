using System;
using System.Collections.Generic;

namespace FixEngine.Session;

/// <summary>The named properties of each session event, in one table beside <see cref="SessionEventIds"/>: which names an
/// event of each id carries and where each value comes from in the <see cref="SessionEvent"/>. The ILogger bridge of
/// FixEngine.Extensions.Hosting builds its message templates from these names and fills them with these values, and the
/// admin console's live tail shows the same list (docs/operations.md, "Session events"). A contract, like the ids: log
/// queries select on the names.</summary>
internal static class SessionEventProperties
{
    // The names.
    internal const string Event = "Event";
    internal const string Reason = "Reason";
    internal const string Direction = "Direction";
    internal const string RefusedBy = "RefusedBy";
    internal const string ExpectedMsgSeqNum = "ExpectedMsgSeqNum";
    internal const string ReceivedMsgSeqNum = "ReceivedMsgSeqNum";
    internal const string NewSeqNo = "NewSeqNo";
    internal const string BeginSeqNo = "BeginSeqNo";
    internal const string EndSeqNo = "EndSeqNo";
    internal const string RefSeqNum = "RefSeqNum";
    internal const string RefTagId = "RefTagId";
    internal const string SessionRejectReason = "SessionRejectReason";
    internal const string Action = "Action";
    internal const string Actor = "Actor";
    internal const string Detail = "Detail";
    internal const string NextSenderMsgSeqNum = "NextSenderMsgSeqNum";
    internal const string NextTargetMsgSeqNum = "NextTargetMsgSeqNum";

    /// <summary>The value of <see cref="Direction"/>: Received (the counterparty sent it) or Sent.</summary>
    internal static string DirectionOf(in SessionEvent e) => e.ByCounterparty ? "Received" : "Sent";

    /// <summary>The value of <see cref="RefusedBy"/>: counterparty (ours refused), sequence (theirs, for its MsgSeqNum)
    /// or application (theirs, by FromAdmin).</summary>
    internal static string RefusedByOf(in SessionEvent e) => e.ByCounterparty ? "counterparty" : e.Expected != 0 ? "sequence" : "application";

    /// <summary>Reads one property's value from an event.</summary>
    internal delegate object? Read(in SessionEvent e);

    /// <summary>One named property and where its value comes from.</summary>
    internal readonly record struct Property(string Name, Read Value);

    private static readonly Property s_reason = new(Reason, (in SessionEvent e) => e.Text);
    private static readonly Property s_direction = new(Direction, (in SessionEvent e) => DirectionOf(in e));
    private static readonly Property s_expected = new(ExpectedMsgSeqNum, (in SessionEvent e) => e.Expected);
    private static readonly Property s_received = new(ReceivedMsgSeqNum, (in SessionEvent e) => e.Received);
    private static readonly Property s_nextSender = new(NextSenderMsgSeqNum, (in SessionEvent e) => e.NextSenderMsgSeqNum);
    private static readonly Property s_nextTarget = new(NextTargetMsgSeqNum, (in SessionEvent e) => e.NextTargetMsgSeqNum);

    // The table, by EventId: every event but Other ends with the two next sequence numbers.
    private static readonly Property[][] s_byEventId = CreateTable();

    private static Property[][] CreateTable()
    {
        var table = new Property[SessionEventIds.AdminAction + 1][];
        Property[] With(params Property[] own) => [.. own, s_nextSender, s_nextTarget];
        table[SessionEventIds.Other] = [new(Event, (in SessionEvent e) => e.ToString())];
        table[SessionEventIds.Connected] = With();
        table[SessionEventIds.Disconnected] = With(s_reason);
        table[SessionEventIds.Logon] = With(s_received);
        table[SessionEventIds.Logout] = With(s_direction, s_reason);
        table[SessionEventIds.LogonRefused] = With(new(RefusedBy, (in SessionEvent e) => RefusedByOf(in e)), s_reason, s_expected, s_received);
        table[SessionEventIds.SequenceGap] = With(s_expected, s_received);
        table[SessionEventIds.ResendRequest] = With(s_direction, new(BeginSeqNo, (in SessionEvent e) => e.BeginSeqNo), new(EndSeqNo, (in SessionEvent e) => e.EndSeqNo));
        table[SessionEventIds.SequenceReset] = With(s_expected, new(NewSeqNo, (in SessionEvent e) => e.Received));
        table[SessionEventIds.SequenceNumbersReset] = With(s_reason);
        table[SessionEventIds.RejectSent] = With(new(RefSeqNum, (in SessionEvent e) => e.RefSeqNum), new(RefTagId, (in SessionEvent e) => e.RefTagId),
            new(SessionRejectReason, (in SessionEvent e) => e.RejectReason), s_reason);
        table[SessionEventIds.StoreFailed] = With(s_reason);
        table[SessionEventIds.StoreHold] = With(s_reason);
        table[SessionEventIds.TakenOver] = With(s_reason);
        table[SessionEventIds.AdminAction] = With(new(Action, (in SessionEvent e) => e.Action), new(Actor, (in SessionEvent e) => e.Actor),
            new(Detail, (in SessionEvent e) => e.Text));
        return table;
    }

    /// <summary>The properties an event of <paramref name="eventId"/> carries, in the order of its message template.</summary>
    internal static ReadOnlySpan<Property> Of(int eventId) => s_byEventId[eventId];

    /// <summary>The event's properties with their values (allocates: for the console's tail, not for the message path).</summary>
    internal static KeyValuePair<string, object?>[] Values(in SessionEvent e)
    {
        ReadOnlySpan<Property> properties = Of(SessionEventIds.Of(in e).Id);
        var values = new KeyValuePair<string, object?>[properties.Length];
        for (int i = 0; i < properties.Length; i++) values[i] = new(properties[i].Name, properties[i].Value(in e));
        return values;
    }
}
