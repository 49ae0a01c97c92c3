using System;
using System.Collections.Generic;
using System.Globalization;
using System.Text;
using FixEngine.Codec;

namespace FixEngine.Tests.Codec;

/// <summary>
/// <see cref="FixMessageIndex.Parse"/> against <see cref="ReferenceIndex"/>, a byte-at-a-time parse written from the
/// documented rules, over random valid and mutated messages: every entry, the first defect (kind, tag, field, offset),
/// the first duplicate and every lookup must agree. Each message is parsed in an exact-size array and again in the
/// middle of a larger buffer whose neighbouring bytes look like fields, so a read past either end of the span would
/// change the result.
/// </summary>
public class FixMessageIndexDifferentialTests
{
    private static readonly DataFieldPairs s_customPairs = CreateCustomPairs();

    private static DataFieldPairs CreateCustomPairs()
    {
        DataFieldPairs pairs = DataFieldPairs.CreateStandard();
        pairs.Add(5, 6);
        pairs.Add(3000, 3001);
        pairs.Add(20_000, 20_001);
        return pairs;
    }

    [Fact]
    public void RandomValidAndMutatedMessagesMatchTheReference()
    {
        var random = new Random(20261123);
        FixMessageIndex[] indexes =
        [
            new FixMessageIndex(),
            new FixMessageIndex(dataFields: s_customPairs),
            new FixMessageIndex(maxFields: 1),
            new FixMessageIndex(maxFields: 7),
            new FixMessageIndex(maxFields: 30, dataFields: s_customPairs),
        ];
        int defects = 0, clean = 0, duplicates = 0;
        for (int iteration = 0; iteration < 12_000; iteration++)
        {
            byte[] message = RandomMessage(random);
            if (random.Next(3) != 0) Mutate(random, ref message);
            FixMessageIndex index = indexes[random.Next(indexes.Length)];
            ReferenceIndex expected = ReferenceIndex.Parse(message, index.MaxFields, index.DataFields);
            AssertSame(expected, index, message, message);

            byte[] padded = EmbedBetweenFieldLikeBytes(random, message, out int offset);
            AssertSame(expected, index, padded.AsSpan(offset, message.Length), message);

            if (expected.Defect.Kind == FixDefectKind.None) clean++;
            else defects++;
            if (expected.FirstDuplicateTag != 0) duplicates++;
        }
        Assert.True(clean > 1500 && defects > 1500 && duplicates > 1500, $"clean {clean}, defects {defects}, duplicates {duplicates}");
    }

    [Fact]
    public void PrefixesAndSuffixesOfTheSampleMessagesMatchTheReference()
    {
        byte[][] samples =
        [
            FixText.Bytes(FixText.HeartbeatText),
            FixText.Bytes(FixText.NewOrderSingleText),
            CodecSamples.ExecutionReport(),
            FixText.Bytes("95=3|96=a|b|0=x|-5=y|12a=z|58|2048=|3000=4|3001=|=||9=|123456789=v|1234567890=w|"),
        ];
        var index = new FixMessageIndex(dataFields: s_customPairs);
        foreach (byte[] sample in samples)
        {
            for (int start = 0; start < sample.Length; start++)
            {
                // Every window that starts in the first 12 bytes, and every suffix.
                for (int end = start < 12 ? start : sample.Length; end <= sample.Length; end++)
                {
                    // A fresh exact-size array: the message ends exactly at the end of the array.
                    byte[] exact = sample.AsSpan(start, end - start).ToArray();
                    ReferenceIndex expected = ReferenceIndex.Parse(exact, index.MaxFields, index.DataFields);
                    AssertSame(expected, index, exact, exact);
                }
            }
        }
    }

    [Fact]
    public void DataFieldPairsAddedAfterTheIndexWasCreatedAreHonoured()
    {
        DataFieldPairs pairs = DataFieldPairs.CreateStandard();
        var index = new FixMessageIndex(dataFields: pairs);
        byte[] message = FixText.Bytes("35=B|49=S|56=T|77=3|78=a|b|58=after|");
        Assert.False(index.Parse(message));
        Assert.Equal(FixDefectKind.MissingEquals, index.Defect.Kind);

        pairs.Add(77, 78);
        Assert.True(index.Parse(message), index.Defect.Describe());
        Assert.Equal("a|b", FixText.Pipe(index.Bind(message).GetValue(index.IndexOf(78))));
        AssertSame(ReferenceIndex.Parse(message, index.MaxFields, pairs), index, message, message);
    }

