using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using FixEngine.Diagnostics;
using FixEngine.Tests.Infrastructure;

namespace FixEngine.Tests.Diagnostics;

public sealed class LatencyHistogramTests
{
    private const long Hour = 3_600_000_000_000L;

    private static LatencyHistogram Uniform(int n, int digits = 3)
    {
        var histogram = new LatencyHistogram(Hour, digits);
        for (int v = 1; v <= n; v++) histogram.RecordValue(v);
        return histogram;
    }

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    [InlineData(4)]
    [InlineData(5)]
    public void PercentilesOfAUniformDistributionAreWithinTheStatedPrecision(int digits)
    {
        LatencyHistogram histogram = Uniform(1_000_000, digits);
        double tolerance = Math.Pow(10, -digits);
        foreach (double p in new[] { 1.0, 10, 25, 50, 75, 90, 99, 99.9, 99.99 })
        {
            double exact = Math.Ceiling(p / 100 * 1_000_000);
            long actual = histogram.ValueAtPercentile(p);
            Assert.True(Math.Abs(actual - exact) <= exact * tolerance, $"p{p}: {actual} vs {exact} at {digits} digits");
        }
        Assert.Equal(1_000_000, histogram.TotalCount);
        Assert.Equal(1, histogram.Min);
        Assert.Equal(1_000_000, histogram.Max);
        Assert.Equal(1_000_000, histogram.ValueAtPercentile(100));
        Assert.Equal(1, histogram.ValueAtPercentile(0));
    }

    [Fact]
    public void MedianOfOneToAMillionIsWithinOneTenthOfAPercentAndMeanAndStdDevAreClose()
    {
        LatencyHistogram histogram = Uniform(1_000_000);
        Assert.InRange(histogram.ValueAtPercentile(50), 499_500, 500_500);
        Assert.InRange(histogram.Mean, 500_000.5 * 0.999, 500_000.5 * 1.001);
        double stdDev = 1_000_000 / Math.Sqrt(12);
        Assert.InRange(histogram.StdDev, stdDev * 0.999, stdDev * 1.001);
    }

    [Fact]
    public void SmallValuesAreExact()
    {
        var histogram = new LatencyHistogram(Hour, 3);
        foreach (long v in new long[] { 0, 1, 2, 3, 100, 2047 }) histogram.RecordValue(v);
        Assert.Equal(0, histogram.Min);
        Assert.Equal(2047, histogram.Max);
        Assert.Equal(1, histogram.GetCountAtValue(0));
        Assert.Equal(1, histogram.GetCountAtValue(2047));
        Assert.Equal(2, histogram.ValueAtPercentile(50));
        Assert.Equal(100, histogram.ValueAtPercentile(70));
        Assert.Equal(1, histogram.SizeOfEquivalentValueRange(2047));
        Assert.Equal(2, histogram.SizeOfEquivalentValueRange(2048));
    }

    [Fact]
    public void EquivalentValueRangesHaveTheRelativeWidthOfThePrecision()
    {
        var histogram = new LatencyHistogram(Hour, 3);
        var random = new Random(7);
        for (int i = 0; i < 10_000; i++)
        {
            long value = (long)(random.NextDouble() * Hour);
            long lowest = histogram.LowestEquivalentValue(value);
            long highest = histogram.HighestEquivalentValue(value);
            Assert.InRange(value, lowest, highest);
            Assert.True(highest - lowest + 1 <= Math.Max(1, value / 1000.0), $"{value}: [{lowest}, {highest}]");
        }
    }

    [Fact]
    public void LowestDiscernibleValueCoarsensSmallValues()
    {
        var histogram = new LatencyHistogram(1000, Hour, 2);
        histogram.RecordValue(1);
        histogram.RecordValue(500);
        Assert.Equal(2, histogram.GetCountAtValue(0));
        Assert.Equal(512, histogram.SizeOfEquivalentValueRange(5));
        Assert.Equal(500, histogram.ValueAtPercentile(100));
    }

