using System;
using System.Buffers;
using System.Net;
using System.Runtime.CompilerServices;
using System.Threading;
using FixEngine.Codec;
using FixEngine.Hosting;

namespace FixEngine.Transport;

// Design:
// - The one close lifecycle of a connection: Open -> (Flushing) -> Closing -> TornDown. Flushing is optional: an orderly
//   close that first lets queued bytes leave (CloseAfterFlush), bounded by FlushTimeoutNs of the time Poll is given.
//   _flushUntilNs: 0 = not flushing; FlushClaiming while the first caller writes the reason; FlushRequested once it is
//   written, until the first Poll turns it into a deadline (so the deadline is in the poller's monotonic time and
//   nobody reads a clock here); then the deadline. Poll closes once the queue is empty or the deadline passed, and a
//   flush request that finds the queue already empty closes at once.
// - Closing and TornDown in two ints. _closeClaimed: the first Close/Abort (from any thread) wins a CAS and alone writes
//   _reason/_detail. _state: low 30 bits count operations in flight that use pooled resources (a Poll, the
//   completion-mode receive loop, an async send); bit 30 (ClosingFlag) is set by the winner after it wrote
//   the reason (Interlocked.Or is a full fence, so whoever sees the flag sees the reason).
// - An operation enters with Interlocked.Increment and bails out if the flag is set; it leaves with
//   Interlocked.Decrement. Whoever observes "flag set, count 0" (the closer, or the last operation to leave)
//   runs the teardown, made exactly-once by an Interlocked.Exchange on _tornDown. So pooled buffers are returned only
//   when no thread can touch them, and OnDisconnected is called exactly once, after that.
// - Receive pause: one ReceivePause state machine for TCP and TLS (see ReceivePause.cs); the subclass's receive loop
//   parks through TryParkReceive, and ResumeReceive restarts a parked loop through RestartReceiveLoop (TCP inline, TLS
//   on the thread pool).
// - The receive buffer and framing state (_receive*, _consecutive*) belong to the single receiving thread
//   (busy-poll owner or the completion loop, which never overlap: one receive is outstanding at a time).
// - Close from another thread does not wait: it wakes blocked/pending operations (subclass OnCloseRequested)
//   and the teardown runs when the last one leaves.
// - Handler gate: an accepted connection gets its handler (SetHandler, acceptor thread) only after the accept
//   handler returned, but the accept handler may already have called Start or handed it to its poller. So nothing
//   is received before a handler is published: Poll skips the receive while _handler is null (Volatile.Read pairs
//   with the Volatile.Write in SetHandler), and a Start that finds no handler sets StartRequestedBit and returns;
//   SetHandler sets HandlerSetBit. Both use Interlocked.Or on _startGate, so exactly one of them sees both bits
//   and calls BeginReceive (once).

/// <summary>A framed FIX byte-stream connection (TCP or TLS): receive callbacks through an <see cref="IConnectionHandler"/>, a bounded send path, and one disconnect notification.</summary>
/// <remarks>
/// <para>Threads: receive callbacks never overlap (see <see cref="IConnectionHandler"/>). The send members
/// (<see cref="GetSendSpan"/>/<see cref="Commit"/>/<see cref="TrySend"/>) must be called by one thread at a time,
/// normally the owner (the session's thread), including from inside a receive callback on that thread; other threads
/// hand bytes to the owner (the session layer does this through an SPSC ring). <see cref="Close"/>, <see cref="Abort"/>
/// and the status properties are safe from any thread.</para>
/// <para>Allocation: the TCP and TLS receive and send paths allocate nothing in steady state (TLS: measured with SslStream's
/// own work included; the handshake allocates).</para>
/// </remarks>
internal abstract partial class TransportConnection : IAgent, IDisposable
{
    private const int ClosingFlag = 0x4000_0000;
    private const int ActiveMask = ClosingFlag - 1;
    private const int HandlerSetBit = 1;
    private const int StartRequestedBit = 2;
    private const long FlushClaiming = -2;
    private const long FlushRequested = -1;

    /// <summary>Longest wait, in the time given to <see cref="Poll"/>, for queued bytes to leave before a
    /// <see cref="CloseAfterFlush"/> closes anyway.</summary>
    public const long FlushTimeoutNs = 2_000_000_000L;
    private static long s_nextId;

