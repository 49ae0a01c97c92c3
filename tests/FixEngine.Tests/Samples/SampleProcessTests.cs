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

    private static Process Start(string dll, params string[] args) => Start(dll, out _, args);

    private static Process Start(string dll, out System.Threading.Tasks.Task<int> reportedPort, params string[] args)
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
        p.BeginOutputReadLine();
        return p;
    }

    [DllImport("libc", EntryPoint = "kill", SetLastError = true)]
    private static extern int Kill(int pid, int signal);
}

/// <summary>Tests that run sample programs as child processes; they run alone.</summary>
[CollectionDefinition(nameof(SampleProcesses), DisableParallelization = true)]
public sealed class SampleProcesses;
