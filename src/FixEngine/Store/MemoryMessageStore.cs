using System;
using System.Buffers;
using System.Runtime.CompilerServices;

namespace FixEngine.Store;

/// <summary>An in-memory <see cref="IMessageStore"/>: message bytes in pooled chunks, a sorted index by sequence number.</summary>
/// <remarks>
/// Not thread-safe: one owner thread (the session's). Messages are copied into chunks rented from
/// <see cref="ArrayPool{T}.Shared"/> (1 MiB by default; a larger message gets a chunk of its own size). The
/// constructor rents enough chunks for <c>initialCapacityInBytes</c> and sizes the index for
/// <c>initialIndexCapacity</c> messages, so appends within those capacities allocate nothing, from the first message
/// on; <see cref="Reset"/> keeps the preallocated chunks. Beyond the capacity the store grows (one chunk rent per
/// chunk filled, the index doubles): a one-off cost per growth step that never copies stored bytes and never drops a
/// message. Size both capacities to a session period's outbound volume. Nothing survives the process: use
/// <see cref="FileMessageStore"/> when resends must work after a restart.
/// </remarks>
public sealed class MemoryMessageStore : IMessageStore
{
    /// <summary>The default size of one arena chunk, in bytes.</summary>
    public const int DefaultChunkSizeInBytes = 1 << 20;

    private readonly int _chunkSizeInBytes;
    private readonly int _preallocatedChunkCount;
    private readonly MessageIndex _index;
    private byte[][] _chunks;
    private int _chunkCount;
    private int _currentChunk;
    private int _writeOffset;
    private int _nextSenderMsgSeqNum = 1;
    private int _nextTargetMsgSeqNum = 1;
    private long _creationTimeEpochNs;
    private int _lastProcessedInboundSeqNum;
    private bool _disposed;

    /// <summary>Creates an empty store whose session was created at <paramref name="creationTimeEpochNs"/>.</summary>
    /// <param name="creationTimeEpochNs">The session creation time, in nanoseconds since the Unix epoch.</param>
    /// <param name="chunkSizeInBytes">Size of each pooled arena chunk (at least 4096 bytes).</param>
    /// <param name="initialIndexCapacity">Index entries preallocated (16 bytes each); the index doubles beyond it.</param>
    /// <param name="initialCapacityInBytes">Message bytes preallocated, rounded up to whole chunks (at least one
    /// chunk); the arena grows a chunk at a time beyond it.</param>
    public MemoryMessageStore(
        long creationTimeEpochNs, int chunkSizeInBytes = DefaultChunkSizeInBytes, int initialIndexCapacity = 1 << 16, long initialCapacityInBytes = 0)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(chunkSizeInBytes, 4096);
        ArgumentOutOfRangeException.ThrowIfLessThan(initialIndexCapacity, 1);
        ArgumentOutOfRangeException.ThrowIfNegative(initialCapacityInBytes);
        long chunkCount = Math.Max(1, (initialCapacityInBytes + chunkSizeInBytes - 1) / chunkSizeInBytes);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(chunkCount, Array.MaxLength / 2, nameof(initialCapacityInBytes));
        _index = new MessageIndex(initialIndexCapacity);
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
        if (message.Length > _chunks[_currentChunk].Length - _writeOffset) NextChunk(message.Length);
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
            _chunks[next] = ArrayPool<byte>.Shared.Rent(Math.Max(_chunkSizeInBytes, minLength));
            _chunkCount++;
        }
        _currentChunk = next;
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
        _index.Clear();
        // Keep the preallocated chunks (so the next period appends without allocating); return the growth.
        for (int i = _preallocatedChunkCount; i < _chunkCount; i++)
        {
            ArrayPool<byte>.Shared.Return(_chunks[i]);
            _chunks[i] = null!;
        }
        _chunkCount = Math.Min(_chunkCount, _preallocatedChunkCount);
        _currentChunk = 0;
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
        _index.Clear();
    }
}
