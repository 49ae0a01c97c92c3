using FixEngine.Session;
using Microsoft.Extensions.Logging;
using P = FixEngine.Session.SessionEventProperties;

namespace FixEngine.DependencyInjection;

/// <summary>The session events' ILogger messages: one EventId and named properties per <see cref="SessionEventKind"/>
/// (source-generated <see cref="LoggerMessageAttribute"/>; the table is in docs/operations.md, "Session events"). The
/// templates' names and the values filled in are the core's <see cref="SessionEventProperties"/> (the console's tail
/// shows the same), in the table's order.</summary>
/// <remarks>Every message carries <c>NextSenderMsgSeqNum</c> and <c>NextTargetMsgSeqNum</c>. The level is the event's
/// (the session's choice, see <see cref="ISessionLog.OnEvent(FixEngine.Logging.LogLevel, string, long)"/>). The ids and
/// names are the core's <see cref="SessionEventIds"/> (the admin console's live tail shows the same): a contract, never
/// renumber one.</remarks>
internal static partial class SessionEventLog
{
    /// <summary>EventId of events without properties of their own (<see cref="SessionEventKind.Other"/>): <c>{Event}</c> is the text.</summary>
    internal const int OtherId = SessionEventIds.Other;

    /// <summary>Writes one structured event (the caller checked <see cref="ILogger.IsEnabled"/>).</summary>
    /// <param name="logger">The session's logger.</param>
    /// <param name="level">The level to log at.</param>
    /// <param name="e">The event.</param>
    internal static void Write(ILogger logger, LogLevel level, in SessionEvent e)
    {
        int s = e.NextSenderMsgSeqNum, t = e.NextTargetMsgSeqNum;
        switch (e.Kind)
        {
            case SessionEventKind.Connected: Connected(logger, level, s, t); break;
            case SessionEventKind.Disconnected: Disconnected(logger, level, e.Text, s, t); break;
            case SessionEventKind.Logon: Logon(logger, level, e.Received, s, t); break;
            case SessionEventKind.Logout: Logout(logger, level, P.DirectionOf(in e), e.Text, s, t); break;
            case SessionEventKind.LogonRefused:
                LogonRefused(logger, level, P.RefusedByOf(in e), e.Text, e.Expected, e.Received, s, t);
                break;
            case SessionEventKind.SequenceGap: SequenceGap(logger, level, e.Expected, e.Received, s, t); break;
            case SessionEventKind.ResendRequest: ResendRequest(logger, level, P.DirectionOf(in e), e.BeginSeqNo, e.EndSeqNo, s, t); break;
            case SessionEventKind.SequenceReset:
                if (e.Text is null) SequenceReset(logger, level, e.Expected, e.Received, s, t);
                else SequencesReset(logger, level, e.Text, s, t);
                break;
            case SessionEventKind.RejectSent: RejectSent(logger, level, e.RefSeqNum, e.RefTagId, e.RejectReason, e.Text, s, t); break;
            case SessionEventKind.StoreFailed: StoreFailed(logger, level, e.Text, s, t); break;
            case SessionEventKind.StoreHold: StoreHold(logger, level, e.Text, s, t); break;
            case SessionEventKind.TakenOver: TakenOver(logger, level, e.Text, s, t); break;
            case SessionEventKind.AdminAction: AdminAction(logger, level, e.Action, e.Actor, e.Text, s, t); break;
            default: Other(logger, level, e.ToString()); break;
        }
    }

    // Every template ends with the two numbers (Other excepted).
    private const string Numbers = " (next sender {" + P.NextSenderMsgSeqNum + "}, next target {" + P.NextTargetMsgSeqNum + "})";

    /// <summary>EventId 1 SessionEvent.</summary>
    [LoggerMessage(EventId = SessionEventIds.Other, EventName = SessionEventIds.OtherName, Message = "{" + P.Event + "}")]
    // The parameter is named as the property ("Event"): the generator names a property after an escaped keyword
    // parameter (@event) as "@event", which is not the documented name.
    internal static partial void Other(ILogger logger, LogLevel level, string Event);

    [LoggerMessage(EventId = SessionEventIds.Connected, EventName = nameof(SessionEventIds.Connected), Message = "Connected" + Numbers)]
    private static partial void Connected(ILogger logger, LogLevel level, int nextSenderMsgSeqNum, int nextTargetMsgSeqNum);

    [LoggerMessage(EventId = SessionEventIds.Disconnected, EventName = nameof(SessionEventIds.Disconnected), Message = "Disconnected: {" + P.Reason + "}" + Numbers)]
    private static partial void Disconnected(ILogger logger, LogLevel level, string? reason, int nextSenderMsgSeqNum, int nextTargetMsgSeqNum);

    [LoggerMessage(EventId = SessionEventIds.Logon, EventName = nameof(SessionEventIds.Logon), Message = "Logon completed; logged on (their Logon {" + P.ReceivedMsgSeqNum + "}; next sender {" + P.NextSenderMsgSeqNum + "}, next target {" + P.NextTargetMsgSeqNum + "})")]
    private static partial void Logon(ILogger logger, LogLevel level, int receivedMsgSeqNum, int nextSenderMsgSeqNum, int nextTargetMsgSeqNum);