    /// <summary>The pool every buffer of the connection is rented from (receive buffer, send queue, TLS ciphertext).</summary>
    private protected readonly ArrayPool<byte> _pool;
    private readonly int _initialReceiveBytes;
    private readonly int _maxReceiveBytes;
    private readonly int _maxBodyLimit;
    // Receiving thread (SetSessionLimits runs on it): the pre-Logon limit, then the session's.
    private int _maxBodyLength;
    private int _baseReceiveBytes;
    private bool _validateLengthAndChecksum;
    private readonly int _maxFrameErrors;
    private readonly int _maxGarbageBytes;
    private readonly int _initialSendBytes;
    // Encode buffer for GetSendSpan/Commit. Owner thread only (never pooled, so a late write after teardown cannot
    // corrupt a pool).
    private byte[]? _sendBuffer;
    private IConnectionHandler? _handler;
    private int _state;
    private int _closeClaimed;
    private int _tornDown;
    private int _startGate;
    private ReceivePause _receivePause;
    private long _flushUntilNs;
    private DisconnectReason _flushReason;
    private string? _flushDetail;
    private DisconnectReason _reason;
    private string? _detail;
    private string? _name;

    private protected TransportConnection(TcpConnectionOptions options, IConnectionHandler? handler)
    {
        ArgumentNullException.ThrowIfNull(options);
        options.Validate();
        Options = options;
        _pool = options.BufferPool ?? ArrayPool<byte>.Shared;
        _initialReceiveBytes = options.InitialReceiveBufferBytes;
        _maxReceiveBytes = options.MaxReceiveBufferBytes;
        _maxBodyLimit = options.MaxMessageBodyLength;
        _maxBodyLength = options.PreLogonMaxMessageBodyLength > 0 ? Math.Min(options.PreLogonMaxMessageBodyLength, _maxBodyLimit) : _maxBodyLimit;
        _baseReceiveBytes = BaseReceiveBytes(_maxBodyLength);
        _validateLengthAndChecksum = options.ValidateLengthAndChecksum;
        _maxFrameErrors = options.MaxConsecutiveFrameErrors;
        _maxGarbageBytes = options.MaxConsecutiveGarbageBytes;
        _initialSendBytes = options.InitialSendBufferBytes;
        _sendQueue = new SendByteQueue(_pool, options.SendQueueBytes, options.InitialSendQueueBytes);
        _handler = handler;
        _startGate = handler is null ? 0 : HandlerSetBit;
        Id = Interlocked.Increment(ref s_nextId);
    }

    /// <summary>Process-unique connection number (for logs).</summary>
    public long Id { get; }

    /// <summary>The options this connection was created with.</summary>
    public TcpConnectionOptions Options { get; }

    /// <summary>The remote end point, or null when unknown.</summary>
    public abstract EndPoint? RemoteEndPoint { get; }

    /// <summary>The local end point, or null when unknown.</summary>
    public abstract EndPoint? LocalEndPoint { get; }

    /// <summary>Name used in diagnostics and as the agent name.</summary>
    public string Name => _name ??= $"{GetType().Name}#{Id} {RemoteEndPoint}";

    /// <summary>True between <see cref="CloseAfterFlush"/> and the close it ends with: queued bytes are still leaving.</summary>
    public bool IsFlushing => Volatile.Read(ref _flushUntilNs) != 0 && !IsClosing;

    /// <summary>True once a close has been requested (by either side); sends then return <see cref="SendResult.Closed"/>.</summary>
    public bool IsClosing => Volatile.Read(ref _closeClaimed) != 0;

    /// <summary>True once the connection's teardown has begun: from then on it sends and receives nothing, its buffers are
    /// being (or have been) returned, and <see cref="IConnectionHandler.OnDisconnected"/> is called (or was called) by the
    /// tearing-down thread right after; so a reader may see true a moment before that callback has run.</summary>
    public bool IsClosed => Volatile.Read(ref _tornDown) != 0;

    /// <summary>Why the connection closed; <see cref="DisconnectReason.None"/> while open.</summary>
    public DisconnectReason DisconnectReason => IsClosing ? _reason : DisconnectReason.None;

