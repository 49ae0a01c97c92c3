using System;
using System.Collections.Generic;
using System.Diagnostics.Metrics;
using FixEngine.Session;

namespace FixEngine.Diagnostics;

/// <summary>Publishes every session's counters through <see cref="System.Diagnostics.Metrics"/>, so
/// <c>dotnet-counters monitor --counters FixEngine</c>, OpenTelemetry and any <see cref="MeterListener"/> see them.</summary>
/// <remarks>
/// <para>Every instrument is observable: the session's thread only increments its own counters (as it always did), and
/// the values are read when a listener collects, on the listener's thread. So publishing costs the message path nothing
/// and allocates nothing there; collecting allocates a little on the collecting thread. Each measurement carries the
/// tag <c>fix.session</c> (the SessionID, e.g. <c>FIX.4.4:EXEC-&gt;CLIENT</c>).</para>
/// <para>Instruments (meter <see cref="MeterName"/>): counters <c>fixengine.messages.received</c>,
/// <c>fixengine.messages.sent</c>, <c>fixengine.rejects.sent</c>, <c>fixengine.logons</c>, <c>fixengine.disconnects</c>,
/// <c>fixengine.gaps</c>, <c>fixengine.resend_requests.sent</c>, <c>fixengine.resend_requests.received</c>,
/// <c>fixengine.send.backpressure</c>; gauges <c>fixengine.send.backlog</c> (bytes held back now),
/// <c>fixengine.send.backlog.high_water</c> (bytes) and <c>fixengine.logged_on</c> (1 or 0).</para>
/// <para>Histograms, in microseconds, recorded by the session's thread as it happens, and only while a listener is
/// enabled for them (no clock read otherwise; allocation-free either way): <c>fixengine.inbound.latency</c>, from the
/// receive time of an application message (the receiving thread's clock read as it framed the message; in busy-poll mode
/// the engine's duty-cycle time) to the entry into <see cref="Session.IApplication.FromApp"/>; and
/// <c>fixengine.send.latency</c>, from a <see cref="Session.FixSession.Send{TState}(ReadOnlySpan{byte}, in TState, Session.BodyWriter{TState}, long)"/>
/// call to its bytes being handed to the socket (encode, store, log, transport). A send that waits in a queue (the
/// transport's or the session's backlog) is not measured: <c>fixengine.send.backpressure</c> counts those.</para>
/// <para>A <see cref="Engine.FixEngineHost"/> creates one for its sessions and disposes it with itself. Thread-safe.</para>
/// </remarks>
public sealed class FixEngineMetrics : IDisposable
{
    /// <summary>The meter's name (the package's name).</summary>
    public const string MeterName = "FixEngine";

    /// <summary>The tag naming the session on every measurement.</summary>
    public const string SessionTag = SessionLatency.SessionTag;

    private readonly Meter _meter;
    private readonly Func<IReadOnlyList<FixSession>> _sessions;
    private readonly Histogram<double> _inboundLatency;
    private readonly Histogram<double> _sendLatency;

    // Microseconds: from a socket-to-callback hop on a quiet core (a few us) to a stalled one (tens of ms).
    private static readonly double[] s_latencyBucketsUs = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 50_000, 100_000];

    /// <summary>Publishes the counters of the sessions <paramref name="sessions"/> returns at each collection.</summary>
    /// <param name="sessions">The current sessions (read at every collection, so sessions added later are included).</param>
    /// <param name="meterFactory">Creates the meter (dependency injection's <see cref="IMeterFactory"/>); a plain
    /// <see cref="Meter"/> when null.</param>
    public FixEngineMetrics(Func<IReadOnlyList<FixSession>> sessions, IMeterFactory? meterFactory = null)
    {
        ArgumentNullException.ThrowIfNull(sessions);
        _sessions = sessions;
        _meter = meterFactory?.Create(MeterName) ?? new Meter(MeterName);
        Counter("fixengine.messages.received", "{message}", "Inbound messages handed to the session", s => s.MessagesReceived);
        Counter("fixengine.messages.sent", "{message}", "Outbound messages written to the transport, resends included", s => s.MessagesSent);
        Counter("fixengine.rejects.sent", "{message}", "Session Rejects and BusinessMessageRejects sent", s => s.RejectsSent);
        Counter("fixengine.logons", "{logon}", "Completed Logon exchanges", s => s.LogonCount);
        Counter("fixengine.disconnects", "{disconnect}", "Connections that ended", s => s.DisconnectCount);
        Counter("fixengine.gaps", "{gap}", "Inbound messages ahead of the expected MsgSeqNum", s => s.GapsDetected);
        Counter("fixengine.resend_requests.sent", "{message}", "ResendRequests sent", s => s.ResendRequestsSent);
        Counter("fixengine.resend_requests.received", "{message}", "ResendRequests received and answered", s => s.ResendRequestsReceived);
        Counter("fixengine.send.backpressure", "{message}", "Outbound messages the transport refused (held in the send backlog)", s => s.SendBackpressureCount);
        _meter.CreateObservableGauge("fixengine.send.backlog", () => Measure(s => s.SendBacklogBytes), "By", "Bytes held back in the send backlog now");
        _meter.CreateObservableGauge("fixengine.send.backlog.high_water", () => Measure(s => s.SendBacklogHighWaterBytes), "By", "The most bytes the send backlog has held");
        var advice = new InstrumentAdvice<double> { HistogramBucketBoundaries = s_latencyBucketsUs };
        _inboundLatency = _meter.CreateHistogram("fixengine.inbound.latency", "us", "From receiving an application message to handing it to FromApp", tags: null, advice: advice);
        _sendLatency = _meter.CreateHistogram("fixengine.send.latency", "us", "From a Send call to its bytes being handed to the socket", tags: null, advice: advice);
        _meter.CreateObservableGauge("fixengine.logged_on", () => Measure(s => s.IsLoggedOn ? 1 : 0), "{session}", "1 while the session is logged on");
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
