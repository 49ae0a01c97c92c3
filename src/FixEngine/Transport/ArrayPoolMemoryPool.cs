using System;
using System.Buffers;
using System.Threading;

namespace FixEngine.Transport;

/// <summary>A <see cref="MemoryPool{T}"/> over an <see cref="ArrayPool{T}"/>, so the TLS receive pipe's segments come from <see cref="TcpConnectionOptions.BufferPool"/>.</summary>
/// <remarks>Thread-safe (the array pool is). Each rent allocates a small lease object (the TLS path is not the zero-allocation path);
/// disposing a lease returns its array once.</remarks>
internal sealed class ArrayPoolMemoryPool : MemoryPool<byte>
{
    private const int DefaultBufferBytes = 4096;

    private readonly ArrayPool<byte> _pool;

    public ArrayPoolMemoryPool(ArrayPool<byte> pool) => _pool = pool;

    public override int MaxBufferSize => Array.MaxLength;

    public override IMemoryOwner<byte> Rent(int minBufferSize = -1) => new Lease(_pool, _pool.Rent(minBufferSize <= 0 ? DefaultBufferBytes : minBufferSize));

    protected override void Dispose(bool disposing)
    {
        // Nothing to release: the arrays belong to the array pool.
    }

    private sealed class Lease : IMemoryOwner<byte>
    {
        private readonly ArrayPool<byte> _pool;
        private byte[]? _array;

        public Lease(ArrayPool<byte> pool, byte[] array)
        {
            _pool = pool;
            _array = array;
        }

        public Memory<byte> Memory => _array ?? throw new ObjectDisposedException(nameof(ArrayPoolMemoryPool));

        public void Dispose()
        {
            byte[]? array = Interlocked.Exchange(ref _array, null);
            if (array is not null)
            {
                _pool.Return(array);
            }
        }
    }
}
