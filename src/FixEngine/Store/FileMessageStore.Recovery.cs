using System;
using System.Buffers;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using Microsoft.Win32.SafeHandles;

namespace FixEngine.Store;

// Replay and recovery: rebuilds the state and the index from the journal, finds damage, resynchronises past it,
// and (exclusive access only) repairs the file after preserving a copy. Runs on open and Refresh, never on the hot path,
// so it may allocate.
//
// Design:
// - A record is read at `position` from its head. Head readable and payload CRC good: the record is applied (and a
//   damaged trailer is rewritten from the head). Head readable, payload bad: its state is applied, its body is lost
//   (BodyLost). Head readable but the file ends inside the record: a torn write; its state is applied (exclusive
//   access only; a shared reader takes it as the writer's write in progress), the tail is cut.
// - Head unreadable: scan forward byte by byte for the next readable head or trailer (magic + CRC + plausible type
//   and length). A trailer whose record starts at or after `position` restores that record (its head is rewritten
//   from it when the payload matches, else its body is lost); bytes before the first readable record are a skipped
//   region. Nothing readable after `position`: the tail is cut.
// - Damage that lost data and is followed by a readable record is "in the middle": the policy decides (Refuse throws
//   and changes nothing). Repairs that lose nothing and the tail are always handled.
// - Repair order (crash-safe at every step, a crash just means the next open repairs again): copy the file, rewrite
//   damaged heads/trailers, turn lossy regions into Hole records, write a State record with the recovered state at the
//   end of the readable data (over the tail), cut the file after it, flush (unless the sync policy is OS, under which
//   nothing is forced to disk).
public sealed partial class FileMessageStore
{
    private enum RepairKind
    {
        RewriteHead,
        RewriteTrailer,
        Hole,
    }

    private readonly record struct Repair(RepairKind Kind, long Position, long Size, JournalSlot Slot);

    private sealed class ReplayState
    {
        public readonly List<JournalDamage> Damages = new();
        public readonly List<Repair> Repairs = new();
    }

