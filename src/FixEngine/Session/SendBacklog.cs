using System;
using System.Buffers;
using System.Buffers.Binary;
using System.Runtime.CompilerServices;

namespace FixEngine.Session;

/// <summary>The session's ordered queue of encoded messages the transport refused (its bounded send queue was full),
/// sent again, oldest first, as the transport frees up.</summary>
/// <remarks>
/// <para>Single-threaded: owned by the thread running the session. Records are a 4-byte little-endian length and the
/// message bytes, laid out from <c>_head</c> to <c>_tail</c> in one array rented from <see cref="ArrayPool{T}.Shared"/>.
/// A record that does not fit at the end first compacts the live bytes to the front when the consumed prefix is at
/// least as large as them (so each byte is moved at most once per byte consumed: amortised O(1)), else the array
/// doubles.</para>
/// <para>Allocation: the first append rents <see cref="InitialCapacityBytes"/>; growth rents a larger array and returns
/// the old one. An array once grown is kept (empty) until <see cref="Release"/>, so a backlog that fills and drains
/// repeatedly to the same depth allocates nothing after the first time.</para>
/// </remarks>
internal sealed class SendBacklog
{
    /// <summary>Size of the first array rented.</summary>
    public const int InitialCapacityBytes = 64 * 1024;

    private const int LengthPrefixBytes = sizeof(int);

    private byte[]? _buffer;
    private int _head;
    private int _tail;
    private int _count;
    private long _bytes;

    /// <summary>True when no message waits.</summary>
    public bool IsEmpty => _count == 0;

    /// <summary>Messages waiting.</summary>
    public int Count => _count;

    /// <summary>Message bytes waiting (without the length prefixes).</summary>
    public long Bytes => _bytes;

    /// <summary>Bytes of the array currently rented (0 when none).</summary>
    public int CapacityBytes => _buffer?.Length ?? 0;

    /// <summary>Appends a copy of <paramref name="message"/> unless the backlog would then hold more than
    /// <paramref name="limitBytes"/> message bytes.</summary>
    /// <returns>False (nothing appended) when the limit would be exceeded.</returns>
    public bool TryAppend(ReadOnlySpan<byte> message, long limitBytes)
    {
        if (_bytes + message.Length > limitBytes) return false;
        int needed = LengthPrefixBytes + message.Length;
        byte[]? buffer = _buffer;
        if (buffer is null || buffer.Length - _tail < needed) buffer = MakeRoom(needed);
        BinaryPrimitives.WriteInt32LittleEndian(buffer.AsSpan(_tail), message.Length);
        message.CopyTo(buffer.AsSpan(_tail + LengthPrefixBytes));
        _tail += needed;
        _count++;
        _bytes += message.Length;
        return true;
    }

    /// <summary>The oldest message, valid until the next <see cref="Pop"/>, <see cref="TryAppend"/> or <see cref="Clear"/>.</summary>
    public bool TryPeek(out ReadOnlySpan<byte> message)
    {
        if (_count == 0)
        {
            message = default;
            return false;
        }
        byte[] buffer = _buffer!;
        int length = BinaryPrimitives.ReadInt32LittleEndian(buffer.AsSpan(_head));
        message = new ReadOnlySpan<byte>(buffer, _head + LengthPrefixBytes, length);
        return true;
    }

    /// <summary>Removes the oldest message (the one <see cref="TryPeek"/> returned).</summary>
    public void Pop()
    {
        if (_count == 0) return;
        int length = BinaryPrimitives.ReadInt32LittleEndian(_buffer.AsSpan(_head));
        _head += LengthPrefixBytes + length;
        _bytes -= length;
        if (--_count == 0) _head = _tail = 0;
    }

    /// <summary>Rents the first array now (if none), so the first message the transport refuses is kept without
    /// renting.</summary>
    public void Reserve()
    {
        _buffer ??= ArrayPool<byte>.Shared.Rent(InitialCapacityBytes);
    }

    /// <summary>Drops every message; keeps the array.</summary>
    public void Clear()
    {
        _head = _tail = _count = 0;
        _bytes = 0;
    }

    /// <summary>Drops every message and returns the array to the pool.</summary>
    public void Release()
    {
        Clear();
        byte[]? buffer = _buffer;
        _buffer = null;
        if (buffer is not null) ArrayPool<byte>.Shared.Return(buffer);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private byte[] MakeRoom(int needed)
    {
        byte[]? buffer = _buffer;
        int live = _tail - _head;
        if (buffer is not null && _head >= live && buffer.Length - live >= needed)
        {
            // PERF: amortised O(1): the bytes moved (live) are at most the bytes consumed since the last move (_head).
            Buffer.BlockCopy(buffer, _head, buffer, 0, live);
            _head = 0;
            _tail = live;
            return buffer;
        }
        long size = Math.Max(InitialCapacityBytes, buffer?.Length ?? 0);
        while (size < (long)live + needed) size *= 2;
        if (size > Array.MaxLength) size = Math.Max((long)live + needed, Array.MaxLength);
        byte[] bigger = ArrayPool<byte>.Shared.Rent((int)size);
        if (buffer is not null)
        {
            Buffer.BlockCopy(buffer, _head, bigger, 0, live);
            ArrayPool<byte>.Shared.Return(buffer);
        }
        _buffer = bigger;
        _head = 0;
        _tail = live;
        return bigger;
    }
}
