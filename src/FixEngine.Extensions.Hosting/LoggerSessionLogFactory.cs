using System;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Session;
using Microsoft.Extensions.Logging;
using FixLogLevel = FixEngine.Logging.LogLevel;

namespace FixEngine.DependencyInjection;

/// <summary>Session logs that send each session's events (logon, logout, resends, gaps, rejects, garbled frames, store
/// failures, ...) to an <see cref="ILogger"/> with a category per session, beside an inner message log.</summary>
/// <remarks>
/// <para>The category is <see cref="CategoryPrefix"/> + the SessionID, e.g. <c>FixEngine.Session.FIX.4.4:EXEC-&gt;CLIENT</c>,
/// so logging configuration can raise or lower one session (or, by prefix, all of them). Levels: logon, logout,
/// connect and disconnect Information; resends, gaps, sequence resets, rejects and garbled frames Warning; a store
/// failure or a refused Logon Error; heartbeats and test requests Debug (see <see cref="ISessionLog.OnEvent(FixLogLevel, string, long)"/>).</para>
/// <para>Inbound and outbound messages never go through ILogger: <see cref="ISessionLog.OnIncoming"/> and
/// <see cref="ISessionLog.OnOutgoing"/> go to the inner log only (the zero-allocation struct log, the message and audit
/// path), so the per-message cost is the inner log's. Events are rare; an event below the logger's level costs one
/// <see cref="ILogger.IsEnabled"/> call.</para>
/// <para><see cref="FixEngineServiceCollectionExtensions.AddFixEngine(Microsoft.Extensions.DependencyInjection.IServiceCollection, Func{IServiceProvider, System.Collections.Generic.IReadOnlyList{SessionSettings}}, Action{FixEngineHostingOptions}?)"/>
/// wires one by default, from the host's <see cref="ILoggerFactory"/>. Thread-safe to create logs (engine construction);
/// each log is called on its session's thread.</para>
/// </remarks>
public sealed class LoggerSessionLogFactory : ISessionLogFactory, IDisposable
{
    /// <summary>The start of every session's logger category.</summary>
    public const string CategoryPrefix = "FixEngine.Session.";

    private readonly ILoggerFactory _loggers;
    private readonly ISessionLogFactory _inner;
    private readonly FileSessionLogFactory? _ownInner;

    /// <summary>Creates the factory.</summary>
    /// <param name="loggers">Creates the per-session loggers.</param>
    /// <param name="inner">Makes each session's message log (and also receives its events); null = the settings' choice,
    /// a <see cref="FileSessionLogFactory"/> this factory owns (a <c>fixengine.log</c> under <c>FileLogPath</c>; no message
    /// log without it).</param>
    public LoggerSessionLogFactory(ILoggerFactory loggers, ISessionLogFactory? inner = null)
    {
        ArgumentNullException.ThrowIfNull(loggers);
        _loggers = loggers;
        _inner = inner ?? (_ownInner = new FileSessionLogFactory());
    }

    /// <summary>The logger category of a session.</summary>
    /// <param name="id">The session.</param>
    /// <returns><see cref="CategoryPrefix"/> + the SessionID.</returns>
    public static string Category(SessionId id) => CategoryPrefix + id;

    /// <inheritdoc/>
    public ISessionLog? Create(SessionSettings settings)
    {
        ArgumentNullException.ThrowIfNull(settings);
        return new LoggerSessionLog(_loggers.CreateLogger(Category(settings.SessionId)), _inner.Create(settings));
    }

    /// <summary>Hands the session's inner message log back to the inner factory (which closes its per-session files).</summary>
    /// <param name="settings">The session's settings.</param>
    /// <param name="log">A log <see cref="Create"/> returned.</param>
    public void Release(SessionSettings settings, ISessionLog log)
    {
        ArgumentNullException.ThrowIfNull(settings);
        if (log is LoggerSessionLog { Inner: ISessionLog inner }) _inner.Release(settings, inner);
    }

    /// <summary>Closes the message logs this factory made itself (not an inner factory given to it).</summary>
    public void Dispose() => _ownInner?.Dispose();

    /// <summary>Maps the engine's level to ILogger's.</summary>
    internal static LogLevel ToLogLevel(FixLogLevel level) => level switch
    {
        FixLogLevel.Trace => LogLevel.Trace,
        FixLogLevel.Debug => LogLevel.Debug,
        FixLogLevel.Information => LogLevel.Information,
        FixLogLevel.Warning => LogLevel.Warning,
        FixLogLevel.Error => LogLevel.Error,
        FixLogLevel.Critical => LogLevel.Critical,
        _ => LogLevel.None,
    };
}

/// <summary>One session's log: events to its <see cref="ILogger"/> and to the inner log, messages to the inner log only.</summary>
/// <remarks>Called on the session's thread only. Structured events (<see cref="SessionEvent"/>) go through the
/// source-generated <see cref="SessionEventLog"/> methods: one EventId per kind, properties by name, nothing formatted
/// below the logger's level.</remarks>
internal sealed class LoggerSessionLog(ILogger logger, ISessionLog? inner) : ISessionLog
{
    /// <summary>The message log beside the logger (from the inner factory), or null.</summary>
    public ISessionLog? Inner => inner;

    public void OnIncoming(ReadOnlySpan<byte> message, long epochNs) => inner?.OnIncoming(message, epochNs);

    public void OnOutgoing(ReadOnlySpan<byte> message, long epochNs) => inner?.OnOutgoing(message, epochNs);

    public void OnEvent(string text, long epochNs) => OnEvent(FixLogLevel.Information, text, epochNs);

    public void OnEvent(FixLogLevel level, string text, long epochNs)
    {
        inner?.OnEvent(level, text, epochNs);
        LogLevel mapped = LoggerSessionLogFactory.ToLogLevel(level);
        if (mapped == LogLevel.None || !logger.IsEnabled(mapped)) return;
        SessionEventLog.Other(logger, mapped, text);
    }

    public void OnEvent(in SessionEvent e, long epochNs)
    {
        inner?.OnEvent(in e, epochNs);
        LogLevel level = LoggerSessionLogFactory.ToLogLevel(e.Level);
        if (level == LogLevel.None || !logger.IsEnabled(level)) return;
        SessionEventLog.Write(logger, level, in e);
    }
}