    private void Replay(MessageStoreOperation operation)
    {
        _window.Invalidate();
        _index.Clear();
        _indexUsable = false;
        _pendingCount = 0;
        _legacyRecords = false;
        long fileLength;
        try
        {
            fileLength = RandomAccess.GetLength(_handle);
        }
        catch (Exception e) when (IsMediumError(e))
        {
            throw new MessageStoreException($"Cannot read the length of the message store journal '{JournalPath}': {e.Message}", JournalPath, operation, e);
        }

        bool shared = _options.SharedAccess;
        int max = _options.MaxMessageLengthInBytes;
        // A checkpoint that checks out against the journal gives the index, state and counts of a prefix; replay goes on
        // from its end exactly as it would have from the start (the prefix ends at a record boundary).
        long position = LoadCheckpoint(fileLength, out JournalState state, out long readable, out int lastMessageSeq, out long lastRecordStart);
        List<(int Seq, long Position)>? tail = position > 0 ? new List<(int Seq, long Position)>() : null;
        ReplayState? damage = null;
        long intact = readable;
        long end = fileLength;
        // The lowest processed-inbound mark and next target that a lost answer forces (int.MaxValue: none). A message
        // record whose body is lost may have been the answer to the inbound message its processed mark names: that mark
        // is never carried forward, and the inbound message is asked for again (it comes back flagged as a possible
        // redelivery), so no answered order goes unanswered after recovery.
        int answerFloorProcessed = int.MaxValue;
        int answerFloorTarget = int.MaxValue;
        bool skippedBefore = false;
        JournalState stateBeforeSkip = default;
        int pendingNotKept = 0;
        int skipDamageIndex = 0;

        void NoteLostAnswer(in JournalState before, in JournalState after, bool acrossSkip)
        {
            if (after.ProcessedInbound <= before.ProcessedInbound) return;
            answerFloorProcessed = Math.Min(answerFloorProcessed, before.ProcessedInbound);
            // The inbound message the lost answer was for is asked for again: at most its number, never below the mark.
            int target = Math.Max(before.ProcessedInbound + 1, Math.Min(after.NextTarget, after.ProcessedInbound));
            answerFloorTarget = Math.Min(answerFloorTarget, target);
            if (!acrossSkip) pendingNotKept = after.ProcessedInbound;
            else if (damage is not null && skipDamageIndex < damage.Damages.Count) damage.Damages[skipDamageIndex].ProcessedInboundNotKept = after.ProcessedInbound;
        }

        void AddDamage(long offset, long length, JournalDamageReason reason, JournalDamageResolution resolution, int lostSeq)
        {
            damage ??= new ReplayState();
            damage.Damages.Add(new JournalDamage(offset, length, intact + 1, reason, resolution, lostSeq, lastMessageSeq, readable)
            {
                ProcessedInboundNotKept = pendingNotKept,
            });
            pendingNotKept = 0;
        }

        void AddRepair(RepairKind kind, long at, long size, in JournalSlot slot)
        {
            damage ??= new ReplayState();
            damage.Repairs.Add(new Repair(kind, at, size, slot));
        }

        void Apply(in JournalSlot slot, long recordPosition, bool withBody, bool headDamaged = false)
        {
            if (skippedBefore && slot.Type != JournalRecordType.Reset && slot.Type != JournalRecordType.Hole)
            {
                // Unreadable records were skipped: if the mark moved across them, one of them may have carried the answer.
                skippedBefore = false;
                NoteLostAnswer(stateBeforeSkip, slot.State, acrossSkip: true);
            }
            if (!withBody && JournalFormat.IsMessage(slot.Type)) NoteLostAnswer(state, slot.State, acrossSkip: false);
            switch (slot.Type)
            {
                case JournalRecordType.Message:
                case JournalRecordType.LaidOutMessage:
                    if (withBody)
                    {
                        // A record known by its trailer keeps a damaged head in a journal this store may not repair
                        // (shared access): its payload is indexed directly.
                        // (the message only: a laid-out record's layout is not delivered from there).
                        if (headDamaged && shared)
                        {
                            int offset = JournalFormat.MessageOffset(slot.Type);
                            _index.Set(slot.SeqNum, recordPosition + JournalFormat.HeadSize + offset, slot.Length - offset);
                        }
                        else
                        {
                            _index.Set(slot.SeqNum, recordPosition);
                        }
                        tail?.Add((slot.SeqNum, recordPosition));
                        if (damage is not null)
                        {
                            foreach (JournalDamage d in damage.Damages)
                            {
                                if (d.FirstMessageSeqNumAfter == 0) d.FirstMessageSeqNumAfter = slot.SeqNum;
                            }
                        }
                        lastMessageSeq = slot.SeqNum;
                    }
                    state = slot.State;
                    break;
                case JournalRecordType.Reset:
                    _index.Clear();
                    tail?.Clear();
                    state = slot.State;
                    answerFloorProcessed = int.MaxValue;
                    answerFloorTarget = int.MaxValue;
                    skippedBefore = false;
                    break;
                case JournalRecordType.State:
                    state = slot.State;
                    break;
            }
            readable++;
        }

        while (position < fileLength)
        {
            if (TryReadSlotAt(position, fileLength, JournalFormat.HeadMagic2, out JournalSlot head))
            {
                long size = JournalFormat.RecordSize(head.Type, head.Length);
                if (size > fileLength - position)
                {
                    // Torn write: the head made it, the rest did not. Its state is kept (never rewind a sequence
                    // number), unless a writer sharing the file may still be writing it; if only the trailer is
                    // missing, the whole message is kept and the trailer written again.
                    if (!shared && head.Type != JournalRecordType.Hole && JournalFormat.HeadSize + (long)head.Length <= fileLength - position
                        && (!JournalFormat.IsMessage(head.Type) || PayloadMatches(position + JournalFormat.HeadSize, head.Length, fileLength, head.PayloadCrc)))
                    {
                        AddDamage(position, fileLength - position, JournalDamageReason.TornTail, JournalDamageResolution.RecordRepaired, 0);
                        AddRepair(RepairKind.RewriteTrailer, position, size, head);
                        Apply(head, position, withBody: true);
                        intact++;
                        end = position + size;
                        break;
                    }
                    if (!shared) Apply(head, position, withBody: false);
                    AddDamage(position, fileLength - position, JournalDamageReason.TornTail, JournalDamageResolution.TailTruncated,
                        JournalFormat.IsMessage(head.Type) ? head.SeqNum : 0);
                    end = position;
                    break;
                }
                if (JournalFormat.IsMessage(head.Type) && !PayloadMatches(position + JournalFormat.HeadSize, head.Length, fileLength, head.PayloadCrc))
                {
                    Apply(head, position, withBody: false);
                    AddDamage(position, size, JournalDamageReason.BadPayload, JournalDamageResolution.BodyLost, head.SeqNum);
                    AddRepair(RepairKind.Hole, position, size, head);
                    position += size;
                    continue;
                }
                long trailerAt = position + size - JournalFormat.TrailerSize;
                if (!TryReadSlotAt(trailerAt, fileLength, JournalFormat.TrailerMagic2, out JournalSlot trailer) || !SameSlot(head, trailer))
                {
                    AddDamage(trailerAt, JournalFormat.TrailerSize, JournalDamageReason.BadTrailer, JournalDamageResolution.RecordRepaired, 0);
                    AddRepair(RepairKind.RewriteTrailer, position, size, head);
                }
                Apply(head, position, withBody: true);
                intact++;
                lastRecordStart = position;
                position += size;
                continue;
            }

            int v1Size = TryReplayV1(position, fileLength, ref state, ref lastMessageSeq);
            if (v1Size > 0)
            {
                _legacyRecords = true;
                readable++;
                intact++;
                position += v1Size;
                continue;
            }

            if (!TryResync(position, fileLength, out long anchor, out bool anchorIsTrailer, out JournalSlot anchorSlot, out long recordStart))
            {
                AddDamage(position, fileLength - position, fileLength - position < JournalFormat.HeadSize ? JournalDamageReason.TornTail : JournalDamageReason.BadHead,
                    JournalDamageResolution.TailTruncated, 0);
                end = position;
                break;
            }
            if (!skippedBefore && (!anchorIsTrailer || recordStart > position))
            {
                skippedBefore = true;
                stateBeforeSkip = state;
                skipDamageIndex = damage?.Damages.Count ?? 0;
            }
            if (!anchorIsTrailer)
            {
                AddDamage(position, anchor - position, JournalDamageReason.BadHead, JournalDamageResolution.RegionSkipped, 0);
                AddRepair(RepairKind.Hole, position, anchor - position, default);
                position = anchor;
                continue;
            }
            if (recordStart > position)
            {
                AddDamage(position, recordStart - position, JournalDamageReason.BadHead, JournalDamageResolution.RegionSkipped, 0);
                AddRepair(RepairKind.Hole, position, recordStart - position, default);
            }
            long recordSize = anchor + JournalFormat.TrailerSize - recordStart;
            if (!JournalFormat.IsMessage(anchorSlot.Type) || PayloadMatches(recordStart + JournalFormat.HeadSize, anchorSlot.Length, fileLength, anchorSlot.PayloadCrc))
            {
                AddDamage(recordStart, JournalFormat.HeadSize, JournalDamageReason.BadHead, JournalDamageResolution.RecordRepaired, 0);
                AddRepair(RepairKind.RewriteHead, recordStart, recordSize, anchorSlot);
                Apply(anchorSlot, recordStart, withBody: true, headDamaged: true);
                intact++;
            }
            else
            {
                Apply(anchorSlot, recordStart, withBody: false);
                AddDamage(recordStart, recordSize, JournalDamageReason.BadHead, JournalDamageResolution.BodyLost, anchorSlot.SeqNum);
                AddRepair(RepairKind.Hole, recordStart, recordSize, default);
            }
            position = anchor + JournalFormat.TrailerSize;
        }

        if (answerFloorProcessed < state.ProcessedInbound)
        {
            state.ProcessedInbound = answerFloorProcessed;
            state.NextTarget = Math.Min(state.NextTarget, answerFloorTarget);
        }
        _state = state;
        _writtenState = default;
        _fileLength = end;
        _unsyncedRecords = 0;
        _oldestUnsyncedSeenAtNs = -1;
        _recordCount = readable;
        _lastRecordStart = lastRecordStart;
        _lastMessageSeq = lastMessageSeq;
        _window.Invalidate();
        if (damage is null)
        {
            LastRecoveryReport = null;
            if (!shared && fileLength == 0) WriteRecord(JournalRecordType.Reset, 0, default, state, durable: true, operation);
            if (_unsyncedRecords != 0) Sync(operation);
            AfterReplay(fromCheckpoint: CheckpointedJournalBytes > 0, damaged: false, tail);
            _window.Release();
            return;
        }

        JournalDamage? refusedAt = null;
        foreach (JournalDamage d in damage.Damages)
        {
            d.FollowedByValidRecord = readable > d.RecordsBefore;
            if (refusedAt is null && d.LostData && d.FollowedByValidRecord) refusedAt = d;
        }
        bool refuse = refusedAt is not null && _options.Recovery == StoreRecoveryPolicy.Refuse;
        string? copyPath = null;
        if (!shared && !refuse)
        {
            copyPath = PreserveCopy(fileLength, damage.Damages[0].Offset, operation);
            ApplyRepairs(damage.Repairs, operation);
            // The recovered state goes to the end of the readable data (over a damaged tail) before the tail is cut,
            // so no crash in between can lose it.
            _fileLength = end;
            WriteRecord(readable == 0 ? JournalRecordType.Reset : JournalRecordType.State, 0, default, state, durable: true, operation);
            try
            {
                if (fileLength > _fileLength) RandomAccess.SetLength(_handle, _fileLength);
            }
            catch (Exception e) when (IsMediumError(e))
            {
                Fault(operation, e);
            }
            // Under the OS policy the user chose page-cache durability: the repair is not forced to disk either.
            if (_options.SyncPolicy != FileStoreSyncPolicy.OS) Sync(operation);
            _window.Invalidate();
            // The repaired journal gets a fresh checkpoint (heads rewritten, holes laid: the old one may not fit it).
            AfterReplay(fromCheckpoint: false, damaged: true, null);
        }
        _window.Release();
        var report = new StoreRecoveryReport(JournalPath, _options.Recovery, fileLength, intact, damage.Damages, refuse, copyPath is not null, copyPath,
            _index.Count, _state.NextSender, _state.NextTarget, _state.ProcessedInbound);
        LastRecoveryReport = report;
        if (refuse)
        {
            JournalDamage d = refusedAt!;
            throw new MessageStoreException(
                $"The message store journal '{JournalPath}' is damaged at byte offset {d.Offset} (record {d.RecordNumber}: {d.Reason}, {d.Length} bytes; "
                    + $"last message before it MsgSeqNum {d.LastMessageSeqNumBefore}, first after it {(d.FirstMessageSeqNumAfter == 0 ? "none" : d.FirstMessageSeqNumAfter.ToString(CultureInfo.InvariantCulture))}) "
                    + $"and valid records follow ({damage.Damages.Count} damaged place(s) in all, see RecoveryReport). The store refused to open and changed nothing. "
                    + "To keep every valid record and answer resend requests for the lost messages with SequenceReset-GapFill, set FileStoreRecovery=RecoverAndGapFill "
                    + "(FileMessageStoreOptions.Recovery); the damaged file is copied aside before it is repaired.",
                JournalPath, operation, null, report);
        }
    }

