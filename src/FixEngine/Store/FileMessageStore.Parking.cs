using System;
using System.IO;
using Microsoft.Win32.SafeHandles;

namespace FixEngine.Store;

// Parking: closing an idle journal's descriptors and reopening them on the next operation.
// - Why: a file store holds its journal open (and its index checkpoint, when enabled), so a process with N file-store
//   sessions needs N descriptors for them beside the N sockets. A process's descriptors are bounded (RLIMIT_NOFILE,
//   `ulimit -n`, `LimitNOFILE=` of a systemd unit): with 10,000 sessions and a limit of 20,000 the last connections met
//   EMFILE, and the runtime aborted ("Out of memory.") when it then failed to open a file of its own. The engine parks
//   the journals of idle sessions when the limit would be reached (Engine/JournalHandleBudget.cs); a parked store
//   holds no descriptor.
// - Parking happens only on the owner's thread (whoever holds the session), only with nothing left to force to disk
//   (UnsyncedRecordCount 0, or the OS policy, whose records are in the page cache), never under SharedAccess (a standby's journal is another process's) and never once
//   faulted or disposed. The state, the index and the pending checkpoint entries stay in memory.
// - Unparking happens inside the next operation that touches the file (a write, a range read, a reset, a refresh,
//   dispose): the journal is opened again with the same sharing as at first, so another store that opened it meanwhile
//   makes the reopen fail; its length must still be the length this store wrote, else the store faults ("changed while
//   parked"). Cost: one open, one flock and one lseek (about 10 µs here) per unpark. On Linux the reopen allocates
//   nothing: the store points one non-owning handle at each descriptor it opens itself (Store/JournalDescriptor.cs).
public sealed partial class FileMessageStore
{
    private bool _parked;
    private bool _indexParked;
    private long _uses;

    /// <summary>Agent bookkeeping of <c>JournalHandleBudget</c> (the owner's thread): the use count seen at the last
    /// visit and since when it has not changed.</summary>
    internal long BudgetSeenUses = -1;

    /// <summary>See <see cref="BudgetSeenUses"/>.</summary>
    internal long BudgetIdleSinceNs;

    /// <summary>Agent bookkeeping of <c>JournalHandleBudget</c>: whether its open-journal count includes this store.</summary>
    internal bool BudgetCountedOpen;

    private JournalOpenLimit? _openLimit;

    // Linux: the non-owning handle every reopen points at its descriptor (created at the first), the journal path's
    // UTF-8 bytes, and whether _handle is that handle with a descriptor this store closes itself.
    private SafeFileHandle? _reopenHandle;
    private byte[]? _journalPathBytes;
    private bool _ownDescriptor;

    /// <summary>Times a parked journal was opened again so far (the owner's thread; diagnostics and tests).</summary>
    internal long Reopens { get; private set; }

    /// <summary>The owner's thread: the journal was opened again above its <see cref="JournalOpenLimit"/>'s cap, so the
    /// owner parks it as it leaves the session (FixSession.Leave) and the agent at its next visit.</summary>
    internal bool ParkAfterUse { get; private set; }

    /// <summary>The constructor's thread, on a parked store: counts its journal in <paramref name="limit"/> from now on.</summary>
    internal void CountOpenJournalIn(JournalOpenLimit limit)
    {
        if (_parked) _openLimit = limit;
    }

    /// <summary>True while the journal's descriptors are closed (see the parking note).</summary>
    internal bool IsParked => _parked;

    /// <summary>Operations that touched the file so far (writes and range reads); the owner's thread.</summary>
    internal long Uses => _uses;

    /// <summary>The owner's thread: closes the journal (and the index checkpoint) when nothing is left to force to disk.
    /// Returns whether the store is parked now.</summary>
    internal bool TryPark()
    {
        if (_parked) return true;
        // Under the OS policy records not yet forced to disk are in the page cache, which the close keeps.
        if (_disposed || _fault is not null || _options.SharedAccess || (_unsyncedRecords != 0 && _options.SyncPolicy != FileStoreSyncPolicy.OS)) return false;
        _window.Release();
        _window.Invalidate();
        _indexParked = _indexHandle is not null;
        _indexHandle?.Dispose();
        _indexHandle = null;
        CloseJournalDescriptor();
        _parked = true;
        ParkAfterUse = false;
        _openLimit?.OnClosed();
        return true;
    }

