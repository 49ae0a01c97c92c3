using System;
using System.Buffers;
using System.Net;
using System.Net.Sockets;
using System.Runtime.CompilerServices;
using System.Threading;

namespace FixEngine.Transport;

// Design:
// - Receive: busy-poll: Poll (owner thread) does one non-blocking Socket.Receive into the pooled buffer, once the
//   handler is set (see TransportConnection's handler gate).
//   Completion: one pooled ConnectionEventArgs; the loop in ReceiveLoop re-posts after each completion and
//   loops (no recursion) while ReceiveAsync completes synchronously. The loop holds one "in flight" count
//   from Start until it stops, so the receive buffer outlives every pending receive.
//   Dedicated: one thread per connection (DedicatedReceiveLoop), started by BeginReceive, holding the in-flight count
//   the same way. The socket stays non-blocking (the send path needs WouldBlock): the thread sleeps in the kernel in
//   Socket.Poll(SelectRead) (poll(2) on this very thread, no epoll thread or thread pool involved), then reads with a
//   non-blocking Socket.Receive and dispatches inline. A read that did not fill the free space has drained the socket,
//   so the thread goes straight back to Poll: one wake-up and two syscalls per inbound burst. Close wakes the poll by
//   shutting the socket down (both directions) before disposing it; the poll also times out every
//   DedicatedPollTimeoutMicros as a backstop, and the loop leaves once closing.
// - Send: every send member and the queue drain run under _sendLock (a Monitor on a private object: a contended
//   System.Threading.Lock allocates its wait event on its first contention, a Monitor does not). The caller is
//   one thread at a time (the owner); the lock only serialises it with the drain, which in completion mode
//   runs on the SAEA send completion thread, and with the teardown that returns the queue array.
//   PERF: an uncontended lock enter/exit is tens of ns against a multi-µs send syscall (transport-pingpong, measured
//   with System.Threading.Lock; the Monitor was not re-measured there, the 11:32 round-trip sitting ran with it).
// - Fast path: queue empty and no async send in flight -> Socket.Send straight from the caller's span (no
//   copy). Only the remainder the socket refused is copied into the queue: a SendByteQueue of exactly
//   SendQueueBytes, rented from the pool on first use. A message that does not fit in the free space gets
//   Backpressure before any byte is sent, so a message is never half sent and half dropped.
// - Deferred send (dedicated and completion modes, TrySendDeferred/FlushDeferred): the whole message is copied into the
//   queue with no syscall, and the caller writes the queue after leaving the session's gate (FixSession's direct send),
//   so the receive thread never waits on the gate for a write. In completion mode a flush that finds an async send in
//   flight leaves the queue to it (that send continues until the queue is empty), and a remainder the socket refused
//   goes by an async send, as after a partial TrySend. Every enqueue is followed by a flush, a drain by the next
//   send or an armed drain thread, so the receive thread's own post-burst drain may skip when the lock is held.
// - Completion-mode drain: a pooled send SAEA over the queue's contiguous head segment; an async send holds
//   an "in flight" count (taken under the lock while not closing) until it completes.
// - Dedicated-mode drain never uses the runtime's socket engine: a socket that ran one async operation stays in the
//   engine's epoll set for life, and every inbound segment would then wake the engine's thread and a thread-pool worker
//   (two extra wake-ups per inbound message for the rest of the connection, measured in ConnectWakeupTests). Queued bytes
//   go out, without blocking, from (1) the next Send, before its own bytes, (2) the receive thread after each inbound
//   burst, (3) the process-wide SendDrainThread, armed while bytes wait (about a millisecond between attempts), which
//   holds an in-flight count until the queue is empty or the connection closes. So a remainder waits at most about a
//   millisecond after the socket has room. Not a System.Threading.Timer: its callbacks run on thread-pool workers, and a
//   new worker (the pool retires idle ones) allocates on its first work item (see SendDrainThread).
// - Receive pause (inbound flow control): the shared ReceivePause state machine in TransportConnection. Busy-poll:
//   Poll skips the receive while paused. Completion: the loop parks before posting its next receive, and a resume that
//   found it parked restarts it inline on the resuming thread (RestartReceiveLoop). Dedicated: the thread parks before
//   its next read, releases its in-flight count (so a close while parked tears down at once) and waits on _parkLock;
//   a resume that found it parked takes the count for it again and wakes it (_resumeGranted), a close wakes it to leave.
// - Close: OnCloseRequested flushes what the socket takes now (orderly; in completion mode only with no async send in flight) or sets linger 0 (abort), shuts down
//   and disposes the socket, which aborts pending SAEAs; socket calls that race with the dispose catch
//   ObjectDisposedException. ReleaseResources (nothing in flight) returns the SAEAs and the queue.

