using System;
using System.Collections.Generic;
using System.Globalization;
using System.Text;
using FixEngine.Codec;

namespace FixEngine.Tests.Codec;

/// <summary>
/// The index's call-free loop handles plain fields whose tag has 1..4 digits and is below
/// <see cref="FixMessageIndex.DirectLookupTags"/> (the last ones of a message too, by re-reading its last 8 bytes),
/// and hands everything else (messages under 8 bytes, long or large tags, data fields, defects) to the general path.
/// These tests put every such case before, between and after plain fields.
/// </summary>
public class FixMessageIndexFastPathTests
{
    private static readonly int[] s_boundaryTags =
        [1, 9, 10, 99, 100, 999, 1000, 2046, 2047, 2048, 2049, 9999, 10_000, 99_999, 12_345_678, 99_999_999, 100_000_000, 999_999_999];

    [Fact]
    public void TagsOfEveryWidthAtEveryPositionMatchANaiveSplit()
    {
        var index = new FixMessageIndex();
        foreach (int tag in s_boundaryTags)
        {
            foreach (int before in new[] { 0, 1, 3, 9 })
            {
                foreach (int valueLength in new[] { 1, 2, 7, 8, 9, 30 })
                {
                    foreach (int after in new[] { 0, 1, 4 })
                    {
                        var fields = new List<(int Tag, string Value)>();
                        for (int i = 0; i < before; i++) fields.Add((40 + i, "b" + i));
                        fields.Add((tag, new string('v', valueLength)));
                        for (int i = 0; i < after; i++) fields.Add((60 + i, "a" + i));
                        AssertMatchesSplit(index, fields);
                    }
                }
            }
        }
    }

    [Fact]
    public void ShortMessagesOfEveryLengthMatchANaiveSplit()
    {
        var index = new FixMessageIndex();
        string all = "1=a|22=bb|333=c|4444=d|5=|";
        for (int length = 1; length <= all.Length; length++)
        {
            string text = all.Substring(0, length);
            byte[] bytes = FixText.Bytes(text);
            index.Parse(bytes);
            string[] parts = text.Split('|');
            int complete = text.EndsWith('|') ? parts.Length - 1 : parts.Length;
            int expectedCount = 0;
            for (int i = 0; i < complete; i++) if (parts[i].Contains('=')) expectedCount++;
            Assert.True(expectedCount == index.Count, $"'{text}': {index.Count} fields, {index.Defect}");
        }
    }

    [Fact]
    public void ShortLastFieldsAtTheVeryEndOfAnExactSizeArrayAreIndexed()
    {
        var index = new FixMessageIndex();
        string head = "35=0|49=SENDER|56=TARGET|";
        foreach (string tail in new[] { "1=a|", "10=123|", "1=a|2=b|", "9999=x|", "12=|", "1=a|2=" })
        {
            // Start the tail at every offset modulo 64, so it also straddles the SOH blocks.
            for (int pad = 0; pad < 64; pad++)
            {
                string text = head + "58=" + new string('p', pad + 1) + "|" + tail;
                byte[] exact = FixText.Bytes(text);
                bool ok = index.Parse(exact);
                string[] parts = text.TrimEnd('|').Split('|');
                Assert.Equal(parts.Length, index.Count);
                string[] last = parts[^1].Split('=');
                Assert.Equal(int.Parse(last[0], CultureInfo.InvariantCulture), index.GetTag(index.Count - 1));
                Assert.Equal(last[1], FixText.Pipe(index.Bind(exact).GetValue(index.Count - 1)));
                Assert.Equal(ok, text.EndsWith('|') && !text.Contains("=|", StringComparison.Ordinal));
            }
        }
    }

    [Fact]
    public void LeadingZerosKeepTheFieldOffsetAtTheFirstDigit()
    {
        byte[] bytes = FixText.Bytes("35=0|0049=S|0000056=T|00000001=A|000000034=7|58=" + new string('x', 20) + "|");
        var index = new FixMessageIndex();
        Assert.True(index.Parse(bytes), index.Defect.Describe());
        Assert.Equal([35, 49, 56, 1, 34, 58], Tags(index));
        Assert.Equal(5, index.GetFieldOffset(1));
        Assert.Equal(10, index.GetValueOffset(1));
        Assert.Equal(12, index.GetFieldOffset(2));
        Assert.Equal(20, index.GetValueOffset(2));
        Assert.Equal("7", FixText.Pipe(index.Bind(bytes).GetValue(4)));
    }

    [Theory]
    [InlineData("1234567890=x|", FixDefectKind.TagOutOfRange, 0, 9)]
    [InlineData("00=x|", FixDefectKind.TagZero, 0, 0)]
    [InlineData("0000=x|", FixDefectKind.TagZero, 0, 0)]
    [InlineData("12a=x|", FixDefectKind.TagNotNumeric, 0, 2)]
    [InlineData("58x|", FixDefectKind.MissingEquals, 58, 2)]
    [InlineData("58=|", FixDefectKind.EmptyValue, 58, 3)]
    [InlineData("2048=|", FixDefectKind.EmptyValue, 2048, 5)]
    public void DefectBetweenPlainFieldsIsFoundAtItsOffset(string bad, FixDefectKind kind, int tag, int offsetInField)
    {
        string head = "35=0|49=SENDER|56=TARGET|34=12|52=20260101-00:00:00.000|";
        string tail = "11=ORD-1|55=MSFT|54=1|38=100|44=1.5|60=20260101-00:00:00.000|";
        byte[] bytes = FixText.Bytes(head + bad + tail);
        var index = new FixMessageIndex();
        Assert.False(index.Parse(bytes));
        Assert.Equal(kind, index.Defect.Kind);
        Assert.Equal(tag, index.Defect.Tag);
        Assert.Equal(5, index.Defect.FieldIndex);
        Assert.Equal(head.Length + offsetInField, index.Defect.Offset);
        bool badIsIndexed = kind == FixDefectKind.EmptyValue;
        Assert.Equal(11 + (badIsIndexed ? 1 : 0), index.Count);
        FixMessage m = index.Bind(bytes);
        Assert.Equal("ORD-1", m.GetString(FixTags.ClOrdID));
        Assert.Equal("20260101-00:00:00.000", m.GetString(FixTags.TransactTime));
    }

