using System;
using System.Globalization;
using System.Text;
using FixEngine.Codec;

namespace FixEngine.Tests.Codec;

/// <summary>The SWAR/vector helpers behind the codec's fast paths, checked against obvious scalar versions.</summary>
public class AsciiParsingTests
{
    [Fact]
    public void SumMatchesAScalarSumForEveryLengthAndAlignment()
    {
        var random = new Random(11);
        byte[] data = new byte[300];
        random.NextBytes(data);
        for (int start = 0; start < 40; start++)
        {
            for (int length = 0; start + length <= data.Length; length++)
            {
                int expected = 0;
                for (int i = start; i < start + length; i++) expected += data[i];
                Assert.Equal((byte)expected, AsciiParsing.Sum(data.AsSpan(start, length)));
            }
        }
    }

    [Fact]
    public void CopyAndSumCopiesEveryByteAndReturnsTheSumOfEveryLengthAndOffset()
    {
        var random = new Random(35);
        byte[] data = new byte[300];
        random.NextBytes(data);
        for (int start = 0; start < 40; start++)
        {
            for (int length = 0; start + length <= data.Length; length += length < 70 ? 1 : 13)
            {
                byte[] destination = new byte[length + 8];
                destination.AsSpan().Fill(0xAA);
                byte sum = AsciiParsing.CopyAndSum(data.AsSpan(start, length), destination);
                Assert.Equal(AsciiParsing.Sum(data.AsSpan(start, length)), sum);
                Assert.True(data.AsSpan(start, length).SequenceEqual(destination.AsSpan(0, length)));
                Assert.All(destination[length..], b => Assert.Equal(0xAA, b));
            }
        }
    }

    [Fact]
    public void SumWrapsModulo256OverLongInputs()
    {
        byte[] data = new byte[4096 + 17];
        data.AsSpan().Fill(0xFF);
        Assert.Equal((byte)(0xFF * data.Length), AsciiParsing.Sum(data));
    }

    [Fact]
    public void CountDigitsIsRightAtEveryPowerOfTen()
    {
        Assert.Equal(1, AsciiParsing.CountDigits(0u));
        Assert.Equal(1, AsciiParsing.CountDigits(0ul));
        ulong power = 1;
        for (int digits = 1; digits <= 20; digits++)
        {
            Assert.Equal(digits, AsciiParsing.CountDigits(power));
            if (power <= uint.MaxValue) Assert.Equal(digits, AsciiParsing.CountDigits((uint)power));
            if (digits > 1)
            {
                Assert.Equal(digits - 1, AsciiParsing.CountDigits(power - 1));
                if (power - 1 <= uint.MaxValue) Assert.Equal(digits - 1, AsciiParsing.CountDigits((uint)(power - 1)));
            }
            if (digits < 20) power *= 10;
        }
        Assert.Equal(10, AsciiParsing.CountDigits(uint.MaxValue));
        Assert.Equal(20, AsciiParsing.CountDigits(ulong.MaxValue));
        var random = new Random(5);
        for (int i = 0; i < 10_000; i++)
        {
            ulong value = (ulong)random.NextInt64() >> random.Next(64);
            Assert.Equal(value.ToString(CultureInfo.InvariantCulture).Length, AsciiParsing.CountDigits(value));
        }
    }

    [Theory]
    [InlineData("=", 0)]
    [InlineData("1=", 1)]
    [InlineData("12=", 2)]
    [InlineData("123=", 3)]
    [InlineData("1234=", 4)]
    [InlineData("12345=", 5)]
    [InlineData("1234567=", 7)]
    [InlineData("12345678", 8)]
    [InlineData("9/", 1)]
    [InlineData("9:", 1)]
    [InlineData("0\u0001", 1)]
    [InlineData("A1", 0)]
    public void LeadingDigitCountStopsAtTheFirstNonDigit(string text, int expected)
    {
        ulong word = Word(text);
        Assert.Equal(expected, AsciiParsing.LeadingDigitCount(word));
        Assert.Equal(8 * Math.Min(expected, 4), AsciiParsing.LeadingDigitBits4((uint)word - 0x3030_3030u));
    }

    [Fact]
    public void LeadingDigitsParseForEveryWidthAndTheFollowingByteIsKept()
    {
        var random = new Random(3);
        for (int digits = 1; digits <= 8; digits++)
        {
            for (int i = 0; i < 500; i++)
            {
                uint value = (uint)random.NextInt64(0, (long)Math.Pow(10, digits));
                string text = value.ToString("D" + digits, CultureInfo.InvariantCulture) + "=" + new string('7', 8 - Math.Min(8, digits + 1));
                ulong word = Word(text);
                Assert.Equal(digits, AsciiParsing.LeadingDigitCount(word));
                Assert.Equal(value, AsciiParsing.ParseLeadingDigits(word, digits));
                if (digits <= 4) Assert.Equal(value, AsciiParsing.ParseLeadingDigits4((uint)word - 0x3030_3030u, 8 * digits));
                if (digits < 8) Assert.Equal((byte)'=', AsciiParsing.ByteAt(word, digits));
            }
        }
    }

    [Fact]
    public void FourDigitParseIgnoresWhateverFollowsTheDigits()
    {
        var random = new Random(4);
        for (int digits = 1; digits <= 4; digits++)
        {
            for (int i = 0; i < 300; i++)
            {
                uint value = (uint)random.Next(0, (int)Math.Pow(10, digits));
                byte[] bytes = new byte[8];
                random.NextBytes(bytes);
                Encoding.ASCII.GetBytes(value.ToString("D" + digits, CultureInfo.InvariantCulture)).CopyTo(bytes, 0);
                for (int after = 0; after < 256; after++)
                {
                    if (digits < 4) bytes[digits] = (byte)after;
                    uint word = BitConverter.ToUInt32(bytes) - 0x3030_3030u;
                    Assert.Equal(value, AsciiParsing.ParseLeadingDigits4(word, 8 * digits));
                }
            }
        }
    }

