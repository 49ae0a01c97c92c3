using FixEngine.Session;
using Microsoft.Extensions.Logging;

namespace FixEngine.DependencyInjection;

/// <summary>The session events' ILogger messages: one EventId and named properties per <see cref="SessionEventKind"/>
/// (source-generated <see cref="LoggerMessageAttribute"/>; the table is in docs/operations.md, "Session events").</summary>
/// <remarks>Every message carries <c>NextSenderMsgSeqNum</c> and <c>NextTargetMsgSeqNum</c>. The level is the event's
/// (the session's choice, see <see cref="ISessionLog.OnEvent(FixEngine.Logging.LogLevel, string, long)"/>). The ids are a
/// contract: log queries and alerts select on them; never renumber one.</remarks>
internal static partial class SessionEventLog
{
    /// <summary>EventId of events without properties of their own (<see cref="SessionEventKind.Other"/>): <c>{Event}</c> is the text.</summary>
    internal const int OtherId = 1;

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
            case SessionEventKind.Logon: Logon(logger, level, s, t); break;
            case SessionEventKind.Logout: Logout(logger, level, e.ByCounterparty ? "Received" : "Sent", e.Text, s, t); break;
            case SessionEventKind.LogonRefused:
                LogonRefused(logger, level, e.ByCounterparty ? "counterparty" : e.Expected != 0 ? "sequence" : "application", e.Text, e.Expected, e.Received, s, t);
                break;
            case SessionEventKind.SequenceGap: SequenceGap(logger, level, e.Expected, e.Received, s, t); break;
            case SessionEventKind.ResendRequest: ResendRequest(logger, level, e.ByCounterparty ? "Received" : "Sent", e.BeginSeqNo, e.EndSeqNo, s, t); break;
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

    /// <summary>EventId 1 SessionEvent.</summary>
    [LoggerMessage(EventId = OtherId, EventName = "SessionEvent", Message = "{Event}")]
    internal static partial void Other(ILogger logger, LogLevel level, string @event);

    [LoggerMessage(EventId = 2, EventName = "Connected", Message = "Connected (next sender {NextSenderMsgSeqNum}, next target {NextTargetMsgSeqNum})")]
    private static partial void Connected(ILogger logger, LogLevel level, int nextSenderMsgSeqNum, int nextTargetMsgSeqNum);

    [LoggerMessage(EventId = 3, EventName = "Disconnected", Message = "Disconnected: {Reason} (next sender {NextSenderMsgSeqNum}, next target {NextTargetMsgSeqNum})")]
    private static partial void Disconnected(ILogger logger, LogLevel level, string? reason, int nextSenderMsgSeqNum, int nextTargetMsgSeqNum);

    [LoggerMessage(EventId = 4, EventName = "Logon", Message = "Logon completed; logged on (next sender {NextSenderMsgSeqNum}, next target {NextTargetMsgSeqNum})")]
    private static partial void Logon(ILogger logger, LogLevel level, int nextSenderMsgSeqNum, int nextTargetMsgSeqNum);

    [LoggerMessage(EventId = 5, EventName = "Logout", Message = "{Direction} Logout: {Reason} (next sender {NextSenderMsgSeqNum}, next target {NextTargetMsgSeqNum})")]
    private static partial void Logout(ILogger logger, LogLevel level, string direction, string? reason, int nextSenderMsgSeqNum, int nextTargetMsgSeqNum);

    [LoggerMessage(EventId = 6, EventName = "LogonRefused", Message = "Logon refused by the {RefusedBy}: {Reason} (expected {ExpectedMsgSeqNum}, received {ReceivedMsgSeqNum}; next sender {NextSenderMsgSeqNum}, next target {NextTargetMsgSeqNum})")]
    private static partial void LogonRefused(ILogger logger, LogLevel level, string refusedBy, string? reason, int expectedMsgSeqNum, int receivedMsgSeqNum, int nextSenderMsgSeqNum, int nextTargetMsgSeqNum);

