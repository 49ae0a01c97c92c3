using System;
using System.Buffers;
using System.Collections.Generic;
using System.IO;
using System.IO.Pipelines;
using System.Threading;
using System.Threading.Tasks;
using FixEngine.Codec;
using FixEngine.Session;
using FixEngine.Transport;

namespace FixEngine.Engine;

// Design:
// - One inbound connection a hosting server (Kestrel through FixConnectionHandler, or any IDuplexPipe) gives the engine:
//   the engine's IEngineConnection over a PipeSessionConnection. It is routed by its Logon's CompIDs like a socket
//   connection (AcceptorRouter), and the agent runs the bound session's timers and outbox and notices the close
//   (IsClosed) exactly as for a socket.
// - Threads: RunAsync's loop (the server's thread; continuations on the thread pool) is the receiving thread: it frames
//   and routes, and enters the session through its gate for each frame (a hosted connection is always Guarded). Sends
//   come from whichever thread runs the session (the read loop, the agent), under the gate. Close may come from any
//   thread (the session, the agent, the host's stop, the server's abort): it marks the connection closed and wakes the
//   read loop, which completes both pipe ends under the gate before it returns to the server.
// - Before the Logon: frames up to PreLogonMaxMessageSize, at most MaxPreLogonGarbageBytes of leading garbage, and the
//   engine's pending-Logon timeout (a timer closes a connection that sent no routed Logon in time). The server's own
//   limits (Kestrel's connection limits, TLS) apply before the bytes reach the engine.
// - Receive pause: while the session asks (its send backlog is large and draining), the loop stops reading, so the
//   server's pipe fills and TCP flow control slows the peer down, as with a socket. The loop checks the request after
//   each read and parks on the pipe's AwaitableReceivePause (the ReceivePause state machine of the socket transports
//   with an allocation-free awaitable; no timer, no Task). It is resumed, like a TCP connection, by the agent's
//   SyncReceivePause after the duty cycle in which the backlog drained (or the session lifted the pause: no progress for
//   a second, a disconnect), and by every close: all of them (peer, server abort or shutdown, Logon timeout, session
//   removal, engine stop, a store failure, Close from any thread) go through PipeSessionConnection.Close. After parking,
//   the loop checks the request and the close again and resumes itself if either ended meanwhile, so a resume that came
//   between its check and its park is not lost.

/// <summary>An acceptor connection from a hosting server, over an <see cref="IDuplexPipe"/>.</summary>
internal sealed class PipeEngineConnection : IEngineConnection, IPipeFrameHandler
{
    private readonly PipeSessionConnection _pipe;
    private readonly AcceptorRouter _router;
    private readonly EpochAnchor _time;
    private volatile SessionSlot? _slot;
    private long _preLogonGarbageBytes;

    public PipeEngineConnection(IDuplexPipe transport, string remoteEndPoint, int preLogonMaxBodyLength, AcceptorRouter router, EpochAnchor time)
    {
        _pipe = new PipeSessionConnection(transport, preLogonMaxBodyLength, deferCompletion: true);
        RemoteEndPoint = remoteEndPoint;
        _router = router;
        _time = time;
    }

    public bool Guarded => true;

    public SessionSlot? Slot
    {
        get => _slot;
        set => _slot = value;
    }

    public bool IsClosed => _pipe.IsClosed;

    public string CloseReason => _pipe.CloseReason ?? "closed";

    public string RemoteEndPoint { get; }

    public SendResult Send(ReadOnlySpan<byte> message) => _pipe.Send(message);

    public void Disconnect(string reason) => _pipe.Close(reason);

    public void Close(string reason)
    {
        _pipe.Close(reason);
        // From any thread: the bound session's next visit polls, at once (it is quiet until told; FixSession.IsQuietAt).
        _slot?.Session.OnTransportClosed();
    }

    public void ReleaseAdmission()
    {
    }

    public void OnBound(FixSession session, bool prewarm) => _pipe.MaxBodyLength = session.Settings.MaxMessageSize;

    /// <summary>True while the read loop is parked for a receive pause (any thread; for tests).</summary>
    internal bool IsReceiveParked => _pipe.ReadPause.IsParked;

    /// <summary>How many times the read loop parked for a receive pause (any thread; for tests).</summary>
    internal long ReceiveParks => _pipe.ReadPause.Parks;

    // The agent, after each duty cycle (outside the session's scope): the read loop pauses itself (RunAsync checks the
    // session's request after each read); this resumes it once the session no longer asks. Two volatile reads when
    // nothing changes; the resumed loop continues on the thread pool, not on the agent.
    public void SyncReceivePause(FixSession session)
    {
        if (!session.IsReceivePauseRequested) _pipe.ReadPause.Resume();
    }

