using FixEngine.Store;

namespace FixEngine.PostgreSQL;

/// <summary>When <see cref="PostgresMessageStore"/> writes to PostgreSQL, and so what a takeover by a standby may lose.</summary>
/// <remarks>See docs/postgres-store.md for the exact loss and gap-fill rules of each policy.</remarks>
public enum PostgresSyncPolicy
{
    /// <summary>
    /// Every outbound message, sender sequence number change and reset is committed to PostgreSQL (one round trip,
    /// fenced) before the call returns, on the session's thread. A standby resumes with every message the primary
    /// reported as stored. Inbound (target) sequence number changes ride on the next commit. Costs one database round
    /// trip per outbound message, and allocates per commit.
    /// </summary>
    PerMessage,

    /// <summary>
    /// The session thread copies each change into memory and a bounded queue and returns at once (no database call,
    /// no allocation); a background writer commits the queue in batches, by count
    /// (<see cref="PostgresMessageStoreOptions.GroupCommitMaxOps"/>) or age
    /// (<see cref="PostgresMessageStoreOptions.GroupCommitInterval"/>). A takeover loses the changes not yet committed.
    /// </summary>
    GroupCommit,

    /// <summary>
    /// A local <see cref="FileMessageStore"/> journal is the source of truth (a restart on the same host loses nothing
    /// it kept); every change is also queued and replicated to PostgreSQL asynchronously, as with
    /// <see cref="GroupCommit"/>. A takeover on another host loses the changes not yet replicated.
    /// </summary>
    LocalJournalFirst,
}
