using System;
using System.Globalization;
using System.IO;
using System.Numerics;
using System.Runtime.CompilerServices;

namespace FixEngine.Diagnostics;

/// <summary>A log-linear (HDR-style) histogram of latencies in nanoseconds with a fixed relative precision.</summary>
/// <remarks>
/// <para>Values are counted in buckets that double in width; each bucket is split into equal sub-buckets, enough that
/// any value is known to within 10^-digits of itself (1 to 5 significant digits). Memory is one long[] sized at
/// construction from the lowest discernible value, the highest trackable value and the precision.</para>
/// <para>Not thread-safe: one writer thread; copy into another histogram (<see cref="CopyInto"/>) or <see cref="Add"/>
/// from the owner thread to report. Recording never allocates and never throws for a value out of range: a value above
/// <see cref="HighestTrackableValue"/> is counted as that value and in <see cref="OverflowCount"/>, a negative value is
/// counted as 0 and in <see cref="UnderflowCount"/>. <see cref="Min"/> and <see cref="Max"/> are exact (of the clamped
/// values); percentiles, <see cref="Mean"/> and <see cref="StdDev"/> come from the buckets.</para>
/// </remarks>
public sealed class LatencyHistogram
{
    private readonly int _unitMagnitude;
    private readonly int _subBucketHalfCountMagnitude;
    private readonly int _subBucketHalfCount;
    private readonly long _subBucketMask;
    private readonly int _leadingZeroCountBase;
    private readonly long[] _counts;
    private long _totalCount;
    private long _min = long.MaxValue;
    private long _max;
    private long _overflowCount;
    private long _underflowCount;

    /// <summary>Creates a histogram for values 1 .. <paramref name="highestTrackableValue"/> ns.</summary>
    /// <param name="highestTrackableValue">The largest value tracked without clamping (at least 2).</param>
    /// <param name="numberOfSignificantValueDigits">Precision, 1 to 5 decimal digits (3 = within 0.1%).</param>
    public LatencyHistogram(long highestTrackableValue, int numberOfSignificantValueDigits)
        : this(1, highestTrackableValue, numberOfSignificantValueDigits)
    {
    }

    /// <summary>Creates a histogram for values <paramref name="lowestDiscernibleValue"/> .. <paramref name="highestTrackableValue"/>.</summary>
    /// <param name="lowestDiscernibleValue">The smallest value distinguished from 0 (at least 1); larger values save memory.</param>
    /// <param name="highestTrackableValue">The largest value tracked without clamping (at least 2 x the lowest).</param>
    /// <param name="numberOfSignificantValueDigits">Precision, 1 to 5 decimal digits (3 = within 0.1%).</param>
    public LatencyHistogram(long lowestDiscernibleValue, long highestTrackableValue, int numberOfSignificantValueDigits)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(lowestDiscernibleValue, 1);
        ArgumentOutOfRangeException.ThrowIfLessThan(highestTrackableValue, 2 * lowestDiscernibleValue);
        ArgumentOutOfRangeException.ThrowIfLessThan(numberOfSignificantValueDigits, 1);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(numberOfSignificantValueDigits, 5);
        LowestDiscernibleValue = lowestDiscernibleValue;
        HighestTrackableValue = highestTrackableValue;
        NumberOfSignificantValueDigits = numberOfSignificantValueDigits;

        // Single-unit resolution is needed up to 2 x 10^digits; round the sub-bucket count up to a power of two.
        long largestValueWithSingleUnitResolution = 2 * (long)Math.Pow(10, numberOfSignificantValueDigits);
        int subBucketCountMagnitude = BitOperations.Log2((ulong)largestValueWithSingleUnitResolution - 1) + 1;
        _subBucketHalfCountMagnitude = Math.Max(subBucketCountMagnitude, 1) - 1;
        _unitMagnitude = BitOperations.Log2((ulong)lowestDiscernibleValue);
        if (_unitMagnitude + _subBucketHalfCountMagnitude > 61)
        {
            throw new ArgumentOutOfRangeException(nameof(lowestDiscernibleValue), "The lowest discernible value is too large for this precision.");
        }
        SubBucketCount = 1 << (_subBucketHalfCountMagnitude + 1);
        _subBucketHalfCount = SubBucketCount / 2;
        _subBucketMask = ((long)SubBucketCount - 1) << _unitMagnitude;
        _leadingZeroCountBase = 64 - _unitMagnitude - _subBucketHalfCountMagnitude - 1;

