using System;
using System.Buffers;
using System.Diagnostics.CodeAnalysis;
using System.IO;
using System.Runtime.CompilerServices;
using Microsoft.Win32.SafeHandles;

namespace FixEngine.Store;

/// <summary>A persistent <see cref="IMessageStore"/>: one append-only journal file per session, replayed on open.</summary>
/// <remarks>
/// Not thread-safe: one owner thread (the session's); no background thread. Each state change is one record (see the
/// journal layout on the internal JournalFormat type) written with one positional write from a reusable pooled buffer,
/// so steady-state appends allocate nothing. Every record carries the whole sequence state (next sender, next target,
/// processed-inbound mark, creation time) twice, in its head and in its trailer, each copy with its own CRC, and its
/// payload has a CRC of its own: the state survives a torn or damaged message record, so losing a message body never
/// rewinds a sequence number. Opening replays the journal to rebuild the state and an index from sequence number to
/// file position. Damage never deletes a valid record after it: replay resynchronises on the next readable record
/// (records carry magic bytes), repairs what it can from the twin copies, and then, for damage that lost data in the
/// middle of the journal, follows <see cref="FileMessageStoreOptions.Recovery"/> (refuse to open, or keep the valid
/// records and gap-fill the lost ones). Before changing a damaged file it copies it to
/// <c>&lt;journal&gt;.corrupt-&lt;UTC time&gt;</c> (only its damaged part when the volume is nearly full, see
/// <see cref="StoreRecoveryReport.PreservedCopyPath"/>); what it found and did is in <see cref="LastRecoveryReport"/>.
/// Resend reads go through the index and a pooled read window. <see cref="Reset"/> compacts the journal to a single
/// reset record. The file is opened without sharing, so a second store (or process) cannot open the same session's
/// journal, unless <see cref="FileMessageStoreOptions.SharedAccess"/> is set (warm standby, see there).
/// Failures of the file system surface as <see cref="MessageStoreException"/>; after a failed write or flush the store
/// is faulted (see there).
/// What survives what: a process crash loses nothing under any sync policy (each record reaches the page cache before
/// the call returns). A power loss or kernel crash loses the records not yet forced to disk (none of the outbound ones
/// under <see cref="FileStoreSyncPolicy.PerMessage"/>); a record torn by it keeps its sequence state if its head or
/// trailer reached the disk. The sequence numbers fall back to the previous record only when both copies of the last
/// record's state are destroyed. A slot forged inside a message body (binary data that happens to carry a magic, a
/// plausible length and a matching CRC) could mislead a resynchronisation; ASCII fields cannot contain the magic byte 0xF1.
/// </remarks>
public sealed partial class FileMessageStore : IMessageStore
{
    /// <summary>The extension of journal files.</summary>
    public const string JournalExtension = ".journal";

    private readonly FileMessageStoreOptions _options;
    private SafeFileHandle _handle = null!;
    private readonly JournalIndex _index;
    private readonly JournalWindow _window = new();
    private readonly long _defaultCreationTimeEpochNs;
    private byte[] _writeBuffer = ArrayPool<byte>.Shared.Rent(4096);
    private long _fileLength;
    private JournalState _state;
    // The state the last record written carries (default, which no record carries, after an open or a refresh): it can be
    // ahead of _state by the inbound number an answer consumed (AppendAndIncrement), and a SetNextTargetMsgSeqNum that
    // reaches it writes nothing.
    private JournalState _writtenState;
    private int _unsyncedRecords;
    private long _oldestUnsyncedSeenAtNs = -1;
    private MessageStoreException? _fault;
    private bool _disposed;

    /// <summary>Opens (or creates) the journal of <paramref name="sessionId"/> in <paramref name="directory"/> and replays it.</summary>
    /// <param name="directory">The folder holding journals; created if missing.</param>
    /// <param name="sessionId">The session identity (e.g. "FIX.4.4:SENDER->TARGET"); unsafe file name characters become '_'.</param>
    /// <param name="nowEpochNs">Creation time to record if the journal is new or nothing valid survives in it.</param>
    /// <param name="options">Sync policy, recovery policy and limits; defaults when null.</param>
    /// <exception cref="MessageStoreException">The folder cannot be created, the journal cannot be opened (another store
    /// holds it, no permission, read-only file system, I/O error) or written, or it is damaged and
    /// <see cref="FileMessageStoreOptions.Recovery"/> is <see cref="StoreRecoveryPolicy.Refuse"/>.</exception>
    public FileMessageStore(string directory, string sessionId, long nowEpochNs, FileMessageStoreOptions? options = null)
        : this(GetJournalPath(directory, sessionId), nowEpochNs, options)
    {
    }

