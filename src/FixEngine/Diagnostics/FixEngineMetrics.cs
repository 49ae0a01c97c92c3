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
/// <para>A <see cref="Engine.FixEngineHost"/> creates one for its sessions and disposes it with itself. Thread-safe.</para>
/// </remarks>
public sealed class FixEngineMetrics : IDisposable
{
    /// <summary>The meter's name (the package's name).</summary>
    public const string MeterName = "FixEngine";

    /// <summary>The tag naming the session on every measurement.</summary>
    public const string SessionTag = "fix.session";

    private readonly Meter _meter;
    private readonly Func<IReadOnlyList<FixSession>> _sessions;

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
        _meter.CreateObservableGauge("fixengine.logged_on", () => Measure(s => s.IsLoggedOn ? 1 : 0), "{session}", "1 while the session is logged on");
    }

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
