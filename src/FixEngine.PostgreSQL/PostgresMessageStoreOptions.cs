using System;
using System.Text.RegularExpressions;
using FixEngine.Store;

namespace FixEngine.PostgreSQL;

/// <summary>Settings for a <see cref="PostgresMessageStore"/>.</summary>
/// <remarks>Immutable once passed to the store; share one instance between the stores of many sessions.</remarks>
public sealed partial record PostgresMessageStoreOptions
{
    /// <summary>The schema version this build creates and understands.</summary>
    public const int SchemaVersion = 1;

    /// <summary>An Npgsql connection string (Host, Port, Database, Username, Password, ...). Required.</summary>
    public string ConnectionString { get; init; } = "";

    /// <summary>Prefix of the store's tables and function (lower-case letters, digits, '_'; default <c>fixengine_</c>).
    /// Engines sharing a prefix share sessions; different prefixes in one database are independent.</summary>
    public string TablePrefix { get; init; } = "fixengine_";

    /// <summary>When writes reach PostgreSQL; <see cref="PostgresSyncPolicy.PerMessage"/> by default.</summary>
    public PostgresSyncPolicy SyncPolicy { get; init; } = PostgresSyncPolicy.PerMessage;

    /// <summary>How long a lease lasts on the database's clock without renewal (default 10 s). A standby takes over at
    /// most this long (plus its poll interval) after the primary stops renewing.</summary>
    public TimeSpan LeaseDuration { get; init; } = TimeSpan.FromSeconds(10);

    /// <summary>How long the constructor waits for a lease held by someone else to expire (default: forever, as a standby
    /// does). On timeout it throws <see cref="PostgresStoreFailure.LeaseHeld"/>.</summary>
    public TimeSpan LeaseAcquireTimeout { get; init; } = System.Threading.Timeout.InfiniteTimeSpan;

    /// <summary>A name for this holder, shown in the lease row and in errors (default machine name, process id and a
    /// random suffix).</summary>
    public string? HolderId { get; init; }

    /// <summary>After <see cref="PostgresStoreFailure.LeaseLost"/> (the database was away for 3/4 of the lease), keep
    /// trying to renew the lease and take writes again once a renewal finds this store's fencing token still current,
    /// i.e. nobody took the session over meanwhile (default false: a lost lease is terminal). What a session does
    /// meanwhile is its <c>StoreFailurePolicy</c>; <c>Hold</c> sets this.</summary>
    /// <remarks>Safe for fencing: a standby can only take the lease by bumping the token, after which the renewal
    /// matches no row and the store turns <see cref="PostgresStoreFailure.Fenced"/>; until the renewal succeeds the
    /// store refuses every change, as it does under the default.</remarks>
    public bool ResumeAfterLeaseLost { get; init; }

    /// <summary>Asynchronous policies: commit a batch once it holds this many changes (default 256).</summary>
    public int GroupCommitMaxOps { get; init; } = 256;

    /// <summary>Asynchronous policies: commit a batch once its oldest change is this old (default 2 ms).</summary>
    public TimeSpan GroupCommitInterval { get; init; } = TimeSpan.FromMilliseconds(2);

    /// <summary>Asynchronous policies: bytes of the bounded queue between the session and the writer (default 8 MiB;
    /// a message may use at most half of it).</summary>
    public int QueueCapacityBytes { get; init; } = 8 << 20;

    /// <summary>How long <see cref="PostgresMessageStore.Flush"/> and dispose wait for the writer (default 30 s).</summary>
    public TimeSpan FlushTimeout { get; init; } = TimeSpan.FromSeconds(30);

    /// <summary><see cref="PostgresSyncPolicy.LocalJournalFirst"/>: the folder of the local journal. Required there.</summary>
    public string? LocalJournalDirectory { get; init; }

    /// <summary><see cref="PostgresSyncPolicy.LocalJournalFirst"/>: the local journal's options (default: OS sync).</summary>
    public FileMessageStoreOptions? LocalJournalOptions { get; init; }

    /// <summary>Index entries reserved up front for the in-memory copy of the stored messages (default 0: it grows from
    /// the shared pool with what the session stores).</summary>
    public int InitialIndexCapacity { get; init; }

    /// <summary>Message bytes reserved up front for the in-memory copy of the stored messages (default 0: it grows from
    /// the shared pool with what the session stores).</summary>
    public long InitialCapacityInBytes { get; init; }

    [GeneratedRegex("^[a-z_][a-z0-9_]{0,39}$")]
    private static partial Regex PrefixPattern();

    internal void Validate()
    {
        if (string.IsNullOrWhiteSpace(ConnectionString)) throw new ArgumentException("A PostgreSQL connection string is required.", nameof(ConnectionString));
        if (!PrefixPattern().IsMatch(TablePrefix ?? ""))
        {
            throw new ArgumentException($"TablePrefix '{TablePrefix}' must be 1-40 lower-case letters, digits or '_', not starting with a digit.", nameof(TablePrefix));
        }
        if (LeaseDuration < TimeSpan.FromMilliseconds(200)) throw new ArgumentOutOfRangeException(nameof(LeaseDuration), LeaseDuration, "must be at least 200 ms");
        if (LeaseAcquireTimeout < TimeSpan.Zero && LeaseAcquireTimeout != System.Threading.Timeout.InfiniteTimeSpan)
        {
            throw new ArgumentOutOfRangeException(nameof(LeaseAcquireTimeout), LeaseAcquireTimeout, "must not be negative (or Infinite)");
        }
        ArgumentOutOfRangeException.ThrowIfLessThan(GroupCommitMaxOps, 1, nameof(GroupCommitMaxOps));
        if (GroupCommitInterval < TimeSpan.Zero) throw new ArgumentOutOfRangeException(nameof(GroupCommitInterval), GroupCommitInterval, "must not be negative");
        ArgumentOutOfRangeException.ThrowIfLessThan(QueueCapacityBytes, 4096, nameof(QueueCapacityBytes));
        if (FlushTimeout <= TimeSpan.Zero) throw new ArgumentOutOfRangeException(nameof(FlushTimeout), FlushTimeout, "must be positive");
        if (SyncPolicy == PostgresSyncPolicy.LocalJournalFirst && string.IsNullOrEmpty(LocalJournalDirectory))
        {
            throw new ArgumentException("LocalJournalFirst needs LocalJournalDirectory (FileStorePath in settings).", nameof(LocalJournalDirectory));
        }
        ArgumentOutOfRangeException.ThrowIfNegative(InitialIndexCapacity, nameof(InitialIndexCapacity));
        ArgumentOutOfRangeException.ThrowIfNegative(InitialCapacityInBytes, nameof(InitialCapacityInBytes));
    }
}
