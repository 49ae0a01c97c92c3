using System;
using System.Collections.Generic;

namespace FixEngine.Dictionary;

/// <summary>One enum value of a field: the wire value and its dictionary description.</summary>
/// <param name="Value">The value as sent on the wire, e.g. <c>"1"</c>.</param>
/// <param name="Description">The dictionary's description, e.g. <c>"BUY"</c>.</param>
public readonly record struct FieldEnumValue(string Value, string Description);

/// <summary>A field from the <c>&lt;fields&gt;</c> section of a data dictionary.</summary>
/// <remarks>Immutable after load; safe to share between threads.</remarks>
public sealed class FieldDefinition
{
    private readonly EnumValueSet? _enumSet;

    internal FieldDefinition(int tag, string name, FixFieldType type, FieldEnumValue[] values)
    {
        Tag = tag;
        Name = name;
        Type = type;
        Values = values;
        if (values.Length > 0)
        {
            var raw = new string[values.Length];
            for (int i = 0; i < values.Length; i++) raw[i] = values[i].Value;
            _enumSet = new EnumValueSet(raw);
        }
    }

    /// <summary>The tag number.</summary>
    public int Tag { get; }

    /// <summary>The field name, e.g. <c>ClOrdID</c>.</summary>
    public string Name { get; }

    /// <summary>The data type.</summary>
    public FixFieldType Type { get; }

    /// <summary>The enum values in dictionary order; empty when the field has none.</summary>
    public IReadOnlyList<FieldEnumValue> Values { get; }

    /// <summary>True when the dictionary restricts the field to enum values.</summary>
    public bool HasEnum => _enumSet is not null;

    /// <summary>True for DATA and XMLDATA fields, whose length comes from <see cref="LengthTag"/>.</summary>
    public bool IsDataField => Type is FixFieldType.Data or FixFieldType.XmlData;

    /// <summary>For a data field, the LENGTH field that precedes it (e.g. 95 for 96); otherwise 0.</summary>
    public int LengthTag { get; internal set; }

    /// <summary>True when the field is a multiple-value type whose tokens are separated by spaces.</summary>
    public bool IsMultipleValue => Type is FixFieldType.MultipleValueString or FixFieldType.MultipleStringValue or FixFieldType.MultipleCharValue;

    /// <summary>Tests a value against the enum (QuickFIX semantics: for multiple-value types every space-separated token must be valid).</summary>
    /// <remarks>True when the field has no enum. Allocation-free.</remarks>
    public bool IsValidEnumValue(ReadOnlySpan<byte> value)
    {
        EnumValueSet? set = _enumSet;
        if (set is null) return true;
        if (!IsMultipleValue) return set.Contains(value);
        bool any = false;
        while (true)
        {
            int space = value.IndexOf((byte)' ');
            ReadOnlySpan<byte> token = space < 0 ? value : value.Slice(0, space);
            if (token.Length > 0)
            {
                if (!set.Contains(token)) return false;
                any = true;
            }
            if (space < 0) return any;
            value = value.Slice(space + 1);
        }
    }

    /// <inheritdoc/>
    public override string ToString() => $"{Name}({Tag}) {FixFieldTypeNames.GetName(Type)}";
}
