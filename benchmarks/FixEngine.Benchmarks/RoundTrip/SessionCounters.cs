using System;
using System.Collections.Generic;
using System.Globalization;
using FixEngine.Session;

namespace FixEngine.Benchmarks.RoundTrip;

/// <summary>One FIX session's sequence numbers and recovery counters at the end of a run: what the report uses to say
/// whether replies a run missed were lost by the engine, were still in flight, or were miscounted by the harness.</summary>
/// <param name="Side">initiator or acceptor.</param>
/// <param name="LoggedOn">Whether the session was logged on when read.</param>
/// <param name="NextSenderMsgSeqNum">The session's next outbound MsgSeqNum (messages sent + 1).</param>
/// <param name="NextTargetMsgSeqNum">The session's next expected inbound MsgSeqNum (messages processed + 1).</param>
/// <param name="GapsDetected">Inbound messages that arrived with a MsgSeqNum above the expected one.</param>
/// <param name="ResendRequestsSent">ResendRequests the session sent.</param>
/// <param name="ResendRequestsReceived">ResendRequests the session answered.</param>
/// <param name="SendBackpressure">Messages the transport refused because its send queue was full.</param>
/// <param name="SendBacklogHighWaterBytes">Most bytes the session held back for the transport at once.</param>
/// <param name="QueuedMessages">Early inbound messages waiting for a gap to be filled.</param>
public readonly record struct SessionSideCounters(
    string Side, bool LoggedOn, int NextSenderMsgSeqNum, int NextTargetMsgSeqNum, long GapsDetected, long ResendRequestsSent,
    long ResendRequestsReceived, long SendBackpressure, long SendBacklogHighWaterBytes, int QueuedMessages)
{
    private const string WirePrefix = "COUNTERS ";

    /// <summary>Reads <paramref name="session"/>'s counters from another thread (recent values, exact once the session is
    /// idle: the run waits for its replies before reading).</summary>
    public static SessionSideCounters Of(string side, FixSession session) => new(
        side, session.IsLoggedOn, session.NextSenderMsgSeqNum, session.NextTargetMsgSeqNum, session.GapsDetected,
        session.ResendRequestsSent, session.ResendRequestsReceived, session.SendBackpressureCount, session.SendBacklogHighWaterBytes,
        session.QueuedMessageCount);

    /// <summary>True when a message the peer sent never arrived in order: a gap was seen, a resend was requested, or
    /// early messages wait for one. (Back-pressure alone is flow control, not loss.)</summary>
    public bool SawLoss => GapsDetected != 0 || ResendRequestsSent != 0 || QueuedMessages != 0;

    /// <summary>True when the session saw a gap, a resend or back-pressure.</summary>
    public bool HadTrouble => GapsDetected != 0 || ResendRequestsSent != 0 || ResendRequestsReceived != 0 || SendBackpressure != 0 || QueuedMessages != 0;

    /// <summary>The child process's one-line answer to the COUNTERS command.</summary>
    public string ToWire() => string.Create(CultureInfo.InvariantCulture,
        $"{WirePrefix}{Side} {(LoggedOn ? 1 : 0)} {NextSenderMsgSeqNum} {NextTargetMsgSeqNum} {GapsDetected} {ResendRequestsSent} {ResendRequestsReceived} {SendBackpressure} {SendBacklogHighWaterBytes} {QueuedMessages}");

    /// <summary>Parses a line written by <see cref="ToWire"/>.</summary>
    public static bool TryParseWire(string line, out SessionSideCounters counters)
    {
        counters = default;
        if (!line.StartsWith(WirePrefix, StringComparison.Ordinal)) return false;
        string[] p = line.Substring(WirePrefix.Length).Split(' ');
        if (p.Length != 10) return false;
        var n = new long[9];
        for (int i = 1; i < p.Length; i++)
        {
            if (!long.TryParse(p[i], NumberStyles.None, CultureInfo.InvariantCulture, out n[i - 1])) return false;
        }
        counters = new SessionSideCounters(p[0], n[0] != 0, (int)n[1], (int)n[2], n[3], n[4], n[5], n[6], n[7], (int)n[8]);
        return true;
    }

    /// <inheritdoc/>
    public override string ToString() => string.Create(CultureInfo.InvariantCulture,
        $"{Side}{(LoggedOn ? "" : " (not logged on)")}: sent up to {NextSenderMsgSeqNum - 1:N0}, processed up to {NextTargetMsgSeqNum - 1:N0}, gaps {GapsDetected:N0}, ResendRequests sent {ResendRequestsSent:N0} received {ResendRequestsReceived:N0}, send back-pressure {SendBackpressure:N0} (backlog high water {SendBacklogHighWaterBytes:N0} B), queued early messages {QueuedMessages:N0}");
}

/// <summary>Implemented by systems made of FixEngine sessions: reads their counters after a run.</summary>
/// <remarks>Called on the sender thread after the measured window, before <see cref="IRoundTripSystem.Stop"/>.</remarks>
public interface ISessionCounterSource
{
    /// <summary>The initiator's counters first, then the acceptor's (when it can be read).</summary>
    IReadOnlyList<SessionSideCounters> ReadSessionCounters();
}

/// <summary>Says what happened to a run in one phrase for the console and the Runs table.</summary>
public static class RunVerdict
{
    /// <summary>"yes", "SATURATED", or why replies were missing: lost by the engine, a backlog not drained within the
    /// reply bound, or a harness miscount (both sessions processed everything, yet replies are missing).</summary>
    public static string Describe(RunResult r)
    {
        if (r.Completed) return r.Saturated ? "SATURATED" : "yes";
        if (r.Failure is not null) return $"NO: the run failed before it measured (no samples): {r.Failure}";
        string outstanding = string.Create(CultureInfo.InvariantCulture,
            $"{r.Outstanding:N0} replies outstanding {r.ReplyTimeoutNs / 1e9:0.#} s after the last order");
        if (r.Sessions is not { Count: >= 2 } s) return $"NO: {outstanding}";
        SessionSideCounters initiator = s[0], acceptor = s[1];
        long ordersInFlight = initiator.NextSenderMsgSeqNum - (long)acceptor.NextTargetMsgSeqNum;
        long repliesInFlight = acceptor.NextSenderMsgSeqNum - (long)initiator.NextTargetMsgSeqNum;
        if (ordersInFlight == 0 && repliesInFlight == 0)
        {
            return $"NO: {outstanding}, yet each session processed every message the other sent (harness miscount)";
        }
        string inFlight = string.Create(CultureInfo.InvariantCulture,
            $"{ordersInFlight:N0} initiator messages not processed by the acceptor, {repliesInFlight:N0} acceptor messages not processed by the initiator");
        if (initiator.SawLoss || acceptor.SawLoss)
        {
            return $"NO: LOST MESSAGES: {outstanding}; {inFlight}; a session saw a gap or asked for a resend (engine defect, see the counters)";
        }
        return $"NO: backlog not drained within the bound: {outstanding}; {inFlight}; no gap or resend (nothing lost, still in flight)";
    }
}
