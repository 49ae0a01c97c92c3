using System;
using System.Buffers.Text;
using System.Runtime.CompilerServices;

namespace FixEngine.Codec;

/// <summary>Fractional-second precision of a formatted UTCTimestamp or UTCTimeOnly.</summary>
public enum TimestampPrecision : byte
{
    /// <summary><c>HH:MM:SS</c>.</summary>
    Seconds,

    /// <summary><c>HH:MM:SS.sss</c>.</summary>
    Millis,

    /// <summary><c>HH:MM:SS.ssssss</c>.</summary>
    Micros,

    /// <summary><c>HH:MM:SS.sssssssss</c>.</summary>
    Nanos,
}

/// <summary>A FIX MonthYear value: <c>YYYYMM</c>, <c>YYYYMMDD</c> or <c>YYYYMMwN</c>.</summary>
/// <remarks>Immutable value; no allocation.</remarks>
public readonly struct FixMonthYear : IEquatable<FixMonthYear>
{
    /// <summary>Creates a MonthYear; <paramref name="day"/> and <paramref name="week"/> are 0 when absent (at most one is set).</summary>
    /// <param name="year">Year 0..9999.</param>
    /// <param name="month">Month 1..12.</param>
    /// <param name="day">Day of month, or 0.</param>
    /// <param name="week">Week 1..5, or 0.</param>
    public FixMonthYear(int year, int month, int day = 0, int week = 0)
    {
        Year = (short)year;
        Month = (byte)month;
        Day = (byte)day;
        Week = (byte)week;
    }

    /// <summary>Year.</summary>
    public int Year { get; }

    /// <summary>Month 1..12.</summary>
    public int Month { get; }

    /// <summary>Day of month 1..31, or 0 when the value has no day.</summary>
    public int Day { get; }

    /// <summary>Week 1..5 (<c>w1</c>..<c>w5</c>), or 0 when the value has no week.</summary>
    public int Week { get; }

    /// <inheritdoc/>
    public bool Equals(FixMonthYear other) => Year == other.Year && Month == other.Month && Day == other.Day && Week == other.Week;

    /// <inheritdoc/>
    public override bool Equals(object? obj) => obj is FixMonthYear other && Equals(other);

    /// <inheritdoc/>
    public override int GetHashCode() => HashCode.Combine(Year, Month, Day, Week);

    /// <inheritdoc/>
    public override string ToString() =>
        Week != 0 ? $"{Year:0000}{Month:00}w{Week}" : Day != 0 ? $"{Year:0000}{Month:00}{Day:00}" : $"{Year:0000}{Month:00}";
}

/// <summary>Parsers for FIX field values (ASCII bytes without the SOH).</summary>
/// <remarks>
/// Stateless, thread-safe, never allocate, never throw. Calendar rules: month 1..12, day valid for the month
/// (Gregorian leap years), hour 0..23, minute 0..59, second 0..60 (60 is accepted as a leap second per the FIX
/// UTCTimestamp definition and converted as the first second of the next minute). Fractions of 1..12 digits
/// are accepted; digits beyond nanoseconds are truncated. Timestamps are nanoseconds since the Unix epoch, so
/// the representable range is 1677-09-22 to 2262-04-11.
/// </remarks>
public static class FixValueParser
{
    internal const long NanosPerSecond = 1_000_000_000L;
    internal const long NanosPerDay = 86_400L * NanosPerSecond;

