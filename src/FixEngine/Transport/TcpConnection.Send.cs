using System;
using System.Buffers;
using System.Net;
using System.Net.Sockets;
using System.Runtime.CompilerServices;
using System.Threading;

namespace FixEngine.Transport;

// The send side: the direct send and the drain of the send queue (the queue and its lock: TransportConnection.Send.cs;
// design notes in TcpConnection.cs).
internal sealed partial class TcpConnection
{
    private protected override void PrewarmSendUnderLock()
    {
        if (UsesAsyncSend)
        {
            _sendArgs ??= _argsPool.Rent(this, isSend: true);
        }
        else if (UsesDrainThread)
        {
            SendDrainThread.EnsureStarted();
        }
    }

    /// <inheritdoc/>
    public override SendResult TrySend(ReadOnlySpan<byte> message) => Send(message);

    private SendResult Send(ReadOnlySpan<byte> data)
    {
        if (data.Length > _sendQueue.Capacity)
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
            if (_sendQueue.Count != 0 && !UsesAsyncSend)
            {
                error = DrainUnderLock();
            }
            if (error != SocketError.Success)
            {
                result = SendResult.Closed;
            }
            else if (_sendQueue.Count == 0 && !_sendInFlight)
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
                    _sendQueue.Enqueue(data.Slice(sent), headInUse: false);
                    exitAfter = StartDrainUnderLock(ref error);
                    result = error == SocketError.Success ? SendResult.Queued : SendResult.Closed;
                }
            }
            else if (_sendQueue.Free < data.Length)
            {
                return SendResult.Backpressure;
            }
            else
            {
                // A completion-mode async send in flight reads the queue's head.
                _sendQueue.Enqueue(data, headInUse: _sendInFlight);
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
        _sendQueue.Dequeue(count);
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
        bool sent;
        try
        {
            long before = _bytesSent;
            error = IsClosing ? SocketError.Success : DrainUnderLock();
            sent = _bytesSent != before;
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
        return sent ? 1 : 0;
    }

    /// <summary>Busy-poll drain: sends queued bytes until the socket would block. Under the lock.</summary>
    private SocketError DrainUnderLock()
    {
        while (_sendQueue.Count != 0)
        {
            _sendQueue.Head(int.MaxValue, out byte[] queue, out int head, out int segment);
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
            if (_sendQueue.Count == 0 || IsClosing)
            {
                _sendInFlight = false;
                return true;
            }
            _sendQueue.Head(int.MaxValue, out byte[] queue, out int head, out int segment);
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
            release = IsClosing || error != SocketError.Success || _sendQueue.Count == 0;
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
