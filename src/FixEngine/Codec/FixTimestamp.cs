using System;
using System.Globalization;
using System.Runtime.CompilerServices;

namespace FixEngine.Codec;

/// <summary>A UTC instant as nanoseconds since the Unix epoch: what the typed writers take for UTCTimestamp fields.</summary>
/// <remarks>
/// Made only through named factories, so the unit is said where the value is made: a <see cref="DateTime"/>'s
/// <see cref="DateTime.Ticks"/> (100 ns units since year 1) does not compile where epoch nanoseconds are expected.
/// Eight bytes, immutable, allocation-free except <see cref="ToString()"/>; the factories are inlined to the same
/// arithmetic a caller would write by hand.
/// </remarks>
public readonly struct FixTimestamp : IEquatable<FixTimestamp>, IComparable<FixTimestamp>
{
    private const long NanosecondsPerTick = 100;

    private readonly long _unixNanoseconds;

    private FixTimestamp(long unixNanoseconds) => _unixNanoseconds = unixNanoseconds;

    /// <summary>Nanoseconds since 1970-01-01T00:00:00Z.</summary>
    public long UnixNanoseconds => _unixNanoseconds;

    /// <summary>The current time from the system clock (100 ns resolution); an <c>IEpochClock</c> gives it with <see cref="FromUnixNanoseconds"/>.</summary>
    public static FixTimestamp UtcNow => FromUtcTicks(DateTime.UtcNow.Ticks);

    /// <summary>An instant given as nanoseconds since 1970-01-01T00:00:00Z (e.g. <c>IEpochClock.EpochNs</c>).</summary>
    /// <param name="unixNanoseconds">Nanoseconds since the Unix epoch.</param>
    /// <returns>The instant.</returns>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static FixTimestamp FromUnixNanoseconds(long unixNanoseconds) => new(unixNanoseconds);

    /// <summary>An instant given as milliseconds since 1970-01-01T00:00:00Z.</summary>
    /// <param name="unixMilliseconds">Milliseconds since the Unix epoch, within about 292 years of it.</param>
    /// <returns>The instant.</returns>
    /// <exception cref="OverflowException">The value does not fit in 64-bit nanoseconds.</exception>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static FixTimestamp FromUnixMilliseconds(long unixMilliseconds) => new(checked(unixMilliseconds * 1_000_000L));

    /// <summary>The instant of a <see cref="DateTimeOffset"/> (its offset is taken into account).</summary>
    /// <param name="value">Any offset; 100 ns resolution.</param>
    /// <returns>The instant.</returns>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static FixTimestamp FromDateTimeOffset(DateTimeOffset value) => FromUtcTicks(value.UtcTicks);

    /// <summary>The instant of a UTC or local <see cref="DateTime"/> (a local time is converted to UTC).</summary>
    /// <param name="value">A <see cref="DateTime"/> whose <see cref="DateTime.Kind"/> is Utc or Local.</param>
    /// <returns>The instant.</returns>
    /// <exception cref="ArgumentException">The kind is Unspecified: whether it is UTC or local time is not known.</exception>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static FixTimestamp FromDateTime(DateTime value) => value.Kind switch
    {
        DateTimeKind.Utc => FromUtcTicks(value.Ticks),
        DateTimeKind.Local => FromUtcTicks(value.ToUniversalTime().Ticks),
        _ => throw UnspecifiedKind(),
    };

    /// <summary>This instant as a UTC <see cref="DateTime"/> (nanoseconds below 100 are dropped).</summary>
    /// <returns>A DateTime of kind Utc.</returns>
    public DateTime ToDateTime() => new(DateTime.UnixEpoch.Ticks + FloorDiv(_unixNanoseconds, NanosecondsPerTick), DateTimeKind.Utc);

    /// <summary>This instant as a <see cref="DateTimeOffset"/> with offset zero (nanoseconds below 100 are dropped).</summary>
    /// <returns>The instant at offset zero.</returns>
    public DateTimeOffset ToDateTimeOffset() => new(ToDateTime());

    /// <inheritdoc/>
    public bool Equals(FixTimestamp other) => _unixNanoseconds == other._unixNanoseconds;

    /// <inheritdoc/>
    public override bool Equals(object? obj) => obj is FixTimestamp other && Equals(other);

    /// <inheritdoc/>
    public override int GetHashCode() => _unixNanoseconds.GetHashCode();

    /// <inheritdoc/>
    public int CompareTo(FixTimestamp other) => _unixNanoseconds.CompareTo(other._unixNanoseconds);

    /// <summary>ISO 8601 in UTC with nanoseconds, e.g. <c>2026-03-15T14:30:05.120000000Z</c> (allocates).</summary>
    /// <returns>The text.</returns>
    public override string ToString() =>
        ToDateTime().ToString("yyyy-MM-ddTHH:mm:ss", CultureInfo.InvariantCulture) + "." + FloorMod(_unixNanoseconds, 1_000_000_000L).ToString("D9", CultureInfo.InvariantCulture) + "Z";

    /// <summary>True when both are the same instant.</summary>
    /// <param name="left">One instant.</param>
    /// <param name="right">The other.</param>
    /// <returns>Whether they are equal.</returns>
    public static bool operator ==(FixTimestamp left, FixTimestamp right) => left.Equals(right);

    /// <summary>True when the instants differ.</summary>
    /// <param name="left">One instant.</param>
    /// <param name="right">The other.</param>
    /// <returns>Whether they differ.</returns>
    public static bool operator !=(FixTimestamp left, FixTimestamp right) => !left.Equals(right);

    /// <summary>True when <paramref name="left"/> is earlier.</summary>
    /// <param name="left">One instant.</param>
    /// <param name="right">The other.</param>
    /// <returns>Whether left is earlier.</returns>
    public static bool operator <(FixTimestamp left, FixTimestamp right) => left._unixNanoseconds < right._unixNanoseconds;

    /// <summary>True when <paramref name="left"/> is later.</summary>
    /// <param name="left">One instant.</param>
    /// <param name="right">The other.</param>
    /// <returns>Whether left is later.</returns>
    public static bool operator >(FixTimestamp left, FixTimestamp right) => left._unixNanoseconds > right._unixNanoseconds;

    /// <summary>True when <paramref name="left"/> is earlier or the same.</summary>
    /// <param name="left">One instant.</param>
    /// <param name="right">The other.</param>
    /// <returns>Whether left is not later.</returns>
    public static bool operator <=(FixTimestamp left, FixTimestamp right) => left._unixNanoseconds <= right._unixNanoseconds;

    /// <summary>True when <paramref name="left"/> is later or the same.</summary>
    /// <param name="left">One instant.</param>
    /// <param name="right">The other.</param>
    /// <returns>Whether left is not earlier.</returns>
    public static bool operator >=(FixTimestamp left, FixTimestamp right) => left._unixNanoseconds >= right._unixNanoseconds;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static FixTimestamp FromUtcTicks(long utcTicks) => new((utcTicks - DateTime.UnixEpoch.Ticks) * NanosecondsPerTick);

    private static long FloorDiv(long a, long b) => a >= 0 ? a / b : -((-a + b - 1) / b);

    private static long FloorMod(long a, long b) => a - FloorDiv(a, b) * b;

    private static ArgumentException UnspecifiedKind() =>
        new("DateTime.Kind is Unspecified, so it is not known whether it is UTC or local time: use DateTime.SpecifyKind(value, DateTimeKind.Utc), a UTC DateTime or a DateTimeOffset.", "value");
}
