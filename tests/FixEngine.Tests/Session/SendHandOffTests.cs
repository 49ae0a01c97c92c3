using System;
using System.Threading;
using FixEngine.Codec;
using FixEngine.Session;

namespace FixEngine.Tests.Session;

/// <summary>The TrySendFromAnyThread hand-off holds no ring until used, grows by linking larger rings (up to its
/// capacity) and hands records over whole and in order across the rings.</summary>
public sealed class SendHandOffTests
{
    private static readonly BodyWriter<int> Body = static (ref FixWriter w, scoped in int size) =>
    {
        Span<byte> text = stackalloc byte[size];
        text.Fill((byte)'t');
        w.Write(FixTags.Text, text);
    };

    private static bool Hand(SendHandOff handOff, long token, int size) =>
        handOff.TryHandOver(MsgTypes.News, token, size, Body, handOff.MaxRecordLength);

    private static int SizeOf(long token) => token % 97 == 0 ? 20_000 + (int)(token % 7) * 1000 : 50 + (int)(token % 300);

    [Fact]
    public void HoldsNothingUntilUsedAndGrowsToItsCapacityInOrder()
    {
        var handOff = new SendHandOff(1 << 20);
        Assert.Equal(0, handOff.RetainedBytes);
        Assert.Equal(0, handOff.UsedBytes);
        Assert.False(handOff.TryRead(out _));

        Assert.True(Hand(handOff, 0, 100));
        Assert.Equal(SendHandOff.InitialCapacityBytes, handOff.RetainedBytes);

        // Nobody reads: the hand-off links larger rings until the 1 MiB one is full, then refuses (back-pressure).
        long accepted = 1;
        while (accepted < 1_000_000 && Hand(handOff, accepted, SizeOf(accepted))) accepted++;
        Assert.True(accepted < 1_000_000, "the hand-off never refused");
        int retained = handOff.RetainedBytes;
        Assert.InRange(retained, (1 << 20) + SendHandOff.InitialCapacityBytes, 2 << 20);
        Assert.True(handOff.UsedBytes > 1 << 19, "used " + handOff.UsedBytes);

        long expected = 0;
        while (handOff.TryRead(out ReadOnlySpan<byte> record))
        {
            SendHandOff.Parse(record, out ReadOnlySpan<byte> msgType, out long token, out ReadOnlySpan<byte> fields);
            Assert.Equal(expected, token);
            Assert.True(msgType.SequenceEqual(MsgTypes.News));
            Assert.Equal((expected == 0 ? 100 : SizeOf(expected)) + 4, fields.Length);
            handOff.Release();
            expected++;
        }
        Assert.Equal(accepted, expected);
        Assert.Equal(0, handOff.UsedBytes);
        // Drained: only the largest ring is left, and it takes records again.
        Assert.Equal(1 << 20, handOff.RetainedBytes);
        Assert.True(Hand(handOff, 7, 100));
        Assert.True(handOff.TryRead(out ReadOnlySpan<byte> again));
        SendHandOff.Parse(again, out _, out long seven, out _);
        Assert.Equal(7, seven);
        handOff.Unread();
        Assert.True(handOff.TryRead(out again));
        handOff.Release();
        Assert.False(handOff.TryRead(out _));
    }

    [Fact]
    public void ARecordTooLargeForTheLargestRingIsRefused()
    {
        var handOff = new SendHandOff(1 << 16, initialCapacityBytes: 1 << 12);
        Assert.False(handOff.TryHandOver(MsgTypes.News, 1, 40_000, Body, handOff.MaxRecordLength));
        Assert.True(handOff.TryHandOver(MsgTypes.News, 2, 30_000, Body, handOff.MaxRecordLength));
        // Claims of 4 KiB, 16 KiB and the largest record took rings of 4, 16 and 64 KiB; nothing beyond the capacity.
        Assert.Equal((1 << 12) + (1 << 14) + (1 << 16), handOff.RetainedBytes);
    }

    [Fact]
    public void TwoProducersAndAConsumerKeepEachProducersOrderWhileItGrows()
    {
        const int perProducer = 30_000;
        var handOff = new SendHandOff(1 << 20);
        long[] next = [0, 0];
        Exception? failure = null;

        void Produce(int producer)
        {
            for (long i = 0; i < perProducer; i++)
            {
                long token = (long)producer << 32 | i;
                int spins = 0;
                while (!Hand(handOff, token, SizeOf(i)))
                {
                    if (++spins % 64 == 0) Thread.Yield();
                }
            }
        }

        var producers = new[] { new Thread(() => Produce(0)), new Thread(() => Produce(1)) };
        foreach (Thread t in producers) t.Start();
        long read = 0;
        while (read < 2L * perProducer)
        {
            bool producersDone = !producers[0].IsAlive && !producers[1].IsAlive;
            if (!handOff.TryRead(out ReadOnlySpan<byte> record))
            {
                // Bounded by progress: empty after both producers finished means records were lost.
                if (producersDone) break;
                Thread.Yield();
                continue;
            }
            SendHandOff.Parse(record, out _, out long token, out ReadOnlySpan<byte> fields);
            int producer = (int)(token >> 32);
            long index = token & 0xFFFF_FFFF;
            if (index != next[producer] || fields.Length != SizeOf(index) + 4)
            {
                failure = new InvalidOperationException($"producer {producer}: got {index} ({fields.Length} bytes), expected {next[producer]}");
            }
            next[producer]++;
            handOff.Release();
            read++;
        }
        foreach (Thread t in producers) t.Join();
        Assert.Null(failure);
        Assert.Equal(2L * perProducer, read);
        Assert.Equal(perProducer, next[0]);
        Assert.Equal(perProducer, next[1]);
        Assert.False(handOff.TryRead(out _));
    }
}
