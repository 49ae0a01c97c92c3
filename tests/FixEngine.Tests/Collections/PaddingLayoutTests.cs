using System;
using System.Linq;
using System.Reflection;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using FixEngine.Collections;

namespace FixEngine.Tests.Collections;

public class PaddingLayoutTests
{
    [Fact]
    public void PaddedLongIs128BytesWithTheValueAtOffset64()
    {
        Assert.Equal(128, Unsafe.SizeOf<PaddedLong>());
        Assert.Equal(128, Marshal.SizeOf<PaddedLong>());
        Assert.Equal(64, (int)Marshal.OffsetOf<PaddedLong>("_value"));
        Assert.Equal(64, PaddedLong.ValueOffset);
        Assert.Equal(Padding.FalseSharingRange, Unsafe.SizeOf<PaddedLong>());
    }

    [Fact]
    public void PaddedLongValueLineStaysInsideTheStructAtEveryEightByteAlignment()
    {
        // The runtime only promises 8-byte alignment: try every 8-aligned start within a 128-byte period.
        int size = Unsafe.SizeOf<PaddedLong>();
        int offset = (int)Marshal.OffsetOf<PaddedLong>("_value");
        for (long start = 0; start < 2 * Padding.FalseSharingRange; start += 8)
        {
            long value = start + offset;
            long lineStart = value & ~(long)(Padding.CacheLineSize - 1);
            long lineEnd = lineStart + Padding.CacheLineSize;
            Assert.True(lineStart >= start && lineEnd <= start + size,
                $"struct at {start}: value line [{lineStart}, {lineEnd}) leaves the struct [{start}, {start + size})");
            Assert.True(value + sizeof(long) <= lineEnd, $"struct at {start}: value straddles a line");
        }
    }

    [Fact]
    public void ConsecutivePaddedLongValuesSitInDifferentLinePairs()
    {
        var pair = new TwoPaddedLongs();
        long distance = Unsafe.ByteOffset(ref Unsafe.As<PaddedLong, byte>(ref pair.First), ref Unsafe.As<PaddedLong, byte>(ref pair.Second)).ToInt64();
        Assert.Equal(Padding.FalseSharingRange, distance);
        for (long start = 0; start < 2 * Padding.FalseSharingRange; start += 8)
        {
            long first = start + PaddedLong.ValueOffset;
            long second = first + distance;
            Assert.NotEqual(first / Padding.FalseSharingRange, second / Padding.FalseSharingRange);
        }
    }

    private struct TwoPaddedLongs
    {
        public PaddedLong First;
        public PaddedLong Second;
    }

    [Fact]
    public void SpscRingPositionsAndCachesAreSeparatePaddedLongs()
    {
        // Every mutable field is a PaddedLong (so each value has FalseSharingRange bytes to itself whatever the
        // runtime's field order); everything else is set once in the constructor.
        FieldInfo[] fields = typeof(SpscRing<long>).GetFields(BindingFlags.Instance | BindingFlags.NonPublic | BindingFlags.Public);
        Assert.Equal(
            ["_chasePauses", "_head", "_headCache", "_released", "_tail", "_tailCache"],
            fields.Where(f => f.FieldType == typeof(PaddedLong)).Select(f => f.Name).Order().ToArray());
        Assert.All(fields.Where(f => f.FieldType != typeof(PaddedLong)), f => Assert.True(f.IsInitOnly, f.Name));

        // And at run time the six values sit FalseSharingRange apart (never in one 128-byte line pair), each inside
        // its own PaddedLong and so clear of the object header and of _slots/_mask.
        var ring = new SpscRing<long>(16);
        ref byte data = ref Unsafe.As<RawObject>(ring).Data; // first byte after the method table pointer
        long[] values =
        [
            ValueOffset(ref data, ref SpscRingFields.Tail(ring)),
            ValueOffset(ref data, ref SpscRingFields.HeadCache(ring)),
            ValueOffset(ref data, ref SpscRingFields.Released(ring)),
            ValueOffset(ref data, ref SpscRingFields.Head(ring)),
            ValueOffset(ref data, ref SpscRingFields.TailCache(ring)),
            ValueOffset(ref data, ref SpscRingFields.ChasePauses(ring)),
        ];
        foreach (long value in values)
        {
            Assert.True(value >= PaddedLong.ValueOffset, $"value at {value} is near the object header");
            foreach (long other in values)
            {
                Assert.True(other == value || Math.Abs(other - value) >= Padding.FalseSharingRange, $"values at {value} and {other} share a line");
            }
        }
    }

