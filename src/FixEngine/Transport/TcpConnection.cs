using System;
using System.Buffers;
using System.Net;
using System.Net.Sockets;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Threading;

namespace FixEngine.Transport;

// Design:
// - Receive: busy-poll: Poll (owner thread) does one non-blocking Socket.Receive into the pooled buffer, once the
//   handler is set (see TransportConnection's handler gate).
//   Completion through a reactor (Linux, plain TCP; the default there): ConnectionReactor's thread reads and dispatches
//   (TcpConnection.Reactor.cs; design notes in ConnectionReactor.cs); send remainders as in dedicated mode below.
//   Completion over SocketAsyncEventArgs (elsewhere, or FIXENGINE_COMPLETION_REACTOR=0): one pooled
//   ConnectionEventArgs; the loop in ReceiveLoop re-posts after each completion and
//   loops (no recursion) while ReceiveAsync completes synchronously. The loop holds one "in flight" count
//   from Start until it stops, so the receive buffer outlives every pending receive.
//   Dedicated: one thread per connection (DedicatedReceiveLoop), started by BeginReceive, holding the in-flight count
//   the same way. The socket stays non-blocking (the send path needs WouldBlock): the thread sleeps in the kernel in
//   Socket.Poll(SelectRead) (poll(2) on this very thread, no epoll thread or thread pool involved), then reads with a
//   non-blocking Socket.Receive and dispatches inline. A read that did not fill the free space has drained the socket,
//   so the thread goes straight back to Poll: one wake-up and two syscalls per inbound burst. Close wakes the poll by
//   shutting the socket down (both directions) before disposing it; the poll also times out every
//   DedicatedPollTimeoutMicros as a backstop, and the loop leaves once closing.
// - Send: every send member and the queue drain run under the send lock, which TransportConnection owns with the
//   queue (TransportConnection.Send.cs). The caller is one thread at a time (the owner); the lock only serialises it
//   with the drain (the receive thread, the SendDrainThread, or in completion mode the SAEA send completion thread) and
//   with the teardown that returns the queue array.
// - Fast path: queue empty and no async send in flight -> Socket.Send straight from the caller's span (no
//   copy). Only the remainder the socket refused is copied into the queue: a SendByteQueue bounded by
//   SendQueueBytes, whose array is rented from the pool on first use at InitialSendQueueBytes and grows on demand. A message that does not fit in the free space gets
//   Backpressure before any byte is sent, so a message is never half sent and half dropped.
// - Every enqueue is followed by a drain: the next send, the receive thread after each inbound burst (which may skip
//   when the lock is held), an async send (completion mode) or the armed drain thread (dedicated mode).
// - SAEA completion-mode drain: a pooled send SAEA over the queue's contiguous head segment; an async send holds
//   an "in flight" count (taken under the lock while not closing) until it completes.
// - Dedicated-mode (and reactor) drain never uses the runtime's socket engine: a socket that ran one async operation stays in the
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
internal sealed partial class TcpConnection : TransportConnection
{
    private readonly Socket _socket;
    private readonly ReceiveMode _mode;
    private readonly EventArgsPool _argsPool;
    private readonly EndPoint? _remote;
    private readonly EndPoint? _local;

    /// <summary>Dedicated mode: longest sleep in Socket.Poll before the receive thread looks at the close state again (a
    /// backstop: a close wakes it at once by shutting the socket down).</summary>
    private const int DedicatedPollTimeoutMicros = 1_000_000;

    private ConnectionEventArgs? _receiveArgs;
    private int _started;

    // Completion mode through a reactor (see ConnectionReactor); null for the SocketAsyncEventArgs path and other modes.
    private readonly ConnectionReactor? _reactor;
    private GCHandle _reactorHandle;
    private int _fd;

    // Dedicated mode: the parked receive thread waits on _parkLock; _resumeGranted (under it) says a resume took the
    // in-flight count for it.
    private readonly object _parkLock = new();
    private bool _resumeGranted;

    // Guarded by _sendLock (TransportConnection.Send.cs), with the send queue.
    private ConnectionEventArgs? _sendArgs;
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
        _remote = SafeEndPoint(socket, remote: true);
        _local = SafeEndPoint(socket, remote: false);
        SocketSetup.ApplyOptions(socket, options, nonBlocking: true);
        if (_mode == ReceiveMode.Completion && options.CompletionReactor)
        {
            _reactor = ConnectionReactor.Assign();
        }
    }

    /// <summary>True when this completion-mode connection is served by a reactor thread (see <see cref="ConnectionReactor"/>).</summary>
    internal bool UsesReactor => _reactor is not null;

    /// <summary>The reactor serving this connection, or null; for tests.</summary>
    internal ConnectionReactor? Reactor => _reactor;

    // The SocketAsyncEventArgs completion path: async sends drain the remainder.
    private bool UsesAsyncSend => _mode == ReceiveMode.Completion && _reactor is null;

    // Dedicated and reactor: the remainder is drained by sends, the receiving thread and SendDrainThread.
    private bool UsesDrainThread => _mode == ReceiveMode.Dedicated || _reactor is not null;

    /// <summary>The receive mode.</summary>
    public ReceiveMode ReceiveMode => _mode;

    /// <inheritdoc/>
    public override EndPoint? RemoteEndPoint => _remote;

    /// <inheritdoc/>
    public override EndPoint? LocalEndPoint => _local;

    /// <inheritdoc/>
    public override int UnreadBytes => UnreadSocketBytes(_socket);

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
        if (_reactor is not null)
        {
            BeginReactorReceive();
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
        if (_reactor is not null)
        {
            RegisterWithReactor();
            return;
        }
        ReceiveLoop(completed: false);
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
            if (_sendQueue.Count != 0)
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
                if (_sendQueue.Count != 0)
                {
                    lock (_sendLock)
                    {
                        // Not beside a completion-mode async send in flight: it owns the queue's head (the socket's
                        // dispose below aborts it; what it had not sent is lost, as the close asked).
                        if (_sendQueue.IsRented && !_sendInFlight)
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
        if (_reactor is not null)
        {
            // The reactor removes the socket from its set, then releases its count; ReleaseResources disposes it.
            ShutdownReceive();
            return;
        }
        _socket.Dispose();
    }

    /// <summary>Dedicated mode, closing: wakes the receive thread, whether it sleeps in Socket.Poll (shutting down the
    /// receive side makes the socket readable; nothing is sent, so an abort still resets) or is parked.</summary>
    private void WakeDedicatedReceiver()
    {
        ShutdownReceive();
        lock (_parkLock)
        {
            Monitor.PulseAll(_parkLock);
        }
    }

    /// <summary>Shuts the receive side down: the socket turns readable (a sleeping reader wakes to see the close); nothing
    /// is sent, so an abort still resets.</summary>
    private void ShutdownReceive()
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
    }

    private protected override void ReleaseResources()
    {
        _socket.Dispose();
        if (_reactorHandle.IsAllocated)
        {
            // No event can name the connection any more: its socket left the reactor's set before this teardown.
            _reactorHandle.Free();
        }
        ConnectionEventArgs? receiveArgs = _receiveArgs;
        _receiveArgs = null;
        if (receiveArgs is not null)
        {
            _argsPool.Return(receiveArgs);
        }
    }

    private protected override void ReleaseSendUnderLock()
    {
        ConnectionEventArgs? sendArgs = _sendArgs;
        _sendArgs = null;
        if (sendArgs is not null)
        {
            _argsPool.Return(sendArgs);
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
