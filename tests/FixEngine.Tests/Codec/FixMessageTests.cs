using System;
using System.Text;
using FixEngine.Codec;

namespace FixEngine.Tests.Codec;

public class FixMessageTests
{
    private static long EpochNs(int y, int mo, int d, int h, int mi, int s, int ms) =>
        (new DateTime(y, mo, d, h, mi, s, ms, DateTimeKind.Utc) - DateTime.UnixEpoch).Ticks * 100;

    [Fact]
    public void IndexesGoldenNewOrderSingle()
    {
        byte[] bytes = FixText.Bytes(FixText.NewOrderSingleText);
        var index = new FixMessageIndex();
        Assert.True(index.Parse(bytes));
        FixMessage m = index.Bind(bytes);
        Assert.Equal(17, m.Count);
        Assert.True(m.HasStandardPrefix);
        Assert.True(m.HasCheckSumLast);
        Assert.Equal("D"u8.ToArray(), m.MsgType.ToArray());
        Assert.Equal("FIX.4.4"u8.ToArray(), m.BeginString.ToArray());
        Assert.Equal(16, m.BodyOffset);
        Assert.Equal(21, m.BodyStartAfterMsgType);
        Assert.Equal(bytes.Length - 7, m.TrailerOffset);
        Assert.Equal(0, index.FirstDuplicateTag);
        int[] tags = [8, 9, 35, 34, 49, 52, 56, 11, 21, 38, 40, 44, 54, 55, 59, 60, 10];
        for (int i = 0; i < tags.Length; i++) Assert.Equal(tags[i], m.GetTag(i));
        Assert.Equal(2, m.GetValueOffset(0));
        Assert.Equal(10, m.GetFieldOffset(1));
        Assert.Equal("144", Encoding.ASCII.GetString(m.GetValue(1)));
        Assert.True(m.TryGetSpan(FixTags.Symbol, out ReadOnlySpan<byte> symbol));
        Assert.Equal("MSFT", Encoding.ASCII.GetString(symbol));
        Assert.Equal("ORD-000123", m.GetString(FixTags.ClOrdID));
        Assert.Null(m.GetString(FixTags.Text));
        Assert.True(m.Contains(FixTags.CheckSum));
        Assert.False(m.Contains(FixTags.Account));
    }

    [Fact]
    public void TypedGettersReportOkMissingAndIncorrectFormat()
    {
        byte[] bytes = FixText.Bytes(FixText.NewOrderSingleText);
        var index = new FixMessageIndex();
        index.Parse(bytes);
        FixMessage m = index.Bind(bytes);
        Assert.Equal(FixValueStatus.Ok, m.TryGetInt(FixTags.MsgSeqNum, out int seq));
        Assert.Equal(215, seq);
        Assert.Equal(FixValueStatus.Ok, m.TryGetLong(FixTags.OrderQty, out long qty));
        Assert.Equal(1000, qty);
        Assert.Equal(FixValueStatus.Ok, m.TryGetDecimal(FixTags.Price, out FixDecimal price));
        Assert.Equal(101.25m, price.ToDecimal());
        Assert.Equal(FixValueStatus.Ok, m.TryGetChar(FixTags.Side, out char side));
        Assert.Equal('1', side);
        Assert.Equal(FixValueStatus.Ok, m.TryGetTimestamp(FixTags.SendingTime, out long sendingTime));
        Assert.Equal(EpochNs(2026, 3, 15, 14, 30, 5, 123), sendingTime);
        Assert.Equal(FixValueStatus.Missing, m.TryGetInt(FixTags.Account, out _));
        Assert.Equal(FixValueStatus.IncorrectDataFormat, m.TryGetInt(FixTags.Symbol, out _));
        Assert.Equal(FixValueStatus.IncorrectDataFormat, m.TryGetBool(FixTags.Symbol, out _));
        Assert.Equal(FixValueStatus.IncorrectDataFormat, m.TryGetTimestamp(FixTags.Symbol, out _));
        Assert.Equal(FixValueStatus.IncorrectDataFormat, m.TryGetChar(FixTags.ClOrdID, out _));
    }

