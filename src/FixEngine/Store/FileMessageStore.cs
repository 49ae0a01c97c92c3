using System;
using System.Buffers;
using System.Buffers.Binary;
using System.IO;
using System.Runtime.CompilerServices;
using Microsoft.Win32.SafeHandles;

namespace FixEngine.Store;

/// <summary>A persistent <see cref="IMessageStore"/>: one append-only journal file per session, replayed on open.</summary>
/// <remarks>
/// Not thread-safe: one owner thread (the session's); no background thread. Each state change is one record
/// (see the journal layout on the internal JournalFormat type) written with one positional write from a reusable
/// pooled buffer, so steady-state appends allocate nothing. Opening replays the journal to rebuild both sequence
/// numbers, the creation time and an index from sequence number to file position; replay stops at the first torn or
/// corrupt record, truncates the file there (so later appends are valid) and reports what it dropped in
/// <see cref="DiscardedBytes"/>, <see cref="RecoveryStopReason"/> and <see cref="RecoveryStopOffset"/>. Resend reads go
/// through the index and a pooled read window. <see cref="Reset"/> compacts the journal to a single reset record.
/// The file is opened without sharing, so a second store (or process) cannot open the same session's journal, unless
/// <see cref="FileMessageStoreOptions.SharedAccess"/> is set (warm standby, see there).
/// </remarks>
public sealed class FileMessageStore : IMessageStore
{
    /// <summary>The extension of journal files.</summary>
    public const string JournalExtension = ".journal";

    private readonly FileMessageStoreOptions _options;
    private readonly SafeFileHandle _handle;
    private readonly MessageIndex _index;
    private readonly JournalWindow _window = new();
    private readonly long _defaultCreationTimeEpochNs;
    private byte[] _writeBuffer = ArrayPool<byte>.Shared.Rent(4096);
    private long _fileLength;
    private int _nextSenderMsgSeqNum = 1;
    private int _nextTargetMsgSeqNum = 1;
    private long _creationTimeEpochNs;
    private int _unsyncedRecords;
    private long _oldestUnsyncedSeenAtNs = -1;
    private bool _disposed;

    /// <summary>Opens (or creates) the journal of <paramref name="sessionId"/> in <paramref name="directory"/> and replays it.</summary>
    /// <param name="directory">The folder holding journals; created if missing.</param>
    /// <param name="sessionId">The session identity (e.g. "FIX.4.4:SENDER->TARGET"); unsafe file name characters become '_'.</param>
    /// <param name="nowEpochNs">Creation time to record if the journal is new or nothing valid survives in it.</param>
    /// <param name="options">Sync policy and limits; defaults when null.</param>
    /// <exception cref="IOException">The journal cannot be opened, e.g. because another store holds it.</exception>
    public FileMessageStore(string directory, string sessionId, long nowEpochNs, FileMessageStoreOptions? options = null)
        : this(GetJournalPath(directory, sessionId), nowEpochNs, options)
    {
    }

