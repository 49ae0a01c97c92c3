using System;
using System.Collections.Generic;
using System.Net;
using System.Net.Http;
using System.Text.Json;
using System.Threading;
using System.Threading.Tasks;
using FixEngine.AspNetCore;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Tests.Engine;
using Microsoft.AspNetCore.Builder;

namespace FixEngine.Tests.AdminConsole;

/// <summary>Two engines talking FIX over TCP (EXEC acceptor that fills orders, CLIENT initiator) and one ASP.NET Core app
/// on a loopback port the system picks, with the console of each engine mapped: the initiator's at /fix-admin, the
/// acceptor's at /exec-admin. The acceptor logs messages and events to a FileLogPath, so a search covers the message log
/// too; the initiator does when asked (<c>logInitiator</c>), each engine in its own folder. With <c>acceptorDictionary</c>
/// the acceptor validates with that data dictionary (its counterparty must then send complete orders).</summary>
internal sealed class ConsoleFixture : IAsyncDisposable
{
    public FixEngineHost Acceptor { get; }
    public FixEngineHost Initiator { get; }
    public WebApplication App { get; }
    public Uri BaseAddress { get; }
    public HttpClient Http { get; }
    private readonly string _logDir;
    private readonly string? _initiatorLogDir;

    private ConsoleFixture(FixEngineHost acceptor, FixEngineHost initiator, WebApplication app, Uri baseAddress, string logDir, string? initiatorLogDir)
    {
        Acceptor = acceptor;
        Initiator = initiator;
        App = app;
        BaseAddress = baseAddress;
        _logDir = logDir;
        _initiatorLogDir = initiatorLogDir;
        Http = new HttpClient { BaseAddress = baseAddress, Timeout = TimeSpan.FromSeconds(30) };
    }

    public static async Task<ConsoleFixture> StartAsync(string? acceptorDictionary = null, bool logInitiator = false)
    {
        string logDir = EngineTestSupport.TempDirectory("console-log-");
        string? initiatorLogDir = logInitiator ? EngineTestSupport.TempDirectory("console-initiator-log-") : null;
        (IReadOnlyList<SessionSettings> acceptorSettings, IReadOnlyList<SessionSettings> initiatorSettings) = EngineTestSupport.ExecClientPair(
            "[DEFAULT]\nHeartBtInt=30\nStartTime=00:00:00\nEndTime=00:00:00\nUseDataDictionary=N\nIdleStrategy=Backoff", 0);
        acceptorSettings = [acceptorSettings[0] with { FileLogPath = logDir }];
        if (acceptorDictionary is not null) acceptorSettings = [acceptorSettings[0] with { UseDataDictionary = true, DataDictionary = acceptorDictionary }];
        if (initiatorLogDir is not null) initiatorSettings = [initiatorSettings[0] with { FileLogPath = initiatorLogDir }];
        var exec = new FillerApp();
        var client = new ClientApp();
        var acceptor = new FixEngineHost(acceptorSettings, exec);
        acceptor.Start();
        initiatorSettings = EngineTestSupport.WithConnectPort(initiatorSettings, EngineTestSupport.PortOf(acceptor));
        var initiator = new FixEngineHost(initiatorSettings, client);
        initiator.Start();

        (WebApplication app, Uri address) = await ConsoleWebApp.StartAsync(IPAddress.Loopback, 0, null, web =>
        {
            web.MapFixEngineAdmin(initiator);
            web.MapFixEngineAdmin(acceptor, "/exec-admin");
        });
        var fixture = new ConsoleFixture(acceptor, initiator, app, address, logDir, initiatorLogDir);
        fixture._exec = exec;
        fixture._client = client;
        return fixture;
    }

    private FillerApp? _exec;
    private ClientApp? _client;

    public FillerApp ExecApp => _exec!;

    public ClientApp ClientApp => _client!;

    public static string ClientId => "FIX.4.4:CLIENT->EXEC";

    public static string ExecId => "FIX.4.4:EXEC->CLIENT";

    /// <summary>True once a line of the acceptor's (or, with <paramref name="initiator"/>, the initiator's) shared log
    /// <c>fixengine.log</c> contains every one of <paramref name="parts"/> (the log's drain thread writes it: wait for it).</summary>
    public bool LogHasLine(bool initiator, params string[] parts)
    {
        string dir = initiator ? _initiatorLogDir ?? throw new InvalidOperationException("started without logInitiator") : _logDir;
        string file = System.IO.Path.Combine(dir, "fixengine.log");
        if (!System.IO.File.Exists(file)) return false;
        using var stream = new System.IO.FileStream(file, System.IO.FileMode.Open, System.IO.FileAccess.Read, System.IO.FileShare.ReadWrite | System.IO.FileShare.Delete);
        using var reader = new System.IO.StreamReader(stream);
        while (reader.ReadLine() is string line)
        {
            if (Array.TrueForAll(parts, p => line.Contains(p, StringComparison.Ordinal))) return true;
        }
        return false;
    }

    public async Task<JsonElement> GetJsonAsync(string path)
    {
        using HttpResponseMessage r = await Http.GetAsync(path);
        string body = await r.Content.ReadAsStringAsync();
        Assert.True(r.IsSuccessStatusCode, $"GET {path}: {(int)r.StatusCode} {body}");
        return JsonDocument.Parse(body).RootElement.Clone();
    }

    public async Task<(HttpStatusCode Status, string Body)> PostActionAsync(string console, string action, string id, string query = "", bool header = true)
    {
        using var request = new HttpRequestMessage(HttpMethod.Post, $"{console}/api/action/{action}?id={Uri.EscapeDataString(id)}{query}");
        if (header) request.Headers.Add(FixEngineAdminEndpoints.ActionHeader, "1");
        using HttpResponseMessage r = await Http.SendAsync(request);
        return (r.StatusCode, await r.Content.ReadAsStringAsync());
    }

    public async ValueTask DisposeAsync()
    {
        Http.Dispose();
        await App.StopAsync();
        await App.DisposeAsync();
        Initiator.Dispose();
        Acceptor.Dispose();
        EngineTestSupport.DeleteDirectory(_logDir);
        if (_initiatorLogDir is not null) EngineTestSupport.DeleteDirectory(_initiatorLogDir);
    }
}