/// <summary>A TCP connection carrying FIX frames, in completion, dedicated-thread or busy-poll receive mode.</summary>
/// <remarks>
/// Created by <see cref="TcpAcceptor"/> or <see cref="TcpConnector"/>. See <see cref="TransportConnection"/> for the
/// thread contract. Steady-state receive, dispatch and send allocate nothing.
/// </remarks>
internal sealed class TcpConnection : TransportConnection
{
    private readonly Socket _socket;
    private readonly ReceiveMode _mode;
    private readonly EventArgsPool _argsPool;
    private readonly int _queueCapacity;
    private readonly object _sendLock = new();
    private readonly EndPoint? _remote;
    private readonly EndPoint? _local;

    /// <summary>Dedicated mode: longest sleep in Socket.Poll before the receive thread looks at the close state again (a
    /// backstop: a close wakes it at once by shutting the socket down).</summary>
    private const int DedicatedPollTimeoutMicros = 1_000_000;

    private ConnectionEventArgs? _receiveArgs;
    private int _started;

    // Dedicated mode: the parked receive thread waits on _parkLock; _resumeGranted (under it) says a resume took the
    // in-flight count for it.
    private readonly object _parkLock = new();
    private bool _resumeGranted;

    // Guarded by _sendLock (the queue's Count is also read by other threads).
    private ConnectionEventArgs? _sendArgs;
    private SendByteQueue _queue;
    private bool _sendInFlight;
    private long _bytesSent;
    // Dedicated mode (see the design notes): whether the connection is armed on the SendDrainThread (then it holds an
    // in-flight count).
    private bool _drainArmed;

    /// <summary>The next armed connection in <see cref="SendDrainThread"/>'s list (guarded by that class).</summary>
    internal TcpConnection? NextArmed;

    internal TcpConnection(Socket socket, TcpConnectionOptions options, IConnectionHandler? handler)
        : base(options, handler)
    {
        _socket = socket;
        _mode = options.ReceiveMode;
        _argsPool = options.EventArgsPool;
        _queueCapacity = options.SendQueueBytes;
        _queue = new SendByteQueue(options.BufferPool ?? ArrayPool<byte>.Shared, options.SendQueueBytes);
        _remote = SafeEndPoint(socket, remote: true);
        _local = SafeEndPoint(socket, remote: false);
        SocketSetup.ApplyOptions(socket, options, nonBlocking: true);
    }

    /// <summary>The receive mode.</summary>
    public ReceiveMode ReceiveMode => _mode;

    /// <inheritdoc/>
    public override EndPoint? RemoteEndPoint => _remote;

    /// <inheritdoc/>
    public override EndPoint? LocalEndPoint => _local;

    /// <inheritdoc/>
    public override int QueuedSendBytes => _queue.Count;

    /// <summary>Bytes handed to the socket so far.</summary>
    public long BytesSent => Volatile.Read(ref _bytesSent);

    /// <inheritdoc/>
    public override void Start()
    {
        if (Interlocked.Exchange(ref _started, 1) != 0)
        {
            Internal.ThrowHelper.ThrowInvalidOperation($"{Name} was already started.");
        }
        if (_mode == ReceiveMode.BusyPoll || !TryClaimReceiveStart())
        {
            return;
        }
        BeginReceive();
    }

