using System;

namespace FixEngine.Session;

/// <summary>What the heartbeat check asks the session to do.</summary>
internal enum HeartbeatDue : byte
{
    /// <summary>Nothing yet.</summary>
    None,

    /// <summary>We have been silent for HeartBtInt: send a Heartbeat.</summary>
    Heartbeat,

    /// <summary>The peer has been silent for 1.2 x HeartBtInt (after each TestRequest, 1.2 x more): send a TestRequest.</summary>
    TestRequest,

    /// <summary>The peer has been silent for 2.4 x HeartBtInt: disconnect.</summary>
    Disconnect,
}

/// <summary>The heartbeat interval in force and when each side was last heard, which decide the Heartbeats and
/// TestRequests a logged-on session sends and when it gives up on a silent peer.</summary>
/// <remarks>Design: owned by the thread running the session; plain fields, no allocation. Times are the epoch
/// nanoseconds the session is given; this type never reads a clock.</remarks>
internal sealed class HeartbeatMonitor
{
    private const long NsPerSecond = 1_000_000_000L;

    private int _heartBtIntSec;
    private long _lastSentNs;
    private long _lastReceivedNs;
    private long _lastProcessedNs;
    private int _testRequestsSent;

    /// <param name="heartBtIntSec">HeartBtInt(108) until a Logon sets another.</param>
    public HeartbeatMonitor(int heartBtIntSec) => _heartBtIntSec = heartBtIntSec;

    /// <summary>HeartBtInt(108) in force, seconds; 0 or less turns heartbeats off.</summary>
    public int HeartBtIntSec
    {
        get => _heartBtIntSec;
        set => _heartBtIntSec = value;
    }

    /// <summary>When a message was last handed to the transport (epoch ns; the connection's start before any).</summary>
    public long LastSentEpochNs => _lastSentNs;

    /// <summary>When the peer was last heard (epoch ns; the connection's start before any).</summary>
    public long LastReceivedEpochNs => _lastReceivedNs;

    /// <summary>A connection starts: both sides count as just heard.</summary>
    public void Restart(long epochNs)
    {
        _testRequestsSent = 0;
        _lastReceivedNs = epochNs;
        _lastProcessedNs = epochNs;
        _lastSentNs = epochNs;
    }

    /// <summary>A message was handed to the transport (or its backlog); <paramref name="admin"/> when it was an
    /// administrative one the session composed itself (a Logon, a Heartbeat, a TestRequest...), not an application
    /// message, a resend or a GapFill.</summary>
    public void OnSent(long epochNs, bool admin)
    {
        _lastSentNs = epochNs;
        _lastSentAdmin = admin;
    }

    /// <summary>True when the last message sent was administrative (<see cref="OnSent"/>): the session is idle on
    /// its side, so moving its next Heartbeat earlier costs no more than that Heartbeat (the engine agent's spread).</summary>
    public bool LastSentAdmin => _lastSentAdmin;

    private bool _lastSentAdmin;
    private bool _lastReceivedAdmin;

    /// <summary>For a session idle on both sides (the last message sent and the last received were administrative, no
    /// TestRequest out, heartbeats on): the earliest instant at which the heartbeat exchange alone makes it send or
    /// receive again (epoch ns): our Heartbeat HeartBtInt after our last send, the peer's HeartBtInt after its last
    /// message. <see cref="long.MinValue"/> when the session is not idle so (its next message is the traffic's to say).
    /// Used by the engine's journal budget to close the journals whose next write is furthest away.</summary>
    public long IdleExchangeDueNs => _heartBtIntSec <= 0 || _testRequestsSent != 0 || !_lastSentAdmin || !_lastReceivedAdmin
        ? long.MinValue
        : Math.Min(_lastSentNs, _lastReceivedNs) + _heartBtIntSec * NsPerSecond;

    /// <summary>An inbound message passed the session's checks: the peer is alive. <paramref name="admin"/> when it was
    /// a session-level one (a Heartbeat, a TestRequest, a Logon...), not an application message.</summary>
    public void OnReceived(long epochNs, bool admin)
    {
        _lastReceivedAdmin = admin;
        _lastReceivedNs = epochNs;
        _lastProcessedNs = epochNs;
        _testRequestsSent = 0;
    }

