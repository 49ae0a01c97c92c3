using System;
using System.Runtime.InteropServices;
using FixEngine.Timing;

namespace FixEngine.Tests.Timing;

/// <summary>Runs only where a counter reader can be mapped (x64 Linux).</summary>
public sealed class SimulatedTscFactAttribute : FactAttribute
{
    public SimulatedTscFactAttribute()
    {
        if (RuntimeInformation.ProcessArchitecture != Architecture.X64 || !OperatingSystem.IsLinux())
        {
            Skip = "the simulated TSC is read through a mapped x64 stub (x64 Linux only)";
        }
    }
}

/// <summary>
/// A simulated machine for <see cref="TscTimeSource"/>: a TSC at a fixed rate of true time, and an OS clock
/// (Stopwatch) whose rate against true time the test changes (as NTP does, or as a rate measured from a bad pair
/// would differ). Time moves only when the test advances it or the source reads the OS clock (each read costs
/// <see cref="ReadCostNs"/>), so every run is the same.
/// </summary>
internal sealed unsafe class SimulatedCounters : IDisposable
{
    private const double TicksPerNs = 2.9;
    private readonly long* _cell;
    private long _trueNs = 1_000_000_000;
    private long _osBaseTrueNs;
    private long _osBaseNs = 5_000_000_000;
    private double _osRate = 1.0;

    public SimulatedCounters()
    {
        _cell = (long*)NativeMemory.AllocZeroed(sizeof(long));
        _osBaseTrueNs = _trueNs;
        Advance(0);
    }

    /// <summary>True time that passes on each OS clock read.</summary>
    public long ReadCostNs { get; set; } = 20;

    /// <summary>Extra true time that passes after the next OS clock read only (a preemption between reads).</summary>
    public long NextReadDelayNs { get; set; }

    /// <summary>True time that passes inside every OS clock read before it samples (a thread held up on each read).</summary>
    public long SampleDelayNs { get; set; }

    /// <summary>The OS clock now, without advancing time.</summary>
    public long OsPeekNs => _osBaseNs + (long)((_trueNs - _osBaseTrueNs) * _osRate);

    public TscTimeSource CreateSource(Func<long>? osNow = null)
    {
        delegate* unmanaged[SuppressGCTransition]<long> reader = TscReader.MapCellReader(_cell);
        return new TscTimeSource(reader, reader, osNow ?? OsNow);
    }

    public long OsNow()
    {
        Advance(SampleDelayNs);
        long ns = OsPeekNs;
        Advance(ReadCostNs + NextReadDelayNs);
        NextReadDelayNs = 0;
        return ns;
    }

    public void Advance(long ns)
    {
        _trueNs += ns;
        *_cell = (long)(_trueNs * TicksPerNs);
    }

    /// <summary>From now on the OS clock runs <paramref name="ppm"/> ppm faster (negative: slower) than true time.</summary>
    public void SetOsRatePpm(double ppm)
    {
        _osBaseNs = OsPeekNs;
        _osBaseTrueNs = _trueNs;
        _osRate = 1 + ppm * 1e-6;
    }

    public void Dispose() => NativeMemory.Free(_cell);
}

/// <summary>A source over <paramref name="sim"/> whose OS clock reads are each held up by what <paramref name="delay"/> says.</summary>
internal sealed class TscTimeSourceProbe(SimulatedCounters sim, Func<long> delay)
{
    public TscTimeSource Source { get; } = sim.CreateSource(() =>
    {
        sim.SampleDelayNs = delay();
        return sim.OsNow();
    });
}

public class TscDivergenceTests
{
    /// <summary>Reads every millisecond for <paramref name="ns"/> of simulated time; returns the last value and checks each against the OS clock.</summary>
    private static long ReadEveryMs(SimulatedCounters sim, TscTimeSource source, long ns, long last, long boundNs)
    {
        for (long t = 0; t < ns; t += 1_000_000)
        {
            sim.Advance(1_000_000);
            long now = source.NowNs();
            Assert.True(now >= last, $"went back {last - now} ns");
            AssertNear(sim, now, boundNs);
            last = now;
        }
        return last;
    }

    private static void AssertNear(SimulatedCounters sim, long now, long boundNs)
    {
        long divergence = now - sim.OsPeekNs;
        Assert.True(Math.Abs(divergence) <= boundNs, $"the TSC clock is {divergence} ns from the OS clock (bound {boundNs} ns)");
    }

    [SimulatedTscFact]
    public void AReadAfterALongGapIsNotAheadByTheRateErrorTimesTheGap()
    {
        using var sim = new SimulatedCounters();
        TscTimeSource source = sim.CreateSource();
        long last = ReadEveryMs(sim, source, 5_000_000_000, long.MinValue, TscTimeSource.MaxDivergenceNs);
        // The OS clock's rate moves 50 ppm below the rate the source measured (an NTP frequency correction; a rate taken
        // from a pair with a 50 us window is as far off), then nothing reads the clock for 100 s.
        sim.SetOsRatePpm(-50);
        sim.Advance(100_000_000_000);
        long now = source.NowNs();
        Assert.True(now >= last);
        // Extrapolating the old rate over the gap would put it 5 ms ahead (and a lead is only slewed away, 0.5 ms a second).
        AssertNear(sim, now, TscTimeSource.MaxDivergenceNs);
        ReadEveryMs(sim, source, 3_000_000_000, now, TscTimeSource.MaxDivergenceNs);
    }

