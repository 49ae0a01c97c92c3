using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Net.Http;
using System.Reflection;
using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;
using System.Text.RegularExpressions;
using System.Threading;
using System.Threading.Tasks;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Session;
using Microsoft.CodeAnalysis;

namespace FixEngine.Generators.Tests;

/// <summary>
/// The ```csharp blocks of the integration packages' READMEs (FixEngine.AspNetCore, FixEngine.PostgreSQL) are run, and
/// those of docs/console.md and docs/postgres-store.md compiled.
/// </summary>
/// <remarks>
/// <list type="bullet">
/// <item>The AspNetCore example (a whole program) runs as a process in a temporary directory with the root README's
/// appsettings.json and a self-signed <c>fix-server.pfx</c> (password "password", as the block names it); the only edit
/// is the port (5001 becomes 0, read back from Kestrel's "Now listening on" line). A FixEngine initiator logs on over
/// Kestrel's TLS and gets an order filled; Ctrl+C stops the program.</item>
/// <item>The admin-console lines (the AspNetCore README's one line, docs/console.md's block) run inside an ASP.NET Core
/// application the harness builds around them, with a test authentication scheme (the blocks leave authentication to
/// the reader): the console's API refuses a caller without the policy's role and serves one with it.</item>
/// <item>The PostgreSQL example runs as a process with its README's settings (port 0, the test server's connection
/// string, a table prefix of its own) and the root README's <c>Fills</c> as <c>MyApplication</c>, kept running until
/// Ctrl+C; the root README's initiator sends it 1,000 orders and the test checks that every order the acceptor processed
/// has its ExecutionReport stored in PostgreSQL, in order. Skipped with the reason when no test server is set (never in CI).</item>
/// </list>
/// </remarks>
public sealed partial class ReadmeExampleTests
{
    private static string Doc(string name) => Path.Combine(Root(), "docs", name);

    /// <summary>What a project of Microsoft.NET.Sdk.Web brings as implicit usings.</summary>
    private const string WebUsings = """
        using System;
        using System.Collections.Generic;
        using System.IO;
        using System.Linq;
        using System.Threading;
        using System.Threading.Tasks;
        using Microsoft.AspNetCore.Builder;
        using Microsoft.AspNetCore.Hosting;
        using Microsoft.AspNetCore.Http;
        using Microsoft.AspNetCore.Routing;
        using Microsoft.Extensions.Configuration;
        using Microsoft.Extensions.DependencyInjection;
        using Microsoft.Extensions.Hosting;
        using Microsoft.Extensions.Logging;

        """;

    /// <summary>The root README acceptor's <c>Fills</c> class, the application the other READMEs' examples name.</summary>
    private static string RootFills()
    {
        string acceptorCode = CSharp(RootReadme, "An acceptor").Code;
        return acceptorCode[acceptorCode.IndexOf("sealed class Fills", StringComparison.Ordinal)..];
    }

    /// <summary>The root README acceptor's using lines that <paramref name="program"/> lacks (what <see cref="RootFills"/>
    /// needs).</summary>
    private static string FillsUsings(string program) =>
        string.Concat(Usings(CSharp(RootReadme, "An acceptor").Code).Split('\n').Where(u => u.Length > 0 && !program.Contains(u, StringComparison.Ordinal)).Select(u => u + "\n"));

    [Fact]
    public void EveryIntegrationReadmeAndDocCSharpBlockHasAHarness()
    {
        Assert.Equal(["Example", "Admin console"], Blocks(ReadmeOf("src", "FixEngine.AspNetCore")).Where(b => b.Language == "csharp").Select(b => b.Heading).ToArray());
        Assert.Equal(["Example"], Blocks(ReadmeOf("src", "FixEngine.PostgreSQL")).Where(b => b.Language == "csharp").Select(b => b.Heading).ToArray());
        Assert.Single(Blocks(Doc("console.md")), b => b.Language == "csharp");
        Assert.Equal(2, Blocks(Doc("postgres-store.md")).Count(b => b.Language == "csharp"));
    }

    // ---- FixEngine.AspNetCore: Kestrel owns the port ----

    private static readonly Regex KestrelListening = new(@"Now listening on: https://[^\s]*:(?<port>[0-9]+)");