    /// <summary>Opens (or creates) the journal at <paramref name="journalPath"/> and replays it.</summary>
    /// <param name="journalPath">The journal file; its folder is created if missing.</param>
    /// <param name="nowEpochNs">Creation time to record if the journal is new or nothing valid survives in it.</param>
    /// <param name="options">Sync policy, recovery policy and limits; defaults when null.</param>
    /// <exception cref="MessageStoreException">The folder cannot be created, the journal cannot be opened (another store
    /// holds it, no permission, read-only file system, I/O error) or written, or it is damaged and
    /// <see cref="FileMessageStoreOptions.Recovery"/> is <see cref="StoreRecoveryPolicy.Refuse"/>.</exception>
    public FileMessageStore(string journalPath, long nowEpochNs, FileMessageStoreOptions? options = null)
    {
        ArgumentException.ThrowIfNullOrEmpty(journalPath);
        _options = options ?? new FileMessageStoreOptions();
        _options.Validate();
        _index = new JournalIndex(_options.InitialIndexCapacity);
        JournalPath = Path.GetFullPath(journalPath);
        _defaultCreationTimeEpochNs = nowEpochNs;
        _state = JournalState.Fresh(nowEpochNs);
        try
        {
            string? folder = Path.GetDirectoryName(JournalPath);
            if (!string.IsNullOrEmpty(folder)) Directory.CreateDirectory(folder);
            _handle = File.OpenHandle(JournalPath, FileMode.OpenOrCreate, FileAccess.ReadWrite, _options.SharedAccess ? FileShare.ReadWrite : FileShare.None);
            OpenIndexFile();
        }
        catch (Exception e) when (IsMediumError(e))
        {
            _disposed = true;
            _window.Dispose();
            ReturnWriteBuffer();
            _index.Release();
            _handle?.Dispose();
            throw new MessageStoreException($"Cannot open the message store journal '{JournalPath}': {e.Message}", JournalPath, MessageStoreOperation.Open, e);
        }
        try
        {
            Replay(MessageStoreOperation.Open);
        }
        catch
        {
            DisposeCore(flush: false);
            throw;
        }
    }

    /// <summary>The full path of the journal file.</summary>
    public string JournalPath { get; }

    /// <summary>The sync policy in force.</summary>
    public FileStoreSyncPolicy SyncPolicy => _options.SyncPolicy;

    /// <summary>The logical length of the journal in bytes (everything written so far).</summary>
    public long JournalLengthInBytes => _fileLength;

    /// <summary>The number of messages currently indexed.</summary>
    public int MessageCount => _index.Count;

    /// <inheritdoc/>
    public StoreRecoveryReport? LastRecoveryReport { get; private set; }

    /// <summary>True after a write or flush failed: every later write throws <see cref="MessageStoreException"/>
    /// (reads still work); dispose the store and open it again.</summary>
    public bool IsFaulted => _fault is not null;

    /// <summary>The number of records written since the journal was last forced to disk.</summary>
    public int UnsyncedRecordCount => _unsyncedRecords;

    /// <inheritdoc/>
    public int NextSenderMsgSeqNum => _state.NextSender;

    /// <inheritdoc/>
    public int NextTargetMsgSeqNum => _state.NextTarget;

    /// <inheritdoc/>
    public long CreationTimeEpochNs => _state.CreationTimeNs;

    /// <inheritdoc/>
    public int LastProcessedInboundSeqNum => _state.ProcessedInbound;

    /// <summary>Builds the journal path for a session: <paramref name="directory"/>/&lt;sanitised id&gt;.journal.</summary>
    /// <param name="directory">The folder holding journals.</param>
    /// <param name="sessionId">The session identity; characters other than letters, digits, '.', '-' and '_' become '_'.</param>
    /// <returns>The journal file path.</returns>
    public static string GetJournalPath(string directory, string sessionId)
    {
        ArgumentException.ThrowIfNullOrEmpty(directory);
        ArgumentException.ThrowIfNullOrEmpty(sessionId);
        return Path.Combine(directory, string.Create(sessionId.Length, sessionId, static (span, id) =>
        {
            for (int i = 0; i < id.Length; i++)
            {
                char c = id[i];
                span[i] = char.IsAsciiLetterOrDigit(c) || c is '.' or '-' or '_' ? c : '_';
            }
        }) + JournalExtension);
    }

    /// <inheritdoc/>
    /// <exception cref="MessageStoreException">The journal could not be written (the store is then faulted).</exception>
    public void SetNextSenderMsgSeqNum(int value)
    {
        if (value < 1) Internal.ThrowHelper.ThrowSeqNumOutOfRange(nameof(value), value);
        JournalState state = _state;
        state.NextSender = value;
        WriteRecord(JournalRecordType.State, 0, default, state, durable: true, MessageStoreOperation.UpdateState);
    }

