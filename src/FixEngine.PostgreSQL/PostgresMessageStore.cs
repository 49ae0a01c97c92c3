using System;
using System.Buffers.Binary;
using System.Diagnostics;
using System.IO;
using System.Runtime.CompilerServices;
using System.Threading;
using FixEngine.Collections;
using FixEngine.Store;
using Npgsql;

namespace FixEngine.PostgreSQL;

// Design:
// - The session thread owns the store (IMessageStore is single-owner). Reads (ReadRange, the sequence numbers) are
//   served from a local copy: a MemoryMessageStore (PerMessage, GroupCommit) or the local FileMessageStore journal
//   (LocalJournalFirst). The database is written, never read, while the session runs.
// - PerMessage: each sender-side change is committed on the session thread (one fenced NpgsqlBatch, one round trip,
//   on the session's own connection) before it is applied to the local copy; target sequence changes are applied
//   locally and ride on the next commit (or Flush / Dispose).
// - GroupCommit / LocalJournalFirst: the session thread applies the change locally and copies it into _queue, a bounded
//   SpscByteRing (producer: session thread; consumer: the writer thread). Nothing allocates or touches the network on
//   the session thread. The writer drains the ring into a PostgresBatch and commits it (by count or age, or at once
//   when a Flush is waiting), retrying the same batch after a connection failure (a batch is idempotent: absolute
//   sequence numbers, upserts). _enqueuedOps (session thread) and _committedOps (writer, Volatile) count changes so
//   Flush can wait for "everything so far".
// - Lease: a lease row per session (holder, expiry on the database's clock, fencing token). The constructor takes it
//   (bumping the token), the lease thread renews it every LeaseDuration/4 on its own connection, and a watchdog timer
//   (no I/O, so a hung connection cannot delay it) faults the store once 3/4 of the lease has passed since the last
//   renewal that succeeded was sent: the primary stops before the database lets a standby in. Every write runs the
//   fence function (row lock + token check) first and updates with WHERE fencing_token = ours, so a stale primary's
//   write is refused by the database itself.
// - _fault (volatile, written by the lease thread, the watchdog or the writer under _faultLock; read by the session
//   thread before every change) holds the terminal failure; while set, every change throws it. A LeaseLost under
//   ResumeAfterLeaseLost is the one fault that clears: the lease thread keeps renewing, and a renewal that still finds
//   our token (nobody took the session over) clears it; Fenced replaces it. _unavailable (volatile) is the last failure
//   to reach the database by any thread, cleared by the next success; with the fault it makes CurrentFailure, which a
//   holding session polls.
// Record layout in _queue (little-endian):
//   +0 byte op  +1..3 zero  +4 int32 seqNum/value  +8 int64 creation time (reset)  +16 message bytes

/// <summary>An <see cref="IMessageStore"/> in PostgreSQL, shared by several engines and many sessions, with a lease and
/// fencing token per session so exactly one engine acts for a session at a time.</summary>
/// <remarks>
/// Not thread-safe: the session's thread owns it (a background writer and a lease thread run inside). Opening
/// connects, creates or checks the schema, takes the session's lease (waiting up to
/// <see cref="PostgresMessageStoreOptions.LeaseAcquireTimeout"/> for another holder's lease to expire) and loads the
/// session's state. Which changes a takeover may lose depends on <see cref="PostgresSyncPolicy"/>; see
/// docs/postgres-store.md. Failures throw <see cref="PostgresStoreException"/>. Under the asynchronous policies the
/// session-thread calls neither allocate nor block; under PerMessage each sender-side change costs a round trip.
/// </remarks>
public sealed class PostgresMessageStore : IMessageStore
{
    private const byte OpMessage = 1;
    private const byte OpMessageAndIncrement = 2;
    private const byte OpSender = 3;
    private const byte OpTarget = 4;
    private const byte OpReset = 5;
    private const byte OpProcessed = 6;
    private const int RecordHeaderLength = 16;

    private readonly PostgresMessageStoreOptions _options;
    private readonly PostgresStoreSql _sql;
    private readonly NpgsqlDataSource _dataSource;
    private readonly string _where;
    private readonly IMessageStore _local;
    private readonly SpscByteRing? _queue;
    private readonly PostgresBatch _batch = new();
    private readonly long _leaseMs;
    private readonly Thread? _writer;
    private readonly Thread _leaseThread;
    private readonly Timer _watchdog;
    private readonly ManualResetEventSlim _stopLease = new();
    private NpgsqlConnection? _sessionConnection;
    private volatile PostgresStoreException? _fault;
    private readonly object _faultLock = new();
    private volatile Exception? _lastWriterError;
    // The database could not be reached by the last attempt of any thread (session commit, writer, lease renewal); null
    // after the next success. The last QueueFull thrown (reported while the queue is still more than half full). Whether
    // a write failed on the session thread since the last successful one (then Dispose does not release the lease).
    private volatile PostgresStoreException? _unavailable;
    private PostgresStoreException? _queueFull;
    private bool _failedWrite;
    private long _leaseValidUntilTicks;
    private long _enqueuedOps;
    private long _committedOps;
    private volatile bool _flushRequested;
    private volatile bool _stopWriter;
    private bool _targetDirty;
    private bool _disposed;
    private volatile bool _renewalSuspended;
    private volatile bool _localLeaseCheckDisabled;
    private volatile bool _writerSuspended;

