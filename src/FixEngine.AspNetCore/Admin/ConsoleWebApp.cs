using System;
using System.Linq;
using System.Net;
using System.Threading.Tasks;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;

namespace FixEngine.AspNetCore;

/// <summary>A console's own web server: a slim ASP.NET Core app (no logging providers) with one Kestrel endpoint. The
/// settings file's console (<see cref="SettingsFileAdminConsole"/>) runs in one; the tests and the round-trip benchmark
/// start theirs the same way.</summary>
internal static class ConsoleWebApp
{
    /// <summary>Builds the app, lets <paramref name="map"/> map its endpoints and starts it listening on
    /// <paramref name="address"/>:<paramref name="port"/> (0: a port the system picks).</summary>
    /// <param name="address">The address to listen on.</param>
    /// <param name="port">The port, or 0.</param>
    /// <param name="services">Adds services before the app is built (health checks...), or null.</param>
    /// <param name="map">Maps the endpoints.</param>
    /// <returns>The running app and the address it listens on, with a trailing slash (<c>http://127.0.0.1:41234/</c>).</returns>
    /// <remarks>When it cannot start (the port is taken...), the app is disposed and the exception passes.</remarks>
    internal static async Task<(WebApplication App, Uri Address)> StartAsync(IPAddress address, int port,
        Action<IServiceCollection>? services, Action<WebApplication> map)
    {
        WebApplicationBuilder builder = WebApplication.CreateSlimBuilder();
        builder.Logging.ClearProviders();
        builder.WebHost.ConfigureKestrel(k => k.Listen(address, port));
        services?.Invoke(builder.Services);
        WebApplication app = builder.Build();
        try
        {
            map(app);
            await app.StartAsync().ConfigureAwait(false);
        }
        catch
        {
            await app.DisposeAsync().ConfigureAwait(false);
            throw;
        }
        string bound = app.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>()!.Addresses.First();
        return (app, new Uri(bound.TrimEnd('/') + "/"));
    }

    /// <summary>Stops and disposes an app started by <see cref="StartAsync"/> (at most 5 s for open requests, e.g. a
    /// live tail).</summary>
    internal static void Stop(WebApplication app)
    {
        using (var timeout = new System.Threading.CancellationTokenSource(TimeSpan.FromSeconds(5)))
        {
            app.StopAsync(timeout.Token).GetAwaiter().GetResult();
        }
        app.DisposeAsync().AsTask().GetAwaiter().GetResult();
    }
}
