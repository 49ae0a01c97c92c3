using System;
using FixEngine.Codec;
using FixEngine.Session;
using FixEngine.Transport;

namespace FixEngine.Engine;

// Design:
// - The engine side of one connection: it binds one TransportConnection (TCP busy-poll or completion, or TLS) to the
//   session it carries. It is the session's ISessionConnection (Send, Disconnect) and the transport's
//   IConnectionHandler (OnMessage, OnFrameError, OnDisconnected): with the transport connection it is one of the two
//   connection objects a message passes through (docs/architecture.md).
// - Threads: made by the accept thread (Listener) or the connect task (InitiatorConnector), which attach the transport
//   and queue it to the engine agent. Transport callbacks arrive on the receiving thread: the agent (busy-poll, inline
//   in its Poll), the connection's own receive thread (dedicated mode: Guarded) or a socket completion thread
//   (completion mode, TLS: Guarded), never overlapping for one connection.
//   The receiving thread enters the session itself (FixSession.Enter, then Leave in a finally: what SessionSlot.Enter's
//   scope does, without the two forwarding hops on the message's path); every other engine path enters through
//   SessionSlot.Enter. Slot is written once, when the connection is bound to its session (routing on the receiving
//   thread, or before the connect task queues it) and read by the agent, hence volatile. AcceptedNs is the agent's.
// - No close state of its own: the transport's lifecycle is the only one. Closing from the session (Disconnect) or the
//   engine (Close) is the transport's CloseAfterFlush (a Logout or Reject still queued leaves first, bounded in time; the
//   agent's Poll finishes it); IsClosed is "the transport is flushing or closing", and the reason is the transport's.
// - Allocation-free per message: frames are handed over as spans of the transport's receive buffer.

/// <summary>Binds a transport connection to its FIX session: the session's <see cref="ISessionConnection"/> and the
/// transport's <see cref="IConnectionHandler"/>.</summary>
internal sealed class SessionConnection : IEngineConnection, IConnectionHandler
{
    private readonly AcceptorRouter? _router;
    private readonly EpochAnchor _time;
    private TransportConnection? _transport;
    private volatile SessionSlot? _slot;
    private UnauthenticatedGate? _gate;
    private System.Net.IPAddress? _admittedAddress;
    private int _admitted;

    // Receiving thread only: leading garbage skipped before the first message (the Logon) was routed.
    private long _preLogonGarbageBytes;

    /// <summary>Leading garbage tolerated in front of the Logon of an acceptor connection before it is closed.</summary>
    internal const int MaxPreLogonGarbageBytes = 4096;

    /// <param name="router">Routes the first message of an acceptor connection; null for an initiator's.</param>
    /// <param name="time">The engine's time.</param>
    /// <param name="guarded">True when callbacks run on a thread other than the agent (dedicated or completion mode, TLS), so the session gate is taken.</param>
    public SessionConnection(AcceptorRouter? router, EpochAnchor time, bool guarded)
    {
        _router = router;
        _time = time;
        Guarded = guarded;
    }

    /// <summary>True when callbacks run on a thread other than the agent (dedicated or completion mode, TLS), so the session gate is taken.</summary>
    public bool Guarded { get; }

    /// <summary>The session this connection is bound to; null until an acceptor connection's Logon is routed.</summary>
    public SessionSlot? Slot
    {
        get => _slot;
        set => _slot = value;
    }

    /// <summary>The acceptor port the connection arrived on, as configured (0 for an initiator's); set before it is published.</summary>
    public int AcceptPort { get; init; }

    /// <summary>The port the listener is bound to (differs from <see cref="AcceptPort"/> for SocketAcceptPort=0; 0 when no
    /// engine listener accepted the connection).</summary>
    public int ListeningPort { get; init; }

    /// <summary>When the agent took the connection (monotonic; agent only), for the Logon timeout.</summary>
    public long AcceptedNs { get; set; }

    /// <summary>The transport connection (set once, before the connection is published).</summary>
    public TransportConnection Transport => _transport!;

    public string RemoteEndPoint => _transport?.RemoteEndPoint?.ToString() ?? "?";

    /// <summary>Closed or closing for the session: the transport is flushing its last bytes or closed.</summary>
    public bool IsClosed => _transport is { } t && (t.IsClosing || t.IsFlushing);

    /// <summary>Why it closed: the reason given to <see cref="Close"/>, or what the transport saw (peer closed, reset, ...).</summary>
    public string CloseReason
    {
        get
        {
            TransportConnection? t = _transport;
            if (t is null || !t.IsClosing) return "closed";
            string? detail = t.DisconnectDetail;
            if (detail is null) return t.DisconnectReason.ToString();
            return t.DisconnectReason == DisconnectReason.Local ? detail : t.DisconnectReason + ": " + detail;
        }
    }

    public void Attach(TransportConnection transport) => _transport = transport;

