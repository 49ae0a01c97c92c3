using System;
using System.Threading;
using System.Threading.Tasks;
using FixEngine.Buffers;
using FixEngine.Tests.Infrastructure;

namespace FixEngine.Tests.Buffers;

public class RefCountedBufferTests
{
    [Fact]
    public void LastReleaseReturnsArrayToPool()
    {
        var arrays = new LeakTrackingArrayPool<byte>();
        var pool = new RefCountedBufferPool(arrays);
        RefCountedBuffer buffer = pool.Rent(64);
        "8=FIX.4.4"u8.CopyTo(buffer.WritableSpan);
        buffer.SetLength(9);
        buffer.AddRef();
        buffer.AddRef();
        Assert.Equal(3, buffer.RefCount);
        buffer.Release();
        buffer.Release();
        Assert.Equal(1, arrays.Outstanding);
        Assert.True(buffer.Span.SequenceEqual("8=FIX.4.4"u8));
        buffer.Release();
        Assert.Equal(0, buffer.RefCount);
        arrays.AssertClean();
        Assert.Throws<ObjectDisposedException>(() => buffer.Span.Length);
    }

    [Fact]
    public void ReleasePastZeroThrows()
    {
        var pool = new RefCountedBufferPool(new LeakTrackingArrayPool<byte>());
        RefCountedBuffer buffer = pool.Rent(16);
        buffer.Release();
        Assert.Throws<InvalidOperationException>(() => buffer.Release());
        Assert.Throws<InvalidOperationException>(() => buffer.AddRef());
    }

    [Fact]
    public void BuffersAreReused()
    {
        var pool = new RefCountedBufferPool(new LeakTrackingArrayPool<byte>());
        RefCountedBuffer first = pool.Rent(16);
        first.Release();
        RefCountedBuffer second = pool.Rent(16);
        Assert.Same(first, second);
        Assert.Equal(1, second.RefCount);
        Assert.Equal(0, second.Length);
        second.Release();
    }

    [Fact]
    public void SetLengthBeyondCapacityThrows()
    {
        var pool = new RefCountedBufferPool();
        RefCountedBuffer buffer = pool.Rent(16);
        Assert.Throws<ArgumentOutOfRangeException>(() => buffer.SetLength(buffer.Capacity + 1));
        buffer.Release();
    }

    [Fact]
    public void ConcurrentHoldersReleaseExactlyOnce()
    {
        var arrays = new LeakTrackingArrayPool<byte>();
        var pool = new RefCountedBufferPool(arrays);
        for (int round = 0; round < 200; round++)
        {
            RefCountedBuffer buffer = pool.Rent(32);
            const int Holders = 4;
            for (int i = 1; i < Holders; i++) buffer.AddRef();
            Parallel.For(0, Holders, _ => buffer.Release());
        }
        arrays.AssertClean();
    }

    [Fact]
    public void RentShareReleaseAllocatesNothing()
    {
        var pool = new RefCountedBufferPool();
        long bytes = Allocations.Measure(() =>
        {
            RefCountedBuffer buffer = pool.Rent(256);
            buffer.SetLength(10);
            buffer.AddRef();
            buffer.Release();
            buffer.Release();
        });
        Assert.Equal(0, bytes);
    }
}