    /// <summary>The close detail, or null.</summary>
    public string? DisconnectDetail => IsClosing ? _detail : null;

    /// <summary>Bytes the peer has sent that this connection has not read yet: the socket's receive queue (FIONREAD);
    /// 0 when there are none, the connection is closing, or the transport cannot tell. Any thread; a system call.</summary>
    public virtual int UnreadBytes => 0;

    /// <summary><see cref="UnreadBytes"/> of a socket connection.</summary>
    private protected int UnreadSocketBytes(System.Net.Sockets.Socket socket)
    {
        if (IsClosing) return 0;
        try
        {
            return socket.Available;
        }
        catch (ObjectDisposedException)
        {
            return 0;
        }
        catch (System.Net.Sockets.SocketException)
        {
            return 0;
        }
    }

    /// <summary>The handler (null only for an accepted connection before its accept handler returned).</summary>
    protected IConnectionHandler? Handler => Volatile.Read(ref _handler);

    /// <summary>Whether the handler is set, so receiving may happen (false only for an accepted connection whose accept handler has not returned yet).</summary>
    private protected bool HasHandler => Volatile.Read(ref _handler) is not null;

    /// <summary>Starts receiving. Dedicated mode: starts the connection's receive thread. Completion mode through a reactor
    /// (plain TCP on Linux): adds the socket to its reactor's epoll set (data already waiting is dispatched on the reactor
    /// thread). Completion mode over SocketAsyncEventArgs, and TLS: posts the first receive (data already waiting is
    /// dispatched inline on this thread). Busy-poll: marks the connection started (receiving happens in <see cref="Poll"/>).</summary>
    /// <remarks>May be called on an accepted connection inside the accept handler: receiving then begins once the handler is returned
    /// (on the acceptor's thread in completion mode and TLS, on the next <see cref="Poll"/> in busy-poll mode).</remarks>
    /// <exception cref="InvalidOperationException">Already started.</exception>
    public abstract void Start();

    /// <summary>Duty cycle: busy-poll receives once without blocking (framing and dispatching every complete message) and
    /// drains the send queue; every mode finishes a <see cref="CloseAfterFlush"/> whose queue has emptied or whose time is up.</summary>
    /// <param name="nowNs">The caller's monotonic time (the flush deadline is measured in it).</param>
    /// <returns>Work done (0 = idle).</returns>
    /// <remarks>Call from the single owning thread; any thread may own it, and one thread may poll many connections. In
    /// completion mode and TLS it only checks a flushing close. An accepted connection receives nothing until its accept
    /// handler has returned the handler. Allocation-free.</remarks>
    public int Poll(long nowNs)
    {
        int work = PollCore(nowNs);
        if (Volatile.Read(ref _flushUntilNs) != 0)
        {
            work += PollFlush(nowNs);
        }
        return work;
    }

    /// <summary>The transport's own duty cycle (busy-poll receive and send drain; nothing in completion mode and TLS).</summary>
    private protected abstract int PollCore(long nowNs);