    [Fact]
    public void ValuesOutOfRangeAreClampedAndCounted()
    {
        var histogram = new LatencyHistogram(1_000_000, 3);
        histogram.RecordValue(5_000_000);
        histogram.RecordValue(long.MaxValue);
        histogram.RecordValue(-3);
        histogram.RecordValue(1_000_000);
        Assert.Equal(4, histogram.TotalCount);
        Assert.Equal(2, histogram.OverflowCount);
        Assert.Equal(1, histogram.UnderflowCount);
        Assert.Equal(1_000_000, histogram.Max);
        Assert.Equal(0, histogram.Min);
        Assert.Equal(3, histogram.GetCountAtValue(1_000_000));
        Assert.Equal(1_000_000, histogram.ValueAtPercentile(100));
    }

    [Fact]
    public void HighestTrackableValueIsRecordedWithoutClampingForEveryPrecision()
    {
        for (int digits = 1; digits <= 5; digits++)
        {
            foreach (long highest in new long[] { 2, 1000, 123_456_789, Hour, long.MaxValue / 2, long.MaxValue })
            {
                var histogram = new LatencyHistogram(highest, digits);
                histogram.RecordValue(highest);
                histogram.RecordValue(highest - 1);
                Assert.Equal(0, histogram.OverflowCount);
                Assert.Equal(highest, histogram.ValueAtPercentile(100));
                Assert.True(histogram.ValueAtPercentile(0) >= highest - 1 - histogram.SizeOfEquivalentValueRange(highest));
            }
        }
    }