    private static ReadOnlySpan<byte> DaysInMonthTable => [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

    /// <summary>Parses a FIX int: optional '-' then digits (leading zeros allowed, '+' rejected).</summary>
    /// <param name="text">Value bytes.</param>
    /// <param name="value">The parsed value.</param>
    /// <returns>False on bad format or overflow.</returns>
    public static bool TryParseInt(ReadOnlySpan<byte> text, out int value)
    {
        bool ok = TryParseLong(text, out long wide) && wide >= int.MinValue && wide <= int.MaxValue;
        value = ok ? (int)wide : 0;
        return ok;
    }

    /// <summary>Parses a 64-bit FIX int: optional '-' then digits (leading zeros allowed, '+' rejected).</summary>
    /// <param name="text">Value bytes.</param>
    /// <param name="value">The parsed value.</param>
    /// <returns>False on bad format or overflow.</returns>
    public static bool TryParseLong(ReadOnlySpan<byte> text, out long value)
    {
        value = 0;
        int i = 0;
        bool negative = false;
        if (text.Length != 0 && text[0] == (byte)'-')
        {
            negative = true;
            i = 1;
        }
        if (i >= text.Length) return false;
        ulong limit = negative ? 1UL << 63 : long.MaxValue;
        ulong m = 0;
        for (; i < text.Length; i++)
        {
            uint d = (uint)(text[i] - '0');
            if (d > 9) return false;
            if (m >= 100_000_000_000_000_000UL && m > (limit - d) / 10) return false;
            m = m * 10 + d;
        }
        value = negative ? unchecked((long)(0 - m)) : (long)m;
        return true;
    }

    /// <summary>Parses a FIX char: exactly one byte.</summary>
    /// <param name="text">Value bytes.</param>
    /// <param name="value">The byte as a char.</param>
    /// <returns>False unless the value is exactly one byte.</returns>
    public static bool TryParseChar(ReadOnlySpan<byte> text, out char value)
    {
        value = text.Length == 1 ? (char)text[0] : '\0';
        return text.Length == 1;
    }

    /// <summary>Parses a FIX Boolean: <c>Y</c> or <c>N</c>.</summary>
    /// <param name="text">Value bytes.</param>
    /// <param name="value">True for Y.</param>
    /// <returns>False for anything else.</returns>
    public static bool TryParseBool(ReadOnlySpan<byte> text, out bool value)
    {
        value = text.Length == 1 && text[0] == (byte)'Y';
        return text.Length == 1 && (text[0] == (byte)'Y' || text[0] == (byte)'N');
    }

    /// <summary>Parses a UTCTimestamp <c>YYYYMMDD-HH:MM:SS[.f…]</c> into nanoseconds since the Unix epoch.</summary>
    /// <param name="text">Value bytes.</param>
    /// <param name="epochNs">Nanoseconds since 1970-01-01T00:00:00Z.</param>
    /// <returns>False on bad format, invalid calendar values or a date outside the epoch-ns range.</returns>
    public static bool TryParseUtcTimestamp(ReadOnlySpan<byte> text, out long epochNs)
    {
        epochNs = 0;
        if (text.Length < UtcTimestampOverlay.Size) return false;
        UtcTimestampOverlay overlay = UtcTimestampOverlay.Read(text);
        if (overlay.Dash != (byte)'-') return false;
        if (!TryParseDateDigits(text, out int year, out int month, out int day)) return false;
        if (!AsciiParsing.TryParseHhMmSs(text, 9, out int hour, out int minute, out int second)) return false;
        if (hour > 23 || minute > 59 || second > 60) return false;
        if (!TryParseFraction(text.Slice(UtcTimestampOverlay.Size), out long fractionNs)) return false;
        if (year < 1677 || year > 2262) return false;
        long days = DaysFromCivil(year, month, day);
        long seconds = days * 86_400L + hour * 3600L + minute * 60L + second;
        // Bounds: 1677/2262 can still overflow at the extremes; check with Int128.
        Int128 ns = (Int128)seconds * NanosPerSecond + fractionNs;
        if (ns < long.MinValue || ns > long.MaxValue) return false;
        epochNs = (long)ns;
        return true;
    }

    /// <summary>Parses a UTCTimeOnly <c>HH:MM:SS[.f…]</c> into nanoseconds since midnight.</summary>
    /// <param name="text">Value bytes.</param>
    /// <param name="nanosOfDay">Nanoseconds since midnight (a leap second 60 gives values up to 86,400,999,999,999).</param>
    /// <returns>False on bad format or range.</returns>
    public static bool TryParseUtcTimeOnly(ReadOnlySpan<byte> text, out long nanosOfDay)
    {
        nanosOfDay = 0;
        if (text.Length < 8) return false;
        if (!AsciiParsing.TryParseHhMmSs(text, 0, out int hour, out int minute, out int second)) return false;
        if (hour > 23 || minute > 59 || second > 60) return false;
        if (!TryParseFraction(text.Slice(8), out long fractionNs)) return false;
        nanosOfDay = (hour * 3600L + minute * 60L + second) * NanosPerSecond + fractionNs;
        return true;
    }

    /// <summary>Parses a UTCDateOnly or LocalMktDate <c>YYYYMMDD</c>.</summary>
    /// <param name="text">Value bytes.</param>
    /// <param name="date">The date.</param>
    /// <returns>False on bad format, year 0 or an invalid day.</returns>
    public static bool TryParseDate(ReadOnlySpan<byte> text, out DateOnly date)
    {
        date = default;
        if (text.Length != 8 || !TryParseDateDigits(text, out int year, out int month, out int day) || year == 0) return false;
        date = new DateOnly(year, month, day);
        return true;
    }

    /// <summary>Parses a MonthYear: <c>YYYYMM</c>, <c>YYYYMMDD</c> or <c>YYYYMMwN</c> (N = 1..5).</summary>
    /// <param name="text">Value bytes.</param>
    /// <param name="value">The parsed value.</param>
    /// <returns>False on bad format or range.</returns>
    public static bool TryParseMonthYear(ReadOnlySpan<byte> text, out FixMonthYear value)
    {
        value = default;
        if (text.Length != 6 && text.Length != 8) return false;
        if (!AsciiParsing.TryParse4Digits(text, 0, out int year) || !AsciiParsing.TryParse2Digits(text, 4, out int month)) return false;
        if (month is < 1 or > 12) return false;
        if (text.Length == 6)
        {
            value = new FixMonthYear(year, month);
            return true;
        }
        if (text[6] == (byte)'w')
        {
            int week = text[7] - '0';
            if (week is < 1 or > 5) return false;
            value = new FixMonthYear(year, month, week: week);
            return true;
        }
        if (!AsciiParsing.TryParse2Digits(text, 6, out int day) || day < 1 || day > DaysInMonth(year, month)) return false;
        value = new FixMonthYear(year, month, day);
        return true;
    }

    private static bool TryParseDateDigits(ReadOnlySpan<byte> text, out int year, out int month, out int day)
    {
        year = month = day = 0;
        if (!AsciiParsing.TryParse8Digits(text, 0, out uint yyyymmdd)) return false;
        year = (int)(yyyymmdd / 10000);
        month = (int)(yyyymmdd / 100 % 100);
        day = (int)(yyyymmdd % 100);
        return month is >= 1 and <= 12 && day >= 1 && day <= DaysInMonth(year, month);
    }

    /// <summary>Empty, or '.' followed by 1..12 digits; returns the fraction in nanoseconds (truncated).</summary>
    private static bool TryParseFraction(ReadOnlySpan<byte> text, out long fractionNs)
    {
        fractionNs = 0;
        if (text.IsEmpty) return true;
        if (text[0] != (byte)'.' || text.Length < 2 || text.Length > 13) return false;
        long ns = 0;
        int i = 1;
        for (; i < text.Length; i++)
        {
            uint d = (uint)(text[i] - '0');
            if (d > 9) return false;
            if (i <= 9) ns = ns * 10 + d;
        }
        for (int k = i; k <= 9; k++) ns *= 10;
        fractionNs = ns;
        return true;
    }

    internal static int DaysInMonth(int year, int month) =>
        month == 2 && IsLeapYear(year) ? 29 : DaysInMonthTable[month];

    private static bool IsLeapYear(int year) => (year & 3) == 0 && (year % 100 != 0 || year % 400 == 0);

    /// <summary>Days since 1970-01-01 of a proleptic Gregorian date (era-based, branch-light).</summary>
    internal static long DaysFromCivil(int year, int month, int day)
    {
        int y = month <= 2 ? year - 1 : year;
        int era = (y >= 0 ? y : y - 399) / 400;
        int yearOfEra = y - era * 400;
        int dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
        int dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear;
        return era * 146_097L + dayOfEra - 719_468;
    }

    /// <summary>Inverse of <see cref="DaysFromCivil"/>.</summary>
    internal static void CivilFromDays(long days, out int year, out int month, out int day)
    {
        days += 719_468;
        long era = (days >= 0 ? days : days - 146_096) / 146_097;
        int dayOfEra = (int)(days - era * 146_097);
        int yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365;
        int dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100);
        int mp = (5 * dayOfYear + 2) / 153;
        day = dayOfYear - (153 * mp + 2) / 5 + 1;
        month = mp < 10 ? mp + 3 : mp - 9;
        year = (int)(yearOfEra + era * 400) + (month <= 2 ? 1 : 0);
    }
}

