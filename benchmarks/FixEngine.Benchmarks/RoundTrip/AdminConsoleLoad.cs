using System;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Net;
using System.Net.Http;
using System.Threading;
using FixEngine.AspNetCore;
using FixEngine.DependencyInjection;
using FixEngine.Engine;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;

namespace FixEngine.Benchmarks.RoundTrip;

/// <summary>The <c>-console</c> configurations' operations load on the acceptor engine: an ASP.NET Core app in this
/// process (Kestrel on a loopback port) with <c>MapFixEngineAdmin</c> and <c>AddFixEngineHealthChecks</c> mapped at
/// <c>/health</c>, and a monitor in a child process (curl) that keeps the console's live tail open (as the console page
/// does) and, every second, probes <c>/health</c> and reads <c>api/sessions</c> (a monitoring system's poll).</summary>
/// <remarks>The monitor is another process, as a browser and a monitoring system are: what it allocates is not this
/// process's; what the server allocates to answer it is (the round-trip report's B/msg is process-wide).</remarks>
internal sealed class AdminConsoleLoad : IDisposable
{
    private readonly WebApplication _app;
    private readonly Process _monitor;

    private AdminConsoleLoad(WebApplication app, Process monitor)
    {
        _app = app;
        _monitor = monitor;
    }

    /// <summary>Starts the console over <paramref name="acceptor"/> and the monitor; returns once the monitor's first
    /// health probe and session read were answered.</summary>
    public static AdminConsoleLoad Start(FixEngineHost acceptor)
    {
        WebApplicationBuilder builder = WebApplication.CreateSlimBuilder();
        builder.Logging.ClearProviders();
        builder.WebHost.ConfigureKestrel(k => k.Listen(IPAddress.Loopback, 0));
        builder.Services.AddSingleton(acceptor);
        builder.Services.AddHealthChecks().AddFixEngineHealthChecks();
        WebApplication app = builder.Build();
        app.MapFixEngineAdmin(acceptor);
        app.MapHealthChecks("/health");
        app.StartAsync().GetAwaiter().GetResult();
        string address = app.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>()!.Addresses.First().TrimEnd('/');

        // The page's tail stays open for the whole run; the probe and the poll come once a second. Each answered
        // request prints one line, so the harness knows the monitor is running.
        string script = $"exec 2>/dev/null; curl -sN {address}/fix-admin/api/events > /dev/null & "
            + $"while true; do curl -sf {address}/health > /dev/null && curl -sf {address}/fix-admin/api/sessions > /dev/null && echo polled; sleep 1; done";
        var start = new ProcessStartInfo("bash", ["-c", script]) { RedirectStandardOutput = true, UseShellExecute = false };
        Process monitor = Process.Start(start) ?? throw new InvalidOperationException("the console monitor (bash, curl) did not start");
        var load = new AdminConsoleLoad(app, monitor);
        string? first = monitor.StandardOutput.ReadLine();
        if (first != "polled")
        {
            load.Dispose();
            throw new InvalidOperationException("the console monitor's first poll failed (is curl installed?)");
        }
        // Keep reading its lines so the pipe never fills (one line a second).
        var drain = new Thread(() =>
        {
            try
            {
                while (monitor.StandardOutput.ReadLine() is not null)
                {
                }
            }
            catch (Exception e) when (e is IOException or ObjectDisposedException or InvalidOperationException)
            {
                // The monitor was stopped.
            }
        }) { IsBackground = true, Name = "console-monitor-drain" };
        drain.Start();
        return load;
    }

    public void Dispose()
    {
        try
        {
            // bash and its curl children: the whole process tree this harness started.
            if (!_monitor.HasExited) _monitor.Kill(entireProcessTree: true);
            _monitor.WaitForExit(5_000);
        }
        catch (InvalidOperationException)
        {
            // Already gone.
        }
        _monitor.Dispose();
        using (var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(5))) _app.StopAsync(timeout.Token).GetAwaiter().GetResult();
        _app.DisposeAsync().AsTask().GetAwaiter().GetResult();
    }
}
