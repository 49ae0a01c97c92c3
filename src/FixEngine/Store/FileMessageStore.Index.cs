using System;
using System.Buffers;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.IO;
using System.Runtime.CompilerServices;
using Microsoft.Win32.SafeHandles;

namespace FixEngine.Store;

// The index checkpoint: <journal>.index, a cache of the journal's index so that opening a long journal reads 4 bytes
// per message instead of replaying every record. It is never the authority: every part of it is checked against the
// journal before it is believed, anything that does not check out is ignored, and the journal after the part it
// covers is replayed as before (with the same damage handling). Deleting it only makes the next open slower.
//
// Layout (little-endian): a 16-byte header, then blocks appended as the session runs.
//   header: "FXIX" | version (1) | identity (the CRC of the journal's first record head) | CRC-32C of bytes [0, 12)
//   block:  "FXIB" | count | flags | firstSeq | base (i64) | from (i64) | end (i64) | anchorStart (i64) | anchorCrc
//           | records (i64) | lastMessageSeq | count x u32 offset from base | (flag 1) count x i32 seqNum | CRC-32C
// A block lists, in journal order, the message records in journal bytes [from, end), as record starts (base + offset);
// replaying the blocks in order through the index gives the index of the journal prefix [0, end). `from` must equal the
// previous block's `end` (0 for the first), so a lost or foreign block breaks the chain. A block is a stopping point
// unless flag 2 is set (a snapshot written in several blocks is one only at its last block); a stopping point is
// believed only if the journal holds, at anchorStart, a record head whose CRC is anchorCrc and whose record ends at
// `end` (and at position 0 a record whose head CRC is the header's identity). Blocks are written with one positional
// write each, every BlockEntries messages (under Batched/PerMessage sync only once what they cover is on disk), when the
// store is closed, and as a whole snapshot after a replay that did not start from a checkpoint or found damage.
// The file is never forced to disk: after a power loss, a block whose journal bytes did not survive fails its anchor.
public sealed partial class FileMessageStore
{
    /// <summary>The extension appended to the journal path for its index checkpoint.</summary>
    public const string IndexExtension = ".index";

    private const int BlockEntries = 1024;
    private const int IndexHeaderSize = 16;
    private const int BlockHeadSize = 72;
    private const uint IndexMagic = 0x58495846; // "FXIX"
    private const uint BlockMagic = 0x42495846; // "FXIB"
    private const int IndexVersion = 1;
    private const int FlagExplicitSeqNums = 1;
    private const int FlagNotStoppingPoint = 2;

    private SafeFileHandle? _indexHandle;
    private long _indexFileLength;
    private bool _indexUsable;
    private int[] _pendingSeqs = [];
    private long[] _pendingPositions = [];
    private int _pendingCount;
    private long _blockFrom;
    private long _lastRecordStart;
    private long _recordCount;
    private int _lastMessageSeq;
    private bool _legacyRecords;

    /// <summary>The full path of the index checkpoint beside the journal.</summary>
    public string IndexPath => JournalPath + IndexExtension;

    /// <summary>How the last open or <see cref="Refresh"/> rebuilt the index: the number of journal bytes it read from
    /// the index checkpoint instead of replaying them (0: it replayed the whole journal).</summary>
    public long CheckpointedJournalBytes { get; private set; }

    /// <summary>Messages a range read skipped because their record no longer checked out (head or payload CRC) since
    /// the store opened; the session answers them with SequenceReset-GapFill as it does lost bodies.</summary>
    public long DamagedMessagesSkipped { get; private set; }

    private void OpenIndexFile()
    {
        if (!_options.IndexCheckpoint || _options.SharedAccess) return;
        try
        {
            _indexHandle = File.OpenHandle(IndexPath, FileMode.OpenOrCreate, FileAccess.ReadWrite, FileShare.None);
            _indexFileLength = RandomAccess.GetLength(_indexHandle);
        }
        catch (Exception e) when (IsMediumError(e))
        {
            // A cache that cannot be opened is not used; the journal alone is the store.
            _indexHandle?.Dispose();
            _indexHandle = null;
        }
    }

