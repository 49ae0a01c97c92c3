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
/// <para>Not thread-safe: one instance per session (it keeps scratch tables: tags seen at the top level and in the current entry, and where each field belongs). Allocation-free after construction (the
/// per-field tables grow once for a message with more fields than any before).</para>
/// <para>The defect reported for a message with several is the one QuickFIX C++ (1.15.1) reports, in its order:
/// unparsable tags, header/body/trailer order (373=14), MsgType, the body's required fields (lowest tag first), the
/// required members of entries of required groups (groups by count tag, entries in order), then every field of the
/// header (8, 9, 35, then by tag), of the trailer, and of the body by tag, each checked for: repeated, value present,
/// data format, enum value, known tag, defined for the message, and at a count field its count against the entries
/// that follow. Entries are delimited as QuickFIX parses them: a new entry starts at the delimiter, or at a member
/// already present in the current entry (or the first member after the count).</para>
/// <para>QuickFIX C++ checks nothing else inside group entries; FixEngine checks what it leaves out afterwards, so any
/// message QuickFIX C++ rejects gets the same answer: first the shape (an entry not starting with its delimiter, 373=15;
/// nested and header group counts, 373=16), then in message order the entries' values (373=4, 6, 5) and the required
/// members of entries that QuickFIX C++ does not require (373=1). Then the header's required fields, which QuickFIX
/// C++ leaves to the session (MsgSeqNum, SenderCompID, TargetCompID and SendingTime are left to FixSession, which
/// answers for them as QuickFIX's Session does). Where QuickFIX skips a tag's checks (AllowUnknownMsgFields=Y, or a
/// user-defined tag with ValidateUserDefinedFields=N) a count field's count is not checked either.</para>
/// </remarks>
internal sealed class MessageValidator
{
    private const int SeenTableSize = 1 << 13;
    private const long NoKey = long.MaxValue;

    private readonly DataDictionary _session;
    private readonly DataDictionary _app;
    private readonly ValidationOptions _options;
    private readonly int[] _seen = new int[SeenTableSize];
    private readonly int[] _topSeen = new int[SeenTableSize];
    private int _scope;

    // Per field of the message being validated: the entry it belongs to (0: top level), whether it repeats a tag
    // already at its level, and for a count field the entries that follow it (-1: not a count field).
    private int[] _owner = new int[256];
    private bool[] _repeat = new bool[256];
    private int[] _entriesOf = new int[256];
    private bool _topLevelRepeat;

    // Per entry (1-based, in message order): its group, its count field, its first field, and whether it belongs to a
    // header group.
    private GroupDefinition[] _entryGroup = new GroupDefinition[64];
    private int[] _entryCountField = new int[64];
    private int[] _entryStart = new int[64];
    private int[] _entryScope = new int[64];
    private int _entryCount;

    private bool _quickFixRequiredMissing;
    private ValidationError _late;
    private long _lateKey;

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
    /// <returns>The defect QuickFIX would report first, or a valid result.</returns>
    public ValidationError Validate(FixMessage message) => Validate(message, _app);

    /// <summary>Validates <paramref name="message"/>, an application message's body against <paramref name="appDictionary"/>
    /// (the dictionary of its application version on a FIXT.1.1 session with several).</summary>
    /// <param name="message">A whole message with the standard 8, 9, 35 prefix.</param>
    /// <param name="appDictionary">The dictionary for an application message's body; admin messages use the session
    /// dictionary whatever it is.</param>
    /// <returns>The defect QuickFIX would report first, or a valid result.</returns>
    public ValidationError Validate(FixMessage message, DataDictionary appDictionary)
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
        if (definition is null || (!definition.IsAdmin && !ReferenceEquals(_session, appDictionary)))
        {
            definition = appDictionary.GetMessage(msgType);
            bodyDictionary = appDictionary;
        }
        if (definition is null) return new ValidationError(SessionRejectReason.InvalidMsgType, 0, false);

        EnsureCapacity(count);
        _entryCount = 0;
        _quickFixRequiredMissing = false;
        _topLevelRepeat = false;
        _late = default;
        _lateKey = NoKey;
        int top = ++_scope;
        ParseTopLevel(message, definition, top, count);

        // Required fields of the body (QuickFIX keeps them in a set: the lowest missing tag is reported).
        int missing = int.MaxValue;
        foreach (int tag in definition.RequiredFields)
        {
            if (tag < missing && !IsAtTopLevel(message, tag, top, count)) missing = tag;
        }
        if (missing != int.MaxValue) return new ValidationError(SessionRejectReason.RequiredTagMissing, missing, true);
        if (_quickFixRequiredMissing)
        {
            ValidationError required = QuickFixGroupRequired(message, 0, count);
            if (required.IsError) return required;
        }

