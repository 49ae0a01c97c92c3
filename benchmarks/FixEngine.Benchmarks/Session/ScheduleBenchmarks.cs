using System;
using BenchmarkDotNet.Attributes;
using FixEngine.Config;

namespace FixEngine.Benchmarks.Session;

/// <summary>Cost of the session schedule check that every visit of an idle session makes (FixSession.Poll: is the
/// session time open at this instant?), for the scale harness's daily <c>StartTime=EndTime=00:00:00</c> UTC schedule
/// and for daily and weekly schedules in a zone with DST: the full check, and the one a session's poll makes, answered
/// from the span in which the answer cannot change (<see cref="SessionSchedule.Cache"/>).</summary>
/// <remarks>
/// <para>Each invocation asks about <see cref="Instants"/> successive instants 100 ms apart (the engine agent's sweep
/// interval at most), as the paced sweep does for one idle session.</para>
/// <para>Run: <c>dotnet benchmarks/FixEngine.Benchmarks/bin/Release/net10.0/FixEngine.Benchmarks.dll --filter '*ScheduleBenchmarks*' --job short</c>.
/// Results: docs/benchmarks/2026-12-06-scale.md, "2026-12-07: the schedule check of an idle session's visit".</para>
/// </remarks>
[MemoryDiagnoser]
public class ScheduleBenchmarks
{
    /// <summary>Instants asked about per invocation.</summary>
    public const int Instants = 1000;

    private const long StepNs = 100_000_000L;
    private SessionSchedule _schedule = null!;
    private SessionSchedule.Cache _cache;
    private long _startNs;

    /// <summary>Which schedule.</summary>
    [Params("DailyUtcStartEqualsEnd", "DailyNewYork", "WeeklyNewYork")]
    public string Kind { get; set; } = "DailyUtcStartEqualsEnd";

    [GlobalSetup]
    public void Setup()
    {
        TimeZoneInfo ny = TimeZoneInfo.FindSystemTimeZoneById("America/New_York");
        _schedule = Kind switch
        {
            "DailyUtcStartEqualsEnd" => new SessionSchedule(new TimeOnly(0, 0), new TimeOnly(0, 0), TimeZoneInfo.Utc),
            "DailyNewYork" => new SessionSchedule(new TimeOnly(8, 0), new TimeOnly(17, 0), ny),
            "WeeklyNewYork" => new SessionSchedule(new TimeOnly(17, 0), new TimeOnly(17, 0), ny, DayOfWeek.Sunday, DayOfWeek.Friday),
            _ => throw new ArgumentException("unknown schedule kind " + Kind),
        };
        // A Wednesday, 12:00 UTC (inside every schedule above).
        _startNs = (new DateTime(2026, 12, 9, 12, 0, 0, DateTimeKind.Utc).Ticks - DateTime.UnixEpoch.Ticks) * 100;
    }

    /// <summary>The full check: time-zone conversions on every call.</summary>
    [Benchmark(Baseline = true, OperationsPerInvoke = Instants)]
    public int Uncached()
    {
        int open = 0;
        long ns = _startNs;
        for (int i = 0; i < Instants; i++, ns += StepNs)
        {
            if (_schedule.IsInSession(ns)) open++;
        }
        return open;
    }

    /// <summary>The poll's check: a compare against the cached span, the time-zone arithmetic only when it ends.</summary>
    [Benchmark(OperationsPerInvoke = Instants)]
    public int Cached()
    {
        int open = 0;
        long ns = _startNs;
        for (int i = 0; i < Instants; i++, ns += StepNs)
        {
            if (_schedule.IsInSession(ns, ref _cache)) open++;
        }
        return open;
    }
}
