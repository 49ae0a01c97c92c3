using System.Text;
using FixEngine.Dictionary;

namespace FixEngine.Tests.Dictionary;

public sealed class FieldFormatTests
{
    [Theory]
    [InlineData(FixFieldType.Int, "0", true)]
    [InlineData(FixFieldType.Int, "-12", true)]
    [InlineData(FixFieldType.Int, "007", true)]
    [InlineData(FixFieldType.Int, "+12", false)]
    [InlineData(FixFieldType.Int, "-", false)]
    [InlineData(FixFieldType.Int, "1.0", false)]
    [InlineData(FixFieldType.Int, "", false)]
    [InlineData(FixFieldType.SeqNum, "12a", false)]
    [InlineData(FixFieldType.NumInGroup, "3", true)]
    [InlineData(FixFieldType.Length, " 3", false)]
    [InlineData(FixFieldType.Price, "1.25", true)]
    [InlineData(FixFieldType.Price, "-0.5", true)]
    [InlineData(FixFieldType.Price, "1.", true)]
    [InlineData(FixFieldType.Price, ".5", true)]
    [InlineData(FixFieldType.Price, "15", true)]
    [InlineData(FixFieldType.Price, "+1.5", false)]
    [InlineData(FixFieldType.Price, "1.2.3", false)]
    [InlineData(FixFieldType.Qty, "1e5", false)]
    [InlineData(FixFieldType.Qty, ".", false)]
    [InlineData(FixFieldType.Float, "-", false)]
    [InlineData(FixFieldType.Char, "A", true)]
    [InlineData(FixFieldType.Char, "AB", false)]
    [InlineData(FixFieldType.Boolean, "Y", true)]
    [InlineData(FixFieldType.Boolean, "N", true)]
    [InlineData(FixFieldType.Boolean, "y", false)]
    [InlineData(FixFieldType.Boolean, "YES", false)]
    [InlineData(FixFieldType.UtcTimestamp, "20240229-23:59:59", true)]
    [InlineData(FixFieldType.UtcTimestamp, "20240229-23:59:59.123", true)]
    [InlineData(FixFieldType.UtcTimestamp, "20240229-23:59:59.123456", true)]
    [InlineData(FixFieldType.UtcTimestamp, "20240229-23:59:59.123456789", true)]
    [InlineData(FixFieldType.UtcTimestamp, "20240229-23:59:60", true)]
    [InlineData(FixFieldType.UtcTimestamp, "20230229-23:59:59", false)]
    [InlineData(FixFieldType.UtcTimestamp, "20240229-24:00:00", false)]
    [InlineData(FixFieldType.UtcTimestamp, "20240229-23:60:00", false)]
    [InlineData(FixFieldType.UtcTimestamp, "20240229-23:59:59.12", false)]
    [InlineData(FixFieldType.UtcTimestamp, "20240229 23:59:59", false)]
    [InlineData(FixFieldType.UtcTimestamp, "20240229-23:59", false)]
    [InlineData(FixFieldType.UtcTimeOnly, "23:59:59", true)]
    [InlineData(FixFieldType.UtcTimeOnly, "23:59:59.001", true)]
    [InlineData(FixFieldType.UtcTimeOnly, "3:59:59", false)]
    [InlineData(FixFieldType.UtcDateOnly, "20241231", true)]
    [InlineData(FixFieldType.UtcDateOnly, "20241301", false)]
    [InlineData(FixFieldType.UtcDate, "20240431", false)]
    [InlineData(FixFieldType.LocalMktDate, "2024010", false)]
    [InlineData(FixFieldType.MonthYear, "202412", true)]
    [InlineData(FixFieldType.MonthYear, "20241215", true)]
    [InlineData(FixFieldType.MonthYear, "202412w3", true)]
    [InlineData(FixFieldType.MonthYear, "202412w6", false)]
    [InlineData(FixFieldType.MonthYear, "202413", false)]
    [InlineData(FixFieldType.MonthYear, "2024121", false)]
    [InlineData(FixFieldType.String, "x", true)]
    [InlineData(FixFieldType.String, "", false)]
    [InlineData(FixFieldType.Data, "\u0001", true)]
    public void ValidatesWireFormat(FixFieldType type, string value, bool valid)
        => Assert.Equal(valid, DataDictionary.ValidateFieldValueFormat(type, Encoding.Latin1.GetBytes(value)));

    [Fact]
    public void InstanceCheckUsesTheFieldType()
    {
        DataDictionary dd = SharedDictionaryTests.Fix42;
        Assert.True(dd.IsValidFieldFormat(44, "10.5"u8));
        Assert.False(dd.IsValidFieldFormat(44, "ten"u8));
        Assert.True(dd.IsValidFieldFormat(99999, "anything"u8));
    }

    [Fact]
    public void TypeNamesRoundTrip()
    {
        foreach (FixFieldType t in System.Enum.GetValues<FixFieldType>())
        {
            if (t == FixFieldType.Unknown) continue;
            Assert.True(FixFieldTypeNames.TryParse(FixFieldTypeNames.GetName(t), out FixFieldType parsed));
            Assert.Equal(t, parsed);
        }
        Assert.False(FixFieldTypeNames.TryParse("NOPE", out _));
    }
}