        ValidationError first = CheckTopLevelFields(message, definition, bodyDictionary, count);
        if (first.IsError) return first;

        foreach (int tag in _session.Header.RequiredFields)
        {
            // The session checks these as QuickFIX's Session does (FixSession OnCompIdMissing, Verify).
            if (tag is FixTags.MsgSeqNum or FixTags.SenderCompID or FixTags.TargetCompID or FixTags.SendingTime) continue;
            if (!IsAtTopLevel(message, tag, top, count)) return new ValidationError(SessionRejectReason.RequiredTagMissing, tag, true);
        }
        CheckEntryFields(message, bodyDictionary, count);
        return _late;
    }

    private void EnsureCapacity(int count)
    {
        if (_owner.Length < count)
        {
            int size = Math.Max(count, _owner.Length * 2);
            _owner = new int[size];
            _repeat = new bool[size];
            _entriesOf = new int[size];
        }
    }

    // Assigns every field to the top level or to a group entry, delimiting entries as QuickFIX does, counts each count
    // field's entries, and notes missing required members of entries.
    private void ParseTopLevel(FixMessage message, MessageDefinition definition, int top, int count)
    {
        int i = 0;
        while (i < count)
        {
            int tag = message.GetTag(i);
            _owner[i] = 0;
            _entriesOf[i] = -1;
            bool repeat = !Mark(_topSeen, message, tag, top, i, 0);
            _repeat[i] = repeat;
            _topLevelRepeat |= repeat;
            i++;
            bool headerOrTrailer = _session.IsHeaderField(tag) || _session.IsTrailerField(tag);
            GroupDefinition? group = headerOrTrailer
                ? (_session.Header.GetGroup(tag) ?? _session.Trailer.GetGroup(tag))
                : definition.GetGroup(tag);
            if (group is not null) ParseGroup(message, group, i - 1, ref i, count, headerOrTrailer);
        }
    }

    private void ParseGroup(FixMessage message, GroupDefinition group, int countField, ref int i, int end, bool header)
    {
        int entries = 0;
        int entry = 0;
        int scope = 0;
        while (i < end)
        {
            int tag = message.GetTag(i);
            bool member = group.IsAllowed(tag);
            if (tag == group.DelimiterTag || (member && (entry == 0 || IsInEntry(message, tag, scope, entry, i))))
            {
                if (entry != 0) CloseEntry(message, entry, i);
                entry = NewEntry(group, countField, i, header);
                scope = _entryScope[entry];
                entries++;
            }
            else if (!member)
            {
                break;
            }
            _owner[i] = entry;
            _entriesOf[i] = -1;
            _repeat[i] = false;
            Mark(_seen, message, tag, scope, i, entry);
            i++;
            GroupDefinition? nested = group.GetGroup(tag);
            if (nested is not null) ParseGroup(message, nested, i - 1, ref i, end, header);
        }
        if (entry != 0) CloseEntry(message, entry, i);
        _entriesOf[countField] = entries;
    }

    private int NewEntry(GroupDefinition group, int countField, int start, bool header)
    {
        int e = ++_entryCount;
        if (e >= _entryGroup.Length)
        {
            int size = _entryGroup.Length * 2;
            Array.Resize(ref _entryGroup, size);
            Array.Resize(ref _entryCountField, size);
            Array.Resize(ref _entryStart, size);
            Array.Resize(ref _entryScope, size);
        }
        _entryGroup[e] = group;
        _entryCountField[e] = header ? -countField - 1 : countField;
        _entryStart[e] = start;
        _entryScope[e] = ++_scope;
        return e;
    }

    // An entry spans fields [start, end): note QuickFIX's missing required members (ordered later), an entry that does
    // not start with the delimiter, and FixEngine's further required members (both checked after QuickFIX's checks).
    private void CloseEntry(FixMessage message, int entry, int end)
    {
        GroupDefinition group = _entryGroup[entry];
        int start = _entryStart[entry];
        int scope = _entryScope[entry];
        foreach (int tag in group.QuickFixRequiredFields)
        {
            if (!IsInEntry(message, tag, scope, entry, end)) _quickFixRequiredMissing = true;
        }
        int first = message.GetTag(start);
        if (first != group.DelimiterTag)
        {
            Late(new ValidationError(SessionRejectReason.RepeatingGroupFieldsOutOfOrder, first, true), 1, start);
        }
        foreach (int tag in group.RequiredFields)
        {
            if (!IsInEntry(message, tag, scope, entry, end))
            {
                // Reported in message order with the entries' values, at the end of the entry.
                Late(new ValidationError(SessionRejectReason.RequiredTagMissing, tag, true), 2, end - 1, 1);
                break;
            }
        }
    }

    private void Late(ValidationError error, int phase, int position, int after = 0)
    {
        long key = ((long)phase << 40) | ((long)position << 1) | (uint)after;
        if (key < _lateKey)
        {
            _lateKey = key;
            _late = error;
        }
    }

    // Marks tag as present at a level; false when it already was.
    private bool Mark(int[] seen, FixMessage message, int tag, int scope, int i, int owner)
    {
        if ((uint)tag < SeenTableSize)
        {
            if (seen[tag] == scope) return false;
            seen[tag] = scope;
            return true;
        }
        for (int j = 0; j < i; j++)
        {
            if (_owner[j] == owner && message.GetTag(j) == tag) return false;
        }
        return true;
    }

    private bool IsInEntry(FixMessage message, int tag, int scope, int entry, int end)
        => (uint)tag < SeenTableSize ? _seen[tag] == scope : HasOwnField(message, tag, entry, end);

    private bool HasOwnField(FixMessage message, int tag, int entry, int end)
    {
        for (int j = _entryStart[entry]; j < end; j++)
        {
            if (_owner[j] == entry && message.GetTag(j) == tag) return true;
        }
        return false;
    }

    private bool IsAtTopLevel(FixMessage message, int tag, int top, int count)
    {
        if ((uint)tag < SeenTableSize) return _topSeen[tag] == top;
        for (int j = 0; j < count; j++)
        {
            if (_owner[j] == 0 && message.GetTag(j) == tag) return true;
        }
        return false;
    }

    // QuickFIX's order for required members of group entries: at each level the groups by count tag, their entries in
    // order, each entry's lowest missing member, then the groups inside it. Runs only when one is missing.
    private ValidationError QuickFixGroupRequired(FixMessage message, int owner, int count)
    {
        int last = -1;
        while (true)
        {
            int next = int.MaxValue;
            for (int j = 0; j < count; j++)
            {
                int tag = message.GetTag(j);
                if (_owner[j] == owner && _entriesOf[j] >= 0 && tag > last && tag < next && !IsHeaderGroup(j)) next = tag;
            }
            if (next == int.MaxValue) return default;
            for (int e = 1; e <= _entryCount; e++)
            {
                int countField = _entryCountField[e];
                if (countField < 0 || _owner[countField] != owner || message.GetTag(countField) != next) continue;
                int end = EntryEnd(e, count);
                int missing = int.MaxValue;
                foreach (int tag in _entryGroup[e].QuickFixRequiredFields)
                {
                    // The seen table holds only the last entry's marks by now: look at the entry's fields.
                    if (tag < missing && !HasOwnField(message, tag, e, end)) missing = tag;
                }
                if (missing != int.MaxValue) return new ValidationError(SessionRejectReason.RequiredTagMissing, missing, true);
                ValidationError inner = QuickFixGroupRequired(message, e, count);
                if (inner.IsError) return inner;
            }
            last = next;
        }
    }

    private bool IsHeaderGroup(int countField)
    {
        for (int e = 1; e <= _entryCount; e++)
        {
            if (_entryCountField[e] == -countField - 1) return true;
        }
        return false;
    }

    // The index after the last field of entry e (its own fields and those of entries nested in it).
    private int EntryEnd(int e, int count)
    {
        int j = _entryStart[e] + 1;
        while (j < count && IsWithin(_owner[j], e)) j++;
        return j;
    }

    private bool IsWithin(int owner, int e)
    {
        while (owner > e)
        {
            int countField = _entryCountField[owner];
            if (countField < 0) countField = -countField - 1;
            owner = _owner[countField];
        }
        return owner == e;
    }

    // QuickFIX's field checks over the top level: header fields (8, 9, 35, then by tag), trailer fields (CheckSum last),
    // body fields by tag; the first field in that order with a defect is reported, with its first defect.
    private ValidationError CheckTopLevelFields(FixMessage message, MessageDefinition definition, DataDictionary bodyDictionary, int count)
    {
        ValidationError best = default;
        long bestKey = NoKey;
        for (int i = 0; i < count; i++)
        {
            if (_owner[i] != 0) continue;
            int tag = message.GetTag(i);
            long key;
            bool header = _session.IsHeaderField(tag);
            bool trailer = !header && _session.IsTrailerField(tag);
            if (header) key = tag switch { FixTags.BeginString => 0, FixTags.BodyLength => 1, FixTags.MsgType => 2, _ => tag + 3L };
            else if (trailer) key = (1L << 36) + (tag == FixTags.CheckSum ? int.MaxValue : tag);
            else key = (2L << 36) + tag;
            key = (key << 1) | (_repeat[i] ? 1L : 0L);
            if (key >= bestKey) continue;
            ValidationError error = CheckTopLevelField(message, definition, header || trailer ? _session : bodyDictionary, i, tag, header || trailer);
            if (error.IsError)
            {
                best = error;
                bestKey = key;
            }
        }
        return best;
    }

    private ValidationError CheckTopLevelField(FixMessage message, MessageDefinition definition, DataDictionary dictionary, int i, int tag, bool headerOrTrailer)
    {
        if (_repeat[i]) return new ValidationError(SessionRejectReason.TagAppearsMoreThanOnce, tag, true);
        ReadOnlySpan<byte> value = message.GetValue(i);
        if (value.IsEmpty && _options.ValidateFieldsHaveValues)
        {
            return new ValidationError(SessionRejectReason.TagSpecifiedWithoutValue, tag, true);
        }
        FieldDefinition? field = dictionary.GetField(tag);
        if (field is not null && !value.IsEmpty)
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
        bool userDefined = tag >= 5000;
        bool checkTag = userDefined ? _options.ValidateUserDefinedFields : !_options.AllowUnknownMsgFields;
        if (field is null)
        {
            return checkTag ? new ValidationError(SessionRejectReason.InvalidTagNumber, tag, true) : default;
        }
        if (headerOrTrailer)
        {
            if (_entriesOf[i] >= 0 && IsCountChecked(tag) && !CountMatches(message, i)) Late(new ValidationError(SessionRejectReason.IncorrectNumInGroupCount, tag, true), 1, i);
            return default;
        }
        if (!definition.IsAllowed(tag))
        {
            // A user-defined field (5000 and up) the dictionary defines for other messages is accepted anywhere.
            return checkTag && !userDefined ? new ValidationError(SessionRejectReason.TagNotDefinedForMessageType, tag, true) : default;
        }
        // QuickFIX skips the count when it skips the tag (AllowUnknownMsgFields=Y, or a user-defined count with
        // ValidateUserDefinedFields=N): the entries reach the application as they are.
        if (checkTag && _entriesOf[i] >= 0 && !CountMatches(message, i))
        {
            return new ValidationError(SessionRejectReason.IncorrectNumInGroupCount, tag, true);
        }
        return default;
    }

    // Whether a count field's count is compared with its entries: not where QuickFIX skips the tag's checks.
    private bool IsCountChecked(int tag) => tag >= 5000 ? _options.ValidateUserDefinedFields : !_options.AllowUnknownMsgFields;

    // A count field's value against its entries; a count tag repeated at the same level counts the entries of every
    // occurrence (QuickFIX keeps them in one list and compares at the first).
    private bool CountMatches(FixMessage message, int i)
    {
        if (!AsciiParsing.TryParseSmallUnsigned(message.GetValue(i), out int declared)) return false;
        int entries = _entriesOf[i];
        if (!_topLevelRepeat || _owner[i] != 0) return declared == entries;
        // Only a top-level count tag can repeat at its level (a repeated member starts a new entry).
        int tag = message.GetTag(i);
        for (int j = i + 1; j < message.Count; j++)
        {
            if (_owner[j] == 0 && _entriesOf[j] >= 0 && message.GetTag(j) == tag) entries += _entriesOf[j];
        }
        return declared == entries;
    }

    // What QuickFIX C++ does not check inside group entries, after everything it does check: the entries' shape
    // (nested counts; entries not starting with their delimiter were noted while parsing), then in message order
    // every entry field's value and the entries' required members.
    private void CheckEntryFields(FixMessage message, DataDictionary bodyDictionary, int count)
    {
        if (_entryCount == 0) return;
        for (int i = 0; i < count; i++)
        {
            int owner = _owner[i];
            if (owner == 0) continue;
            int tag = message.GetTag(i);
            if (_entriesOf[i] >= 0 && IsCountChecked(tag) && !CountMatches(message, i))
            {
                Late(new ValidationError(SessionRejectReason.IncorrectNumInGroupCount, tag, true), 1, i);
                continue;
            }
            if (_lateKey < (2L << 40)) continue;
            DataDictionary dictionary = _entryCountField[owner] < 0 ? _session : bodyDictionary;
            ReadOnlySpan<byte> value = message.GetValue(i);
            if (value.IsEmpty)
            {
                if (_options.ValidateFieldsHaveValues) Late(new ValidationError(SessionRejectReason.TagSpecifiedWithoutValue, tag, true), 2, i);
                continue;
            }
            FieldDefinition? field = dictionary.GetField(tag);
            if (field is null) continue;
            if (!DataDictionary.ValidateFieldValueFormat(dictionary.ValidationType(field.Type), value))
            {
                Late(new ValidationError(SessionRejectReason.IncorrectDataFormat, tag, true), 2, i);
            }
            else if (field.HasEnum && !_options.AllowUnknownEnumValues && !field.IsValidEnumValue(value))
            {
                Late(new ValidationError(SessionRejectReason.ValueIsIncorrect, tag, true), 2, i);
            }
        }
    }
}
