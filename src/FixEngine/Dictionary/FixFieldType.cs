using System;

namespace FixEngine.Dictionary;

/// <summary>The data type of a FIX field, as named by the <c>type</c> attribute of a QuickFIX data dictionary.</summary>
public enum FixFieldType : byte
{
    /// <summary>No type known (the tag is not defined in the dictionary).</summary>
    Unknown = 0,
    /// <summary>INT: signed integer.</summary>
    Int,
    /// <summary>LENGTH: byte count of the following DATA field.</summary>
    Length,
    /// <summary>SEQNUM: message sequence number.</summary>
    SeqNum,
    /// <summary>NUMINGROUP: number of entries of a repeating group.</summary>
    NumInGroup,
    /// <summary>TAGNUM: a field tag number.</summary>
    TagNum,
    /// <summary>DAYOFMONTH: 1..31.</summary>
    DayOfMonth,
    /// <summary>FLOAT: decimal number.</summary>
    Float,
    /// <summary>PRICE: decimal price.</summary>
    Price,
    /// <summary>QTY: decimal quantity.</summary>
    Qty,
    /// <summary>AMT: decimal amount.</summary>
    Amt,
    /// <summary>PRICEOFFSET: decimal price offset.</summary>
    PriceOffset,
    /// <summary>PERCENTAGE: decimal percentage.</summary>
    Percentage,
    /// <summary>CHAR: a single character.</summary>
    Char,
    /// <summary>BOOLEAN: Y or N.</summary>
    Boolean,
    /// <summary>STRING: free text.</summary>
    String,
    /// <summary>MULTIPLEVALUESTRING: space-separated values.</summary>
    MultipleValueString,
    /// <summary>MULTIPLESTRINGVALUE: space-separated string values.</summary>
    MultipleStringValue,
    /// <summary>MULTIPLECHARVALUE: space-separated single characters.</summary>
    MultipleCharValue,
    /// <summary>EXCHANGE: ISO 10383 market identifier.</summary>
    Exchange,
    /// <summary>CURRENCY: ISO 4217 code.</summary>
    Currency,
    /// <summary>COUNTRY: ISO 3166 code.</summary>
    Country,
    /// <summary>LANGUAGE: ISO 639-1 code.</summary>
    Language,
    /// <summary>UTCTIMESTAMP: YYYYMMDD-HH:MM:SS[.sss].</summary>
    UtcTimestamp,
    /// <summary>UTCTIMEONLY: HH:MM:SS[.sss].</summary>
    UtcTimeOnly,
    /// <summary>UTCDATEONLY: YYYYMMDD.</summary>
    UtcDateOnly,
    /// <summary>UTCDATE: YYYYMMDD (FIX 4.2 name).</summary>
    UtcDate,
    /// <summary>LOCALMKTDATE: YYYYMMDD in the market's local time.</summary>
    LocalMktDate,
    /// <summary>LOCALMKTTIME: HH:MM:SS in the market's local time.</summary>
    LocalMktTime,
    /// <summary>MONTHYEAR: YYYYMM, YYYYMMDD or YYYYMMwN.</summary>
    MonthYear,
    /// <summary>DATA: raw bytes preceded by a LENGTH field.</summary>
    Data,
    /// <summary>XMLDATA: XML content preceded by a LENGTH field.</summary>
    XmlData,
    /// <summary>TIME: FIX 4.0/4.1 timestamp (checked as UTCTIMESTAMP).</summary>
    Time,
    /// <summary>DATE: FIX 4.0/4.1 date.</summary>
    Date,
    /// <summary>TZTIMEONLY: HH:MM[:SS][Z|+hh[:mm]|-hh[:mm]].</summary>
    TzTimeOnly,
    /// <summary>TZTIMESTAMP: YYYYMMDD-HH:MM[:SS][Z|+hh[:mm]|-hh[:mm]].</summary>
    TzTimestamp,
    /// <summary>XID: identifier of an XML element.</summary>
    Xid,
    /// <summary>XIDREF: reference to an XID.</summary>
    XidRef,
    /// <summary>RESERVED100PLUS: integer 100 or more.</summary>
    Reserved100Plus,
    /// <summary>RESERVED1000PLUS: integer 1000 or more.</summary>
    Reserved1000Plus,
    /// <summary>RESERVED4000PLUS: integer 4000 or more.</summary>
    Reserved4000Plus,
    /// <summary>PATTERN: string following a pattern.</summary>
    Pattern,
    /// <summary>TENOR: tenor code such as D5, M3.</summary>
    Tenor,
}