    /// <summary>Accept thread, before the connection is published: it holds a place in <paramref name="gate"/>.</summary>
    public void Admitted(UnauthenticatedGate gate, System.Net.IPAddress address)
    {
        _gate = gate;
        _admittedAddress = address;
        _admitted = 1;
    }

    /// <summary>Gives back the connection's place among the unauthenticated ones, once (its Logon was routed, or it closed).</summary>
    public void ReleaseAdmission()
    {
        if (System.Threading.Interlocked.Exchange(ref _admitted, 0) == 1) _gate!.Release(_admittedAddress!);
    }

    public void Start()
    {
        try
        {
            _transport?.Start();
        }
        catch (Exception e) when (e is InvalidOperationException or ObjectDisposedException)
        {
            Close("start failed: " + e.Message);
        }
    }

    public SendResult Send(ReadOnlySpan<byte> message) => _transport?.TrySend(message) ?? SendResult.Closed;

    public int UnreadInboundBytes => _transport?.UnreadBytes ?? 0;

    public void Disconnect(string reason) => Close(reason);

    /// <summary>Closes once the bytes already queued have left (bounded; see <see cref="TransportConnection.CloseAfterFlush"/>).</summary>
    public void Close(string reason) => _transport?.CloseAfterFlush(DisconnectReason.Local, reason);

    public void OnBound(FixSession session, bool prewarm)
    {
        Transport.SetSessionLimits(session.Settings.MaxMessageSize, session.Settings.ValidateLengthAndChecksum);
        if (prewarm) Transport.PrewarmSendBuffers();
    }

    /// <summary>Closes the transport now, queued bytes or not (engine stop).</summary>
    public void CloseNow(string reason) => _transport?.Close(DisconnectReason.Local, reason);

    /// <summary>Agent: the transport's duty cycle (busy-poll receive and send; a flushing close in every mode).</summary>
    public int Poll(long nowNs) => _transport?.Poll(nowNs) ?? 0;

    /// <summary>Pauses or resumes reading inbound messages as the session asks (its outbound backlog is large and
    /// draining, see <see cref="FixSession.IsReceivePauseRequested"/>): the one place that applies that decision. Called
    /// by the receiving thread after each message (so the pause takes effect at the next socket read, not a duty cycle
    /// later) and by the agent after servicing the session; outside the session's gate, because a completion-mode TCP
    /// resume dispatches waiting messages on the calling thread. A stale read is harmless: the next call corrects it.</summary>
    public void SyncReceivePause(FixSession session)
    {
        TransportConnection? t = _transport;
        bool paused = session.IsReceivePauseRequested;
        if (t is null || paused == t.IsReceivePaused) return;
        if (paused) t.PauseReceive();
        else t.ResumeReceive();
    }

    void IConnectionHandler.OnMessage(TransportConnection connection, ReadOnlySpan<byte> message)
    {
        if (connection.IsFlushing) return;
        long epochNs = Guarded ? _time.EpochNow() : _time.CycleEpochNs;
        FixSession? session = _slot?.Session;
        if (session is null)
        {
            _router!.Route(this, message, epochNs);
            return;
        }
        long entryEpochNs = session.Enter(epochNs);
        try
        {
            // The session may have dropped this connection (and taken another) while this thread waited for the gate.
            if (ReferenceEquals(session.Connection, this)) session.OnMessage(message, entryEpochNs);
        }
        finally
        {
            session.Leave();
        }
        SyncReceivePause(session);
    }

    void IConnectionHandler.OnFrameError(TransportConnection connection, in FrameResult error, ReadOnlySpan<byte> skipped)
    {
        if (connection.IsFlushing) return;
        FixSession? session = _slot?.Session;
        if (session is null)
        {
            // Bytes in front of the first "8=" (line noise, a probe) are skipped, up to a bound, so the Logon that follows
            // is still routed; a malformed frame, or more leading garbage than the bound, closes the connection.
            _preLogonGarbageBytes += skipped.Length;
            if (error.Status == FrameStatus.Garbage && _preLogonGarbageBytes <= MaxPreLogonGarbageBytes) return;
            Close("garbled data before Logon: " + error.Describe() + " (" + _preLogonGarbageBytes + " bytes skipped before Logon)");
            return;
        }
        long entryEpochNs = session.Enter(Guarded ? _time.EpochNow() : _time.CycleEpochNs);
        try
        {
            if (ReferenceEquals(session.Connection, this)) session.OnGarbled(skipped, error.Describe(), entryEpochNs);
        }
        finally
        {
            session.Leave();
        }
    }

    // The agent notices the close (IsClosed) when it next services the session and tells the session: asked for here,
    // so that is its next duty cycle, not its next full sweep (EngineAgent, "sweep interval").
    void IConnectionHandler.OnDisconnected(TransportConnection connection, DisconnectReason reason, string? detail)
    {
        _slot?.Session.OnTransportClosed();
    }
}