    private protected override void BeginReceive()
    {
        if (!TryEnter())
        {
            return;
        }
        if (_mode == ReceiveMode.Dedicated)
        {
            var thread = new Thread(DedicatedReceiveLoop)
            {
                IsBackground = true,
                Name = "fix-receive#" + Id,
            };
            try
            {
                thread.Start();
            }
            catch (Exception e) when (e is OutOfMemoryException or ThreadStartException)
            {
                // No thread could be created: the connection cannot receive.
                Close(DisconnectReason.SocketError, "could not start the receive thread");
                Exit();
            }
            return;
        }
        _receiveArgs = _argsPool.Rent(this, isSend: false);
        ReceiveLoop(completed: false);
    }

    // The receive loop had parked. Completion: restart it here; data already waiting is dispatched on this thread.
    // Dedicated: wake the parked thread, handing it the in-flight count the caller took.
    private protected override void RestartReceiveLoop()
    {
        if (_mode == ReceiveMode.Dedicated)
        {
            lock (_parkLock)
            {
                _resumeGranted = true;
                Monitor.Pulse(_parkLock);
            }
            return;
        }
        ReceiveLoop(completed: false);
    }

    /// <summary>True once the send queue's array is rented (by <see cref="TransportConnection.Prewarm"/> or the first partial send); for tests.</summary>
    internal bool HasSendQueue
    {
        get
        {
            lock (_sendLock)
            {
                return _queue.IsRented;
            }
        }
    }

    private protected override void PrewarmSend()
    {
        lock (_sendLock)
        {
            if (!IsClosing)
            {
                _queue.Rent();
                if (_mode == ReceiveMode.Completion)
                {
                    _sendArgs ??= _argsPool.Rent(this, isSend: true);
                }
                else if (_mode == ReceiveMode.Dedicated)
                {
                    SendDrainThread.EnsureStarted();
                }
            }
        }
    }

    private protected override int PollCore(long nowNs)
    {
        if (_mode != ReceiveMode.BusyPoll || !TryEnter())
        {
            return 0;
        }
        try
        {
            // An accepted connection may be polled before its accept handler returned: its bytes wait in the socket.
            int work = HasHandler && IsReceiveRunning ? ReceiveOnce() : 0;
            if (_queue.Count != 0)
            {
                work += DrainQueue();
            }
            return work;
        }
        finally
        {
            Exit();
        }
    }

    /// <inheritdoc/>
    public override SendResult TrySend(ReadOnlySpan<byte> message) => Send(message);

    private SendResult Send(ReadOnlySpan<byte> data)
    {
        if (data.Length > _queueCapacity)
        {
            return SendResult.TooLarge;
        }
        SocketError error = SocketError.Success;
        SendResult result;
        bool exitAfter = false;
        lock (_sendLock)
        {
            if (IsClosing)
            {
                return SendResult.Closed;
            }
            if (_queue.Count != 0 && _mode != ReceiveMode.Completion)
            {
                error = DrainUnderLock();
            }
            if (error != SocketError.Success)
            {
                result = SendResult.Closed;
            }
            else if (_queue.Count == 0 && !_sendInFlight)
            {
                int sent;
                try
                {
                    sent = _socket.Send(data, SocketFlags.None, out error);
                }
                catch (ObjectDisposedException)
                {
                    return SendResult.Closed;
                }
                if (error == SocketError.WouldBlock)
                {
                    error = SocketError.Success;
                    sent = 0;
                }
                if (error != SocketError.Success)
                {
                    result = SendResult.Closed;
                }
                else
                {
                    _bytesSent += sent;
                    if (sent == data.Length)
                    {
                        return SendResult.Sent;
                    }
                    _queue.Enqueue(data.Slice(sent));
                    exitAfter = StartDrainUnderLock(ref error);
                    result = error == SocketError.Success ? SendResult.Queued : SendResult.Closed;
                }
            }
            else if (_queue.Free < data.Length)
            {
                return SendResult.Backpressure;
            }
            else
            {
                _queue.Enqueue(data);
                exitAfter = StartDrainUnderLock(ref error);
                result = error == SocketError.Success ? SendResult.Queued : SendResult.Closed;
            }
        }
        if (error != SocketError.Success)
        {
            CloseForSocketError(error, "send");
        }
        if (exitAfter)
        {
            Exit();
        }
        return result;
    }