    /// <inheritdoc/>
    /// <exception cref="MessageStoreException">The journal could not be written (the store is then faulted).</exception>
    public void SetNextTargetMsgSeqNum(int value)
    {
        if (value < 1) Internal.ThrowHelper.ThrowSeqNumOutOfRange(nameof(value), value);
        JournalState state = _state;
        state.NextTarget = value;
        if (SameState(state, _writtenState) && !_options.SharedAccess)
        {
            // The last record already carries this state (an answer's record took the inbound number it consumed): a
            // second record would say the same, so none is written, and a parked journal stays parked.
            if (_disposed) Internal.ThrowHelper.ThrowObjectDisposed(nameof(FileMessageStore));
            if (_fault is not null) ThrowFaulted(MessageStoreOperation.UpdateState);
            _state = state;
            return;
        }
        WriteRecord(JournalRecordType.State, 0, default, state, durable: false, MessageStoreOperation.UpdateState);
    }

    /// <inheritdoc/>
    /// <exception cref="MessageStoreException">The journal could not be written (the store is then faulted).</exception>
    public void IncrNextSenderMsgSeqNum()
    {
        if (_state.NextSender == int.MaxValue) Internal.ThrowHelper.ThrowSeqNumOverflow();
        SetNextSenderMsgSeqNum(_state.NextSender + 1);
    }

    /// <inheritdoc/>
    /// <exception cref="MessageStoreException">The journal could not be written (the store is then faulted).</exception>
    public void IncrNextTargetMsgSeqNum()
    {
        if (_state.NextTarget == int.MaxValue) Internal.ThrowHelper.ThrowSeqNumOverflow();
        SetNextTargetMsgSeqNum(_state.NextTarget + 1);
    }

    /// <inheritdoc/>
    /// <exception cref="MessageStoreException">The journal could not be written (the store is then faulted).</exception>
    public void SetLastProcessedInboundSeqNum(int value)
    {
        if (value < 0) Internal.ThrowHelper.ThrowProcessedOutOfRange(nameof(value), value);
        JournalState state = _state;
        state.ProcessedInbound = value;
        WriteRecord(JournalRecordType.State, 0, default, state, durable: true, MessageStoreOperation.UpdateState);
    }

    /// <inheritdoc/>
    /// <exception cref="ArgumentException">The message is longer than <see cref="FileMessageStoreOptions.MaxMessageLengthInBytes"/>.</exception>
    /// <exception cref="MessageStoreException">The journal could not be written (the store is then faulted).</exception>
    public void Append(int seqNum, ReadOnlySpan<byte> message)
    {
        if (seqNum < 1) Internal.ThrowHelper.ThrowSeqNumOutOfRange(nameof(seqNum), seqNum);
        if (message.Length > _options.MaxMessageLengthInBytes) Internal.ThrowHelper.ThrowMessageTooLarge(message.Length, _options.MaxMessageLengthInBytes);
        long recordPosition = _fileLength;
        Span<byte> layout = stackalloc byte[ResendLayout.Size];
        JournalRecordType type = LayOut(message, layout);
        WriteRecord(type, seqNum, layout.Slice(0, JournalFormat.MessageOffset(type)), message, _state, _state, durable: true, MessageStoreOperation.Append);
        IndexAppended(seqNum, recordPosition);
    }

    /// <inheritdoc/>
    /// <exception cref="ArgumentException">The message is longer than <see cref="FileMessageStoreOptions.MaxMessageLengthInBytes"/>.</exception>
    /// <exception cref="MessageStoreException">The journal could not be written (the store is then faulted).</exception>
    public void AppendAndIncrement(int seqNum, ReadOnlySpan<byte> message) => AppendAndIncrement(seqNum, message, _state.ProcessedInbound);

    /// <inheritdoc/>
    /// <exception cref="ArgumentException">The message is longer than <see cref="FileMessageStoreOptions.MaxMessageLengthInBytes"/>.</exception>
    /// <exception cref="MessageStoreException">The journal could not be written (the store is then faulted).</exception>
    public void AppendAndIncrement(int seqNum, ReadOnlySpan<byte> message, int processedInboundSeqNum) =>
        AppendAndIncrement(seqNum, message, processedInboundSeqNum, default);

