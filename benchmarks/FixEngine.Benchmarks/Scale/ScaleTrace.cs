using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Text;
using System.Threading;
using FixEngine.Timing;

namespace FixEngine.Benchmarks.Scale;

/// <summary><c>scale --trace</c>: a line on stderr every <see cref="PeriodMs"/> from the harness and from a FixEngine
/// acceptor child, so a stall can be placed: which process fell behind, and whether its thread pool, its GC or the CPU
/// it got was the reason. Each line carries the monotonic clock (shared by both processes on Linux) in ms.</summary>
/// <remarks>Diagnostic only: it allocates (a string a line) and is off unless asked for. The child is told through the
/// environment variable <see cref="EnvironmentVariable"/>.</remarks>
internal sealed class ScaleTrace : IDisposable
{
    public const string EnvironmentVariable = "FIXENGINE_SCALE_TRACE";
    public const int PeriodMs = 250;

    private readonly Thread _thread;
    private readonly string _who;
    private readonly Func<string> _extra;
    private volatile bool _stop;

    private ScaleTrace(string who, Func<string> extra)
    {
        _who = who;
        _extra = extra;
        _thread = new Thread(Run) { IsBackground = true, Name = "scale-trace" };
        _thread.Start();
    }

    /// <summary>Starts tracing this process as <paramref name="who"/>; <paramref name="extra"/> adds the caller's counters.</summary>
    public static ScaleTrace Start(string who, Func<string> extra) => new(who, extra);

    /// <summary>True in a child started by a harness run with <c>--trace</c>.</summary>
    public static bool RequestedByParent => Environment.GetEnvironmentVariable(EnvironmentVariable) == "1";

    private void Run()
    {
        long lastCompleted = ThreadPool.CompletedWorkItemCount;
        double lastPauseMs = GC.GetTotalPauseDuration().TotalMilliseconds;
        double lastCpu = SelfCpuSeconds();
        int g0 = GC.CollectionCount(0), g1 = GC.CollectionCount(1), g2 = GC.CollectionCount(2);
        long lastNs = HighResTime.NowNs();
        Dictionary<string, double> lastThreads = ThreadCpuByName();
        while (!_stop)
        {
            Thread.Sleep(PeriodMs);
            long nowNs = HighResTime.NowNs();
            long completed = ThreadPool.CompletedWorkItemCount;
            double pauseMs = GC.GetTotalPauseDuration().TotalMilliseconds;
            double cpu = SelfCpuSeconds();
            int n0 = GC.CollectionCount(0), n1 = GC.CollectionCount(1), n2 = GC.CollectionCount(2);
            Dictionary<string, double> threads = ThreadCpuByName();
            var byName = new StringBuilder();
            foreach ((string name, double seconds) in threads)
            {
                double delta = seconds - lastThreads.GetValueOrDefault(name);
                if (delta >= 0.005) byName.Append(CultureInfo.InvariantCulture, $" [{name}]={delta * 1000:0}");
            }
            lastThreads = threads;
            string line = string.Create(CultureInfo.InvariantCulture,
                $"  trace {_who} t={nowNs / 1_000_000} dt={(nowNs - lastNs) / 1_000_000} tp_pending={ThreadPool.PendingWorkItemCount} tp_threads={ThreadPool.ThreadCount} tp_done=+{completed - lastCompleted} gc_pause=+{pauseMs - lastPauseMs:0}ms gc=+{n0 - g0}/{n1 - g1}/{n2 - g2} cpu=+{(cpu - lastCpu) * 1000:0}ms {_extra()} threads_ms:{byName}");
            Console.Error.WriteLine(line);
            lastCompleted = completed;
            lastPauseMs = pauseMs;
            lastCpu = cpu;
            (g0, g1, g2) = (n0, n1, n2);
            lastNs = nowNs;
        }
    }

    /// <summary>CPU seconds so far of this process's threads, summed by thread name (/proc/self/task/*/comm).</summary>
    private static Dictionary<string, double> ThreadCpuByName()
    {
        var result = new Dictionary<string, double>();
        try
        {
            foreach (string task in Directory.EnumerateDirectories("/proc/self/task"))
            {
                try
                {
                    string name = File.ReadAllText(Path.Combine(task, "comm")).Trim();
                    string stat = File.ReadAllText(Path.Combine(task, "stat"));
                    string[] fields = stat[(stat.LastIndexOf(')') + 2)..].Split(' ');
                    double cpu = (long.Parse(fields[11], CultureInfo.InvariantCulture) + long.Parse(fields[12], CultureInfo.InvariantCulture)) / 100.0;
                    result[name] = result.GetValueOrDefault(name) + cpu;
                }
                catch (IOException)
                {
                    // The thread ended meanwhile.
                }
            }
        }
        catch (IOException)
        {
        }
        return result;
    }

    /// <summary>User + system CPU of this process so far (from /proc/self/stat), 0 where it cannot be read.</summary>
    private static double SelfCpuSeconds()
    {
        try
        {
            string stat = File.ReadAllText("/proc/self/stat");
            string[] fields = stat[(stat.LastIndexOf(')') + 2)..].Split(' ');
            return (long.Parse(fields[11], CultureInfo.InvariantCulture) + long.Parse(fields[12], CultureInfo.InvariantCulture)) / 100.0;
        }
        catch (IOException)
        {
            return 0;
        }
    }

    public void Dispose()
    {
        _stop = true;
        _thread.Join();
    }
}
