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
                    Hosting.EngineThreadProbe.OnPass();
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
}