/// <summary>Formatters for FIX field values into ASCII bytes.</summary>
/// <remarks>Stateless, thread-safe, never allocate; every method returns false when the destination is too small.</remarks>
public static class FixValueFormatter
{
    /// <summary>Formats a 64-bit integer.</summary>
    /// <param name="value">Value.</param>
    /// <param name="destination">Output.</param>
    /// <param name="bytesWritten">Bytes written.</param>
    /// <returns>False when the destination is too small.</returns>
    public static bool TryFormatLong(long value, Span<byte> destination, out int bytesWritten) =>
        Utf8Formatter.TryFormat(value, destination, out bytesWritten);

    /// <summary>Length of the formatted <c>YYYYMMDD-HH:MM:SS[.f…]</c> text for a precision.</summary>
    /// <param name="precision">Fraction digits.</param>
    /// <returns>17, 21, 24 or 27.</returns>
    public static int UtcTimestampLength(TimestampPrecision precision) => 17 + FractionLength(precision);

    /// <summary>Formats nanoseconds since the Unix epoch as a UTCTimestamp.</summary>
    /// <param name="epochNs">Nanoseconds since 1970-01-01T00:00:00Z.</param>
    /// <param name="precision">Fraction digits to write (truncating).</param>
    /// <param name="destination">Output.</param>
    /// <param name="bytesWritten">Bytes written.</param>
    /// <returns>False when the destination is too small.</returns>
    public static bool TryFormatUtcTimestamp(long epochNs, TimestampPrecision precision, Span<byte> destination, out int bytesWritten)
    {
        if (destination.Length < UtcTimestampLength(precision))
        {
            bytesWritten = 0;
            return false;
        }
        bytesWritten = FormatUtcTimestampUnchecked(epochNs, precision, destination, 0);
        return true;
    }

