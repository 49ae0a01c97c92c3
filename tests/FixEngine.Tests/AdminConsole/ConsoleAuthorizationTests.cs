using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Net;
using System.Net.Http;
using System.Net.NetworkInformation;
using System.Net.Sockets;
using System.Security.Claims;
using System.Text.Encodings.Web;
using System.Threading;
using System.Threading.Tasks;
using FixEngine.AspNetCore;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Tests.Engine;
using FixEngine.Tests.Infrastructure;
using Microsoft.AspNetCore.Authentication;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;

namespace FixEngine.Tests.AdminConsole;

/// <summary>Who may use the console of an ASP.NET Core application: without an authorization policy only loopback, and an
/// application that listens beyond loopback is stopped as it starts; with one, every page and action needs it.</summary>
public sealed class ConsoleAuthorizationTests
{
    private const string Policy = "fix-desk";

    [Fact]
    public async Task WithoutAPolicyAnAppListeningBeyondLoopbackIsStoppedWithOneLineNamingTheAddress()
    {
        var addresses = new List<IPAddress> { IPAddress.Any };
        if (NonLoopbackAddress() is IPAddress machine) addresses.Add(machine);
        foreach (IPAddress address in addresses)
        {
            int exitCode = Environment.ExitCode;
            var logs = new CapturingLoggerProvider();
            using FixEngineHost engine = NewEngine();
            WebApplication app = BuildApp(engine, [address], logs, policy: null);
            try
            {
                await app.StartAsync();
                string bound = Assert.Single(Addresses(app));
                IHostApplicationLifetime lifetime = app.Services.GetRequiredService<IHostApplicationLifetime>();
                Assert.True(lifetime.ApplicationStopping.IsCancellationRequested, $"the app listening on {bound} was asked to stop");
                Assert.Equal(1, Environment.ExitCode);
                var critical = Assert.Single(logs.Lines, l => l.Level == LogLevel.Critical);
                Assert.Equal("FixEngine.AspNetCore.Admin", critical.Category);
                Assert.DoesNotContain('\n', critical.Text);
                Assert.StartsWith($"MapFixEngineAdmin(\"/fix-admin\"): no authorization policy, but the server listens on {bound}:", critical.Text);
                Assert.Contains("give MapFixEngineAdmin an authorizationPolicy, or listen on loopback only", critical.Text);
            }
            finally
            {
                Environment.ExitCode = exitCode;
                await app.StopAsync();
                await app.DisposeAsync();
            }
        }
    }

    [Fact]
    public async Task WithoutAPolicyAnAppWithoutLoggingProvidersSaysWhyOnStandardError()
    {
        int exitCode = Environment.ExitCode;
        using FixEngineHost engine = NewEngine();
        // No logging provider at all (the ILogger line goes nowhere): the one line must still reach standard error.
        WebApplication app = BuildApp(engine, [IPAddress.Any], logs: null, policy: null);
        var captured = new StringWriter();
        TextWriter stderr = Console.Error;
        try
        {
            // Process-wide; no other test redirects it. The check runs inside StartAsync (ApplicationStarted).
            Console.SetError(TextWriter.Synchronized(captured));
            try
            {
                await app.StartAsync();
            }
            finally
            {
                Console.SetError(stderr);
            }
            string bound = Assert.Single(Addresses(app));
            Assert.True(app.Services.GetRequiredService<IHostApplicationLifetime>().ApplicationStopping.IsCancellationRequested, $"the app listening on {bound} was asked to stop");
            Assert.Equal(1, Environment.ExitCode);
            // Other tests may write to standard error meanwhile: find ours, once, whole on one line.
            string[] lines = captured.ToString().Split('\n', StringSplitOptions.RemoveEmptyEntries);
            string line = Assert.Single(lines, l => l.StartsWith("MapFixEngineAdmin(", StringComparison.Ordinal));
            Assert.Equal($"MapFixEngineAdmin(\"/fix-admin\"): no authorization policy, but the server listens on {bound}: give MapFixEngineAdmin an authorizationPolicy, or listen on loopback only; stopping", line.TrimEnd('\r'));
        }
        finally
        {
            Environment.ExitCode = exitCode;
            await app.StopAsync();
            await app.DisposeAsync();
        }
    }

