namespace FixEngine.Store;

/// <summary>When <see cref="FileMessageStore"/> forces its journal to stable storage (fsync); the <c>FileStoreSync</c>
/// setting (<see cref="Config.SessionSettings.FileStoreSync"/>) takes these names, or QuickFIX/J's Y (PerMessage) and N (OS).</summary>
public enum FileStoreSyncPolicy
{
    /// <summary>
    /// Every record that carries an outbound message, a sender sequence number, a processed-inbound mark or a reset is
    /// flushed to disk before the call returns: every message the engine reported as sent can be resent after a power
    /// loss. Target sequence number records are written but ride on the next flush (losing one only makes the session
    /// ask for a resend).
    /// </summary>
    PerMessage,

    /// <summary>
    /// Flushed to disk after <see cref="FileMessageStoreOptions.BatchRecordCount"/> records, or from
    /// <see cref="FileMessageStore.DoWork(long)"/> once the oldest unflushed record is
    /// <see cref="FileMessageStoreOptions.BatchIntervalNs"/> old, or on <see cref="FileMessageStore.Flush"/>.
    /// </summary>
    Batched,

    /// <summary>
    /// Records are written to the OS page cache (they survive a process crash) and only forced to disk on
    /// <see cref="FileMessageStore.Flush"/> and dispose (a reset too is left to the OS). The default (see
    /// <see cref="FileMessageStoreOptions.SyncPolicy"/>).
    /// </summary>
    OS,
}