    /// <summary>Formats a UTCTimestamp at <paramref name="offset"/> without bounds checks (the caller has checked the room); returns its length.</summary>
    internal static int FormatUtcTimestampUnchecked(long epochNs, TimestampPrecision precision, Span<byte> destination, int offset)
    {
        long days = Math.DivRem(epochNs, FixValueParser.NanosPerDay, out long nanosOfDay);
        if (nanosOfDay < 0)
        {
            nanosOfDay += FixValueParser.NanosPerDay;
            days--;
        }
        AsciiParsing.StoreUnchecked(destination, offset, DateText(days), 8);
        AsciiParsing.StoreUnchecked(destination, offset + 8, (byte)'-');
        return 9 + WriteTimeOfDayUnchecked(nanosOfDay, precision, destination, offset + 9);
    }

    /// <summary>Formats nanoseconds since midnight as a UTCTimeOnly <c>HH:MM:SS[.f…]</c>.</summary>
    /// <param name="nanosOfDay">Nanoseconds since midnight, 0..86,399,999,999,999.</param>
    /// <param name="precision">Fraction digits.</param>
    /// <param name="destination">Output.</param>
    /// <param name="bytesWritten">Bytes written.</param>
    /// <returns>False when the destination is too small or the value is out of range.</returns>
    public static bool TryFormatUtcTimeOnly(long nanosOfDay, TimestampPrecision precision, Span<byte> destination, out int bytesWritten)
    {
        int length = 8 + FractionLength(precision);
        if (destination.Length < length || (ulong)nanosOfDay >= FixValueParser.NanosPerDay)
        {
            bytesWritten = 0;
            return false;
        }
        WriteTimeOfDay(nanosOfDay, precision, destination);
        bytesWritten = length;
        return true;
    }

