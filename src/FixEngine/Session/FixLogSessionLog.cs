using System;
using FixEngine.Logging;

namespace FixEngine.Session;

/// <summary>An <see cref="ISessionLog"/> over the struct logger <see cref="FixLog"/>: one producer per session.</summary>
/// <remarks>
/// Owner-thread only (a <see cref="LogProducer"/> is single-producer; the engine serialises a session's calls). Messages
/// are copied into the producer's ring (no allocation, no formatting on the session thread); the FixLog drain thread
/// formats and writes. Events are text (rare, allocate on the caller's side only through the string given).
/// Timestamps: create the <see cref="FixLog"/> with <see cref="FixLogOptions.Clock"/> = <see cref="SessionLogClock.Instance"/>
/// (the engine does) and every entry carries the time the session passed in, with no clock read per entry; with any
/// other clock the producer reads that clock.
/// </remarks>
public sealed class FixLogSessionLog : ISessionLog
{
    private readonly LogProducer _producer;
    private readonly int _incoming;
    private readonly int _outgoing;
    private readonly int _event;

    /// <summary>Creates the log of one session.</summary>
    /// <param name="log">The shared struct logger.</param>
    /// <param name="sessionName">Printed on each line.</param>
    public FixLogSessionLog(FixLog log, string sessionName)
    {
        ArgumentNullException.ThrowIfNull(log);
        _producer = log.CreateProducer(sessionName);
        _incoming = log.RegisterEvent("< {payload}");
        _outgoing = log.RegisterEvent("> {payload}");
        _event = log.RegisterEvent("{payload}");
    }

    /// <inheritdoc/>
    public void OnIncoming(ReadOnlySpan<byte> message, long epochNs)
    {
        if (!_producer.IsEnabled(LogLevel.Information)) return;
        SessionLogClock.Set(epochNs);
        _producer.Log(LogLevel.Information, _incoming, message);
    }

    /// <inheritdoc/>
    public void OnOutgoing(ReadOnlySpan<byte> message, long epochNs)
    {
        if (!_producer.IsEnabled(LogLevel.Information)) return;
        SessionLogClock.Set(epochNs);
        _producer.Log(LogLevel.Information, _outgoing, message);
    }

    /// <inheritdoc/>
    public void OnEvent(string text, long epochNs)
    {
        if (!_producer.IsEnabled(LogLevel.Information)) return;
        SessionLogClock.Set(epochNs);
        _producer.LogText(LogLevel.Information, _event, text);
    }
}