    private static bool SameSlot(in JournalSlot a, in JournalSlot b) =>
        a.Type == b.Type && a.Length == b.Length && a.SeqNum == b.SeqNum && a.PayloadCrc == b.PayloadCrc && a.State.NextSender == b.State.NextSender
        && a.State.NextTarget == b.State.NextTarget && a.State.ProcessedInbound == b.State.ProcessedInbound && a.State.CreationTimeNs == b.State.CreationTimeNs;

    private bool TryReadSlotAt(long position, long fileLength, byte magic2, out JournalSlot slot)
    {
        slot = default;
        if (fileLength - position < JournalFormat.HeadSize) return false;
        if (!_window.TryGet(_handle, position, JournalFormat.HeadSize, fileLength, JournalPath, out ReadOnlySpan<byte> bytes)) return false;
        return JournalFormat.TryReadSlot(bytes, magic2, _options.MaxMessageLengthInBytes, out slot);
    }

    private bool PayloadMatches(long position, int length, long fileLength, uint payloadCrc)
    {
        if (length == 0) return payloadCrc == 0;
        return _window.TryGet(_handle, position, length, fileLength, JournalPath, out ReadOnlySpan<byte> payload) && JournalFormat.PayloadMatches(payload, payloadCrc);
    }

    // Scans forward from just after `position` for the next readable head, or a readable trailer whose record starts
    // at or after `position`. Every byte offset is tried, so damage that shifted bytes is survived too.
    private bool TryResync(long position, long fileLength, out long anchor, out bool isTrailer, out JournalSlot slot, out long recordStart)
    {
        for (long q = position + 1; q <= fileLength - JournalFormat.HeadSize; q++)
        {
            if (!_window.TryGet(_handle, q, JournalFormat.HeadSize, fileLength, JournalPath, out ReadOnlySpan<byte> bytes)) break;
            if (bytes[0] != JournalFormat.Magic0 || bytes[1] != JournalFormat.Magic1) continue;
            if (JournalFormat.TryReadSlot(bytes, JournalFormat.HeadMagic2, _options.MaxMessageLengthInBytes, out slot))
            {
                anchor = q;
                isTrailer = false;
                recordStart = q;
                return true;
            }
            if (JournalFormat.TryReadSlot(bytes, JournalFormat.TrailerMagic2, _options.MaxMessageLengthInBytes, out slot))
            {
                long start = q + JournalFormat.TrailerSize - JournalFormat.RecordSize(slot.Type, slot.Length);
                if (start >= position)
                {
                    anchor = q;
                    isTrailer = true;
                    recordStart = start;
                    return true;
                }
            }
        }
        anchor = 0;
        isTrailer = false;
        slot = default;
        recordStart = 0;
        return false;
    }