    /// <summary>Formats a UTCDateOnly/LocalMktDate <c>YYYYMMDD</c>.</summary>
    /// <param name="date">Date.</param>
    /// <param name="destination">Output.</param>
    /// <param name="bytesWritten">Bytes written (8).</param>
    /// <returns>False when the destination is too small.</returns>
    public static bool TryFormatDate(DateOnly date, Span<byte> destination, out int bytesWritten)
    {
        if (destination.Length < 8)
        {
            bytesWritten = 0;
            return false;
        }
        AsciiParsing.Write4Digits(destination, 0, date.Year);
        AsciiParsing.Write2Digits(destination, 4, date.Month);
        AsciiParsing.Write2Digits(destination, 6, date.Day);
        bytesWritten = 8;
        return true;
    }

    /// <summary>Formats a MonthYear.</summary>
    /// <param name="value">Value.</param>
    /// <param name="destination">Output.</param>
    /// <param name="bytesWritten">Bytes written (6 or 8).</param>
    /// <returns>False when the destination is too small.</returns>
    public static bool TryFormatMonthYear(FixMonthYear value, Span<byte> destination, out int bytesWritten)
    {
        int length = value.Day != 0 || value.Week != 0 ? 8 : 6;
        if (destination.Length < length || (uint)value.Year > 9999 || (uint)value.Month > 99)
        {
            bytesWritten = 0;
            return false;
        }
        AsciiParsing.Write4Digits(destination, 0, value.Year);
        AsciiParsing.Write2Digits(destination, 4, value.Month);
        if (value.Week != 0)
        {
            destination[6] = (byte)'w';
            destination[7] = (byte)('0' + value.Week % 10);
        }
        else if (value.Day != 0)
        {
            AsciiParsing.Write2Digits(destination, 6, value.Day % 100);
        }
        bytesWritten = length;
        return true;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static int FractionLength(TimestampPrecision precision) => precision switch
    {
        TimestampPrecision.Millis => 4,
        TimestampPrecision.Micros => 7,
        TimestampPrecision.Nanos => 10,
        _ => 0,
    };

    /// <summary>
    /// The last date formatted by any thread, packed into one word so a reader never sees a key with another day's
    /// text: (days since the epoch + 1) in the high 32 bits and <c>YYYYMMDD</c> as 8 BCD digits, the first digit in
    /// the lowest nibble, in the low 32 bits. The initial key 0xFFFFFFFF matches no representable day.
    /// </summary>
    private static ulong s_lastDate = ulong.MaxValue;

    /// <summary>The 8 bytes of <c>YYYYMMDD</c> (byte 0 first) for days since the epoch.</summary>
    /// <remarks>
    /// PERF: timestamps are almost always on the same day, so the civil-date arithmetic (a chain of about ten
    /// dependent divisions) runs once per day. The cache is one shared 64-bit word (an aligned 64-bit read or write is
    /// atomic), not [ThreadStatic] state, which would cost a __tls_get_addr call per timestamp
    /// (docs/benchmarks/toolkit-codec-notes.md).
    /// </remarks>
    internal static ulong DateText(long days)
    {
        ulong packed = s_lastDate;
        if ((long)(packed >> 32) == days + 1) return ExpandBcd((uint)packed);
        return DateTextSlow(days);
    }

    /// <summary>Spreads 8 BCD digits (digit i in nibble i) to 8 ASCII bytes (digit i in byte i).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ulong ExpandBcd(uint bcd)
    {
        ulong x = bcd;
        x = (x | (x << 16)) & 0x0000_FFFF_0000_FFFFUL; // digits 0-3 | digits 4-7 in the two 32-bit halves
        x = (x | (x << 8)) & 0x00FF_00FF_00FF_00FFUL;  // two digits per 16 bits
        x = (x | (x << 4)) & 0x0F0F_0F0F_0F0F_0F0FUL;  // one digit per byte
        return x | 0x3030_3030_3030_3030UL;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static ulong DateTextSlow(long days)
    {
        Span<byte> text = stackalloc byte[8];
        WriteDate(days, text);
        uint bcd = 0;
        for (int i = 0; i < 8; i++) bcd |= (uint)(text[i] - '0') << (4 * i);
        // Days before 1970-01-01 (key would be below 1) are not cached.
        if (days >= 0) s_lastDate = ((ulong)(days + 1) << 32) | bcd;
        return AsciiParsing.ReadUInt64(text, 0);
    }

    /// <summary><c>HH:MM:SS</c> (byte 0 first) for a second of the day (0..86,399).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static ulong TimeOfDayText(uint secondOfDay)
    {
        uint hour = secondOfDay / 3600;
        uint minuteOfDay = secondOfDay / 60;
        uint minute = minuteOfDay - hour * 60;
        uint second = secondOfDay - minuteOfDay * 60;
        return AsciiFormatting.DigitPair(hour) | ((ulong)':' << 16) | ((ulong)AsciiFormatting.DigitPair(minute) << 24)
            | ((ulong)':' << 40) | ((ulong)AsciiFormatting.DigitPair(second) << 48);
    }

    /// <summary>Writes <c>YYYYMMDD</c> for days since the epoch (8 bytes).</summary>
    internal static void WriteDate(long days, Span<byte> destination)
    {
        FixValueParser.CivilFromDays(days, out int year, out int month, out int day);
        AsciiParsing.Write4Digits(destination, 0, year);
        AsciiParsing.Write2Digits(destination, 4, month);
        AsciiParsing.Write2Digits(destination, 6, day);
    }

    /// <summary>Writes <c>HH:MM:SS[.f…]</c>.</summary>
    internal static void WriteTimeOfDay(long nanosOfDay, TimestampPrecision precision, Span<byte> destination)
    {
        if (destination.Length < 8 + FractionLength(precision)) Internal.ThrowHelper.ThrowArgumentOutOfRange(nameof(destination));
        WriteTimeOfDayUnchecked(nanosOfDay, precision, destination, 0);
    }

    /// <summary>Writes <c>HH:MM:SS[.f…]</c> (nanosOfDay 0..86,399,999,999,999) at <paramref name="offset"/> without bounds checks; returns the length.</summary>
    /// <remarks><c>HH:MM:SS</c> is built in a register and stored once.</remarks>
    internal static int WriteTimeOfDayUnchecked(long nanosOfDay, TimestampPrecision precision, Span<byte> destination, int offset)
    {
        uint secondOfDay = (uint)((ulong)nanosOfDay / FixValueParser.NanosPerSecond);
        uint nanos = (uint)((ulong)nanosOfDay - secondOfDay * (ulong)FixValueParser.NanosPerSecond);
        AsciiParsing.StoreUnchecked(destination, offset, TimeOfDayText(secondOfDay), 8);
        return 8 + WriteFractionUnchecked(nanos, precision, destination, offset + 8);
    }

    /// <summary>Writes <c>.fff</c>, <c>.ffffff</c> or <c>.fffffffff</c> of a sub-second nanosecond count (truncating).</summary>
    internal static void WriteFraction(uint nanos, TimestampPrecision precision, Span<byte> destination)
    {
        if (destination.Length < FractionLength(precision)) Internal.ThrowHelper.ThrowArgumentOutOfRange(nameof(destination));
        WriteFractionUnchecked(nanos, precision, destination, 0);
    }

    /// <summary>Like <see cref="WriteFraction"/> at <paramref name="offset"/> without bounds checks; returns the length written.</summary>
    internal static int WriteFractionUnchecked(uint nanos, TimestampPrecision precision, Span<byte> destination, int offset)
    {
        switch (precision)
        {
            case TimestampPrecision.Millis:
                uint millis = nanos / 1_000_000;
                uint hundreds = millis / 100;
                uint rest = millis - hundreds * 100;
                uint tens = rest / 10;
                AsciiParsing.StoreUnchecked(destination, offset,
                    '.' | ((ulong)('0' + hundreds) << 8) | ((ulong)('0' + tens) << 16) | ((ulong)('0' + rest - tens * 10) << 24), 4);
                return 4;
            case TimestampPrecision.Micros:
                AsciiParsing.StoreUnchecked(destination, offset, (byte)'.');
                AsciiParsing.WriteLowDigitsUnchecked(destination, offset + 1, nanos / 1_000, 6);
                return 7;
            case TimestampPrecision.Nanos:
                AsciiParsing.StoreUnchecked(destination, offset, (byte)'.');
                AsciiParsing.WriteLowDigitsUnchecked(destination, offset + 1, nanos, 9);
                return 10;
            default:
                return 0;
        }
    }
}