    private static long ValueOffset(ref byte data, ref PaddedLong field) =>
        Unsafe.ByteOffset(ref data, ref Unsafe.As<PaddedLong, byte>(ref field)).ToInt64() + PaddedLong.ValueOffset;

    private sealed class RawObject
    {
        public byte Data;
    }

    private static class SpscRingFields
    {
        [UnsafeAccessor(UnsafeAccessorKind.Field, Name = "_tail")]
        public static extern ref PaddedLong Tail(SpscRing<long> ring);

        [UnsafeAccessor(UnsafeAccessorKind.Field, Name = "_headCache")]
        public static extern ref PaddedLong HeadCache(SpscRing<long> ring);

        [UnsafeAccessor(UnsafeAccessorKind.Field, Name = "_released")]
        public static extern ref PaddedLong Released(SpscRing<long> ring);

        [UnsafeAccessor(UnsafeAccessorKind.Field, Name = "_head")]
        public static extern ref PaddedLong Head(SpscRing<long> ring);

        [UnsafeAccessor(UnsafeAccessorKind.Field, Name = "_tailCache")]
        public static extern ref PaddedLong TailCache(SpscRing<long> ring);

        [UnsafeAccessor(UnsafeAccessorKind.Field, Name = "_chasePauses")]
        public static extern ref PaddedLong ChasePauses(SpscRing<long> ring);
    }

    [Fact]
    public void ByteRingSidesKeepOwnerStateTogetherAndPadded()
    {
        int producerSize = Unsafe.SizeOf<SpscByteRing.ProducerSide>();
        int claimed = (int)Marshal.OffsetOf<SpscByteRing.ProducerSide>(nameof(SpscByteRing.ProducerSide.Claimed));
        Assert.Equal(Padding.FalseSharingRange, (int)Marshal.OffsetOf<SpscByteRing.ProducerSide>(nameof(SpscByteRing.ProducerSide.Position)));
        Assert.True(claimed < Padding.FalseSharingRange + Padding.CacheLineSize);
        Assert.True(producerSize - claimed - 1 >= Padding.FalseSharingRange);

        int consumerSize = Unsafe.SizeOf<SpscByteRing.ConsumerSide>();
        int pending = (int)Marshal.OffsetOf<SpscByteRing.ConsumerSide>(nameof(SpscByteRing.ConsumerSide.ReadPending));
        Assert.Equal(Padding.FalseSharingRange, (int)Marshal.OffsetOf<SpscByteRing.ConsumerSide>(nameof(SpscByteRing.ConsumerSide.Position)));
        Assert.True(pending < Padding.FalseSharingRange + Padding.CacheLineSize);
        Assert.True(consumerSize - pending - 1 >= Padding.FalseSharingRange);
    }

    [Fact]
    public void PaddedLongOperationsAct()
    {
        var value = new PaddedLong(5);
        Assert.Equal(5, value.Value);
        Assert.Equal(6, value.IncrementAndGet());
        Assert.Equal(6, value.CompareExchange(10, 6));
        Assert.Equal(10, value.VolatileValue);
        Assert.Equal(10, value.CompareExchange(99, 6)); // comparand mismatch: unchanged
        Assert.Equal(10, value.Value);
        value.VolatileValue = -1;
        Assert.Equal(2, value.AddAndGet(3));
    }

    [Fact]
    public void ConstantsMatchHardware()
    {
        Assert.Equal(64, Padding.CacheLineSize);
        Assert.Equal(128, Padding.FalseSharingRange);
    }
}