    [Theory]
    [InlineData("35=0|-1=HI|56=T|", FixDefectKind.TagNotNumeric, -1, 1, 5)]
    [InlineData("35=0|0=HI|56=T|", FixDefectKind.TagZero, 0, 1, 5)]
    [InlineData("35=0|A=HI|56=T|", FixDefectKind.TagNotNumeric, 0, 1, 5)]
    [InlineData("35=0|=HI|56=T|", FixDefectKind.TagNotNumeric, 0, 1, 5)]
    [InlineData("35=0|1234567890=HI|56=T|", FixDefectKind.TagOutOfRange, 0, 1, 14)]
    [InlineData("35=0|58HI|56=T|", FixDefectKind.MissingEquals, 58, 1, 7)]
    [InlineData("35=0|56=|49=S|", FixDefectKind.EmptyValue, 56, 1, 8)]
    [InlineData("35=0|49=S|56=T", FixDefectKind.UnterminatedField, 56, 2, 14)]
    public void FirstDefectIsRecordedAndIndexingContinues(string text, FixDefectKind kind, int tag, int fieldIndex, int offset)
    {
        byte[] bytes = FixText.Bytes(text);
        var index = new FixMessageIndex();
        Assert.False(index.Parse(bytes));
        FixDefect d = index.Defect;
        Assert.Equal(kind, d.Kind);
        Assert.Equal(tag, d.Tag);
        Assert.Equal(fieldIndex, d.FieldIndex);
        Assert.Equal(offset, d.Offset);
        Assert.Contains(kind.ToString(), d.Describe());
        FixMessage m = index.Bind(bytes);
        Assert.Equal("0", m.GetString(FixTags.MsgType));
        Assert.True(m.Contains(text.Contains("49=") ? FixTags.SenderCompID : FixTags.TargetCompID));
    }

    [Fact]
    public void OnlyTheFirstDefectIsKept()
    {
        byte[] bytes = FixText.Bytes("35=0|-5=x|0=y|56=|");
        var index = new FixMessageIndex();
        index.Parse(bytes);
        Assert.Equal(FixDefectKind.TagNotNumeric, index.Defect.Kind);
        Assert.Equal(-5, index.Defect.Tag);
        Assert.Equal(2, index.Count); // 35 and the empty 56
    }

    [Fact]
    public void TooManyFieldsStopsAtCapacity()
    {
        byte[] bytes = FixText.Bytes("1=a|2=b|3=c|4=d|");
        var index = new FixMessageIndex(maxFields: 3);
        Assert.False(index.Parse(bytes));
        Assert.Equal(FixDefectKind.TooManyFields, index.Defect.Kind);
        Assert.Equal(4, index.Defect.Tag);
        Assert.Equal(12, index.Defect.Offset);
        Assert.Equal(3, index.Count);
    }

    [Fact]
    public void DuplicateTagsAreExposedNotRejected()
    {
        byte[] bytes = FixText.Bytes("35=0|49=A|56=B|49=C|56=D|");
        var index = new FixMessageIndex();
        Assert.True(index.Parse(bytes));
        Assert.Equal(49, index.FirstDuplicateTag);
        Assert.Equal(3, index.FirstDuplicateIndex);
        Assert.Equal("A", index.Bind(bytes).GetString(49));

        bytes = FixText.Bytes("35=0|9001=A|20000=B|9001=C|");
        Assert.True(index.Parse(bytes));
        Assert.Equal(9001, index.FirstDuplicateTag);
        Assert.Equal("A", index.Bind(bytes).GetString(9001));
        Assert.Equal("B", index.Bind(bytes).GetString(20000));
    }

    [Fact]
    public void ReusedIndexForgetsThePreviousMessage()
    {
        var index = new FixMessageIndex();
        byte[] first = FixText.Bytes("35=D|55=MSFT|9999=x|");
        byte[] second = FixText.Bytes("35=0|112=T|");
        index.Parse(first);
        index.Parse(second);
        FixMessage m = index.Bind(second);
        Assert.False(m.Contains(55));
        Assert.False(m.Contains(9999));
        Assert.True(m.Contains(112));
        Assert.Equal(0, index.FirstDuplicateTag);
    }

    [Fact]
    public void ManyLargeTagsAreFoundByHashLookup()
    {
        var sb = new StringBuilder("35=U|");
        for (int t = 5000; t < 5400; t++) sb.Append(t).Append('=').Append(t * 7).Append('|');
        byte[] bytes = FixText.Bytes(sb.ToString());
        var index = new FixMessageIndex();
        Assert.True(index.Parse(bytes));
        FixMessage m = index.Bind(bytes);
        for (int t = 5000; t < 5400; t++)
        {
            Assert.Equal(FixValueStatus.Ok, m.TryGetInt(t, out int v));
            Assert.Equal(t * 7, v);
        }
        Assert.False(m.Contains(5400));
        Assert.False(m.Contains(-3));
    }

