using System;
using System.Globalization;

namespace FixEngine.Benchmarks.Diagnostics;

/// <summary>
/// Marks the round-trip harness's measured windows for an allocation trace: with <c>FIXENGINE_ALLOC_TRACE=1</c>, each
/// window's start and end (UTC ticks) and process id are printed to stderr after the window, so that the runtime's
/// per-allocation events recorded to a file can be cut to the window and named (thread, type, stack) afterwards.
/// </summary>
/// <remarks>
/// The runtime reports every allocation (GCSampledObjectAllocationHigh: one event per object, or per sample of a
/// frequently allocated type) only when the events are on from start-up, so the trace is taken with EventPipe's
/// start-up variables (the child processes inherit them; each writes its own file):
/// <code>
///   FIXENGINE_ALLOC_TRACE=1 DOTNET_EnableEventPipe=1 DOTNET_EventPipeOutputPath=/tmp/alloc-{pid}.nettrace \
///   DOTNET_EventPipeConfig='Microsoft-Windows-DotNETRuntime:0x1280000:5' dotnet FixEngine.Benchmarks.dll roundtrip ...
/// </code>
/// (0x200000 allocation events, 0x80000 type names, 0x1000000 heap and type names.) Nothing is allocated or listened
/// to in-process (an EventListener's own dispatch allocates in the window it measures). Every allocation takes the
/// runtime's slow path while the events are on: latencies measured this way are not comparable with normal runs.
/// </remarks>
public static class AllocationTrace
{
    private static readonly bool s_enabled = Environment.GetEnvironmentVariable("FIXENGINE_ALLOC_TRACE") == "1";

    [ThreadStatic]
    private static long t_startTicks;

    /// <summary>Marks the start of a measured window on this thread (no-op when off).</summary>
    public static void Begin()
    {
        if (s_enabled) t_startTicks = DateTime.UtcNow.Ticks;
    }

    /// <summary>Prints the window begun on this thread (no-op when off); call after the window's closing snapshot.</summary>
    /// <param name="label">Names the window in the output (a string the caller already has: nothing is built when off).</param>
    public static void End(string label)
    {
        if (!s_enabled) return;
        long end = DateTime.UtcNow.Ticks;
        Console.Error.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"alloc-trace-window pid={Environment.ProcessId} start={t_startTicks} end={end} {label}"));
    }
}