    /// <summary>Dedicated and completion modes: queues the whole message for <see cref="FlushDeferred"/> (no syscall unless
    /// the queue lacks room); busy-poll sends at once.</summary>
    public override SendResult TrySendDeferred(ReadOnlySpan<byte> message)
    {
        if (_mode == ReceiveMode.BusyPoll)
        {
            return Send(message);
        }
        if (message.Length > _queueCapacity)
        {
            return SendResult.TooLarge;
        }
        SocketError error = SocketError.Success;
        bool exitAfter = false;
        SendResult result = SendResult.Backpressure;
        lock (_sendLock)
        {
            if (IsClosing)
            {
                return SendResult.Closed;
            }
            if (_queue.Free < message.Length)
            {
                // Make room with what the socket takes now (never beside an async send in flight: it owns the queue's
                // head); a message is queued whole or not at all.
                if (!_sendInFlight)
                {
                    error = DrainUnderLock();
                }
                if (error == SocketError.Success && _queue.Free < message.Length)
                {
                    exitAfter = StartDrainUnderLock(ref error);
                }
            }
            if (error == SocketError.Success && _queue.Free >= message.Length)
            {
                _queue.Enqueue(message);
                result = SendResult.Queued;
            }
        }
        if (error != SocketError.Success)
        {
            CloseForSocketError(error, "send");
            result = SendResult.Closed;
        }
        if (exitAfter)
        {
            Exit();
        }
        return result;
    }

    /// <summary>Writes what <see cref="TrySendDeferred"/> queued (non-blocking). A remainder the socket refused waits, in
    /// dedicated mode, for the drain thread (as after a partial <see cref="TrySend"/>); in completion mode it goes by an
    /// async send. Nothing to do while a completion-mode async send is in flight: it sends the queue until it is empty.</summary>
    public override void FlushDeferred()
    {
        if (_mode == ReceiveMode.BusyPoll || _queue.Count == 0)
        {
            return;
        }
        SocketError error = SocketError.Success;
        bool exitAfter = false;
        lock (_sendLock)
        {
            if (IsClosing || _queue.Count == 0 || _sendInFlight)
            {
                return;
            }
            error = DrainUnderLock();
            if (error == SocketError.Success && _queue.Count != 0)
            {
                exitAfter = StartDrainUnderLock(ref error);
            }
        }
        if (error != SocketError.Success)
        {
            CloseForSocketError(error, "send");
        }
        if (exitAfter)
        {
            Exit();
        }
    }

    /// <summary>Drops bytes the socket took from the head of the queue. Under the lock.</summary>
    private void Dequeue(int count)
    {
        _bytesSent += count;
        _queue.Dequeue(count);
    }

    /// <summary>Sends queued bytes under the send lock; returns 1 when it sent or failed (work), else 0.</summary>
    /// <param name="onlyIfFree">Skip (return 0) when another thread holds the lock: the dedicated receive thread, which
    /// must not wait for a holder's syscall with inbound messages to dispatch (every holder writes the queue itself or
    /// arms the drain thread).</param>
    private int DrainQueue(bool onlyIfFree = false)
    {
        bool taken = false;
        if (onlyIfFree) taken = Monitor.TryEnter(_sendLock);
        else Monitor.Enter(_sendLock, ref taken);
        if (!taken)
        {
            return 0;
        }
        SocketError error;
        long before;
        try
        {
            before = _bytesSent;
            error = IsClosing ? SocketError.Success : DrainUnderLock();
        }
        finally
        {
            Monitor.Exit(_sendLock);
        }
        if (error != SocketError.Success)
        {
            CloseForSocketError(error, "send");
            return 1;
        }
        return Volatile.Read(ref _bytesSent) != before ? 1 : 0;
    }