    [Fact]
    public void RawDataMayContainSoh()
    {
        byte[] bytes = FixText.Build("FIX.4.4", "35=B|49=S|56=T|95=8|96=a|10=1|b|58=x|");
        var index = new FixMessageIndex();
        Assert.True(index.Parse(bytes), index.Defect.Describe());
        FixMessage m = index.Bind(bytes);
        Assert.True(m.TryGetSpan(FixTags.RawData, out ReadOnlySpan<byte> raw));
        Assert.Equal("a|10=1|b", FixText.Pipe(raw));
        Assert.Equal("x", m.GetString(FixTags.Text));
        Assert.True(m.HasCheckSumLast);
    }

    [Fact]
    public void BadDataLengthFallsBackToSoh()
    {
        byte[] bytes = FixText.Bytes("35=B|95=20|96=a|b|58=x|");
        var index = new FixMessageIndex();
        Assert.False(index.Parse(bytes));
        Assert.Equal(FixDefectKind.BadDataLength, index.Defect.Kind);
        Assert.Equal(96, index.Defect.Tag);
        Assert.Equal(14, index.Defect.Offset);
        Assert.Equal("a", index.Bind(bytes).GetString(96));

        bytes = FixText.Bytes("35=B|95=x|96=ab|");
        Assert.False(index.Parse(bytes));
        Assert.Equal(FixDefectKind.BadDataLength, index.Defect.Kind);
    }

    [Fact]
    public void CustomDataPairsCanBeRegistered()
    {
        DataFieldPairs pairs = DataFieldPairs.CreateStandard();
        pairs.Add(5001, 5002);
        pairs.Add(20001, 20002);
        var index = new FixMessageIndex(dataFields: pairs);
        byte[] bytes = FixText.Bytes("35=U|5001=3|5002=a|b|20001=1|20002=||96=q|");
        Assert.True(index.Parse(bytes));
        FixMessage m = index.Bind(bytes);
        Assert.Equal("a|b", FixText.Pipe(m.GetValue(2)));
        Assert.Equal("|", FixText.Pipe(m.GetValue(4)));
        Assert.Throws<InvalidOperationException>(() => DataFieldPairs.Standard.Add(5001, 5002));
    }

    private static readonly FixGroupDefinition s_partySubIds = new(FixTags.NoPartySubIDs, FixTags.PartySubID, [FixTags.PartySubIDType]);
    private static readonly FixGroupDefinition s_parties = new(FixTags.NoPartyIDs, FixTags.PartyID, [FixTags.PartyIDSource, FixTags.PartyRole], s_partySubIds);

    [Fact]
    public void RepeatingGroupsWithNestedGroupsAreIterated()
    {
        byte[] bytes = FixText.Bytes("35=8|453=3|448=A|447=D|452=1|802=2|523=s1|803=1|523=s2|803=2|448=B|452=3|448=C|447=P|55=X|");
        var index = new FixMessageIndex();
        Assert.True(index.Parse(bytes));
        FixMessage m = index.Bind(bytes);
        FixGroup parties = m.GetGroup(s_parties);
        Assert.Equal(FixGroupStatus.Ok, parties.Status);
        Assert.Equal(3, parties.DeclaredCount);
        Assert.Equal(3, parties.Count);
        Assert.Equal(1, parties.CountFieldIndex);
        Assert.Equal(m.FindField(FixTags.Symbol), parties.EndFieldIndex);
        var ids = new StringBuilder();
        int subCount = 0;
        foreach (FixMessage party in parties)
        {
            ids.Append(party.GetString(FixTags.PartyID)).Append(party.TryGetInt(FixTags.PartyRole, out int role) == FixValueStatus.Ok ? role : 0).Append(';');
            Assert.False(party.Contains(FixTags.Symbol));
            FixGroup subs = party.GetGroup(s_partySubIds);
            if (subs.Status == FixGroupStatus.Ok)
            {
                foreach (FixMessage sub in subs)
                {
                    subCount++;
                    Assert.Equal("s" + subCount, sub.GetString(FixTags.PartySubID));
                }
            }
        }
        Assert.Equal("A1;B3;C0;", ids.ToString());
        Assert.Equal(2, subCount);
        Assert.Equal("X", m.GetString(FixTags.Symbol));
    }