    /// <summary>Opens the store of <paramref name="sessionId"/>: connects, creates or checks the schema, takes the lease
    /// and loads the state.</summary>
    /// <param name="sessionId">The session identity (e.g. "FIX.4.4:SENDER->TARGET"), the key of its rows.</param>
    /// <param name="nowEpochNs">Creation time to record if the session is new in the database.</param>
    /// <param name="options">Connection string, table prefix, sync policy, lease settings.</param>
    /// <exception cref="PostgresStoreException">The database is unreachable (<see cref="PostgresStoreFailure.Unavailable"/>,
    /// naming host, port and database), its schema is newer (<see cref="PostgresStoreFailure.SchemaVersion"/>), or the
    /// lease stayed held by another engine (<see cref="PostgresStoreFailure.LeaseHeld"/>).</exception>
    public PostgresMessageStore(string sessionId, long nowEpochNs, PostgresMessageStoreOptions options)
    {
        ArgumentException.ThrowIfNullOrEmpty(sessionId);
        ArgumentNullException.ThrowIfNull(options);
        options.Validate();
        _options = options;
        SessionId = sessionId;
        HolderId = options.HolderId ?? $"{Environment.MachineName}:{Environment.ProcessId}:{Guid.NewGuid().ToString("N")[..8]}";
        _sql = new PostgresStoreSql(options.TablePrefix);
        _leaseMs = (long)options.LeaseDuration.TotalMilliseconds;
        var csb = new NpgsqlConnectionStringBuilder(options.ConnectionString);
        _where = $"PostgreSQL at {csb.Host ?? "localhost"}:{csb.Port}, database '{csb.Database ?? csb.Username ?? "(default)"}'";
        if (string.IsNullOrEmpty(csb.ApplicationName)) csb.ApplicationName = "fixengine " + sessionId;
        var builder = new NpgsqlSlimDataSourceBuilder(csb.ConnectionString);
        builder.EnableArrays();
        _dataSource = builder.Build();
        IMessageStore? local = null;
        try
        {
            using (NpgsqlConnection connection = Connect())
            {
                EnsureSchema(connection);
                Execute(connection, _sql.EnsureSession, sessionId, nowEpochNs);
                (long writtenToken, bool previousUnreleased) = AcquireLease(connection);
                local = OpenLocal(connection, nowEpochNs, writtenToken, out bool journalIsNewer);
                // The previous holder did not release the lease: it died, hung or lost the database, and may have sent
                // messages whose numbers never reached the database (the asynchronous policies' queue). A local journal
                // pushed as the newer copy lost nothing.
                MayHaveLostTail = previousUnreleased && !journalIsNewer;
            }
            _local = local;
            _batch.NextSender = local.NextSenderMsgSeqNum;
            _batch.NextTarget = local.NextTargetMsgSeqNum;
            _batch.CreationNs = local.CreationTimeEpochNs;
            _batch.Processed = local.LastProcessedInboundSeqNum;
            if (options.SyncPolicy != PostgresSyncPolicy.PerMessage)
            {
                _queue = new SpscByteRing(RoundUpToPowerOfTwo(options.QueueCapacityBytes));
                _writer = new Thread(RunWriter) { IsBackground = true, Name = "pg-writer " + sessionId };
                _writer.Start();
            }
        }
        catch (Exception ex)
        {
            local?.Dispose();
            if (FencingToken != 0) TryReleaseLease();
            _dataSource.Dispose();
            if (ex is PostgresStoreException) throw;
            throw Wrap(ex, "opening the store");
        }
        _leaseThread = new Thread(RunLease) { IsBackground = true, Name = "pg-lease " + sessionId };
        _leaseThread.Start();
        long period = Math.Max(10, _leaseMs / 20);
        _watchdog = new Timer(static s => ((PostgresMessageStore)s!).CheckLocalLease(), this, period, period);
    }

    /// <summary>The session identity this store keeps.</summary>
    public string SessionId { get; }

    /// <summary>This store's lease holder name, as written in the lease row.</summary>
    public string HolderId { get; }

    /// <summary>The fencing token (epoch) this store holds; every takeover increments it.</summary>
    public long FencingToken { get; private set; }

    /// <summary>The sync policy in force.</summary>
    public PostgresSyncPolicy SyncPolicy => _options.SyncPolicy;

    /// <summary>Whether a <see cref="PostgresStoreFailure.LeaseLost"/> may pass (<see cref="PostgresMessageStoreOptions.ResumeAfterLeaseLost"/>).</summary>
    public bool ResumeAfterLeaseLost => _options.ResumeAfterLeaseLost;

    /// <summary>False once the lease is lost or the database refused a write as stale: the session must stop sending.</summary>
    /// <remarks>Readable from any thread; see <see cref="Fault"/> for why.</remarks>
    public bool HoldsLease => _fault is null;

    /// <summary>The terminal failure, once there is one (lease lost, fenced); null while the store is healthy.</summary>
    public PostgresStoreException? Fault => _fault;

    /// <inheritdoc/>
    /// <remarks>True when the lease was taken from a holder that never released it (it expired: the holder died, hung
    /// or lost the database), except under <see cref="PostgresSyncPolicy.LocalJournalFirst"/> when this host's own
    /// journal was the newer copy. A clean <see cref="Dispose"/> releases the lease only when everything was committed
    /// and no write failed since the last successful one.</remarks>
    public bool MayHaveLostTail { get; }

    /// <inheritdoc/>
    /// <remarks>The terminal failure (<see cref="Fault"/>) if any; else the last failure to reach the database (session
    /// commit, background writer or lease renewal) until one of them succeeds again; else, under the asynchronous
    /// policies, the last <see cref="PostgresStoreFailure.QueueFull"/> while the queue is still more than half full;
    /// else null. A <see cref="PostgresStoreFailure.LeaseLost"/> clears under
    /// <see cref="PostgresMessageStoreOptions.ResumeAfterLeaseLost"/> once a renewal succeeds with this store's token.</remarks>
    public MessageStoreException? CurrentFailure
    {
        get
        {
            PostgresStoreException? failure = _fault ?? _unavailable;
            if (failure is not null) return failure;
            PostgresStoreException? queueFull = Volatile.Read(ref _queueFull);
            return queueFull is not null && _queue is not null && _queue.UsedBytes > _queue.Capacity / 2 ? queueFull : null;
        }
    }

