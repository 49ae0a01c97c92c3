using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Runtime.InteropServices;
using System.Threading;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Tests.Engine;

namespace FixEngine.Tests.Samples;

/// <summary>Runs the sample acceptor as a real child process: it logs every session out on SIGTERM as on SIGINT, and a
/// configuration error is a message and exit code 2, not an unhandled exception.</summary>
[Collection(nameof(SampleProcesses))]
public sealed class SampleProcessTests
{
    private static string SampleDll(string name) => Path.Combine(
        AppContext.BaseDirectory.Replace(Path.Combine("tests", "FixEngine.Tests"), Path.Combine("samples", name), StringComparison.Ordinal), name + ".dll");

    [Theory]
    [InlineData("SIGTERM")]
    [InlineData("SIGINT")]
    public void TheSampleAcceptorLogsOutOnAStopSignal(string signal)
    {
        // --port 0: the sample binds a port the system picks and prints it.
        using Process acceptor = Start(SampleDll("Acceptor"), out System.Threading.Tasks.Task<int> reported, "--port", "0");
        try
        {
            int port = EngineTestSupport.AwaitPort(reported, acceptor);
            (_, IReadOnlyList<SessionSettings> initiator) = EngineTestSupport.ExecClientPair("[DEFAULT]\nHeartBtInt=30\nStartTime=00:00:00\nEndTime=00:00:00\nUseDataDictionary=N\nResetOnLogon=Y\nIdleStrategy=Backoff", port);
            var client = new ClientApp();
            using var engine = new FixEngineHost(initiator, client);
            engine.Start();
            Assert.True(client.LoggedOn.Wait(EngineTestSupport.Wait), "logged on to the sample acceptor");

            Assert.Equal(0, Kill(acceptor.Id, signal == "SIGTERM" ? 15 : 2));
            Assert.True(acceptor.WaitForExit(30_000), "the sample acceptor exited after " + signal);
            Assert.Equal(0, acceptor.ExitCode);
            Assert.True(EngineTestSupport.WaitFor(() => client.CountAdmin("5") >= 1), "the initiator received the acceptor's Logout before the process exited");
            engine.Stop(TimeSpan.FromSeconds(1));
        }
        finally
        {
            if (!acceptor.HasExited) acceptor.Kill();
        }
    }

    [Fact]
    public void AConfigurationErrorIsAMessageAndExitCode2()
    {
        string cfg = Path.Combine(Path.GetTempPath(), "fixengine-bad-" + Guid.NewGuid().ToString("N") + ".cfg");
        File.WriteAllText(cfg, "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=abc\n[SESSION]\nBeginString=FIX.4.4\nSenderCompID=A\nTargetCompID=B\n");
        try
        {
            using Process acceptor = Start(SampleDll("Acceptor"), cfg);
            string stderr = acceptor.StandardError.ReadToEnd();
            Assert.True(acceptor.WaitForExit(30_000));
            Assert.Equal(2, acceptor.ExitCode);
            Assert.Contains($"{cfg}(3): SocketAcceptPort:", stderr, StringComparison.Ordinal);
            Assert.DoesNotContain("Unhandled exception", stderr, StringComparison.Ordinal);
        }
        finally
        {
            File.Delete(cfg);
        }
    }

    /// <summary>Runs the sample acceptor to its exit; returns the exit code and standard error.</summary>
    private static (int ExitCode, string Stderr) RunToExit(params string[] args)
    {
        using Process acceptor = Start(SampleDll("Acceptor"), args);
        string stderr = acceptor.StandardError.ReadToEnd();
        Assert.True(acceptor.WaitForExit(60_000), "the sample acceptor exited");
        return (acceptor.ExitCode, stderr);
    }

