using System;
using System.IO;
using FixEngine.Store;

namespace FixEngine.PostgreSQL;

/// <summary>Why a <see cref="PostgresMessageStore"/> call failed.</summary>
public enum PostgresStoreFailure
{
    /// <summary>The database cannot be reached (at open: the message names host, port and database) or a write failed
    /// in transit. Under <see cref="PostgresSyncPolicy.PerMessage"/> the failed change was not applied locally; retrying
    /// reconnects.</summary>
    Unavailable,

    /// <summary>The database refused a write because another store took the session over (its fencing token is newer).
    /// Terminal: the store accepts no more writes.</summary>
    Fenced,

    /// <summary>The lease could not be renewed in time (database unreachable, or taken over), so this store must stop
    /// acting for the session before a standby may start. Terminal, unless the store was opened with
    /// <see cref="PostgresMessageStoreOptions.ResumeAfterLeaseLost"/>: then the store takes writes again once a renewal
    /// finds its fencing token still current (nobody took the session over), and turns <see cref="Fenced"/> if not.</summary>
    LeaseLost,

    /// <summary>Another live holder has the session's lease and it did not expire within the acquire timeout.</summary>
    LeaseHeld,

    /// <summary>The database schema was created by a newer version of FixEngine; the message names both versions.</summary>
    SchemaVersion,

    /// <summary>Under an asynchronous policy, the bounded write queue is full (the database accepts writes more slowly
    /// than the session produces them, or not at all). The change was not applied; nothing queued before it is lost.</summary>
    QueueFull,
}

/// <summary>A <see cref="PostgresMessageStore"/> failure; <see cref="Failure"/> says which.</summary>
/// <remarks>A <see cref="MessageStoreException"/> (an <see cref="IOException"/>), so the session handles it as any store
/// failure: it ends the session (disconnects, reporting the reason), or holds while <see cref="MessageStoreException.MayRecover"/> is true and the
/// session's <c>StoreFailurePolicy</c> is <c>Hold</c>.</remarks>
public sealed class PostgresStoreException : MessageStoreException
{
    /// <summary>Creates the exception.</summary>
    /// <param name="failure">The kind of failure.</param>
    /// <param name="message">What happened, naming the session, host and database where they apply.</param>
    /// <param name="inner">The underlying exception, if any.</param>
    /// <param name="operation">What the store was doing (default: persisting state).</param>
    public PostgresStoreException(PostgresStoreFailure failure, string message, Exception? inner = null,
        MessageStoreOperation operation = MessageStoreOperation.UpdateState)
        : base(message, null, operation, inner)
    {
        Failure = failure;
    }

    /// <summary>The kind of failure.</summary>
    public PostgresStoreFailure Failure { get; }

    /// <summary>True for failures after which the store accepts no more writes (<see cref="PostgresStoreFailure.Fenced"/>,
    /// and <see cref="PostgresStoreFailure.LeaseLost"/> unless the store resumes a lost lease): the session must stop
    /// sending.</summary>
    public bool IsTerminal => Failure is PostgresStoreFailure.Fenced || (Failure == PostgresStoreFailure.LeaseLost && !LeaseMayReturn);

    /// <summary>True for <see cref="PostgresStoreFailure.Unavailable"/> and <see cref="PostgresStoreFailure.QueueFull"/>
    /// (the store keeps retrying the database), and for <see cref="PostgresStoreFailure.LeaseLost"/> when the store was
    /// opened with <see cref="PostgresMessageStoreOptions.ResumeAfterLeaseLost"/> (the lease comes back if nobody took
    /// the session over meanwhile). Never for <see cref="PostgresStoreFailure.Fenced"/>.</summary>
    public override bool MayRecover => Failure switch
    {
        PostgresStoreFailure.Unavailable or PostgresStoreFailure.QueueFull => true,
        PostgresStoreFailure.LeaseLost => LeaseMayReturn,
        _ => false,
    };

    /// <summary><see cref="MessageStoreOwnership.Lapsed"/> for <see cref="PostgresStoreFailure.LeaseLost"/> (a standby may
    /// take the session over), <see cref="MessageStoreOwnership.TakenOver"/> for <see cref="PostgresStoreFailure.Fenced"/>,
    /// else <see cref="MessageStoreOwnership.Owned"/>.</summary>
    public override MessageStoreOwnership Ownership => Failure switch
    {
        PostgresStoreFailure.LeaseLost => MessageStoreOwnership.Lapsed,
        PostgresStoreFailure.Fenced => MessageStoreOwnership.TakenOver,
        _ => MessageStoreOwnership.Owned,
    };

    /// <summary>For <see cref="PostgresStoreFailure.LeaseLost"/>: the store renews the lease again once the database is
    /// back, if the fencing token is still its own.</summary>
    internal bool LeaseMayReturn { get; init; }
}
