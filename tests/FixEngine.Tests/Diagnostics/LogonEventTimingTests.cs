using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Linq;
using System.Text;
using FixEngine.Config;
using FixEngine.DependencyInjection;
using FixEngine.Diagnostics;
using FixEngine.Engine;
using FixEngine.Session;
using FixEngine.Testing;
using FixEngine.Tests.Infrastructure;
using Microsoft.Extensions.Diagnostics.HealthChecks;

namespace FixEngine.Tests.Diagnostics;

/// <summary>When the Logon event (session log, ILogger, live tail), the health check's "logged on" and the
/// <c>fix.session.logon</c> activity happen relative to the Logon exchange: after our Logon went out and the
/// counterparty's was received and accepted, with the numbers the session goes on with.</summary>
[Collection(nameof(AllocationMeasurement))]
public sealed class LogonEventTimingTests
{
    private static SessionSettings Settings(string role) => SettingsFile.Parse(
        $"[DEFAULT]\nConnectionType={role}\nSocketAcceptPort=5001\nSocketConnectHost=127.0.0.1\nSocketConnectPort=5001\n"
        + "NonStopSession=Y\nUseDataDictionary=N\nHeartBtInt=30\n"
        + "[SESSION]\nBeginString=FIX.4.4\nSenderCompID=EXEC\nTargetCompID=CLIENT\n")[0];

    [Theory]
    [InlineData("acceptor")]
    [InlineData("initiator")]
    public void TheLogonEventComesAfterBothLogonsWithTheNumbersTheSessionGoesOnWith(string role)
    {
        var timeline = new Timeline();
        using ActivityListener listener = timeline.Listen("FIX.4.4:EXEC->CLIENT");
        using var pair = FixSessionTestPair.Create(Settings(role), new Accepting(), sessionLogs: new OneLog(timeline));
        timeline.Session = pair.Session;
        pair.Connect();

        List<string> steps = timeline.Steps;
        int ourLogon = steps.IndexOf("out A 1");
        int theirLogon = steps.IndexOf("in A 1");
        int logonEvent = steps.IndexOf("event Logon");
        int activity = steps.IndexOf("activity fix.session.logon");
        string all = string.Join(" | ", steps);
        Assert.True(ourLogon >= 0 && theirLogon >= 0 && logonEvent >= 0 && activity >= 0, all);
        // An initiator sends first and accepts the answer; an acceptor receives first and answers: either way the event
        // and its activity come once both Logons are through.
        Assert.True(role == "initiator" ? ourLogon < theirLogon : theirLogon < ourLogon, all);
        Assert.True(Math.Max(ourLogon, theirLogon) < logonEvent, all);
        Assert.Equal(logonEvent + 1, activity);
        Assert.Equal(1, steps.Count(s => s == "event Logon"));

        SessionEvent e = timeline.Logon!.Value;
        Assert.Equal(1, e.Received);
        Assert.Equal(2, e.NextSenderMsgSeqNum);
        Assert.Equal(2, e.NextTargetMsgSeqNum);
        Assert.Equal(SessionState.LoggedOn, timeline.StateAtEvent);
        Assert.Equal((HealthStatus.Healthy, "logged on"), timeline.HealthAtEvent);
        Assert.Equal(2, timeline.ActivityTags["fix.next_target_msg_seq_num"]);
        Assert.Equal(2, timeline.ActivityTags["fix.next_sender_msg_seq_num"]);
        Assert.Equal(1, timeline.ActivityTags["fix.received_msg_seq_num"]);
        // Health before the Logon exchange: not healthy (the check went from degraded to healthy with the Logon).
        Assert.Equal(HealthStatus.Degraded, timeline.HealthBeforeLogon);
    }