        // Each bucket covers twice the range of the previous one; add buckets until the highest value fits.
        long smallestUntrackableValue = (long)SubBucketCount << _unitMagnitude;
        int bucketCount = 1;
        while (smallestUntrackableValue <= highestTrackableValue)
        {
            if (smallestUntrackableValue > long.MaxValue / 2)
            {
                bucketCount++;
                break;
            }
            smallestUntrackableValue <<= 1;
            bucketCount++;
        }
        BucketCount = bucketCount;
        _counts = new long[(bucketCount + 1) * _subBucketHalfCount];
    }

    /// <summary>The smallest value distinguished from 0.</summary>
    public long LowestDiscernibleValue { get; }

    /// <summary>The largest value recorded without clamping.</summary>
    public long HighestTrackableValue { get; }

    /// <summary>The precision in significant decimal digits.</summary>
    public int NumberOfSignificantValueDigits { get; }

    /// <summary>The number of power-of-two buckets.</summary>
    public int BucketCount { get; }

    /// <summary>The number of sub-buckets per bucket.</summary>
    public int SubBucketCount { get; }

    /// <summary>The length of the counts array (memory is 8 bytes per entry).</summary>
    public int CountsArrayLength => _counts.Length;

    /// <summary>The number of values recorded (including clamped ones).</summary>
    public long TotalCount => _totalCount;

    /// <summary>How many recorded values were above <see cref="HighestTrackableValue"/> and counted as it.</summary>
    public long OverflowCount => _overflowCount;

    /// <summary>How many recorded values were negative and counted as 0.</summary>
    public long UnderflowCount => _underflowCount;

    /// <summary>The smallest recorded value, exact (0 when empty).</summary>
    public long Min => _totalCount == 0 ? 0 : _min;

    /// <summary>The largest recorded value, exact (0 when empty).</summary>
    public long Max => _max;

    /// <summary>The mean of the recorded values, each taken as the middle of its sub-bucket (0 when empty).</summary>
    public double Mean
    {
        get
        {
            if (_totalCount == 0) return 0;
            double sum = 0;
            for (int i = 0; i < _counts.Length; i++)
            {
                long count = _counts[i];
                if (count != 0) sum += (double)MedianEquivalentValue(ValueFromIndex(i)) * count;
            }
            return sum / _totalCount;
        }
    }

    /// <summary>The population standard deviation of the recorded values, from sub-bucket middles (0 when empty).</summary>
    public double StdDev
    {
        get
        {
            if (_totalCount == 0) return 0;
            double mean = Mean;
            double sumOfSquares = 0;
            for (int i = 0; i < _counts.Length; i++)
            {
                long count = _counts[i];
                if (count == 0) continue;
                double deviation = MedianEquivalentValue(ValueFromIndex(i)) - mean;
                sumOfSquares += deviation * deviation * count;
            }
            return Math.Sqrt(sumOfSquares / _totalCount);
        }
    }

    /// <summary>Records one occurrence of <paramref name="value"/> (nanoseconds).</summary>
    /// <param name="value">The value; out-of-range values are clamped and counted (see remarks on the type).</param>
    /// <remarks>O(1), no allocation, never throws.</remarks>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void RecordValue(long value) => RecordValueWithCount(value, 1);

    /// <summary>Records <paramref name="count"/> occurrences of <paramref name="value"/>.</summary>
    /// <param name="value">The value; out-of-range values are clamped and counted.</param>
    /// <param name="count">How many occurrences; 0 or less records nothing.</param>
    /// <remarks>O(1), no allocation, never throws.</remarks>
    public void RecordValueWithCount(long value, long count)
    {
        if (count <= 0) return;
        if ((ulong)value > (ulong)HighestTrackableValue) value = Clamp(value, count);
        _counts[CountsIndexFor(value)] += count;
        _totalCount += count;
        if (value < _min) _min = value;
        if (value > _max) _max = value;
    }

    /// <summary>Records <paramref name="value"/> and corrects for coordinated omission: when the value exceeds the
    /// expected interval between samples, also records value - k x interval for every k while that stays at or above the
    /// interval (the samples a stalled measurement loop failed to take).</summary>
    /// <param name="value">The measured value.</param>
    /// <param name="expectedIntervalBetweenValueSamples">The normal interval between samples; 0 or less disables correction.</param>
    /// <remarks>No allocation. The back-fill costs one step per sub-bucket touched, not per synthesised sample, so a huge
    /// outlier with a tiny interval stays cheap.</remarks>
    public void RecordValueWithExpectedInterval(long value, long expectedIntervalBetweenValueSamples)
    {
        RecordValue(value);
        long interval = expectedIntervalBetweenValueSamples;
        if (interval <= 0 || value <= interval) return;
        BackFill(value - interval, interval);
    }

    private void BackFill(long value, long interval)
    {
        // Samples are value, value - interval, ... down to the last one >= interval; record them a sub-bucket at a time.
        while (value >= interval)
        {
            long remaining = (value - interval) / interval + 1;
            long count;
            long recorded;
            if (value > HighestTrackableValue)
            {
                count = Math.Min((value - HighestTrackableValue - 1) / interval + 1, remaining);
                recorded = HighestTrackableValue;
                _overflowCount += count;
            }
            else
            {
                count = Math.Min((value - LowestEquivalentValue(value)) / interval + 1, remaining);
                recorded = value;
                long lowest = value - (count - 1) * interval;
                if (lowest < _min) _min = lowest;
            }
            _counts[CountsIndexFor(recorded)] += count;
            _totalCount += count;
            if (recorded > _max) _max = recorded;
            if (recorded < _min) _min = recorded;
            value -= count * interval;
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private long Clamp(long value, long count)
    {
        if (value < 0)
        {
            _underflowCount += count;
            return 0;
        }
        _overflowCount += count;
        return HighestTrackableValue;
    }

    /// <summary>The value at or below which <paramref name="percentile"/> percent of the recorded values fall.</summary>
    /// <param name="percentile">0 to 100 (clamped).</param>
    /// <returns>The highest value equivalent to the bucket reached (the lowest for percentile 0), kept within
    /// [<see cref="Min"/>, <see cref="Max"/>]; 0 when empty.</returns>
    public long ValueAtPercentile(double percentile)
    {
        if (_totalCount == 0) return 0;
        double requested = Math.Clamp(percentile, 0.0, 100.0);
        long countAtPercentile = Math.Max(1, (long)Math.Ceiling(requested / 100.0 * _totalCount));
        long cumulative = 0;
        for (int i = 0; i < _counts.Length; i++)
        {
            cumulative += _counts[i];
            if (cumulative >= countAtPercentile)
            {
                long value = ValueFromIndex(i);
                long result = requested == 0.0 ? LowestEquivalentValue(value) : HighestEquivalentValue(value);
                return Math.Clamp(result, _min, _max);
            }
        }
        return _max;
    }

    /// <summary>The number of recorded values equivalent to <paramref name="value"/> (in its sub-bucket).</summary>
    /// <param name="value">Any value in range.</param>
    /// <returns>The count in that sub-bucket.</returns>
    public long GetCountAtValue(long value)
    {
        value = Math.Clamp(value, 0, HighestTrackableValue);
        return _counts[CountsIndexFor(value)];
    }

    /// <summary>The smallest value that shares <paramref name="value"/>'s sub-bucket.</summary>
    /// <param name="value">A non-negative value.</param>
    /// <returns>The lower bound of the sub-bucket.</returns>
    public long LowestEquivalentValue(long value)
    {
        int bucketIndex = BucketIndexFor(value);
        int subBucketIndex = SubBucketIndexFor(value, bucketIndex);
        return ValueFromIndex(bucketIndex, subBucketIndex);
    }

    /// <summary>The largest value that shares <paramref name="value"/>'s sub-bucket.</summary>
    /// <param name="value">A non-negative value.</param>
    /// <returns>The upper bound (inclusive) of the sub-bucket.</returns>
    public long HighestEquivalentValue(long value) => LowestEquivalentValue(value) + SizeOfEquivalentValueRange(value) - 1;

    /// <summary>The width of <paramref name="value"/>'s sub-bucket: the resolution at that magnitude.</summary>
    /// <param name="value">A non-negative value.</param>
    /// <returns>The number of distinct values counted together with <paramref name="value"/>.</returns>
    public long SizeOfEquivalentValueRange(long value)
    {
        int bucketIndex = BucketIndexFor(value);
        int subBucketIndex = SubBucketIndexFor(value, bucketIndex);
        int adjustedBucket = subBucketIndex >= SubBucketCount ? bucketIndex + 1 : bucketIndex;
        return 1L << (_unitMagnitude + adjustedBucket);
    }

    private long MedianEquivalentValue(long value) => LowestEquivalentValue(value) + (SizeOfEquivalentValueRange(value) >> 1);

    /// <summary>Clears every count, <see cref="Min"/>, <see cref="Max"/> and the overflow counters.</summary>
    public void Reset()
    {
        Array.Clear(_counts);
        _totalCount = 0;
        _min = long.MaxValue;
        _max = 0;
        _overflowCount = 0;
        _underflowCount = 0;
    }

    /// <summary>Adds every count of <paramref name="other"/> to this histogram.</summary>
    /// <param name="other">The histogram to add; not modified.</param>
    /// <remarks>With the same layout (same lowest value and precision, this one at least as large) counts are added
    /// index by index; otherwise each of <paramref name="other"/>'s sub-buckets is re-recorded at its lowest value, and
    /// values above this <see cref="HighestTrackableValue"/> are clamped. Does not allocate.</remarks>
    public void Add(LatencyHistogram other)
    {
        ArgumentNullException.ThrowIfNull(other);
        if (other._totalCount == 0) return;
        if (other._unitMagnitude == _unitMagnitude && other._subBucketHalfCountMagnitude == _subBucketHalfCountMagnitude &&
            other._counts.Length <= _counts.Length)
        {
            for (int i = 0; i < other._counts.Length; i++) _counts[i] += other._counts[i];
            _totalCount += other._totalCount;
            if (other._min < _min) _min = other._min;
            if (other._max > _max) _max = other._max;
        }
        else
        {
            for (int i = 0; i < other._counts.Length; i++)
            {
                long count = other._counts[i];
                if (count == 0) continue;
                long value = Math.Min(other.ValueFromIndex(i), HighestTrackableValue);
                _counts[CountsIndexFor(value)] += count;
                _totalCount += count;
            }
            long otherMin = Math.Min(other._min, HighestTrackableValue);
            long otherMax = Math.Min(other._max, HighestTrackableValue);
            if (otherMin < _min) _min = otherMin;
            if (otherMax > _max) _max = otherMax;
        }
        _overflowCount += other._overflowCount;
        _underflowCount += other._underflowCount;
    }

    /// <summary>Replaces the contents of <paramref name="target"/> with this histogram's (Reset, then Add).</summary>
    /// <param name="target">The histogram to overwrite; should have the same layout for an exact copy.</param>
    public void CopyInto(LatencyHistogram target)
    {
        ArgumentNullException.ThrowIfNull(target);
        target.Reset();
        target.Add(this);
    }

    /// <summary>Writes the percentile distribution in the classic HdrHistogram text layout.</summary>
    /// <param name="writer">Destination.</param>
    /// <param name="percentileTicksPerHalfDistance">Rows per halving of the distance to 100% (default 5).</param>
    /// <param name="outputValueUnitScalingRatio">Divisor applied to values, e.g. 1000.0 to print microseconds from nanoseconds.</param>
    /// <remarks>
    /// Columns: Value, Percentile (as a fraction), TotalCount (cumulative), 1/(1-Percentile); the last row (percentile 1)
    /// has no fourth column. A footer gives Mean, StdDeviation, Max, Total count, Buckets and SubBuckets. Allocates
    /// (formatting); not for the hot path.
    /// </remarks>
    public void OutputPercentileDistribution(TextWriter writer, int percentileTicksPerHalfDistance = 5, double outputValueUnitScalingRatio = 1.0)
    {
        ArgumentNullException.ThrowIfNull(writer);
        ArgumentOutOfRangeException.ThrowIfLessThan(percentileTicksPerHalfDistance, 1);
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(outputValueUnitScalingRatio);
        CultureInfo inv = CultureInfo.InvariantCulture;
        string valueFormat = "F" + NumberOfSignificantValueDigits.ToString(inv);
        writer.Write(string.Format(inv, "{0,12} {1,14} {2,10} {3,14}\n\n", "Value", "Percentile", "TotalCount", "1/(1-Percentile)"));

        if (_totalCount > 0)
        {
            double level = 0;
            long cumulative = 0;
            int lastIndex = 0;
            for (int i = 0; i < _counts.Length && cumulative < _totalCount; i++)
            {
                long count = _counts[i];
                if (count == 0) continue;
                cumulative += count;
                lastIndex = i;
                double reached = 100.0 * cumulative / _totalCount;
                string value = FormatValue(i, outputValueUnitScalingRatio, valueFormat, inv);
                while (reached >= level)
                {
                    writer.Write(string.Format(inv, "{0,12} {1,14:F12} {2,10} {3,14:F2}\n", value, level / 100.0, cumulative, 1.0 / (1.0 - level / 100.0)));
                    // The last sub-bucket reports one row; the closing 100% row follows the loop.
                    if (cumulative == _totalCount) break;
                    double next = NextPercentileLevel(level, percentileTicksPerHalfDistance);
                    if (next <= level) break;
                    level = next;
                }
            }
            writer.Write(string.Format(inv, "{0,12} {1,14:F12} {2,10}\n", FormatValue(lastIndex, outputValueUnitScalingRatio, valueFormat, inv), 1.0, _totalCount));
        }

        writer.Write(string.Format(inv, "#[Mean    = {0,12:F3}, StdDeviation   = {1,12:F3}]\n", Mean / outputValueUnitScalingRatio, StdDev / outputValueUnitScalingRatio));
        writer.Write(string.Format(inv, "#[Max     = {0,12:F3}, Total count    = {1,12}]\n", Max / outputValueUnitScalingRatio, _totalCount));
        writer.Write(string.Format(inv, "#[Buckets = {0,12}, SubBuckets     = {1,12}]\n", BucketCount, SubBucketCount));
    }

    private string FormatValue(int index, double scalingRatio, string format, CultureInfo culture)
    {
        long value = Math.Clamp(HighestEquivalentValue(ValueFromIndex(index)), _min, _max);
        return (value / scalingRatio).ToString(format, culture);
    }

    /// <summary>Tail-halving ticks: <paramref name="ticksPerHalfDistance"/> steps to 50%, as many again to 75%, to 87.5%...</summary>
    internal static double NextPercentileLevel(double level, int ticksPerHalfDistance)
    {
        int halvings = (int)Math.Floor(Math.Log2(100.0 / (100.0 - level)));
        double ticks = ticksPerHalfDistance * Math.Pow(2, halvings + 1);
        return level + 100.0 / ticks;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private int BucketIndexFor(long value) => _leadingZeroCountBase - BitOperations.LeadingZeroCount((ulong)(value | _subBucketMask));

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private int SubBucketIndexFor(long value, int bucketIndex) => (int)((ulong)value >> (bucketIndex + _unitMagnitude));

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private int CountsIndexFor(long value)
    {
        int bucketIndex = BucketIndexFor(value);
        int subBucketIndex = SubBucketIndexFor(value, bucketIndex);
        return ((bucketIndex + 1) << _subBucketHalfCountMagnitude) + (subBucketIndex - _subBucketHalfCount);
    }

    private long ValueFromIndex(int index)
    {
        int bucketIndex = (index >> _subBucketHalfCountMagnitude) - 1;
        int subBucketIndex = (index & (_subBucketHalfCount - 1)) + _subBucketHalfCount;
        if (bucketIndex < 0)
        {
            subBucketIndex -= _subBucketHalfCount;
            bucketIndex = 0;
        }
        return ValueFromIndex(bucketIndex, subBucketIndex);
    }

    private long ValueFromIndex(int bucketIndex, int subBucketIndex) => (long)subBucketIndex << (bucketIndex + _unitMagnitude);
}
