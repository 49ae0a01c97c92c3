using System;
using FixEngine.Engine;

namespace FixEngine.DependencyInjection;

/// <summary>How <see cref="FixEngineServiceCollectionExtensions.AddFixEngine(Microsoft.Extensions.DependencyInjection.IServiceCollection, Microsoft.Extensions.Configuration.IConfiguration, Action{FixEngineHostingOptions}?)"/>
/// runs the engine inside a .NET generic host.</summary>
public sealed class FixEngineHostingOptions
{
    /// <summary>Engine-wide options (idle strategy, CPU affinity, clock, prewarm). Leave <see cref="EngineOptions.Console"/>
    /// null: engine events go to the <c>FixEngine.Engine</c> logger. <see cref="EngineOptions.SessionLogFactory"/> is the
    /// message log (null: the settings' <c>FileLogPath</c>); session events go to ILogger beside it either way.
    /// <see cref="EngineOptions.MessageStoreFactory"/> null: an <see cref="IMessageStoreFactory"/> registered in the
    /// container (such as FixEngine.PostgreSQL's <c>PostgresMessageStoreFactory</c>), else the settings' file or memory
    /// store.</summary>
    public EngineOptions Engine { get; set; } = new();

    /// <summary>How long host shutdown waits for every session to log out before closing the sockets. Default 5 s; the host's
    /// own shutdown timeout (30 s by default) must be longer.</summary>
    public TimeSpan StopTimeout { get; set; } = TimeSpan.FromSeconds(5);
}
