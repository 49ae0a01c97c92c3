using System;

namespace FixEngine.Dictionary;

public sealed partial class DataDictionary
{
    /// <summary>True when <paramref name="value"/> has the wire format QuickFIX requires for <paramref name="type"/>.</summary>
    /// <remarks>
    /// Integers: optional '-', then digits ('+' is invalid). Decimals: optional '-', digits with at most one '.', at least one
    /// digit, no exponent. CHAR: one byte. BOOLEAN: Y or N. UTCTIMESTAMP: YYYYMMDD-HH:MM:SS with optional .sss, .ssssss or
    /// .sssssssss. UTCTIMEONLY: HH:MM:SS with the same fractions. Dates: YYYYMMDD of a real calendar day. MONTHYEAR: YYYYMM,
    /// YYYYMMDD or YYYYMMwN. Other types: any non-empty value. Empty values are never valid. Thread-safe; allocation-free.
    /// </remarks>
    public static bool ValidateFieldValueFormat(FixFieldType type, ReadOnlySpan<byte> value)
    {
        if (value.IsEmpty) return false;
        switch (type)
        {
            case FixFieldType.Int:
            case FixFieldType.Length:
            case FixFieldType.SeqNum:
            case FixFieldType.NumInGroup:
            case FixFieldType.TagNum:
            case FixFieldType.DayOfMonth:
            case FixFieldType.Reserved100Plus:
            case FixFieldType.Reserved1000Plus:
            case FixFieldType.Reserved4000Plus:
                return IsInteger(value);
            case FixFieldType.Float:
            case FixFieldType.Price:
            case FixFieldType.Qty:
            case FixFieldType.Amt:
            case FixFieldType.PriceOffset:
            case FixFieldType.Percentage:
                return IsDecimal(value);
            case FixFieldType.Char:
                return value.Length == 1;
            case FixFieldType.Boolean:
                return value.Length == 1 && (value[0] == (byte)'Y' || value[0] == (byte)'N');
            case FixFieldType.UtcTimestamp:
            case FixFieldType.Time:
                return value.Length >= 17 && IsDate(value.Slice(0, 8)) && value[8] == (byte)'-' && IsTimeOfDay(value.Slice(9));
            case FixFieldType.UtcTimeOnly:
                return IsTimeOfDay(value);
            case FixFieldType.UtcDateOnly:
            case FixFieldType.UtcDate:
            case FixFieldType.LocalMktDate:
                return IsDate(value);
            case FixFieldType.MonthYear:
                return IsMonthYear(value);
            default:
                return true;
        }
    }

    private static bool IsInteger(ReadOnlySpan<byte> v)
    {
        if (v[0] == (byte)'-') v = v.Slice(1);
        if (v.IsEmpty) return false;
        foreach (byte b in v)
        {
            if ((uint)(b - '0') > 9) return false;
        }
        return true;
    }

    private static bool IsDecimal(ReadOnlySpan<byte> v)
    {
        if (v[0] == (byte)'-') v = v.Slice(1);
        bool digit = false;
        bool dot = false;
        foreach (byte b in v)
        {
            if ((uint)(b - '0') <= 9)
            {
                digit = true;
            }
            else if (b == (byte)'.' && !dot)
            {
                dot = true;
            }
            else
            {
                return false;
            }
        }
        return digit;
    }

    private static bool TryDigits(ReadOnlySpan<byte> v, out int value)
    {
        value = 0;
        foreach (byte b in v)
        {
            uint d = (uint)(b - '0');
            if (d > 9) return false;
            value = value * 10 + (int)d;
        }
        return true;
    }

    private static bool IsDate(ReadOnlySpan<byte> v)
    {
        if (v.Length != 8) return false;
        if (!TryDigits(v.Slice(0, 4), out int year) || !TryDigits(v.Slice(4, 2), out int month) || !TryDigits(v.Slice(6, 2), out int day))
        {
            return false;
        }
        return year >= 1 && month is >= 1 and <= 12 && day >= 1 && day <= DateTime.DaysInMonth(year, month);
    }

    /// <summary>HH:MM:SS with an optional fraction of 3, 6 or 9 digits; seconds may be 60 (leap second).</summary>
    private static bool IsTimeOfDay(ReadOnlySpan<byte> v)
    {
        if (v.Length < 8 || v[2] != (byte)':' || v[5] != (byte)':') return false;
        if (!TryDigits(v.Slice(0, 2), out int h) || !TryDigits(v.Slice(3, 2), out int m) || !TryDigits(v.Slice(6, 2), out int s))
        {
            return false;
        }
        if (h > 23 || m > 59 || s > 60) return false;
        if (v.Length == 8) return true;
        if (v[8] != (byte)'.') return false;
        ReadOnlySpan<byte> fraction = v.Slice(9);
        return fraction.Length is 3 or 6 or 9 && TryDigits(fraction, out _);
    }

    private static bool IsMonthYear(ReadOnlySpan<byte> v)
    {
        if (v.Length < 6 || !TryDigits(v.Slice(0, 4), out _) || !TryDigits(v.Slice(4, 2), out int month) || month is < 1 or > 12)
        {
            return false;
        }
        if (v.Length == 6) return true;
        if (v.Length != 8) return false;
        if (v[6] == (byte)'w') return v[7] is >= (byte)'1' and <= (byte)'5';
        return IsDate(v);
    }
}