    /// <summary><see cref="AppendAndIncrement(int, ReadOnlySpan{byte}, int)"/> for a message whose resend layout its
    /// encoder knows (<paramref name="encoded"/>, from the session's header writer): taken when it checks out against
    /// the message, so the append does not read the header back; otherwise worked out from the message.</summary>
    internal void AppendAndIncrement(int seqNum, ReadOnlySpan<byte> message, int processedInboundSeqNum, in ResendLayout encoded)
    {
        if (seqNum < 1) Internal.ThrowHelper.ThrowSeqNumOutOfRange(nameof(seqNum), seqNum);
        if (seqNum == int.MaxValue) Internal.ThrowHelper.ThrowSeqNumOverflow();
        if (processedInboundSeqNum < 0) Internal.ThrowHelper.ThrowProcessedOutOfRange(nameof(processedInboundSeqNum), processedInboundSeqNum);
        if (message.Length > _options.MaxMessageLengthInBytes) Internal.ThrowHelper.ThrowMessageTooLarge(message.Length, _options.MaxMessageLengthInBytes);
        long recordPosition = _fileLength;
        JournalState state = _state;
        state.NextSender = seqNum + 1;
        state.ProcessedInbound = processedInboundSeqNum;
        // An answer to the inbound message the session expects: its processed mark says the message is consumed, so the
        // record also carries the next inbound number, and the session's IncrNextTargetMsgSeqNum after the answer (its
        // state then equals this record's) writes no record of its own: one write per answered message instead of two.
        // In memory the number moves only with that call. A restart between the two finds the message consumed, as
        // the processed mark alone would have had it (the session then asked for it again and dropped it).
        JournalState written = state;
        if (processedInboundSeqNum != 0 && processedInboundSeqNum == state.NextTarget && processedInboundSeqNum != int.MaxValue) written.NextTarget = processedInboundSeqNum + 1;
        Span<byte> layout = stackalloc byte[ResendLayout.Size];
        JournalRecordType type = encoded.FitsEncoded(message) ? LaidOut(encoded, layout) : LayOut(message, layout);
        WriteRecord(type, seqNum, layout.Slice(0, JournalFormat.MessageOffset(type)), message, written, state, durable: true, MessageStoreOperation.Append);
        IndexAppended(seqNum, recordPosition);
    }

