using System;
using System.Collections.Frozen;
using System.Collections.Generic;
using System.Runtime.CompilerServices;

namespace FixEngine.Dictionary;

/// <summary>A QuickFIX-format data dictionary compiled into flat lookup tables.</summary>
/// <remarks>
/// Load with <see cref="Load(string)"/>, <see cref="Load(System.IO.Stream, string)"/> or <see cref="Parse"/>. After loading the
/// instance is immutable and safe to share between threads and sessions. Every lookup by tag is O(1) (an array indexed by tag
/// below 65,536, a frozen hash above) and no lookup allocates.
/// </remarks>
public sealed partial class DataDictionary
{
    private readonly FieldDefinition?[] _denseFields;
    private readonly FrozenDictionary<int, FieldDefinition>? _sparseFields;
    private readonly FrozenDictionary<string, FieldDefinition> _fieldsByName;
    private readonly FrozenDictionary<ulong, MessageDefinition> _shortMessages;
    private readonly (byte[] MsgType, MessageDefinition Message)[] _longMessages;
    private readonly MessageDefinition[] _messages;
    private readonly FieldDefinition[] _fields;

    private DataDictionary(
        string fileName, string fixType, int major, int minor, int servicePack,
        FieldDefinition[] fields, SectionDefinition header, SectionDefinition trailer, MessageDefinition[] messages)
    {
        FileName = fileName;
        FixType = fixType;
        Major = major;
        Minor = minor;
        ServicePack = servicePack;
        Version = servicePack > 0 ? $"{fixType}.{major}.{minor}SP{servicePack}" : $"{fixType}.{major}.{minor}";
        IsTransport = fixType == "FIXT";
        ApplVerID = IsTransport ? null : ApplVerIdOf(major, minor, servicePack);
        CharIsString = !IsTransport && major == 4 && minor < 2;
        Header = header;
        Trailer = trailer;
        _fields = fields;
        _messages = messages;

        int maxDense = -1;
        var sparse = new Dictionary<int, FieldDefinition>();
        foreach (FieldDefinition f in fields)
        {
            if (f.Tag < TagSet.DenseLimit) maxDense = Math.Max(maxDense, f.Tag);
            else sparse.Add(f.Tag, f);
        }
        _denseFields = new FieldDefinition?[maxDense + 1];
        foreach (FieldDefinition f in fields)
        {
            if (f.Tag < TagSet.DenseLimit) _denseFields[f.Tag] = f;
        }
        _sparseFields = sparse.Count == 0 ? null : sparse.ToFrozenDictionary();
        var byName = new Dictionary<string, FieldDefinition>(StringComparer.Ordinal);
        foreach (FieldDefinition f in fields) byName[f.Name] = f;
        _fieldsByName = byName.ToFrozenDictionary(StringComparer.Ordinal);

        var shortMessages = new Dictionary<ulong, MessageDefinition>();
        var longMessages = new List<(byte[], MessageDefinition)>();
        foreach (MessageDefinition m in messages)
        {
            byte[] bytes = System.Text.Encoding.ASCII.GetBytes(m.MsgType);
            if (ShortKey.TryPack(bytes, out ulong key)) shortMessages.Add(key, m);
            else longMessages.Add((bytes, m));
        }
        _shortMessages = shortMessages.ToFrozenDictionary();
        _longMessages = longMessages.ToArray();
    }

    /// <summary>The path or display name the dictionary was loaded from.</summary>
    public string FileName { get; }

    /// <summary>The <c>type</c> attribute of the root: <c>FIX</c> or <c>FIXT</c>.</summary>
    public string FixType { get; }

    /// <summary>The <c>major</c> attribute.</summary>
    public int Major { get; }

    /// <summary>The <c>minor</c> attribute.</summary>
    public int Minor { get; }

    /// <summary>The <c>servicepack</c> attribute (0 when absent).</summary>
    public int ServicePack { get; }

    /// <summary>The version: the BeginString for FIX 4.x and FIXT (<c>FIX.4.2</c>, <c>FIXT.1.1</c>), the application version for FIX 5.x (<c>FIX.5.0SP2</c>).</summary>
    public string Version { get; }