    private void Unpark(MessageStoreOperation operation)
    {
        if (JournalDescriptor.Supported) ReopenOwnDescriptor(operation);
        else ReopenWithFileHandle(operation);
        _parked = false;
        Reopens++;
        if (_openLimit is not null && _openLimit.OnOpened()) ParkAfterUse = true;
        if (_indexParked)
        {
            _indexParked = false;
            try
            {
                _indexHandle = File.OpenHandle(IndexPath, FileMode.OpenOrCreate, FileAccess.ReadWrite, FileShare.None);
                _indexFileLength = RandomAccess.GetLength(_indexHandle);
            }
            catch (Exception e) when (IsMediumError(e))
            {
                // The checkpoint is a cache: without it the next open replays the journal.
                _indexHandle?.Dispose();
                _indexHandle = null;
                _indexUsable = false;
            }
        }
    }

    // Windows, macOS: a new owning handle per reopen.
    private void ReopenWithFileHandle(MessageStoreOperation operation)
    {
        SafeFileHandle handle;
        try
        {
            handle = File.OpenHandle(JournalPath, FileMode.Open, FileAccess.ReadWrite, FileShare.None);
        }
        catch (Exception e) when (IsMediumError(e))
        {
            // The journal was removed, locked by another store, or the process is out of descriptors.
            throw ParkFault(operation, $"cannot be opened again after it was closed while idle: {e.Message}", e);
        }
        long length;
        try
        {
            length = RandomAccess.GetLength(handle);
        }
        catch (Exception e) when (IsMediumError(e))
        {
            handle.Dispose();
            throw ParkFault(operation, $"cannot be read after it was opened again: {e.Message}", e);
        }
        if (length != _fileLength)
        {
            handle.Dispose();
            throw ChangedWhileParked(operation, length);
        }
        _handle = handle;
        _ownDescriptor = false;
    }

    // Linux: the descriptor opened here, the one handle pointed at it; allocates nothing once the handle exists.
    private void ReopenOwnDescriptor(MessageStoreOperation operation)
    {
        _journalPathBytes ??= JournalDescriptor.EncodePath(JournalPath);
        int fd = JournalDescriptor.TryOpen(_journalPathBytes, out long length, out string? error);
        if (fd < 0)
        {
            // The journal was removed, locked by another store, or the process is out of descriptors.
            throw ParkFault(operation, $"cannot be opened again after it was closed while idle: {error}", null);
        }
        if (_reopenHandle is null) _reopenHandle = JournalDescriptor.Wrap(fd);
        else JournalDescriptor.Point(_reopenHandle, fd);
        _handle = _reopenHandle;
        _ownDescriptor = true;
        if (length != _fileLength)
        {
            JournalDescriptor.Close(_reopenHandle);
            _ownDescriptor = false;
            throw ChangedWhileParked(operation, length);
        }
    }

    private MessageStoreException ChangedWhileParked(MessageStoreOperation operation, long length) =>
        ParkFault(operation, $"was changed outside the store while it was closed (length {length} bytes, the store wrote {_fileLength})", null);

    // Closes the journal's descriptor: the owning handle of the first open (or of a reopen elsewhere than Linux), or the
    // descriptor this store opened itself behind its non-owning handle.
    private void CloseJournalDescriptor()
    {
        if (_ownDescriptor)
        {
            JournalDescriptor.Close(_handle);
            _ownDescriptor = false;
        }
        else
        {
            _handle?.Dispose();
        }
    }

    private MessageStoreException ParkFault(MessageStoreOperation operation, string what, Exception? inner)
    {
        var fault = new MessageStoreException($"The message store journal '{JournalPath}' {what}; the store is faulted and refuses further writes.",
            JournalPath, operation, inner);
        _fault = fault;
        return fault;
    }

    // Every operation that touches the file: one predictable branch when not parked.
    private void Touch(MessageStoreOperation operation)
    {
        _uses++;
        if (_parked) Unpark(operation);
    }
}
