using System;
using System.IO;
using System.Runtime;
using System.Runtime.InteropServices;

namespace FixEngine.Benchmarks.RoundTrip;

/// <summary>Names the machine a report was produced on.</summary>
public static class MachineInfo
{
    /// <summary>One line: CPU model, cores, OS, .NET version, GC mode.</summary>
    public static string Describe() =>
        $"{CpuModel()}, {Environment.ProcessorCount} logical cores, {RuntimeInformation.OSDescription} "
        + $"({RuntimeInformation.OSArchitecture}), {RuntimeInformation.FrameworkDescription}, "
        + $"GC {(GCSettings.IsServerGC ? "server" : "workstation")}/{(GCSettings.LatencyMode == GCLatencyMode.Batch ? "non-concurrent" : "concurrent")}";

    /// <summary>The 1, 5 and 15 minute load averages from /proc/loadavg ("n/a" elsewhere): the harness shares the
    /// machine, so every report says how busy it was.</summary>
    public static string LoadAverage()
    {
        try
        {
            if (File.Exists("/proc/loadavg"))
            {
                string[] parts = File.ReadAllText("/proc/loadavg").Split(' ');
                if (parts.Length >= 3) return $"{parts[0]} {parts[1]} {parts[2]}";
            }
        }
        catch (IOException)
        {
        }
        catch (UnauthorizedAccessException)
        {
        }
        return "n/a";
    }

    /// <summary>The first "model name" in /proc/cpuinfo with its "cpu family" and "model" numbers (a virtual machine's
    /// name can be just "AMD EPYC" across generations), or the architecture when unavailable.</summary>
    public static string CpuModel()
    {
        try
        {
            if (File.Exists("/proc/cpuinfo"))
            {
                string? name = null, family = null, model = null;
                foreach (string line in File.ReadLines("/proc/cpuinfo"))
                {
                    int colon = line.IndexOf(':');
                    if (colon <= 0) continue;
                    string key = line[..colon].Trim(), value = line[(colon + 1)..].Trim();
                    if (key == "model name") name ??= value;
                    else if (key == "cpu family") family ??= value;
                    else if (key == "model") model ??= value;
                    if (name is not null && family is not null && model is not null) break;
                }
                if (name is not null) return family is null ? name : $"{name} (family {family}, model {model})";
            }
        }
        catch (IOException)
        {
        }
        catch (UnauthorizedAccessException)
        {
        }
        return RuntimeInformation.ProcessArchitecture.ToString();
    }
}