    [Fact]
    public async Task WithoutAPolicyALoopbackOnlyAppStartsAndServesLoopback()
    {
        int exitCode = Environment.ExitCode;
        var logs = new CapturingLoggerProvider();
        using FixEngineHost engine = NewEngine();
        IPAddress[] loopback = Socket.OSSupportsIPv6 ? [IPAddress.Loopback, IPAddress.IPv6Loopback] : [IPAddress.Loopback];
        await using WebApplication app = BuildApp(engine, loopback, logs, policy: null);
        await app.StartAsync();
        Assert.Equal(loopback.Length, Addresses(app).Count);
        Assert.False(app.Services.GetRequiredService<IHostApplicationLifetime>().ApplicationStopping.IsCancellationRequested);
        Assert.Equal(exitCode, Environment.ExitCode);
        Assert.DoesNotContain(logs.Lines, l => l.Level == LogLevel.Critical);
        foreach (string address in Addresses(app))
        {
            using var http = new HttpClient { BaseAddress = new Uri(address.TrimEnd('/') + "/"), Timeout = TimeSpan.FromSeconds(30) };
            using HttpResponseMessage r = await http.GetAsync("fix-admin/api/sessions");
            Assert.True(r.StatusCode == HttpStatusCode.OK, $"{address}: {(int)r.StatusCode} {await r.Content.ReadAsStringAsync()}");
        }
        await app.StopAsync();
    }

    [Fact]
    public async Task WithAPolicyEveryPageAndActionNeedsItAndTheActionIsLoggedWithTheUsersName()
    {
        var logs = new CapturingLoggerProvider();
        using FixEngineHost engine = NewEngine();
        // With a policy the console may listen on every address.
        await using WebApplication app = BuildApp(engine, [IPAddress.Any], logs, Policy);
        await app.StartAsync();
        Assert.False(app.Services.GetRequiredService<IHostApplicationLifetime>().ApplicationStopping.IsCancellationRequested);
        int port = new Uri(Assert.Single(Addresses(app)).Replace("0.0.0.0", "127.0.0.1", StringComparison.Ordinal)).Port;
        using var http = new HttpClient { BaseAddress = new Uri($"http://127.0.0.1:{port}/"), Timeout = TimeSpan.FromSeconds(30) };

        foreach (string path in new[] { "fix-admin/", "fix-admin/app.js", "fix-admin/api/sessions", "fix-admin/api/events" })
        {
            // Nobody signed in: challenged; signed in without the role: forbidden.
            Assert.Equal(HttpStatusCode.Unauthorized, await StatusAsync(http, HttpMethod.Get, path, user: null));
            Assert.Equal(HttpStatusCode.Forbidden, await StatusAsync(http, HttpMethod.Get, path, user: "mallory", role: "trader"));
        }
        Assert.Equal(HttpStatusCode.OK, await StatusAsync(http, HttpMethod.Get, "fix-admin/api/sessions", user: "alice", role: "fix-support"));

        string action = "fix-admin/api/action/disable?id=" + Uri.EscapeDataString("FIX.4.4:EXEC->CLIENT") + "&text=maintenance";
        Assert.Equal(HttpStatusCode.Forbidden, await StatusAsync(http, HttpMethod.Post, action, user: "mallory", role: "trader", header: true));
        Assert.True(engine.Runtime.IsEnabled(engine.Sessions[0].Id), "a forbidden action changed nothing");
        Assert.Equal(HttpStatusCode.OK, await StatusAsync(http, HttpMethod.Post, action, user: "alice", role: "fix-support", header: true));
        Assert.False(engine.Runtime.IsEnabled(engine.Sessions[0].Id), "alice disabled the session");

        // The session's AdminAction event names her (the tail replays the recent events first).
        using (var request = new HttpRequestMessage(HttpMethod.Get, "fix-admin/api/events"))
        using (var timeout = new CancellationTokenSource(EngineTestSupport.Wait))
        {
            request.Headers.Add(TestUserHandler.UserHeader, "alice:fix-support");
            using HttpResponseMessage r = await http.SendAsync(request, HttpCompletionOption.ResponseHeadersRead, timeout.Token);
            using var reader = new StreamReader(await r.Content.ReadAsStreamAsync(timeout.Token));
            string? line;
            while ((line = await reader.ReadLineAsync(timeout.Token)) is not null && !line.Contains("\"eventName\":\"AdminAction\"", StringComparison.Ordinal))
            {
            }
            Assert.NotNull(line);
            Assert.Contains("\"Actor\":\"alice@127.0.0.1\"", line);
            Assert.Contains("\"Action\":\"disable\"", line);
        }
        await app.StopAsync();
    }

