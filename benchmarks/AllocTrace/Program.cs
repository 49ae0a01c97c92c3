// AllocTrace: names what a round-trip harness window allocated (thread, type, stack), from an EventPipe trace.
//
//   FIXENGINE_ALLOC_TRACE=1 DOTNET_EnableEventPipe=1 DOTNET_EventPipeOutputPath='/tmp/at/alloc-{pid}.nettrace' \
//   DOTNET_EventPipeConfig='Microsoft-Windows-DotNETRuntime:0x1280000:5' \
//     dotnet benchmarks/FixEngine.Benchmarks/bin/Release/net10.0/FixEngine.Benchmarks.dll roundtrip ... 2> /tmp/at/log.txt
//   dotnet run -c Release --project benchmarks/AllocTrace -- /tmp/at/log.txt /tmp/at
//
// The harness prints one `alloc-trace-window pid=P start=TICKS end=TICKS label` line per measured window (stderr); this
// reads alloc-P.nettrace for each, and lists every GCSampledObjectAllocation event inside the window with its thread
// and managed stack. Limits: the runtime samples a type it sees often (the event then stands for several objects, and
// an allocation of such a type may be counted in a later event instead of its own), so a window's B/msg can be
// non-zero with nothing listed; events at the very end of a window are the harness's own work after its closing
// snapshot (the two clocks differ by up to a millisecond). Per type, the first events after each window that carry
// more than one object are listed too ("after"): they may include allocations of the window that were sampled out.
using System.Text.RegularExpressions;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Etlx;
using Microsoft.Diagnostics.Tracing.Parsers.Clr;

if (args.Length != 2)
{
    Console.Error.WriteLine("usage: AllocTrace LOG TRACE_DIR  (LOG: the harness's stderr; TRACE_DIR: the alloc-PID.nettrace files)");
    return 2;
}
var windows = File.ReadAllLines(args[0])
    .Select(l => Regex.Match(l, @"alloc-trace-window pid=(\d+) start=(\d+) end=(\d+) (.*)"))
    .Where(m => m.Success)
    .Select(m => (Pid: int.Parse(m.Groups[1].Value), Start: new DateTime(long.Parse(m.Groups[2].Value), DateTimeKind.Utc),
        End: new DateTime(long.Parse(m.Groups[3].Value), DateTimeKind.Utc), Label: m.Groups[4].Value))
    .ToList();
if (windows.Count == 0)
{
    Console.Error.WriteLine($"{args[0]}: no alloc-trace-window lines (was FIXENGINE_ALLOC_TRACE=1 set?)");
    return 1;
}
foreach (var process in windows.GroupBy(w => w.Pid))
{
    string path = Path.Combine(args[1], $"alloc-{process.Key}.nettrace");
    if (!File.Exists(path))
    {
        Console.WriteLine($"pid {process.Key}: {path} not found");
        continue;
    }
    using var log = new TraceLog(TraceLog.CreateFromEventPipeDataFile(path));
    var typeNames = new Dictionary<ulong, string>();
    var allocations = new List<(DateTime At, int Thread, ulong Type, long Bytes, long Objects, string Stack)>();
    foreach (TraceEvent e in log.Events)
    {
        if (e is GCBulkTypeTraceData types)
        {
            for (int i = 0; i < types.Count; i++) typeNames[types.Values(i).TypeID] = types.Values(i).TypeName;
        }
        else if (e is GCSampledObjectAllocationTraceData a)
        {
            var stack = new System.Text.StringBuilder();
            TraceCallStack? frame = e.CallStack();
            for (int n = 0; frame is not null && n < 14; n++, frame = frame.Caller)
            {
                string method = frame.CodeAddress.FullMethodName;
                stack.Append("\n        ").Append(string.IsNullOrEmpty(method) ? $"{frame.CodeAddress.ModuleName}!0x{frame.CodeAddress.Address:x}" : method);
            }
            allocations.Add((e.TimeStamp.ToUniversalTime(), e.ThreadID, a.TypeID, a.TotalSizeForTypeSample, a.ObjectCountForTypeSample, stack.ToString()));
        }
    }
    string Name(ulong type) => typeNames.TryGetValue(type, out string? n) ? n : $"type 0x{type:x}";
    Console.WriteLine($"pid {process.Key}: {allocations.Count} allocation events in the trace");
    foreach (var w in process)
    {
        var inside = allocations.Where(x => x.At >= w.Start && x.At <= w.End).ToList();
        Console.WriteLine($"  window {w.Label} {w.Start:HH:mm:ss.fff}-{w.End:HH:mm:ss.fff}: {inside.Count} events, {inside.Sum(x => x.Bytes)} B");
        foreach (var x in inside) Console.WriteLine($"    {x.At:HH:mm:ss.ffffff} thread {x.Thread} {Name(x.Type)} {x.Objects}x {x.Bytes} B{x.Stack}");
        foreach (var x in allocations.Where(x => x.At > w.End && x.At <= w.End.AddSeconds(5) && x.Objects > 1).GroupBy(x => x.Type).Select(g => g.First()))
        {
            Console.WriteLine($"    (after) {x.At:HH:mm:ss.ffffff} thread {x.Thread} {Name(x.Type)} {x.Objects}x {x.Bytes} B");
        }
    }
}
return 0;
