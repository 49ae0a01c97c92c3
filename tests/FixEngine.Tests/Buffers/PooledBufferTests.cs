using System;
using System.Buffers;
using FixEngine.Buffers;
using FixEngine.Tests.Infrastructure;

namespace FixEngine.Tests.Buffers;

public class PooledBufferTests
{
    [Fact]
    public void RentExposesRequestedLengthAndReturnsExactlyOnce()
    {
        var pool = new LeakTrackingArrayPool<byte>();
        using (var buffer = PooledBuffer.Rent(100, pool))
        {
            Assert.Equal(100, buffer.Length);
            Assert.Equal(100, buffer.Span.Length);
            Assert.Equal(100, buffer.Memory.Length);
            Assert.True(buffer.Array.Length >= 100);
            buffer.Span.Fill(1);
            Assert.Equal(1, pool.Outstanding);
        }
        Assert.Equal(1, pool.Rents);
        Assert.Equal(1, pool.Returns);
        pool.AssertClean();
    }

    [Fact]
    public void DisposingTheSameVariableTwiceReturnsOnce()
    {
        var pool = new LeakTrackingArrayPool<byte>();
        var buffer = PooledBuffer.Rent(10, pool);
        buffer.Dispose();
        buffer.Dispose();
        Assert.Equal(1, pool.Returns);
        Assert.False(buffer.IsRented);
        pool.AssertClean();
    }

    [Fact]
    public void UseAfterReturnThrows()
    {
        var buffer = PooledBuffer.Rent(10, new LeakTrackingArrayPool<byte>());
        buffer.Dispose();
        Assert.Throws<ObjectDisposedException>(() => buffer.Span.Length);
        Assert.Throws<ObjectDisposedException>(() => default(PooledBuffer).Array);
    }

    [Fact]
    public void LeakTrackingPoolFlagsDoubleReturnThroughACopy()
    {
        var pool = new LeakTrackingArrayPool<byte>();
        var buffer = PooledBuffer.Rent(10, pool);
        var copy = buffer;
        buffer.Dispose();
#if DEBUG
        Assert.Throws<InvalidOperationException>(() => copy.Dispose());
#else
        copy.Dispose();
        Assert.Single(pool.Errors);
        Assert.Contains("double return", pool.Errors[0]);
#endif
    }

    [Fact]
    public void LeakTrackingPoolReportsLeaks()
    {
        var pool = new LeakTrackingArrayPool<byte>();
        _ = PooledBuffer.Rent(10, pool);
        Assert.Throws<InvalidOperationException>(() => pool.AssertClean());
    }

    [Fact]
    public void ZeroLengthRentWorks()
    {
        using var buffer = PooledBuffer.Rent(0);
        Assert.Equal(0, buffer.Span.Length);
    }

    [Fact]
    public void NegativeLengthIsRejected() =>
        Assert.Throws<ArgumentOutOfRangeException>(() => PooledBuffer.Rent(-1));

    [Fact]
    public void RentAndDisposeFromSharedPoolAllocateNothing()
    {
        long bytes = Allocations.Measure(() =>
        {
            using var buffer = PooledBuffer.Rent(4096);
            buffer.Span[0] = 1;
        });
        Assert.Equal(0, bytes);
    }
}
