using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Text;

namespace FixEngine.Tests.Transport;

/// <summary>Runs a named probe of this assembly in a child process of its own, for measurements that must see every thread of a process.</summary>
/// <remarks>
/// The test host allocates on its own threads while a test runs (result reporting, timers on thread-pool threads: hundreds
/// of bytes to hundreds of KB per second, seen with an idle test), so <c>GC.GetTotalAllocatedBytes(precise: true)</c>
/// inside it can never read 0 for a window. The child is this test assembly run by <c>dotnet exec</c> (same
/// runtimeconfig: tiered compilation off) with itself as a startup hook: <see cref="StartupHook"/> runs the probe
/// named in <see cref="ProbeVariable"/>, writes its report to stdout and exits before the (empty) generated entry point.
/// </remarks>
internal static class IsolatedProcess
{
    public const string ProbeVariable = "FIXENGINE_TESTS_ISOLATED_PROBE";

    private static readonly Dictionary<string, Func<TextWriter, int>> s_probes = new()
    {
        [TcpAllocationTests.CompletionModeProbe] = TcpAllocationTests.MeasureCompletionModeAllocation,
        [TcpAllocationTests.CompletionSaeaProbe] = TcpAllocationTests.MeasureCompletionSaeaAllocation,
        [TcpAllocationTests.DedicatedModeProbe] = TcpAllocationTests.MeasureDedicatedModeAllocation,
        [TlsAllocationTests.Probe] = TlsAllocationTests.MeasureAllocation,
        [Store.PostgresTakeoverTests.Probe] = Store.PostgresTakeoverTests.RunAcceptor,
        [ConnectWakeupTests.Probe] = ConnectWakeupTests.Measure,
        [AwaitableReceivePauseTests.Probe] = AwaitableReceivePauseTests.MeasureCycleAllocation,
        [Engine.HostedPipeReceivePauseTests.Probe] = Engine.HostedPipeReceivePauseTests.MeasurePausedAllocation,
        [Engine.IdleSessionFootprintTests.Probe] = Engine.IdleSessionFootprintTests.Measure,
        [Engine.HeartbeatBehindEngineTests.Probe] = Engine.HeartbeatBehindEngineTests.Measure,
    };

    /// <summary>Runs <paramref name="probe"/> in a child process; returns its exit code and stdout (stderr appended).</summary>
    public static (int ExitCode, string Output) Run(string probe, TimeSpan timeout)
    {
        string assembly = typeof(IsolatedProcess).Assembly.Location;
        string? host = Environment.ProcessPath;
        if (host is null || !Path.GetFileNameWithoutExtension(host).Equals("dotnet", StringComparison.OrdinalIgnoreCase))
        {
            host = "dotnet";
        }
        var start = new ProcessStartInfo(host)
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        start.ArgumentList.Add("exec");
        start.ArgumentList.Add(assembly);
        start.Environment["DOTNET_STARTUP_HOOKS"] = assembly;
        start.Environment[ProbeVariable] = probe;
        using Process child = Process.Start(start) ?? throw new InvalidOperationException($"could not start {host}");
        var stderr = new StringBuilder();
        child.ErrorDataReceived += (_, e) =>
        {
            if (e.Data is not null) lock (stderr) stderr.AppendLine(e.Data);
        };
        child.BeginErrorReadLine();
        System.Threading.Tasks.Task<string> stdout = child.StandardOutput.ReadToEndAsync();
        if (!child.WaitForExit(timeout))
        {
            child.Kill();
            child.WaitForExit();
            return (-1, $"probe {probe} timed out after {timeout.TotalSeconds} s: {stdout.Result}{stderr}");
        }
        child.WaitForExit();
        lock (stderr) return (child.ExitCode, stdout.Result + stderr);
    }

    /// <summary>Runs the probe named by <see cref="ProbeVariable"/> (in the child); returns the exit code.</summary>
    internal static int RunProbe(string probe, TextWriter output) =>
        s_probes.TryGetValue(probe, out Func<TextWriter, int>? run) ? run(output) : 98;
}
