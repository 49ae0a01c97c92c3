using System;
using System.Collections.Generic;
using System.Diagnostics.Metrics;
using FixEngine.Session;

namespace FixEngine.Diagnostics;

/// <summary>Publishes every session's counters through <see cref="System.Diagnostics.Metrics"/>, so
/// <c>dotnet-counters monitor --counters FixEngine</c>, OpenTelemetry and any <see cref="MeterListener"/> see them.</summary>
/// <remarks>
/// <para>Counters and gauges are observable: the session's thread only increments its own counters (as it always did),
/// and the values are read when a listener collects, on the listener's thread. So publishing costs the message path
/// nothing and allocates nothing there; collecting allocates a little on the collecting thread. Each measurement carries
/// the tag <c>fix.session</c> (the SessionID, e.g. <c>FIX.4.4:EXEC-&gt;CLIENT</c>).</para>
/// <para>Names and units follow the OpenTelemetry conventions (durations in seconds, UCUM units, annotations in braces);
/// the table of instruments (meter <see cref="MeterName"/>) is in docs/operations.md, "Metrics".</para>
/// <para>The two duration histograms are recorded by the session's thread as it happens, and only while a listener is
/// enabled for them (no clock read otherwise; allocation-free either way): <c>fix.inbound.duration</c>, from the receive
/// time of an application message (the receiving thread's clock read as it framed the message; in busy-poll mode the
/// engine's duty-cycle time) to the entry into <see cref="Session.IApplication.FromApp"/>; and <c>fix.send.duration</c>,
/// from a <see cref="Session.FixSession.Send{TState}(ReadOnlySpan{byte}, in TState, Session.BodyWriter{TState}, long)"/>
/// call (tag <c>fix.send.path</c>=<c>send</c>) or a
/// <see cref="Session.FixSession.TrySendFromAnyThread{TState}(ReadOnlySpan{byte}, long, in TState, Session.BodyWriter{TState})"/>
/// hand-off (<c>any_thread</c>, the wait for the session's thread included) to its bytes being handed to the connection
/// (encode, store, log, transport). A send that then waits in a queue (the transport's or the session's backlog) is not
/// measured: <c>fix.send.backpressure</c> counts those.</para>
/// <para>A <see cref="Engine.FixEngineHost"/> creates one for its sessions and disposes it with itself. Thread-safe.</para>
/// </remarks>
public sealed class FixEngineMetrics : IDisposable
{
    /// <summary>The meter's name (the package's name).</summary>
    public const string MeterName = "FixEngine";

    /// <summary>The name of the engine's <see cref="System.Diagnostics.ActivitySource"/> of session lifecycle events
    /// (<c>fix.session.*</c>: logon, logout, gaps, rejects, ...; docs/operations.md, "Tracing").</summary>
    public const string ActivitySourceName = SessionTracing.SourceName;

    /// <summary>The name of the engine's <see cref="System.Diagnostics.ActivitySource"/> of message traces: an inbound
    /// application message's path to FromApp (<c>fix.receive</c>) and the messages sent while it is processed
    /// (<c>fix.send</c>), when a listener samples them. Separate from <see cref="ActivitySourceName"/> so that listening to
    /// the lifecycle alone costs the message path nothing (docs/operations.md, "Tracing").</summary>
    public const string MessageActivitySourceName = SessionTracing.MessageSourceName;

    /// <summary>The tag naming the session on every measurement.</summary>
    public const string SessionTag = SessionLatency.SessionTag;

    /// <summary>The tag naming the send path on <c>fix.send.duration</c>: <c>send</c> or <c>any_thread</c>.</summary>
    public const string SendPathTag = SessionLatency.SendPathTag;

    private readonly Meter _meter;
    private readonly Func<IReadOnlyList<FixSession>> _sessions;
    private readonly Histogram<double> _inboundLatency;
    private readonly Histogram<double> _sendLatency;

    // Seconds: from a socket-to-callback hop on a quiet core (a few microseconds) to a stalled one (a tenth of a second).
    private static readonly double[] s_durationBuckets =
        [1e-6, 2e-6, 5e-6, 1e-5, 2e-5, 5e-5, 1e-4, 2e-4, 5e-4, 1e-3, 2e-3, 5e-3, 1e-2, 5e-2, 1e-1];

