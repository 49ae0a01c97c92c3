using System;
using System.Collections.Generic;
using System.Globalization;
using System.Text;

namespace FixEngine.Store;

/// <summary>What was wrong with the bytes at a place in a journal.</summary>
public enum JournalDamageReason
{
    /// <summary>The file ends inside a record (a torn write): the record's head may have survived, its end did not.</summary>
    TornTail,

    /// <summary>The record head (magic, type, length or CRC) is unreadable.</summary>
    BadHead,

    /// <summary>The record's payload does not match the CRC its head or trailer recorded.</summary>
    BadPayload,

    /// <summary>The record's trailer (the second copy of its head) is unreadable; head and payload are intact.</summary>
    BadTrailer,
}

/// <summary>What recovery did about one damaged place.</summary>
public enum JournalDamageResolution
{
    /// <summary>Nothing was lost: the damaged head or trailer was restored from the record's other copy.</summary>
    RecordRepaired,

    /// <summary>The message's sequence state was kept but its body is lost; a resend request for it is answered with
    /// SequenceReset-GapFill.</summary>
    BodyLost,

    /// <summary>Unreadable bytes between two readable records were skipped; the records that were there (sequence
    /// numbers between <see cref="JournalDamage.LastMessageSeqNumBefore"/> and
    /// <see cref="JournalDamage.FirstMessageSeqNumAfter"/>) are lost.</summary>
    RegionSkipped,

    /// <summary>Unreadable bytes at the end of the journal, with no readable record after them, were cut off.</summary>
    TailTruncated,
}

/// <summary>One damaged place found while replaying a journal.</summary>
public sealed class JournalDamage
{
    internal JournalDamage(long offset, long length, long recordNumber, JournalDamageReason reason, JournalDamageResolution resolution,
        int lostMessageSeqNum, int lastMessageSeqNumBefore, long recordsBefore)
    {
        Offset = offset;
        Length = length;
        RecordNumber = recordNumber;
        Reason = reason;
        Resolution = resolution;
        LostMessageSeqNum = lostMessageSeqNum;
        LastMessageSeqNumBefore = lastMessageSeqNumBefore;
        RecordsBefore = recordsBefore;
    }

    /// <summary>Byte offset of the damage in the journal file.</summary>
    public long Offset { get; }

    /// <summary>Number of bytes affected.</summary>
    public long Length { get; }

    /// <summary>The 1-based number of the damaged record in the file (the records before it were all readable or
    /// accounted for by earlier damage).</summary>
    public long RecordNumber { get; }

    /// <summary>What was wrong.</summary>
    public JournalDamageReason Reason { get; }

    /// <summary>What recovery did.</summary>
    public JournalDamageResolution Resolution { get; }

    /// <summary>With <see cref="JournalDamageResolution.BodyLost"/> (or a torn message record): the MsgSeqNum whose body
    /// is lost; otherwise 0.</summary>
    public int LostMessageSeqNum { get; }

    /// <summary>The MsgSeqNum of the last message read before the damage (0 if none).</summary>
    public int LastMessageSeqNumBefore { get; }

    /// <summary>The MsgSeqNum of the first message read after the damage (0 if none).</summary>
    public int FirstMessageSeqNumAfter { get; internal set; }

    /// <summary>When the lost record (or one of the lost records) raised the processed-inbound mark: that mark, the
    /// MsgSeqNum of the inbound message it answered; otherwise 0.</summary>
    /// <remarks>A mark whose answer is lost is never kept: the recovered mark is the one before the lost record and the
    /// next expected inbound MsgSeqNum is lowered to that inbound message at most, so it is asked for again and handed to
    /// the application flagged as a possible redelivery (<c>FixSession.IsPossibleRedelivery</c>), and answered anew.</remarks>
    public int ProcessedInboundNotKept { get; internal set; }

    /// <summary>True when this damage lost something (a message body or unknown records).</summary>
    public bool LostData => Resolution != JournalDamageResolution.RecordRepaired;

    internal long RecordsBefore { get; }

    internal bool FollowedByValidRecord { get; set; }

    /// <inheritdoc/>
    public override string ToString()
    {
        var sb = new StringBuilder();
        sb.Append(CultureInfo.InvariantCulture, $"{Reason} at byte offset {Offset} (record {RecordNumber}, {Length} bytes): {Resolution}");
        if (LostMessageSeqNum != 0) sb.Append(CultureInfo.InvariantCulture, $", body of MsgSeqNum {LostMessageSeqNum} lost");
        if (ProcessedInboundNotKept != 0)
        {
            sb.Append(CultureInfo.InvariantCulture, $", the answer to inbound MsgSeqNum {ProcessedInboundNotKept} may be lost: its processed mark is not kept, it is asked for again");
        }
        sb.Append(CultureInfo.InvariantCulture, $"; last message before MsgSeqNum {LastMessageSeqNumBefore}, first after {(FirstMessageSeqNumAfter == 0 ? "none" : FirstMessageSeqNumAfter.ToString(CultureInfo.InvariantCulture))}");
        return sb.ToString();
    }
}

