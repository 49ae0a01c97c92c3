using System;
using System.Collections.Generic;
using System.Diagnostics.CodeAnalysis;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Session;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;

namespace FixEngine.DependencyInjection;

/// <summary>Registers a <see cref="FixEngineHost"/> with a .NET generic host: built from configuration, started and
/// stopped (with a graceful Logout of every session) by the host, its <see cref="IApplication"/> resolved from the
/// container.</summary>
/// <remarks>
/// <code>
/// builder.Services.AddSingleton&lt;IApplication, MyApplication&gt;();
/// builder.Services.AddFixEngine(builder.Configuration.GetSection("FixEngine"));
/// </code>
/// The engine is a singleton <see cref="FixEngineHost"/> (inject it to send or to read <see cref="FixEngineHost.Sessions"/>),
/// started by a hosted service in <see cref="IHostedService.StartAsync"/> and stopped in <see cref="IHostedService.StopAsync"/>.
/// Engine events go to the <c>FixEngine.Engine</c> logger; session events (logon, logout, resends, rejects, ...) to a
/// logger per session, <c>FixEngine.Session.&lt;SessionID&gt;</c> (<see cref="LoggerSessionLogFactory"/>), with their
/// levels, while inbound and outbound messages stay on the message log (<c>FileLogPath</c>). One engine per container.
/// To host acceptors on ASP.NET Core's Kestrel, set <see cref="EngineOptions.ListenOnAcceptorPorts"/> to false and add
/// the <c>FixConnectionHandler</c> of FixEngine.AspNetCore to a Kestrel endpoint.
/// </remarks>
public static class FixEngineServiceCollectionExtensions
{
    /// <summary>The logger category of engine events (connections, logons, disconnects).</summary>
    public const string EngineLoggerCategory = "FixEngine.Engine";

    /// <summary>Adds an engine whose sessions come from a configuration section (see <see cref="ConfigurationSettings"/>).</summary>
    /// <param name="services">The service collection.</param>
    /// <param name="section">The section, e.g. <c>configuration.GetSection("FixEngine")</c>.</param>
    /// <param name="configure">Adjusts the hosting options, or null.</param>
    /// <returns><paramref name="services"/>.</returns>
    /// <remarks>The settings are read when the engine is first resolved (at host start); a <see cref="ConfigException"/>
    /// then names the configuration path and key. Register an <see cref="IApplication"/> too.</remarks>
    public static IServiceCollection AddFixEngine(this IServiceCollection services, IConfiguration section, Action<FixEngineHostingOptions>? configure = null)
    {
        ArgumentNullException.ThrowIfNull(section);
        return services.AddFixEngine(_ => ConfigurationSettings.Load(section), configure);
    }

    /// <summary>Adds an engine whose sessions come from a QuickFIX-style settings file.</summary>
    /// <param name="services">The service collection.</param>
    /// <param name="settingsFilePath">The settings file.</param>
    /// <param name="configure">Adjusts the hosting options, or null.</param>
    /// <returns><paramref name="services"/>.</returns>
    public static IServiceCollection AddFixEngine(this IServiceCollection services, string settingsFilePath, Action<FixEngineHostingOptions>? configure = null)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(settingsFilePath);
        return services.AddFixEngine(_ => SettingsFile.Load(settingsFilePath), configure);
    }

    /// <summary>Adds an engine whose sessions a factory builds (from code, or from services of the container).</summary>
    /// <param name="services">The service collection.</param>
    /// <param name="settings">Builds the session settings; called once, when the engine is first resolved.</param>
    /// <param name="configure">Adjusts the hosting options, or null.</param>
    /// <returns><paramref name="services"/>.</returns>
    public static IServiceCollection AddFixEngine(this IServiceCollection services, Func<IServiceProvider, IReadOnlyList<SessionSettings>> settings, Action<FixEngineHostingOptions>? configure = null)
    {
        ArgumentNullException.ThrowIfNull(services);
        ArgumentNullException.ThrowIfNull(settings);
        var options = new FixEngineHostingOptions();
        configure?.Invoke(options);
        services.TryAddSingleton(options);
        services.TryAddSingleton(sp => new LoggerSessionLogFactory(sp.GetService<ILoggerFactory>() ?? NullLoggerFactory.Instance, options.Engine.SessionLogFactory));
        services.TryAddSingleton(sp =>
        {
            ILogger logger = sp.GetService<ILoggerFactory>()?.CreateLogger(EngineLoggerCategory) ?? NullLogger.Instance;
            EngineOptions engine = options.Engine;
            var withLogger = new EngineOptions
            {
                IdleStrategy = engine.IdleStrategy,
                CpuAffinity = engine.CpuAffinity,
                Clock = engine.Clock,
                PrewarmConnections = engine.PrewarmConnections,
                MemoryReclaimSurgeConnections = engine.MemoryReclaimSurgeConnections,
                // A store factory registered in the container (e.g. FixEngine.PostgreSQL's) when the options name none.
                MessageStoreFactory = engine.MessageStoreFactory ?? sp.GetService<IMessageStoreFactory>(),
                ListenOnAcceptorPorts = engine.ListenOnAcceptorPorts,
                ResolveHost = engine.ResolveHost,
                MeterFactory = engine.MeterFactory ?? sp.GetService<System.Diagnostics.Metrics.IMeterFactory>(),
                Console = engine.Console ?? (line => logger.LogInformation("{Event}", line)),
                // Session events go to ILogger (a category per session) beside the message log the settings ask for.
                SessionLogFactory = sp.GetRequiredService<LoggerSessionLogFactory>(),
                UnknownSessionHandler = engine.UnknownSessionHandler,
            };
            return new FixEngineHost(settings(sp), sp.GetRequiredService<IApplication>(), withLogger);
        });
        services.AddHostedService<FixEngineHostedService>();
        return services;
    }

    /// <summary>Adds an engine from a configuration section and registers <typeparamref name="TApplication"/> as its
    /// <see cref="IApplication"/> (a singleton).</summary>
    /// <typeparam name="TApplication">The application callbacks.</typeparam>
    /// <param name="services">The service collection.</param>
    /// <param name="section">The section, e.g. <c>configuration.GetSection("FixEngine")</c>.</param>
    /// <param name="configure">Adjusts the hosting options, or null.</param>
    /// <returns><paramref name="services"/>.</returns>
    public static IServiceCollection AddFixEngine<[DynamicallyAccessedMembers(DynamicallyAccessedMemberTypes.PublicConstructors)] TApplication>(this IServiceCollection services, IConfiguration section, Action<FixEngineHostingOptions>? configure = null)
        where TApplication : class, IApplication
    {
        services.TryAddSingleton<TApplication>();
        services.TryAddSingleton<IApplication>(sp => sp.GetRequiredService<TApplication>());
        return services.AddFixEngine(section, configure);
    }
}
