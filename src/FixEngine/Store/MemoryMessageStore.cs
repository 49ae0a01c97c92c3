using System;
using System.Buffers;
using System.Runtime.CompilerServices;

namespace FixEngine.Store;

/// <summary>An in-memory <see cref="IMessageStore"/>: message bytes in pooled chunks, a sorted index by sequence number.</summary>
/// <remarks>
/// Not thread-safe: one owner thread (the session's). Messages are copied into chunks rented from
/// <see cref="ArrayPool{T}.Shared"/>. By default nothing is rented until the first message: the arena grows from a 4 KiB
/// chunk, doubling per chunk up to <c>chunkSizeInBytes</c> (1 MiB by default; a larger message gets a chunk of its own
/// size), and the index grows from 16 entries by doubling, both from the shared pools, so a session holds memory in
/// proportion to what it stores and an idle one holds next to nothing. Growth never copies stored bytes and never
/// drops a message; once the pools are warm (chunks and index arrays returned by an earlier <see cref="Reset"/> or by
/// other sessions), it allocates nothing. A session that must not touch the pools while it runs reserves capacity up
/// front instead: <c>initialCapacityInBytes</c> rents whole chunks and <c>initialIndexCapacity</c> index entries at
/// construction, kept across <see cref="Reset"/>, so appends within them allocate nothing from the first message on.
/// Nothing survives the process: use <see cref="FileMessageStore"/> when resends must work after a restart.
/// </remarks>
public sealed class MemoryMessageStore : IMessageStore
{
    /// <summary>The default size of one arena chunk, in bytes.</summary>
    public const int DefaultChunkSizeInBytes = 1 << 20;

    /// <summary>The first chunk rented when no capacity is reserved; each next chunk doubles, up to the chunk size.</summary>
    private const int FirstGrowthChunkInBytes = 4096;

    private readonly int _chunkSizeInBytes;
    private readonly int _preallocatedChunkCount;
    private readonly bool _indexReserved;
    private readonly MessageIndex _index;
    private byte[][] _chunks;
    private int _chunkCount;
    private int _currentChunk = -1;
    private int _currentCapacity = -1; // -1 while no chunk is current, so even an empty message takes one
    private int _writeOffset;
    private int _nextSenderMsgSeqNum = 1;
    private int _nextTargetMsgSeqNum = 1;
    private long _creationTimeEpochNs;
    private int _lastProcessedInboundSeqNum;
    private bool _disposed;