    [Fact]
    public void ZeroPaddedReadNeverReadsPastTheEnd()
    {
        byte[] data = Encoding.ASCII.GetBytes("0123456789ABCDEF");
        for (int length = 0; length <= data.Length; length++)
        {
            ReadOnlySpan<byte> span = data.AsSpan(0, length);
            for (int offset = 0; offset < length; offset++)
            {
                ulong expected = 0;
                for (int i = Math.Min(length, offset + 8) - 1; i >= offset; i--) expected = (expected << 8) | data[i];
                Assert.Equal(expected, AsciiParsing.ReadUInt64OrZeroPadded(span, offset));
            }
        }
    }

    [Fact]
    public void TagPrefixIsTheTagDigitsAndAnEqualsSign()
    {
        Span<byte> buffer = stackalloc byte[8];
        for (uint tag = 0; tag < 10_000; tag++)
        {
            ulong prefix = AsciiParsing.TagPrefix(tag, out int length);
            buffer.Clear();
            AsciiParsing.StoreUnchecked(buffer, 0, prefix, length);
            string expected = tag.ToString(CultureInfo.InvariantCulture) + "=";
            Assert.Equal(expected.Length, length);
            Assert.Equal(expected, Encoding.ASCII.GetString(buffer.Slice(0, length)));
            Assert.Equal(0, buffer[length]);
        }
    }

    [Fact]
    public void StoreAndCopyWriteExactlyTheirBytes()
    {
        byte[] source = new byte[64];
        for (int i = 0; i < source.Length; i++) source[i] = (byte)(i + 1);
        for (int length = 0; length <= 40; length++)
        {
            byte[] destination = new byte[80];
            destination.AsSpan().Fill(0xEE);
            AsciiParsing.CopyUnchecked(source.AsSpan(3, length), destination, 5);
            Assert.True(destination.AsSpan(0, 5).IndexOfAnyExcept((byte)0xEE) < 0);
            Assert.True(destination.AsSpan(5, length).SequenceEqual(source.AsSpan(3, length)));
            Assert.True(destination.AsSpan(5 + length).IndexOfAnyExcept((byte)0xEE) < 0);
        }
        for (int count = 1; count <= 8; count++)
        {
            byte[] destination = new byte[16];
            destination.AsSpan().Fill(0xEE);
            AsciiParsing.StoreUnchecked(destination, 3, 0x0807060504030201UL, count);
            for (int i = 0; i < destination.Length; i++)
            {
                byte expected = i >= 3 && i < 3 + count ? (byte)(i - 2) : (byte)0xEE;
                Assert.Equal(expected, destination[i]);
            }
        }
    }

    [Fact]
    public void DigitWritersMatchToString()
    {
        var random = new Random(9);
        byte[] buffer = new byte[32];
        for (int i = 0; i < 20_000; i++)
        {
            ulong value = i < 1000 ? (ulong)i : (ulong)random.NextInt64() >> random.Next(64);
            if (i == 1000) value = ulong.MaxValue;
            buffer.AsSpan().Fill((byte)'x');
            int count = AsciiParsing.WriteDigitsUnchecked(buffer, 2, value);
            string text = value.ToString(CultureInfo.InvariantCulture);
            Assert.Equal(text, Encoding.ASCII.GetString(buffer, 2, count));
            Assert.Equal((byte)'x', buffer[1]);
            Assert.Equal((byte)'x', buffer[2 + count]);

            int low = random.Next(0, 20);
            buffer.AsSpan().Fill((byte)'x');
            ulong rest = AsciiParsing.WriteLowDigitsUnchecked(buffer, 1, value, low);
            string padded = value.ToString("D20", CultureInfo.InvariantCulture);
            Assert.Equal(padded.Substring(20 - low), Encoding.ASCII.GetString(buffer, 1, low));
            Assert.Equal(low == 20 ? 0 : ulong.Parse(padded.Substring(0, 20 - low), CultureInfo.InvariantCulture), rest);
            Assert.Equal((byte)'x', buffer[1 + low]);
        }
        for (uint v = 0; v < 100; v++)
        {
            ushort text = AsciiParsing.TwoDigitsText(v);
            Assert.Equal(v.ToString("00", CultureInfo.InvariantCulture), new string([(char)(text & 0xFF), (char)(text >> 8)]));
        }
    }

    [Fact]
    public void SohMaskMarksEverySohForEveryLength()
    {
        var random = new Random(21);
        for (int length = 0; length < 300; length++)
        {
            byte[] data = new byte[length];
            for (int i = 0; i < length; i++) data[i] = random.Next(5) == 0 ? (byte)1 : (byte)'a';
            ulong[] bits = new ulong[(length + 63) / 64];
            AsciiParsing.BuildSohMask(data, bits);
            for (int i = 0; i < length; i++) Assert.Equal(data[i] == 1, ((bits[i >> 6] >> (i & 63)) & 1) != 0);
            for (int i = length; i < bits.Length * 64; i++) Assert.Equal(0UL, (bits[i >> 6] >> (i & 63)) & 1);
        }
    }

    private static ulong Word(string text)
    {
        Span<byte> bytes = stackalloc byte[8];
        bytes.Clear();
        Encoding.ASCII.GetBytes(text.AsSpan(0, Math.Min(8, text.Length)), bytes);
        return AsciiParsing.ReadUInt64(bytes, 0);
    }
}
