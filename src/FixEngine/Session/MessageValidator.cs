using System;
using FixEngine.Codec;
using FixEngine.Dictionary;

namespace FixEngine.Session;

/// <summary>The first data-dictionary defect found in a message: what to put in a session Reject.</summary>
/// <remarks>A plain value; <see cref="IsValid"/> when nothing was found.</remarks>
internal readonly struct ValidationError
{
    internal ValidationError(int reason, int refTagId, bool hasRefTag)
    {
        Reason = reason;
        RefTagId = refTagId;
        HasRefTag = hasRefTag;
        IsError = true;
    }

    /// <summary>True when a defect was found.</summary>
    public bool IsError { get; }

    /// <summary>True when no defect was found.</summary>
    public bool IsValid => !IsError;

    /// <summary>SessionRejectReason(373) code.</summary>
    public int Reason { get; }

    /// <summary>RefTagID(371) when <see cref="HasRefTag"/>.</summary>
    public int RefTagId { get; }

    /// <summary>True when the Reject names a tag (371).</summary>
    public bool HasRefTag { get; }

    /// <inheritdoc/>
    public override string ToString() => IsError
        ? $"{SessionRejectReason.GetText(Reason)} ({Reason}){(HasRefTag ? ", tag " + RefTagId : "")}"
        : "valid";
}

/// <summary>Which data-dictionary checks a <see cref="MessageValidator"/> runs (the QuickFIX switches).</summary>
/// <remarks>Immutable record; share freely.</remarks>
internal sealed record ValidationOptions
{
    /// <summary>Header fields must come before body fields, trailer fields last (373=14).</summary>
    public bool ValidateFieldsOutOfOrder { get; init; } = true;

    /// <summary>Fields must not be empty (373=4).</summary>
    public bool ValidateFieldsHaveValues { get; init; } = true;

    /// <summary>Tags of 5000 and up must be defined in the dictionary (373=0).</summary>
    public bool ValidateUserDefinedFields { get; init; } = true;

    /// <summary>Accept fields that are defined but not for this message type, and unknown tags in the body.</summary>
    public bool AllowUnknownMsgFields { get; init; }

    /// <summary>Accept values outside a field's enumeration (373=5 is then not checked).</summary>
    public bool AllowUnknownEnumValues { get; init; }
}

/// <summary>Validates one indexed message against a session (transport) dictionary and an application dictionary.</summary>
/// <remarks>
/// Not thread-safe: one instance per session (it keeps a scratch table for repeated-tag detection). Allocation-free
/// after construction. Order of checks: unparsable tags, field order, MsgType, required fields, then per field:
/// value present, repeated, known tag, data format, enum value, defined for the message; at a group's count field the
/// group's shape (its count against its entries, and the counts of nested groups) before any value in its entries, as
/// QuickFIX does; then per group instance its fields and required members (nested groups included).
/// </remarks>
internal sealed class MessageValidator
{
    private const int SeenTableSize = 1 << 13;

    private readonly DataDictionary _session;
    private readonly DataDictionary _app;
    private readonly ValidationOptions _options;
    private readonly int[] _seen = new int[SeenTableSize];
    private int _scope;

    /// <summary>Creates a validator.</summary>
    /// <param name="sessionDictionary">Header, trailer and admin messages (FIXT11.xml, or the FIX.4.x dictionary).</param>
    /// <param name="appDictionary">Application messages (FIX50SP2.xml); the session dictionary for FIX.4.x.</param>
    /// <param name="options">Switches.</param>
    public MessageValidator(DataDictionary sessionDictionary, DataDictionary? appDictionary, ValidationOptions options)
    {
        _session = sessionDictionary;
        _app = appDictionary ?? sessionDictionary;
        _options = options;
    }

    /// <summary>The dictionary for header, trailer and admin messages.</summary>
    public DataDictionary SessionDictionary => _session;

    /// <summary>The dictionary for application messages.</summary>
    public DataDictionary AppDictionary => _app;

    /// <summary>True when <paramref name="tag"/> belongs to the standard header.</summary>
    /// <param name="tag">A tag.</param>
    /// <returns>True for header fields.</returns>
    public bool IsHeaderField(int tag) => _session.IsHeaderField(tag);