    /// <summary>One line naming the cause, exit code 2, no stack trace.</summary>
    private static void AssertOneLineFailure((int ExitCode, string Stderr) run, string expected)
    {
        Assert.Equal(2, run.ExitCode);
        string[] lines = run.Stderr.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);
        Assert.True(lines.Length == 1, "one line on stderr, got: " + run.Stderr);
        Assert.StartsWith("[acceptor] cannot start: ", lines[0], StringComparison.Ordinal);
        Assert.True(lines[0].Contains(expected, StringComparison.Ordinal), $"expected '{expected}' in '{lines[0]}'");
        Assert.DoesNotContain("Unhandled exception", run.Stderr, StringComparison.Ordinal);
        Assert.DoesNotContain("   at ", run.Stderr, StringComparison.Ordinal);
    }

    [Fact]
    public void APortTakenByAnotherProgramIsOneLineNamingThePortAndExitCode2()
    {
        // Another program holds the port (bound to port 0 here, the port read back): the sample binds every address.
        bool v6 = System.Net.Sockets.Socket.OSSupportsIPv6;
        using var other = new System.Net.Sockets.Socket(v6 ? System.Net.Sockets.AddressFamily.InterNetworkV6 : System.Net.Sockets.AddressFamily.InterNetwork,
            System.Net.Sockets.SocketType.Stream, System.Net.Sockets.ProtocolType.Tcp);
        if (v6) other.DualMode = true;
        other.Bind(new System.Net.IPEndPoint(v6 ? System.Net.IPAddress.IPv6Any : System.Net.IPAddress.Any, 0));
        other.Listen(4);
        int port = ((System.Net.IPEndPoint)other.LocalEndPoint!).Port;
        AssertOneLineFailure(RunToExit("--port", port.ToString(CultureInfo.InvariantCulture)),
            $"SocketAcceptPort: port {port} is already in use by another listener");
    }

    [Fact]
    public void ASettingsFileWithoutASessionSectionIsOneLineAndExitCode2()
    {
        string cfg = Path.Combine(Path.GetTempPath(), "fixengine-nosession-" + Guid.NewGuid().ToString("N") + ".cfg");
        File.WriteAllText(cfg, "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=5001\n");
        try
        {
            AssertOneLineFailure(RunToExit(cfg), $"{cfg}: [SESSION]: no [SESSION] section");
        }
        finally
        {
            File.Delete(cfg);
        }
    }

    [Fact]
    public void AMissingDataDictionaryNamesTheSettingsFileLineAndKeyAndExitCode2()
    {
        string cfg = Path.Combine(Path.GetTempPath(), "fixengine-nodict-" + Guid.NewGuid().ToString("N") + ".cfg");
        string dictionary = Path.Combine(Path.GetTempPath(), "no-such-dir-" + Guid.NewGuid().ToString("N"), "FIX44.xml");
        File.WriteAllText(cfg, $"[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=5001\nUseDataDictionary=Y\nDataDictionary={dictionary}\nNonStopSession=Y\n"
            + "[SESSION]\nBeginString=FIX.4.4\nSenderCompID=A\nTargetCompID=B\n");
        try
        {
            AssertOneLineFailure(RunToExit(cfg), $"{cfg}(5): DataDictionary: the data dictionary '{dictionary}' does not exist");
        }
        finally
        {
            File.Delete(cfg);
        }
    }

    [Fact]
    public async System.Threading.Tasks.Task ASettingsFilesHttpAcceptPortServesTheConsoleUntilTheSampleStops()
    {
        // What a settings-file user does: HttpAcceptPort in [DEFAULT] and the sample acceptor on the file (port 0 here:
        // the system picks one; the engine prints the console's address).
        string cfg = Path.Combine(Path.GetTempPath(), "fixengine-console-" + Guid.NewGuid().ToString("N") + ".cfg");
        File.WriteAllText(cfg, "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=0\nHttpAcceptPort=0\nNonStopSession=Y\nUseDataDictionary=N\n"
            + "[SESSION]\nBeginString=FIX.4.4\nSenderCompID=EXEC\nTargetCompID=CLIENT\n");
        var console = new System.Threading.Tasks.TaskCompletionSource<Uri>(System.Threading.Tasks.TaskCreationOptions.RunContinuationsAsynchronously);
        const string Prefix = "[acceptor] Web console at ";
        using Process acceptor = Start(SampleDll("Acceptor"), line =>
        {
            if (line.StartsWith(Prefix, StringComparison.Ordinal)) console.TrySetResult(new Uri(line[Prefix.Length..]));
        }, out _, cfg);
        try
        {
            Uri address;
            try
            {
                address = await console.Task.WaitAsync(EngineTestSupport.Wait);
            }
            catch (TimeoutException)
            {
                throw new Xunit.Sdk.XunitException("the sample did not print the console's address" + (acceptor.HasExited ? $" (exited {acceptor.ExitCode})" : ""));
            }
            Assert.Equal("127.0.0.1", address.Host);
            using var http = new System.Net.Http.HttpClient { Timeout = TimeSpan.FromSeconds(30) };
            string page = await http.GetStringAsync(address);
            Assert.Contains("<html", page, StringComparison.OrdinalIgnoreCase);
            using var sessions = System.Text.Json.JsonDocument.Parse(await http.GetStringAsync(new Uri(address, "api/sessions")));
            System.Text.Json.JsonElement session = Assert.Single(sessions.RootElement.EnumerateArray());
            Assert.Equal("FIX.4.4:EXEC->CLIENT", session.GetProperty("id").GetString());
            Assert.Equal("acceptor", session.GetProperty("role").GetString());

            Assert.Equal(0, Kill(acceptor.Id, 15));
            Assert.True(acceptor.WaitForExit(30_000), "the sample acceptor exited after SIGTERM");
            Assert.Equal(0, acceptor.ExitCode);
            // The console stopped with it.
            await Assert.ThrowsAsync<System.Net.Http.HttpRequestException>(() => http.GetStringAsync(new Uri(address, "api/sessions")));
        }
        finally
        {
            if (!acceptor.HasExited) acceptor.Kill();
            File.Delete(cfg);
        }
    }

    [Fact]
    public void TheConsolesSettingsErrorsAreOneLineNamingTheFileLineAndKeyAndExitCode2()
    {
        // Another program holds a loopback port.
        using var other = new System.Net.Sockets.Socket(System.Net.Sockets.AddressFamily.InterNetwork, System.Net.Sockets.SocketType.Stream, System.Net.Sockets.ProtocolType.Tcp);
        other.Bind(new System.Net.IPEndPoint(System.Net.IPAddress.Loopback, 0));
        other.Listen(4);
        int taken = ((System.Net.IPEndPoint)other.LocalEndPoint!).Port;
        (string Keys, string Expected)[] cases =
        [
            ("HttpAcceptPort=web", "(4): HttpAcceptPort: 'web' is not a port (0-65535)"),
            ($"HttpAcceptPort={taken}", $"(4): HttpAcceptPort: port {taken} is already in use by another listener (on 127.0.0.1:{taken}"),
            ("HttpAcceptPort=0\nHttpAcceptAddress=0.0.0.0", "(5): HttpAcceptAddress: 0.0.0.0 is not a loopback address, and a settings file gives the console no authorization policy"),
        ];
        foreach ((string keys, string expected) in cases)
        {
            string cfg = Path.Combine(Path.GetTempPath(), "fixengine-console-bad-" + Guid.NewGuid().ToString("N") + ".cfg");
            File.WriteAllText(cfg, $"[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=0\n{keys}\nNonStopSession=Y\nUseDataDictionary=N\n"
                + "[SESSION]\nBeginString=FIX.4.4\nSenderCompID=EXEC\nTargetCompID=CLIENT\n");
            try
            {
                AssertOneLineFailure(RunToExit(cfg), cfg + expected);
            }
            finally
            {
                File.Delete(cfg);
            }
        }
    }

    [Fact]
    public async System.Threading.Tasks.Task TheHostedSampleExportsTheEnginesMetricsAndLifecycleTracesOverOtlp()
    {
        // A stand-in OTLP/HTTP collector: it keeps what is posted to /v1/traces and /v1/metrics (protobuf; the names and
        // tag values are in it as UTF-8 strings).
        var received = new List<(string Path, byte[] Body)>();
        (Microsoft.AspNetCore.Builder.WebApplication collector, Uri otlp) = await FixEngine.AspNetCore.ConsoleWebApp.StartAsync(System.Net.IPAddress.Loopback, 0, null, web =>
            Microsoft.AspNetCore.Builder.EndpointRouteBuilderExtensions.MapPost(web, "/v1/{signal}", new Microsoft.AspNetCore.Http.RequestDelegate(async ctx =>
            {
                using var body = new MemoryStream();
                await ctx.Request.Body.CopyToAsync(body);
                lock (received) received.Add((ctx.Request.Path.Value!, body.ToArray()));
                ctx.Response.ContentType = "application/x-protobuf";
            })));
        // The sample listens on the port in its appsettings.json; here one the system just gave out.
        int port;
        using (var probe = new System.Net.Sockets.TcpListener(System.Net.IPAddress.Loopback, 0))
        {
            probe.Start();
            port = ((System.Net.IPEndPoint)probe.LocalEndpoint).Port;
            probe.Stop();
        }
        var info = new ProcessStartInfo("dotnet") { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        info.ArgumentList.Add(SampleDll("HostedService"));
        info.ArgumentList.Add("--FixEngine:Default:SocketAcceptPort=" + port.ToString(CultureInfo.InvariantCulture));
        // The OpenTelemetry SDK's own variables: where, how, and how often (instead of every 60 s and 5 s).
        info.Environment["OTEL_EXPORTER_OTLP_ENDPOINT"] = otlp.ToString().TrimEnd('/');
        info.Environment["OTEL_EXPORTER_OTLP_PROTOCOL"] = "http/protobuf";
        info.Environment["OTEL_METRIC_EXPORT_INTERVAL"] = "500";
        info.Environment["OTEL_BSP_SCHEDULE_DELAY"] = "200";
        var output = new System.Text.StringBuilder();
        using Process sample = Process.Start(info)!;
        sample.OutputDataReceived += (_, e) => { lock (output) output.AppendLine(e.Data); };
        sample.ErrorDataReceived += (_, e) => { lock (output) output.AppendLine(e.Data); };
        sample.BeginOutputReadLine();
        sample.BeginErrorReadLine();
        try
        {
            (_, IReadOnlyList<SessionSettings> initiator) = EngineTestSupport.ExecClientPair("[DEFAULT]\nHeartBtInt=30\nStartTime=00:00:00\nEndTime=00:00:00\nUseDataDictionary=N\nResetOnLogon=Y\nIdleStrategy=Backoff", port);
            var client = new ClientApp();
            using var engine = new FixEngineHost(initiator, client);
            engine.Start();
            Assert.True(client.LoggedOn.Wait(TimeSpan.FromSeconds(60)), "logged on to the hosted sample: " + Output());

            bool Has(string path, string text)
            {
                byte[] needle = System.Text.Encoding.UTF8.GetBytes(text);
                lock (received) return received.Exists(r => r.Path == path && r.Body.AsSpan().IndexOf(needle) >= 0);
            }
            // The acceptor's Logon as a lifecycle span; its counters, tagged with its SessionID.
            Assert.True(EngineTestSupport.WaitFor(() => Has("/v1/traces", "fix.session.logon"), TimeSpan.FromSeconds(60)), "the Logon span reached the collector: " + Paths());
            Assert.True(EngineTestSupport.WaitFor(() => Has("/v1/metrics", "fix.messages.sent") && Has("/v1/metrics", "FIX.4.4:EXEC->CLIENT") && Has("/v1/metrics", "fix.sessions.logged_on"),
                TimeSpan.FromSeconds(60)), "the fix.* metrics reached the collector: " + Paths());
            engine.Stop(TimeSpan.FromSeconds(1));
        }
        finally
        {
            if (!sample.HasExited)
            {
                Kill(sample.Id, 15);
                if (!sample.WaitForExit(30_000)) sample.Kill();
            }
            FixEngine.AspNetCore.ConsoleWebApp.Stop(collector);
        }

        string Output()
        {
            lock (output) return output.ToString();
        }

        string Paths()
        {
            lock (received) return string.Join(", ", received.ConvertAll(r => $"{r.Path} ({r.Body.Length} B)")) + "; sample output: " + Output();
        }
    }

    private static Process Start(string dll, params string[] args) => Start(dll, out _, args);

    private static Process Start(string dll, out System.Threading.Tasks.Task<int> reportedPort, params string[] args) => Start(dll, null, out reportedPort, args);

    private static Process Start(string dll, Action<string>? onLine, out System.Threading.Tasks.Task<int> reportedPort, params string[] args)
    {
        // A child inherits ignored signals: a test run started as a background job of a non-interactive shell (`cmd &`)
        // ignores SIGINT and SIGQUIT, so would the sample, and SIGINT could not stop it. `env --default-signal` (GNU
        // coreutils 8.31+) starts the sample with the default disposition, as a terminal's Ctrl+C would find it.
        bool resetSignals = OperatingSystem.IsLinux() && File.Exists("/usr/bin/env");
        var info = new ProcessStartInfo(resetSignals ? "/usr/bin/env" : "dotnet") { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        if (resetSignals)
        {
            info.ArgumentList.Add("--default-signal=INT,QUIT,TERM");
            info.ArgumentList.Add("dotnet");
        }
        info.ArgumentList.Add(dll);
        foreach (string a in args) info.ArgumentList.Add(a);
        Process p = Process.Start(info)!;
        reportedPort = EngineTestSupport.ReportedPort(p);
        if (onLine is not null) p.OutputDataReceived += (_, e) => onLine(e.Data ?? "");
        p.BeginOutputReadLine();
        return p;
    }

    [DllImport("libc", EntryPoint = "kill", SetLastError = true)]
    private static extern int Kill(int pid, int signal);
}

/// <summary>Tests that run sample programs as child processes; they run alone.</summary>
[CollectionDefinition(nameof(SampleProcesses), DisableParallelization = true)]
public sealed class SampleProcesses;
