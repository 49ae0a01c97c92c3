using System;
using System.Collections.Generic;
using System.Diagnostics.CodeAnalysis;
using System.Globalization;
using System.Linq;
using System.Net;
using FixEngine.Config;
using FixEngine.Engine;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;

namespace FixEngine.AspNetCore;

/// <summary>The console a settings file's <c>HttpAcceptPort</c> starts (QuickFIX C++'s key): a Kestrel server of its own
/// on 127.0.0.1 at that port, with the console at <c>/fix-admin/</c> (and <c>/</c> redirecting there). Loopback only and
/// without authorization, as MapFixEngineAdmin allows without a policy; to serve it beyond the machine, map it into an
/// ASP.NET Core application with a policy instead. The core finds this type by name when the key is set.</summary>
internal sealed class SettingsFileAdminConsole : IEngineAddOn
{
    private readonly FixEngineHost _host;
    private readonly int _port;
    private WebApplication? _app;
    private AdminService? _service;

    private SettingsFileAdminConsole(FixEngineHost host, int port)
    {
        _host = host;
        _port = port;
    }

    /// <summary>The address the console listens on, once started (port 0 gets one from the system).</summary>
    public Uri? Address { get; private set; }

    /// <summary>Called by the core (EngineAddOns) by reflection: checks the key in every session.</summary>
    [DynamicDependency(nameof(Create))]
    public static IEngineAddOn Create(FixEngineHost host, IReadOnlyList<SessionSettings> settings)
    {
        int? port = null;
        SessionSettings? first = null;
        foreach (SessionSettings s in settings)
        {
            if (!s.ExtensionSettings.TryGetValue(EngineAddOns.HttpAcceptPortKey, out string? value)) continue;
            if (!int.TryParse(value, NumberStyles.None, CultureInfo.InvariantCulture, out int p) || p > 65535)
            {
                throw SettingsOrigin.Error(s, EngineAddOns.HttpAcceptPortKey, $"'{value}' is not a port (0-65535)");
            }
            if (port is int other && other != p)
            {
                throw SettingsOrigin.Error(s, EngineAddOns.HttpAcceptPortKey, $"{p}, but session {first!.SessionId} has {other}: the engine has one console; set it once, in [DEFAULT]");
            }
            port = p;
            first ??= s;
        }
        return new SettingsFileAdminConsole(host, port ?? 0);
    }

    public void Start()
    {
        WebApplicationBuilder builder = WebApplication.CreateSlimBuilder();
        builder.Logging.ClearProviders();
        builder.WebHost.ConfigureKestrel(k => k.Listen(IPAddress.Loopback, _port));
        WebApplication app = builder.Build();
        _service = new AdminService(_host);
        FixEngineAdminEndpoints.Map(app, _service, "/fix-admin", authorizationPolicy: null);
        app.MapGet("/", new Microsoft.AspNetCore.Http.RequestDelegate(ctx =>
        {
            ctx.Response.Redirect("/fix-admin/");
            return System.Threading.Tasks.Task.CompletedTask;
        }));
        try
        {
            app.StartAsync().GetAwaiter().GetResult();
        }
        catch (Exception e) when (e is System.IO.IOException or InvalidOperationException)
        {
            _service.Dispose();
            ((IDisposable)app).Dispose();
            throw new System.IO.IOException($"HttpAcceptPort: the console cannot listen on 127.0.0.1:{_port} ({e.Message})", e);
        }
        _app = app;
        string bound = app.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>()!.Addresses.First();
        Address = new Uri(bound.TrimEnd('/') + "/fix-admin/");
    }

    public void Dispose()
    {
        _service?.Dispose();
        if (_app is WebApplication app)
        {
            _app = null;
            using (var timeout = new System.Threading.CancellationTokenSource(TimeSpan.FromSeconds(5)))
            {
                app.StopAsync(timeout.Token).GetAwaiter().GetResult();
            }
            app.DisposeAsync().AsTask().GetAwaiter().GetResult();
        }
    }
}