    // A format 1 record (journals written before format 2); returns its size, or 0 when there is none at `position`.
    private int TryReplayV1(long position, long fileLength, ref JournalState state, ref int lastMessageSeq)
    {
        if (fileLength - position < JournalFormatV1.HeaderSize) return 0;
        if (!_window.TryGet(_handle, position, JournalFormatV1.HeaderSize, fileLength, JournalPath, out ReadOnlySpan<byte> header)) return 0;
        int size = JournalFormatV1.TryReadHeader(header, _options.MaxMessageLengthInBytes, out byte type, out int seqNum, out int length);
        if (size == 0 || size > fileLength - position) return 0;
        if (!_window.TryGet(_handle, position, size, fileLength, JournalPath, out ReadOnlySpan<byte> record) || !JournalFormatV1.CrcMatches(record)) return 0;
        switch (type)
        {
            case 1:
            case 2:
                // Format 1 heads are not format 2 heads: the payload is indexed directly, with its length.
                _index.Set(seqNum, position + JournalFormatV1.HeaderSize, length);
                lastMessageSeq = seqNum;
                if (type == 2) state.NextSender = seqNum + 1;
                break;
            case 3:
                state.NextSender = seqNum;
                break;
            case 4:
                state.NextTarget = seqNum;
                break;
            default:
                _index.Clear();
                state = JournalState.Fresh(BinaryPrimitives.ReadInt64LittleEndian(record.Slice(JournalFormatV1.HeaderSize)));
                break;
        }
        return size;
    }

