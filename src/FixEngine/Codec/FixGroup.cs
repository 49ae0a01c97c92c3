using System;

namespace FixEngine.Codec;

/// <summary>Shape of a repeating group: NumInGroup tag, delimiter (first) tag, member tags and nested groups.</summary>
/// <remarks>
/// Immutable after construction; build once and share between threads. Lookups allocate nothing. From a data dictionary:
/// <c>DataDictionary.GetFixGroupDefinition(msgType, countTag)</c> or <c>GroupDefinition.ToFixGroupDefinition()</c>; the
/// source generator emits them as static fields of each message.
/// </remarks>
public sealed class FixGroupDefinition
{
    private readonly int[] _sortedMembers;
    private readonly FixGroupDefinition[] _nested;

    /// <summary>Creates a definition.</summary>
    /// <param name="countTag">NumInGroup tag (e.g. 453 NoPartyIDs).</param>
    /// <param name="delimiterTag">First tag of every instance (e.g. 448 PartyID).</param>
    /// <param name="memberTags">Tags that may appear in an instance; the delimiter and nested count tags are added automatically.</param>
    /// <param name="nestedGroups">Groups nested inside an instance.</param>
    public FixGroupDefinition(int countTag, int delimiterTag, ReadOnlySpan<int> memberTags, params FixGroupDefinition[] nestedGroups)
    {
        CountTag = countTag;
        DelimiterTag = delimiterTag;
        _nested = (FixGroupDefinition[])nestedGroups.Clone();
        int[] members = new int[memberTags.Length + 1 + _nested.Length];
        memberTags.CopyTo(members);
        members[memberTags.Length] = delimiterTag;
        for (int i = 0; i < _nested.Length; i++) members[memberTags.Length + 1 + i] = _nested[i].CountTag;
        Array.Sort(members);
        int unique = 0;
        for (int i = 0; i < members.Length; i++)
        {
            if (unique == 0 || members[unique - 1] != members[i]) members[unique++] = members[i];
        }
        _sortedMembers = members.AsSpan(0, unique).ToArray();
    }

    /// <summary>NumInGroup tag.</summary>
    public int CountTag { get; }

    /// <summary>First tag of every instance.</summary>
    public int DelimiterTag { get; }

    /// <summary>All member tags (sorted, including the delimiter and nested count tags).</summary>
    public ReadOnlySpan<int> MemberTags => _sortedMembers;

    /// <summary>Nested group definitions.</summary>
    public ReadOnlySpan<FixGroupDefinition> NestedGroups => _nested;

    /// <summary>True when <paramref name="tag"/> may appear directly in an instance.</summary>
    /// <param name="tag">Tag to test.</param>
    /// <returns>True for members.</returns>
    public bool IsMember(int tag) => Array.BinarySearch(_sortedMembers, tag) >= 0;

    /// <summary>The nested group whose count tag is <paramref name="countTag"/>, or null.</summary>
    /// <param name="countTag">Tag to test.</param>
    /// <returns>The nested definition or null.</returns>
    public FixGroupDefinition? FindNested(int countTag)
    {
        foreach (FixGroupDefinition nested in _nested)
        {
            if (nested.CountTag == countTag) return nested;
        }
        return null;
    }
}

/// <summary>Outcome of locating a repeating group.</summary>
public enum FixGroupStatus : byte
{
    /// <summary>The number of instances found equals the NumInGroup value.</summary>
    Ok,

    /// <summary>The NumInGroup tag is absent.</summary>
    Missing,

    /// <summary>The NumInGroup value is not a non-negative integer.</summary>
    IncorrectDataFormat,

    /// <summary>The instances found (each starting with the delimiter) differ from the NumInGroup value (SessionRejectReason 16).</summary>
    CountMismatch,
}

/// <summary>A repeating group located in a message; enumerate it to get one <see cref="FixMessage"/> view per instance.</summary>
/// <remarks>
/// Stack-only, valid while the message is. An instance runs from its delimiter up to the next delimiter or the
/// first tag that is neither a member nor inside a nested group. Allocation-free.
/// <code>
///   453=2|448=A|447=D|452=1|448=B|447=D|452=3|55=X
///   ^CountFieldIndex  ^instance 0   ^instance 1   ^EndFieldIndex
/// </code>
/// </remarks>
public readonly ref struct FixGroup
{
    private readonly ReadOnlySpan<byte> _buffer;
    private readonly FixMessageIndex _index;
    private readonly FixGroupDefinition _definition;

    internal FixGroup(ReadOnlySpan<byte> buffer, FixMessageIndex index, FixGroupDefinition definition, FixGroupStatus status,
        int countFieldIndex, int declaredCount, int count, int endFieldIndex)
    {
        _buffer = buffer;
        _index = index;
        _definition = definition;
        Status = status;
        CountFieldIndex = countFieldIndex;
        DeclaredCount = declaredCount;
        Count = count;
        EndFieldIndex = endFieldIndex;
    }

    /// <summary>Whether the group was found and its count matches.</summary>
    public FixGroupStatus Status { get; }

    /// <summary>Whole-message field index of the NumInGroup field, or -1 when missing.</summary>
    public int CountFieldIndex { get; }

    /// <summary>The NumInGroup value.</summary>
    public int DeclaredCount { get; }

    /// <summary>Instances actually found.</summary>
    public int Count { get; }

    /// <summary>Whole-message index of the first field after the group, or -1 when missing.</summary>
    public int EndFieldIndex { get; }

    /// <summary>The group definition.</summary>
    public FixGroupDefinition Definition => _definition;

    /// <summary>Enumerates the instances.</summary>
    /// <returns>An allocation-free enumerator.</returns>
    public Enumerator GetEnumerator() => new(_buffer, _index, _definition, CountFieldIndex + 1, Math.Max(EndFieldIndex, 0));

    internal static int ScanInstanceEnd(FixMessageIndex index, FixGroupDefinition definition, int delimiterIndex, int limit)
    {
        int j = delimiterIndex + 1;
        while (j < limit)
        {
            int tag = index.GetTag(j);
            if (tag == definition.DelimiterTag) return j;
            FixGroupDefinition? nested = definition.FindNested(tag);
            if (nested is not null)
            {
                j++;
                while (j < limit && index.GetTag(j) == nested.DelimiterTag) j = ScanInstanceEnd(index, nested, j, limit);
                continue;
            }
            if (!definition.IsMember(tag)) return j;
            j++;
        }
        return j;
    }

    /// <summary>Enumerator over group instances.</summary>
    public ref struct Enumerator
    {
        private readonly ReadOnlySpan<byte> _buffer;
        private readonly FixMessageIndex _index;
        private readonly FixGroupDefinition _definition;
        private readonly int _limit;
        private int _next;
        private int _start;
        private int _end;

        internal Enumerator(ReadOnlySpan<byte> buffer, FixMessageIndex index, FixGroupDefinition definition, int first, int limit)
        {
            _buffer = buffer;
            _index = index;
            _definition = definition;
            _next = first;
            _limit = limit;
            _start = _end = first;
        }

        /// <summary>The current instance as a view (lookups inside it are linear and confined to the instance).</summary>
        public readonly FixMessage Current => FixMessage.CreateRange(_buffer, _index, _start, _end);

        /// <summary>Advances to the next instance.</summary>
        /// <returns>False after the last instance.</returns>
        public bool MoveNext()
        {
            if (_next >= _limit || _index.GetTag(_next) != _definition.DelimiterTag) return false;
            _start = _next;
            _end = ScanInstanceEnd(_index, _definition, _next, _limit);
            _next = _end;
            return true;
        }
    }
}
