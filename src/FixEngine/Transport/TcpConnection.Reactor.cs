using System;
using System.Runtime.InteropServices;

namespace FixEngine.Transport;

// Completion mode through a ConnectionReactor (design notes in ConnectionReactor.cs): the reactor thread reads and
// processes; membership of the reactor's epoll set holds one in-flight count.
internal sealed partial class TcpConnection
{
    private enum ReactorOutcome
    {
        Stay,
        Leave,
        Pause,
    }

    /// <summary>The first receive (from <see cref="BeginReceive"/>, holding the in-flight count it took).</summary>
    private void BeginReactorReceive()
    {
        _fd = (int)_socket.SafeHandle.DangerousGetHandle();
        _reactorHandle = GCHandle.Alloc(this);
        RegisterWithReactor();
    }

    /// <summary>Adds the socket to the reactor's set; the caller took the in-flight count the membership holds.</summary>
    private void RegisterWithReactor()
    {
        int errno = _reactor!.Add(_fd, GCHandle.ToIntPtr(_reactorHandle));
        if (errno != 0)
        {
            Close(DisconnectReason.SocketError, $"could not add the socket to the reactor (errno {errno})");
            Exit();
        }
    }

    /// <summary>The reactor thread: the socket is readable (or hung up, or closing). Never throws.</summary>
    internal void OnReactorReady()
    {
        ReactorOutcome outcome;
        try
        {
            outcome = IsClosing ? ReactorOutcome.Leave : ReactorReceive();
        }
        catch (Exception e)
        {
            // Not a handler's exception (DispatchFrames keeps those): the socket failed in a way Receive did not report.
            Close(DisconnectReason.SocketError, $"reactor receive failed: {e.GetType().Name}: {e.Message}");
            outcome = ReactorOutcome.Leave;
        }
        if (outcome == ReactorOutcome.Stay)
        {
            return;
        }
        // Out of the set first, so no resume can add it twice and no event names it once the count is gone.
        _reactor!.Remove(_fd);
        if (outcome == ReactorOutcome.Pause && !TryParkReceive())
        {
            // A resume cancelled the pause before it parked: keep receiving.
            RegisterWithReactor();
            return;
        }
        Exit();
    }

    private ReactorOutcome ReactorReceive()
    {
        for (int reads = 0; ;)
        {
            if (!IsReceiveRunning)
            {
                return ReactorOutcome.Pause;
            }
            ReadResult read = ReadOnce(out int received, out int count);
            if (read == ReadResult.WouldBlock)
            {
                break;
            }
            if (read != ReadResult.Data)
            {
                return ReactorOutcome.Leave;
            }
            OnBytesReceived(received);
            if (IsClosing)
            {
                return ReactorOutcome.Leave;
            }
            // A read that left free space took everything the socket had; level triggering reports anything newer.
            if (received < count || ++reads == ConnectionReactor.MaxReadsPerEvent)
            {
                break;
            }
        }
        if (_sendQueue.Count != 0)
        {
            // Bytes a send could not hand over wait for room: try now (only if the send lock is free, see DrainQueue).
            DrainQueue(onlyIfFree: true);
        }
        return IsClosing ? ReactorOutcome.Leave : ReactorOutcome.Stay;
    }
}
