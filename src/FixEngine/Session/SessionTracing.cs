using System;
using System.Diagnostics;
using FixEngine.Codec;

namespace FixEngine.Session;

/// <summary>The engine's two <see cref="ActivitySource"/>s: "FixEngine" (<see cref="Diagnostics.FixEngineMetrics.ActivitySourceName"/>),
/// session lifecycle events; "FixEngine.MessageTraces" (<see cref="Diagnostics.FixEngineMetrics.MessageActivitySourceName"/>),
/// when a listener samples them, an inbound application message's path to FromApp and the messages sent while it is
/// processed.</summary>
/// <remarks>
/// Design: every entry point is guarded by its source's <see cref="ActivitySource.HasListeners"/> (one field read) at the
/// call site, so with nobody listening nothing is started, read or allocated (SessionTracingTests). Two sources, so that
/// an application that listens to the lifecycle only (an OpenTelemetry <c>AddSource("FixEngine")</c>) costs the message
/// path nothing: a listener's sampler runs per activity the listened source starts, and a sampler that reads the trace id
/// makes the runtime create one (a string) for every message it is asked about, sampled or not
/// (OpenTelemetrySdkTracingTests). With a listener,
/// <see cref="ActivitySource.StartActivity(string, ActivityKind, ActivityContext, System.Collections.Generic.IEnumerable{System.Collections.Generic.KeyValuePair{string, object?}}?, System.Collections.Generic.IEnumerable{ActivityLink}?, DateTimeOffset)"/>
/// asks its sampler; an activity not sampled is null and costs nothing more. A sampled one allocates (the activity, its
/// tags): tracing every message is for diagnosis, not for the production message rate.
/// Activities: <c>fix.session.{event}</c> (Internal, one per <see cref="SessionEvent"/> other than
/// <see cref="SessionEventKind.Other"/>, at the event's time, with its properties as tags); <c>fix.receive</c> (Consumer,
/// from the message's receive time to the end of its processing, replies included; event <c>fix.from_app</c> at the
/// entry into FromApp); <c>fix.send</c> (Producer, a Send made inside a traced activity, to its hand-off to the socket).
/// </remarks>
internal static class SessionTracing
{
    internal const string SourceName = "FixEngine";

    internal const string MessageSourceName = "FixEngine.MessageTraces";

    /// <summary>Session lifecycle events (<c>fix.session.*</c>).</summary>
    internal static readonly ActivitySource Source = new(SourceName, typeof(SessionTracing).Assembly.GetName().Version?.ToString(3));

    /// <summary>Message traces (<c>fix.receive</c>, <c>fix.send</c>).</summary>
    internal static readonly ActivitySource MessageSource = new(MessageSourceName, typeof(SessionTracing).Assembly.GetName().Version?.ToString(3));

    private static readonly string[] s_eventNames = CreateEventNames();

    private static string[] CreateEventNames()
    {
        var names = new string[(int)SessionEventKind.AdminAction + 1];
        names[(int)SessionEventKind.Other] = "fix.session.event";
        names[(int)SessionEventKind.Connected] = "fix.session.connected";
        names[(int)SessionEventKind.Disconnected] = "fix.session.disconnected";
        names[(int)SessionEventKind.Logon] = "fix.session.logon";
        names[(int)SessionEventKind.Logout] = "fix.session.logout";
        names[(int)SessionEventKind.LogonRefused] = "fix.session.logon_refused";
        names[(int)SessionEventKind.SequenceGap] = "fix.session.sequence_gap";
        names[(int)SessionEventKind.ResendRequest] = "fix.session.resend_request";
        names[(int)SessionEventKind.SequenceReset] = "fix.session.sequence_reset";
        names[(int)SessionEventKind.RejectSent] = "fix.session.reject_sent";
        names[(int)SessionEventKind.StoreFailed] = "fix.session.store_failed";
        names[(int)SessionEventKind.StoreHold] = "fix.session.store_hold";
        names[(int)SessionEventKind.TakenOver] = "fix.session.taken_over";
        names[(int)SessionEventKind.AdminAction] = "fix.session.admin_action";
        return names;
    }

    internal static DateTimeOffset FromEpochNs(long epochNs) =>
        epochNs <= 0 ? default : DateTimeOffset.UnixEpoch.AddTicks(epochNs / 100);