    [Fact]
    public void UnterminatedLastFieldOfALongMessageIsIndexedToTheEnd()
    {
        string text = "35=0|49=SENDER|56=TARGET|58=" + new string('t', 40);
        byte[] bytes = FixText.Bytes(text);
        var index = new FixMessageIndex();
        Assert.False(index.Parse(bytes));
        Assert.Equal(FixDefectKind.UnterminatedField, index.Defect.Kind);
        Assert.Equal(58, index.Defect.Tag);
        Assert.Equal(bytes.Length, index.Defect.Offset);
        Assert.Equal(new string('t', 40), index.Bind(bytes).GetString(FixTags.Text));
    }

    [Fact]
    public void FirstDuplicateIsFoundAmongPlainFieldsAndRepeatedGroupTagsKeepTheFirstOccurrence()
    {
        byte[] bytes = FixText.Bytes("35=8|49=B|56=C|453=3|448=P1|447=D|452=1|448=P2|447=D|452=11|448=P3|447=G|452=64|58=done|");
        var index = new FixMessageIndex();
        Assert.True(index.Parse(bytes));
        Assert.Equal(448, index.FirstDuplicateTag);
        Assert.Equal(7, index.FirstDuplicateIndex);
        Assert.Equal(4, index.IndexOf(448));
        Assert.Equal(6, index.IndexOf(452));
        Assert.Equal("done", index.Bind(bytes).GetString(FixTags.Text));
    }

    [Fact]
    public void DataFieldsBetweenPlainFieldsAreReadByLength()
    {
        DataFieldPairs pairs = DataFieldPairs.CreateStandard();
        pairs.Add(3000, 3001);
        var index = new FixMessageIndex(dataFields: pairs);
        byte[] bytes = FixText.Bytes("35=B|49=S|56=T|95=7|96=a|b=c|d|3000=2|3001=|||58=after the data fields|");
        Assert.True(index.Parse(bytes), index.Defect.Describe());
        FixMessage m = index.Bind(bytes);
        Assert.Equal("a|b=c|d", FixText.Pipe(m.GetValue(m.FindField(96))));
        Assert.Equal("||", FixText.Pipe(m.GetValue(m.FindField(3001))));
        Assert.Equal("after the data fields", m.GetString(FixTags.Text));
        Assert.Equal(8, index.Count);
    }

    [Fact]
    public void TooManyFieldsInALongMessageStopsAtCapacity()
    {
        var sb = new StringBuilder();
        for (int i = 0; i < 40; i++) sb.Append(100 + i).Append("=value|");
        byte[] bytes = FixText.Bytes(sb.ToString());
        var index = new FixMessageIndex(maxFields: 25);
        Assert.False(index.Parse(bytes));
        Assert.Equal(FixDefectKind.TooManyFields, index.Defect.Kind);
        Assert.Equal(125, index.Defect.Tag);
        Assert.Equal(25, index.Defect.FieldIndex);
        Assert.Equal(25 * 10, index.Defect.Offset);
        Assert.Equal(25, index.Count);
        Assert.Equal(24, index.IndexOf(124));
        Assert.Equal(-1, index.IndexOf(125));
    }

    [Fact]
    public void ReusedIndexIgnoresTheLongerPreviousMessage()
    {
        var index = new FixMessageIndex();
        var sb = new StringBuilder();
        for (int i = 0; i < 100; i++) sb.Append(500 + i).Append("=xxxxxxxx|");
        Assert.True(index.Parse(FixText.Bytes(sb.ToString())));
        Assert.Equal(100, index.Count);
        byte[] small = FixText.Bytes("35=0|49=S|56=T|58=" + new string('y', 30));
        Assert.False(index.Parse(small));
        Assert.Equal(4, index.Count);
        Assert.Equal(FixDefectKind.UnterminatedField, index.Defect.Kind);
        Assert.Equal(-1, index.IndexOf(500));
    }

    private static void AssertMatchesSplit(FixMessageIndex index, List<(int Tag, string Value)> fields)
    {
        var sb = new StringBuilder();
        foreach ((int tag, string value) in fields) sb.Append(tag.ToString(CultureInfo.InvariantCulture)).Append('=').Append(value).Append('|');
        string text = sb.ToString();
        byte[] bytes = FixText.Bytes(text);
        Assert.True(index.Parse(bytes), index.Defect.Describe() + " in " + text);
        Assert.Equal(fields.Count, index.Count);
        int offset = 0;
        for (int i = 0; i < fields.Count; i++)
        {
            int tagLength = fields[i].Tag.ToString(CultureInfo.InvariantCulture).Length;
            Assert.Equal(fields[i].Tag, index.GetTag(i));
            Assert.Equal(offset, index.GetFieldOffset(i));
            Assert.Equal(offset + tagLength + 1, index.GetValueOffset(i));
            Assert.Equal(fields[i].Value.Length, index.GetValueLength(i));
            Assert.Equal(i, index.IndexOf(fields[i].Tag));
            offset += tagLength + 1 + fields[i].Value.Length + 1;
        }
    }

    private static int[] Tags(FixMessageIndex index)
    {
        int[] tags = new int[index.Count];
        for (int i = 0; i < tags.Length; i++) tags[i] = index.GetTag(i);
        return tags;
    }
}
