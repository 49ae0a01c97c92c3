using System;
using System.IO;

namespace FixEngine.Store;

/// <summary>What a store was doing when it failed (<see cref="MessageStoreException.Operation"/>).</summary>
public enum MessageStoreOperation
{
    /// <summary>Opening the store: creating its folder, opening its file, replaying or recovering it.</summary>
    Open,

    /// <summary>Reloading the store from its medium (<see cref="IMessageStore.Refresh"/>).</summary>
    Refresh,

    /// <summary>Storing an outbound message (<see cref="IMessageStore.Append"/>, <see cref="IMessageStore.AppendAndIncrement(int, ReadOnlySpan{byte})"/>).</summary>
    Append,

    /// <summary>Persisting a sequence number or the processed-inbound mark.</summary>
    UpdateState,

    /// <summary>Starting a new incarnation (<see cref="IMessageStore.Reset"/>).</summary>
    Reset,

    /// <summary>Forcing written data to stable storage (<see cref="IMessageStore.Flush"/>, a sync policy, dispose).</summary>
    Flush,

    /// <summary>Reading stored messages back (<see cref="IMessageStore.ReadRange{THandler}"/>).</summary>
    Read,
}

/// <summary>Whether this engine still owns its session's store (<see cref="MessageStoreException.Ownership"/>), for stores
/// that several engines share and hand over between them (a lease in a database); a file or memory store is always
/// <see cref="Owned"/>.</summary>
public enum MessageStoreOwnership
{
    /// <summary>This engine owns the store, or the store is not shared.</summary>
    Owned,

    /// <summary>This engine's claim on the store lapsed (its lease could not be renewed in time): another engine may take
    /// the session over, so a session holding on the failure disconnects without a Logout, letting a standby log on at
    /// the counterparty. The claim may come back if nobody took it (<see cref="MessageStoreException.MayRecover"/>).</summary>
    Lapsed,

    /// <summary>Another engine took the session over: the store refuses every write for good, and the session stops.</summary>
    TakenOver,
}

/// <summary>The one exception a message store throws when its medium fails or refuses to open: disk full, a read-only
/// or unwritable folder, an I/O error, a journal damaged beyond the configured recovery policy.</summary>
/// <remarks>
/// Derives from <see cref="IOException"/>, so code that handles I/O errors keeps working; the original error is the
/// <see cref="Exception.InnerException"/>. After a failed write or flush a <see cref="FileMessageStore"/> is faulted:
/// it refuses every later write with this exception (reads still work) because what reached the disk is unknown;
/// dispose it and open it again, which replays and repairs the journal. Argument errors (a sequence number below 1, a
/// message above the size limit) stay <see cref="ArgumentException"/>s and leave the store usable. A store whose medium
/// can come back by itself (a database, such as the FixEngine.PostgreSQL package's store) throws a subclass whose
/// <see cref="MayRecover"/> says whether waiting can help, and a store shared between engines says through
/// <see cref="Ownership"/> whether this engine still owns the session.
/// </remarks>
public class MessageStoreException : IOException
{
    /// <summary>Creates the exception.</summary>
    /// <param name="message">What failed, naming the file (or other medium) and what was being done.</param>
    /// <param name="storePath">The file (or medium name) of the store; null when not applicable.</param>
    /// <param name="operation">What the store was doing.</param>
    /// <param name="innerException">The underlying error, if any.</param>
    /// <param name="recoveryReport">The recovery report when opening was refused because of damage.</param>
    public MessageStoreException(string message, string? storePath, MessageStoreOperation operation, Exception? innerException = null,
        StoreRecoveryReport? recoveryReport = null)
        : base(message, innerException)
    {
        StorePath = storePath;
        Operation = operation;
        RecoveryReport = recoveryReport;
    }

    /// <summary>The store's file (or medium name); null when not applicable.</summary>
    public string? StorePath { get; }

    /// <summary>What the store was doing when it failed.</summary>
    public MessageStoreOperation Operation { get; }

    /// <summary>When opening was refused because the journal is damaged: what was found (else null).</summary>
    public StoreRecoveryReport? RecoveryReport { get; }

    /// <summary>True when the store may take writes again without being reopened: its medium is away for a while (a
    /// database that cannot be reached) and the store keeps retrying it. False (the default) for a faulted file store
    /// and for terminal failures. A session whose <c>StoreFailurePolicy</c> is <c>Hold</c> waits for such a
    /// store (<see cref="IMessageStore.CurrentFailure"/> turns null) instead of logging out.</summary>
    public virtual bool MayRecover => false;

    /// <summary>Whether this engine still owns the session's store: <see cref="MessageStoreOwnership.Owned"/> (the
    /// default) unless a store shared between engines lost its claim (<see cref="MessageStoreOwnership.Lapsed"/>) or was
    /// taken over (<see cref="MessageStoreOwnership.TakenOver"/>). The session reads it to end a connection the way a
    /// takeover needs (no Logout, which would need a sequence number the new owner keeps).</summary>
    public virtual MessageStoreOwnership Ownership => MessageStoreOwnership.Owned;
}