    [Fact]
    public void TheAspNetCoreExampleServesASessionOverKestrelsTlsAndStopsOnCtrlC()
    {
        string code = CSharp(ReadmeOf("src", "FixEngine.AspNetCore"), "Example").Code;
        Assert.Contains("ListenAnyIP(5001", code);
        Assert.Contains("\"fix-server.pfx\", \"password\"", code);
        string dir = TempDirectory();
        try
        {
            File.WriteAllText(Path.Combine(dir, "appsettings.json"), Other(RootReadme, "In a generic host, on Kestrel, in tests", "json").Code);
            using RSA key = RSA.Create(2048);
            var request = new CertificateRequest("CN=localhost", key, HashAlgorithmName.SHA256, RSASignaturePadding.Pkcs1);
            var names = new SubjectAlternativeNameBuilder();
            names.AddDnsName("localhost");
            request.CertificateExtensions.Add(names.Build());
            using X509Certificate2 certificate = request.CreateSelfSigned(DateTimeOffset.UtcNow.AddDays(-1), DateTimeOffset.UtcNow.AddDays(7));
            File.WriteAllBytes(Path.Combine(dir, "fix-server.pfx"), certificate.Export(X509ContentType.Pkcs12, "password"));
            string trusted = Path.Combine(dir, "trusted.crt");
            File.WriteAllText(trusted, certificate.ExportCertificatePem());

            string program = Program(Path.Combine(dir, "web"), "ReadmeKestrel", FillsUsings(WebUsings + code) + WebUsings + code.Replace("5001", "0") + RootFills());
            var output = new ChildOutput();
            using Process server = Start(program, dir, output);
            try
            {
                int port = ReportedPort(server, output, KestrelListening);
                IReadOnlyList<SessionSettings> settings = SettingsFile.Parse(
                    "[DEFAULT]\nConnectionType=initiator\nSocketConnectHost=127.0.0.1\nSocketConnectPort=" + port + "\nHeartBtInt=30\n"
                    + "ReconnectInterval=1\nStartTime=00:00:00\nEndTime=00:00:00\nUseDataDictionary=N\n"
                    + "SocketUseSSL=Y\nSSLServerName=localhost\nCertificationAuthoritiesFile=" + trusted + "\n"
                    + "[SESSION]\nBeginString=FIX.4.4\nSenderCompID=CLIENT\nTargetCompID=EXEC\n", "initiator");
                var client = new OrderClient();
                using var initiator = new FixEngineHost(settings, client);
                initiator.Start();
                Assert.True(client.LoggedOn.Wait(TimeSpan.FromSeconds(60)), "the initiator did not log on over Kestrel's TLS within 60 s:\n" + output.Text);
                SendOrder(initiator.Sessions[0], 1);
                Assert.True(client.Filled.Wait(TimeSpan.FromSeconds(60)), "no fill for the order within 60 s:\n" + output.Text);
                Assert.Equal("1", client.FilledClOrdId);
                initiator.Stop(TimeSpan.FromSeconds(5));
            }
            finally
            {
                if (!server.HasExited) Interrupt(server);
            }
            bool stopped = server.WaitForExit(30_000);
            if (!stopped) server.Kill(entireProcessTree: true);
            Assert.True(stopped, "the program did not stop within 30 s of Ctrl+C:\n" + output.Text);
            Assert.Equal(0, server.ExitCode);
        }
        finally
        {
            Cleanup(dir);
        }
    }

    /// <summary>An initiator's application: logs on, keeps the ClOrdID of the first filled ExecutionReport.</summary>
    private sealed class OrderClient : IApplication
    {
        public readonly ManualResetEventSlim LoggedOn = new();
        public readonly ManualResetEventSlim Filled = new();
        public string? FilledClOrdId;

        public void OnLogon(FixSession session) => LoggedOn.Set();

        public FromAppResult FromApp(FixSession session, FixMessage message)
        {
            if (message.MsgType.SequenceEqual(MsgTypes.ExecutionReport) && message.TryGetChar(FixTags.OrdStatus, out char status) == FixValueStatus.Ok && status == '2'
                && message.TryGetSpan(FixTags.ClOrdID, out ReadOnlySpan<byte> id))
            {
                FilledClOrdId = System.Text.Encoding.ASCII.GetString(id);
                Filled.Set();
            }
            return FromAppResult.Accepted;
        }
    }

