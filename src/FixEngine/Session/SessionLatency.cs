using System;
using System.Collections.Generic;
using System.Diagnostics.Metrics;

namespace FixEngine.Session;

/// <summary>One session's handle on the latency histograms of <see cref="Diagnostics.FixEngineMetrics"/>: the tag, the histograms and
/// the engine's time source.</summary>
/// <remarks>
/// Design: called on the session's thread. The clock is read only while a listener is enabled for the histogram
/// (<see cref="Instrument.Enabled"/>: one field read), so without a listener the message path costs a null check and that
/// read. Recording passes the one prebuilt tag (no array, no boxing): allocation-free with or without a listener
/// (SessionLatencyAllocationTests). The times are the engine's epoch time (<see cref="Engine.EpochAnchor"/>): the
/// receive time a message was given and the time read here come from the same anchored clock.
/// </remarks>
internal sealed class SessionLatency
{
    /// <summary>The tag naming the session on every measurement (<see cref="Diagnostics.FixEngineMetrics.SessionTag"/>).</summary>
    internal const string SessionTag = "fix.session";

    /// <summary>The tag naming the send path on <c>fix.send.duration</c>: <c>send</c> (<see cref="FixSession.Send{TState}(System.ReadOnlySpan{byte}, in TState, BodyWriter{TState}, long)"/>)
    /// or <c>any_thread</c> (<see cref="FixSession.TrySendFromAnyThread{TState}(System.ReadOnlySpan{byte}, long, in TState, BodyWriter{TState})"/>).</summary>
    internal const string SendPathTag = "fix.send.path";

    private readonly Histogram<double> _inbound;
    private readonly Histogram<double> _send;
    private readonly KeyValuePair<string, object?> _tag;
    private static readonly KeyValuePair<string, object?> s_pathSend = new(SendPathTag, "send");
    private static readonly KeyValuePair<string, object?> s_pathAnyThread = new(SendPathTag, "any_thread");
    private readonly Func<long> _epochNow;

    public SessionLatency(Histogram<double> inbound, Histogram<double> send, string session, Func<long> epochNow)
    {
        _inbound = inbound;
        _send = send;
        _tag = new KeyValuePair<string, object?>(SessionTag, session);
        _epochNow = epochNow;
    }

    /// <summary>Inbound-to-callback: <paramref name="receivedEpochNs"/> is the time the message was received; now is
    /// the entry into FromApp.</summary>
    public void OnFromApp(long receivedEpochNs)
    {
        if (!_inbound.Enabled) return;
        _inbound.Record(Seconds(_epochNow() - receivedEpochNs), _tag);
    }

    /// <summary>The start of a Send (0 when no listener wants the send histogram).</summary>
    public long BeginSend() => _send.Enabled ? _epochNow() : 0;

    /// <summary>Send-to-socket: the Send (or TrySendFromAnyThread hand-off, <paramref name="fromAnyThread"/>) that began at
    /// <paramref name="startEpochNs"/> has handed its bytes to the connection.</summary>
    public void EndSend(long startEpochNs, bool fromAnyThread = false)
    {
        if (startEpochNs == 0) return;
        _send.Record(Seconds(_epochNow() - startEpochNs), _tag, fromAnyThread ? s_pathAnyThread : s_pathSend);
    }

    // A receiving thread's time may be raised to the session's latest (SessionSlot.Stamp): never report a negative span.
    private static double Seconds(long ns) => ns <= 0 ? 0 : ns / 1_000_000_000.0;
}
