using System;
using FixEngine.Codec;

namespace FixEngine.Tests.Codec;

/// <summary>
/// Strict framing without a dictionary: a field whose tag is not a positive decimal number of at most
/// <see cref="FixMessageIndex.MaxTagDigits"/> digits, or that has no '=', is refused by the index with its kind, the
/// offset of the field, its tag text and the offset of the first bad byte.
/// </summary>
public class StrictTagTests
{
    // "8=FIX.4.4|9=..|35=D|" then the bad field at a known offset, then a good field.
    private const string Head = "35=D|11=A|";

    [Theory]
    [InlineData("0=1", FixDefectKind.TagZero, 0, "0", 0)]
    [InlineData("000=1", FixDefectKind.TagZero, 0, "000", 0)]
    [InlineData("-1=1", FixDefectKind.TagNotNumeric, -1, "-1", 0)]
    [InlineData("99999999999=1", FixDefectKind.TagOutOfRange, 0, "99999999999", 9)]
    [InlineData("1234567890=1", FixDefectKind.TagOutOfRange, 0, "1234567890", 9)]
    [InlineData("=1", FixDefectKind.TagNotNumeric, 0, "", 0)]
    [InlineData("ABC=1", FixDefectKind.TagNotNumeric, 0, "ABC", 0)]
    [InlineData("5x5=1", FixDefectKind.TagNotNumeric, 0, "5x5", 1)]
    [InlineData("+5=1", FixDefectKind.TagNotNumeric, 0, "+5", 0)]
    [InlineData(" 38=1", FixDefectKind.TagNotNumeric, 0, " 38", 0)]
    [InlineData("38", FixDefectKind.MissingEquals, 38, "38", 2)]
    [InlineData("38:100", FixDefectKind.MissingEquals, 38, "38:100", 2)]
    [InlineData("HELLO", FixDefectKind.MissingEquals, 0, "HELLO", 0)]
    public void AFieldWithoutAValidTagNumberIsRefusedPrecisely(string badField, FixDefectKind kind, int tag, string tagText, int badByte)
    {
        byte[] message = FixText.Bytes(Head + badField + "|38=100|");
        var index = new FixMessageIndex();
        Assert.False(index.Parse(message));
        FixDefect defect = index.Defect;
        Assert.Equal(kind, defect.Kind);
        Assert.True(defect.IsInvalidTagNumber);
        Assert.Equal(tag, defect.Tag);
        Assert.Equal(2, defect.FieldIndex);
        Assert.Equal(Head.Length, defect.FieldOffset);
        Assert.Equal(Head.Length + badByte, defect.Offset);
        Assert.Equal(tagText, FixText.Pipe(defect.GetTagText(message)));
        string described = defect.Describe(message);
        Assert.Contains(kind.ToString(), described);
        Assert.Contains("byte offset " + Head.Length, described);
        Assert.Contains("\"" + tagText + "\"", described);

        // The bad field is not indexed; the fields around it are.
        FixMessage m = index.Bind(message);
        Assert.Equal(3, m.Count);
        Assert.Equal("A", m.GetString(FixTags.ClOrdID));
        Assert.Equal("100", m.GetString(FixTags.OrderQty));
    }

    [Theory]
    [InlineData("1=x")]
    [InlineData("9999=x")]
    [InlineData("123456789=x")]
    public void TagsUpToNineDigitsAreAccepted(string field)
    {
        byte[] message = FixText.Bytes(Head + field + "|");
        var index = new FixMessageIndex();
        Assert.True(index.Parse(message), index.Defect.Describe(message));
        int tag = int.Parse(field.AsSpan(0, field.IndexOf('=')), System.Globalization.CultureInfo.InvariantCulture);
        Assert.Equal(2, index.IndexOf(tag));
    }

    [Fact]
    public void ControlBytesInTheTagTextAreEscapedInTheDescription()
    {
        byte[] message = FixText.Bytes(Head + "5\n\"=1|");
        var index = new FixMessageIndex();
        index.Parse(message);
        string described = index.Defect.Describe(message);
        Assert.DoesNotContain('\n', described);
        Assert.Contains("5\\x0A\\x22", described);
    }

    [Fact]
    public void DefectsOtherThanTagsCarryNoTagText()
    {
        byte[] message = FixText.Bytes(Head + "58=|");
        var index = new FixMessageIndex();
        index.Parse(message);
        Assert.Equal(FixDefectKind.EmptyValue, index.Defect.Kind);
        Assert.False(index.Defect.IsInvalidTagNumber);
        Assert.Equal(-1, index.Defect.FieldOffset);
        Assert.True(index.Defect.GetTagText(message).IsEmpty);
        Assert.Equal(index.Defect.Describe(), index.Defect.Describe(message));
    }

    [Fact]
    public void InAFramedOrderTheBadTagIsFoundWhereverItIs()
    {
        // Every position after MsgType, in the plain-field fast path and past it (a data field sends the rest to the
        // general path).
        string[] fields = ["49=C", "56=E", "34=2", "52=20260101-00:00:00.000", "11=1", "55=EURUSD", "54=1", "38=100", "40=1", "95=3", "96=a=b"];
        for (int at = 0; at <= fields.Length; at++)
        {
            foreach (string bad in new[] { "0=x", "-1=x", "99999999999=x", "=x", "x=x", "38" })
            {
                var body = new System.Collections.Generic.List<string>(fields);
                if (at == fields.Length - 1) continue; // keep 95/96 adjacent
                body.Insert(at, bad);
                byte[] frame = FixText.Build("FIX.4.4", "35=D|" + string.Join("|", body) + "|");
                Assert.True(FixFramer.Frame(frame, 4096).IsComplete);
                var index = new FixMessageIndex();
                Assert.False(index.Parse(frame));
                Assert.True(index.Defect.IsInvalidTagNumber, $"{bad} at {at}: {index.Defect.Describe(frame)}");
                Assert.Equal(bad.Contains('=') ? bad[..bad.IndexOf('=')] : bad, FixText.Pipe(index.Defect.GetTagText(frame)));
            }
        }
    }
}