    // Copies the journal as found to <journal>.corrupt-<UTC time>[-n] before anything in it changes. The time is read
    // from the system clock: this names a forensic file on a rare path, it is not session logic.
    // Never fills the disk: the whole file is copied only when the volume keeps WholeCopyReserveBytes free after it (a
    // journal damaged by a full disk would otherwise fill it again); else only the bytes from the first damage on (the
    // only ones a repair changes) go to <journal>.corrupt-<time>.from-<offset>, if the volume keeps PartialCopyReserveBytes
    // free after them; else the store refuses to open and changes nothing.
    private const long WholeCopyReserveBytes = 1L << 20;
    private const long PartialCopyReserveBytes = 64L << 10;

    private string PreserveCopy(long fileLength, long firstDamageOffset, MessageStoreOperation operation)
    {
        string stamp = DateTime.UtcNow.ToString("yyyyMMdd'T'HHmmss'Z'", CultureInfo.InvariantCulture);
        long from = 0;
        long free = AvailableBytes(Path.GetDirectoryName(Path.GetFullPath(JournalPath))!);
        if (free - fileLength < WholeCopyReserveBytes)
        {
            from = Math.Clamp(firstDamageOffset, 0, fileLength);
            if (free - (fileLength - from) < PartialCopyReserveBytes)
            {
                throw new MessageStoreException(
                    $"The message store journal '{JournalPath}' is damaged at byte offset {firstDamageOffset} and must be repaired, but its volume has only {free} bytes free: "
                        + $"too little to preserve the damaged {fileLength - from} bytes first without filling it; nothing was changed. Free space and open it again.",
                    JournalPath, operation, null);
            }
            stamp += ".from-" + from.ToString(CultureInfo.InvariantCulture);
        }
        string copyPath = JournalPath + ".corrupt-" + stamp;
        for (int n = 2; File.Exists(copyPath); n++) copyPath = JournalPath + ".corrupt-" + stamp + "-" + n.ToString(CultureInfo.InvariantCulture);
        byte[] buffer = ArrayPool<byte>.Shared.Rent(64 * 1024);
        try
        {
            using SafeFileHandle copy = File.OpenHandle(copyPath, FileMode.CreateNew, FileAccess.Write, FileShare.None);
            long offset = from;
            while (offset < fileLength)
            {
                int n = RandomAccess.Read(_handle, buffer.AsSpan(0, (int)Math.Min(buffer.Length, fileLength - offset)), offset);
                if (n <= 0) break;
                RandomAccess.Write(copy, buffer.AsSpan(0, n), offset - from);
                offset += n;
            }
            if (_options.SyncPolicy != FileStoreSyncPolicy.OS) RandomAccess.FlushToDisk(copy);
        }
        catch (Exception e) when (IsMediumError(e))
        {
            throw new MessageStoreException(
                $"The message store journal '{JournalPath}' is damaged and must be repaired, but its copy '{copyPath}' could not be written ({e.Message}); nothing was changed.",
                JournalPath, operation, e);
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }
        return copyPath;
    }

