using System.Threading;
using System.Threading.Tasks;
using FixEngine.Engine;
using Microsoft.Extensions.Hosting;

namespace FixEngine.DependencyInjection;

/// <summary>Starts the container's <see cref="FixEngineHost"/> with the host and stops it (every session logs out) when
/// the host shuts down.</summary>
/// <remarks>Stopping blocks a thread-pool thread for at most <see cref="FixEngineHostingOptions.StopTimeout"/>; if the
/// host's shutdown token fires first, the host goes on and the engine finishes its stop in the background.</remarks>
internal sealed class FixEngineHostedService(FixEngineHost engine, FixEngineHostingOptions options) : IHostedService
{
    public Task StartAsync(CancellationToken cancellationToken)
    {
        cancellationToken.ThrowIfCancellationRequested();
        engine.Start();
        return Task.CompletedTask;
    }

    public Task StopAsync(CancellationToken cancellationToken) =>
        Task.Run(() => engine.Stop(options.StopTimeout), CancellationToken.None).WaitAsync(cancellationToken);
}
