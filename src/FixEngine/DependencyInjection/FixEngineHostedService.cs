using System.Threading;
using System.Threading.Tasks;
using FixEngine.Engine;
using FixEngine.Session;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;

namespace FixEngine.DependencyInjection;

/// <summary>Starts the container's <see cref="FixEngineHost"/> with the host and stops it (every session logs out) when
/// the host shuts down.</summary>
/// <remarks>Stopping blocks a thread-pool thread for at most <see cref="FixEngineHostingOptions.StopTimeout"/>; if the
/// host's shutdown token fires first, the host goes on and the engine finishes its stop in the background.</remarks>
internal sealed class FixEngineHostedService(FixEngineHost engine, FixEngineHostingOptions options, ILoggerFactory? loggers = null) : IHostedService
{
    private readonly ILogger? _logger = loggers?.CreateLogger(FixEngineServiceCollectionExtensions.EngineLoggerCategory);

    public Task StartAsync(CancellationToken cancellationToken)
    {
        cancellationToken.ThrowIfCancellationRequested();
        engine.Start();
        if (_logger is not null && _logger.IsEnabled(LogLevel.Information))
        {
            _logger.LogInformation("FIX engine started: {Count} session(s), acceptor port(s) [{Ports}]", engine.Sessions.Count, string.Join(", ", engine.AcceptorPorts));
            foreach (FixSession session in engine.Sessions) _logger.LogInformation("Session {Session} ({Role})", session.Id, session.IsInitiator ? "initiator" : "acceptor");
        }
        return Task.CompletedTask;
    }

    public async Task StopAsync(CancellationToken cancellationToken)
    {
        _logger?.LogInformation("FIX engine stopping: logging out every session (up to {Timeout})", options.StopTimeout);
        await Task.Run(() => engine.Stop(options.StopTimeout), CancellationToken.None).WaitAsync(cancellationToken).ConfigureAwait(false);
        _logger?.LogInformation("FIX engine stopped");
    }
}