    // The record type for `message`: LaidOutMessage with its resend layout written into `layout` when the layout is known
    // (a resend then neither reads the stored header nor sums the body), else Message.
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static JournalRecordType LayOut(ReadOnlySpan<byte> message, Span<byte> layout)
    {
        if (!ResendLayout.TryCompute(message, out ResendLayout known)) return JournalRecordType.Message;
        known.Write(layout);
        return JournalRecordType.LaidOutMessage;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static JournalRecordType LaidOut(in ResendLayout known, Span<byte> layout)
    {
        known.Write(layout);
        return JournalRecordType.LaidOutMessage;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void IndexAppended(int seqNum, long recordPosition)
    {
        _index.Set(seqNum, recordPosition);
        _lastMessageSeq = seqNum;
        NotePending(seqNum, recordPosition);
    }

    /// <inheritdoc/>
    /// <remarks>Messages are streamed through a pooled window (one read syscall per 64 KiB of journal), never gathered:
    /// a resend of any length holds one window. Each record's head and payload CRCs are checked again as it is read; a
    /// record that no longer checks out (damaged on disk after the store opened) is skipped, so the session gap-fills
    /// it, and counted in <see cref="DamagedMessagesSkipped"/>. No allocation once the pools are warm.</remarks>
    public int ReadRange<THandler>(int beginSeqNo, int endSeqNo, ref THandler handler) where THandler : struct, IStoredMessageHandler
    {
        var laidOut = new LayoutIgnored<THandler>(handler);
        try
        {
            return ReadRangeLaidOut(beginSeqNo, endSeqNo, 0, ref laidOut);
        }
        finally
        {
            handler = laidOut.Inner;
        }
    }

    /// <summary><see cref="ReadRange{THandler}"/> for a handler that also takes each message's <see cref="ResendLayout"/>
    /// (default when its record has none: a message stored before layouts were recorded, or one they do not describe).</summary>
    /// <param name="beginSeqNo">First sequence number wanted.</param>
    /// <param name="endSeqNo">Last sequence number wanted; 0: no upper bound.</param>
    /// <param name="expectedMessages">How many messages the handler takes before it stops (0: unknown): the journal is
    /// read no further than the record of the first message after those (a replay step takes a fixed number, and the
    /// window is released after it).</param>
    /// <param name="handler">Receives each message and its layout.</param>
    // Optimised at its first call, never tiered (the session's replay compiles it ahead on a pool thread: ReplayCompilation).
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    internal int ReadRangeLaidOut<THandler>(int beginSeqNo, int endSeqNo, int expectedMessages, ref THandler handler) where THandler : struct, ILaidOutMessageHandler
    {
        if (_disposed) Internal.ThrowHelper.ThrowObjectDisposed(nameof(FileMessageStore));
        Touch(MessageStoreOperation.Read);
        uint last = endSeqNo <= 0 ? uint.MaxValue : (uint)endSeqNo;
        int begin = Math.Max(beginSeqNo, 1);
        int delivered = 0;
        int i = _index.MainLowerBound(begin);
        int mainCount = _index.MainCount;
        MessageIndex? overlay = _index.Overlay;
        int j = overlay?.LowerBound(begin) ?? 0;
        int overlayCount = overlay?.Count ?? 0;
        // Where the handler's last expected message ends at the latest: the position of the next indexed one.
        long readEnd = long.MaxValue;
        if (expectedMessages > 0 && overlay is null && mainCount - i > expectedMessages) readEnd = _index.MainPositionAt(i + expectedMessages);
        try
        {
            while (true)
            {
                int seqNum;
                long position;
                int length;
                if (i < mainCount && (j >= overlayCount || _index.MainSeqNumAt(i) < overlay!.SeqNumAt(j)))
                {
                    seqNum = _index.MainSeqNumAt(i);
                    position = _index.MainPositionAt(i);
                    length = _index.MainLengthAt(i);
                    i++;
                }
                else if (j < overlayCount)
                {
                    seqNum = overlay!.SeqNumAt(j);
                    position = overlay.PositionAt(j);
                    length = overlay.LengthAt(j);
                    j++;
                }
                else
                {
                    break;
                }
                if ((uint)seqNum > last) break;
                if (!TryReadMessage(seqNum, position, length, readEnd, out ReadOnlySpan<byte> bytes, out ResendLayout layout)) continue;
                delivered++;
                if (!handler.OnMessage(seqNum, bytes, in layout)) break;
            }
        }
        finally
        {
            _window.Release();
        }
        return delivered;
    }

    /// <summary>Journal bytes read into the read window so far, by opens, refreshes and range reads (the owner's thread;
    /// diagnostics and tests).</summary>
    internal long JournalBytesLoaded => _window.BytesLoaded;

    /// <summary>A public handler under <see cref="ReadRangeLaidOut{THandler}"/>: the layout is not passed on.</summary>
    private struct LayoutIgnored<THandler>(THandler inner) : ILaidOutMessageHandler where THandler : struct, IStoredMessageHandler
    {
        public THandler Inner = inner;

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public bool OnMessage(int seqNum, ReadOnlySpan<byte> message, in ResendLayout layout) => Inner.OnMessage(seqNum, message);
    }

    // Reads message `seqNum` from its record at `position` (length -1), or its payload at `position` (length given: no
    // layout).
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private bool TryReadMessage(int seqNum, long position, int length, long readEnd, out ReadOnlySpan<byte> bytes, out ResendLayout layout)
    {
        layout = default;
        if (length >= 0)
        {
            if (!_window.TryGet(_handle, position, length, _fileLength, readEnd, JournalPath, out bytes)) ThrowJournalChanged(position);
            return true;
        }
        if (!_window.TryGet(_handle, position, JournalFormat.HeadSize, _fileLength, readEnd, JournalPath, out ReadOnlySpan<byte> head)) ThrowJournalChanged(position);
        if (!JournalFormat.TryReadSlot(head, JournalFormat.HeadMagic2, _options.MaxMessageLengthInBytes, out JournalSlot slot)
            || !JournalFormat.IsMessage(slot.Type) || slot.SeqNum != seqNum)
        {
            DamagedMessagesSkipped++;
            bytes = default;
            return false;
        }
        if (!_window.TryGet(_handle, position + JournalFormat.HeadSize, slot.Length, _fileLength, readEnd, JournalPath, out bytes)) ThrowJournalChanged(position);
        if (!JournalFormat.PayloadMatches(bytes, slot.PayloadCrc))
        {
            DamagedMessagesSkipped++;
            bytes = default;
            return false;
        }
        if (slot.Type == JournalRecordType.LaidOutMessage)
        {
            layout = ResendLayout.Read(bytes);
            bytes = bytes.Slice(ResendLayout.Size);
        }
        return true;
    }

    /// <summary>The methods a range read runs per message (compiled ahead by <see cref="Session.ReplayCompilation"/>).</summary>
    internal static Delegate[] ReadPathMethods(FileMessageStore store) =>
    [
        new TryReadMessageMethod(store.TryReadMessage),
        new WindowGetMethod(store._window.TryGet),
        new TryReadSlotMethod(JournalFormat.TryReadSlot),
        new CrcUpdateMethod(Crc32C.Update),
        new CrcThreeWayMethod(Crc32C.UpdateThreeWay),
    ];

    private delegate bool TryReadMessageMethod(int seqNum, long position, int length, long readEnd, out ReadOnlySpan<byte> bytes, out ResendLayout layout);

    private delegate bool WindowGetMethod(SafeFileHandle handle, long position, int count, long endOfFile, long readEnd, string path, out ReadOnlySpan<byte> bytes);

    private delegate bool TryReadSlotMethod(ReadOnlySpan<byte> slot, byte magic2, int maxPayloadLength, out JournalSlot result);

    private delegate uint CrcUpdateMethod(uint crc, ReadOnlySpan<byte> data);

    private delegate uint CrcThreeWayMethod(uint crc, ReadOnlySpan<byte> data, out int consumed);

    /// <inheritdoc/>
    /// <remarks>Compacts the journal: the file is truncated to zero (or, with
    /// <see cref="FileMessageStoreOptions.ArchiveDirectory"/>, moved to the archive first) and a single reset record is
    /// written, forced to disk as <see cref="FileMessageStoreOptions.SyncPolicy"/> says (before the call returns under
    /// <see cref="FileStoreSyncPolicy.PerMessage"/>; with the next batch, or on <see cref="Flush"/> and dispose, under the
    /// others). A crash in between, or a power loss before the record reached the disk, leaves an empty journal, a
    /// torn or zero-filled reset record (each opens as a new incarnation) or, when the truncation did not reach the disk
    /// either, the journal as it was before the reset. A journal that holds a single record without a message (a new
    /// journal, or one reset since) is not truncated: the reset record, of the same size, is written over it, so a crash
    /// or power loss leaves the old record or the new one (torn: the state of the one whose head survived, repaired on
    /// open), that is the journal as it was before the reset or after it.</remarks>
    /// <exception cref="MessageStoreException">The journal could not be truncated or written (the store is then faulted).</exception>
    public void Reset(long nowEpochNs)
    {
        if (_disposed) Internal.ThrowHelper.ThrowObjectDisposed(nameof(FileMessageStore));
        ThrowIfFaulted(MessageStoreOperation.Reset);
        Touch(MessageStoreOperation.Reset);
        if (_options.ArchiveDirectory is not null && !_options.SharedAccess) ArchiveJournal();
        // A journal that holds one record without a payload (a new journal's reset record, or the last reset's) is
        // overwritten in place by the reset record, which has its size: no truncation. Truncating frees the record's
        // block, which on a volume mounted with `discard` waits for the device on the session's thread (10,000
        // ResetOnLogon sessions logging on, docs/benchmarks/2026-12-06-scale.md, 2026-12-07 night).
        bool overwrite = _recordCount == 1 && _fileLength == JournalFormat.RecordSize(JournalRecordType.Reset, 0) && !_options.SharedAccess
            && _options.ArchiveDirectory is null;
        if (!overwrite)
        {
            try
            {
                RandomAccess.SetLength(_handle, 0);
            }
            catch (Exception e) when (IsMediumError(e))
            {
                Fault(MessageStoreOperation.Reset, e);
            }
            Truncations++;
        }
        _fileLength = 0;
        _window.Invalidate();
        _index.Clear();
        _recordCount = 0;
        _lastMessageSeq = 0;
        _legacyRecords = false;
        // The checkpoint described the old incarnation: emptied before the reset record lands (and it names the journal's
        // first record, so a stale one would not be believed anyway).
        _pendingCount = 0;
        _blockFrom = 0;
        TruncateIndex(0);
        _indexUsable = _indexHandle is not null;
        WriteRecord(JournalRecordType.Reset, 0, default, JournalState.Fresh(nowEpochNs), durable: true, MessageStoreOperation.Reset);
    }

    /// <summary>Resets that truncated the journal so far (the owner's thread; diagnostics and tests).</summary>
    internal long Truncations { get; private set; }

    /// <summary>Forces every record written so far to stable storage (fsync), whatever the policy.</summary>
    /// <exception cref="MessageStoreException">The flush failed (the store is then faulted).</exception>
    public void Flush()
    {
        if (_disposed) Internal.ThrowHelper.ThrowObjectDisposed(nameof(FileMessageStore));
        ThrowIfFaulted(MessageStoreOperation.Flush);
        if (_unsyncedRecords != 0) Sync(MessageStoreOperation.Flush);
    }

    /// <summary>Periodic maintenance for <see cref="FileStoreSyncPolicy.Batched"/>: flushes once the oldest unflushed record
    /// (as first seen by this method) is <see cref="FileMessageStoreOptions.BatchIntervalNs"/> old.</summary>
    /// <param name="nowNs">The caller's monotonic clock, in nanoseconds (the store never reads a clock).</param>
    /// <returns>1 if it flushed, else 0 (duty-cycle work count).</returns>
    /// <remarks>Call it from the session's duty cycle; the maximum unflushed age is BatchIntervalNs plus the call period.
    /// Does nothing under the other policies or once faulted. Does not allocate.</remarks>
    /// <exception cref="MessageStoreException">The flush failed (the store is then faulted).</exception>
    public int DoWork(long nowNs)
    {
        if (_options.SyncPolicy != FileStoreSyncPolicy.Batched || _unsyncedRecords == 0 || _disposed || _fault is not null) return 0;
        if (_oldestUnsyncedSeenAtNs < 0)
        {
            _oldestUnsyncedSeenAtNs = nowNs;
            if (_options.BatchIntervalNs != 0) return 0;
        }
        if (nowNs - _oldestUnsyncedSeenAtNs < _options.BatchIntervalNs) return 0;
        Sync(MessageStoreOperation.Flush);
        return 1;
    }

    /// <summary>Replays the journal from disk again, replacing the in-memory state; damage is handled as on open
    /// (<see cref="FileMessageStoreOptions.Recovery"/>) and reported in <see cref="LastRecoveryReport"/>.</summary>
    /// <exception cref="MessageStoreException">The journal cannot be read or repaired, or it is damaged and the policy
    /// is <see cref="StoreRecoveryPolicy.Refuse"/> (the in-memory state is then that of the readable records).</exception>
    public void Refresh()
    {
        if (_disposed) Internal.ThrowHelper.ThrowObjectDisposed(nameof(FileMessageStore));
        Touch(MessageStoreOperation.Refresh);
        Replay(MessageStoreOperation.Refresh);
    }

    /// <summary>Flushes outstanding records to disk, closes the journal and returns pooled buffers.</summary>
    /// <exception cref="MessageStoreException">The final flush failed; the journal is closed anyway.</exception>
    public void Dispose() => DisposeCore(flush: true);

    private void DisposeCore(bool flush)
    {
        if (_disposed) return;
        // A parked store opens its files once more to force its records to disk as a close does, and to write the
        // checkpoint entries not yet written (a failure there only makes the next open slower).
        if (_parked && _fault is null && ((flush && _unsyncedRecords != 0) || (_indexParked && (_pendingCount > 0 || _blockFrom != _fileLength))))
        {
            try
            {
                Unpark(MessageStoreOperation.Flush);
            }
            catch (MessageStoreException)
            {
            }
        }
        _disposed = true;
        try
        {
            if (flush && _fault is null && _unsyncedRecords != 0 && !_handle.IsInvalid && !_handle.IsClosed)
            {
                try
                {
                    RandomAccess.FlushToDisk(_handle);
                }
                catch (Exception e) when (IsMediumError(e))
                {
                    throw new MessageStoreException($"Flushing the message store journal '{JournalPath}' on close failed: {e.Message}", JournalPath,
                        MessageStoreOperation.Flush, e);
                }
            }
        }
        finally
        {
            try
            {
                CloseIndex();
            }
            finally
            {
                if (!_parked) _openLimit?.OnClosed();
                _openLimit = null;
                CloseJournalDescriptor();
                _reopenHandle?.Dispose();
                _window.Dispose();
                ReturnWriteBuffer();
                _index.Release();
            }
        }
    }

    /// <summary>Test seam: makes the store write through <paramref name="handle"/> (e.g. /dev/full, to get a real ENOSPC
    /// from the kernel) and returns the handle it used before.</summary>
    internal SafeFileHandle SwapHandleForTesting(SafeFileHandle handle)
    {
        if (_parked) Unpark(MessageStoreOperation.Open);
        if (_ownDescriptor)
        {
            // The caller may dispose what it gets back: an owning handle of the descriptor, the reopen handle left at -1.
            int fd = (int)_handle.DangerousGetHandle();
            JournalDescriptor.Point(_handle, -1);
            _handle = new SafeFileHandle(fd, ownsHandle: true);
            _ownDescriptor = false;
        }
        SafeFileHandle previous = _handle;
        _handle = handle;
        _window.Invalidate();
        return previous;
    }

    private void ReturnWriteBuffer()
    {
        byte[] buffer = _writeBuffer;
        _writeBuffer = [];
        if (buffer.Length != 0) ArrayPool<byte>.Shared.Return(buffer);
    }

    // The one write path: encodes the record with the new state, writes it at the end, and only then adopts the state,
    // so a failed write changes nothing in memory (and faults the store: what reached the file is unknown).
    private void WriteRecord(JournalRecordType type, int seqNum, ReadOnlySpan<byte> payload, in JournalState state, bool durable, MessageStoreOperation operation) =>
        WriteRecord(type, seqNum, default, payload, state, state, durable, operation);

    // The record carries `written`; `adopted` becomes the state in memory (the same, or behind it by an inbound number
    // an answer consumed: see AppendAndIncrement).
    // The payload is `prefix` then `payload` (a laid-out message's layout, then the message).
    private void WriteRecord(JournalRecordType type, int seqNum, ReadOnlySpan<byte> prefix, ReadOnlySpan<byte> payload, in JournalState written, in JournalState adopted,
        bool durable, MessageStoreOperation operation)
    {
        if (_disposed) Internal.ThrowHelper.ThrowObjectDisposed(nameof(FileMessageStore));
        if (_fault is not null) ThrowFaulted(operation);
        Touch(operation);
        int size = JournalFormat.RecordSize(type, prefix.Length + payload.Length);
        if (size > _writeBuffer.Length) GrowWriteBuffer(size);
        JournalFormat.Write(_writeBuffer, type, seqNum, prefix, payload, written);
        try
        {
            RandomAccess.Write(_handle, _writeBuffer.AsSpan(0, size), _fileLength);
        }
        catch (Exception e) when (IsMediumError(e))
        {
            Fault(operation, e);
        }
        _lastRecordStart = _fileLength;
        _recordCount++;
        _fileLength += size;
        _state = adopted;
        _writtenState = written;
        _unsyncedRecords++;
        switch (_options.SyncPolicy)
        {
            case FileStoreSyncPolicy.PerMessage when durable:
                Sync(operation);
                break;
            case FileStoreSyncPolicy.Batched when _unsyncedRecords >= _options.BatchRecordCount:
                Sync(operation);
                break;
        }
    }

    private static bool SameState(in JournalState a, in JournalState b) =>
        a.NextSender == b.NextSender && a.NextTarget == b.NextTarget && a.ProcessedInbound == b.ProcessedInbound && a.CreationTimeNs == b.CreationTimeNs;

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void GrowWriteBuffer(int size)
    {
        ArrayPool<byte>.Shared.Return(_writeBuffer);
        _writeBuffer = ArrayPool<byte>.Shared.Rent(size);
    }

    private void Sync(MessageStoreOperation operation)
    {
        try
        {
            RandomAccess.FlushToDisk(_handle);
        }
        catch (Exception e) when (IsMediumError(e))
        {
            Fault(operation == MessageStoreOperation.Append || operation == MessageStoreOperation.UpdateState ? operation : MessageStoreOperation.Flush, e);
        }
        _unsyncedRecords = 0;
        _oldestUnsyncedSeenAtNs = -1;
        // Blocks that waited for their records to reach the disk (Batched, PerMessage) go out now.
        if (_pendingCount >= BlockEntries) FlushPending(force: false);
    }

    private static bool IsMediumError(Exception e) => e is IOException or UnauthorizedAccessException or NotSupportedException;

    private void ThrowIfFaulted(MessageStoreOperation operation)
    {
        if (_fault is not null) ThrowFaulted(operation);
    }

    [DoesNotReturn]
    [MethodImpl(MethodImplOptions.NoInlining)]
    private void ThrowFaulted(MessageStoreOperation operation) =>
        throw new MessageStoreException(
            $"The message store journal '{JournalPath}' is faulted since an earlier {_fault!.Operation} failed ({_fault.InnerException?.Message}); "
            + "nothing more is written to it: dispose the store and open it again.", JournalPath, operation, _fault.InnerException);

    [DoesNotReturn]
    [MethodImpl(MethodImplOptions.NoInlining)]
    private void Fault(MessageStoreOperation operation, Exception error)
    {
        _fault = new MessageStoreException(
            $"{Describe(operation)} the message store journal '{JournalPath}' failed at byte offset {_fileLength}: {error.Message}; "
            + "the store is faulted and refuses further writes.", JournalPath, operation, error);
        throw _fault;
    }

    private static string Describe(MessageStoreOperation operation) => operation switch
    {
        MessageStoreOperation.Append => "Appending a message to",
        MessageStoreOperation.UpdateState => "Writing a sequence number to",
        MessageStoreOperation.Reset => "Resetting",
        MessageStoreOperation.Flush => "Flushing",
        MessageStoreOperation.Read => "Reading",
        MessageStoreOperation.Refresh => "Refreshing",
        _ => "Opening",
    };

    [DoesNotReturn]
    [MethodImpl(MethodImplOptions.NoInlining)]
    private void ThrowJournalChanged(long position) =>
        throw new MessageStoreException(
            $"The message store journal '{JournalPath}' ended before the indexed message at byte offset {position}; it was changed outside the store.",
            JournalPath, MessageStoreOperation.Read);
}