    /// <summary>True for a transport (FIXT) dictionary.</summary>
    public bool IsTransport { get; }

    /// <summary>The ApplVerID(1128) value of this version (<c>"4"</c> for FIX.4.2 ... <c>"9"</c> for FIX.5.0SP2); null for FIXT.</summary>
    public string? ApplVerID { get; }

    /// <summary>
    /// True for FIX.4.0 and FIX.4.1 dictionaries, whose CHAR fields are checked as STRING (any non-empty value), as
    /// QuickFIX does: those versions type multi-character fields such as BeginString, SenderCompID and CheckSum as CHAR.
    /// </summary>
    public bool CharIsString { get; }

    /// <summary>The header fields (top level; header groups such as NoHops through <see cref="FieldContainer.GetGroup"/>).</summary>
    public SectionDefinition Header { get; }

    /// <summary>The trailer fields.</summary>
    public SectionDefinition Trailer { get; }

    /// <summary>All messages in dictionary order.</summary>
    public IReadOnlyList<MessageDefinition> Messages => _messages;

    /// <summary>All fields in dictionary order.</summary>
    public IReadOnlyList<FieldDefinition> Fields => _fields;

    /// <summary>The definition of <paramref name="tag"/>, or null when the dictionary does not define it.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public FieldDefinition? GetField(int tag)
    {
        FieldDefinition?[] dense = _denseFields;
        if ((uint)tag < (uint)dense.Length) return dense[tag];
        return GetSparseField(tag);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private FieldDefinition? GetSparseField(int tag)
        => _sparseFields is not null && _sparseFields.TryGetValue(tag, out FieldDefinition? f) ? f : null;

    /// <summary>The definition of the field named <paramref name="name"/>, or null.</summary>
    public FieldDefinition? GetField(string name) => _fieldsByName.TryGetValue(name, out FieldDefinition? f) ? f : null;

    /// <summary>True when the dictionary defines <paramref name="tag"/> in its <c>&lt;fields&gt;</c> section.</summary>
    public bool IsDefinedField(int tag) => GetField(tag) is not null;

    /// <summary>The type of <paramref name="tag"/>; <see cref="FixFieldType.Unknown"/> when undefined.</summary>
    public FixFieldType GetFieldType(int tag) => GetField(tag)?.Type ?? FixFieldType.Unknown;

    /// <summary>True when <paramref name="tag"/> is a top-level header field.</summary>
    public bool IsHeaderField(int tag) => Header.IsAllowed(tag);

    /// <summary>True when <paramref name="tag"/> is a trailer field.</summary>
    public bool IsTrailerField(int tag) => Trailer.IsAllowed(tag);

    /// <summary>True when <paramref name="tag"/> has enum values in the dictionary.</summary>
    public bool HasEnum(int tag) => GetField(tag)?.HasEnum ?? false;

    /// <summary>
    /// True unless <paramref name="tag"/> has an enum and <paramref name="value"/> is not one of its values. For
    /// MULTIPLEVALUESTRING, MULTIPLESTRINGVALUE and MULTIPLECHARVALUE every space-separated token must be valid.
    /// </summary>
    public bool IsValidEnumValue(int tag, ReadOnlySpan<byte> value)
    {
        FieldDefinition? f = GetField(tag);
        return f is null || f.IsValidEnumValue(value);
    }

    /// <summary>True for DATA and XMLDATA fields.</summary>
    public bool IsDataField(int tag) => GetField(tag)?.IsDataField ?? false;

    /// <summary>The LENGTH field that gives the size of data field <paramref name="dataTag"/> (e.g. 95 for 96); 0 when none.</summary>
    public int GetLengthTag(int dataTag) => GetField(dataTag)?.LengthTag ?? 0;

    /// <summary>True when the value of <paramref name="tag"/> has the format its dictionary type requires; true for undefined tags.</summary>
    /// <remarks>CHAR is checked as STRING when <see cref="CharIsString"/>.</remarks>
    public bool IsValidFieldFormat(int tag, ReadOnlySpan<byte> value)
    {
        FieldDefinition? f = GetField(tag);
        return f is null || ValidateFieldValueFormat(ValidationType(f.Type), value);
    }

    /// <summary>The type a value of <paramref name="type"/> is checked as: <see cref="FixFieldType.String"/> for CHAR when
    /// <see cref="CharIsString"/>, otherwise <paramref name="type"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal FixFieldType ValidationType(FixFieldType type) => type == FixFieldType.Char && CharIsString ? FixFieldType.String : type;

    /// <summary>The message with MsgType(35) <paramref name="msgType"/>, or null when the dictionary does not define it.</summary>
    public MessageDefinition? GetMessage(ReadOnlySpan<byte> msgType)
    {
        if (ShortKey.TryPack(msgType, out ulong key))
        {
            return _shortMessages.TryGetValue(key, out MessageDefinition? m) ? m : null;
        }
        foreach ((byte[] type, MessageDefinition message) in _longMessages)
        {
            if (msgType.SequenceEqual(type)) return message;
        }
        return null;
    }

    /// <summary>The message with MsgType(35) <paramref name="msgType"/>, or null.</summary>
    public MessageDefinition? GetMessage(string msgType)
    {
        Span<byte> buffer = stackalloc byte[64];
        if (msgType.Length > buffer.Length) return null;
        for (int i = 0; i < msgType.Length; i++)
        {
            if (msgType[i] > 0x7F) return null;
            buffer[i] = (byte)msgType[i];
        }
        return GetMessage(buffer.Slice(0, msgType.Length));
    }

    /// <summary>
    /// The reader's shape of the repeating group started by <paramref name="countTag"/> in message <paramref name="msgType"/>
    /// (a group of the body, components expanded, or of the header or trailer), or null when there is none.
    /// </summary>
    /// <remarks>For users without the source generator: pass the result to <see cref="Codec.FixMessage.GetGroup"/>. Load-time
    /// helper (the first call per group builds and caches the definition); keep the result for the hot path.</remarks>
    public Codec.FixGroupDefinition? GetFixGroupDefinition(ReadOnlySpan<byte> msgType, int countTag)
        => GetMessage(msgType)?.GetFixGroupDefinition(countTag) ?? Header.GetFixGroupDefinition(countTag) ?? Trailer.GetFixGroupDefinition(countTag);

    /// <inheritdoc cref="GetFixGroupDefinition(ReadOnlySpan{byte}, int)"/>
    public Codec.FixGroupDefinition? GetFixGroupDefinition(string msgType, int countTag)
        => GetMessage(msgType)?.GetFixGroupDefinition(countTag) ?? Header.GetFixGroupDefinition(countTag) ?? Trailer.GetFixGroupDefinition(countTag);

    /// <summary>True when <paramref name="msgType"/> is defined by the dictionary.</summary>
    public bool IsMessageDefined(ReadOnlySpan<byte> msgType) => GetMessage(msgType) is not null;

    /// <summary>True when the dictionary marks <paramref name="msgType"/> <c>msgcat="admin"</c>; for a type it does not define, whether it is a standard session message (0 1 2 3 4 5 A).</summary>
    public bool IsAdminMessage(ReadOnlySpan<byte> msgType)
    {
        MessageDefinition? m = GetMessage(msgType);
        return m is not null ? m.IsAdmin : IsStandardAdminMsgType(msgType);
    }

    /// <summary>True for the session-level message types of the FIX standard: 0, 1, 2, 3, 4, 5 and A.</summary>
    public static bool IsStandardAdminMsgType(ReadOnlySpan<byte> msgType)
        => msgType.Length == 1 && (msgType[0] is (>= (byte)'0' and <= (byte)'5') or (byte)'A');

    private static string? ApplVerIdOf(int major, int minor, int servicePack) => (major, minor, servicePack) switch
    {
        (4, 0, 0) => "2",
        (4, 1, 0) => "3",
        (4, 2, 0) => "4",
        (4, 3, 0) => "5",
        (4, 4, 0) => "6",
        (5, 0, 0) => "7",
        (5, 0, 1) => "8",
        (5, 0, 2) => "9",
        _ => null,
    };

    /// <inheritdoc/>
    public override string ToString() => $"{Version} ({FileName})";
}