    // Free bytes on the volume holding `directory`; unknown (no limit) when the platform cannot say.
    private static long AvailableBytes(string directory)
    {
        try
        {
            return new DriveInfo(directory).AvailableFreeSpace;
        }
        catch (Exception e) when (e is IOException or ArgumentException or UnauthorizedAccessException)
        {
            return long.MaxValue;
        }
    }

    private void ApplyRepairs(List<Repair> repairs, MessageStoreOperation operation)
    {
        Span<byte> slot = stackalloc byte[JournalFormat.HeadSize];
        foreach (Repair repair in repairs)
        {
            switch (repair.Kind)
            {
                case RepairKind.RewriteHead:
                    JournalFormat.WriteSlot(slot, JournalFormat.HeadMagic2, repair.Slot.Type, repair.Slot.Length, repair.Slot.SeqNum, repair.Slot.State, repair.Slot.PayloadCrc);
                    WriteAt(repair.Position, slot, operation);
                    break;
                case RepairKind.RewriteTrailer:
                    JournalFormat.WriteSlot(slot, JournalFormat.TrailerMagic2, repair.Slot.Type, repair.Slot.Length, repair.Slot.SeqNum, repair.Slot.State, repair.Slot.PayloadCrc);
                    WriteAt(repair.Position + repair.Size - JournalFormat.TrailerSize, slot, operation);
                    break;
                default:
                    // A region too short for a hole record (only possible when bytes were inserted or removed) stays
                    // as it is and is found again on the next open.
                    if (repair.Size < JournalFormat.Overhead) break;
                    int length = (int)Math.Min(repair.Size - JournalFormat.Overhead, int.MaxValue - JournalFormat.Overhead);
                    if (length != repair.Size - JournalFormat.Overhead) break;
                    JournalState none = default;
                    JournalFormat.WriteSlot(slot, JournalFormat.HeadMagic2, JournalRecordType.Hole, length, 0, none, 0);
                    WriteAt(repair.Position, slot, operation);
                    slot[2] = JournalFormat.TrailerMagic2;
                    WriteAt(repair.Position + repair.Size - JournalFormat.TrailerSize, slot, operation);
                    break;
            }
        }
    }

    private void WriteAt(long position, ReadOnlySpan<byte> bytes, MessageStoreOperation operation)
    {
        try
        {
            RandomAccess.Write(_handle, bytes, position);
        }
        catch (Exception e) when (IsMediumError(e))
        {
            Fault(operation, e);
        }
        _unsyncedRecords++;
    }
}
