using System;
using System.Linq;
using System.Text;
using FixEngine.Dictionary;
using FixEngine.Tests.Infrastructure;

namespace FixEngine.Tests.Dictionary;

public sealed class SharedDictionaryTests
{
    private static readonly Lazy<DataDictionary> s_fix42 = new(() => DataDictionary.Load(SharedPaths.Dictionary("FIX42.xml")));
    private static readonly Lazy<DataDictionary> s_fix44 = new(() => DataDictionary.Load(SharedPaths.Dictionary("FIX44.xml")));
    private static readonly Lazy<DataDictionary> s_fixt11 = new(() => DataDictionary.Load(SharedPaths.Dictionary("FIXT11.xml")));
    private static readonly Lazy<DataDictionary> s_fix50sp2 = new(() => DataDictionary.Load(SharedPaths.Dictionary("FIX50SP2.xml")));

    internal static DataDictionary Fix42 => s_fix42.Value;
    internal static DataDictionary Fix44 => s_fix44.Value;
    internal static DataDictionary Fixt11 => s_fixt11.Value;
    internal static DataDictionary Fix50Sp2 => s_fix50sp2.Value;

    private static ReadOnlySpan<byte> B(string s) => Encoding.ASCII.GetBytes(s);

    [Fact]
    public void EachSharedDictionaryLoadsWithItsVersion()
    {
        Assert.Equal("FIX.4.2", Fix42.Version);
        Assert.Equal("FIX.4.4", Fix44.Version);
        Assert.Equal("FIXT.1.1", Fixt11.Version);
        Assert.Equal("FIX.5.0SP2", Fix50Sp2.Version);
        Assert.True(Fixt11.IsTransport);
        Assert.Null(Fixt11.ApplVerID);
        Assert.Equal("9", Fix50Sp2.ApplVerID);
        Assert.Equal("4", Fix42.ApplVerID);
    }

    [Fact]
    public void Fix42NewOrderSingleRequiresItsFields()
    {
        MessageDefinition d = Fix42.GetMessage(B("D"))!;
        Assert.Equal("NewOrderSingle", d.Name);
        Assert.Equal(new[] { 11, 21, 55, 54, 60, 40 }, d.RequiredFields.ToArray());
        Assert.True(d.IsAllowed(44));
        Assert.False(d.IsAllowed(35));
        Assert.False(d.IsAllowed(9999));
        Assert.False(d.IsAdmin);
    }

    [Fact]
    public void Fix44NewOrderSingleExpandsInstrumentComponent()
    {
        MessageDefinition d = Fix44.GetMessage(B("D"))!;
        int[] required = d.RequiredFields.ToArray();
        foreach (int tag in new[] { 11, 54, 60, 40 }) Assert.Contains(tag, required);
        Assert.Equal(new[] { 11, 54, 60, 40 }, required);
        // Instrument is a required component; its Symbol(55) is allowed but marked required='N' in FIX44.xml.
        Assert.True(d.IsAllowed(55));
        Assert.True(d.IsAllowed(48));
        Assert.DoesNotContain(21, required);
        Assert.DoesNotContain(48, required);
    }

    [Fact]
    public void HeaderAndTrailerFields()
    {
        foreach (DataDictionary dd in new[] { Fix42, Fix44, Fixt11 })
        {
            int[] required = dd.Header.RequiredFields.ToArray();
            Assert.Equal(new[] { 8, 9, 35, 49, 56, 34, 52 }, required);
            Assert.True(dd.IsHeaderField(8));
            Assert.True(dd.IsHeaderField(122));
            Assert.False(dd.IsHeaderField(11));
            Assert.True(dd.IsTrailerField(10));
            Assert.True(dd.IsTrailerField(93));
            Assert.False(dd.IsTrailerField(8));
            Assert.Equal(new[] { 10 }, dd.Trailer.RequiredFields.ToArray());
        }
        Assert.True(Fixt11.IsHeaderField(1128));
        GroupDefinition hops = Fixt11.Header.GetGroup(627)!;
        Assert.Equal(628, hops.DelimiterTag);
    }

    [Fact]
    public void EnumsOfFix42()
    {
        Assert.True(Fix42.HasEnum(167));
        Assert.True(Fix42.IsValidEnumValue(167, B("FUT")));
        Assert.False(Fix42.IsValidEnumValue(167, B("FUTX")));
        Assert.False(Fix42.IsValidEnumValue(167, B("FU")));
        Assert.True(Fix42.IsValidEnumValue(21, B("1")));
        Assert.True(Fix42.IsValidEnumValue(21, B("2")));
        Assert.True(Fix42.IsValidEnumValue(21, B("3")));
        Assert.False(Fix42.IsValidEnumValue(21, B("4")));
        Assert.False(Fix42.IsValidEnumValue(21, B("")));
        Assert.Equal(new[] { "1", "2", "3" }, Fix42.GetField(21)!.Values.Select(v => v.Value).ToArray());
        Assert.False(Fix42.HasEnum(11));
        Assert.True(Fix42.IsValidEnumValue(11, B("anything")));
        Assert.True(Fix42.IsValidEnumValue(99999, B("x")));
    }

