using System;
using System.Collections.Generic;
using FixEngine.Config;
using FixEngine.Timing;

namespace FixEngine.Engine;

/// <summary>Engine-wide settings of a <see cref="FixEngineHost"/>: the one agent thread's idle strategy and CPU affinity,
/// the clock, and the console sink.</summary>
/// <remarks>
/// A null <see cref="IdleStrategy"/> or <see cref="CpuAffinity"/> is taken from the sessions' <c>IdleStrategy</c> and
/// <c>CpuAffinity</c> settings, which must then be the same in every session (set them once in [DEFAULT]): the engine
/// throws a <see cref="ConfigException"/> naming the key and the sessions that disagree. A value given here wins over
/// the sessions' settings. Read once by the <see cref="FixEngineHost"/> constructor.
/// </remarks>
public sealed class EngineOptions
{
    /// <summary>The agent's idle strategy; from the sessions' <c>IdleStrategy</c> setting when null.</summary>
    public IdleStrategyKind? IdleStrategy { get; init; }

    /// <summary>CPUs the agent thread is pinned to (empty = not pinned); from the sessions' <c>CpuAffinity</c> setting when null.</summary>
    public IReadOnlyList<int>? CpuAffinity { get; init; }

    /// <summary>The engine's time source: <see cref="IClock.NowNs"/> drives the agent's duty cycle and timers, and epoch
    /// time is derived from it with one anchor (<see cref="IEpochClock.EpochNs"/> minus <see cref="IClock.NowNs"/>, refreshed
    /// once a second of <see cref="IClock.NowNs"/>). <see cref="SystemClock.Instance"/> when null; a
    /// test passes a clock of its own that it moves by hand.</summary>
    public IClock? Clock { get; init; }

    /// <summary>Receives one line per engine event (connections, logons), or null.</summary>
    public Action<string>? Console { get; init; }

    /// <summary>Rent each connection's first buffers when it is established (accepted or connected) rather than on first
    /// use: the receive buffer, the send queue's first 16 KiB and, in completion mode, the send event args (TLS: the
    /// ciphertext buffer). So the first burst that fills the socket after connecting rents nothing while it fits in
    /// 16 KiB; a deeper burst grows the queue (doubling, up to 1 MiB, or MaxMessageSize + 1 KiB when that is larger)
    /// and, once it is full, the session's send backlog, from the shared array pool, and a connection keeps what it
    /// grew until it closes. Default true (about 16 KiB per connected session); false rents the queue on the first
    /// partial send.</summary>
    public bool PrewarmConnections { get; init; } = true;

    /// <summary>Give memory back to the operating system after a surge of at least this many connections that closed
    /// before their Logon (an attack, a peer's reconnect storm), once it has ended: no such close for a second and fewer
    /// than this many connections still waiting. The engine then runs, on a thread-pool thread, one blocking compacting
    /// garbage collection (<see cref="GCCollectionMode.Aggressive"/>, which decommits what it freed) and, on Linux with
    /// glibc, <c>malloc_trim</c>. Default 256; 0 turns it off.</summary>
    /// <remarks>The collection suspends every managed thread, the sessions' too, for a few milliseconds (measured in
    /// docs/benchmarks/hostile-input.md); it is not started while as many connections are still waiting for their Logon,
    /// when it would pause longer. At most one every 10 seconds. Without it, the memory such connections held stays with
    /// the process until the next collection (an engine idle apart from a few sessions may not collect for hours).</remarks>
    public int MemoryReclaimSurgeConnections { get; init; } = 256;

    /// <summary>Creates the engine's <see cref="System.Diagnostics.Metrics.Meter"/> (<see cref="Diagnostics.FixEngineMetrics"/>),
    /// e.g. dependency injection's; a plain meter named <c>FixEngine</c> when null.</summary>
    public System.Diagnostics.Metrics.IMeterFactory? MeterFactory { get; init; }

    /// <summary>Makes each session's message store; null = the settings' choice (<see cref="SettingsMessageStoreFactory"/>:
    /// a file store under <c>FileStorePath</c>, else memory). <see cref="MemoryMessageStoreFactory"/>, the
    /// <c>PostgresMessageStoreFactory</c> of FixEngine.PostgreSQL (sessions with <c>PostgreSQLStoreConnectionString</c>), or
    /// your own.</summary>
    public IMessageStoreFactory? MessageStoreFactory { get; init; }

    /// <summary>Makes each session's message log; null = the settings' choice (a <see cref="FileSessionLogFactory"/> the
    /// engine owns: <c>FileLogPath</c>/fixengine.log, no log without <c>FileLogPath</c>). A factory given here stays yours to
    /// dispose.</summary>
    public ISessionLogFactory? SessionLogFactory { get; init; }

    /// <summary>Whether the engine binds a listening socket for each <c>SocketAcceptPort</c>. Default true. False when a
    /// hosting server owns the port and hands the engine its connections (ASP.NET Core's Kestrel through
    /// <c>FixConnectionHandler</c> of FixEngine.AspNetCore, or <see cref="FixEngineHost.RunAcceptorConnectionAsync"/>): acceptor
    /// sessions then take connections only from the server, with its TLS and limits, and the engine's own TLS and
    /// unauthenticated-connection keys of those ports do not apply.</summary>
    public bool ListenOnAcceptorPorts { get; init; } = true;

    /// <summary>Asked when a Logon arrives on an acceptor port for a SessionID the engine does not run (CompIDs not
    /// configured in advance): it refuses (the peer gets a Logout with the reason, and the refusal is logged with its
    /// address) or supplies the new session's settings (the session is created, as by <see cref="FixEngineHost.AddSession"/>,
    /// and the Logon processed normally). Null (default): such a connection is closed and logged.</summary>
    public UnknownSessionHandler? UnknownSessionHandler { get; init; }

    /// <summary>Tests: resolves an initiator's host names instead of DNS (the addresses, in the order to try them).</summary>
    internal Func<string, System.Threading.Tasks.Task<System.Net.IPAddress[]>>? ResolveHost { get; init; }

    /// <summary>Tests: the open-files limit the engine plans its descriptors against instead of the process's
    /// (JournalHandleBudget).</summary>
    internal long? OpenFilesLimitForTesting { get; init; }
}