    private static async Task<HttpStatusCode> StatusAsync(HttpClient http, HttpMethod method, string path, string? user, string? role = null, bool header = false)
    {
        using var request = new HttpRequestMessage(method, path);
        if (user is not null) request.Headers.Add(TestUserHandler.UserHeader, user + ":" + role);
        if (header) request.Headers.Add(FixEngineAdminEndpoints.ActionHeader, "1");
        using HttpResponseMessage r = await http.SendAsync(request, HttpCompletionOption.ResponseHeadersRead);
        return r.StatusCode;
    }

    /// <summary>An acceptor engine, not started: the console runs its session commands on the caller's thread.</summary>
    private static FixEngineHost NewEngine()
    {
        (IReadOnlyList<SessionSettings> acceptor, _) = EngineTestSupport.ExecClientPair(
            "[DEFAULT]\nHeartBtInt=30\nStartTime=00:00:00\nEndTime=00:00:00\nUseDataDictionary=N", 0);
        return new FixEngineHost(acceptor, new FillerApp());
    }

    private static WebApplication BuildApp(FixEngineHost engine, IPAddress[] listen, CapturingLoggerProvider? logs, string? policy)
    {
        WebApplicationBuilder builder = WebApplication.CreateSlimBuilder();
        builder.Logging.ClearProviders();
        if (logs is not null) builder.Logging.AddProvider(logs);
        builder.WebHost.ConfigureKestrel(k =>
        {
            foreach (IPAddress a in listen) k.Listen(a, 0);
        });
        if (policy is not null)
        {
            builder.Services.AddAuthentication(TestUserHandler.SchemeName).AddScheme<AuthenticationSchemeOptions, TestUserHandler>(TestUserHandler.SchemeName, null);
            builder.Services.AddAuthorization(o => o.AddPolicy(policy, p => p.RequireRole("fix-support")));
        }
        WebApplication app = builder.Build();
        if (policy is not null)
        {
            app.UseAuthentication();
            app.UseAuthorization();
        }
        app.MapFixEngineAdmin(engine, authorizationPolicy: policy);
        return app;
    }

    private static ICollection<string> Addresses(WebApplication app) =>
        app.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>()!.Addresses;

    /// <summary>An IPv4 address of this machine that is not loopback (a container's eth0), or null.</summary>
    private static IPAddress? NonLoopbackAddress() =>
        NetworkInterface.GetAllNetworkInterfaces()
            .Where(n => n.OperationalStatus == OperationalStatus.Up && n.NetworkInterfaceType != NetworkInterfaceType.Loopback)
            .SelectMany(n => n.GetIPProperties().UnicastAddresses)
            .Select(u => u.Address)
            .FirstOrDefault(a => a.AddressFamily == AddressFamily.InterNetwork && !IPAddress.IsLoopback(a));

    /// <summary>Signs a request in as the user the header names (<c>name:role</c>); no header, no user.</summary>
    private sealed class TestUserHandler(IOptionsMonitor<AuthenticationSchemeOptions> options, ILoggerFactory logger, UrlEncoder encoder)
        : AuthenticationHandler<AuthenticationSchemeOptions>(options, logger, encoder)
    {
        public const string SchemeName = "test-user";
        public const string UserHeader = "X-Test-User";

        protected override Task<AuthenticateResult> HandleAuthenticateAsync()
        {
            if (!Request.Headers.TryGetValue(UserHeader, out var value)) return Task.FromResult(AuthenticateResult.NoResult());
            string[] parts = value.ToString().Split(':');
            var identity = new ClaimsIdentity([new Claim(ClaimTypes.Name, parts[0]), new Claim(ClaimTypes.Role, parts[1])], SchemeName);
            return Task.FromResult(AuthenticateResult.Success(new AuthenticationTicket(new ClaimsPrincipal(identity), SchemeName)));
        }
    }
}