    [Fact]
    public void LookupsStayCorrectAcrossTheGenerationWrapAround()
    {
        var index = new FixMessageIndex(dataFields: s_customPairs);
        byte[] first = FixText.Bytes("35=D|49=S|56=T|95=1|96=||3000=1|3001=x|58=a|5000=q|");
        byte[] second = FixText.Bytes("35=0|34=7|95=1|96=x|49=S|");
        index.SetGenerationForTest(int.MaxValue - 3);
        for (int i = 0; i < 8; i++)
        {
            byte[] message = i % 2 == 0 ? first : second;
            AssertSame(ReferenceIndex.Parse(message, index.MaxFields, index.DataFields), index, message, message);
            Assert.Equal(-1, index.IndexOf(i % 2 == 0 ? 34 : 58));
            Assert.Equal(-1, index.IndexOf(i % 2 == 0 ? 34 : 5000));
        }
    }

    internal static void AssertSame(ReferenceIndex expected, FixMessageIndex index, ReadOnlySpan<byte> input, byte[] message)
    {
        bool ok = index.Parse(input);
        string where = FixText.Pipe(message);
        Assert.True(expected.Defect.Kind == index.Defect.Kind, $"kind {index.Defect} vs {expected.Defect.Kind} in '{where}'");
        Assert.True(expected.Defect.Tag == index.Defect.Tag, $"defect tag {index.Defect} vs {expected.Defect.Tag} in '{where}'");
        Assert.True(expected.Defect.FieldIndex == index.Defect.FieldIndex, $"defect field {index.Defect} vs {expected.Defect.FieldIndex} in '{where}'");
        Assert.True(expected.Defect.Offset == index.Defect.Offset, $"defect offset {index.Defect} vs {expected.Defect.Offset} in '{where}'");
        Assert.Equal(expected.Defect.Kind == FixDefectKind.None, ok);
        Assert.True(expected.Fields.Count == index.Count, $"count {index.Count} vs {expected.Fields.Count} in '{where}'");
        Assert.Equal(message.Length, index.MessageLength);
        var seen = new HashSet<int>();
        for (int i = 0; i < expected.Fields.Count; i++)
        {
            (int tag, int fieldOffset, int valueOffset, int valueLength) = expected.Fields[i];
            Assert.True(tag == index.GetTag(i), $"tag of field {i}: {index.GetTag(i)} vs {tag} in '{where}'");
            Assert.True(fieldOffset == index.GetFieldOffset(i), $"field offset of field {i} in '{where}'");
            Assert.True(valueOffset == index.GetValueOffset(i), $"value offset of field {i} in '{where}'");
            Assert.True(valueLength == index.GetValueLength(i), $"value length of field {i} in '{where}'");
            if (seen.Add(tag)) Assert.True(i == index.IndexOf(tag), $"IndexOf({tag}) = {index.IndexOf(tag)}, expected {i} in '{where}'");
        }
        Assert.True(expected.FirstDuplicateTag == index.FirstDuplicateTag, $"duplicate {index.FirstDuplicateTag} vs {expected.FirstDuplicateTag} in '{where}'");
        Assert.Equal(expected.FirstDuplicateIndex, index.FirstDuplicateIndex);
        foreach (int absent in (ReadOnlySpan<int>)[0, -1, 2, 4, 95, 96, 2047, 2048, 3000, 9999, 10_000, 20_001, 123_456_789])
        {
            if (!seen.Contains(absent)) Assert.Equal(-1, index.IndexOf(absent));
        }
    }

    private static readonly int[] s_commonTags = [8, 9, 35, 34, 49, 52, 56, 1, 11, 21, 38, 40, 44, 54, 55, 59, 60, 58, 10, 150, 151, 453, 448, 447, 452];
    private static readonly int[] s_edgeTags = [1, 9, 10, 99, 100, 999, 1000, 2046, 2047, 2048, 2049, 5000, 9999, 10_000, 99_999, 1_234_567, 12_345_678, 99_999_999, 123_456_789, 999_999_999];
    private static readonly int[] s_lengthTags = [95, 90, 212, 5, 3000, 20_000];