    private static void SendOrder(FixSession session, long id)
    {
        var deadline = DateTime.UtcNow.AddSeconds(30);
        while (!session.TrySendFromAnyThread(MsgTypes.NewOrderSingle, token: id, id, static (ref FixWriter w, scoped in long clOrdId) =>
        {
            w.Write(FixTags.ClOrdID, clOrdId);
            w.Write(FixTags.Symbol, "EURUSD"u8);
            w.Write(FixTags.Side, '1');
            w.WriteTimestamp(FixTags.TransactTime, FixTimestamp.UtcNow.UnixNanoseconds, TimestampPrecision.Millis);
            w.Write(FixTags.OrderQty, 100);
            w.Write(FixTags.OrdType, '1');
        }))
        {
            Assert.True(DateTime.UtcNow < deadline, "the session did not accept the order within 30 s");
            Thread.Sleep(10);
        }
    }

    // ---- the admin console behind an authorisation policy ----

    /// <summary>An ASP.NET Core application around a console block: a FIX acceptor (port 0) from configuration, a test
    /// authentication scheme that gives the caller the roles named in its X-Test-Roles header, and — for a one-line
    /// block — the policy and middleware docs/console.md shows. The block decides the rest.</summary>
    private static string ConsoleHarness(string block, bool wholeApplication) => WebUsings + """
        using System.Security.Claims;
        using System.Text.Encodings.Web;
        using FixEngine.AspNetCore;
        using FixEngine.DependencyInjection;
        using Microsoft.AspNetCore.Authentication;
        using Microsoft.Extensions.Options;

        public static class ConsoleBlock
        {
            public static WebApplication Build()
            {
                WebApplicationBuilder builder = WebApplication.CreateBuilder();
                builder.WebHost.UseUrls("http://127.0.0.1:0");
                builder.Logging.ClearProviders();
                builder.Configuration.AddInMemoryCollection(new Dictionary<string, string?>
                {
                    ["FixEngine:Default:ConnectionType"] = "acceptor",
                    ["FixEngine:Default:SocketAcceptPort"] = "0",
                    ["FixEngine:Default:StartTime"] = "00:00:00",
                    ["FixEngine:Default:EndTime"] = "00:00:00",
                    ["FixEngine:Sessions:0:BeginString"] = "FIX.4.4",
                    ["FixEngine:Sessions:0:SenderCompID"] = "EXEC",
                    ["FixEngine:Sessions:0:TargetCompID"] = "CLIENT",
                });
                builder.Services.AddAuthentication("test").AddScheme<AuthenticationSchemeOptions, RolesFromHeader>("test", null);
        """ + "\n" + (wholeApplication ? block : """
                builder.Services.AddFixEngine<Fills>(builder.Configuration.GetSection("FixEngine"));
                builder.Services.AddAuthorization(o => o.AddPolicy("fix-desk", p => p.RequireRole("fix-support")));
                WebApplication app = builder.Build();
                app.UseAuthentication();
                app.UseAuthorization();
        """ + "\n" + block) + """
                return app;
            }
        }

        public sealed class RolesFromHeader(IOptionsMonitor<AuthenticationSchemeOptions> options, ILoggerFactory logger, UrlEncoder encoder)
            : AuthenticationHandler<AuthenticationSchemeOptions>(options, logger, encoder)
        {
            protected override Task<AuthenticateResult> HandleAuthenticateAsync()
            {
                if (!Request.Headers.TryGetValue("X-Test-Roles", out var roles)) return Task.FromResult(AuthenticateResult.NoResult());
                var identity = new ClaimsIdentity("test");
                identity.AddClaim(new Claim(ClaimTypes.Name, "desk-user"));
                foreach (string role in roles.ToString().Split(',')) identity.AddClaim(new Claim(ClaimTypes.Role, role));
                return Task.FromResult(AuthenticateResult.Success(new AuthenticationTicket(new ClaimsPrincipal(identity), "test")));
            }
        }
        """;