    /// <summary>The last error of the background writer (retried), or null; for monitoring.</summary>
    public Exception? LastWriterError => _lastWriterError;

    /// <summary>Changes handed to the database writer but not yet committed (always 0 under PerMessage).</summary>
    public long PendingChanges => _enqueuedOps - Volatile.Read(ref _committedOps);

    /// <inheritdoc/>
    public int NextSenderMsgSeqNum => _local.NextSenderMsgSeqNum;

    /// <inheritdoc/>
    public int NextTargetMsgSeqNum => _local.NextTargetMsgSeqNum;

    /// <inheritdoc/>
    public long CreationTimeEpochNs => _local.CreationTimeEpochNs;

    /// <inheritdoc/>
    /// <remarks>Persisted in the session's row (<c>last_processed_inbound</c>) in the same transaction as the message that
    /// carried it (<see cref="AppendAndIncrement(int, ReadOnlySpan{byte}, int)"/>); a mark set alone rides on the next
    /// commit, like the inbound sequence number.</remarks>
    public int LastProcessedInboundSeqNum => _local.LastProcessedInboundSeqNum;

    /// <inheritdoc/>
    /// <remarks>The local journal's report under <see cref="PostgresSyncPolicy.LocalJournalFirst"/>; null otherwise (the
    /// database needs no recovery).</remarks>
    public StoreRecoveryReport? LastRecoveryReport => _local.LastRecoveryReport;

    /// <inheritdoc/>
    public void SetLastProcessedInboundSeqNum(int value)
    {
        if (value < 0) FixEngine.Internal.ThrowHelper.ThrowSeqNumOutOfRange(nameof(value), value);
        BeginChange();
        if (_queue is null)
        {
            _targetDirty = true;
        }
        else
        {
            Enqueue(OpProcessed, value, 0, default);
        }
        _local.SetLastProcessedInboundSeqNum(value);
    }

    /// <inheritdoc/>
    public void AppendAndIncrement(int seqNum, ReadOnlySpan<byte> message, int processedInboundSeqNum)
    {
        if (seqNum < 1) FixEngine.Internal.ThrowHelper.ThrowSeqNumOutOfRange(nameof(seqNum), seqNum);
        if (processedInboundSeqNum < 0) FixEngine.Internal.ThrowHelper.ThrowSeqNumOutOfRange(nameof(processedInboundSeqNum), processedInboundSeqNum);
        if (seqNum == int.MaxValue) FixEngine.Internal.ThrowHelper.ThrowSeqNumOverflow();
        BeginChange();
        if (_queue is null)
        {
            CommitSync(seqNum + 1, reset: false, creationNs: 0, seqNum, message, hasMessage: true, processedInboundSeqNum);
            _local.AppendAndIncrement(seqNum, message, processedInboundSeqNum);
            return;
        }
        Span<byte> record = Claim(message.Length);
        WriteRecord(record, OpMessageAndIncrement, seqNum, processedInboundSeqNum, message);
        try
        {
            _local.AppendAndIncrement(seqNum, message, processedInboundSeqNum);
        }
        catch
        {
            _queue.Abandon();
            throw;
        }
        Publish();
    }

    /// <inheritdoc/>
    public void SetNextSenderMsgSeqNum(int value)
    {
        if (value < 1) FixEngine.Internal.ThrowHelper.ThrowSeqNumOutOfRange(nameof(value), value);
        BeginChange();
        if (_queue is null)
        {
            CommitSync(value, reset: false, creationNs: 0, seqNum: 0, default, hasMessage: false);
        }
        else
        {
            Enqueue(OpSender, value, 0, default);
        }
        _local.SetNextSenderMsgSeqNum(value);
    }

    /// <inheritdoc/>
    public void SetNextTargetMsgSeqNum(int value)
    {
        if (value < 1) FixEngine.Internal.ThrowHelper.ThrowSeqNumOutOfRange(nameof(value), value);
        BeginChange();
        if (_queue is null)
        {
            _targetDirty = true;
        }
        else
        {
            Enqueue(OpTarget, value, 0, default);
        }
        _local.SetNextTargetMsgSeqNum(value);
    }

    /// <inheritdoc/>
    public void IncrNextSenderMsgSeqNum()
    {
        if (_local.NextSenderMsgSeqNum == int.MaxValue) FixEngine.Internal.ThrowHelper.ThrowSeqNumOverflow();
        SetNextSenderMsgSeqNum(_local.NextSenderMsgSeqNum + 1);
    }

    /// <inheritdoc/>
    public void IncrNextTargetMsgSeqNum()
    {
        if (_local.NextTargetMsgSeqNum == int.MaxValue) FixEngine.Internal.ThrowHelper.ThrowSeqNumOverflow();
        SetNextTargetMsgSeqNum(_local.NextTargetMsgSeqNum + 1);
    }

    /// <inheritdoc/>
    public void Append(int seqNum, ReadOnlySpan<byte> message)
    {
        if (seqNum < 1) FixEngine.Internal.ThrowHelper.ThrowSeqNumOutOfRange(nameof(seqNum), seqNum);
        BeginChange();
        if (_queue is null)
        {
            CommitSync(_local.NextSenderMsgSeqNum, reset: false, creationNs: 0, seqNum, message, hasMessage: true);
            _local.Append(seqNum, message);
            return;
        }
        Span<byte> record = Claim(message.Length);
        WriteRecord(record, OpMessage, seqNum, 0, message);
        try
        {
            _local.Append(seqNum, message);
        }
        catch
        {
            _queue.Abandon();
            throw;
        }
        Publish();
    }

