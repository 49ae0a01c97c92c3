using System;
using System.Collections.Generic;
using System.Text;
using FixEngine.Buffers;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Dictionary;
using FixEngine.Store;

namespace FixEngine.Session;

// What the session shows about itself: identity, state, sequence numbers and counters.
public sealed partial class FixSession
{
    /// <summary>The session's identity (BeginString, SenderCompID, TargetCompID, qualifier).</summary>
    public SessionId Id { get; }

    /// <summary>The settings the session was built from.</summary>
    public SessionSettings Settings => _settings;

    /// <summary>Where the session is in its life cycle. Owner thread only.</summary>
    public SessionState State => _state;

    /// <summary>True once both Logons have been exchanged and until logout or disconnect. Owner thread only.</summary>
    public bool IsLoggedOn => _state is SessionState.LoggedOn or SessionState.LogoutSent;

    /// <summary>True while a connection is attached.</summary>
    public bool IsConnected => _connection is not null;

    /// <summary>The attached connection, or null (owner thread; the engine checks it for a transport-side close).</summary>
    internal ISessionConnection? Connection => _connection;

    /// <summary>Bytes the session holds for sending: its encode buffer and its hand-off rings (both grow on demand; a
    /// configured session that has sent nothing holds a few KB). Any thread; a recent value.</summary>
    internal int SendBufferBytes => _header.BufferLength + _handOff.RetainedBytes;

    /// <summary>True for initiator sessions.</summary>
    public bool IsInitiator => _isInitiator;

    /// <summary>MsgSeqNum(34) of the next message we send.</summary>
    public int NextSenderMsgSeqNum => _store.NextSenderMsgSeqNum;

    /// <summary>MsgSeqNum(34) we expect on the next inbound message.</summary>
    public int NextTargetMsgSeqNum => _store.NextTargetMsgSeqNum;

    /// <summary>The time passed to the entry point being processed (epoch nanoseconds).</summary>
    public long EpochNs => _epochNs;

    /// <summary>The HeartBtInt(108) in force, in seconds.</summary>
    public int HeartBtIntSec => _heartbeat.HeartBtIntSec;

    /// <summary>The message store.</summary>
    public IMessageStore Store => _store;

    /// <summary>The schedule that decides when the session may be connected.</summary>
    public SessionSchedule Schedule => _schedule;

    /// <summary>Outbound messages the transport refused with <see cref="Transport.SendResult.Backpressure"/> (its send
    /// queue was full) and that the session therefore held back in its own backlog.</summary>
    /// <remarks>Written by the session's thread; any thread may read it (a recent value). Allocation-free.</remarks>
    public long SendBackpressureCount => _counters.SendBackpressure;

    /// <summary>The most bytes the session has held back in its send backlog at once (0 when the transport never
    /// refused a message).</summary>
    /// <remarks>Written by the session's thread; any thread may read it (a recent value). Allocation-free.</remarks>
    public long SendBacklogHighWaterBytes => _counters.SendBacklogHighWaterBytes;

    /// <summary>Heartbeat checks that found the peer's messages overdue while bytes it had sent were waiting unread in the
    /// socket: the engine, not the peer, was behind (its receiving threads had not got round to the connection), so the
    /// session sent no TestRequest and did not disconnect. Non-zero means the engine falls behind its connections (CPU,
    /// thread pool); see docs/operations.md.</summary>
    /// <remarks>Written by the session's thread; any thread may read it (a recent value). Allocation-free.</remarks>
    public long HeartbeatChecksBehindCount => _counters.HeartbeatChecksBehind;

    /// <summary>Inbound messages whose MsgSeqNum(34) was higher than expected (a gap in what the peer sent arrived).</summary>
    /// <remarks>Written by the session's thread; any thread may read it (a recent value). Allocation-free.</remarks>
    public long GapsDetected => _counters.GapsDetected;

    /// <summary>ResendRequests this session sent.</summary>
    /// <remarks>Written by the session's thread; any thread may read it (a recent value). Allocation-free.</remarks>
    public long ResendRequestsSent => _counters.ResendRequestsSent;

    /// <summary>ResendRequests this session received and answered.</summary>
    /// <remarks>Written by the session's thread; any thread may read it (a recent value). Allocation-free.</remarks>
    public long ResendRequestsReceived => _counters.ResendRequestsReceived;

    /// <summary>Inbound messages handed to this session (admin and application, before their checks).</summary>
    /// <remarks>Written by the session's thread; any thread may read it (a recent value). Allocation-free.</remarks>
    public long MessagesReceived => _counters.MessagesReceived;

    /// <summary>Outbound messages written to the transport (admin and application, resends included).</summary>
    /// <remarks>Written by the session's thread; any thread may read it (a recent value). Allocation-free.</remarks>
    public long MessagesSent => _counters.MessagesSent;

    /// <summary>Session Rejects(3) and BusinessMessageRejects(j) this session sent.</summary>
    /// <remarks>Written by the session's thread; any thread may read it (a recent value). Allocation-free.</remarks>
    public long RejectsSent => _counters.RejectsSent;

    /// <summary>Completed Logon exchanges.</summary>
    /// <remarks>Written by the session's thread; any thread may read it (a recent value). Allocation-free.</remarks>
    public long LogonCount => _counters.Logons;

    /// <summary>Connections of this session that ended (either side, any reason).</summary>
    /// <remarks>Written by the session's thread; any thread may read it (a recent value). Allocation-free.</remarks>
    public long DisconnectCount => _counters.Disconnects;

    /// <summary>Number of early messages waiting for a gap to be filled.</summary>
    public int QueuedMessageCount => _gapQueue.Count;
}