    /// <summary>Busy-poll drain: sends queued bytes until the socket would block. Under the lock.</summary>
    private SocketError DrainUnderLock()
    {
        while (_queue.Count != 0)
        {
            _queue.Head(int.MaxValue, out byte[] queue, out int head, out int segment);
            int sent;
            SocketError error;
            try
            {
                sent = _socket.Send(new ReadOnlySpan<byte>(queue, head, segment), SocketFlags.None, out error);
            }
            catch (ObjectDisposedException)
            {
                return SocketError.Success;
            }
            if (error == SocketError.WouldBlock)
            {
                return SocketError.Success;
            }
            if (error != SocketError.Success)
            {
                return error;
            }
            Dequeue(sent);
            if (sent < segment)
            {
                return SocketError.Success;
            }
        }
        return SocketError.Success;
    }

    /// <summary>Bytes were queued: completion mode starts an async send of the queue unless one is in flight; dedicated mode
    /// arms the drain thread unless armed; busy-poll leaves it to Poll. Returns true when the caller must
    /// <see cref="TransportConnection.Exit"/> (the async send finished synchronously). Under the lock.</summary>
    private bool StartDrainUnderLock(ref SocketError error)
    {
        if (_mode == ReceiveMode.Dedicated)
        {
            ArmDrainUnderLock();
            return false;
        }
        if (_mode == ReceiveMode.BusyPoll || _sendInFlight)
        {
            return false;
        }
        _sendInFlight = true;
        EnterUnchecked();
        ConnectionEventArgs args = _sendArgs ??= _argsPool.Rent(this, isSend: true);
        return ContinueAsyncSendUnderLock(args, ref error);
    }

    /// <summary>Posts sends of the queue head until one is pending (false) or the queue is empty or failed (true: in-flight count to release).</summary>
    private bool ContinueAsyncSendUnderLock(ConnectionEventArgs args, ref SocketError error)
    {
        while (true)
        {
            if (_queue.Count == 0 || IsClosing)
            {
                _sendInFlight = false;
                return true;
            }
            _queue.Head(int.MaxValue, out byte[] queue, out int head, out int segment);
            args.SetBuffer(queue, head, segment);
            bool pending;
            try
            {
                pending = _socket.SendAsync(args);
            }
            catch (ObjectDisposedException)
            {
                _sendInFlight = false;
                return true;
            }
            if (pending)
            {
                return false;
            }
            if (args.SocketError != SocketError.Success)
            {
                error = args.SocketError;
                _sendInFlight = false;
                return true;
            }
            Dequeue(args.BytesTransferred);
        }
    }

    /// <summary>Dedicated mode: arms the drain thread (and takes an in-flight count for it) unless armed. Under the lock.</summary>
    private void ArmDrainUnderLock()
    {
        if (_drainArmed || IsClosing)
        {
            return;
        }
        _drainArmed = true;
        EnterUnchecked();
        SendDrainThread.Arm(this);
    }

    /// <summary>Dedicated mode, on the <see cref="SendDrainThread"/>: sends what the socket takes now; arms again while bytes
    /// remain, else gives its in-flight count back.</summary>
    internal void OnDrainRetry()
    {
        SocketError error = SocketError.Success;
        bool release;
        lock (_sendLock)
        {
            if (!_drainArmed)
            {
                return;
            }
            if (!IsClosing)
            {
                error = DrainUnderLock();
            }
            release = IsClosing || error != SocketError.Success || _queue.Count == 0;
            if (release)
            {
                _drainArmed = false;
            }
            else
            {
                SendDrainThread.Arm(this);
            }
        }
        if (error != SocketError.Success)
        {
            CloseForSocketError(error, "send");
        }
        if (release)
        {
            Exit();
        }
    }