    /// <inheritdoc/>
    public void AppendAndIncrement(int seqNum, ReadOnlySpan<byte> message)
    {
        if (seqNum < 1) FixEngine.Internal.ThrowHelper.ThrowSeqNumOutOfRange(nameof(seqNum), seqNum);
        if (seqNum == int.MaxValue) FixEngine.Internal.ThrowHelper.ThrowSeqNumOverflow();
        BeginChange();
        if (_queue is null)
        {
            CommitSync(seqNum + 1, reset: false, creationNs: 0, seqNum, message, hasMessage: true);
            _local.AppendAndIncrement(seqNum, message);
            return;
        }
        Span<byte> record = Claim(message.Length);
        WriteRecord(record, OpMessageAndIncrement, seqNum, -1, message);
        try
        {
            _local.AppendAndIncrement(seqNum, message);
        }
        catch
        {
            _queue.Abandon();
            throw;
        }
        Publish();
    }

    /// <inheritdoc/>
    public int ReadRange<THandler>(int beginSeqNo, int endSeqNo, ref THandler handler) where THandler : struct, IStoredMessageHandler
    {
        if (_disposed) FixEngine.Internal.ThrowHelper.ThrowObjectDisposed(nameof(PostgresMessageStore));
        return _local.ReadRange(beginSeqNo, endSeqNo, ref handler);
    }

    /// <inheritdoc/>
    public void Reset(long nowEpochNs)
    {
        BeginChange();
        if (_queue is null)
        {
            CommitSync(1, reset: true, nowEpochNs, 0, default, hasMessage: false);
        }
        else
        {
            Enqueue(OpReset, 1, nowEpochNs, default);
        }
        _local.Reset(nowEpochNs);
    }

    /// <summary>Returns once every change made so far is committed in PostgreSQL (and, for LocalJournalFirst, the local
    /// journal is flushed to disk).</summary>
    /// <exception cref="PostgresStoreException">The writer could not commit within
    /// <see cref="PostgresMessageStoreOptions.FlushTimeout"/>, or the store is fenced or lost its lease.</exception>
    public void Flush()
    {
        BeginChange();
        _local.Flush();
        if (_queue is null)
        {
            if (_targetDirty) CommitSync(_local.NextSenderMsgSeqNum, reset: false, creationNs: 0, 0, default, hasMessage: false);
            return;
        }
        WaitForWriter(_enqueuedOps, _options.FlushTimeout);
    }

    /// <summary>Flushes, then reloads the state: from PostgreSQL (PerMessage, GroupCommit) or the local journal
    /// (LocalJournalFirst).</summary>
    public void Refresh()
    {
        Flush();
        if (_options.SyncPolicy == PostgresSyncPolicy.LocalJournalFirst)
        {
            _local.Refresh();
            return;
        }
        try
        {
            using NpgsqlConnection connection = Connect();
            LoadInto((MemoryMessageStore)_local, connection, expectToken: true);
        }
        catch (Exception ex) when (ex is not PostgresStoreException)
        {
            throw Wrap(ex, "refreshing");
        }
    }

    /// <summary>Commits what is queued (waiting up to <see cref="PostgresMessageStoreOptions.FlushTimeout"/>), releases the
    /// lease so a standby may take over at once, and closes the connections. Does not throw.</summary>
    public void Dispose()
    {
        if (_disposed) return;
        _disposed = true;
        _watchdog.Dispose();
        if (_writer is not null)
        {
            _stopWriter = true;
            _writer.Join(_options.FlushTimeout + TimeSpan.FromSeconds(5));
        }
        else if (_targetDirty && _fault is null)
        {
            try
            {
                CommitSync(_local.NextSenderMsgSeqNum, reset: false, creationNs: 0, 0, default, hasMessage: false);
            }
            catch (PostgresStoreException)
            {
                // Only an inbound sequence number was pending: a standby asks for those messages again.
            }
        }
        _stopLease.Set();
        _leaseThread.Join(TimeSpan.FromSeconds(10));
        // Release (so a standby takes over at once, and knows nothing was lost) only when everything handed to the store
        // is committed and no write failed since the last success; otherwise the lease expires and the next holder
        // learns that the tail may be lost (MayHaveLostTail).
        bool clean = !_failedWrite && _enqueuedOps == Volatile.Read(ref _committedOps) && !_targetDirty;
        if (_fault is null && !_renewalSuspended && clean) TryReleaseLease();
        _sessionConnection?.Dispose();
        _sessionConnection = null;
        _local.Dispose();
        _dataSource.Dispose();
        _stopLease.Dispose();
    }

    private void TryReleaseLease()
    {
        try
        {
            using NpgsqlConnection connection = Connect();
            Execute(connection, _sql.Release, SessionId, FencingToken);
        }
        catch (Exception ex) when (ex is NpgsqlException or IOException or InvalidOperationException or TimeoutException)
        {
            // The lease then expires on its own after LeaseDuration.
        }
    }

    /// <summary>Test hook: the writer stops committing (as a primary that dies with changes still queued).</summary>
    internal void SuspendWriter() => _writerSuspended = true;

    /// <summary>Test hook: the writer commits again.</summary>
    internal void ResumeWriter() => _writerSuspended = false;

    /// <summary>Test hook: stop renewing the lease (as a primary that hangs or loses its network would).</summary>
    internal void SuspendLeaseRenewal() => _renewalSuspended = true;

    /// <summary>Test hook: renew the lease again (the primary's network is back).</summary>
    internal void ResumeLeaseRenewal() => _renewalSuspended = false;