    private static byte[] RandomMessage(Random random)
    {
        var sb = new StringBuilder();
        int fields = random.Next(0, 40);
        bool repeatGroup = random.Next(3) == 0;
        for (int f = 0; f < fields; f++)
        {
            int kind = random.Next(20);
            if (kind == 0)
            {
                // A length field and its data field, usually with a correct length and SOH/'=' inside the data.
                int lengthTag = s_lengthTags[random.Next(s_lengthTags.Length)];
                int dataTag = s_customPairs.GetDataTag(lengthTag);
                string data = RandomValue(random, random.Next(0, 20), "|=09aZ");
                int declared = random.Next(4) == 0 ? data.Length + random.Next(-2, 3) : data.Length;
                sb.Append(lengthTag).Append('=').Append(random.Next(10) == 0 ? "x" : declared.ToString(CultureInfo.InvariantCulture)).Append('|');
                sb.Append(random.Next(8) == 0 ? dataTag + 1 : dataTag).Append('=').Append(data).Append('|');
                continue;
            }
            int tag = kind switch
            {
                1 or 2 => s_edgeTags[random.Next(s_edgeTags.Length)],
                3 => random.Next(1, 10_000),
                _ => s_commonTags[random.Next(s_commonTags.Length)],
            };
            if (!repeatGroup && kind > 3 && random.Next(4) != 0) tag = s_commonTags[f % s_commonTags.Length];
            string tagText = tag.ToString(CultureInfo.InvariantCulture);
            if (random.Next(30) == 0) tagText = new string('0', random.Next(1, 4)) + tagText;
            int valueLength = random.Next(25) == 0 ? 0 : random.Next(1, random.Next(2) == 0 ? 8 : 40);
            sb.Append(tagText).Append('=').Append(RandomValue(random, valueLength, "=09")).Append('|');
        }
        string text = sb.ToString();
        if (text.Length > 0 && random.Next(10) == 0) text = text.Substring(0, text.Length - 1);
        return FixText.Bytes(text);
    }

    private static string RandomValue(Random random, int length, string specials)
    {
        var chars = new char[length];
        for (int i = 0; i < length; i++)
        {
            chars[i] = random.Next(6) == 0 ? specials[random.Next(specials.Length)] : (char)random.Next('A', 'z' + 1);
        }
        return new string(chars);
    }

    private static ReadOnlySpan<byte> Interesting => "\u0001=0123456789-a"u8;

    private static void Mutate(Random random, ref byte[] message)
    {
        var bytes = new List<byte>(message);
        int mutations = 1 + random.Next(3);
        for (int k = 0; k < mutations; k++)
        {
            int pos = random.Next(bytes.Count + 1);
            byte value = random.Next(5) == 0 ? (byte)random.Next(256) : Interesting[random.Next(Interesting.Length)];
            switch (random.Next(4))
            {
                case 0 when pos < bytes.Count:
                    bytes[pos] = value;
                    break;
                case 1:
                    bytes.Insert(pos, value);
                    break;
                case 2 when pos < bytes.Count:
                    bytes.RemoveAt(pos);
                    break;
                case 3:
                    bytes.RemoveRange(pos, bytes.Count - pos);
                    break;
            }
        }
        message = bytes.ToArray();
    }

    private static byte[] EmbedBetweenFieldLikeBytes(Random random, byte[] message, out int offset)
    {
        ReadOnlySpan<byte> filler = "1=2\u000134=5\u00010=\u0001"u8;
        offset = random.Next(0, 70);
        byte[] buffer = new byte[offset + message.Length + random.Next(1, 70)];
        for (int i = 0; i < buffer.Length; i++) buffer[i] = filler[random.Next(filler.Length)];
        message.CopyTo(buffer, offset);
        return buffer;
    }

    /// <summary>
    /// The index rules, one byte at a time: a tag is 1..9 digits (not all zero) directly followed by '='; the value
    /// runs to the next SOH, or for the data field announced by the preceding length field, to the declared length
    /// when an SOH is there; a field without a valid tag is skipped and described; the first defect wins.
    /// </summary>
    internal sealed class ReferenceIndex
    {
        public List<(int Tag, int FieldOffset, int ValueOffset, int ValueLength)> Fields { get; } = [];

        public (FixDefectKind Kind, int Tag, int FieldIndex, int Offset) Defect { get; private set; }

        public int FirstDuplicateTag { get; private set; }

        public int FirstDuplicateIndex { get; private set; } = -1;