    /// <summary>Validates <paramref name="message"/>.</summary>
    /// <param name="message">A whole message with the standard 8, 9, 35 prefix.</param>
    /// <returns>The first defect, or a valid result.</returns>
    public ValidationError Validate(FixMessage message)
    {
        FixMessageIndex index = message.Index;
        FixDefect defect = index.Defect;
        if (defect.IsInvalidTagNumber)
        {
            return new ValidationError(SessionRejectReason.InvalidTagNumber, defect.Tag, true);
        }

        int count = message.Count;
        if (_options.ValidateFieldsOutOfOrder)
        {
            bool inBody = false;
            bool inTrailer = false;
            for (int i = 3; i < count; i++)
            {
                int tag = message.GetTag(i);
                if (_session.IsTrailerField(tag))
                {
                    inTrailer = true;
                    continue;
                }
                if (inTrailer) return new ValidationError(SessionRejectReason.TagSpecifiedOutOfRequiredOrder, tag, true);
                if (_session.IsHeaderField(tag))
                {
                    if (inBody) return new ValidationError(SessionRejectReason.TagSpecifiedOutOfRequiredOrder, tag, true);
                }
                else
                {
                    inBody = true;
                }
            }
        }

        ReadOnlySpan<byte> msgType = message.MsgType;
        MessageDefinition? definition = _session.GetMessage(msgType);
        DataDictionary bodyDictionary = _session;
        if (definition is null || (!definition.IsAdmin && !ReferenceEquals(_session, _app)))
        {
            definition = _app.GetMessage(msgType);
            bodyDictionary = _app;
        }
        if (definition is null) return new ValidationError(SessionRejectReason.InvalidMsgType, 0, false);

        foreach (int tag in _session.Header.RequiredFields)
        {
            if (!message.Contains(tag)) return new ValidationError(SessionRejectReason.RequiredTagMissing, tag, true);
        }
        foreach (int tag in definition.RequiredFields)
        {
            if (!message.Contains(tag)) return new ValidationError(SessionRejectReason.RequiredTagMissing, tag, true);
        }

        _scope++;
        int end = count;
        int p = 0;
        return ValidateFields(message, definition, bodyDictionary, ref p, end, topLevel: true, groupDelimiter: 0);
    }

    private ValidationError ValidateFields(FixMessage message, FieldContainer container, DataDictionary bodyDictionary, ref int i, int end, bool topLevel, int groupDelimiter)
    {
        int scope = ++_scope;
        int start = i;
        bool first = true;
        while (i < end)
        {
            int tag = message.GetTag(i);
            bool headerOrTrailer = topLevel && (_session.IsHeaderField(tag) || _session.IsTrailerField(tag));
            if (!topLevel && !headerOrTrailer)
            {
                if (!container.IsAllowed(tag)) return CheckInstanceRequired(message, container, scope, start, i);
                if (tag == groupDelimiter && !first) return CheckInstanceRequired(message, container, scope, start, i);
            }
            first = false;

            ReadOnlySpan<byte> value = message.GetValue(i);
            if (value.IsEmpty && _options.ValidateFieldsHaveValues)
            {
                return new ValidationError(SessionRejectReason.TagSpecifiedWithoutValue, tag, true);
            }

            if ((uint)tag < SeenTableSize)
            {
                if (_seen[tag] == scope) return new ValidationError(SessionRejectReason.TagAppearsMoreThanOnce, tag, true);
                _seen[tag] = scope;
            }

            // Header and trailer fields are the transport dictionary's; a body field is looked up only in the dictionary
            // that defines the message (the transport one for admin messages, the application one otherwise), as the
            // QuickFIX engines do. Falling back to the other dictionary made a tag that FIXT11 does not define, sent in
            // a Heartbeat, "not defined for this message type" (373=2) instead of "invalid tag number" (373=0) whenever
            // FIX50SP2 happened to define it.
            DataDictionary dictionary = headerOrTrailer ? _session : bodyDictionary;
            FieldDefinition? field = dictionary.GetField(tag);
            if (field is null)
            {
                bool userDefined = tag >= 5000;
                if ((userDefined && _options.ValidateUserDefinedFields) || (!userDefined && !_options.AllowUnknownMsgFields))
                {
                    return new ValidationError(SessionRejectReason.InvalidTagNumber, tag, true);
                }
                i++;
                continue;
            }
            if (!value.IsEmpty)
            {
                if (!DataDictionary.ValidateFieldValueFormat(dictionary.ValidationType(field.Type), value))
                {
                    return new ValidationError(SessionRejectReason.IncorrectDataFormat, tag, true);
                }
                if (field.HasEnum && !_options.AllowUnknownEnumValues && !field.IsValidEnumValue(value))
                {
                    return new ValidationError(SessionRejectReason.ValueIsIncorrect, tag, true);
                }
            }
            if (!headerOrTrailer && !container.IsAllowed(tag))
            {
                if (tag >= 5000 || _options.AllowUnknownMsgFields)
                {
                    i++;
                    continue;
                }
                return new ValidationError(SessionRejectReason.TagNotDefinedForMessageType, tag, true);
            }

            GroupDefinition? group = headerOrTrailer ? (_session.Header.GetGroup(tag) ?? _session.Trailer.GetGroup(tag)) : container.GetGroup(tag);
            i++;
            if (group is not null)
            {
                AsciiParsing.TryParseSmallUnsigned(value, out int declared);
                // The group's shape (its count and the counts of groups nested in it) is checked before any value in
                // its entries, as QuickFIX checks a level's fields, count fields included, before the groups below it.
                ValidationError shape = CheckShape(message, group, tag, declared, i, end);
                if (shape.IsError) return shape;
                int instances = 0;
                while (i < end && message.GetTag(i) == group.DelimiterTag)
                {
                    instances++;
                    ValidationError inner = ValidateFields(message, group, bodyDictionary, ref i, end, topLevel: false, group.DelimiterTag);
                    if (inner.IsError) return inner;
                }
                if (instances != declared) return new ValidationError(SessionRejectReason.IncorrectNumInGroupCount, tag, true);
            }
        }
        return topLevel ? default : CheckInstanceRequired(message, container, scope, start, i);
    }

