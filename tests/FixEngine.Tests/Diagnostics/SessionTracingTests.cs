using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Linq;
using FixEngine.Diagnostics;
using FixEngine.Tests.Infrastructure;
using FixEngine.Tests.Session;

namespace FixEngine.Tests.Diagnostics;

/// <summary>The "FixEngine" and "FixEngine.MessageTraces" ActivitySources: nothing started, read or allocated on the message
/// path when nobody listens, or when a listener samples every lifecycle activity but does not listen to the message
/// source; a listener of both that samples nothing costs the BCL's sampling call (measured, bounded); with a sampling
/// listener, session lifecycle events and an inbound message's path to FromApp and its reply.</summary>
[Collection(nameof(AllocationMeasurement))]
public sealed class SessionTracingTests
{
    private static ActivityListener Listen(ActivitySamplingResult sampling, List<Activity>? stopped = null, string? session = null)
    {
        var listener = new ActivityListener
        {
            ShouldListenTo = source => source.Name is FixEngineMetrics.ActivitySourceName or FixEngineMetrics.MessageActivitySourceName,
            Sample = (ref ActivityCreationOptions<ActivityContext> _) => sampling,
            ActivityStopped = activity =>
            {
                if (stopped is null) return;
                // Other tests' sessions may run meanwhile: keep this session's activities only.
                if (session is not null && activity.GetTagItem(FixEngineMetrics.SessionTag) as string != session) return;
                lock (stopped) stopped.Add(activity);
            },
        };
        ActivitySource.AddActivityListener(listener);
        return listener;
    }

    [Fact]
    public void TheMessagePathAllocatesNothingWithoutAListener()
    {
        using var w = new OrderWindows();
        long[] withoutListener = w.Measure();
        Assert.Equal(OrderWindows.Count + 2, w.H.Session.NextTargetMsgSeqNum);
        long[] notSampled;
        using (Listen(ActivitySamplingResult.None)) notSampled = w.Measure();
        Assert.True(withoutListener.Min() == 0, $"bytes allocated per {OrderWindows.Count}-message window without a listener: {OrderWindows.Describe(withoutListener)}");
        // With a listener that samples nothing, ActivitySource.StartActivity's precompiled (ReadyToRun) code allocates
        // 48 B per inbound application message before the sampler says no (.NET 10.0.12); this project runs with tiering
        // off, so that code is what runs here. With default tiering it is replaced by tier-1 code after its first calls,
        // which allocates nothing (the round-trip harness's -tracing config: 0.00 B per round trip; docs/operations.md,
        // "Tracing"). The engine adds nothing to it. Bounded here so a growth shows.
        Assert.True(notSampled.Min() <= 64L * OrderWindows.Count, $"bytes allocated per {OrderWindows.Count}-message window with a listener that samples nothing: {OrderWindows.Describe(notSampled)}");
        // Every window delivered every order (eight windows).
        Assert.Equal(8 * OrderWindows.Count, w.H.App.FromAppCount);
    }

    [Fact]
    public void ListeningToTheLifecycleSourceAloneCostsTheMessagePathNothing()
    {
        var stopped = new List<Activity>();
        var listener = new ActivityListener
        {
            ShouldListenTo = source => source.Name == FixEngineMetrics.ActivitySourceName,
            // Reads the trace id, as a ratio sampler does: the runtime creates one for every activity it is asked about.
            Sample = (ref ActivityCreationOptions<ActivityContext> options) => options.TraceId == default ? ActivitySamplingResult.None : ActivitySamplingResult.AllDataAndRecorded,
            ActivityStopped = activity => { lock (stopped) stopped.Add(activity); },
        };
        ActivitySource.AddActivityListener(listener);
        try
        {
            using var w = new OrderWindows();
            string session = w.H.Session.Id.ToString();
            long[] windows = w.Measure();
            Assert.True(windows.Min() == 0, $"bytes allocated per {OrderWindows.Count}-message window with a lifecycle-only listener: {OrderWindows.Describe(windows)}");
            Assert.Equal(4 * OrderWindows.Count, w.H.App.FromAppCount);
            List<Activity> ours;
            lock (stopped) ours = stopped.FindAll(a => a.GetTagItem(FixEngineMetrics.SessionTag) as string == session);
            // The lifecycle is traced (the Logon); no message is.
            Assert.Contains(ours, a => a.OperationName == "fix.session.logon");
            Assert.DoesNotContain(ours, a => a.Source.Name != FixEngineMetrics.ActivitySourceName);
        }
        finally
        {
            listener.Dispose();
        }
    }

    [Fact]
    public void ASampledOrderIsTracedFromReceiveThroughFromAppToItsReplyAndLifecycleEventsAreTraced()
    {
        using var h = new SessionHarness("FIX.4.4", s => s with { ResetOnLogon = false });
        var stopped = new List<Activity>();
        long receivedAt;
        using (Listen(ActivitySamplingResult.AllDataAndRecorded, stopped, h.Session.Id.ToString()))
        {
            h.Logon();
            receivedAt = h.Now;
            h.Now += 5_000;
            h.Session.OnMessage(h.Build("35=D|34=2|11=T1|21=3|38=100|40=1|54=1|55=INTC|60=" + h.Time()), receivedAt);
            h.Receive("35=0|34=9");
        }
        List<Activity> all;
        lock (stopped) all = [.. stopped];

        Activity logon = Assert.Single(all, a => a.OperationName == "fix.session.logon");
        Assert.Equal(ActivityKind.Internal, logon.Kind);
        Assert.Equal(2, logon.GetTagItem("fix.next_sender_msg_seq_num"));

        Activity receive = Assert.Single(all, a => a.OperationName == "fix.receive");
        Assert.Equal(ActivityKind.Consumer, receive.Kind);
        Assert.Equal("D", receive.GetTagItem("fix.msg_type"));
        Assert.Equal(2, receive.GetTagItem("fix.msg_seq_num"));
        Assert.Contains(receive.Events, e => e.Name == "fix.from_app");
        // The activity starts at the message's receive time, not when processing began.
        Assert.Equal(DateTimeOffset.UnixEpoch.AddTicks(receivedAt / 100).UtcDateTime, receive.StartTimeUtc);

        // The reply FromApp sent is a child of the inbound message's activity.
        Activity send = Assert.Single(all, a => a.OperationName == "fix.send");
        Assert.Equal(ActivityKind.Producer, send.Kind);
        Assert.Equal(receive.SpanId, send.ParentSpanId);
        Assert.Equal(receive.TraceId, send.TraceId);
        Assert.Equal("D", send.GetTagItem("fix.msg_type"));

        // The gap (9 while 3 was expected) and the ResendRequest it caused, with their properties.
        Activity gap = Assert.Single(all, a => a.OperationName == "fix.session.sequence_gap");
        Assert.Equal(3, gap.GetTagItem("fix.expected_msg_seq_num"));
        Assert.Equal(9, gap.GetTagItem("fix.received_msg_seq_num"));
        Activity resend = Assert.Single(all, a => a.OperationName == "fix.session.resend_request");
        Assert.Equal(3, resend.GetTagItem("fix.begin_seq_no"));
    }
}