    [Fact]
    public void MultipleValueStringChecksEveryToken()
    {
        // ExecInst(18) is MULTIPLEVALUESTRING in FIX 4.2.
        Assert.Equal(FixFieldType.MultipleValueString, Fix42.GetFieldType(18));
        Assert.True(Fix42.IsValidEnumValue(18, B("1")));
        Assert.True(Fix42.IsValidEnumValue(18, B("1 2 G")));
        Assert.False(Fix42.IsValidEnumValue(18, B("1 ZZ")));
        Assert.False(Fix42.IsValidEnumValue(18, B(" ")));
    }

    [Fact]
    public void Fix44PartyGroupHasDelimiterAndNestedGroup()
    {
        MessageDefinition d = Fix44.GetMessage(B("D"))!;
        GroupDefinition parties = d.GetGroup(453)!;
        Assert.Equal("NoPartyIDs", parties.Name);
        Assert.Equal(453, parties.CountTag);
        Assert.Equal(448, parties.DelimiterTag);
        Assert.True(parties.IsAllowed(447));
        Assert.True(parties.IsAllowed(452));
        Assert.False(parties.IsAllowed(55));
        GroupDefinition subIds = parties.GetGroup(802)!;
        Assert.Equal(523, subIds.DelimiterTag);
        Assert.Null(d.GetGroup(448));
        Assert.True(d.IsGroup(453));
    }

    [Fact]
    public void Fix42SecurityDefinitionHasNoRelatedSym()
    {
        MessageDefinition d = Fix42.GetMessage(B("d"))!;
        GroupDefinition related = d.GetGroup(146)!;
        Assert.Equal("NoRelatedSym", related.Name);
        Assert.Equal(311, related.DelimiterTag);
        Assert.True(related.IsAllowed(309));
    }

    [Fact]
    public void Fixt11HasOnlyAdminMessages()
    {
        Assert.All(Fixt11.Messages, m => Assert.True(m.IsAdmin));
        Assert.True(Fixt11.IsAdminMessage(B("A")));
        Assert.NotNull(Fixt11.GetMessage(B("A")));
        Assert.Null(Fixt11.GetMessage(B("D")));
        Assert.True(Fixt11.GetMessage(B("A"))!.IsAllowed(1137));
    }

    [Fact]
    public void Fix50Sp2HasApplicationMessagesAndEmptyHeader()
    {
        Assert.Equal(0, Fix50Sp2.Header.Fields.Length);
        Assert.Equal(0, Fix50Sp2.Trailer.Fields.Length);
        MessageDefinition d = Fix50Sp2.GetMessage(B("D"))!;
        Assert.False(d.IsAdmin);
        Assert.Contains(11, d.RequiredFields.ToArray());
        Assert.NotNull(Fix50Sp2.GetMessage(B("AE")));
        Assert.NotNull(Fix50Sp2.GetMessage("8"));
        Assert.False(Fix50Sp2.IsAdminMessage(B("D")));
        // Admin types unknown to an application dictionary fall back to the standard session messages.
        Assert.True(Fix50Sp2.IsAdminMessage(B("A")));
        Assert.True(Fix50Sp2.GetField(1128)!.HasEnum);
    }

    [Fact]
    public void DataFieldsKnowTheirLengthField()
    {
        Assert.True(Fix44.IsDataField(96));
        Assert.Equal(95, Fix44.GetLengthTag(96));
        Assert.Equal(212, Fix44.GetLengthTag(213));
        Assert.Equal(354, Fix44.GetLengthTag(355));
        Assert.False(Fix44.IsDataField(95));
        Assert.Equal(0, Fix44.GetLengthTag(95));
        foreach (DataDictionary dd in new[] { Fix42, Fix44, Fixt11, Fix50Sp2 })
        {
            foreach (FieldDefinition f in dd.Fields.Where(f => f.IsDataField))
            {
                Assert.True(f.LengthTag > 0, $"{dd.Version} {f}");
            }
        }
    }

    [Fact]
    public void FieldTypesAndNames()
    {
        Assert.Equal(FixFieldType.Price, Fix44.GetFieldType(44));
        Assert.Equal(FixFieldType.UtcTimestamp, Fix44.GetFieldType(52));
        Assert.Equal(FixFieldType.SeqNum, Fix44.GetFieldType(34));
        Assert.Equal(FixFieldType.Unknown, Fix44.GetFieldType(5000));
        Assert.False(Fix44.IsDefinedField(5000));
        Assert.False(Fix44.IsDefinedField(-1));
        Assert.False(Fix44.IsDefinedField(int.MaxValue));
        Assert.Equal(11, Fix44.GetField("ClOrdID")!.Tag);
        Assert.Null(Fix44.GetField("NoSuchField"));
    }

    [Fact]
    public void EveryGroupDelimiterIsItsFirstMember()
    {
        foreach (DataDictionary dd in new[] { Fix42, Fix44, Fix50Sp2 })
        {
            foreach (MessageDefinition m in dd.Messages)
            {
                foreach (GroupDefinition g in m.Groups)
                {
                    Assert.Equal(g.Fields[0], g.DelimiterTag);
                    Assert.True(m.IsAllowed(g.CountTag));
                }
            }
        }
    }
}
