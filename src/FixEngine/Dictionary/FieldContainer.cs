using System;
using System.Collections.Frozen;
using System.Collections.Generic;
using FixEngine.Codec;

namespace FixEngine.Dictionary;

/// <summary>A flat, compiled list of fields at one level: a message body, the header, the trailer or a group entry.</summary>
/// <remarks>
/// Components are already expanded: <see cref="Fields"/> lists the tags at this level in dictionary order, including the
/// count tags of groups at this level (whose members are in <see cref="GetGroup"/>). Immutable after load and safe to share
/// between threads; every lookup is O(1) and allocation-free.
/// </remarks>
public abstract class FieldContainer
{
    private readonly int[] _fields;
    private readonly int[] _required;
    private readonly TagSet _allowed;
    private readonly TagSet _requiredSet;
    private readonly FrozenDictionary<int, GroupDefinition>? _groups;

    private protected FieldContainer(string name, int[] fields, int[] required, IReadOnlyDictionary<int, GroupDefinition> groups)
    {
        Name = name;
        _fields = fields;
        _required = required;
        _allowed = new TagSet(fields);
        _requiredSet = new TagSet(required);
        _groups = groups.Count == 0 ? null : groups.ToFrozenDictionary();
    }

    /// <summary>The name from the dictionary (message name, group count field name, or <c>header</c>/<c>trailer</c>).</summary>
    public string Name { get; }

    /// <summary>The tags allowed at this level, in dictionary order (group count tags included, group members not).</summary>
    public ReadOnlySpan<int> Fields => _fields;

    /// <summary>The tags required at this level, in dictionary order, including required fields of required components.</summary>
    public ReadOnlySpan<int> RequiredFields => _required;

    /// <summary>True when <paramref name="tag"/> may appear at this level.</summary>
    public bool IsAllowed(int tag) => _allowed.Contains(tag);

    /// <summary>True when <paramref name="tag"/> is required at this level.</summary>
    public bool IsRequired(int tag) => _requiredSet.Contains(tag);

    /// <summary>True when <paramref name="countTag"/> starts a repeating group at this level.</summary>
    public bool IsGroup(int countTag) => _groups is not null && _groups.ContainsKey(countTag);

    /// <summary>The group started by <paramref name="countTag"/> at this level, or null.</summary>
    public GroupDefinition? GetGroup(int countTag)
        => _groups is not null && _groups.TryGetValue(countTag, out GroupDefinition? g) ? g : null;

    /// <summary>The groups at this level (unordered).</summary>
    public IEnumerable<GroupDefinition> Groups => _groups is null ? [] : _groups.Values;

    /// <summary>The reader's shape (<see cref="FixGroupDefinition"/>) of the group started by <paramref name="countTag"/> at this level, or null.</summary>
    /// <remarks>Pass it to <see cref="FixMessage.GetGroup"/>; nested groups come with it. See <see cref="GroupDefinition.ToFixGroupDefinition"/>.</remarks>
    public FixGroupDefinition? GetFixGroupDefinition(int countTag) => GetGroup(countTag)?.ToFixGroupDefinition();
}

/// <summary>The header or trailer of a dictionary.</summary>
public sealed class SectionDefinition : FieldContainer
{
    internal SectionDefinition(string name, int[] fields, int[] required, IReadOnlyDictionary<int, GroupDefinition> groups)
        : base(name, fields, required, groups)
    {
    }
}

/// <summary>A message from the <c>&lt;messages&gt;</c> section, with its body compiled flat.</summary>
/// <remarks>Header and trailer fields are not in the body: check them with <see cref="DataDictionary.IsHeaderField"/> and <see cref="DataDictionary.IsTrailerField"/>.</remarks>
public sealed class MessageDefinition : FieldContainer
{
    internal MessageDefinition(string name, string msgType, bool isAdmin, int[] fields, int[] required, IReadOnlyDictionary<int, GroupDefinition> groups)
        : base(name, fields, required, groups)
    {
        MsgType = msgType;
        IsAdmin = isAdmin;
    }

    /// <summary>The MsgType(35) value, e.g. <c>D</c>.</summary>
    public string MsgType { get; }

    /// <summary>True when the dictionary marks the message <c>msgcat="admin"</c>.</summary>
    public bool IsAdmin { get; }

    /// <inheritdoc/>
    public override string ToString() => $"{Name}({MsgType})";
}

/// <summary>A repeating group: its count tag, its delimiter (first member) and the fields of one entry.</summary>
public sealed class GroupDefinition : FieldContainer
{
    internal GroupDefinition(string name, int countTag, int delimiterTag, int[] fields, int[] required, IReadOnlyDictionary<int, GroupDefinition> groups)
        : base(name, fields, required, groups)
    {
        CountTag = countTag;
        DelimiterTag = delimiterTag;
    }

    /// <summary>
    /// The members QuickFIX C++ requires in every entry, ascending: the group's own required field and group children,
    /// only when the group itself is required. Empty otherwise.
    /// </summary>
    internal int[] QuickFixRequiredFields { get; init; } = [];

    /// <summary>The NUMINGROUP tag that starts the group, e.g. 453.</summary>
    public int CountTag { get; }

    /// <summary>The first field of every entry, e.g. 448 for NoPartyIDs.</summary>
    public int DelimiterTag { get; }

    /// <summary>This group as the codec's <see cref="FixGroupDefinition"/> (members and nested groups, recursively), for <see cref="FixMessage.GetGroup"/>.</summary>
    /// <remarks>
    /// Built on first use and then cached, so call it once at start-up and keep the result for the hot path. Safe from
    /// any thread: two racing first calls build equal definitions and one of them is kept.
    /// </remarks>
    /// <returns>The definition (the same instance on every later call).</returns>
    public FixGroupDefinition ToFixGroupDefinition()
    {
        FixGroupDefinition? built = _codecDefinition;
        if (built is not null) return built;
        var nested = new List<FixGroupDefinition>();
        foreach (int tag in Fields)
        {
            if (GetGroup(tag) is GroupDefinition inner) nested.Add(inner.ToFixGroupDefinition());
        }
        built = new FixGroupDefinition(CountTag, DelimiterTag, Fields, nested.ToArray());
        _codecDefinition = built;
        return built;
    }

    private FixGroupDefinition? _codecDefinition;

    /// <inheritdoc/>
    public override string ToString() => $"{Name}({CountTag}) delim={DelimiterTag}";
}