    [Theory]
    [InlineData("readme")]
    [InlineData("console.md")]
    public async Task TheConsoleBlocksServeTheApiOnlyToTheirPolicysRole(string which)
    {
        string block = which == "readme"
            ? CSharp(ReadmeOf("src", "FixEngine.AspNetCore"), "Admin console").Code
            : Assert.Single(Blocks(Doc("console.md")), b => b.Language == "csharp").Code;
        Assert.Contains("authorizationPolicy: \"fix-desk\"", block);
        byte[] assembly = Build("ConsoleBlock" + which.Replace(".", "", StringComparison.Ordinal), OutputKind.DynamicallyLinkedLibrary,
            [ConsoleHarness(block, wholeApplication: which != "readme"), FillsSource]);
        var app = (Microsoft.AspNetCore.Builder.WebApplication)Assembly.Load(assembly).GetType("ConsoleBlock", throwOnError: true)!.GetMethod("Build")!.Invoke(null, null)!;
        await using (app)
        {
            await app.StartAsync();
            string address = app.Urls.First();
            using var http = new HttpClient { BaseAddress = new Uri(address), Timeout = TimeSpan.FromSeconds(30) };

            using HttpResponseMessage anonymous = await http.GetAsync("/fix-admin/api/sessions");
            Assert.Equal(System.Net.HttpStatusCode.Unauthorized, anonymous.StatusCode);

            using var wrongRole = new HttpRequestMessage(HttpMethod.Get, "/fix-admin/api/sessions");
            wrongRole.Headers.Add("X-Test-Roles", "trader");
            using HttpResponseMessage forbidden = await http.SendAsync(wrongRole);
            Assert.Equal(System.Net.HttpStatusCode.Forbidden, forbidden.StatusCode);

            using var desk = new HttpRequestMessage(HttpMethod.Get, "/fix-admin/api/sessions");
            desk.Headers.Add("X-Test-Roles", "fix-support");
            using HttpResponseMessage served = await http.SendAsync(desk);
            string body = await served.Content.ReadAsStringAsync();
            Assert.True(served.IsSuccessStatusCode, served.StatusCode + ": " + body);
            Assert.Contains("EXEC", body);
            Assert.Contains("CLIENT", body);
            await app.StopAsync();
        }
    }

    // ---- FixEngine.PostgreSQL ----

    [PostgresFact]
    public void ThePostgreSqlExampleStoresTheFillsOfTheRootInitiatorsOrdersInPostgreSql()
    {
        string code = CSharp(ReadmeOf("src", "FixEngine.PostgreSQL"), "Example").Code;
        string ini = Other(ReadmeOf("src", "FixEngine.PostgreSQL"), "Example", "ini").Code;
        const string ConnectionKey = "PostgreSQLStoreConnectionString=";
        Assert.Contains(ConnectionKey, ini);
        Assert.Contains("new MyApplication()", code);
        string prefix = "readme_" + Guid.NewGuid().ToString("N")[..8] + "_";
        string connection = Environment.GetEnvironmentVariable(PostgresFactAttribute.Variable)!;
        string settings = string.Concat(ini.Replace("5001", "0").Split('\n').Select(line => line.StartsWith(ConnectionKey, StringComparison.Ordinal)
            ? ConnectionKey + connection + "\nPostgreSQLStoreTablePrefix=" + prefix + "\n"
            : line + "\n"));
        // The block starts the engine and ends; the harness keeps it running until Ctrl+C, as the acceptors above do.
        string program = FillsUsings(code) + ReportingPort(code) + """

            using var readmeStop = new System.Threading.ManualResetEventSlim();
            System.Console.CancelKeyPress += (_, e) => { e.Cancel = true; readmeStop.Set(); };
            readmeStop.Wait();
            engine.Stop(System.TimeSpan.FromSeconds(5));

            """ + RootFills().Replace("sealed class Fills", "sealed class MyApplication", StringComparison.Ordinal);
        string dir = TempDirectory();
        try
        {
            File.WriteAllText(Path.Combine(dir, "acceptor.cfg"), settings);
            string acceptor = Program(Path.Combine(dir, "acceptor"), "ReadmePostgres", program);
            var output = new ChildOutput();
            using Process server = Start(acceptor, dir, output);
            RunPair(server, () => Program(Path.Combine(dir, "initiator"), "ReadmeInitiator",
                CSharp(RootReadme, "An initiator, sending from any thread").Code.Replace("5001", ReportedPort(server, output, ListeningLine).ToString())), dir);

            using var db = new Npgsql.NpgsqlConnection(connection);
            db.Open();
            // The README's initiator sends its 1,000 orders and exits without waiting for the fills, so on a loaded machine
            // its Logout can end the connection before the acceptor has read them all (they stay in the initiator's store
            // for its next Logon). What must hold at any speed: every order the acceptor processed has its fill stored in
            // PostgreSQL, in order, none twice. The session's processed-inbound mark is written with each fill (Logon 1,
            // order k is k + 1 unless a Heartbeat came between; a processed Logout takes it to 1002).
            using var processed = new Npgsql.NpgsqlCommand($"SELECT last_processed_inbound FROM {prefix}sessions", db);
            int mark = (int)processed.ExecuteScalar()!;
            var filled = new List<string>();
            using (var reports = new Npgsql.NpgsqlCommand($"SELECT body FROM {prefix}messages WHERE position($1 in body) > 0 ORDER BY seq_num", db))
            {
                reports.Parameters.AddWithValue("\u000135=8\u0001"u8.ToArray());
                using Npgsql.NpgsqlDataReader reader = reports.ExecuteReader();
                while (reader.Read())
                {
                    Match id = Regex.Match(System.Text.Encoding.ASCII.GetString((byte[])reader[0]), "\u000111=([0-9]+)\u0001");
                    Assert.True(id.Success, "a stored ExecutionReport without ClOrdID");
                    filled.Add(id.Groups[1].Value);
                }
            }
            Assert.True(filled.Count > 0, "no fill stored; processed-inbound mark " + mark);
            Assert.Equal(Enumerable.Range(1, filled.Count).Select(i => i.ToString(System.Globalization.CultureInfo.InvariantCulture)), filled);
            int ordersProcessed = Math.Min(mark, 1001) - 1;
            Assert.InRange(filled.Count, Math.Max(1, ordersProcessed - 2), ordersProcessed);
            using var drop = new Npgsql.NpgsqlCommand(
                $"DO $$ DECLARE t text; BEGIN FOR t IN SELECT tablename FROM pg_tables WHERE starts_with(tablename, '{prefix}') LOOP EXECUTE 'DROP TABLE ' || t || ' CASCADE'; END LOOP; "
                + $"FOR t IN SELECT proname FROM pg_proc WHERE starts_with(proname, '{prefix}') LOOP EXECUTE 'DROP FUNCTION ' || t; END LOOP; END $$", db);
            drop.ExecuteNonQuery();
        }
        finally
        {
            Cleanup(dir);
        }
    }

