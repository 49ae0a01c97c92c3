using System;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using FixEngine.Collections;

namespace FixEngine.Tests.Collections;

public class PaddingLayoutTests
{
    [Fact]
    public void PaddedLongValueHasFalseSharingRangeOnBothSides()
    {
        int size = Unsafe.SizeOf<PaddedLong>();
        int offset = (int)Marshal.OffsetOf<PaddedLong>("_value");
        Assert.Equal(Padding.FalseSharingRange, offset);
        Assert.Equal(2 * Padding.FalseSharingRange + sizeof(long), size);
        Assert.True(size - offset - sizeof(long) >= Padding.FalseSharingRange);
    }

    [Fact]
    public void RingSideKeepsOwnerFieldsTogetherAndPadded()
    {
        int size = Unsafe.SizeOf<RingSide>();
        int position = (int)Marshal.OffsetOf<RingSide>(nameof(RingSide.Position));
        int cache = (int)Marshal.OffsetOf<RingSide>(nameof(RingSide.OtherCache));
        Assert.Equal(Padding.FalseSharingRange, position);
        Assert.Equal(position + sizeof(long), cache);
        Assert.Equal(cache + sizeof(long) + Padding.FalseSharingRange, size);
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