    [Fact]
    public void ALogonAboveTheExpectedNumberIsReportedAfterTheResendRequestForTheGap()
    {
        var timeline = new Timeline();
        using ActivityListener listener = timeline.Listen("FIX.4.4:EXEC->CLIENT");
        using var pair = FixSessionTestPair.Create(Settings("acceptor"), new Accepting(), sessionLogs: new OneLog(timeline));
        timeline.Session = pair.Session;
        pair.Counterparty.Store.SetNextSenderMsgSeqNum(5);
        pair.Connect();

        List<string> steps = timeline.Steps;
        string all = string.Join(" | ", steps);
        int theirLogon = steps.IndexOf("in A 5");
        int resend = steps.IndexOf("out 2 2");
        int logonEvent = steps.IndexOf("event Logon");
        Assert.True(theirLogon >= 0 && resend >= 0 && logonEvent >= 0, all);
        Assert.True(theirLogon < resend && resend < logonEvent, all);
        SessionEvent e = timeline.Logon!.Value;
        Assert.Equal(5, e.Received);
        // Messages 1-4 are still expected (the ResendRequest asks for them): the next target is 1.
        Assert.Equal(1, e.NextTargetMsgSeqNum);
        Assert.Equal(3, e.NextSenderMsgSeqNum);
        Assert.Equal(1, steps.Count(s => s == "event Logon"));
        Assert.True(pair.Session.IsLoggedOn);
        Assert.Equal(6, pair.Session.NextTargetMsgSeqNum);
    }

    private sealed class Accepting : IApplication
    {
        public void FromAdmin(FixSession session, global::FixEngine.Codec.FixMessage message)
        {
        }

        public FromAppResult FromApp(FixSession session, global::FixEngine.Codec.FixMessage message) => FromAppResult.Accepted;
    }

    private sealed class OneLog(ISessionLog log) : ISessionLogFactory
    {
        public ISessionLog? Create(SessionSettings settings) => log;
    }

    /// <summary>Everything the session logs, in order ("in/out MsgType MsgSeqNum", "event Kind"), and what a health check
    /// and the session's state say at the Logon event (read on the session's thread, at that moment).</summary>
    private sealed class Timeline : ISessionLog
    {
        public FixSession? Session;
        public List<string> Steps { get; } = [];
        public SessionEvent? Logon;
        public SessionState StateAtEvent;
        public (HealthStatus, string) HealthAtEvent;
        public HealthStatus? HealthBeforeLogon;
        public Dictionary<string, object?> ActivityTags { get; } = [];

        public ActivityListener Listen(string session)
        {
            var listener = new ActivityListener
            {
                ShouldListenTo = source => source.Name == FixEngineMetrics.ActivitySourceName,
                Sample = (ref ActivityCreationOptions<ActivityContext> _) => ActivitySamplingResult.AllDataAndRecorded,
                ActivityStopped = activity =>
                {
                    // Other tests' sessions may run meanwhile: this session's activities only.
                    if (activity.GetTagItem(FixEngineMetrics.SessionTag) as string != session) return;
                    lock (Steps) Steps.Add("activity " + activity.OperationName);
                    if (activity.OperationName == "fix.session.logon")
                    {
                        foreach (KeyValuePair<string, object?> t in activity.TagObjects) ActivityTags[t.Key] = t.Value;
                    }
                },
            };
            ActivitySource.AddActivityListener(listener);
            return listener;
        }

        public void OnIncoming(ReadOnlySpan<byte> message, long epochNs)
        {
            if (Field(message, "35=") == "A") HealthBeforeLogon ??= FixEngineHealthCheck.CheckSession(Session!, epochNs).Status;
            Add("in", message);
        }

        public void OnOutgoing(ReadOnlySpan<byte> message, long epochNs) => Add("out", message);

        public void OnEvent(string text, long epochNs)
        {
        }

        public void OnEvent(in SessionEvent e, long epochNs)
        {
            lock (Steps) Steps.Add("event " + e.Kind);
            if (e.Kind != SessionEventKind.Logon) return;
            Logon = e;
            StateAtEvent = Session!.State;
            HealthAtEvent = FixEngineHealthCheck.CheckSession(Session, epochNs);
        }

        private void Add(string direction, ReadOnlySpan<byte> message)
        {
            lock (Steps) Steps.Add(direction + " " + Field(message, "35=") + " " + Field(message, "34="));
        }

        private static string Field(ReadOnlySpan<byte> message, string tagEquals)
        {
            string text = Encoding.ASCII.GetString(message);
            string? field = text.Split('\u0001').FirstOrDefault(f => f.StartsWith(tagEquals, StringComparison.Ordinal));
            return field is null ? "?" : field[tagEquals.Length..];
        }
    }
}