    /// <summary>Other evidence that the peer is alive (it reads what we send while we hold back reading), 0 for none.</summary>
    public void OnPeerActivity(long epochNs)
    {
        if (epochNs > _lastReceivedNs) _lastReceivedNs = epochNs;
    }

    /// <summary>Bytes from the peer wait unread in the socket while a TestRequest or a disconnect is due: the peer did
    /// send, and the thread that reads them has not got round to it (the engine is behind, not the peer). They count as
    /// hearing from the peer at <paramref name="epochNs"/>, unless no message of the peer has been processed for
    /// <see cref="UnreadExcuseLimitTenths"/> tenths of HeartBtInt (twice the disconnect threshold): a reader that never
    /// gets round to the bytes then no longer keeps the connection up.</summary>
    /// <returns>True when the bytes were counted.</returns>
    public bool OnUnreadPeerBytes(long epochNs)
    {
        if (_heartBtIntSec <= 0 || epochNs - _lastProcessedNs >= _heartBtIntSec * NsPerSecond * UnreadExcuseLimitTenths / 10) return false;
        if (epochNs > _lastReceivedNs) _lastReceivedNs = epochNs;
        return true;
    }

    /// <summary>How long unread bytes may stand for the peer's messages (<see cref="OnUnreadPeerBytes"/>), in tenths of HeartBtInt.</summary>
    public const int UnreadExcuseLimitTenths = 48;

    /// <summary>A TestRequest was sent; the next one is due 1.2 x HeartBtInt later.</summary>
    public void OnTestRequestSent() => _testRequestsSent++;

    /// <summary>The earliest instant at which <see cref="Check"/> answers other than <see cref="HeartbeatDue.None"/> if
    /// nothing is sent or received meanwhile (epoch ns; <see cref="long.MaxValue"/> with heartbeats off).</summary>
    public long NextDueNs()
    {
        if (_heartBtIntSec <= 0) return long.MaxValue;
        long heartBtIntNs = _heartBtIntSec * NsPerSecond;
        long due = Math.Min(_lastReceivedNs + heartBtIntNs * 24 / 10, _lastReceivedNs + heartBtIntNs * 12 * (_testRequestsSent + 1) / 10);
        return _testRequestsSent == 0 ? Math.Min(due, _lastSentNs + heartBtIntNs) : due;
    }

    /// <summary>When the Heartbeat is due if nothing is sent meanwhile (epoch ns): HeartBtInt after the last send, while
    /// no TestRequest is out; <see cref="long.MaxValue"/> with heartbeats off or a TestRequest out.</summary>
    public long HeartbeatDueNs => _heartBtIntSec <= 0 || _testRequestsSent != 0 ? long.MaxValue : _lastSentNs + _heartBtIntSec * NsPerSecond;

    /// <summary>What is due at <paramref name="epochNs"/>; a Heartbeat also when it falls due within
    /// <paramref name="heartbeatLeadNs"/> (sending early is allowed; the TestRequest and the disconnect never move).</summary>
    public HeartbeatDue Check(long epochNs, long heartbeatLeadNs = 0)
    {
        if (_heartBtIntSec <= 0) return HeartbeatDue.None;
        long heartBtIntNs = _heartBtIntSec * NsPerSecond;
        long sinceReceived = epochNs - _lastReceivedNs;
        long sinceSent = epochNs + heartbeatLeadNs - _lastSentNs;
        if (sinceReceived < heartBtIntNs && sinceSent < heartBtIntNs) return HeartbeatDue.None;
        if (sinceReceived >= heartBtIntNs * 24 / 10) return HeartbeatDue.Disconnect;
        if (sinceReceived >= heartBtIntNs * 12 * (_testRequestsSent + 1) / 10) return HeartbeatDue.TestRequest;
        if (sinceSent >= heartBtIntNs && _testRequestsSent == 0) return HeartbeatDue.Heartbeat;
        return HeartbeatDue.None;
    }
}