    /// <summary>Closes orderly once the bytes already queued have been sent (or <see cref="FlushTimeoutNs"/> of
    /// <see cref="Poll"/> time has passed); at once when nothing is queued.</summary>
    /// <param name="reason">Reported to <see cref="IConnectionHandler.OnDisconnected"/>.</param>
    /// <param name="detail">Explanation passed along.</param>
    /// <remarks>Any thread; idempotent (the first request wins). While flushing, <see cref="IsFlushing"/> is true, the
    /// queue drains as usual (busy-poll: in <see cref="Poll"/>) and bytes received are still dispatched; the owner must
    /// keep calling <see cref="Poll"/>, which closes the connection when the queue is empty or the time is up.</remarks>
    public void CloseAfterFlush(DisconnectReason reason = DisconnectReason.Local, string? detail = null)
    {
        if (IsClosing || Interlocked.CompareExchange(ref _flushUntilNs, FlushClaiming, 0) != 0)
        {
            return;
        }
        _flushReason = reason;
        _flushDetail = detail;
        // Release: whoever sees FlushRequested sees the reason.
        Volatile.Write(ref _flushUntilNs, FlushRequested);
        if (QueuedSendBytes == 0)
        {
            Close(reason, detail);
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private int PollFlush(long nowNs)
    {
        long until = Volatile.Read(ref _flushUntilNs);
        if (until == FlushClaiming || IsClosing)
        {
            return 0;
        }
        if (until == FlushRequested)
        {
            until = nowNs + FlushTimeoutNs;
            Volatile.Write(ref _flushUntilNs, until);
        }
        if (QueuedSendBytes != 0 && nowNs < until)
        {
            return 0;
        }
        Close(_flushReason, _flushDetail);
        return 1;
    }

    /// <inheritdoc/>
    public int DoWork(long nowNs) => Poll(nowNs);

    /// <summary>Rents the receive buffer and the send queue's first array (and, in completion mode, the send event args;
    /// TLS: the ciphertext buffer) now, so the first messages and the first back-pressure do not pay for them (a queue
    /// that must grow past its first array rents from the pool then).</summary>
    /// <remarks>Call on the owning thread before <see cref="Start"/> or the first <see cref="Poll"/>. Allocates (that is its purpose).</remarks>
    public void Prewarm()
    {
        if (TryEnter())
        {
            try
            {
                GetReceiveSpace(out _, out _, out _);
            }
            finally
            {
                Exit();
            }
        }
        PrewarmSendBuffers();
    }

    /// <summary>True while reading from the socket is paused (<see cref="PauseReceive"/>).</summary>
    public bool IsReceivePaused => !_receivePause.IsRunning;

    /// <summary>True while a paused completion-mode or TLS receive loop has stopped (no read outstanding; a reactor connection:
    /// out of the reactor's set); for tests.</summary>
    internal bool IsReceiveParked => _receivePause.IsParked;

    /// <summary>Stops reading from the socket until <see cref="ResumeReceive"/>, so TCP flow control slows the peer down
    /// (inbound back-pressure, e.g. while the owner's outbound backlog drains).</summary>
    /// <remarks>
    /// Any thread; idempotent. Bytes already received are still framed and dispatched: the pause takes effect at the
    /// next socket read (busy-poll: <see cref="Poll"/> skips the receive but still drains the send queue; completion
    /// mode and TLS: the receive loop issues no new read once the current one has been dispatched (a reactor connection: the
    /// reactor takes the socket out of its set at its next readiness, without reading); TLS bytes SslStream
    /// has already decrypted wait in it; dedicated mode: the receive thread parks before its next read). Allocation-free.
    /// </remarks>
    public void PauseReceive() => _receivePause.Request();

    /// <summary>Reads from the socket again after <see cref="PauseReceive"/>.</summary>
    /// <remarks>Any thread; idempotent. In dedicated mode the parked receive thread is woken. A reactor connection's socket
    /// is added back to the reactor's set, which reports bytes already waiting at once (they are dispatched on the reactor
    /// thread). In completion mode over SocketAsyncEventArgs a stopped receive loop is restarted on the calling thread, so
    /// bytes already waiting are dispatched to the handler on it before this returns; TLS restarts it on a thread-pool
    /// thread (a peer that keeps writing could otherwise hold the calling thread in the loop). Allocation-free.</remarks>
    public void ResumeReceive()
    {
        // Only the resume that found the loop parked restarts it; the loop's in-flight count is taken again here.
        if (_receivePause.Resume() && TryEnter())
        {
            RestartReceiveLoop();
        }
    }

    /// <summary>Closes orderly: a best-effort flush of the send queue, shutdown of the send side, then close. Bytes still queued are dropped.</summary>
    /// <param name="reason">Reported to <see cref="IConnectionHandler.OnDisconnected"/>; <see cref="DisconnectReason.Local"/> normally.</param>
    /// <param name="detail">Explanation passed along.</param>
    /// <remarks>Any thread; idempotent (the first reason wins). The teardown and callback happen now if nothing is in flight, else when the in-flight operation finishes.</remarks>
    public void Close(DisconnectReason reason = DisconnectReason.Local, string? detail = null) => RequestClose(reason, detail, abortive: false);

    /// <summary>Closes abortively (linger 0, the peer gets a reset); reported as <see cref="DisconnectReason.Aborted"/>.</summary>
    /// <param name="detail">Explanation passed along.</param>
    public void Abort(string? detail = null) => RequestClose(DisconnectReason.Aborted, detail, abortive: true);

    /// <summary>Closes with <see cref="DisconnectReason.Local"/> if still open.</summary>
    public void Dispose()
    {
        Close(DisconnectReason.Local, "disposed");
        GC.SuppressFinalize(this);
    }

    /// <inheritdoc/>
    public override string ToString() => Name;

    internal void SetHandler(IConnectionHandler handler)
    {
        // Release: whoever reads the handler non-null (Poll, or the receive BeginReceive starts) sees a constructed handler.
        Volatile.Write(ref _handler, handler);
        int previous = Interlocked.Or(ref _startGate, HandlerSetBit);
        if (previous == StartRequestedBit)
        {
            BeginReceive();
        }
    }

    /// <summary>Called by <see cref="Start"/> after its already-started check: true when the handler is set and the caller begins receiving now; false when <see cref="SetHandler"/> will call <see cref="BeginReceive"/>.</summary>
    private protected bool TryClaimReceiveStart() => (Interlocked.Or(ref _startGate, StartRequestedBit) & HandlerSetBit) != 0;

    /// <summary>Busy-poll: true unless a pause was requested (the read is skipped while paused).</summary>
    private protected bool IsReceiveRunning => _receivePause.IsRunning;

    /// <summary>Receive loop, before it issues its next read: true when a pause was requested and the loop must leave now (see <see cref="ReceivePause"/>).</summary>
    private protected bool TryParkReceive() => _receivePause.TryPark();

    /// <summary>Restarts a receive loop that parked for a pause; the caller took an in-flight count for it.</summary>
    private protected abstract void RestartReceiveLoop();

    /// <summary>Begins receiving (completion mode and TLS); called once, by <see cref="Start"/> or by a <see cref="SetHandler"/> that found a deferred start.</summary>
    private protected abstract void BeginReceive();

    /// <summary>Wakes in-flight operations and closes the transport (socket shutdown/dispose). Called once, by the close winner, before the teardown can run.</summary>
    private protected abstract void OnCloseRequested(DisconnectReason reason, bool abortive);

    /// <summary>Returns subclass resources (socket, event args); the send queue and the subclass's send resources go back
    /// right after, in <see cref="ReleaseSend"/>. Called once, when nothing is in flight.</summary>
    private protected abstract void ReleaseResources();

    private void RequestClose(DisconnectReason reason, string? detail, bool abortive)
    {
        if (Interlocked.CompareExchange(ref _closeClaimed, 1, 0) != 0)
        {
            return;
        }
        _reason = reason;
        _detail = detail;
        try
        {
            OnCloseRequested(reason, abortive);
        }
        finally
        {
            int previous = Interlocked.Or(ref _state, ClosingFlag);
            if ((previous & ActiveMask) == 0)
            {
                Teardown();
            }
        }
    }

    /// <summary>Enters an operation that uses pooled resources; false when closing (nothing may be touched).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private protected bool TryEnter()
    {
        if ((Interlocked.Increment(ref _state) & ClosingFlag) != 0)
        {
            Exit();
            return false;
        }
        return true;
    }

    /// <summary>Enters unconditionally; only while the caller knows the flag is not set yet (e.g. under the send lock with !IsClosing).</summary>
    private protected void EnterUnchecked() => Interlocked.Increment(ref _state);

    /// <summary>Leaves an operation; the last one out after a close request tears down.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private protected void Exit()
    {
        if (Interlocked.Decrement(ref _state) == ClosingFlag)
        {
            Teardown();
        }
    }

    private void Teardown()
    {
        if (Interlocked.Exchange(ref _tornDown, 1) != 0)
        {
            return;
        }
        try
        {
            ReleaseResources();
        }
        finally
        {
            ReleaseSend();
            byte[]? buffer = _receiveBuffer;
            _receiveBuffer = null;
            _receiveStart = _receiveEnd = 0;
            _receiveCapacity = 0;
            if (buffer is not null)
            {
                _pool.Return(buffer);
            }
        }
        IConnectionHandler? handler = _handler;
        if (handler is not null)
        {
            try
            {
                handler.OnDisconnected(this, _reason, _detail);
            }
            catch (Exception)
            {
                // The connection is gone and this may be an IO thread: there is nobody left to tell but the counter.
                Interlocked.Increment(ref _handlerErrors);
            }
        }
    }
}