/// <summary>What a store found and did when it had to recover its medium on open or refresh: where the damage was,
/// what was kept, what was lost, the resulting sequence numbers and where the original bytes were preserved.</summary>
/// <remarks>Immutable. Available as <see cref="IMessageStore.LastRecoveryReport"/> (null while nothing needed recovery)
/// and, when opening was refused, as <see cref="MessageStoreException.RecoveryReport"/>. <see cref="ToString"/> is the
/// text the engine logs.</remarks>
public sealed class StoreRecoveryReport
{
    internal StoreRecoveryReport(string storePath, StoreRecoveryPolicy policy, long originalLengthInBytes, long recordsRead, IReadOnlyList<JournalDamage> damages,
        bool refused, bool fileRepaired, string? preservedCopyPath, int messagesKept, int nextSender, int nextTarget, int lastProcessedInbound)
    {
        StorePath = storePath;
        Policy = policy;
        OriginalLengthInBytes = originalLengthInBytes;
        RecordsRead = recordsRead;
        Damages = damages;
        Refused = refused;
        FileRepaired = fileRepaired;
        PreservedCopyPath = preservedCopyPath;
        MessagesKept = messagesKept;
        NextSenderMsgSeqNum = nextSender;
        NextTargetMsgSeqNum = nextTarget;
        LastProcessedInboundSeqNum = lastProcessedInbound;
    }

    /// <summary>The recovered file (or medium name).</summary>
    public string StorePath { get; }

    /// <summary>The policy in force.</summary>
    public StoreRecoveryPolicy Policy { get; }

    /// <summary>The length of the file before recovery.</summary>
    public long OriginalLengthInBytes { get; }

    /// <summary>Records read intact (including those repaired from their twin copy).</summary>
    public long RecordsRead { get; }

    /// <summary>Every damaged place, in file order.</summary>
    public IReadOnlyList<JournalDamage> Damages { get; }

    /// <summary>True when the store refused to open (<see cref="StoreRecoveryPolicy.Refuse"/> and damage that loses data
    /// followed by valid records); nothing was changed.</summary>
    public bool Refused { get; }

    /// <summary>True when the file was changed (damage neutralised, tail cut, the recovered state written); false for
    /// a refused open and for a store opened with shared access, which never changes the file.</summary>
    public bool FileRepaired { get; }

    /// <summary>Where the original file was copied before it was repaired (null when it was not changed). The whole file
    /// when its volume keeps at least 1 MiB free after the copy; otherwise only the bytes from the first damage on (the
    /// only ones a repair changes), in <c>&lt;journal&gt;.corrupt-&lt;time&gt;.from-&lt;offset&gt;</c>, so that a journal
    /// damaged by a full disk does not fill it again (with less than 64 KiB left after that, the store refuses to open).</summary>
    public string? PreservedCopyPath { get; }

    /// <summary>Stored messages available for resend after recovery.</summary>
    public int MessagesKept { get; }

    /// <summary>The recovered next outbound MsgSeqNum.</summary>
    public int NextSenderMsgSeqNum { get; }

    /// <summary>The recovered next expected inbound MsgSeqNum.</summary>
    public int NextTargetMsgSeqNum { get; }

    /// <summary>The recovered processed-inbound mark.</summary>
    public int LastProcessedInboundSeqNum { get; }

    /// <summary>True when any damage lost data (a message body or unknown records).</summary>
    public bool LostData
    {
        get
        {
            foreach (JournalDamage damage in Damages)
            {
                if (damage.LostData) return true;
            }
            return false;
        }
    }

    /// <inheritdoc/>
    public override string ToString()
    {
        var sb = new StringBuilder();
        sb.Append(CultureInfo.InvariantCulture, $"Store recovery of '{StorePath}' ({OriginalLengthInBytes} bytes, policy {Policy}): {Damages.Count} damaged place(s), {RecordsRead} record(s) read, {MessagesKept} message(s) kept; ");
        if (Refused) sb.Append("refused to open, file unchanged");
        else if (FileRepaired) sb.Append("file repaired, original preserved as '").Append(PreservedCopyPath).Append('\'');
        else sb.Append("file left unchanged (shared access)");
        sb.Append(CultureInfo.InvariantCulture, $"; next sender {NextSenderMsgSeqNum}, next target {NextTargetMsgSeqNum}, processed inbound {LastProcessedInboundSeqNum}");
        foreach (JournalDamage damage in Damages) sb.Append(Environment.NewLine).Append("  ").Append(damage.ToString());
        return sb.ToString();
    }
}