    // Compares the count of the group whose entries start at field i with its entries, then the counts of the groups
    // nested in them, level by level as QuickFIX does; entry boundaries are those of ValidateFields (an entry ends at the
    // next delimiter or at a tag the group does not allow). Reads tags and count values only.
    private static ValidationError CheckShape(FixMessage message, GroupDefinition group, int countTag, int declared, int i, int end)
    {
        int instances = 0;
        for (int j = i; j < end && message.GetTag(j) == group.DelimiterTag; instances++) j = SkipEntry(message, group, j + 1, end);
        if (instances != declared) return new ValidationError(SessionRejectReason.IncorrectNumInGroupCount, countTag, true);
        while (i < end && message.GetTag(i) == group.DelimiterTag)
        {
            i++;
            while (i < end)
            {
                int tag = message.GetTag(i);
                if (tag == group.DelimiterTag || !group.IsAllowed(tag)) break;
                i++;
                GroupDefinition? nested = group.GetGroup(tag);
                if (nested is null) continue;
                AsciiParsing.TryParseSmallUnsigned(message.GetValue(i - 1), out int nestedDeclared);
                ValidationError inner = CheckShape(message, nested, tag, nestedDeclared, i, end);
                if (inner.IsError) return inner;
                while (i < end && message.GetTag(i) == nested.DelimiterTag) i = SkipEntry(message, nested, i + 1, end);
            }
        }
        return default;
    }

    // The index after the entry of group whose delimiter is at i - 1.
    private static int SkipEntry(FixMessage message, GroupDefinition group, int i, int end)
    {
        while (i < end)
        {
            int tag = message.GetTag(i);
            if (tag == group.DelimiterTag || !group.IsAllowed(tag)) break;
            i++;
            GroupDefinition? nested = group.GetGroup(tag);
            if (nested is null) continue;
            while (i < end && message.GetTag(i) == nested.DelimiterTag) i = SkipEntry(message, nested, i + 1, end);
        }
        return i;
    }

    // One group instance spans fields [start, end) and its own fields were marked with scope in the seen table (fields
    // of nested instances carry their own scopes). Every required member of the group must be among them.
    private ValidationError CheckInstanceRequired(FixMessage message, FieldContainer group, int scope, int start, int end)
    {
        foreach (int tag in group.RequiredFields)
        {
            bool present;
            if ((uint)tag < SeenTableSize)
            {
                present = _seen[tag] == scope;
            }
            else
            {
                present = false;
                for (int j = start; j < end && !present; j++) present = message.GetTag(j) == tag;
            }
            if (!present) return new ValidationError(SessionRejectReason.RequiredTagMissing, tag, true);
        }
        return default;
    }
}
