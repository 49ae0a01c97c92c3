using System;
using System.Buffers;
using System.IO;
using System.Runtime.CompilerServices;
using Microsoft.Win32.SafeHandles;

namespace FixEngine.Store;

/// <summary>A read-through window over the journal file: serves spans from one pooled buffer, refilling it with
/// one positional read when a request falls outside.</summary>
/// <remarks>
/// Not thread-safe (owned by one store). Only bytes below the caller's logical end of file are ever loaded, and those
/// are immutable until a reset, which calls <see cref="Invalidate"/>.
/// PERF: consecutive resend reads and journal replay hit the same window, so a resend of many small messages costs one
/// read syscall per window (64 KiB) rather than one per message; no allocation once the buffer fits the largest record.
/// The buffer is rented on the first read and handed back by <see cref="Release"/> (the store does after replay and
/// after each range read), so an idle session holds none.
/// </remarks>
internal sealed class JournalWindow : IDisposable
{
    private const int DefaultSize = 64 * 1024;

    private byte[] _buffer = [];
    private long _start;
    private int _length;

    /// <summary>Returns <paramref name="count"/> bytes at <paramref name="position"/>, or an empty span with false when
    /// they are not all below <paramref name="endOfFile"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public bool TryGet(SafeFileHandle handle, long position, int count, long endOfFile, string path, out ReadOnlySpan<byte> bytes) =>
        TryGet(handle, position, count, endOfFile, long.MaxValue, path, out bytes);

    /// <summary>As <see cref="TryGet(SafeFileHandle, long, int, long, string, out ReadOnlySpan{byte})"/>; a refill reads no
    /// further than <paramref name="readEnd"/> (when the requested bytes end before it): the caller will need nothing
    /// beyond it.</summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public bool TryGet(SafeFileHandle handle, long position, int count, long endOfFile, long readEnd, string path, out ReadOnlySpan<byte> bytes)
    {
        if (position >= _start && position + count <= _start + _length)
        {
            bytes = _buffer.AsSpan((int)(position - _start), count);
            return true;
        }
        if (position + count > endOfFile)
        {
            bytes = default;
            return false;
        }
        return Load(handle, position, count, Math.Min(endOfFile, Math.Max(readEnd, position + count)), path, out bytes);
    }

    // Loads the window from `position`, at most up to `endOfRead` (at least `count` bytes when the file has them).
    private bool Load(SafeFileHandle handle, long position, int count, long endOfRead, string path, out ReadOnlySpan<byte> bytes)
    {
        if (count > _buffer.Length || _buffer.Length == 0)
        {
            if (_buffer.Length != 0) ArrayPool<byte>.Shared.Return(_buffer);
            _buffer = [];
            _length = 0;
            _buffer = ArrayPool<byte>.Shared.Rent(Math.Max(count, DefaultSize));
        }
        int want = (int)Math.Min(_buffer.Length, endOfRead - position);
        int read = 0;
        while (read < want)
        {
            int n;
            try
            {
                n = RandomAccess.Read(handle, _buffer.AsSpan(read, want - read), position + read);
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException or NotSupportedException)
            {
                _length = 0;
                throw new MessageStoreException($"Reading the message store journal '{path}' at byte offset {position + read} failed: {e.Message}", path,
                    MessageStoreOperation.Read, e);
            }
            if (n <= 0) break;
            read += n;
        }
        _start = position;
        _length = read;
        BytesLoaded += read;
        if (read < count)
        {
            bytes = default;
            return false;
        }
        bytes = _buffer.AsSpan(0, count);
        return true;
    }

    /// <summary>Bytes read from the file into the window so far (the owner's thread; diagnostics and tests).</summary>
    public long BytesLoaded { get; private set; }

    /// <summary>Forgets the loaded bytes (after the file was truncated or rewritten).</summary>
    public void Invalidate()
    {
        _start = 0;
        _length = 0;
    }

    /// <summary>Returns the buffer to the pool; the next read rents one again.</summary>
    public void Release() => Dispose();

    public void Dispose()
    {
        byte[] buffer = _buffer;
        _buffer = [];
        _length = 0;
        if (buffer.Length != 0) ArrayPool<byte>.Shared.Return(buffer);
    }
}