    // Fills the index from the checkpoint and returns where replay continues: the end of the last believed block
    // (0 with a fresh state when nothing is believed).
    private long LoadCheckpoint(long journalLength, out JournalState state, out long records, out int lastMessageSeq, out long anchorStart)
    {
        state = JournalState.Fresh(_defaultCreationTimeEpochNs);
        records = 0;
        anchorStart = 0;
        lastMessageSeq = 0;
        CheckpointedJournalBytes = 0;
        if (_indexHandle is null || _indexFileLength < IndexHeaderSize + BlockHeadSize || journalLength < JournalFormat.Overhead) return 0;
        byte[] buffer = ArrayPool<byte>.Shared.Rent(BlockHeadSize + BlockEntries * 8 + 4);
        try
        {
            Span<byte> header = stackalloc byte[IndexHeaderSize];
            if (!ReadExactly(_indexHandle, header, 0)) return 0;
            if (BinaryPrimitives.ReadUInt32LittleEndian(header) != IndexMagic || BinaryPrimitives.ReadInt32LittleEndian(header.Slice(4)) != IndexVersion
                || Crc32C.Compute(header.Slice(0, 12)) != BinaryPrimitives.ReadUInt32LittleEndian(header.Slice(12))) return 0;
            if (!AnchorMatches(0, BinaryPrimitives.ReadUInt32LittleEndian(header.Slice(8)), -1, journalLength, out _)) return 0;

            // Pass 1: find the last stopping point of the unbroken, checked chain of blocks.
            long offset = IndexHeaderSize;
            long previousEnd = 0;
            long goodOffset = -1;
            long goodEnd = 0;
            long goodAnchor = 0;
            long goodRecords = 0;
            int goodLastSeq = 0;
            JournalState goodState = default;
            while (TryReadBlock(offset, buffer, out BlockInfo block))
            {
                if (block.From != previousEnd || block.End < block.From || block.End > journalLength) break;
                if (!block.StoppingPoint)
                {
                    previousEnd = block.End;
                    offset += block.Size;
                    continue;
                }
                if (!AnchorMatches(block.AnchorStart, block.AnchorCrc, block.End, journalLength, out JournalSlot anchor)) break;
                previousEnd = block.End;
                offset += block.Size;
                goodOffset = offset;
                goodEnd = block.End;
                goodAnchor = block.AnchorStart;
                goodRecords = block.Records;
                goodLastSeq = block.LastMessageSeq;
                goodState = anchor.State;
            }
            if (goodOffset < 0) return 0;

            // Pass 2: apply the believed blocks. Offsets beyond their block's end mean the block lies: start over.
            offset = IndexHeaderSize;
            while (offset < goodOffset)
            {
                if (!TryReadBlock(offset, buffer, out BlockInfo block)) return Abandon();
                ReadOnlySpan<byte> body = buffer.AsSpan(BlockHeadSize);
                bool explicitSeqs = (block.Flags & FlagExplicitSeqNums) != 0;
                for (int i = 0; i < block.Count; i++)
                {
                    long position = block.Base + BinaryPrimitives.ReadUInt32LittleEndian(body.Slice(i * 4));
                    int seq = explicitSeqs ? BinaryPrimitives.ReadInt32LittleEndian(body.Slice((block.Count + i) * 4)) : block.FirstSeq + i;
                    if (position + JournalFormat.Overhead > block.End || seq < 1) return Abandon();
                    _index.Set(seq, position);
                }
                offset += block.Size;
            }
            // Blocks after the believed ones (a torn last write, a broken chain) are cut off: new blocks follow the good ones.
            if (_indexFileLength > goodOffset) TruncateIndex(goodOffset);
            state = goodState;
            records = goodRecords;
            lastMessageSeq = goodLastSeq;
            anchorStart = goodAnchor;
            CheckpointedJournalBytes = goodEnd;
            return goodEnd;
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }

        long Abandon()
        {
            _index.Clear();
            return 0;
        }
    }

