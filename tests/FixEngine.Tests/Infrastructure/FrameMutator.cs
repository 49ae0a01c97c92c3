using System;
using System.Collections.Generic;
using System.Globalization;
using System.Text;

namespace FixEngine.Tests.Infrastructure;

/// <summary>
/// Seeded mutations of valid FIX frames for the fuzz tests: byte flips, insertions, deletions, splices from other
/// frames, truncation, duplicated runs, BodyLength and CheckSum edits, hostile tags (0, -1, 99999999999, empty,
/// non-numeric, no '='), and optionally a repair of BodyLength and CheckSum so the mutation gets past the framer.
/// </summary>
/// <remarks>
/// Bounded by default for CI; <c>FIXENGINE_FUZZ_SCALE=N</c> multiplies every fuzz test's iteration count by N and
/// <c>FIXENGINE_FUZZ_SEED=S</c> replaces the fixed seed (the seed is in every failure message, to replay it).
/// </remarks>
public sealed class FrameMutator
{
    private static readonly string[] s_hostileTags = ["0", "-1", "99999999999", "", "ABC", "00", "1234567890", "3 5", "+5", "\n"];
    private static ReadOnlySpan<byte> Interesting => "\u0001=0123456789-+.8FIX10\n\r\u0000\u00ff"u8;

    private readonly Random _random;

    public FrameMutator(int seed)
    {
        Seed = seed;
        _random = new Random(seed);
    }

    public int Seed { get; }

    public Random Random => _random;

    /// <summary>The iteration count for this run: <paramref name="ciDefault"/> times FIXENGINE_FUZZ_SCALE (default 1).</summary>
    public static int Iterations(int ciDefault) =>
        int.TryParse(Environment.GetEnvironmentVariable("FIXENGINE_FUZZ_SCALE"), NumberStyles.Integer, CultureInfo.InvariantCulture, out int scale) && scale > 0
            ? checked(ciDefault * scale)
            : ciDefault;

    /// <summary>FIXENGINE_FUZZ_SEED when set, else <paramref name="fixedSeed"/>.</summary>
    public static int SeedOr(int fixedSeed) =>
        int.TryParse(Environment.GetEnvironmentVariable("FIXENGINE_FUZZ_SEED"), NumberStyles.Integer, CultureInfo.InvariantCulture, out int seed)
            ? seed
            : fixedSeed;

    /// <summary>Applies 1-4 random mutations to a copy of <paramref name="frame"/>; <paramref name="repair"/> then fixes BodyLength and CheckSum.</summary>
    public byte[] Mutate(byte[] frame, IReadOnlyList<byte[]> corpus, bool repair, out string what)
    {
        var bytes = new List<byte>(frame);
        var description = new StringBuilder();
        int count = 1 + _random.Next(4);
        for (int k = 0; k < count && bytes.Count > 0; k++)
        {
            int pos = _random.Next(bytes.Count);
            switch (_random.Next(10))
            {
                case 0:
                    bytes[pos] ^= (byte)(1 << _random.Next(8));
                    description.Append($"flip@{pos} ");
                    break;
                case 1:
                    bytes[pos] = RandomByte();
                    description.Append($"set@{pos} ");
                    break;
                case 2:
                    bytes.Insert(pos, RandomByte());
                    description.Append($"insert@{pos} ");
                    break;
                case 3:
                    int deleted = Math.Min(1 + _random.Next(8), bytes.Count - pos);
                    bytes.RemoveRange(pos, deleted);
                    description.Append($"delete{deleted}@{pos} ");
                    break;
                case 4:
                    byte[] other = corpus[_random.Next(corpus.Count)];
                    int from = _random.Next(other.Length);
                    int length = Math.Min(1 + _random.Next(40), other.Length - from);
                    bytes.InsertRange(pos, new ArraySegment<byte>(other, from, length));
                    description.Append($"splice{length}@{pos} ");
                    break;
                case 5:
                    bytes.RemoveRange(pos, bytes.Count - pos);
                    description.Append($"truncate@{pos} ");
                    break;
                case 6:
                    int run = Math.Min(1 + _random.Next(30), bytes.Count - pos);
                    bytes.InsertRange(pos, bytes.GetRange(pos, run));
                    description.Append($"duplicate{run}@{pos} ");
                    break;
                case 7:
                    EditNumber(bytes, "\u00019="u8, description, "bodylength");
                    break;
                case 8:
                    EditNumber(bytes, "\u000110="u8, description, "checksum");
                    break;
                default:
                    HostileTag(bytes, description);
                    break;
            }
        }
        byte[] result = bytes.ToArray();
        if (repair)
        {
            result = Repair(result);
            description.Append("repaired");
        }
        what = description.ToString();
        return result;
    }

