using System;
using System.Buffers;
using System.Net;
using System.Net.Sockets;
using System.Runtime.CompilerServices;
using System.Threading;

namespace FixEngine.Transport;

// The send side: the direct send, the bounded queue and its drain (design notes in TcpConnection.cs).
internal sealed partial class TcpConnection
{
    /// <summary>True once the send queue's first array is rented (by <see cref="TransportConnection.Prewarm"/> or the first partial send); for tests.</summary>
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

    /// <summary>Bytes of the send queue's array rented now (0 when none); for tests.</summary>
    internal int SendQueueArrayBytes
    {
        get
        {
            lock (_sendLock)
            {
                return _queue.ArrayBytes;
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
                if (UsesAsyncSend)
                {
                    _sendArgs ??= _argsPool.Rent(this, isSend: true);
                }
                else if (UsesDrainThread)
                {
                    SendDrainThread.EnsureStarted();
                }
            }
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
            if (_queue.Count != 0 && !UsesAsyncSend)
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
                    _queue.Enqueue(data.Slice(sent), headInUse: false);
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
                // A completion-mode async send in flight reads the queue's head.
                _queue.Enqueue(data, headInUse: _sendInFlight);
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
        if (UsesDrainThread)
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
}