    [LoggerMessage(EventId = 7, EventName = "SequenceGap", Message = "MsgSeqNum too high, expecting {ExpectedMsgSeqNum} but received {ReceivedMsgSeqNum} (next sender {NextSenderMsgSeqNum}, next target {NextTargetMsgSeqNum})")]
    private static partial void SequenceGap(ILogger logger, LogLevel level, int expectedMsgSeqNum, int receivedMsgSeqNum, int nextSenderMsgSeqNum, int nextTargetMsgSeqNum);

    [LoggerMessage(EventId = 8, EventName = "ResendRequest", Message = "{Direction} ResendRequest from {BeginSeqNo} to {EndSeqNo} (next sender {NextSenderMsgSeqNum}, next target {NextTargetMsgSeqNum})")]
    private static partial void ResendRequest(ILogger logger, LogLevel level, string direction, int beginSeqNo, int endSeqNo, int nextSenderMsgSeqNum, int nextTargetMsgSeqNum);

    [LoggerMessage(EventId = 9, EventName = "SequenceReset", Message = "SequenceReset: next expected inbound {ExpectedMsgSeqNum} -> {NewSeqNo} (next sender {NextSenderMsgSeqNum}, next target {NextTargetMsgSeqNum})")]
    private static partial void SequenceReset(ILogger logger, LogLevel level, int expectedMsgSeqNum, int newSeqNo, int nextSenderMsgSeqNum, int nextTargetMsgSeqNum);

    [LoggerMessage(EventId = 10, EventName = "SequenceNumbersReset", Message = "{Reason} (next sender {NextSenderMsgSeqNum}, next target {NextTargetMsgSeqNum})")]
    private static partial void SequencesReset(ILogger logger, LogLevel level, string reason, int nextSenderMsgSeqNum, int nextTargetMsgSeqNum);

    [LoggerMessage(EventId = 11, EventName = "RejectSent", Message = "Sent Reject of {RefSeqNum}: tag {RefTagId}, reason {SessionRejectReason}: {Reason} (next sender {NextSenderMsgSeqNum}, next target {NextTargetMsgSeqNum})")]
    private static partial void RejectSent(ILogger logger, LogLevel level, int refSeqNum, int refTagId, int sessionRejectReason, string? reason, int nextSenderMsgSeqNum, int nextTargetMsgSeqNum);

    [LoggerMessage(EventId = 12, EventName = "StoreFailed", Message = "Message store failed: {Reason} Disconnecting without a Logout; the session refuses further sends (next sender {NextSenderMsgSeqNum}, next target {NextTargetMsgSeqNum})")]
    private static partial void StoreFailed(ILogger logger, LogLevel level, string? reason, int nextSenderMsgSeqNum, int nextTargetMsgSeqNum);

    [LoggerMessage(EventId = 13, EventName = "StoreHold", Message = "{Reason} (next sender {NextSenderMsgSeqNum}, next target {NextTargetMsgSeqNum})")]
    private static partial void StoreHold(ILogger logger, LogLevel level, string? reason, int nextSenderMsgSeqNum, int nextTargetMsgSeqNum);

    [LoggerMessage(EventId = 14, EventName = "TakenOver", Message = "Session taken over by another engine: {Reason} Disconnected without a Logout (next sender {NextSenderMsgSeqNum}, next target {NextTargetMsgSeqNum})")]
    private static partial void TakenOver(ILogger logger, LogLevel level, string? reason, int nextSenderMsgSeqNum, int nextTargetMsgSeqNum);

    [LoggerMessage(EventId = 15, EventName = "AdminAction", Message = "Admin action {Action} by {Actor}: {Detail} (next sender {NextSenderMsgSeqNum}, next target {NextTargetMsgSeqNum})")]
    private static partial void AdminAction(ILogger logger, LogLevel level, string? action, string? actor, string? detail, int nextSenderMsgSeqNum, int nextTargetMsgSeqNum);
}
