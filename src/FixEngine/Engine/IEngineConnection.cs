using FixEngine.Session;

namespace FixEngine.Engine;

/// <summary>What the engine (agent, acceptor router) needs from a connection it runs a session over: a socket
/// (<see cref="SessionConnection"/>) or a hosting server's <see cref="System.IO.Pipelines.IDuplexPipe"/>
/// (<see cref="PipeEngineConnection"/>).</summary>
/// <remarks>Members are called by the thread running the session (inside its scope) unless stated.</remarks>
internal interface IEngineConnection : ISessionConnection
{
    /// <summary>True when the session's callbacks run on a thread other than the agent, so the session needs a gate.</summary>
    bool Guarded { get; }

    /// <summary>The session this connection is bound to; null until an acceptor connection's Logon is routed.</summary>
    SessionSlot? Slot { get; set; }

    /// <summary>Closed or closing for the session (any thread).</summary>
    bool IsClosed { get; }

    /// <summary>Why it closed.</summary>
    string CloseReason { get; }

    /// <summary>The peer, for the log.</summary>
    string RemoteEndPoint { get; }

    /// <summary>Closes once the bytes already taken have left (any thread).</summary>
    void Close(string reason);

    /// <summary>Gives back the connection's place among the unauthenticated ones, once.</summary>
    void ReleaseAdmission();

    /// <summary>Inside the session's scope, after the Logon bound the connection: the session's own limits apply from
    /// the next frame.</summary>
    void OnBound(FixSession session, bool prewarm);

    /// <summary>Pauses or resumes reading as the session asks (outside the session's scope).</summary>
    void SyncReceivePause(FixSession session);
}