    private struct BlockInfo
    {
        public int Count;
        public int Flags;
        public int FirstSeq;
        public long Base;
        public long From;
        public long End;
        public long AnchorStart;
        public uint AnchorCrc;
        public long Records;
        public int LastMessageSeq;
        public long Size;

        public readonly bool StoppingPoint => (Flags & FlagNotStoppingPoint) == 0;
    }

    private bool TryReadBlock(long offset, byte[] buffer, out BlockInfo block)
    {
        block = default;
        if (_indexFileLength - offset < BlockHeadSize + 4) return false;
        Span<byte> head = buffer.AsSpan(0, BlockHeadSize);
        if (!ReadExactly(_indexHandle!, head, offset)) return false;
        if (BinaryPrimitives.ReadUInt32LittleEndian(head) != BlockMagic) return false;
        block.Count = BinaryPrimitives.ReadInt32LittleEndian(head.Slice(4));
        block.Flags = BinaryPrimitives.ReadInt32LittleEndian(head.Slice(8));
        if ((uint)block.Count > BlockEntries || (block.Flags & ~(FlagExplicitSeqNums | FlagNotStoppingPoint)) != 0) return false;
        int bodyLength = block.Count * ((block.Flags & FlagExplicitSeqNums) != 0 ? 8 : 4);
        block.Size = BlockHeadSize + bodyLength + 4;
        if (_indexFileLength - offset < block.Size) return false;
        if (!ReadExactly(_indexHandle!, buffer.AsSpan(BlockHeadSize, bodyLength + 4), offset + BlockHeadSize)) return false;
        if (Crc32C.Compute(buffer.AsSpan(0, BlockHeadSize + bodyLength)) != BinaryPrimitives.ReadUInt32LittleEndian(buffer.AsSpan(BlockHeadSize + bodyLength))) return false;
        block.FirstSeq = BinaryPrimitives.ReadInt32LittleEndian(head.Slice(12));
        block.Base = BinaryPrimitives.ReadInt64LittleEndian(head.Slice(16));
        block.From = BinaryPrimitives.ReadInt64LittleEndian(head.Slice(24));
        block.End = BinaryPrimitives.ReadInt64LittleEndian(head.Slice(32));
        block.AnchorStart = BinaryPrimitives.ReadInt64LittleEndian(head.Slice(40));
        block.AnchorCrc = BinaryPrimitives.ReadUInt32LittleEndian(head.Slice(48));
        block.Records = BinaryPrimitives.ReadInt64LittleEndian(head.Slice(52));
        block.LastMessageSeq = BinaryPrimitives.ReadInt32LittleEndian(head.Slice(60));
        return block.Base >= 0 && block.From >= 0 && block.AnchorStart >= 0 && block.Records >= 0;
    }

    // True when the journal holds at `start` a readable record head whose CRC is `crc` (and, unless `end` is -1, whose
    // record ends exactly at `end`). Hole records carry no state, so they never anchor.
    private bool AnchorMatches(long start, uint crc, long end, long journalLength, out JournalSlot slot)
    {
        slot = default;
        if (start < 0 || journalLength - start < JournalFormat.HeadSize) return false;
        Span<byte> head = stackalloc byte[JournalFormat.HeadSize];
        if (!ReadExactly(_handle, head, start)) return false;
        if (!JournalFormat.TryReadSlot(head, JournalFormat.HeadMagic2, _options.MaxMessageLengthInBytes, out slot) || slot.Type == JournalRecordType.Hole) return false;
        if (BinaryPrimitives.ReadUInt32LittleEndian(head.Slice(36)) != crc) return false;
        return end < 0 || start + JournalFormat.RecordSize(slot.Type, slot.Length) == end;
    }

    private static bool ReadExactly(SafeFileHandle handle, Span<byte> destination, long offset)
    {
        try
        {
            int read = 0;
            while (read < destination.Length)
            {
                int n = RandomAccess.Read(handle, destination.Slice(read), offset + read);
                if (n <= 0) return false;
                read += n;
            }
            return true;
        }
        catch (Exception e) when (IsMediumError(e))
        {
            return false;
        }
    }