    /// <summary>Creates an empty store whose session was created at <paramref name="creationTimeEpochNs"/>.</summary>
    /// <param name="creationTimeEpochNs">The session creation time, in nanoseconds since the Unix epoch.</param>
    /// <param name="chunkSizeInBytes">Size of each pooled arena chunk (at least 4096 bytes).</param>
    /// <param name="initialIndexCapacity">Index entries rented up front and kept across resets (16 bytes each; 0, the
    /// default: none, the index grows from the pool with the first message); the index doubles beyond it.</param>
    /// <param name="initialCapacityInBytes">Message bytes rented up front and kept across resets, rounded up to whole
    /// chunks (0, the default: none, the arena grows from a 4 KiB chunk with the first message); the arena grows a
    /// chunk at a time beyond it.</param>
    public MemoryMessageStore(
        long creationTimeEpochNs, int chunkSizeInBytes = DefaultChunkSizeInBytes, int initialIndexCapacity = 0, long initialCapacityInBytes = 0)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(chunkSizeInBytes, 4096);
        ArgumentOutOfRangeException.ThrowIfNegative(initialIndexCapacity);
        ArgumentOutOfRangeException.ThrowIfNegative(initialCapacityInBytes);
        long chunkCount = (initialCapacityInBytes + chunkSizeInBytes - 1) / chunkSizeInBytes;
        ArgumentOutOfRangeException.ThrowIfGreaterThan(chunkCount, Array.MaxLength / 2, nameof(initialCapacityInBytes));
        _index = new MessageIndex(initialIndexCapacity);
        _indexReserved = initialIndexCapacity > 0;
        _chunkSizeInBytes = chunkSizeInBytes;
        _creationTimeEpochNs = creationTimeEpochNs;
        _preallocatedChunkCount = (int)chunkCount;
        _chunks = new byte[Math.Max(4, _preallocatedChunkCount * 2)][];
        for (int i = 0; i < _preallocatedChunkCount; i++) _chunks[i] = ArrayPool<byte>.Shared.Rent(chunkSizeInBytes);
        _chunkCount = _preallocatedChunkCount;
    }

    /// <inheritdoc/>
    public int NextSenderMsgSeqNum => _nextSenderMsgSeqNum;

    /// <inheritdoc/>
    public int NextTargetMsgSeqNum => _nextTargetMsgSeqNum;

    /// <inheritdoc/>
    public long CreationTimeEpochNs => _creationTimeEpochNs;

    /// <inheritdoc/>
    public int LastProcessedInboundSeqNum => _lastProcessedInboundSeqNum;

    /// <summary>Always null: memory has nothing to recover.</summary>
    public StoreRecoveryReport? LastRecoveryReport => null;

    /// <summary>The number of messages currently stored.</summary>
    public int MessageCount => _index.Count;

    /// <summary>Bytes of pooled memory this store holds right now (arena chunks and index arrays).</summary>
    internal long RetainedBytes
    {
        get
        {
            long bytes = _index.RetainedBytes;
            for (int i = 0; i < _chunkCount; i++) bytes += _chunks[i].Length;
            return bytes;
        }
    }

    /// <inheritdoc/>
    public void SetNextSenderMsgSeqNum(int value)
    {
        if (value < 1) Internal.ThrowHelper.ThrowSeqNumOutOfRange(nameof(value), value);
        _nextSenderMsgSeqNum = value;
    }

    /// <inheritdoc/>
    public void SetNextTargetMsgSeqNum(int value)
    {
        if (value < 1) Internal.ThrowHelper.ThrowSeqNumOutOfRange(nameof(value), value);
        _nextTargetMsgSeqNum = value;
    }

    /// <inheritdoc/>
    public void IncrNextSenderMsgSeqNum()
    {
        if (_nextSenderMsgSeqNum == int.MaxValue) Internal.ThrowHelper.ThrowSeqNumOverflow();
        _nextSenderMsgSeqNum++;
    }

    /// <inheritdoc/>
    public void IncrNextTargetMsgSeqNum()
    {
        if (_nextTargetMsgSeqNum == int.MaxValue) Internal.ThrowHelper.ThrowSeqNumOverflow();
        _nextTargetMsgSeqNum++;
    }

    /// <inheritdoc/>
    public void SetLastProcessedInboundSeqNum(int value)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(value);
        _lastProcessedInboundSeqNum = value;
    }

    /// <inheritdoc/>
    public void Append(int seqNum, ReadOnlySpan<byte> message)
    {
        if (seqNum < 1) Internal.ThrowHelper.ThrowSeqNumOutOfRange(nameof(seqNum), seqNum);
        if (_disposed) Internal.ThrowHelper.ThrowObjectDisposed(nameof(MemoryMessageStore));
        if (message.Length > _currentCapacity - _writeOffset) NextChunk(message.Length);
        int offset = _writeOffset;
        message.CopyTo(_chunks[_currentChunk].AsSpan(offset));
        _writeOffset = offset + message.Length;
        _index.Set(seqNum, ((long)_currentChunk << 32) | (uint)offset, message.Length);
    }

    /// <inheritdoc/>
    public void AppendAndIncrement(int seqNum, ReadOnlySpan<byte> message)
    {
        if (seqNum == int.MaxValue) Internal.ThrowHelper.ThrowSeqNumOverflow();
        Append(seqNum, message);
        _nextSenderMsgSeqNum = seqNum + 1;
    }

    /// <inheritdoc/>
    public void AppendAndIncrement(int seqNum, ReadOnlySpan<byte> message, int processedInboundSeqNum)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(processedInboundSeqNum);
        AppendAndIncrement(seqNum, message);
        _lastProcessedInboundSeqNum = processedInboundSeqNum;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void NextChunk(int minLength)
    {
        int next = _currentChunk + 1;
        if (next == _chunks.Length) Array.Resize(ref _chunks, _chunks.Length * 2);
        if (next < _chunkCount && _chunks[next].Length < minLength)
        {
            ArrayPool<byte>.Shared.Return(_chunks[next]);
            _chunks[next] = ArrayPool<byte>.Shared.Rent(minLength);
        }
        else if (next == _chunkCount)
        {
            // Growth chunks double from 4 KiB up to the chunk size: a session that stores little holds little.
            int size = next >= 20 ? _chunkSizeInBytes : (int)Math.Min(_chunkSizeInBytes, (long)FirstGrowthChunkInBytes << next);
            _chunks[next] = ArrayPool<byte>.Shared.Rent(Math.Max(size, minLength));
            _chunkCount++;
        }
        _currentChunk = next;
        _currentCapacity = _chunks[next].Length;
        _writeOffset = 0;
    }

    /// <inheritdoc/>
    public int ReadRange<THandler>(int beginSeqNo, int endSeqNo, ref THandler handler) where THandler : struct, IStoredMessageHandler
    {
        if (_disposed) Internal.ThrowHelper.ThrowObjectDisposed(nameof(MemoryMessageStore));
        uint last = endSeqNo <= 0 ? uint.MaxValue : (uint)endSeqNo;
        int delivered = 0;
        for (int i = _index.LowerBound(Math.Max(beginSeqNo, 1)); i < _index.Count; i++)
        {
            int seqNum = _index.SeqNumAt(i);
            if ((uint)seqNum > last) break;
            long position = _index.PositionAt(i);
            ReadOnlySpan<byte> bytes = _chunks[(int)(position >> 32)].AsSpan((int)(uint)position, _index.LengthAt(i));
            delivered++;
            if (!handler.OnMessage(seqNum, bytes)) break;
        }
        return delivered;
    }

    /// <inheritdoc/>
    public void Reset(long nowEpochNs)
    {
        if (_disposed) Internal.ThrowHelper.ThrowObjectDisposed(nameof(MemoryMessageStore));
        // Keep a reserved index and the reserved chunks (so the next period appends without touching the pool); return
        // the growth.
        if (_indexReserved) _index.Clear();
        else _index.Release();
        for (int i = _preallocatedChunkCount; i < _chunkCount; i++)
        {
            ArrayPool<byte>.Shared.Return(_chunks[i]);
            _chunks[i] = null!;
        }
        _chunkCount = Math.Min(_chunkCount, _preallocatedChunkCount);
        _currentChunk = -1;
        _currentCapacity = -1;
        _writeOffset = 0;
        _nextSenderMsgSeqNum = 1;
        _nextTargetMsgSeqNum = 1;
        _lastProcessedInboundSeqNum = 0;
        _creationTimeEpochNs = nowEpochNs;
    }

    /// <summary>Does nothing: memory has nothing to flush.</summary>
    public void Flush()
    {
    }

    /// <summary>Does nothing: memory has no backing medium to reload from.</summary>
    public void Refresh()
    {
    }

    /// <summary>Returns the arena chunks to the pool; the store cannot be used afterwards.</summary>
    public void Dispose()
    {
        if (_disposed) return;
        _disposed = true;
        for (int i = 0; i < _chunkCount; i++)
        {
            ArrayPool<byte>.Shared.Return(_chunks[i]);
            _chunks[i] = null!;
        }
        _chunkCount = 0;
        _currentCapacity = -1;
        _index.Release();
    }
}