    internal void OnIoCompleted(ConnectionEventArgs args)
    {
        if (!args.IsSend)
        {
            ReceiveLoop(completed: true);
            return;
        }
        SocketError error = SocketError.Success;
        bool done;
        lock (_sendLock)
        {
            if (args.SocketError != SocketError.Success)
            {
                error = args.SocketError;
                _sendInFlight = false;
                done = true;
            }
            else
            {
                Dequeue(args.BytesTransferred);
                done = ContinueAsyncSendUnderLock(args, ref error);
            }
        }
        if (error != SocketError.Success && error != SocketError.OperationAborted)
        {
            CloseForSocketError(error, "send");
        }
        if (done)
        {
            Exit();
        }
    }

    /// <summary>Busy-poll: one non-blocking receive and dispatch.</summary>
    private int ReceiveOnce()
    {
        GetReceiveSpace(out byte[] buffer, out int offset, out int count);
        int received;
        SocketError error;
        try
        {
            received = _socket.Receive(new Span<byte>(buffer, offset, count), SocketFlags.None, out error);
        }
        catch (ObjectDisposedException)
        {
            return 0;
        }
        if (error == SocketError.Success)
        {
            if (received == 0)
            {
                OnPeerClosed();
                return 1;
            }
            return 1 + OnBytesReceived(received);
        }
        if (error == SocketError.WouldBlock)
        {
            return 0;
        }
        CloseForSocketError(error, "receive");
        return 1;
    }

    /// <summary>Completion mode receive loop; holds the in-flight count taken in <see cref="Start"/> until it stops.</summary>
    private void ReceiveLoop(bool completed)
    {
        ConnectionEventArgs args = _receiveArgs!;
        while (true)
        {
            if (completed)
            {
                SocketError error = args.SocketError;
                if (error != SocketError.Success)
                {
                    if (error != SocketError.OperationAborted)
                    {
                        CloseForSocketError(error, "receive");
                    }
                    break;
                }
                int received = args.BytesTransferred;
                if (received == 0)
                {
                    OnPeerClosed();
                    break;
                }
                OnBytesReceived(received);
            }
            if (IsClosing)
            {
                break;
            }
            if (TryParkReceive())
            {
                // Paused: post nothing; ResumeReceive restarts the loop. Leaving releases the in-flight count.
                break;
            }
            GetReceiveSpace(out byte[] buffer, out int offset, out int count);
            args.SetBuffer(buffer, offset, count);
            bool pending;
            try
            {
                pending = _socket.ReceiveAsync(args);
            }
            catch (ObjectDisposedException)
            {
                break;
            }
            if (pending)
            {
                return;
            }
            completed = true;
        }
        Exit();
    }

    /// <summary>Dedicated mode: the receive thread. Holds the in-flight count taken in <see cref="BeginReceive"/> while it
    /// runs (given back while parked).</summary>
    private void DedicatedReceiveLoop()
    {
        bool holding = true;
        try
        {
            // True when the socket may have more bytes than the last read took: read before sleeping in Poll.
            bool mayHaveMore = true;
            while (!IsClosing)
            {
                if (TryParkReceive())
                {
                    holding = false;
                    Exit();
                    if (!WaitForResume())
                    {
                        return;
                    }
                    holding = true;
                    mayHaveMore = true;
                    continue;
                }
                if (!mayHaveMore)
                {
                    // Sleep in the kernel until the socket is readable (data, FIN, reset or our own shutdown).
                    Diagnostics.EngineThreadAllocations.Publish();
                    _socket.Poll(DedicatedPollTimeoutMicros, SelectMode.SelectRead);
                    mayHaveMore = true;
                    continue;
                }
                GetReceiveSpace(out byte[] buffer, out int offset, out int count);
                int received = _socket.Receive(new Span<byte>(buffer, offset, count), SocketFlags.None, out SocketError error);
                if (error == SocketError.WouldBlock)
                {
                    mayHaveMore = false;
                    continue;
                }
                if (error != SocketError.Success)
                {
                    CloseForSocketError(error, "receive");
                    break;
                }
                if (received == 0)
                {
                    OnPeerClosed();
                    break;
                }
                OnBytesReceived(received);
                // A read that left free space took everything the socket had.
                mayHaveMore = received == count;
                if (_queue.Count != 0)
                {
                    // Bytes a send could not hand over wait for room: try now rather than at the drain thread's retry.
                    // Only if the send lock is free (see DrainQueue).
                    DrainQueue(onlyIfFree: true);
                }
            }
        }
        catch (ObjectDisposedException)
        {
            // Closed under us: the close state says why.
        }
        catch (SocketException e)
        {
            CloseForSocketError(e.SocketErrorCode, "receive");
        }
        finally
        {
            if (holding)
            {
                Exit();
            }
        }
    }