    // After a replay: decides what the checkpoint file needs. `tail` lists the message records replayed after the
    // believed part, in journal order (null when the replay started at 0 or found damage).
    private void AfterReplay(bool fromCheckpoint, bool damaged, List<(int Seq, long Position)>? tail)
    {
        _pendingCount = 0;
        _blockFrom = 0;
        if (_indexHandle is null) return;
        _indexUsable = !_legacyRecords && !_index.HasExplicitLengths;
        if (!_indexUsable)
        {
            TruncateIndex(0);
            return;
        }
        if (fromCheckpoint && !damaged)
        {
            _blockFrom = CheckpointedJournalBytes;
            if (tail is not null)
            {
                foreach ((int seq, long position) in tail) AddPending(seq, position, bulk: true);
            }
            if (_pendingCount > 0) WriteBlocks(_pendingCount, notStoppingPoint: false);
            return;
        }
        WriteSnapshot();
    }

    // Rewrites the whole checkpoint from the in-memory index (main part, then the overlay), anchored at the journal end.
    private void WriteSnapshot()
    {
        TruncateIndex(0);
        _pendingCount = 0;
        _blockFrom = 0;
        for (int i = 0; i < _index.MainCount; i++) AddPending(_index.MainSeqNumAt(i), _index.MainPositionAt(i), bulk: true);
        if (_index.Overlay is { } overlay)
        {
            for (int i = 0; i < overlay.Count; i++) AddPending(overlay.SeqNumAt(i), overlay.PositionAt(i), bulk: true);
        }
        // The last block is the snapshot's one stopping point (possibly empty: a journal without messages).
        WriteBlocks(_pendingCount, notStoppingPoint: false);
    }

    // Notes a message record for the next block (the hot path: no allocation once the pending arrays are rented).
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void NotePending(int seq, long position)
    {
        if (!_indexUsable) return;
        AddPending(seq, position);
        if (_pendingCount >= BlockEntries) FlushPending(force: false);
    }

