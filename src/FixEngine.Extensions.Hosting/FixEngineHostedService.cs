using System.Threading;
using System.Threading.Tasks;
using FixEngine.Engine;
using FixEngine.Session;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;

namespace FixEngine.DependencyInjection;

/// <summary>Starts the container's <see cref="FixEngineHost"/> with the host and stops it (every session logs out) when
/// the host shuts down.</summary>
/// <remarks>Stopping holds no thread while the sessions' Logouts are answered (<see cref="FixEngineHost.StopAsync(System.TimeSpan, CancellationToken)"/>):
/// it waits up to <see cref="FixEngineHostingOptions.StopTimeout"/>, or until the host's shutdown token fires, then
/// closes what is still connected.</remarks>
internal sealed class FixEngineHostedService(FixEngineHost engine, FixEngineHostingOptions options, ILoggerFactory? loggers = null) : IHostedService
{
    private readonly ILogger? _logger = loggers?.CreateLogger(FixEngineServiceCollectionExtensions.EngineLoggerCategory);

    public async Task StartAsync(CancellationToken cancellationToken)
    {
        await engine.StartAsync(cancellationToken).ConfigureAwait(false);
        if (_logger is not null && _logger.IsEnabled(LogLevel.Information))
        {
            _logger.LogInformation("FIX engine started: {Count} session(s), acceptor port(s) [{Ports}]", engine.Sessions.Count, string.Join(", ", engine.AcceptorPorts));
            foreach (FixSession session in engine.Sessions) _logger.LogInformation("Session {Session} ({Role})", session.Id, session.IsInitiator ? "initiator" : "acceptor");
        }
        // ContinueInitializationOnError=Y: each session left out is an error in the host's log.
        foreach (Config.SkippedSession skipped in engine.SkippedSessions)
        {
            _logger?.LogError("Session {Session} not started (ContinueInitializationOnError=Y): {Error}", skipped.Session, skipped.Error.Message);
        }
    }

    public async Task StopAsync(CancellationToken cancellationToken)
    {
        _logger?.LogInformation("FIX engine stopping: logging out every session (up to {Timeout})", options.StopTimeout);
        bool loggedOut = await engine.StopAsync(options.StopTimeout, cancellationToken).ConfigureAwait(false);
        if (loggedOut) _logger?.LogInformation("FIX engine stopped");
        else _logger?.LogWarning("FIX engine stopped; some sessions did not complete their Logout in time (StopTimeout {Timeout}, or the host's shutdown timeout) and were disconnected", options.StopTimeout);
    }
}