    /// <summary>Opens (or creates) the journal at <paramref name="journalPath"/> and replays it.</summary>
    /// <param name="journalPath">The journal file; its folder is created if missing.</param>
    /// <param name="nowEpochNs">Creation time to record if the journal is new or nothing valid survives in it.</param>
    /// <param name="options">Sync policy and limits; defaults when null.</param>
    /// <exception cref="IOException">The journal cannot be opened, e.g. because another store holds it.</exception>
    public FileMessageStore(string journalPath, long nowEpochNs, FileMessageStoreOptions? options = null)
    {
        ArgumentException.ThrowIfNullOrEmpty(journalPath);
        _options = options ?? new FileMessageStoreOptions();
        _options.Validate();
        _index = new MessageIndex(_options.InitialIndexCapacity);
        JournalPath = Path.GetFullPath(journalPath);
        string? folder = Path.GetDirectoryName(JournalPath);
        if (!string.IsNullOrEmpty(folder)) Directory.CreateDirectory(folder);
        _defaultCreationTimeEpochNs = nowEpochNs;
        _handle = File.OpenHandle(JournalPath, FileMode.OpenOrCreate, FileAccess.ReadWrite, _options.SharedAccess ? FileShare.ReadWrite : FileShare.None);
        try
        {
            Replay();
        }
        catch
        {
            Dispose();
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

    /// <summary>How many bytes at the end of the journal the last open/refresh discarded as torn or corrupt (0 if none).</summary>
    public long DiscardedBytes { get; private set; }

    /// <summary>Why the last open/refresh stopped before the end of the file (<see cref="JournalStopReason.None"/> if it did not).</summary>
    public JournalStopReason RecoveryStopReason { get; private set; }

    /// <summary>The byte offset of the first record the last open/refresh rejected (-1 if none); the file was truncated there.</summary>
    public long RecoveryStopOffset { get; private set; } = -1;

    /// <summary>The number of records written since the journal was last forced to disk.</summary>
    public int UnsyncedRecordCount => _unsyncedRecords;

    /// <inheritdoc/>
    public int NextSenderMsgSeqNum => _nextSenderMsgSeqNum;

    /// <inheritdoc/>
    public int NextTargetMsgSeqNum => _nextTargetMsgSeqNum;

    /// <inheritdoc/>
    public long CreationTimeEpochNs => _creationTimeEpochNs;

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
    public void SetNextSenderMsgSeqNum(int value)
    {
        if (value < 1) StoreThrowHelper.ThrowSeqNumOutOfRange(nameof(value), value);
        WriteRecord(JournalRecordType.SenderSeqNum, value, default);
        _nextSenderMsgSeqNum = value;
    }

    /// <inheritdoc/>
    public void SetNextTargetMsgSeqNum(int value)
    {
        if (value < 1) StoreThrowHelper.ThrowSeqNumOutOfRange(nameof(value), value);
        WriteRecord(JournalRecordType.TargetSeqNum, value, default);
        _nextTargetMsgSeqNum = value;
    }

    /// <inheritdoc/>
    public void IncrNextSenderMsgSeqNum()
    {
        if (_nextSenderMsgSeqNum == int.MaxValue) StoreThrowHelper.ThrowSeqNumOverflow();
        SetNextSenderMsgSeqNum(_nextSenderMsgSeqNum + 1);
    }

    /// <inheritdoc/>
    public void IncrNextTargetMsgSeqNum()
    {
        if (_nextTargetMsgSeqNum == int.MaxValue) StoreThrowHelper.ThrowSeqNumOverflow();
        SetNextTargetMsgSeqNum(_nextTargetMsgSeqNum + 1);
    }

    /// <inheritdoc/>
    /// <exception cref="ArgumentException">The message is longer than <see cref="FileMessageStoreOptions.MaxMessageLengthInBytes"/>.</exception>
    public void Append(int seqNum, ReadOnlySpan<byte> message)
    {
        if (seqNum < 1) StoreThrowHelper.ThrowSeqNumOutOfRange(nameof(seqNum), seqNum);
        if (message.Length > _options.MaxMessageLengthInBytes) StoreThrowHelper.ThrowMessageTooLarge(message.Length, _options.MaxMessageLengthInBytes);
        long payloadPosition = _fileLength + JournalFormat.HeaderSize;
        WriteRecord(JournalRecordType.Message, seqNum, message);
        _index.Set(seqNum, payloadPosition, message.Length);
    }

    /// <inheritdoc/>
    /// <exception cref="ArgumentException">The message is longer than <see cref="FileMessageStoreOptions.MaxMessageLengthInBytes"/>.</exception>
    public void AppendAndIncrement(int seqNum, ReadOnlySpan<byte> message)
    {
        if (seqNum < 1) StoreThrowHelper.ThrowSeqNumOutOfRange(nameof(seqNum), seqNum);
        if (seqNum == int.MaxValue) StoreThrowHelper.ThrowSeqNumOverflow();
        if (message.Length > _options.MaxMessageLengthInBytes) StoreThrowHelper.ThrowMessageTooLarge(message.Length, _options.MaxMessageLengthInBytes);
        long payloadPosition = _fileLength + JournalFormat.HeaderSize;
        WriteRecord(JournalRecordType.MessageAndIncrement, seqNum, message);
        _index.Set(seqNum, payloadPosition, message.Length);
        _nextSenderMsgSeqNum = seqNum + 1;
    }

    /// <inheritdoc/>
    /// <remarks>Messages are read through a pooled window (one read syscall per 64 KiB of journal); no allocation once
    /// the window fits the largest message.</remarks>
    public int ReadRange<THandler>(int beginSeqNo, int endSeqNo, ref THandler handler) where THandler : struct, IStoredMessageHandler
    {
        if (_disposed) StoreThrowHelper.ThrowDisposed(nameof(FileMessageStore));
        uint last = endSeqNo <= 0 ? uint.MaxValue : (uint)endSeqNo;
        int delivered = 0;
        for (int i = _index.LowerBound(Math.Max(beginSeqNo, 1)); i < _index.Count; i++)
        {
            int seqNum = _index.SeqNumAt(i);
            if ((uint)seqNum > last) break;
            if (!_window.TryGet(_handle, _index.PositionAt(i), _index.LengthAt(i), _fileLength, out ReadOnlySpan<byte> bytes))
            {
                ThrowJournalChanged(_index.PositionAt(i));
            }
            delivered++;
            if (!handler.OnMessage(seqNum, bytes)) break;
        }
        return delivered;
    }

    /// <inheritdoc/>
    /// <remarks>Compacts the journal: the file is truncated to zero and a single reset record is written and flushed.</remarks>
    public void Reset(long nowEpochNs)
    {
        if (_disposed) StoreThrowHelper.ThrowDisposed(nameof(FileMessageStore));
        RandomAccess.SetLength(_handle, 0);
        _fileLength = 0;
        _window.Invalidate();
        ApplyReset(nowEpochNs);
        WriteResetRecord(nowEpochNs);
        if (_unsyncedRecords != 0) Sync();
    }

    /// <summary>Forces every record written so far to stable storage (fsync), whatever the policy.</summary>
    public void Flush()
    {
        if (_disposed) StoreThrowHelper.ThrowDisposed(nameof(FileMessageStore));
        if (_unsyncedRecords != 0) Sync();
    }

    /// <summary>Periodic maintenance for <see cref="FileStoreSyncPolicy.Batched"/>: flushes once the oldest unflushed record
    /// (as first seen by this method) is <see cref="FileMessageStoreOptions.BatchIntervalNs"/> old.</summary>
    /// <param name="nowNs">The caller's monotonic clock, in nanoseconds (the store never reads a clock).</param>
    /// <returns>1 if it flushed, else 0 (duty-cycle work count).</returns>
    /// <remarks>Call it from the session's duty cycle; the maximum unflushed age is BatchIntervalNs plus the call period.
    /// Does nothing under the other policies. Does not allocate.</remarks>
    public int DoWork(long nowNs)
    {
        if (_options.SyncPolicy != FileStoreSyncPolicy.Batched || _unsyncedRecords == 0 || _disposed) return 0;
        if (_oldestUnsyncedSeenAtNs < 0)
        {
            _oldestUnsyncedSeenAtNs = nowNs;
            if (_options.BatchIntervalNs != 0) return 0;
        }
        if (nowNs - _oldestUnsyncedSeenAtNs < _options.BatchIntervalNs) return 0;
        Sync();
        return 1;
    }

    /// <summary>Replays the journal from disk again, replacing the in-memory state (and truncating a corrupt tail).</summary>
    public void Refresh()
    {
        if (_disposed) StoreThrowHelper.ThrowDisposed(nameof(FileMessageStore));
        Replay();
    }

    /// <summary>Flushes outstanding records to disk, closes the journal and returns pooled buffers.</summary>
    public void Dispose()
    {
        if (_disposed) return;
        _disposed = true;
        try
        {
            if (_unsyncedRecords != 0 && !_handle.IsInvalid && !_handle.IsClosed) RandomAccess.FlushToDisk(_handle);
        }
        finally
        {
            _handle?.Dispose();
            _window.Dispose();
            byte[] buffer = _writeBuffer;
            _writeBuffer = [];
            if (buffer.Length != 0) ArrayPool<byte>.Shared.Return(buffer);
            _index.Clear();
        }
    }

    private void WriteRecord(JournalRecordType type, int seqNum, ReadOnlySpan<byte> payload)
    {
        if (_disposed) StoreThrowHelper.ThrowDisposed(nameof(FileMessageStore));
        int size = JournalFormat.RecordSize(payload.Length);
        if (size > _writeBuffer.Length) GrowWriteBuffer(size);
        JournalFormat.Write(_writeBuffer, type, seqNum, payload);
        // A failed write leaves _fileLength unchanged: the next record overwrites whatever part of this one landed.
        RandomAccess.Write(_handle, _writeBuffer.AsSpan(0, size), _fileLength);
        _fileLength += size;
        _unsyncedRecords++;
        switch (_options.SyncPolicy)
        {
            case FileStoreSyncPolicy.PerMessage when type != JournalRecordType.TargetSeqNum:
                Sync();
                break;
            case FileStoreSyncPolicy.Batched when _unsyncedRecords >= _options.BatchRecordCount:
                Sync();
                break;
        }
    }

    private void WriteResetRecord(long creationTimeEpochNs)
    {
        Span<byte> payload = stackalloc byte[JournalFormat.ResetPayloadSize];
        BinaryPrimitives.WriteInt64LittleEndian(payload, creationTimeEpochNs);
        WriteRecord(JournalRecordType.Reset, 1, payload);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void GrowWriteBuffer(int size)
    {
        ArrayPool<byte>.Shared.Return(_writeBuffer);
        _writeBuffer = ArrayPool<byte>.Shared.Rent(size);
    }

    private void Sync()
    {
        RandomAccess.FlushToDisk(_handle);
        _unsyncedRecords = 0;
        _oldestUnsyncedSeenAtNs = -1;
    }

    private void ApplyReset(long creationTimeEpochNs)
    {
        _index.Clear();
        _nextSenderMsgSeqNum = 1;
        _nextTargetMsgSeqNum = 1;
        _creationTimeEpochNs = creationTimeEpochNs;
    }

    private void Replay()
    {
        ApplyReset(_defaultCreationTimeEpochNs);
        _window.Invalidate();
        long fileLength = RandomAccess.GetLength(_handle);
        long position = 0;
        JournalStopReason stop = JournalStopReason.None;
        while (position < fileLength)
        {
            stop = ReplayRecord(position, fileLength, out int recordSize);
            if (stop != JournalStopReason.None) break;
            position += recordSize;
        }
        DiscardedBytes = fileLength - position;
        RecoveryStopReason = stop;
        RecoveryStopOffset = stop == JournalStopReason.None ? -1 : position;
        _fileLength = position;
        _window.Invalidate();
        _unsyncedRecords = 0;
        _oldestUnsyncedSeenAtNs = -1;
        // A shared journal may be mid-write by its current writer: leave the file alone; our next write (if we become
        // the writer) lands at the end of the valid prefix, exactly where a truncation would have put it.
        if (_options.SharedAccess) return;
        if (position < fileLength)
        {
            RandomAccess.SetLength(_handle, position);
            RandomAccess.FlushToDisk(_handle);
        }
        if (position == 0)
        {
            WriteResetRecord(_defaultCreationTimeEpochNs);
            Sync();
        }
    }

    private JournalStopReason ReplayRecord(long position, long fileLength, out int recordSize)
    {
        recordSize = 0;
        if (!_window.TryGet(_handle, position, JournalFormat.HeaderSize, fileLength, out ReadOnlySpan<byte> header))
        {
            return JournalStopReason.Truncated;
        }
        int length = BinaryPrimitives.ReadInt32LittleEndian(header);
        var type = (JournalRecordType)header[4];
        int seqNum = BinaryPrimitives.ReadInt32LittleEndian(header.Slice(8));
        if ((header[5] | header[6] | header[7]) != 0 || type < JournalRecordType.Message || type > JournalRecordType.Reset || seqNum < 1)
        {
            return JournalStopReason.BadHeader;
        }
        bool lengthOk = type switch
        {
            JournalRecordType.Message or JournalRecordType.MessageAndIncrement => length >= 0 && length <= _options.MaxMessageLengthInBytes,
            JournalRecordType.Reset => length == JournalFormat.ResetPayloadSize,
            _ => length == 0,
        };
        if (!lengthOk) return JournalStopReason.BadLength;
        if (type == JournalRecordType.MessageAndIncrement && seqNum == int.MaxValue) return JournalStopReason.BadHeader;
        int size = JournalFormat.RecordSize(length);
        if (!_window.TryGet(_handle, position, size, fileLength, out ReadOnlySpan<byte> record))
        {
            return JournalStopReason.Truncated;
        }
        if (JournalFormat.ComputeCrc(record) != BinaryPrimitives.ReadUInt32LittleEndian(record.Slice(12)))
        {
            return JournalStopReason.BadChecksum;
        }
        switch (type)
        {
            case JournalRecordType.Message:
                _index.Set(seqNum, position + JournalFormat.HeaderSize, length);
                break;
            case JournalRecordType.MessageAndIncrement:
                _index.Set(seqNum, position + JournalFormat.HeaderSize, length);
                _nextSenderMsgSeqNum = seqNum + 1;
                break;
            case JournalRecordType.SenderSeqNum:
                _nextSenderMsgSeqNum = seqNum;
                break;
            case JournalRecordType.TargetSeqNum:
                _nextTargetMsgSeqNum = seqNum;
                break;
            default:
                ApplyReset(BinaryPrimitives.ReadInt64LittleEndian(record.Slice(JournalFormat.HeaderSize)));
                break;
        }
        recordSize = size;
        return JournalStopReason.None;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void ThrowJournalChanged(long position) =>
        throw new IOException($"The journal ended before the indexed message at byte offset {position}; it was changed outside the store.");
}
