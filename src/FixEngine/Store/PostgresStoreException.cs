using System;
using System.IO;

namespace FixEngine.Store;

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
    /// acting for the session before a standby may start. Terminal.</summary>
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
/// <remarks>Derives from <see cref="IOException"/> so code that handles store I/O failures handles it too.</remarks>
public sealed class PostgresStoreException : IOException
{
    /// <summary>Creates the exception.</summary>
    /// <param name="failure">The kind of failure.</param>
    /// <param name="message">What happened, naming the session, host and database where they apply.</param>
    /// <param name="inner">The underlying exception, if any.</param>
    public PostgresStoreException(PostgresStoreFailure failure, string message, Exception? inner = null)
        : base(message, inner)
    {
        Failure = failure;
    }

    /// <summary>The kind of failure.</summary>
    public PostgresStoreFailure Failure { get; }

    /// <summary>True for failures after which the store accepts no more writes (<see cref="PostgresStoreFailure.Fenced"/>,
    /// <see cref="PostgresStoreFailure.LeaseLost"/>): the session must stop sending.</summary>
    public bool IsTerminal => Failure is PostgresStoreFailure.Fenced or PostgresStoreFailure.LeaseLost;
}
