using System;

namespace FixEngine.Store;

/// <summary>Settings for a <see cref="FileMessageStore"/>.</summary>
/// <remarks>Immutable once passed to the store; share one instance between stores freely.</remarks>
public sealed class FileMessageStoreOptions
{
    /// <summary>When the journal is forced to disk; <see cref="FileStoreSyncPolicy.OS"/> by default (the same default as
    /// the <c>FileStoreSync</c> setting).</summary>
    /// <remarks>
    /// Why OS: every record is in the kernel's page cache before the message reaches the socket, so a process crash
    /// (SIGKILL, out-of-memory kill, unhandled exception) loses nothing, at about 1 µs per append; forcing every record
    /// to disk (<see cref="FileStoreSyncPolicy.PerMessage"/>) costs about one disk flush (tens of µs to ms) per message
    /// and only adds protection against losing the machine itself (power loss, kernel crash). That is the trade QuickFIX
    /// users know (its file store does not fsync by default); choose PerMessage (or Batched) when a power loss must
    /// not lose a sent message.
    /// </remarks>
    public FileStoreSyncPolicy SyncPolicy { get; init; } = FileStoreSyncPolicy.OS;

    /// <summary>What opening does when the journal is damaged in the middle (data lost, valid records after it);
    /// <see cref="StoreRecoveryPolicy.Refuse"/> by default. See <see cref="StoreRecoveryPolicy"/>.</summary>
    public StoreRecoveryPolicy Recovery { get; init; } = StoreRecoveryPolicy.Refuse;

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

    /// <summary>Open the journal so that other stores (another engine, a standby process) may open it at the same time.
    /// Default false: the journal is opened exclusively.</summary>
    /// <remarks>
    /// For warm standby with <c>RefreshOnLogon</c>: the standby opens the journal while the primary writes it and calls
    /// <see cref="FileMessageStore.Refresh"/> when it takes over. A shared store never changes the file when it opens or
    /// refreshes (no repair, no truncation of a torn tail, no initial reset record; a torn last record is taken as the
    /// writer's write in progress and ignored): its next write simply lands after the last valid record. Exactly one of the stores sharing a journal may write at a time; nothing enforces that.
    /// </remarks>
    public bool SharedAccess { get; init; }

    internal void Validate()
    {
        if (!Enum.IsDefined(SyncPolicy)) throw new ArgumentOutOfRangeException(nameof(SyncPolicy), SyncPolicy, "unknown sync policy");
        if (!Enum.IsDefined(Recovery)) throw new ArgumentOutOfRangeException(nameof(Recovery), Recovery, "unknown recovery policy");
        ArgumentOutOfRangeException.ThrowIfLessThan(InitialIndexCapacity, 1, nameof(InitialIndexCapacity));
        ArgumentOutOfRangeException.ThrowIfLessThan(BatchRecordCount, 1, nameof(BatchRecordCount));
        ArgumentOutOfRangeException.ThrowIfNegative(BatchIntervalNs, nameof(BatchIntervalNs));
        ArgumentOutOfRangeException.ThrowIfLessThan(MaxMessageLengthInBytes, 1, nameof(MaxMessageLengthInBytes));
        ArgumentOutOfRangeException.ThrowIfGreaterThan(MaxMessageLengthInBytes, 1 << 30, nameof(MaxMessageLengthInBytes));
    }
}
