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

    /// <summary>Index entries reserved up front and kept across resets (default 0: none). The index costs 3 bytes per
    /// message, in segments of 1,024 entries rented from the shared array pool as messages arrive (and returned on
    /// reset), so it grows in proportion to what the session stores; a reservation only spares a session that must
    /// not touch the pool while it runs the rent of its first segments.</summary>
    public int InitialIndexCapacity { get; init; }

    /// <summary>Keep an index checkpoint beside the journal (<c>&lt;journal&gt;.index</c>, 4 bytes per message) so that
    /// opening a long journal reads the checkpoint and replays only the records after it (default false: every open
    /// replays the whole journal; settings key <c>FileStoreIndexCheckpoint=Y</c>).</summary>
    /// <remarks>The checkpoint is a cache, never the authority: each part of it is believed only if the journal still
    /// holds the record it names at the place it names, and the journal after it is replayed with the usual damage
    /// handling; a missing, torn, stale or foreign checkpoint only makes the open replay more. Its blocks are written
    /// every 1,024 messages (under Batched and PerMessage once those messages are on disk) and on close, never forced
    /// to disk. The journal bytes a checkpoint covers are not read on open: damage that appears in them later (a disk
    /// error, or a power loss under <see cref="FileStoreSyncPolicy.OS"/>) is found when a resend reads the message,
    /// whose CRCs are checked on every read, and is answered with a gap fill
    /// (<see cref="FileMessageStore.DamagedMessagesSkipped"/>), not on open: <see cref="Recovery"/> then applies only to
    /// the journal after the checkpoint. That is why it is off by default; turn it on for sessions whose history is
    /// long enough for the replay to matter. Not used with <see cref="SharedAccess"/>.</remarks>
    public bool IndexCheckpoint { get; init; }

    /// <summary>A folder to move each finished incarnation's journal to on <see cref="FileMessageStore.Reset"/> (a session
    /// reset: a new trading day, a Logon with ResetSeqNumFlag), instead of emptying it; null (the default) keeps the
    /// journal compact by truncating it.</summary>
    /// <remarks>The archived file is named after the journal and the incarnation's creation time,
    /// <c>&lt;session&gt;.&lt;yyyyMMdd'T'HHmmss'Z'&gt;.journal</c> (UTC), so a folder of them reads as a history by date;
    /// any of them opens as a read-only history with a <see cref="FileMessageStore"/> of its own. The move is a rename
    /// when the folder is on the journal's volume (no data copied), else a copy then a truncation. A crash in between
    /// leaves the archived file and no journal, which opens as a new incarnation (as after the reset). The checkpoint
    /// index is not archived (a later open of the archived journal replays it once and writes its own). Failure to
    /// archive (folder not writable, disk full) fails the reset with a <see cref="MessageStoreException"/> and leaves
    /// the journal as it was. Not used with <see cref="SharedAccess"/>.</remarks>
    public string? ArchiveDirectory { get; init; }

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
        ArgumentOutOfRangeException.ThrowIfNegative(InitialIndexCapacity, nameof(InitialIndexCapacity));
        ArgumentOutOfRangeException.ThrowIfLessThan(BatchRecordCount, 1, nameof(BatchRecordCount));
        ArgumentOutOfRangeException.ThrowIfNegative(BatchIntervalNs, nameof(BatchIntervalNs));
        ArgumentOutOfRangeException.ThrowIfLessThan(MaxMessageLengthInBytes, 1, nameof(MaxMessageLengthInBytes));
        ArgumentOutOfRangeException.ThrowIfGreaterThan(MaxMessageLengthInBytes, 1 << 30, nameof(MaxMessageLengthInBytes));
    }
}
