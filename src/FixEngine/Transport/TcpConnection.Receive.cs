using System;
using System.Buffers;
using System.Net;
using System.Net.Sockets;
using System.Runtime.CompilerServices;
using System.Threading;

namespace FixEngine.Transport;

// The receive side: busy-poll reads, the completion-mode loop and the dedicated receive thread (design notes in TcpConnection.cs).
internal sealed partial class TcpConnection
{
    /// <summary>What one non-blocking read (<see cref="ReadOnce"/>) got.</summary>
    private enum ReadResult
    {
        /// <summary>Bytes, not yet dispatched.</summary>
        Data,

        /// <summary>Nothing waiting.</summary>
        WouldBlock,

        /// <summary>The peer closed or the socket failed: the connection is closing (the close state says why).</summary>
        Closed,

        /// <summary>The socket was already disposed by a close.</summary>
        Disposed,
    }

    /// <summary>One non-blocking receive into the receive buffer (busy-poll, the dedicated thread and the reactor);
    /// <paramref name="space"/> is the free space it offered, so a read that filled it may have left more.</summary>
    private ReadResult ReadOnce(out int received, out int space)
    {
        GetReceiveSpace(out byte[] buffer, out int offset, out space);
        SocketError error;
        try
        {
            received = _socket.Receive(new Span<byte>(buffer, offset, space), SocketFlags.None, out error);
        }
        catch (ObjectDisposedException)
        {
            received = 0;
            return ReadResult.Disposed;
        }
        if (error == SocketError.WouldBlock)
        {
            return ReadResult.WouldBlock;
        }
        if (error != SocketError.Success)
        {
            CloseForSocketError(error, "receive");
            return ReadResult.Closed;
        }
        if (received == 0)
        {
            OnPeerClosed();
            return ReadResult.Closed;
        }
        return ReadResult.Data;
    }

    /// <summary>Busy-poll: one non-blocking receive and dispatch.</summary>
    private int ReceiveOnce() => ReadOnce(out int received, out _) switch
    {
        ReadResult.Data => 1 + OnBytesReceived(received),
        ReadResult.Closed => 1,
        _ => 0,
    };

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
                    Hosting.EngineThreadProbe.OnPass();
                    _socket.Poll(DedicatedPollTimeoutMicros, SelectMode.SelectRead);
                    mayHaveMore = true;
                    continue;
                }
                ReadResult read = ReadOnce(out int received, out int count);
                if (read == ReadResult.WouldBlock)
                {
                    mayHaveMore = false;
                    continue;
                }
                if (read != ReadResult.Data)
                {
                    break;
                }
                OnBytesReceived(received);
                // A read that left free space took everything the socket had.
                mayHaveMore = received == count;
                if (_sendQueue.Count != 0)
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
}
