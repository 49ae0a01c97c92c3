using System;
using System.Collections.Generic;
using System.Diagnostics.CodeAnalysis;
using System.Globalization;
using System.Net;
using FixEngine.Config;
using FixEngine.Engine;
using Microsoft.AspNetCore.Builder;

namespace FixEngine.AspNetCore;

/// <summary>The console a settings file's <c>HttpAcceptPort</c> starts (QuickFIX C++'s key): a Kestrel server of its own
/// on 127.0.0.1 (or the loopback address <c>HttpAcceptAddress</c> names) at that port, with the console at
/// <c>/fix-admin/</c> (and <c>/</c> redirecting there). Loopback only and without authorization, as MapFixEngineAdmin
/// allows without a policy: a settings file cannot give it one, so a non-loopback address is refused; to serve it beyond
/// the machine, map it into an ASP.NET Core application with a policy instead. The core finds this type by name when
/// the key is set. Every problem is a <see cref="ConfigException"/> naming the file, line and key.</summary>
internal sealed class SettingsFileAdminConsole : IEngineAddOn
{
    private readonly FixEngineHost _host;
    private readonly IPAddress _address;
    private readonly int _port;
    private readonly SessionSettings? _origin;
    private WebApplication? _app;
    private AdminService? _service;

    private SettingsFileAdminConsole(FixEngineHost host, IPAddress address, int port, SessionSettings? origin)
    {
        _host = host;
        _address = address;
        _port = port;
        _origin = origin;
    }

    /// <summary>The address the console listens on, once started (port 0 gets one from the system).</summary>
    public Uri? Address { get; private set; }

    /// <summary>Called by the core (EngineAddOns) by reflection: checks the keys in every session.</summary>
    /// <exception cref="ConfigException">A bad port or address, sessions that disagree, an address that is not loopback,
    /// or an address without a port.</exception>
    [DynamicDependency(nameof(Create))]
    public static IEngineAddOn Create(FixEngineHost host, IReadOnlyList<SessionSettings> settings)
    {
        int? port = null;
        IPAddress? address = null;
        SessionSettings? first = null, firstAddress = null;
        foreach (SessionSettings s in settings)
        {
            if (s.ExtensionSettings.TryGetValue(EngineAddOns.HttpAcceptAddressKey, out string? text))
            {
                IPAddress a = ParseAddress(s, text);
                if (address is not null && !address.Equals(a))
                {
                    throw SettingsOrigin.Error(s, EngineAddOns.HttpAcceptAddressKey, $"{text}, but session {firstAddress!.SessionId} has {address}: the engine has one console; set it once, in [DEFAULT]");
                }
                address = a;
                firstAddress ??= s;
            }
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
        if (port is null && firstAddress is not null)
        {
            throw SettingsOrigin.Error(firstAddress, EngineAddOns.HttpAcceptAddressKey, "is set but HttpAcceptPort is not: the console starts with a port (HttpAcceptPort=8089)");
        }
        return new SettingsFileAdminConsole(host, address ?? IPAddress.Loopback, port ?? 0, first);
    }

    private static IPAddress ParseAddress(SessionSettings s, string text)
    {
        IPAddress? a = string.Equals(text, "localhost", StringComparison.OrdinalIgnoreCase) ? IPAddress.Loopback
            : IPAddress.TryParse(text, out IPAddress? parsed) ? parsed
            : throw SettingsOrigin.Error(s, EngineAddOns.HttpAcceptAddressKey, $"'{text}' is not an IP address (127.0.0.1, ::1)");
        if (!IPAddress.IsLoopback(a))
        {
            throw SettingsOrigin.Error(s, EngineAddOns.HttpAcceptAddressKey, $"{text} is not a loopback address, and a settings file gives the console "
                + "no authorization policy: keep it on loopback (reach it through an SSH tunnel), or host the console in an ASP.NET Core "
                + "application with MapFixEngineAdmin(authorizationPolicy: ...) (docs/console.md)");
        }
        return a;
    }

    public void Start()
    {
        _service = new AdminService(_host);
        AdminService service = _service;
        try
        {
            (_app, Uri bound) = ConsoleWebApp.StartAsync(_address, _port, null, app =>
            {
                FixEngineAdminEndpoints.Map(app, service, "/fix-admin", authorizationPolicy: null);
                app.MapGet("/", new Microsoft.AspNetCore.Http.RequestDelegate(ctx =>
                {
                    ctx.Response.Redirect("/fix-admin/");
                    return System.Threading.Tasks.Task.CompletedTask;
                }));
            }).GetAwaiter().GetResult();
            Address = new Uri(bound, "fix-admin/");
        }
        catch (Exception e) when (e is System.IO.IOException or InvalidOperationException or System.Net.Sockets.SocketException)
        {
            _service.Dispose();
            var endPoint = new IPEndPoint(_address, _port);
            throw SettingsOrigin.Error(_origin, EngineAddOns.HttpAcceptPortKey, InUse(e)
                ? $"port {_port} is already in use by another listener (on {endPoint}: another program, or another engine's console)"
                : $"the console cannot listen on {endPoint}: {Innermost(e).Message}");
        }
        _host.Runtime.Console.WebConsole(Address);
    }

    private static bool InUse(Exception e)
    {
        for (Exception? x = e; x is not null; x = x.InnerException)
        {
            if (x is Microsoft.AspNetCore.Connections.AddressInUseException) return true;
            if (x is System.Net.Sockets.SocketException { SocketErrorCode: System.Net.Sockets.SocketError.AddressAlreadyInUse }) return true;
        }
        return false;
    }

    private static Exception Innermost(Exception e)
    {
        while (e.InnerException is not null) e = e.InnerException;
        return e;
    }

    public void Dispose()
    {
        _service?.Dispose();
        if (_app is WebApplication app)
        {
            _app = null;
            ConsoleWebApp.Stop(app);
        }
    }
}