    // bulk: a snapshot or a replayed tail, written as it goes in blocks that are not stopping points.
    private void AddPending(int seq, long position, bool bulk = false)
    {
        if (_pendingCount > 0 && ((ulong)(position - _pendingPositions[0]) > uint.MaxValue || (bulk && _pendingCount >= BlockEntries)))
        {
            // Offsets are 32-bit from the block's first record: close the block before one that does not fit. Not a
            // stopping point: the record being added is already in the journal, so this block alone does not describe
            // the journal up to its end.
            WriteBlocks(_pendingCount, notStoppingPoint: true);
        }
        if (_pendingCount == _pendingSeqs.Length) GrowPending();
        _pendingSeqs[_pendingCount] = seq;
        _pendingPositions[_pendingCount] = position;
        _pendingCount++;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void GrowPending()
    {
        int capacity = Math.Max(BlockEntries, _pendingSeqs.Length * 2);
        int[] seqs = ArrayPool<int>.Shared.Rent(capacity);
        long[] positions = ArrayPool<long>.Shared.Rent(capacity);
        Array.Copy(_pendingSeqs, seqs, _pendingCount);
        Array.Copy(_pendingPositions, positions, _pendingCount);
        ReturnPending();
        _pendingSeqs = seqs;
        _pendingPositions = positions;
    }

    private void ReturnPending()
    {
        if (_pendingSeqs.Length != 0) ArrayPool<int>.Shared.Return(_pendingSeqs);
        if (_pendingPositions.Length != 0) ArrayPool<long>.Shared.Return(_pendingPositions);
        _pendingSeqs = [];
        _pendingPositions = [];
    }

    // Writes the pending records as blocks ending at the journal's current end. Under Batched and PerMessage a block
    // waits until what it covers is on disk (the next sync), unless forced (close, snapshot: then it covers only what
    // the caller made durable or the OS policy's page cache).
    [MethodImpl(MethodImplOptions.NoInlining)]
    private void FlushPending(bool force)
    {
        if (_indexHandle is null || !_indexUsable) return;
        if (!force && _unsyncedRecords != 0 && _options.SyncPolicy != FileStoreSyncPolicy.OS) return;
        if (_pendingCount == 0 && _blockFrom == _fileLength) return;
        WriteBlocks(_pendingCount, notStoppingPoint: false);
    }

    // Writes pending entries [0, count) as one or more blocks; the last one a stopping point unless told otherwise.
    private void WriteBlocks(int count, bool notStoppingPoint)
    {
        if (_indexHandle is null || !_indexUsable) return;
        Span<byte> anchorHead = stackalloc byte[JournalFormat.HeadSize];
        uint anchorCrc = 0;
        if (!notStoppingPoint)
        {
            // The anchor is read back from the journal, so a block never vouches for a record the file does not hold.
            if (!ReadExactly(_handle, anchorHead, _lastRecordStart)
                || !JournalFormat.TryReadSlot(anchorHead, JournalFormat.HeadMagic2, _options.MaxMessageLengthInBytes, out JournalSlot slot)
                || _lastRecordStart + JournalFormat.RecordSize(slot.Type, slot.Length) != _fileLength)
            {
                DisableIndex();
                return;
            }
            anchorCrc = BinaryPrimitives.ReadUInt32LittleEndian(anchorHead.Slice(36));
        }
        if (_indexFileLength == 0 && !WriteIndexHeader()) return;
        byte[] buffer = ArrayPool<byte>.Shared.Rent(BlockHeadSize + BlockEntries * 8 + 4);
        try
        {
            int start = 0;
            do
            {
                int n = Math.Min(BlockEntries, count - start);
                bool last = start + n == count;
                // Every pending position lies within 4 GiB above the first one (AddPending), so offsets from the
                // block's lowest position fit 32 bits.
                long basePosition = n == 0 ? 0 : _pendingPositions[start];
                for (int i = 1; i < n; i++) basePosition = Math.Min(basePosition, _pendingPositions[start + i]);
                bool contiguous = true;
                for (int i = 1; i < n; i++)
                {
                    if (_pendingSeqs[start + i] != _pendingSeqs[start] + i)
                    {
                        contiguous = false;
                        break;
                    }
                }
                int flags = (contiguous ? 0 : FlagExplicitSeqNums) | (last && !notStoppingPoint ? 0 : FlagNotStoppingPoint);
                Span<byte> head = buffer.AsSpan(0, BlockHeadSize);
                head.Clear();
                BinaryPrimitives.WriteUInt32LittleEndian(head, BlockMagic);
                BinaryPrimitives.WriteInt32LittleEndian(head.Slice(4), n);
                BinaryPrimitives.WriteInt32LittleEndian(head.Slice(8), flags);
                BinaryPrimitives.WriteInt32LittleEndian(head.Slice(12), n == 0 ? 0 : _pendingSeqs[start]);
                BinaryPrimitives.WriteInt64LittleEndian(head.Slice(16), basePosition);
                BinaryPrimitives.WriteInt64LittleEndian(head.Slice(24), _blockFrom);
                BinaryPrimitives.WriteInt64LittleEndian(head.Slice(32), _fileLength);
                BinaryPrimitives.WriteInt64LittleEndian(head.Slice(40), _lastRecordStart);
                BinaryPrimitives.WriteUInt32LittleEndian(head.Slice(48), anchorCrc);
                BinaryPrimitives.WriteInt64LittleEndian(head.Slice(52), _recordCount);
                BinaryPrimitives.WriteInt32LittleEndian(head.Slice(60), _lastMessageSeq);
                Span<byte> body = buffer.AsSpan(BlockHeadSize);
                for (int i = 0; i < n; i++) BinaryPrimitives.WriteUInt32LittleEndian(body.Slice(i * 4), (uint)(_pendingPositions[start + i] - basePosition));
                if (!contiguous)
                {
                    for (int i = 0; i < n; i++) BinaryPrimitives.WriteInt32LittleEndian(body.Slice((n + i) * 4), _pendingSeqs[start + i]);
                }
                int size = BlockHeadSize + n * (contiguous ? 4 : 8);
                BinaryPrimitives.WriteUInt32LittleEndian(buffer.AsSpan(size), Crc32C.Compute(buffer.AsSpan(0, size)));
                if (!WriteIndex(buffer.AsSpan(0, size + 4), _indexFileLength)) return;
                _indexFileLength += size + 4;
                _blockFrom = _fileLength;
                start += n;
            }
            while (start < count);
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }
        // Entries after `count` (none but in a snapshot split) move to the front.
        int rest = _pendingCount - count;
        if (rest > 0)
        {
            Array.Copy(_pendingSeqs, count, _pendingSeqs, 0, rest);
            Array.Copy(_pendingPositions, count, _pendingPositions, 0, rest);
        }
        _pendingCount = rest;
    }

    private bool WriteIndexHeader()
    {
        Span<byte> head = stackalloc byte[JournalFormat.HeadSize];
        if (!ReadExactly(_handle, head, 0) || !JournalFormat.TryReadSlot(head, JournalFormat.HeadMagic2, _options.MaxMessageLengthInBytes, out _))
        {
            DisableIndex();
            return false;
        }
        Span<byte> header = stackalloc byte[IndexHeaderSize];
        BinaryPrimitives.WriteUInt32LittleEndian(header, IndexMagic);
        BinaryPrimitives.WriteInt32LittleEndian(header.Slice(4), IndexVersion);
        BinaryPrimitives.WriteUInt32LittleEndian(header.Slice(8), BinaryPrimitives.ReadUInt32LittleEndian(head.Slice(36)));
        BinaryPrimitives.WriteUInt32LittleEndian(header.Slice(12), Crc32C.Compute(header.Slice(0, 12)));
        if (!WriteIndex(header, 0)) return false;
        _indexFileLength = IndexHeaderSize;
        return true;
    }

    private bool WriteIndex(ReadOnlySpan<byte> bytes, long offset)
    {
        try
        {
            RandomAccess.Write(_indexHandle!, bytes, offset);
            return true;
        }
        catch (Exception e) when (IsMediumError(e))
        {
            // The checkpoint is a cache: a failed write (disk full) stops it for this session period; the journal,
            // written first, stays the authority and the next open replays what the checkpoint misses.
            DisableIndex();
            return false;
        }
    }

    private void TruncateIndex(long length)
    {
        if (_indexHandle is null) return;
        try
        {
            RandomAccess.SetLength(_indexHandle, length);
            _indexFileLength = length;
        }
        catch (Exception e) when (IsMediumError(e))
        {
            DisableIndex();
        }
    }

    private void DisableIndex()
    {
        _indexUsable = false;
        _pendingCount = 0;
        if (_indexHandle is null) return;
        try
        {
            // An empty checkpoint is ignored by the next open; a half-written one would be checked and cut anyway.
            RandomAccess.SetLength(_indexHandle, 0);
            _indexFileLength = 0;
        }
        catch (Exception e) when (IsMediumError(e))
        {
            // Nothing more to do: its blocks are checked against the journal before anything in them is believed.
        }
    }

    private void CloseIndex()
    {
        if (_indexHandle is not null && _indexUsable && _fault is null) FlushPending(force: true);
        _indexHandle?.Dispose();
        _indexHandle = null;
        ReturnPending();
    }

    /// <summary>Test seam: closes the store as a killed process leaves it (the index entries since the last written
    /// block are not written; the journal holds everything written).</summary>
    internal void AbandonForTesting()
    {
        _indexUsable = false;
        _pendingCount = 0;
        Dispose();
    }

    /// <summary>Bytes of pooled memory the index holds right now.</summary>
    internal long IndexRetainedBytes => _index.RetainedBytes;

    /// <summary>Index segments holding 64-bit positions (their records span more than narrow offsets reach).</summary>
    internal int IndexWideSegments => _index.WideSegments;

    /// <summary>The path the current incarnation's journal gets in <see cref="FileMessageStoreOptions.ArchiveDirectory"/>.</summary>
    private string ArchivePath()
    {
        string stamp = DateTimeOffset.FromUnixTimeMilliseconds(_state.CreationTimeNs / 1_000_000).UtcDateTime
            .ToString("yyyyMMdd'T'HHmmss'Z'", System.Globalization.CultureInfo.InvariantCulture);
        string name = Path.GetFileNameWithoutExtension(JournalPath);
        string folder = Path.GetFullPath(_options.ArchiveDirectory!);
        string path = Path.Combine(folder, name + "." + stamp + JournalExtension);
        for (int n = 2; File.Exists(path); n++) path = Path.Combine(folder, name + "." + stamp + "-" + n.ToString(System.Globalization.CultureInfo.InvariantCulture) + JournalExtension);
        return path;
    }

    // Moves the journal to the archive folder (rename on the same volume, else copy), then leaves the store on a new,
    // empty journal at JournalPath; Reset writes the reset record into it. Changes nothing when it fails.
    private void ArchiveJournal()
    {
        string target;
        try
        {
            Directory.CreateDirectory(Path.GetFullPath(_options.ArchiveDirectory!));
            target = ArchivePath();
        }
        catch (Exception e) when (IsMediumError(e) || e is ArgumentException)
        {
            throw new MessageStoreException($"Archiving the message store journal '{JournalPath}' to '{_options.ArchiveDirectory}' failed: {e.Message}; the journal was not reset.",
                JournalPath, MessageStoreOperation.Reset, e);
        }
        if (_unsyncedRecords != 0) Sync(MessageStoreOperation.Reset);
        SafeFileHandle? fresh = null;
        try
        {
            File.Move(JournalPath, target);
            try
            {
                fresh = File.OpenHandle(JournalPath, FileMode.CreateNew, FileAccess.ReadWrite, FileShare.None);
            }
            catch
            {
                File.Move(target, JournalPath);
                throw;
            }
        }
        catch (Exception e) when (IsMediumError(e))
        {
            // Another volume (or a platform that does not rename open files): copy the bytes, then Reset truncates.
            fresh?.Dispose();
            fresh = null;
            CopyJournalTo(target);
        }
        if (fresh is not null)
        {
            CloseJournalDescriptor();
            _handle = fresh;
            _window.Invalidate();
        }
        if (_options.SyncPolicy != FileStoreSyncPolicy.OS)
        {
            FlushFolder(Path.GetDirectoryName(target)!);
        }
        LastArchivedJournalPath = target;
    }

    private void CopyJournalTo(string target)
    {
        byte[] buffer = ArrayPool<byte>.Shared.Rent(1 << 20);
        try
        {
            using SafeFileHandle copy = File.OpenHandle(target, FileMode.CreateNew, FileAccess.Write, FileShare.None);
            long offset = 0;
            while (offset < _fileLength)
            {
                int n = RandomAccess.Read(_handle, buffer.AsSpan(0, (int)Math.Min(buffer.Length, _fileLength - offset)), offset);
                if (n <= 0) break;
                RandomAccess.Write(copy, buffer.AsSpan(0, n), offset);
                offset += n;
            }
            if (_options.SyncPolicy != FileStoreSyncPolicy.OS) RandomAccess.FlushToDisk(copy);
        }
        catch (Exception e) when (IsMediumError(e))
        {
            try
            {
                File.Delete(target);
            }
            catch (Exception cleanup) when (IsMediumError(cleanup))
            {
                // The partial copy stays; the journal itself is untouched.
            }
            throw new MessageStoreException($"Archiving the message store journal '{JournalPath}' to '{target}' failed: {e.Message}; the journal was not reset.",
                JournalPath, MessageStoreOperation.Reset, e);
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }
    }

    // A rename is durable once its folder is; best effort (not every platform opens folders).
    private static void FlushFolder(string folder)
    {
        try
        {
            using SafeFileHandle handle = File.OpenHandle(folder, FileMode.Open, FileAccess.Read);
            RandomAccess.FlushToDisk(handle);
        }
        catch (Exception e) when (IsMediumError(e))
        {
            // The journal's own sync policy still holds for the records; only the name's durability is left to the OS.
        }
    }

    /// <summary>The archived journal the last <see cref="Reset"/> produced (with
    /// <see cref="FileMessageStoreOptions.ArchiveDirectory"/>), or null.</summary>
    public string? LastArchivedJournalPath { get; private set; }
}