    /// <summary>Reads, frames and delivers until the connection closes; then completes the pipe ends.</summary>
    /// <param name="logonTimeout">How long the peer has to send a Logon that is routed to a session.</param>
    /// <param name="aborted">The server's signal that the connection is gone.</param>
    /// <param name="closing">The server's request to end the connection gracefully (its shutdown).</param>
    /// <param name="console">The engine's event lines.</param>
    public async Task RunAsync(TimeSpan logonTimeout, CancellationToken aborted, CancellationToken closing, EngineConsole console)
    {
        PipeReader input = _pipe.Input;
        using CancellationTokenRegistration abort = aborted.UnsafeRegister(static c => ((PipeEngineConnection)c!).Close("the server aborted the connection"), this);
        using CancellationTokenRegistration close = closing.UnsafeRegister(static c => ((PipeEngineConnection)c!).LogoutForServerShutdown(), this);
        using var logonTimer = new Timer(static c =>
        {
            var connection = (PipeEngineConnection)c!;
            if (connection.Slot is null) connection.Close("no Logon received");
        }, this, logonTimeout, Timeout.InfiniteTimeSpan);
        try
        {
            while (!IsClosed)
            {
                ReadResult read = await input.ReadAsync(CancellationToken.None).ConfigureAwait(false);
                if (read.IsCanceled && IsClosed) break;
                ReadOnlySequence<byte> buffer = read.Buffer;
                long consumed = _pipe.Deliver(buffer, this, _time.EpochNow(), out _);
                input.AdvanceTo(buffer.GetPosition(consumed), buffer.End);
                if (read.IsCompleted)
                {
                    Close(consumed == buffer.Length ? "the peer closed the connection" : "the peer closed the connection in the middle of a message");
                    break;
                }
                // A session whose send backlog is large and draining asks to stop reading: leave the bytes in the
                // server's pipe (so TCP flow control slows the peer down) until it has drained.
                AwaitableReceivePause pause = _pipe.ReadPause;
                while (IsReceivePauseRequested())
                {
                    if (!pause.TryPark()) continue;
                    // A resume or close between the check above and the park woke nothing: look again.
                    if (!IsReceivePauseRequested()) pause.Resume();
                    await pause.WaitAsync().ConfigureAwait(false);
                }
            }
        }
        catch (Exception e) when (e is IOException or InvalidOperationException)
        {
            // A reset connection (Kestrel's ConnectionResetException is an IOException) or a pipe completed under us.
            Close(e.Message);
        }
        finally
        {
            if (_slot is SessionSlot slot)
            {
                using (slot.Enter(_time.EpochNow())) _pipe.CompleteTransport();
            }
            else
            {
                console.Refused(RemoteEndPoint, "closed before Logon: " + CloseReason);
                _pipe.CompleteTransport();
            }
        }
    }

    private bool IsReceivePauseRequested() => !IsClosed && _slot is SessionSlot slot && slot.Session.IsReceivePauseRequested;

    // Any thread (the server's shutdown): a logged-on session sends its Logout and the connection ends when the peer
    // answers (or at LogoutTimeout); one not yet logged on is closed.
    private void LogoutForServerShutdown()
    {
        SessionSlot? slot = _slot;
        if (slot is null)
        {
            Close("the server is shutting down");
            return;
        }
        using SessionScope scope = slot.Enter(_time.EpochNow());
        FixSession session = slot.Session;
        if (!ReferenceEquals(session.Connection, this)) return;
        if (session.State == SessionState.LoggedOn) session.Logout("Server shutting down", scope.EpochNs);
        else if (session.State != SessionState.LogoutSent) session.Disconnect("the server is shutting down", scope.EpochNs);
    }

    void IPipeFrameHandler.OnFrame(ReadOnlySpan<byte> frame, long epochNs)
    {
        SessionSlot? slot = _slot;
        if (slot is null)
        {
            _router.Route(this, frame, epochNs);
            return;
        }
        using (SessionScope scope = slot.Enter(epochNs))
        {
            // The session may have dropped this connection (and taken another) while this thread waited for the gate.
            if (ReferenceEquals(slot.Session.Connection, this)) slot.Session.OnMessage(frame, scope.EpochNs);
        }
    }

    void IPipeFrameHandler.OnFrameError(in FrameResult error, ReadOnlySpan<byte> skipped, long epochNs)
    {
        SessionSlot? slot = _slot;
        if (slot is null)
        {
            _preLogonGarbageBytes += skipped.Length;
            if (error.Status == FrameStatus.Garbage && _preLogonGarbageBytes <= SessionConnection.MaxPreLogonGarbageBytes) return;
            Close("garbled data before Logon: " + error.Describe() + " (" + _preLogonGarbageBytes + " bytes skipped before Logon)");
            return;
        }
        using SessionScope scope = slot.Enter(epochNs);
        if (ReferenceEquals(slot.Session.Connection, this)) slot.Session.OnGarbled(skipped, error.Describe(), scope.EpochNs);
    }
}

/// <summary>The hosted connections of one engine, so that its stop closes those still open.</summary>
/// <remarks>Any thread; a lock per connection start and end (not per message).</remarks>
internal sealed class PipeConnections
{
    private readonly HashSet<PipeEngineConnection> _live = [];
    private bool _stopped;

    /// <summary>False once the engine has stopped (the connection is not taken).</summary>
    public bool TryAdd(PipeEngineConnection connection)
    {
        lock (_live)
        {
            if (_stopped) return false;
            _live.Add(connection);
            return true;
        }
    }

    public void Remove(PipeEngineConnection connection)
    {
        lock (_live) _live.Remove(connection);
    }

    /// <summary>Refuses further connections and closes the open ones.</summary>
    public void CloseAll(string reason)
    {
        PipeEngineConnection[] open;
        lock (_live)
        {
            _stopped = true;
            open = [.. _live];
        }
        foreach (PipeEngineConnection c in open) c.Close(reason);
    }
}