    /// <summary>Publishes the counters of the sessions <paramref name="sessions"/> returns at each collection.</summary>
    /// <param name="sessions">The current sessions (read at every collection, so sessions added later are included).</param>
    /// <param name="meterFactory">Creates the meter (dependency injection's <see cref="IMeterFactory"/>); a plain
    /// <see cref="Meter"/> when null.</param>
    public FixEngineMetrics(Func<IReadOnlyList<FixSession>> sessions, IMeterFactory? meterFactory = null)
    {
        ArgumentNullException.ThrowIfNull(sessions);
        _sessions = sessions;
        _meter = meterFactory?.Create(MeterName) ?? new Meter(MeterName);
        Counter("fix.messages.received", "{message}", "Inbound messages handed to the session", s => s.MessagesReceived);
        Counter("fix.messages.sent", "{message}", "Outbound messages handed to the transport (or held in the send backlog for it), each once, from every send path: Send, TrySendFromAnyThread, admin messages, Rejects, resends and GapFills", s => s.MessagesSent);
        Counter("fix.rejects.sent", "{message}", "Session Rejects and BusinessMessageRejects sent", s => s.RejectsSent);
        Counter("fix.logons", "{logon}", "Completed Logon exchanges", s => s.LogonCount);
        Counter("fix.disconnects", "{disconnect}", "Connections that ended", s => s.DisconnectCount);
        Counter("fix.heartbeat.behind", "{check}", "Heartbeat checks that found the peer overdue while its bytes waited unread (the engine was behind reading: no TestRequest or disconnect was sent)", s => s.HeartbeatChecksBehindCount);
        Counter("fix.sequence_gaps", "{gap}", "Inbound messages ahead of the expected MsgSeqNum", s => s.GapsDetected);
        Counter("fix.resend_requests.sent", "{message}", "ResendRequests sent", s => s.ResendRequestsSent);
        Counter("fix.resend_requests.received", "{message}", "ResendRequests received and answered", s => s.ResendRequestsReceived);
        Counter("fix.send.backpressure", "{message}", "Outbound messages the transport refused (held in the send backlog)", s => s.SendBackpressureCount);
        Counter("fix.send.not_stored", "{message}", "Messages handed to TrySendFromAnyThread that were accepted but never stored", s => s.HandedOverNotStoredCount);
        _meter.CreateObservableUpDownCounter("fix.send.backlog.size", () => Measure(s => s.SendBacklogBytes), "By", "Bytes held back in the send backlog now");
        _meter.CreateObservableGauge("fix.send.backlog.high_water", () => Measure(s => s.SendBacklogHighWaterBytes), "By", "The most bytes the send backlog has held");
        var advice = new InstrumentAdvice<double> { HistogramBucketBoundaries = s_durationBuckets };
        _inboundLatency = _meter.CreateHistogram("fix.inbound.duration", "s", "From receiving an application message to handing it to FromApp", tags: null, advice: advice);
        _sendLatency = _meter.CreateHistogram("fix.send.duration", "s", "From a Send call or a TrySendFromAnyThread hand-off to its bytes being handed to the connection", tags: null, advice: advice);
        _meter.CreateObservableUpDownCounter("fix.sessions.logged_on", () => Measure(s => s.IsLoggedOn ? 1 : 0), "{session}", "1 while the session is logged on");
    }

    /// <summary>The latency histograms' handle for one session (engine construction).</summary>
    /// <param name="session">The session's tag value.</param>
    /// <param name="epochNow">The engine's epoch time (the same clock as the receive times given to the session).</param>
    internal SessionLatency CreateSessionLatency(Config.SessionId session, Func<long> epochNow) =>
        new(_inboundLatency, _sendLatency, session.ToString(), epochNow);

    private void Counter(string name, string unit, string description, Func<FixSession, long> read) =>
        _meter.CreateObservableCounter(name, () => Measure(read), unit, description);

    private List<Measurement<long>> Measure(Func<FixSession, long> read)
    {
        IReadOnlyList<FixSession> sessions = _sessions();
        var values = new List<Measurement<long>>(sessions.Count);
        foreach (FixSession session in sessions)
        {
            values.Add(new Measurement<long>(read(session), new KeyValuePair<string, object?>(SessionTag, session.Id.ToString())));
        }
        return values;
    }

    /// <inheritdoc/>
    public void Dispose() => _meter.Dispose();
}