    [Fact]
    public void InvalidConfigurationIsRejected()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => new LatencyHistogram(Hour, 0));
        Assert.Throws<ArgumentOutOfRangeException>(() => new LatencyHistogram(Hour, 6));
        Assert.Throws<ArgumentOutOfRangeException>(() => new LatencyHistogram(0, Hour, 3));
        Assert.Throws<ArgumentOutOfRangeException>(() => new LatencyHistogram(10, 19, 3));
    }

    [Fact]
    public void RecordValueWithCountAddsThatManyOccurrences()
    {
        var histogram = new LatencyHistogram(Hour, 3);
        histogram.RecordValueWithCount(1000, 99);
        histogram.RecordValueWithCount(5000, 1);
        histogram.RecordValueWithCount(7000, 0);
        Assert.Equal(100, histogram.TotalCount);
        Assert.Equal(1000, histogram.ValueAtPercentile(99));
        Assert.Equal(5000, histogram.ValueAtPercentile(99.5));
    }

    [Fact]
    public void CoordinatedOmissionCorrectionBackFillsTheMissedSamples()
    {
        var histogram = new LatencyHistogram(Hour, 3);
        histogram.RecordValueWithExpectedInterval(1000, 100);
        Assert.Equal(10, histogram.TotalCount);
        for (long v = 100; v <= 1000; v += 100) Assert.Equal(1, histogram.GetCountAtValue(v));
        histogram.RecordValueWithExpectedInterval(50, 100);
        histogram.RecordValueWithExpectedInterval(100, 100);
        histogram.RecordValueWithExpectedInterval(5000, 0);
        Assert.Equal(13, histogram.TotalCount);
    }

    [Theory]
    [InlineData(1_000_000, 100)]
    [InlineData(10_000_000, 3)]
    [InlineData(123_456_789, 1_000)]
    [InlineData(5_000, 7)]
    [InlineData(2_000_000_000, 1_000_000)]
    public void BatchedBackFillEqualsRecordingEveryMissedSampleOneByOne(long value, long interval)
    {
        var batched = new LatencyHistogram(Hour, 3);
        batched.RecordValueWithExpectedInterval(value, interval);
        var naive = new LatencyHistogram(Hour, 3);
        for (long v = value; v >= interval; v -= interval) naive.RecordValue(v);
        AssertSameCounts(naive, batched);
        Assert.Equal(naive.Min, batched.Min);
        Assert.Equal(naive.Max, batched.Max);
    }

    [Fact]
    public void BackFillAboveTheHighestTrackableValueIsClampedAndCounted()
    {
        var histogram = new LatencyHistogram(1000, 3);
        histogram.RecordValueWithExpectedInterval(1500, 100);
        Assert.Equal(15, histogram.TotalCount);
        Assert.Equal(5, histogram.OverflowCount);
        Assert.Equal(6, histogram.GetCountAtValue(1000));
        Assert.Equal(100, histogram.Min);
    }

    [Fact]
    public void AddCombinesCountsAndResetClearsEverything()
    {
        LatencyHistogram a = Uniform(1000);
        var b = new LatencyHistogram(Hour, 3);
        for (int v = 1001; v <= 2000; v++) b.RecordValue(v);
        b.RecordValue(-1);
        a.Add(b);
        Assert.Equal(2001, a.TotalCount);
        Assert.Equal(1, a.UnderflowCount);
        Assert.Equal(0, a.Min);
        Assert.Equal(2000, a.Max);
        Assert.InRange(a.ValueAtPercentile(50), 999, 1001);
        a.Reset();
        Assert.Equal(0, a.TotalCount);
        Assert.Equal(0, a.UnderflowCount);
        Assert.Equal(0, a.Min);
        Assert.Equal(0, a.Max);
        Assert.Equal(0, a.ValueAtPercentile(50));
        Assert.Equal(0, a.Mean);
        a.RecordValue(42);
        Assert.Equal(42, a.Min);
        Assert.Equal(42, a.ValueAtPercentile(50));
    }

    [Fact]
    public void AddAcrossDifferentLayoutsReRecordsAndClamps()
    {
        var small = new LatencyHistogram(10_000, 2);
        var large = new LatencyHistogram(Hour, 3);
        for (int v = 1; v <= 100_000; v++) large.RecordValue(v);
        small.Add(large);
        Assert.Equal(100_000, small.TotalCount);
        Assert.Equal(10_000, small.Max);
        Assert.Equal(90_000, small.GetCountAtValue(10_000), 0.01 * 90_000);
        Assert.InRange(small.ValueAtPercentile(5), 4_900, 5_100);
    }

    [Fact]
    public void CopyIntoReplacesTheTarget()
    {
        LatencyHistogram source = Uniform(10_000);
        var target = new LatencyHistogram(Hour, 3);
        target.RecordValue(123_456);
        source.CopyInto(target);
        AssertSameCounts(source, target);
        Assert.Equal(source.Max, target.Max);
        Assert.Equal(source.Min, target.Min);
    }

    [Fact]
    public void RecordingAllocatesNothing()
    {
        var histogram = new LatencyHistogram(Hour, 3);
        // Every call measured below runs once first: a first call may run type initialisers on this thread, which would
        // allocate inside a window.
        long Round()
        {
            for (long v = 0; v < 10_000; v++)
            {
                histogram.RecordValue(v * 997);
                histogram.RecordValueWithCount(v, 2);
                histogram.RecordValueWithExpectedInterval(v * 13, 1_000);
            }
            histogram.RecordValue(-1);
            histogram.RecordValue(long.MaxValue);
            return histogram.ValueAtPercentile(99.9);
        }
        Round();
        long percentile = 0;
        long best = Allocations.BestWindow(() => percentile = Round());
        Assert.Equal(0, best);
        Assert.True(percentile > 0);
    }

    [Fact]
    public void PercentileDistributionHasTheClassicLayoutAndIsMonotonic()
    {
        var histogram = new LatencyHistogram(Hour, 3);
        for (int v = 1; v <= 100_000; v++) histogram.RecordValue(v * 1000L);
        var writer = new StringWriter();
        histogram.OutputPercentileDistribution(writer, 5, 1000.0);
        string[] lines = writer.ToString().Split('\n');
        Assert.Equal(["Value", "Percentile", "TotalCount", "1/(1-Percentile)"], lines[0].Split(' ', StringSplitOptions.RemoveEmptyEntries));
        Assert.Equal("", lines[1]);
        Assert.Equal("", lines[^1]);
        string[] footer = lines[^4..^1];
        Assert.StartsWith("#[Mean    = ", footer[0]);
        Assert.Contains(", StdDeviation   = ", footer[0]);
        Assert.Equal("#[Max     =   100000.000, Total count    =       100000]", footer[1]);
        Assert.Equal($"#[Buckets = {histogram.BucketCount,12}, SubBuckets     = {histogram.SubBucketCount,12}]", footer[2]);
        double mean = double.Parse(footer[0].Split('=')[1].Split(',')[0], CultureInfo.InvariantCulture);
        Assert.InRange(mean, 50_000 * 0.999, 50_000 * 1.001);

        var rows = lines[2..^4].Select(l => l.Split(' ', StringSplitOptions.RemoveEmptyEntries)).ToList();
        Assert.True(rows.Count > 50);
        double previousValue = 0, previousPercentile = -1;
        long previousCount = 0;
        for (int i = 0; i < rows.Count; i++)
        {
            string[] row = rows[i];
            bool last = i == rows.Count - 1;
            Assert.Equal(last ? 3 : 4, row.Length);
            double value = double.Parse(row[0], CultureInfo.InvariantCulture);
            double percentile = double.Parse(row[1], CultureInfo.InvariantCulture);
            long count = long.Parse(row[2], CultureInfo.InvariantCulture);
            Assert.Equal(3, row[0].Length - row[0].IndexOf('.') - 1);
            Assert.Equal(12, row[1].Length - row[1].IndexOf('.') - 1);
            Assert.True(value >= previousValue && percentile > previousPercentile && count >= previousCount, string.Join(' ', row));
            if (!last)
            {
                double inverse = double.Parse(row[3], CultureInfo.InvariantCulture);
                Assert.Equal(1 / (1 - percentile), inverse, 0.01);
                Assert.InRange(value, percentile * 100_000 * 0.998, percentile * 100_000 * 1.002 + 1);
            }
            (previousValue, previousPercentile, previousCount) = (value, percentile, count);
        }
        Assert.Equal(["1.000", "0.000000000000", "1", "1.00"], rows[0]);
        Assert.Equal(["100000.000", "1.000000000000", "100000"], rows[^1]);
        Assert.Equal("0.100000000000", rows[1][1]);
        Assert.Equal("0.500000000000", rows[5][1]);
        Assert.Equal("0.550000000000", rows[6][1]);
        Assert.Equal("0.750000000000", rows[10][1]);
    }

    [Fact]
    public void EmptyHistogramOutputsHeaderAndFooterOnly()
    {
        var writer = new StringWriter();
        new LatencyHistogram(Hour, 2).OutputPercentileDistribution(writer);
        string[] lines = writer.ToString().Split('\n', StringSplitOptions.RemoveEmptyEntries);
        Assert.Equal(4, lines.Length);
        Assert.Contains("Total count    =            0", lines[2]);
    }

    [Fact]
    public void PercentileTicksHalveTheDistanceToOneHundred()
    {
        var levels = new List<double> { 0 };
        while (levels.Count < 16) levels.Add(LatencyHistogram.NextPercentileLevel(levels[^1], 5));
        Assert.Equal([0, 10, 20, 30, 40, 50, 55, 60, 65, 70, 75, 77.5, 80, 82.5, 85, 87.5], levels.Select(l => Math.Round(l, 6)));
    }

    private static void AssertSameCounts(LatencyHistogram expected, LatencyHistogram actual)
    {
        Assert.Equal(expected.TotalCount, actual.TotalCount);
        Assert.Equal(expected.OverflowCount, actual.OverflowCount);
        for (double p = 0; p <= 100; p += 0.5) Assert.Equal(expected.ValueAtPercentile(p), actual.ValueAtPercentile(p));
        Assert.Equal(expected.Mean, actual.Mean, 6);
    }
}