    /// <summary>Test hook: never fault on the local lease deadline, so a stale primary's writes reach the database (as
    /// one paused right after its last check would).</summary>
    internal void DisableLocalLeaseCheck() => _localLeaseCheckDisabled = true;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void BeginChange()
    {
        if (_disposed) FixEngine.Internal.ThrowHelper.ThrowObjectDisposed(nameof(PostgresMessageStore));
        PostgresStoreException? fault = _fault;
        if (fault is not null) ThrowFault(fault);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void ThrowFault(PostgresStoreException fault) =>
        throw new PostgresStoreException(fault.Failure, fault.Message, fault) { LeaseMayReturn = fault.LeaseMayReturn };

    private Span<byte> Claim(int messageLength)
    {
        ByteRingClaimStatus status = _queue!.Claim(RecordHeaderLength + messageLength, out Span<byte> span);
        if (status != ByteRingClaimStatus.Claimed) ThrowQueueFull(status, messageLength);
        return span;
    }

    private void Enqueue(byte op, int value, long creationNs, ReadOnlySpan<byte> message)
    {
        Span<byte> record = Claim(message.Length);
        WriteRecord(record, op, value, creationNs, message);
        Publish();
    }

    private static void WriteRecord(Span<byte> record, byte op, int value, long creationNs, ReadOnlySpan<byte> message)
    {
        BinaryPrimitives.WriteInt32LittleEndian(record, op);
        BinaryPrimitives.WriteInt32LittleEndian(record.Slice(4), value);
        BinaryPrimitives.WriteInt64LittleEndian(record.Slice(8), creationNs);
        message.CopyTo(record.Slice(RecordHeaderLength));
    }

    private void Publish()
    {
        _queue!.Commit();
        _enqueuedOps++;
        _failedWrite = false;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void ThrowQueueFull(ByteRingClaimStatus status, int messageLength)
    {
        if (status == ByteRingClaimStatus.TooLarge)
        {
            throw new ArgumentException(
                $"The message is {messageLength} bytes; with QueueCapacityBytes={_queue!.Capacity} the store accepts at most {_queue.MaxRecordLength - RecordHeaderLength} bytes per message.", "message");
        }
        var full = new PostgresStoreException(PostgresStoreFailure.QueueFull,
            $"Session {SessionId}: the write queue to {_where} is full ({_queue!.Capacity} bytes, {PendingChanges} changes not yet committed); " +
            $"last writer error: {_lastWriterError?.Message ?? "none"}. The change was not applied.");
        Volatile.Write(ref _queueFull, full);
        _failedWrite = true;
        throw full;
    }

    /// <summary>PerMessage: commits one change (state after it, optional message or reset) on the session thread.</summary>
    private void CommitSync(int nextSender, bool reset, long creationNs, int seqNum, ReadOnlySpan<byte> message, bool hasMessage, int processed = -1)
    {
        PostgresBatch batch = _batch;
        batch.Clear();
        if (reset)
        {
            batch.ApplyReset(creationNs);
        }
        else
        {
            batch.NextSender = nextSender;
            batch.NextTarget = _local.NextTargetMsgSeqNum;
            batch.CreationNs = _local.CreationTimeEpochNs;
            batch.Processed = processed >= 0 ? processed : _local.LastProcessedInboundSeqNum;
            if (hasMessage) batch.AddMessage(seqNum, message);
        }
        batch.OpCount = 1;
        try
        {
            _sessionConnection ??= Connect();
            CommitBatch(_sessionConnection, batch);
            _targetDirty = false;
            _failedWrite = false;
            _unavailable = null;
        }
        catch (PostgresException ex) when (ex.SqlState == PostgresStoreSql.FencedSqlState)
        {
            SetFault(PostgresStoreFailure.Fenced, $"Session {SessionId}: {_where} refused the write: {ex.MessageText}", ex);
            ThrowFault(_fault!);
        }
        catch (Exception ex)
        {
            _sessionConnection?.Dispose();
            _sessionConnection = null;
            _failedWrite = true;
            PostgresStoreException failure = Wrap(ex, "writing (the change was not applied; the next call reconnects)");
            _unavailable = failure;
            if (ReferenceEquals(failure, ex)) throw;
            throw failure;
        }
    }

    private void CommitBatch(NpgsqlConnection connection, PostgresBatch batch)
    {
        using var command = new NpgsqlBatch(connection);
        command.BatchCommands.Add(Command(_sql.Fence, SessionId, FencingToken));
        command.BatchCommands.Add(Command(_sql.UpdateState, SessionId, FencingToken, batch.NextSender, batch.NextTarget, batch.CreationNs, batch.Processed));
        if (batch.Reset) command.BatchCommands.Add(Command(_sql.DeleteMessages, SessionId));
        if (batch.MessageCount != 0)
        {
            (int[] seqNums, int[] offsets, int[] lengths) = batch.ToArrays();
            command.BatchCommands.Add(Command(_sql.UpsertMessages, SessionId, seqNums, offsets, lengths, batch.Bytes));
        }
        // One round trip; PostgreSQL runs the commands of a batch as one implicit transaction, so the changes land
        // together or not at all, and only if the fence function found our token current.
        command.ExecuteNonQuery();
    }

    private void WaitForWriter(long target, TimeSpan timeout)
    {
        long deadline = Stopwatch.GetTimestamp() + (long)(timeout.TotalSeconds * Stopwatch.Frequency);
        _flushRequested = true;
        while (Volatile.Read(ref _committedOps) < target)
        {
            PostgresStoreException? fault = _fault;
            if (fault is not null) ThrowFault(fault);
            if (Stopwatch.GetTimestamp() > deadline)
            {
                throw new PostgresStoreException(PostgresStoreFailure.Unavailable,
                    $"Session {SessionId}: {_where} did not commit {target - Volatile.Read(ref _committedOps)} queued changes within {timeout.TotalSeconds:0.###} s; " +
                    $"last error: {_lastWriterError?.Message ?? "none"}. They stay queued and are retried.", _lastWriterError);
            }
            Thread.Sleep(1);
        }
    }

    private void RunWriter()
    {
        NpgsqlConnection? connection = null;
        long retryAt = 0;
        long intervalTicks = (long)(_options.GroupCommitInterval.TotalSeconds * Stopwatch.Frequency);
        long stopDeadline = long.MaxValue;
        var drain = new DrainHandler { Store = this, Batch = _batch };
        try
        {
            while (true)
            {
                bool stopping = _stopWriter;
                if (stopping && stopDeadline == long.MaxValue)
                {
                    stopDeadline = Stopwatch.GetTimestamp() + (long)(_options.FlushTimeout.TotalSeconds * Stopwatch.Frequency);
                }
                int room = _options.GroupCommitMaxOps - _batch.OpCount;
                int drained = room > 0 ? _queue!.Read(ref drain, room) : 0;
                long now = Stopwatch.GetTimestamp();
                if (drained != 0 && _batch.OpCount == drained) _batch.FirstOpTicks = now;
                bool due = _batch.OpCount != 0 && (_batch.OpCount >= _options.GroupCommitMaxOps || now - _batch.FirstOpTicks >= intervalTicks
                    || _flushRequested || stopping);
                if (due && now >= retryAt && !_writerSuspended && _fault?.Failure != PostgresStoreFailure.Fenced)
                {
                    try
                    {
                        connection ??= Connect();
                        CommitBatch(connection, _batch);
                        Volatile.Write(ref _committedOps, _committedOps + _batch.OpCount);
                        _batch.Clear();
                        _lastWriterError = null;
                        _unavailable = null;
                        continue;
                    }
                    catch (PostgresException ex) when (ex.SqlState == PostgresStoreSql.FencedSqlState)
                    {
                        SetFault(PostgresStoreFailure.Fenced, $"Session {SessionId}: {_where} refused the write: {ex.MessageText}", ex);
                    }
                    catch (Exception ex) when (ex is NpgsqlException or IOException or InvalidOperationException or TimeoutException)
                    {
                        _lastWriterError = ex;
                        _unavailable = Wrap(ex, "committing queued changes (retried)");
                        connection?.Dispose();
                        connection = null;
                        retryAt = Stopwatch.GetTimestamp() + Stopwatch.Frequency / 10;
                    }
                }
                if (_batch.OpCount == 0 && _queue!.UsedBytes == 0)
                {
                    _flushRequested = false;
                    if (stopping) return;
                }
                if (stopping && (Stopwatch.GetTimestamp() > stopDeadline || _fault?.Failure == PostgresStoreFailure.Fenced)) return;
                if (drained == 0) Thread.Sleep(1);
            }
        }
        finally
        {
            connection?.Dispose();
        }
    }

    /// <summary>Applies queued records to the writer's batch (writer thread).</summary>
    private struct DrainHandler : IByteRecordHandler
    {
        public PostgresMessageStore Store;
        public PostgresBatch Batch;

        public void OnRecord(ReadOnlySpan<byte> record)
        {
            byte op = record[0];
            int value = BinaryPrimitives.ReadInt32LittleEndian(record.Slice(4));
            switch (op)
            {
                case OpMessage:
                    Batch.AddMessage(value, record.Slice(RecordHeaderLength));
                    break;
                case OpMessageAndIncrement:
                    Batch.AddMessage(value, record.Slice(RecordHeaderLength));
                    Batch.NextSender = value + 1;
                    long processed = BinaryPrimitives.ReadInt64LittleEndian(record.Slice(8));
                    if (processed >= 0) Batch.Processed = (int)processed;
                    break;
                case OpProcessed:
                    Batch.Processed = value;
                    break;
                case OpSender:
                    Batch.NextSender = value;
                    break;
                case OpTarget:
                    Batch.NextTarget = value;
                    break;
                default:
                    Batch.ApplyReset(BinaryPrimitives.ReadInt64LittleEndian(record.Slice(8)));
                    break;
            }
            Batch.OpCount++;
        }
    }

    private void RunLease()
    {
        NpgsqlConnection? connection = null;
        TimeSpan period = TimeSpan.FromMilliseconds(Math.Max(20, _leaseMs / 4));
        try
        {
            while (!_stopLease.Wait(period))
            {
                if (_renewalSuspended) continue;
                // After a LeaseLost the store may try to get its own lease back (ResumeAfterLeaseLost); never after Fenced.
                PostgresStoreException? fault = _fault;
                if (fault is not null && !(fault.Failure == PostgresStoreFailure.LeaseLost && fault.LeaseMayReturn)) continue;
                long sentAt = Stopwatch.GetTimestamp();
                try
                {
                    connection ??= Connect();
                    using var command = new NpgsqlCommand(_sql.Renew, connection);
                    AddParameters(command.Parameters, SessionId, FencingToken, _leaseMs, HolderId);
                    command.CommandTimeout = (int)Math.Max(1, _leaseMs / 4000);
                    if (command.ExecuteNonQuery() == 1)
                    {
                        // The deadline moves first, so the watchdog does not fault again once the LeaseLost is cleared.
                        Volatile.Write(ref _leaseValidUntilTicks, sentAt + LocalLeaseTicks());
                        _unavailable = null;
                        if (fault is not null)
                        {
                            // Our token is still current (a standby's take would have bumped it): nobody acted for the
                            // session meanwhile, so this store may write again.
                            lock (_faultLock)
                            {
                                if (ReferenceEquals(_fault, fault)) _fault = null;
                            }
                        }
                    }
                    else
                    {
                        SetFault(PostgresStoreFailure.Fenced,
                            $"Session {SessionId}: the lease in {_where} was taken over (fencing token {FencingToken} is no longer current); this store stops.");
                    }
                }
                catch (Exception ex) when (ex is NpgsqlException or IOException or InvalidOperationException or TimeoutException)
                {
                    _lastWriterError ??= ex;
                    _unavailable = Wrap(ex, "renewing the lease");
                    connection?.Dispose();
                    connection = null;
                }
            }
        }
        finally
        {
            connection?.Dispose();
        }
    }

    private long LocalLeaseTicks() => _leaseMs * 3 / 4 * Stopwatch.Frequency / 1000;

    private void CheckLocalLease()
    {
        if (_fault is not null || _localLeaseCheckDisabled) return;
        if (Stopwatch.GetTimestamp() <= Volatile.Read(ref _leaseValidUntilTicks)) return;
        SetFault(PostgresStoreFailure.LeaseLost,
            $"Session {SessionId}: the lease in {_where} was not renewed within {_leaseMs * 3 / 4} ms (3/4 of LeaseDuration); this store stops " +
            (_options.ResumeAfterLeaseLost
                ? "writing so a standby can take over, and takes writes again if it renews the lease before anyone else takes it. "
                : "so a standby can take over. ") +
            $"Last error: {_lastWriterError?.Message ?? "none"}.");
    }

    private void SetFault(PostgresStoreFailure failure, string message, Exception? inner = null)
    {
        lock (_faultLock)
        {
            // The first failure stays, except that Fenced (terminal for certain) replaces a LeaseLost that may return.
            if (_fault is null || (failure == PostgresStoreFailure.Fenced && _fault.Failure != PostgresStoreFailure.Fenced))
            {
                _fault = new PostgresStoreException(failure, message, inner)
                {
                    LeaseMayReturn = failure == PostgresStoreFailure.LeaseLost && _options.ResumeAfterLeaseLost,
                };
            }
        }
    }

    private NpgsqlConnection Connect()
    {
        try
        {
            return _dataSource.OpenConnection();
        }
        catch (Exception ex) when (ex is NpgsqlException or IOException or System.Net.Sockets.SocketException or TimeoutException)
        {
            throw new PostgresStoreException(PostgresStoreFailure.Unavailable,
                $"Session {SessionId}: cannot connect to {_where}: {ex.Message}", ex);
        }
    }

    private PostgresStoreException Wrap(Exception ex, string doing) => ex switch
    {
        PostgresStoreException p => p,
        PostgresException pg => new PostgresStoreException(PostgresStoreFailure.Unavailable,
            $"Session {SessionId}: {_where} failed while {doing}: {pg.SqlState} {pg.MessageText}", pg),
        _ => new PostgresStoreException(PostgresStoreFailure.Unavailable,
            $"Session {SessionId}: lost the connection to {_where} while {doing}: {ex.Message}", ex),
    };

    private void EnsureSchema(NpgsqlConnection connection)
    {
        using NpgsqlTransaction transaction = connection.BeginTransaction();
        // Several engines may open their first session at once: one creates the schema, the others wait here.
        Execute(connection, "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", _sql.SchemaLockKey);
        bool exists;
        using (var command = new NpgsqlCommand(_sql.TableExists, connection))
        {
            AddParameters(command.Parameters, _sql.VersionTable);
            exists = (bool)command.ExecuteScalar()!;
        }
        if (!exists)
        {
            using var create = new NpgsqlCommand(_sql.CreateSchema, connection);
            create.ExecuteNonQuery();
        }
        else
        {
            using var read = new NpgsqlCommand(_sql.ReadVersion, connection);
            object? version = read.ExecuteScalar();
            int found = version is int v ? v : 0;
            if (found > PostgresMessageStoreOptions.SchemaVersion)
            {
                throw new PostgresStoreException(PostgresStoreFailure.SchemaVersion,
                    $"The store schema in {_where} (table {_sql.VersionTable}) is version {found}, written by a newer FixEngine; " +
                    $"this build understands version {PostgresMessageStoreOptions.SchemaVersion} and does not touch a newer schema.");
            }
            if (found < 1)
            {
                throw new PostgresStoreException(PostgresStoreFailure.SchemaVersion,
                    $"The store schema in {_where} has an empty or invalid {_sql.VersionTable} (version {found}); expected version {PostgresMessageStoreOptions.SchemaVersion}.");
            }
        }
        transaction.Commit();
    }

    /// <summary>Takes the lease (waiting for another holder's to expire); returns the token of the last write and whether
    /// the previous holder left without releasing the lease.</summary>
    private (long WrittenToken, bool PreviousUnreleased) AcquireLease(NpgsqlConnection connection)
    {
        long start = Stopwatch.GetTimestamp();
        TimeSpan timeout = _options.LeaseAcquireTimeout;
        while (true)
        {
            long sentAt = Stopwatch.GetTimestamp();
            using (var command = new NpgsqlCommand(_sql.Acquire, connection))
            {
                AddParameters(command.Parameters, SessionId, HolderId, _leaseMs);
                using NpgsqlDataReader reader = command.ExecuteReader();
                if (reader.Read())
                {
                    FencingToken = reader.GetInt64(0);
                    long written = reader.GetInt64(1);
                    bool previousUnreleased = reader.GetBoolean(2);
                    Volatile.Write(ref _leaseValidUntilTicks, sentAt + LocalLeaseTicks());
                    return (written, previousUnreleased);
                }
            }
            string holder;
            long token;
            double remainingMs;
            using (var info = new NpgsqlCommand(_sql.LeaseInfo, connection))
            {
                AddParameters(info.Parameters, SessionId);
                using NpgsqlDataReader reader = info.ExecuteReader();
                reader.Read();
                holder = reader.GetString(0);
                token = reader.GetInt64(1);
                remainingMs = reader.GetDouble(2);
            }
            TimeSpan waited = Stopwatch.GetElapsedTime(start);
            if (timeout != Timeout.InfiniteTimeSpan && waited >= timeout)
            {
                throw new PostgresStoreException(PostgresStoreFailure.LeaseHeld,
                    $"Session {SessionId} in {_where} is held by '{holder}' (fencing token {token}, lease valid for another {remainingMs:0} ms); " +
                    $"gave up after {waited.TotalMilliseconds:0} ms (LeaseAcquireTimeout).");
            }
            double sleepMs = Math.Clamp(remainingMs + 5, 5, 1000);
            if (timeout != Timeout.InfiniteTimeSpan) sleepMs = Math.Min(sleepMs, Math.Max(1, (timeout - waited).TotalMilliseconds));
            Thread.Sleep(TimeSpan.FromMilliseconds(sleepMs));
        }
    }

    private IMessageStore OpenLocal(NpgsqlConnection connection, long nowEpochNs, long writtenToken, out bool journalIsNewer)
    {
        journalIsNewer = false;
        if (_options.SyncPolicy != PostgresSyncPolicy.LocalJournalFirst)
        {
            var memory = new MemoryMessageStore(nowEpochNs, initialIndexCapacity: _options.InitialIndexCapacity, initialCapacityInBytes: _options.InitialCapacityInBytes);
            try
            {
                LoadInto(memory, connection, expectToken: false);
            }
            catch
            {
                memory.Dispose();
                throw;
            }
            return memory;
        }
        var journal = new FileMessageStore(_options.LocalJournalDirectory!, SessionId, nowEpochNs, _options.LocalJournalOptions
            ?? new FileMessageStoreOptions { SyncPolicy = FileStoreSyncPolicy.OS, InitialIndexCapacity = _options.InitialIndexCapacity });
        try
        {
            string fencePath = journal.JournalPath + ".pgfence";
            long journalToken = File.Exists(fencePath) && long.TryParse(File.ReadAllText(fencePath).Trim(), out long t) ? t : 0;
            if (writtenToken == 0 || journalToken == writtenToken)
            {
                // Nobody wrote the database after this journal's last holder (us): the journal is the newer copy.
                PushJournal(connection, journal);
                journalIsNewer = true;
            }
            else
            {
                // Another holder wrote the database since: this journal is stale, rebuild it from the database.
                var memory = new MemoryMessageStore(nowEpochNs, initialIndexCapacity: _options.InitialIndexCapacity, initialCapacityInBytes: _options.InitialCapacityInBytes);
                try
                {
                    LoadInto(memory, connection, expectToken: false);
                    journal.Reset(memory.CreationTimeEpochNs);
                    var copy = new CopyHandler { Target = journal };
                    memory.ReadRange(1, 0, ref copy);
                    journal.SetNextSenderMsgSeqNum(memory.NextSenderMsgSeqNum);
                    journal.SetNextTargetMsgSeqNum(memory.NextTargetMsgSeqNum);
                    journal.SetLastProcessedInboundSeqNum(memory.LastProcessedInboundSeqNum);
                    journal.Flush();
                }
                finally
                {
                    memory.Dispose();
                }
            }
            File.WriteAllText(fencePath, FencingToken.ToString(System.Globalization.CultureInfo.InvariantCulture));
            return journal;
        }
        catch
        {
            journal.Dispose();
            throw;
        }
    }

    private void PushJournal(NpgsqlConnection connection, FileMessageStore journal)
    {
        var batch = new PostgresBatch();
        batch.ApplyReset(journal.CreationTimeEpochNs);
        batch.NextSender = journal.NextSenderMsgSeqNum;
        batch.NextTarget = journal.NextTargetMsgSeqNum;
        batch.Processed = journal.LastProcessedInboundSeqNum;
        var collect = new BatchHandler { Batch = batch };
        journal.ReadRange(1, 0, ref collect);
        batch.OpCount = 1;
        CommitBatch(connection, batch);
    }

    private struct CopyHandler : IStoredMessageHandler
    {
        public IMessageStore Target;

        public readonly bool OnMessage(int seqNum, ReadOnlySpan<byte> message)
        {
            Target.Append(seqNum, message);
            return true;
        }
    }

    private struct BatchHandler : IStoredMessageHandler
    {
        public PostgresBatch Batch;

        public readonly bool OnMessage(int seqNum, ReadOnlySpan<byte> message)
        {
            Batch.AddMessage(seqNum, message);
            return true;
        }
    }

    private void LoadInto(MemoryMessageStore memory, NpgsqlConnection connection, bool expectToken)
    {
        long creation;
        int sender;
        int target;
        int processed;
        using (var command = new NpgsqlCommand(_sql.LoadState, connection))
        {
            AddParameters(command.Parameters, SessionId);
            using NpgsqlDataReader reader = command.ExecuteReader();
            if (!reader.Read()) throw new PostgresStoreException(PostgresStoreFailure.Fenced, $"Session {SessionId}: its row in {_where} is gone.");
            long token = reader.GetInt64(0);
            if (expectToken && token != FencingToken)
            {
                SetFault(PostgresStoreFailure.Fenced, $"Session {SessionId}: taken over in {_where} (fencing token {token}, ours {FencingToken}).");
                ThrowFault(_fault!);
            }
            creation = reader.GetInt64(1);
            sender = reader.GetInt32(2);
            target = reader.GetInt32(3);
            processed = reader.GetInt32(4);
        }
        memory.Reset(creation);
        using (var command = new NpgsqlCommand(_sql.LoadMessages, connection))
        {
            AddParameters(command.Parameters, SessionId);
            using NpgsqlDataReader reader = command.ExecuteReader();
            while (reader.Read()) memory.Append(reader.GetInt32(0), reader.GetFieldValue<byte[]>(1));
        }
        memory.SetNextSenderMsgSeqNum(sender);
        memory.SetNextTargetMsgSeqNum(target);
        memory.SetLastProcessedInboundSeqNum(processed);
    }

    private static void Execute(NpgsqlConnection connection, string sql, params object[] values)
    {
        using var command = new NpgsqlCommand(sql, connection);
        AddParameters(command.Parameters, values);
        command.ExecuteNonQuery();
    }

    private static NpgsqlBatchCommand Command(string sql, params object[] values)
    {
        var command = new NpgsqlBatchCommand(sql);
        AddParameters(command.Parameters, values);
        return command;
    }

    private static void AddParameters(NpgsqlParameterCollection parameters, params object[] values)
    {
        foreach (object value in values) parameters.Add(new NpgsqlParameter { Value = value });
    }

    private static int RoundUpToPowerOfTwo(int value) => (int)Math.Min(SpscByteRing.MaxCapacity, System.Numerics.BitOperations.RoundUpToPowerOf2((uint)value));
}