/// <summary>Maps the QuickFIX type names to <see cref="FixFieldType"/>.</summary>
public static class FixFieldTypeNames
{
    private static readonly (string Name, FixFieldType Type)[] s_names =
    [
        ("INT", FixFieldType.Int), ("LENGTH", FixFieldType.Length), ("SEQNUM", FixFieldType.SeqNum),
        ("NUMINGROUP", FixFieldType.NumInGroup), ("TAGNUM", FixFieldType.TagNum), ("DAYOFMONTH", FixFieldType.DayOfMonth),
        ("FLOAT", FixFieldType.Float), ("PRICE", FixFieldType.Price), ("QTY", FixFieldType.Qty), ("QUANTITY", FixFieldType.Qty),
        ("AMT", FixFieldType.Amt), ("PRICEOFFSET", FixFieldType.PriceOffset), ("PERCENTAGE", FixFieldType.Percentage),
        ("CHAR", FixFieldType.Char), ("BOOLEAN", FixFieldType.Boolean), ("STRING", FixFieldType.String),
        ("MULTIPLEVALUESTRING", FixFieldType.MultipleValueString), ("MULTIPLESTRINGVALUE", FixFieldType.MultipleStringValue),
        ("MULTIPLECHARVALUE", FixFieldType.MultipleCharValue), ("EXCHANGE", FixFieldType.Exchange),
        ("CURRENCY", FixFieldType.Currency), ("COUNTRY", FixFieldType.Country), ("LANGUAGE", FixFieldType.Language),
        ("UTCTIMESTAMP", FixFieldType.UtcTimestamp), ("UTCTIMEONLY", FixFieldType.UtcTimeOnly),
        ("UTCDATEONLY", FixFieldType.UtcDateOnly), ("UTCDATE", FixFieldType.UtcDate), ("LOCALMKTDATE", FixFieldType.LocalMktDate),
        ("LOCALMKTTIME", FixFieldType.LocalMktTime), ("MONTHYEAR", FixFieldType.MonthYear), ("DATA", FixFieldType.Data),
        ("XMLDATA", FixFieldType.XmlData), ("TIME", FixFieldType.Time), ("DATE", FixFieldType.Date),
        ("TZTIMEONLY", FixFieldType.TzTimeOnly), ("TZTIMESTAMP", FixFieldType.TzTimestamp), ("XID", FixFieldType.Xid),
        ("XIDREF", FixFieldType.XidRef), ("RESERVED100PLUS", FixFieldType.Reserved100Plus),
        ("RESERVED1000PLUS", FixFieldType.Reserved1000Plus), ("RESERVED4000PLUS", FixFieldType.Reserved4000Plus),
        ("PATTERN", FixFieldType.Pattern), ("TENOR", FixFieldType.Tenor),
    ];

    /// <summary>Parses a QuickFIX type name (case-insensitive), e.g. <c>"PRICE"</c>.</summary>
    /// <remarks>Thread-safe; allocation-free.</remarks>
    public static bool TryParse(string name, out FixFieldType type)
    {
        foreach ((string n, FixFieldType t) in s_names)
        {
            if (string.Equals(n, name, StringComparison.OrdinalIgnoreCase))
            {
                type = t;
                return true;
            }
        }
        type = FixFieldType.Unknown;
        return false;
    }

    /// <summary>The QuickFIX name of a type, e.g. <c>"PRICE"</c>; <c>"UNKNOWN"</c> for <see cref="FixFieldType.Unknown"/>.</summary>
    /// <remarks>Thread-safe; allocation-free.</remarks>
    public static string GetName(FixFieldType type)
    {
        foreach ((string n, FixFieldType t) in s_names)
        {
            if (t == type) return n;
        }
        return "UNKNOWN";
    }
}