    /// <summary>A lifecycle event as a zero-length activity (a listener exists: checked by the caller).</summary>
    internal static void OnSessionEvent(FixSession session, in SessionEvent e, long epochNs)
    {
        if (e.Kind == SessionEventKind.Other) return;
        using Activity? activity = Source.StartActivity(s_eventNames[(int)e.Kind], ActivityKind.Internal, default(ActivityContext), startTime: FromEpochNs(epochNs));
        if (activity is null) return;
        if (activity.IsAllDataRequested)
        {
            activity.SetTag(Diagnostics.FixEngineMetrics.SessionTag, session.Id.ToString());
            activity.SetTag("fix.next_sender_msg_seq_num", e.NextSenderMsgSeqNum);
            activity.SetTag("fix.next_target_msg_seq_num", e.NextTargetMsgSeqNum);
            if (e.Text is not null) activity.SetTag("fix.reason", e.Text);
            if (e.ByCounterparty) activity.SetTag("fix.by_counterparty", true);
            switch (e.Kind)
            {
                case SessionEventKind.SequenceGap:
                case SessionEventKind.SequenceReset:
                case SessionEventKind.LogonRefused when e.Expected != 0:
                    activity.SetTag("fix.expected_msg_seq_num", e.Expected);
                    activity.SetTag("fix.received_msg_seq_num", e.Received);
                    break;
                case SessionEventKind.Logon:
                    activity.SetTag("fix.received_msg_seq_num", e.Received);
                    break;
                case SessionEventKind.ResendRequest:
                    activity.SetTag("fix.begin_seq_no", e.BeginSeqNo);
                    activity.SetTag("fix.end_seq_no", e.EndSeqNo);
                    break;
                case SessionEventKind.RejectSent:
                    activity.SetTag("fix.ref_seq_num", e.RefSeqNum);
                    if (e.RefTagId != 0) activity.SetTag("fix.ref_tag_id", e.RefTagId);
                    if (e.RejectReason >= 0) activity.SetTag("fix.session_reject_reason", e.RejectReason);
                    break;
                case SessionEventKind.AdminAction:
                    activity.SetTag("fix.admin.action", e.Action);
                    if (e.Actor is not null) activity.SetTag("fix.admin.actor", e.Actor);
                    break;
            }
        }
        if (e.Level >= Logging.LogLevel.Error) activity.SetStatus(ActivityStatusCode.Error, e.Text);
    }

    /// <summary>Starts the activity of one inbound application message (a listener of <see cref="MessageSource"/> exists:
    /// checked by the caller);
    /// null when not sampled. It becomes <see cref="Activity.Current"/> until stopped.</summary>
    internal static Activity? StartReceive(FixSession session, FixMessage message, int seq, long receivedEpochNs)
    {
        Activity? activity = MessageSource.StartActivity("fix.receive", ActivityKind.Consumer, default(ActivityContext), startTime: FromEpochNs(receivedEpochNs));
        if (activity is null || !activity.IsAllDataRequested) return activity;
        activity.SetTag(Diagnostics.FixEngineMetrics.SessionTag, session.Id.ToString());
        activity.SetTag("fix.msg_type", System.Text.Encoding.ASCII.GetString(message.MsgType));
        activity.SetTag("fix.msg_seq_num", seq);
        activity.AddEvent(new ActivityEvent("fix.from_app"));
        return activity;
    }

    /// <summary>Starts a Send's activity when the thread is inside a traced activity (a listener of
    /// <see cref="MessageSource"/> exists: checked by the caller); null otherwise.</summary>
    internal static Activity? StartSend(FixSession session, ReadOnlySpan<byte> msgType, int seq)
    {
        if (Activity.Current is null) return null;
        Activity? activity = MessageSource.StartActivity("fix.send", ActivityKind.Producer);
        if (activity is null || !activity.IsAllDataRequested) return activity;
        activity.SetTag(Diagnostics.FixEngineMetrics.SessionTag, session.Id.ToString());
        activity.SetTag("fix.msg_type", System.Text.Encoding.ASCII.GetString(msgType));
        activity.SetTag("fix.msg_seq_num", seq);
        return activity;
    }
}
