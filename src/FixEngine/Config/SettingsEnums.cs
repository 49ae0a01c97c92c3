namespace FixEngine.Config;

/// <summary>Whether the session accepts or initiates the connection (<c>ConnectionType</c>).</summary>
public enum ConnectionType
{
    /// <summary><c>acceptor</c>: listens on SocketAcceptPort.</summary>
    Acceptor,
    /// <summary><c>initiator</c>: connects to SocketConnectHost:SocketConnectPort.</summary>
    Initiator,
}

/// <summary>What a duty-cycle agent does when it found no work (<c>IdleStrategy</c>).</summary>
public enum IdleStrategyKind
{
    /// <summary>Spin without yielding.</summary>
    BusySpin,
    /// <summary>Yield the thread.</summary>
    Yielding,
    /// <summary>Spin, then yield, then park for growing intervals (default).</summary>
    Backoff,
    /// <summary>Sleep 1 ms after every duty cycle that found no work (lowest CPU use; work waits up to about a millisecond).</summary>
    Blocking,
}

/// <summary>What a session does when its message store cannot be written for a while, e.g. the PostgreSQL store's
/// database is away (<c>StoreFailurePolicy</c>, formerly <c>PostgreSQLStoreFailurePolicy</c>). Failures that cannot pass (a full disk under the file store, a store fenced
/// by a standby's takeover) always end the session as under <see cref="Logout"/>.</summary>
public enum StoreFailurePolicy
{
    /// <summary>End the session: disconnect (without a Logout, which would need a sequence number the store cannot keep),
    /// raise <c>IApplication.OnStoreFailure</c> and refuse every later send and connection until the engine is restarted
    /// (default).</summary>
    Logout,

    /// <summary>Hold the session: refuse new outbound messages, send nothing (no heartbeats: every outbound message
    /// needs a stored sequence number), keep the connection while the store's lease lasts, and resume where it stopped
    /// once the store takes writes again (docs/postgres-store.md "Database lost mid-session").</summary>
    Hold,
}

/// <summary>A host and port to connect to.</summary>
/// <param name="Host">Host name or address.</param>
/// <param name="Port">TCP port, 1..65535.</param>
public readonly record struct SocketEndpoint(string Host, int Port)
{
    /// <summary>The IP address of this machine the socket is bound to before it connects to this endpoint (QuickFIX C++
    /// <c>SocketConnectSourceHost&lt;n&gt;</c> for failover n); null: the system picks it, or for a failover the session's
    /// <see cref="SessionSettings.SocketLocalHost"/>.</summary>
    public string? SourceHost { get; init; }

    /// <summary>The local port the socket is bound to before it connects to this endpoint, 1..65535 (QuickFIX C++
    /// <c>SocketConnectSourcePort&lt;n&gt;</c>); null: the system picks an ephemeral port.</summary>
    public int? SourcePort { get; init; }

    /// <summary><c>host:port</c>.</summary>
    public override string ToString() => $"{Host}:{Port}";
}

/// <summary>How the file log under <see cref="SessionSettings.FileLogPath"/> is laid out (<c>FileLogLayout</c>); written by
/// <see cref="Session.FixLogSessionLog"/>.</summary>
public enum SessionLogLayout : byte
{
    /// <summary>Messages and events of every session in the <see cref="Logging.FixLog"/>'s own sink, one ordered stream per session.</summary>
    SharedFile,

    /// <summary>
    /// QuickFIX's layout: <c>&lt;prefix&gt;.messages.log</c> (inbound and outbound messages) and
    /// <c>&lt;prefix&gt;.event.log</c> (session events) per session, in a directory.
    /// </summary>
    PerSessionFiles,
}