        public static ReferenceIndex Parse(byte[] m, int maxFields, DataFieldPairs pairs)
        {
            var r = new ReferenceIndex();
            var firstByTag = new Dictionary<int, int>();
            int n = m.Length;
            int pos = 0, skipped = 0, pendingDataTag = 0, pendingLength = -1;
            while (pos < n)
            {
                int fieldStart = pos;
                int fieldNumber = r.Fields.Count + skipped;
                int soh = Array.IndexOf(m, (byte)1, pos);
                int digitEnd = pos;
                while (digitEnd < n && IsDigit(m[digitEnd])) digitEnd++;
                int digits = digitEnd - pos;
                int tag = 0;
                if (digits is >= 1 and <= 9 && digitEnd < n && m[digitEnd] == (byte)'=') tag = ParseDigits(m, pos, digits);
                if (tag == 0)
                {
                    r.DescribeBadField(m, fieldStart, soh < 0 ? n : soh, fieldNumber);
                    skipped++;
                    pendingDataTag = 0;
                    pos = (soh < 0 ? n : soh) + 1;
                    continue;
                }
                int valueStart = digitEnd + 1;
                int valueEnd = soh;
                if (tag == pendingDataTag)
                {
                    int declaredEnd = valueStart + pendingLength;
                    if (pendingLength >= 0 && declaredEnd < n && m[declaredEnd] == 1)
                    {
                        valueEnd = declaredEnd;
                    }
                    else
                    {
                        r.Record(FixDefectKind.BadDataLength, tag, fieldNumber, valueStart);
                    }
                }
                if (valueEnd < 0)
                {
                    r.Record(FixDefectKind.UnterminatedField, tag, fieldNumber, n);
                    valueEnd = n;
                }
                if (valueEnd == valueStart) r.Record(FixDefectKind.EmptyValue, tag, fieldNumber, valueStart);
                if (r.Fields.Count >= maxFields)
                {
                    r.Record(FixDefectKind.TooManyFields, tag, fieldNumber, fieldStart);
                    break;
                }
                if (!firstByTag.TryAdd(tag, r.Fields.Count) && r.FirstDuplicateTag == 0)
                {
                    r.FirstDuplicateTag = tag;
                    r.FirstDuplicateIndex = r.Fields.Count;
                }
                r.Fields.Add((tag, fieldStart, valueStart, valueEnd - valueStart));
                pendingDataTag = pairs.GetDataTag(tag);
                int valueLength = valueEnd - valueStart;
                pendingLength = valueLength is >= 1 and <= 9 && AllDigits(m, valueStart, valueLength) ? ParseDigits(m, valueStart, valueLength) : -1;
                pos = valueEnd + 1;
            }
            return r;
        }

        private void DescribeBadField(byte[] m, int start, int end, int fieldNumber)
        {
            int equals = Array.IndexOf(m, (byte)'=', start, end - start);
            if (equals < 0)
            {
                int d = start;
                while (d < end && IsDigit(m[d])) d++;
                int guess = d - start is >= 1 and <= 9 ? ParseDigits(m, start, d - start) : 0;
                Record(FixDefectKind.MissingEquals, guess, fieldNumber, d);
                return;
            }
            int tagLength = equals - start;
            if (tagLength > 1 && m[start] == (byte)'-' && tagLength - 1 <= 9 && AllDigits(m, start + 1, tagLength - 1))
            {
                Record(FixDefectKind.TagNotNumeric, -ParseDigits(m, start + 1, tagLength - 1), fieldNumber, start);
                return;
            }
            if (tagLength is >= 1 and <= 9 && AllDigits(m, start, tagLength))
            {
                // All digits and 1..9 of them, yet not a tag: the value is 0.
                Record(FixDefectKind.TagZero, 0, fieldNumber, start);
                return;
            }
            int bad = start;
            while (bad < equals && IsDigit(m[bad])) bad++;
            if (bad == equals && tagLength > 9)
            {
                Record(FixDefectKind.TagOutOfRange, 0, fieldNumber, start + 9);
                return;
            }
            Record(FixDefectKind.TagNotNumeric, 0, fieldNumber, bad == equals ? start : bad);
        }

        private void Record(FixDefectKind kind, int tag, int fieldNumber, int offset)
        {
            if (Defect.Kind == FixDefectKind.None) Defect = (kind, tag, fieldNumber, offset);
        }

        private static bool IsDigit(byte b) => (uint)(b - '0') <= 9;

        private static bool AllDigits(byte[] m, int start, int length)
        {
            for (int i = start; i < start + length; i++) if (!IsDigit(m[i])) return false;
            return true;
        }

        private static int ParseDigits(byte[] m, int start, int length)
        {
            int value = 0;
            for (int i = start; i < start + length; i++) value = value * 10 + (m[i] - '0');
            return value;
        }
    }
}