    [Fact]
    public void ThePostgresStoreDocsBlocksCompile()
    {
        Block[] blocks = Blocks(Doc("postgres-store.md")).Where(b => b.Language == "csharp").ToArray();
        Assert.All(blocks, b => Assert.Contains("PostgresMessageStoreFactory.Instance", b.Code));
        // The first wires a FixEngineHost given an application `app` (declared after its using lines); the second
        // registers the factory in a host builder's services.
        string[] lines = blocks[0].Code.Split('\n');
        string wiring = Usings(blocks[0].Code) + "using FixEngine.Config;\nusing FixEngine.Engine;\nFixEngine.Session.IApplication app = new Fills();\n"
            + string.Concat(lines.Where(l => !UsingDirective.IsMatch(l)).Select(l => l + "\n"));
        Build("PostgresDocWiring", OutputKind.ConsoleApplication, [wiring, FillsSource]);
        string hosting = "using FixEngine.DependencyInjection;\nusing FixEngine.Engine;\nusing FixEngine.PostgreSQL;\nusing Microsoft.Extensions.DependencyInjection;\nusing Microsoft.Extensions.Hosting;\n"
            + "HostApplicationBuilder builder = Host.CreateApplicationBuilder(args);\n" + blocks[1].Code;
        Build("PostgresDocHosting", OutputKind.ConsoleApplication, [hosting, FillsSource.Replace("class Fills", "class MyApplication", StringComparison.Ordinal)]);
    }
}

/// <summary>A fact that needs the PostgreSQL test server (<c>FIXENGINE_TEST_POSTGRES</c>, set by .ci/postgres.sh):
/// skipped with the reason when it is absent outside CI; with CI=true it runs and fails naming the variable.</summary>
public sealed class PostgresFactAttribute : FactAttribute
{
    public const string Variable = "FIXENGINE_TEST_POSTGRES";

    public PostgresFactAttribute()
    {
        bool set = !string.IsNullOrEmpty(Environment.GetEnvironmentVariable(Variable));
        bool ci = string.Equals(Environment.GetEnvironmentVariable("CI"), "true", StringComparison.OrdinalIgnoreCase);
        if (!set && !ci) Skip = $"needs a PostgreSQL server: {Variable} is not set (run 'bash .ci/postgres.sh start' and export the line it prints; CI sets it)";
    }
}