    [SimulatedTscFact]
    public void ARawTimestampConvertedAfterALongGapIsNotAhead()
    {
        using var sim = new SimulatedCounters();
        TscTimeSource source = sim.CreateSource();
        ReadEveryMs(sim, source, 5_000_000_000, long.MinValue, TscTimeSource.MaxDivergenceNs);
        sim.SetOsRatePpm(-50);
        sim.Advance(60_000_000_000);
        long raw = source.GetTimestamp();
        long os = sim.OsPeekNs;
        sim.Advance(1_000);
        long converted = source.TimestampToNs(raw);
        Assert.True(Math.Abs(converted - os) <= TscTimeSource.MaxDivergenceNs, $"{converted - os} ns from the OS clock at the read");
    }

    [SimulatedTscFact]
    public void ALateReanchorWithTheOsClockBehindDoesNotGoBack()
    {
        using var sim = new SimulatedCounters();
        TscTimeSource source = sim.CreateSource();
        long last = ReadEveryMs(sim, source, 5_000_000_000, long.MinValue, TscTimeSource.MaxDivergenceNs);
        // The OS clock slows by 400 ppm: within a 1 s segment the TSC clock gets ahead, and a reader late by a couple of
        // ms finds the OS clock still behind the values the old segment gave out.
        sim.SetOsRatePpm(-400);
        for (int i = 0; i < 3000; i++)
        {
            sim.Advance(i % 500 == 499 ? 3_000_000 : 1_000_000);
            long now = source.NowNs();
            Assert.True(now >= last, $"went back {last - now} ns at read {i}");
            last = now;
        }
    }

    [SimulatedTscFact]
    public void AReanchorWhosePairsAreAllHeldUpDoesNotStepTheClockAhead()
    {
        using var sim = new SimulatedCounters();
        TscTimeSource source = sim.CreateSource();
        long last = ReadEveryMs(sim, source, 5_000_000_000, long.MinValue, TscTimeSource.MaxDivergenceNs);
        // For the next re-anchor every try of the pair is held up 5 ms between the TSC read and the second OS read (a
        // loaded machine, a VM stealing the CPU): the pair's midpoint is 2.5 ms after the TSC read. Stepping forward to
        // it would leave the clock 2.5 ms ahead, slewed back at only 0.5 ms a second.
        sim.SampleDelayNs = 5_000_000;
        long reanchors = source.ReanchorCount;
        while (source.ReanchorCount == reanchors)
        {
            sim.Advance(1_000_000);
            long now = source.NowNs();
            Assert.True(now >= last);
            last = now;
        }
        sim.SampleDelayNs = 0;
        AssertNear(sim, last, TscTimeSource.MaxDivergenceNs);
        ReadEveryMs(sim, source, 3_000_000_000, last, TscTimeSource.MaxDivergenceNs);
    }

    [SimulatedTscFact]
    public void ACalibrationWhosePairsAreHeldUpForAWhileStartsWithinTheBound()
    {
        using var sim = new SimulatedCounters();
        // The first calibration pairs are held up 5 ms between the TSC read and the second OS read (each try); later ones
        // are not. Anchoring on such a pair would start the clock 2.5 ms ahead.
        int heldUpReads = 34; // all 32 reads of the first pair (16 tries), 170 ms, then the retry gets good tries
        var source = new TscTimeSourceProbe(sim, () => heldUpReads-- > 0 ? 5_000_000 : 0).Source;
        AssertNear(sim, source.NowNs(), TscTimeSource.MaxDivergenceNs);
        ReadEveryMs(sim, source, 3_000_000_000, long.MinValue, TscTimeSource.MaxDivergenceNs);
    }

    [SimulatedTscFact]
    public void ACalibrationWhosePairsAreAllHeldUpGivesUpInsteadOfStartingAhead()
    {
        using var sim = new SimulatedCounters();
        sim.SampleDelayNs = 5_000_000;
        var error = Assert.Throws<InvalidOperationException>(() => sim.CreateSource());
        Assert.Contains("held up", error.Message);
    }

    [SimulatedTscFact]
    public void StaysWithinTheBoundThroughRateChangesAndGaps()
    {
        using var sim = new SimulatedCounters();
        TscTimeSource source = sim.CreateSource();
        long last = ReadEveryMs(sim, source, 3_000_000_000, long.MinValue, TscTimeSource.MaxDivergenceNs);
        var random = new Random(13);
        for (int step = 0; step < 40; step++)
        {
            // A rate change of up to 50 ppm either way, a busy stretch, a gap of up to 200 s, or a preempted pair read.
            switch (random.Next(4))
            {
                case 0:
                    sim.SetOsRatePpm(random.Next(-50, 51));
                    break;
                case 1:
                    sim.Advance(random.NextInt64(1_000_000, 200_000_000_000));
                    long now = source.NowNs();
                    Assert.True(now >= last);
                    AssertNear(sim, now, TscTimeSource.MaxDivergenceNs);
                    last = now;
                    break;
                case 2:
                    sim.ReadCostNs = random.Next(20, 40_000);
                    sim.SampleDelayNs = random.Next(4) == 0 ? random.Next(0, 10_000_000) : 0;
                    break;
                default:
                    break;
            }
            last = ReadEveryMs(sim, source, random.NextInt64(10_000_000, 3_000_000_000), last, TscTimeSource.MaxDivergenceNs);
        }
    }
}
