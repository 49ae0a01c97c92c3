using System;
using FixEngine.Codec;

namespace FixEngine.Tests.Codec;

public class CodecFuzzTests
{
    private static readonly FixGroupDefinition s_parties = new(FixTags.NoPartyIDs, FixTags.PartyID, [FixTags.PartyIDSource, FixTags.PartyRole]);

    private static ReadOnlySpan<byte> Interesting => "\u0001=0123456789-+.8FIX10"u8;

    [Fact]
    public void TenThousandMutationsNeverThrowOrHang()
    {
        byte[][] seeds =
        [
            FixText.Bytes(FixText.HeartbeatText),
            FixText.Bytes(FixText.LogonText),
            FixText.Bytes(FixText.NewOrderSingleText),
            CodecSamples.ExecutionReport(),
        ];
        var random = new Random(20260101);
        var index = new FixMessageIndex(maxFields: 64);
        int complete = 0, errors = 0;
        byte[] work = new byte[2048];
        for (int iteration = 0; iteration < 10_000; iteration++)
        {
            byte[] seed = seeds[random.Next(seeds.Length)];
            byte[] next = seeds[random.Next(seeds.Length)];
            int length = seed.Length;
            seed.CopyTo(work, 0);
            int mutations = 1 + random.Next(4);
            for (int k = 0; k < mutations; k++)
            {
                int pos = random.Next(length);
                byte value = random.Next(3) == 0 ? (byte)random.Next(256) : Interesting[random.Next(Interesting.Length)];
                switch (random.Next(5))
                {
                    case 0:
                        work[pos] = value;
                        break;
                    case 1:
                        work.AsSpan(pos, length - pos).CopyTo(work.AsSpan(pos + 1));
                        work[pos] = value;
                        length++;
                        break;
                    case 2 when length > 1:
                        work.AsSpan(pos + 1, length - pos - 1).CopyTo(work.AsSpan(pos));
                        length--;
                        break;
                    case 3:
                        length = Math.Max(1, pos);
                        break;
                    default:
                        int chunk = Math.Min(random.Next(1, 12), length - pos);
                        work.AsSpan(pos, chunk).CopyTo(work.AsSpan(length));
                        length += chunk;
                        break;
                }
            }
            next.CopyTo(work, length);
            int total = length + next.Length;

            int consumed = 0;
            int steps = 0;
            while (consumed < total)
            {
                Assert.True(++steps < 1000, "framer made no progress");
                ReadOnlySpan<byte> rest = work.AsSpan(consumed, total - consumed);
                FrameResult r = FixFramer.Frame(rest, 1024);
                if (r.Status == FrameStatus.NeedMoreData) break;
                Assert.True(r.Length > 0 && r.Length <= rest.Length, r.Describe());
                if (r.IsComplete)
                {
                    complete++;
                    ReadOnlySpan<byte> frame = rest.Slice(0, r.Length);
                    AssertValidFrame(frame);
                    index.Parse(frame);
                    ReadAll(index.Bind(frame));
                }
                else
                {
                    errors++;
                    _ = r.Describe();
                }
                consumed += r.Length;
            }

            // The index must cope with arbitrary unframed bytes too.
            index.Parse(work.AsSpan(0, length));
            ReadAll(index.Bind(work.AsSpan(0, length)));
        }
        Assert.True(complete > 1000 && errors > 1000, $"complete {complete}, errors {errors}");
    }

    private static void AssertValidFrame(ReadOnlySpan<byte> frame)
    {
        int n = frame.Length;
        Assert.True(frame[0] == (byte)'8' && frame[1] == (byte)'=');
        Assert.True(frame[n - 7] == (byte)'1' && frame[n - 6] == (byte)'0' && frame[n - 5] == (byte)'=' && frame[n - 1] == 1);
        Assert.Equal(1, frame[n - 8]);
        int sum = 0;
        foreach (byte b in frame.Slice(0, n - 7)) sum += b;
        int declared = (frame[n - 4] - '0') * 100 + (frame[n - 3] - '0') * 10 + (frame[n - 2] - '0');
        Assert.Equal(sum % 256, declared);
    }

    private static void ReadAll(FixMessage m)
    {
        _ = m.MsgType;
        _ = m.HasStandardPrefix;
        _ = m.BodyStartAfterMsgType;
        _ = m.TrailerOffset;
        _ = m.Index.Defect.Describe();
        for (int i = 0; i < m.Count; i++)
        {
            int tag = m.GetTag(i);
            _ = m.GetValue(i);
            m.TryGetInt(tag, out _);
            m.TryGetLong(tag, out _);
            m.TryGetDecimal(tag, out _);
            m.TryGetTimestamp(tag, out _);
            m.TryGetBool(tag, out _);
            m.TryGetMonthYear(tag, out _);
            m.TryGetDate(tag, out _);
            m.TryGetTimeOnly(tag, out _);
        }
        FixGroup g = m.GetGroup(s_parties);
        foreach (FixMessage instance in g) _ = instance.GetString(FixTags.PartyID);
    }
}