    /// <summary>Dedicated mode, parked: waits for a resume (true: it took the in-flight count for this thread) or a close (false).</summary>
    private bool WaitForResume()
    {
        lock (_parkLock)
        {
            while (true)
            {
                if (_resumeGranted)
                {
                    _resumeGranted = false;
                    return true;
                }
                if (IsClosing)
                {
                    return false;
                }
                Monitor.Wait(_parkLock, DedicatedPollTimeoutMicros / 1000);
            }
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void CloseForSocketError(SocketError error, string operation)
    {
        if (IsClosing)
        {
            return;
        }
        if (error == SocketError.ConnectionReset)
        {
            Close(DisconnectReason.PeerReset, $"connection reset by peer on {operation}");
        }
        else
        {
            Close(DisconnectReason.SocketError, $"socket error {error} on {operation}");
        }
    }

    private protected override void OnCloseRequested(DisconnectReason reason, bool abortive)
    {
        try
        {
            if (abortive)
            {
                _socket.LingerState = new LingerOption(true, 0);
            }
            else
            {
                if (_queue.Count != 0)
                {
                    lock (_sendLock)
                    {
                        // Not beside a completion-mode async send in flight: it owns the queue's head (the socket's
                        // dispose below aborts it; what it had not sent is lost, as the close asked).
                        if (_queue.IsRented && !_sendInFlight)
                        {
                            DrainUnderLock();
                        }
                    }
                }
                _socket.Shutdown(SocketShutdown.Send);
            }
        }
        catch (SocketException)
        {
            // Already reset or never connected: nothing left to flush or shut down.
        }
        catch (ObjectDisposedException)
        {
        }
        if (_mode == ReceiveMode.Dedicated)
        {
            WakeDedicatedReceiver();
        }
        _socket.Dispose();
    }

    /// <summary>Dedicated mode, closing: wakes the receive thread, whether it sleeps in Socket.Poll (shutting down the
    /// receive side makes the socket readable; nothing is sent, so an abort still resets) or is parked.</summary>
    private void WakeDedicatedReceiver()
    {
        try
        {
            _socket.Shutdown(SocketShutdown.Receive);
        }
        catch (SocketException)
        {
        }
        catch (ObjectDisposedException)
        {
        }
        lock (_parkLock)
        {
            Monitor.PulseAll(_parkLock);
        }
    }

    private protected override void ReleaseResources()
    {
        _socket.Dispose();
        ConnectionEventArgs? receiveArgs = _receiveArgs;
        _receiveArgs = null;
        if (receiveArgs is not null)
        {
            _argsPool.Return(receiveArgs);
        }
        lock (_sendLock)
        {
            ConnectionEventArgs? sendArgs = _sendArgs;
            _sendArgs = null;
            if (sendArgs is not null)
            {
                _argsPool.Return(sendArgs);
            }
            _queue.Release();
        }
    }

    private static EndPoint? SafeEndPoint(Socket socket, bool remote)
    {
        try
        {
            return remote ? socket.RemoteEndPoint : socket.LocalEndPoint;
        }
        catch (SocketException)
        {
            return null;
        }
        catch (ObjectDisposedException)
        {
            return null;
        }
    }
}
