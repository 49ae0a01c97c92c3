using System;
using FixEngine.Codec;

namespace FixEngine.Tests.Codec;

/// <summary>The timestamp type the typed writers take: each factory gives the same instant, whatever the source.</summary>
public sealed class FixTimestampTests
{
    private static readonly DateTimeOffset Instant = new(2026, 1, 5, 12, 30, 15, 123, TimeSpan.Zero);
    private static readonly long InstantNs = Instant.ToUnixTimeMilliseconds() * 1_000_000L;

    [Fact]
    public void EveryFactoryGivesUnixNanoseconds()
    {
        Assert.Equal(InstantNs, FixTimestamp.FromUnixNanoseconds(InstantNs).UnixNanoseconds);
        Assert.Equal(InstantNs, FixTimestamp.FromUnixMilliseconds(Instant.ToUnixTimeMilliseconds()).UnixNanoseconds);
        Assert.Equal(InstantNs, FixTimestamp.FromDateTimeOffset(Instant).UnixNanoseconds);
        Assert.Equal(InstantNs, FixTimestamp.FromDateTimeOffset(Instant.ToOffset(TimeSpan.FromHours(-5))).UnixNanoseconds);
        Assert.Equal(InstantNs, FixTimestamp.FromDateTime(Instant.UtcDateTime).UnixNanoseconds);
        Assert.Equal(InstantNs, FixTimestamp.FromDateTime(Instant.UtcDateTime.ToLocalTime()).UnixNanoseconds);
        // The mix-up the type exists for: Ticks count 100 ns from year 1, not nanoseconds from 1970.
        Assert.NotEqual(Instant.UtcDateTime.Ticks, FixTimestamp.FromDateTime(Instant.UtcDateTime).UnixNanoseconds);
    }

    [Fact]
    public void SubTickPrecisionIsKeptAndDroppedOnlyOnTheWayBackToDateTime()
    {
        FixTimestamp t = FixTimestamp.FromUnixNanoseconds(InstantNs + 456_789);
        Assert.Equal(Instant.UtcDateTime.AddTicks(4567), t.ToDateTime());
        Assert.Equal(DateTimeKind.Utc, t.ToDateTime().Kind);
        Assert.Equal(TimeSpan.Zero, t.ToDateTimeOffset().Offset);
        Assert.Equal("2026-01-05T12:30:15.123456789Z", t.ToString());
        Assert.Equal("1969-12-31T23:59:59.999999999Z", FixTimestamp.FromUnixNanoseconds(-1).ToString());
        Assert.Equal(DateTime.UnixEpoch.AddTicks(-1), FixTimestamp.FromUnixNanoseconds(-1).ToDateTime());
    }

    [Fact]
    public void AnUnspecifiedDateTimeIsRefusedBecauseItsZoneIsUnknown()
    {
        var unspecified = new DateTime(2026, 1, 5, 12, 30, 15, DateTimeKind.Unspecified);
        ArgumentException e = Assert.Throws<ArgumentException>(() => FixTimestamp.FromDateTime(unspecified));
        Assert.Equal("value", e.ParamName);
        Assert.Contains("DateTime.Kind is Unspecified", e.Message);
        Assert.Contains("DateTime.SpecifyKind", e.Message);
    }

    [Fact]
    public void MillisecondsBeyondTheNanosecondRangeOverflow()
    {
        Assert.Throws<OverflowException>(() => FixTimestamp.FromUnixMilliseconds(long.MaxValue / 1_000));
    }

    [Fact]
    public void ComparisonAndEqualityFollowTheInstant()
    {
        FixTimestamp a = FixTimestamp.FromUnixNanoseconds(1), b = FixTimestamp.FromUnixNanoseconds(2);
        Assert.True(a < b && b > a && a <= b && b >= a && a != b && a == FixTimestamp.FromUnixNanoseconds(1));
        Assert.Equal(-1, a.CompareTo(b));
        Assert.True(a.Equals((object)FixTimestamp.FromUnixNanoseconds(1)));
        Assert.Equal(a.GetHashCode(), FixTimestamp.FromUnixNanoseconds(1).GetHashCode());
    }

    [Fact]
    public void UtcNowIsTheSystemClock()
    {
        long before = (DateTime.UtcNow.Ticks - DateTime.UnixEpoch.Ticks) * 100;
        long now = FixTimestamp.UtcNow.UnixNanoseconds;
        long after = (DateTime.UtcNow.Ticks - DateTime.UnixEpoch.Ticks) * 100;
        Assert.InRange(now, before, after);
    }
}