    [LoggerMessage(EventId = SessionEventIds.Logout, EventName = nameof(SessionEventIds.Logout), Message = "{" + P.Direction + "} Logout: {" + P.Reason + "}" + Numbers)]
    private static partial void Logout(ILogger logger, LogLevel level, string direction, string? reason, int nextSenderMsgSeqNum, int nextTargetMsgSeqNum);

    [LoggerMessage(EventId = SessionEventIds.LogonRefused, EventName = nameof(SessionEventIds.LogonRefused), Message = "Logon refused by the {" + P.RefusedBy + "}: {" + P.Reason + "} (expected {" + P.ExpectedMsgSeqNum + "}, received {" + P.ReceivedMsgSeqNum + "}; next sender {" + P.NextSenderMsgSeqNum + "}, next target {" + P.NextTargetMsgSeqNum + "})")]
    private static partial void LogonRefused(ILogger logger, LogLevel level, string refusedBy, string? reason, int expectedMsgSeqNum, int receivedMsgSeqNum, int nextSenderMsgSeqNum, int nextTargetMsgSeqNum);

    [LoggerMessage(EventId = SessionEventIds.SequenceGap, EventName = nameof(SessionEventIds.SequenceGap), Message = "MsgSeqNum too high, expecting {" + P.ExpectedMsgSeqNum + "} but received {" + P.ReceivedMsgSeqNum + "}" + Numbers)]
    private static partial void SequenceGap(ILogger logger, LogLevel level, int expectedMsgSeqNum, int receivedMsgSeqNum, int nextSenderMsgSeqNum, int nextTargetMsgSeqNum);

    [LoggerMessage(EventId = SessionEventIds.ResendRequest, EventName = nameof(SessionEventIds.ResendRequest), Message = "{" + P.Direction + "} ResendRequest from {" + P.BeginSeqNo + "} to {" + P.EndSeqNo + "}" + Numbers)]
    private static partial void ResendRequest(ILogger logger, LogLevel level, string direction, int beginSeqNo, int endSeqNo, int nextSenderMsgSeqNum, int nextTargetMsgSeqNum);

    [LoggerMessage(EventId = SessionEventIds.SequenceReset, EventName = nameof(SessionEventIds.SequenceReset), Message = "SequenceReset: next expected inbound {" + P.ExpectedMsgSeqNum + "} -> {" + P.NewSeqNo + "}" + Numbers)]
    private static partial void SequenceReset(ILogger logger, LogLevel level, int expectedMsgSeqNum, int newSeqNo, int nextSenderMsgSeqNum, int nextTargetMsgSeqNum);

    [LoggerMessage(EventId = SessionEventIds.SequenceNumbersReset, EventName = nameof(SessionEventIds.SequenceNumbersReset), Message = "{" + P.Reason + "}" + Numbers)]
    private static partial void SequencesReset(ILogger logger, LogLevel level, string reason, int nextSenderMsgSeqNum, int nextTargetMsgSeqNum);

    [LoggerMessage(EventId = SessionEventIds.RejectSent, EventName = nameof(SessionEventIds.RejectSent), Message = "Sent Reject of {" + P.RefSeqNum + "}: tag {" + P.RefTagId + "}, reason {" + P.SessionRejectReason + "}: {" + P.Reason + "}" + Numbers)]
    private static partial void RejectSent(ILogger logger, LogLevel level, int refSeqNum, int refTagId, int sessionRejectReason, string? reason, int nextSenderMsgSeqNum, int nextTargetMsgSeqNum);

    [LoggerMessage(EventId = SessionEventIds.StoreFailed, EventName = nameof(SessionEventIds.StoreFailed), Message = "Message store failed: {" + P.Reason + "} Disconnecting without a Logout; the session refuses further sends" + Numbers)]
    private static partial void StoreFailed(ILogger logger, LogLevel level, string? reason, int nextSenderMsgSeqNum, int nextTargetMsgSeqNum);

    [LoggerMessage(EventId = SessionEventIds.StoreHold, EventName = nameof(SessionEventIds.StoreHold), Message = "{" + P.Reason + "}" + Numbers)]
    private static partial void StoreHold(ILogger logger, LogLevel level, string? reason, int nextSenderMsgSeqNum, int nextTargetMsgSeqNum);

    [LoggerMessage(EventId = SessionEventIds.TakenOver, EventName = nameof(SessionEventIds.TakenOver), Message = "Session taken over by another engine: {" + P.Reason + "} Disconnected without a Logout" + Numbers)]
    private static partial void TakenOver(ILogger logger, LogLevel level, string? reason, int nextSenderMsgSeqNum, int nextTargetMsgSeqNum);

    [LoggerMessage(EventId = SessionEventIds.AdminAction, EventName = nameof(SessionEventIds.AdminAction), Message = "Admin action {" + P.Action + "} by {" + P.Actor + "}: {" + P.Detail + "}" + Numbers)]
    private static partial void AdminAction(ILogger logger, LogLevel level, string? action, string? actor, string? detail, int nextSenderMsgSeqNum, int nextTargetMsgSeqNum);
}
