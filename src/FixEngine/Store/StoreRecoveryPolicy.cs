namespace FixEngine.Store;

/// <summary>What <see cref="FileMessageStore"/> does when its journal is damaged in a way that loses data followed by
/// valid records (setting <c>FileStoreRecovery</c>, option <see cref="FileMessageStoreOptions.Recovery"/>).</summary>
/// <remarks>
/// Whatever the policy, the store never deletes a valid record, and it always repairs what loses nothing (a damaged
/// head or trailer restored from its twin copy) and a damaged tail with no valid record after it (the normal result of
/// a crash in the middle of a write): the original file is copied first, and the repair is reported.
/// </remarks>
public enum StoreRecoveryPolicy
{
    /// <summary>Refuse to open: throw <see cref="MessageStoreException"/> naming the file, the byte offset, the record
    /// number and the sequence numbers around the damage, and change nothing (the default: damage in the middle of a
    /// journal is not a crash artefact and deserves an operator's look).</summary>
    Refuse,

    /// <summary>Keep every valid record, neutralise the damaged bytes (after copying the original file), keep the
    /// sequence numbers of the last readable record, and let resend requests for lost message bodies be answered with
    /// SequenceReset-GapFill.</summary>
    RecoverAndGapFill,
}
