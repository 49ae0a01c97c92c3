using System.Collections.Generic;
using System.Text;
using FixEngine.Codec;
using FixEngine.Dictionary;

namespace FixEngine.Tests.Dictionary;

/// <summary>The compiled dictionary yields the <see cref="FixGroupDefinition"/>s the reader needs (no hand-written shapes).</summary>
public sealed class GroupDefinitionFromDictionaryTests
{
    private static FixMessage Parse(string text, FixMessageIndex index, out byte[] bytes)
    {
        bytes = Encoding.ASCII.GetBytes(text.Replace('|', '\u0001'));
        Assert.True(index.Parse(bytes));
        return new FixMessage(bytes, index);
    }

    [Fact]
    public void PartiesOfAFix50Sp2ExecutionReportAreReadWithTheirNestedSubIds()
    {
        // NoPartyIDs is reached through the Parties component, NoPartySubIDs through PtysSubGrp inside it.
        FixGroupDefinition parties = SharedDictionaryTests.Fix50Sp2.GetFixGroupDefinition("8", 453)!;
        Assert.NotNull(parties);
        Assert.Equal(448, parties.DelimiterTag);
        Assert.True(parties.IsMember(447));
        Assert.True(parties.IsMember(452));
        FixGroupDefinition? subIds = parties.FindNested(802);
        Assert.NotNull(subIds);
        Assert.Equal(523, subIds!.DelimiterTag);
        Assert.Same(parties, SharedDictionaryTests.Fix50Sp2.GetFixGroupDefinition("8", 453));

        var index = new FixMessageIndex();
        FixMessage m = Parse("8=FIXT.1.1|9=5|35=8|37=O|453=2|448=A|447=D|452=1|802=2|523=s1|803=1|523=s2|803=2|448=B|447=D|452=3|17=E|10=000|", index, out _);
        FixGroup group = m.GetGroup(parties);
        Assert.Equal(FixGroupStatus.Ok, group.Status);
        var ids = new List<string>();
        int subs = 0;
        foreach (FixMessage entry in group)
        {
            ids.Add(entry.GetString(448)!);
            FixGroup nested = entry.GetGroup(subIds);
            if (nested.Status == FixGroupStatus.Ok) foreach (FixMessage s in nested) subs++;
        }
        Assert.Equal(["A", "B"], ids);
        Assert.Equal(2, subs);
        Assert.True(m.TryGetSpan(17, out _));
    }

    [Fact]
    public void CountMismatchIsReportedWithTheDictionaryDefinition()
    {
        FixGroupDefinition allocs = SharedDictionaryTests.Fix44.GetFixGroupDefinition("D", 78)!;
        var index = new FixMessageIndex();
        FixMessage m = Parse("8=FIX.4.4|9=5|35=D|78=2|79=a|80=1|79=b|80=2|79=c|80=3|55=X|10=000|", index, out _);
        FixGroup group = m.GetGroup(allocs);
        Assert.Equal(FixGroupStatus.CountMismatch, group.Status);
        Assert.Equal(3, group.Count);
        Assert.Equal(2, group.DeclaredCount);
    }

    [Fact]
    public void HeaderGroupsAndUnknownGroupsAreResolved()
    {
        Assert.Equal(628, SharedDictionaryTests.Fix44.GetFixGroupDefinition("D", 627)!.DelimiterTag); // NoHops, header
        Assert.Null(SharedDictionaryTests.Fix44.GetFixGroupDefinition("D", 55));
        Assert.Null(SharedDictionaryTests.Fix44.GetFixGroupDefinition("ZZ", 453));
    }
}