    [Fact]
    public void GroupCountProblemsAreReported()
    {
        var index = new FixMessageIndex();
        byte[] bytes = FixText.Bytes("35=8|453=2|448=A|452=1|55=X|");
        index.Parse(bytes);
        FixGroup g = index.Bind(bytes).GetGroup(s_parties);
        Assert.Equal(FixGroupStatus.CountMismatch, g.Status);
        Assert.Equal(1, g.Count);

        bytes = FixText.Bytes("35=8|453=x|448=A|");
        index.Parse(bytes);
        Assert.Equal(FixGroupStatus.IncorrectDataFormat, index.Bind(bytes).GetGroup(s_parties).Status);

        bytes = FixText.Bytes("35=8|55=X|");
        index.Parse(bytes);
        Assert.Equal(FixGroupStatus.Missing, index.Bind(bytes).GetGroup(s_parties).Status);

        bytes = FixText.Bytes("35=8|453=1|452=1|448=A|");
        index.Parse(bytes);
        Assert.Equal(FixGroupStatus.CountMismatch, index.Bind(bytes).GetGroup(s_parties).Status);
    }

    [Fact]
    public void RangesCanBeWalkedByIndex()
    {
        byte[] bytes = FixText.Bytes(FixText.NewOrderSingleText);
        var index = new FixMessageIndex();
        index.Parse(bytes);
        FixMessage m = index.Bind(bytes);
        FixMessage body = m.GetRange(7, m.Count - 1);
        Assert.Equal(9, body.Count);
        Assert.Equal(FixTags.ClOrdID, body.GetTag(0));
        Assert.False(body.Contains(FixTags.MsgType));
        Assert.True(body.Contains(FixTags.Price));
        Assert.Throws<ArgumentOutOfRangeException>(() => index.Bind(bytes).GetTag(17));
    }

    [Fact]
    public void NonStandardPrefixIsDetected()
    {
        byte[] bytes = FixText.Bytes("8=FIX.4.4|35=0|9=5|10=000|");
        var index = new FixMessageIndex();
        index.Parse(bytes);
        FixMessage m = index.Bind(bytes);
        Assert.False(m.HasStandardPrefix);
        Assert.Equal(-1, m.BodyStartAfterMsgType);
        Assert.Equal(-1, m.BodyOffset);
    }
}

public class FixMessageIndexReferenceTests
{
    [Fact]
    public void MatchesANaiveSplitForAllTagWidthsValueLengthsAndAlignments()
    {
        var random = new Random(7);
        var index = new FixMessageIndex();
        for (int round = 0; round < 300; round++)
        {
            var sb = new System.Text.StringBuilder();
            for (int pad = random.Next(3); pad > 0; pad--) sb.Append("35=X|");
            int fields = random.Next(1, 40);
            for (int f = 0; f < fields; f++)
            {
                int width = random.Next(1, 10);
                int tag = random.Next(width == 1 ? 1 : (int)Math.Pow(10, width - 1), (int)Math.Min(Math.Pow(10, width), int.MaxValue));
                if (tag == 95 || tag == 90 || tag == 93 || tag == 212 || (tag >= 348 && tag <= 364) || tag == 445 || tag == 618 || tag == 621 || tag >= 1184) tag = 58;
                sb.Append(tag).Append('=').Append(new string('v', random.Next(1, 70))).Append(random.Next(4) == 0 ? "=x" : "").Append('|');
            }
            string text = sb.ToString();
            byte[] bytes = FixText.Bytes(text);
            Assert.True(index.Parse(bytes), index.Defect.Describe() + " in " + text);
            string[] parts = text.TrimEnd('|').Split('|');
            Assert.Equal(parts.Length, index.Count);
            FixMessage m = index.Bind(bytes);
            for (int i = 0; i < parts.Length; i++)
            {
                int eq = parts[i].IndexOf('=');
                Assert.Equal(int.Parse(parts[i].Substring(0, eq)), m.GetTag(i));
                Assert.Equal(parts[i].Substring(eq + 1), FixText.Pipe(m.GetValue(i)));
            }
        }
    }
}
