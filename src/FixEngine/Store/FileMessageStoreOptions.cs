using System;

namespace FixEngine.Store;

/// <summary>Settings for a <see cref="FileMessageStore"/>.</summary>
/// <remarks>Immutable once passed to the store; share one instance between stores freely.</remarks>
public sealed class FileMessageStoreOptions
{
    /// <summary>When the journal is forced to disk; <see cref="FileStoreSyncPolicy.PerMessage"/> by default.</summary>
    public FileStoreSyncPolicy SyncPolicy { get; init; } = FileStoreSyncPolicy.PerMessage;

    /// <summary>With <see cref="FileStoreSyncPolicy.Batched"/>: flush after this many unflushed records (default 64).</summary>
    public int BatchRecordCount { get; init; } = 64;

    /// <summary>With <see cref="FileStoreSyncPolicy.Batched"/>: the age of the oldest unflushed record at which
    /// <see cref="FileMessageStore.DoWork(long)"/> flushes (default 10 ms).</summary>
    public long BatchIntervalNs { get; init; } = 10_000_000;

    /// <summary>The largest message accepted by Append, and the largest record length believed on replay (default 16 MiB).</summary>
    public int MaxMessageLengthInBytes { get; init; } = 16 << 20;

    /// <summary>Index entries preallocated (16 bytes each, default 65,536 = 1 MiB): size it to a session's expected
    /// message count so the index never grows (and so never allocates) while the session runs.</summary>
    public int InitialIndexCapacity { get; init; } = 1 << 16;

    internal void Validate()
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(InitialIndexCapacity, 1, nameof(InitialIndexCapacity));
        ArgumentOutOfRangeException.ThrowIfLessThan(BatchRecordCount, 1, nameof(BatchRecordCount));
        ArgumentOutOfRangeException.ThrowIfNegative(BatchIntervalNs, nameof(BatchIntervalNs));
        ArgumentOutOfRangeException.ThrowIfLessThan(MaxMessageLengthInBytes, 1, nameof(MaxMessageLengthInBytes));
        ArgumentOutOfRangeException.ThrowIfGreaterThan(MaxMessageLengthInBytes, 1 << 30, nameof(MaxMessageLengthInBytes));
    }
}
