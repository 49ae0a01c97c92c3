using System;
using System.Threading;
using FixEngine.Logging;

namespace FixEngine.Session;

// Role: raising session events with their properties (SessionEvent) to the session log and the "FixEngine"
// ActivitySource, and what operators and health checks read back: the last logon refusal, admin actions.

public sealed partial class FixSession
{
    // The reason the last Logon was refused (by the application, by us for its MsgSeqNum or ours by the counterparty);
    // cleared by the next completed Logon. Written by the session's thread, read by any (health checks).
    private string? _lastLogonRefusal;

    /// <summary>Why the last Logon was refused (ours by the counterparty, or theirs by the application or for its
    /// MsgSeqNum), until a Logon completes; null otherwise.</summary>
    /// <remarks>Written by the session's thread; any thread may read it (a recent value).</remarks>
    public string? LastLogonRefusal => Volatile.Read(ref _lastLogonRefusal);

    /// <summary>Records an operator's action on the session (an admin console's reset, logout, disconnect...) in the
    /// session's event log, with who did it (<see cref="SessionEventKind.AdminAction"/>).</summary>
    /// <param name="action">What was done, e.g. <c>reset</c>, <c>set-next-sender</c>.</param>
    /// <param name="actor">The authenticated user, or null when unknown.</param>
    /// <param name="detail">Free text (e.g. the number set), or null.</param>
    /// <param name="epochNs">Now, epoch nanoseconds.</param>
    /// <remarks>Owner thread (as every <see cref="ISessionLog"/> call), e.g. where the console performs the action.</remarks>
    public void RecordAdminAction(string action, string? actor, string? detail, long epochNs)
    {
        ArgumentException.ThrowIfNullOrEmpty(action);
        Raise(new SessionEvent(SessionEventKind.AdminAction, LogLevel.Warning, detail, _store.NextSenderMsgSeqNum, _store.NextTargetMsgSeqNum)
        {
            Action = action,
            Actor = actor,
        }, epochNs);
    }

    /// <summary>The engine's observers of session events (the admin console's live tail); set by the engine before the
    /// session runs.</summary>
    internal SessionEventTap? EventTap { get; set; }

    // An event with its kind and text only (the sequence numbers are added).
    private void Raise(SessionEventKind kind, LogLevel level, string? text, long epochNs) =>
        Raise(NewEvent(kind, level, text), epochNs);

    private SessionEvent NewEvent(SessionEventKind kind, LogLevel level, string? text) =>
        new(kind, level, text, _store.NextSenderMsgSeqNum, _store.NextTargetMsgSeqNum);

    // Every structured event goes here: state the health checks read, the log, the engine's observers, then the ActivitySource (one field read
    // when nobody listens).
    private void Raise(in SessionEvent e, long epochNs)
    {
        switch (e.Kind)
        {
            case SessionEventKind.Logon:
                Volatile.Write(ref _lastLogonRefusal, null);
                break;
            case SessionEventKind.LogonRefused:
                Volatile.Write(ref _lastLogonRefusal, e.Text ?? e.ToString());
                break;
        }
        _log.OnEvent(in e, epochNs);
        if (EventTap is { HasObservers: true } tap) tap.Publish(this, in e, epochNs);
        if (SessionTracing.Source.HasListeners()) SessionTracing.OnSessionEvent(this, in e, epochNs);
    }
}