    /// <summary>Rewrites BodyLength and CheckSum of <paramref name="frame"/> from its content when it still has
    /// <c>8=..|9=..|</c> in front and a last <c>|10=</c>; otherwise returns it unchanged.</summary>
    public static byte[] Repair(byte[] frame)
    {
        ReadOnlySpan<byte> span = frame;
        if (span.Length < 4 || span[0] != (byte)'8' || span[1] != (byte)'=') return frame;
        int firstSoh = span.IndexOf((byte)1);
        if (firstSoh < 0 || !span.Slice(firstSoh + 1).StartsWith("9="u8)) return frame;
        int secondSoh = span.Slice(firstSoh + 1).IndexOf((byte)1);
        if (secondSoh < 0) return frame;
        int bodyStart = firstSoh + 1 + secondSoh + 1;
        int trailer = span.LastIndexOf("\u000110="u8);
        if (trailer < bodyStart - 1) return frame;
        int bodyEnd = trailer + 1;
        var builder = new List<byte>();
        builder.AddRange(frame.AsSpan(0, firstSoh + 1).ToArray());
        builder.AddRange(Encoding.ASCII.GetBytes("9=" + (bodyEnd - bodyStart).ToString(CultureInfo.InvariantCulture) + "\u0001"));
        builder.AddRange(frame.AsSpan(bodyStart, bodyEnd - bodyStart).ToArray());
        int sum = 0;
        foreach (byte b in builder) sum += b;
        builder.AddRange(Encoding.ASCII.GetBytes("10=" + (sum % 256).ToString("000", CultureInfo.InvariantCulture) + "\u0001"));
        return builder.ToArray();
    }

    private byte RandomByte() => _random.Next(3) == 0 ? (byte)_random.Next(256) : Interesting[_random.Next(Interesting.Length)];

    private void EditNumber(List<byte> bytes, ReadOnlySpan<byte> marker, StringBuilder description, string name)
    {
        byte[] array = bytes.ToArray();
        int at = array.AsSpan().IndexOf(marker);
        if (at < 0) return;
        int start = at + marker.Length;
        int end = start;
        while (end < array.Length && array[end] != 1) end++;
        string[] choices = ["0", "-1", "", "999999999", "99999999999", "abc", "1", (end - start).ToString(CultureInfo.InvariantCulture), _random.Next(0, 2000).ToString(CultureInfo.InvariantCulture), "00000000000000000001"];
        string value = choices[_random.Next(choices.Length)];
        bytes.RemoveRange(start, end - start);
        bytes.InsertRange(start, Encoding.ASCII.GetBytes(value));
        description.Append($"{name}={value} ");
    }

    private void HostileTag(List<byte> bytes, StringBuilder description)
    {
        // A field start after an SOH, past the first three fields (8, 9, 35) when there are that many.
        var starts = new List<int>();
        for (int i = 0; i + 1 < bytes.Count; i++) if (bytes[i] == 1) starts.Add(i + 1);
        if (starts.Count == 0) return;
        int start = starts[_random.Next(Math.Min(2, starts.Count - 1), starts.Count)];
        int equals = bytes.IndexOf((byte)'=', start);
        int soh = bytes.IndexOf(1, start);
        if (soh < 0) soh = bytes.Count;
        if (_random.Next(4) == 0 && equals >= 0 && equals < soh)
        {
            bytes.RemoveAt(equals);
            description.Append($"no-equals@{start} ");
            return;
        }
        string tag = s_hostileTags[_random.Next(s_hostileTags.Length)];
        int tagEnd = equals >= 0 && equals < soh ? equals : start;
        bytes.RemoveRange(start, tagEnd - start);
        bytes.InsertRange(start, Encoding.ASCII.GetBytes(tag));
        description.Append($"tag'{tag.Replace("\n", "\\n", StringComparison.Ordinal)}'@{start} ");
    }
}
