using System;
using System.Diagnostics;
using System.IO;
using System.Net;
using System.Threading;
using FixEngine.AspNetCore;
using FixEngine.DependencyInjection;
using FixEngine.Engine;
using Microsoft.AspNetCore.Builder;
using Microsoft.Extensions.DependencyInjection;

namespace FixEngine.Benchmarks.RoundTrip;

/// <summary>What the monitor of a <c>-console</c> configuration does (the key's suffix): the A/B variants that tell the
/// console's own cost from its monitor's.</summary>
public enum ConsoleMonitor
{
    /// <summary><c>-console</c>: the console page's live tail held open, and every second a new curl process probes
    /// <c>/health</c> and another reads <c>api/sessions</c> (a shell script's poll).</summary>
    All,

    /// <summary><c>-console-idle</c>: the console and the health check mapped, nobody asking.</summary>
    Idle,

    /// <summary><c>-console-tail</c>: only the live tail held open (one curl process for the whole run).</summary>
    Tail,

    /// <summary><c>-console-health</c>: only <c>/health</c>, a new curl process every second.</summary>
    Health,

    /// <summary><c>-console-sessions</c>: only <c>api/sessions</c>, a new curl process every second.</summary>
    Sessions,

    /// <summary><c>-console-spawn</c>: the same two curl processes every second, aimed at a closed port (nothing answers,
    /// the server does no work): the monitor's process cost without the console's.</summary>
    Spawn,

    /// <summary><c>-console-keepalive</c>: the live tail, and <c>/health</c> and <c>api/sessions</c> once a second from one
    /// long-lived curl over a kept-alive connection (as a monitoring agent polls): the console's cost without a new
    /// process per poll.</summary>
    KeepAlive,
}

/// <summary>The <c>-console</c> configurations' operations load on the acceptor engine: an ASP.NET Core app in this
/// process (Kestrel on a loopback port) with <c>MapFixEngineAdmin</c> and <c>AddFixEngineHealthChecks</c> mapped at
/// <c>/health</c>, and a monitor in a child process (curl; what it does is the <see cref="ConsoleMonitor"/>).</summary>
/// <remarks>The monitor is another process, as a browser and a monitoring system are: what it allocates is not this
/// process's; what the server allocates to answer it is (the round-trip report's B/msg is process-wide).</remarks>
internal sealed class AdminConsoleLoad : IDisposable
{
    private readonly WebApplication _app;
    private readonly Process? _monitor;

    private AdminConsoleLoad(WebApplication app, Process? monitor)
    {
        _app = app;
        _monitor = monitor;
    }

    /// <summary>The configuration key's suffix of <paramref name="monitor"/> (after <c>-console</c>).</summary>
    public static string Suffix(ConsoleMonitor monitor) => monitor == ConsoleMonitor.All ? "" : "-" + monitor.ToString().ToLowerInvariant();

    /// <summary>Starts the console over <paramref name="acceptor"/> and the monitor; returns once the monitor's first
    /// poll was answered (or, for the tail alone, once it was started).</summary>
    public static AdminConsoleLoad Start(FixEngineHost acceptor, ConsoleMonitor what)
    {
        (WebApplication app, Uri bound) = ConsoleWebApp.StartAsync(IPAddress.Loopback, 0,
            services => services.AddSingleton(acceptor).AddHealthChecks().AddFixEngineHealthChecks(),
            web =>
            {
                web.MapFixEngineAdmin(acceptor);
                web.MapHealthChecks("/health");
            }).GetAwaiter().GetResult();
        string address = bound.ToString().TrimEnd('/');
        if (what == ConsoleMonitor.Idle) return new AdminConsoleLoad(app, null);

        // Each answered poll prints one line, so the harness knows the monitor is running.
        string tail = $"curl -sN {address}/fix-admin/api/events > /dev/null & ";
        string script = "exec 2>/dev/null; " + what switch
        {
            ConsoleMonitor.All => tail + $"while true; do curl -sf {address}/health > /dev/null && curl -sf {address}/fix-admin/api/sessions > /dev/null && echo polled; sleep 1; done",
            ConsoleMonitor.Tail => tail + "echo polled; wait",
            ConsoleMonitor.Health => $"while true; do curl -sf {address}/health > /dev/null && echo polled; sleep 1; done",
            ConsoleMonitor.Sessions => $"while true; do curl -sf {address}/fix-admin/api/sessions > /dev/null && echo polled; sleep 1; done",
            // Port 9 (discard) on loopback: nothing listens, curl fails at connect, after the same start-up.
            ConsoleMonitor.Spawn => "while true; do curl -s http://127.0.0.1:9/health > /dev/null; curl -s http://127.0.0.1:9/fix-admin/api/sessions > /dev/null; echo polled; sleep 1; done",
            // One curl for the run: URL globbing makes /n1/../health, /n1/../fix-admin/api/sessions, /n2/... (curl removes
            // the dot segments), --rate 2/s spaces them, and curl keeps the connection alive between them.
            ConsoleMonitor.KeepAlive => tail + $"curl -sf {address}/fix-admin/api/sessions > /dev/null && echo polled && "
                + $"exec curl -s --rate 2/s \"{address}/n[1-1000000]/../{{health,fix-admin/api/sessions}}\" > /dev/null",
            _ => throw new ArgumentOutOfRangeException(nameof(what)),
        };
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
        if (_monitor is Process monitor)
        {
            try
            {
                // bash and its curl children: the whole process tree this harness started.
                if (!monitor.HasExited) monitor.Kill(entireProcessTree: true);
                monitor.WaitForExit(5_000);
            }
            catch (InvalidOperationException)
            {
                // Already gone.
            }
            monitor.Dispose();
        }
        ConsoleWebApp.Stop(_app);
    }
}
