using System.Collections.Generic;
using FixEngine.Config;
using FixEngine.Session;
using FixEngine.Transport;

namespace FixEngine.Engine;

// Design:
// - One slot per session. Gate is the session's serialisation: null for a busy-poll session (the engine agent is its
//   only thread, today's lock-free path); for a completion-mode or TLS session a private object locked (Monitor) by
//   whichever thread runs the session: the socket completion thread for inbound messages, the agent for timers, the
//   outbox, connect/disconnect handling and stop. Uncontended in practice (the agent holds it for one Poll).
//   PERF: Monitor rather than System.Threading.Lock: a contended Lock allocates its wait event on the managed heap
//   the first time (192-416 B measured on .NET 10), Monitor's contention path does not
//   (FixEngineHostTests.SessionGateContentionAllocatesNothing); both cost tens of ns uncontended.
// - Immutable after construction except InitiatorState, which the agent and the connect task share (Connecting is
//   volatile; the rest is agent-only).

/// <summary>A session with its serialisation gate and, for initiators, its connect state.</summary>
internal sealed class SessionSlot
{
    public SessionSlot(FixSession session, bool guarded, InitiatorState? initiator)
    {
        Session = session;
        Gate = guarded ? new object() : null;
        Initiator = initiator;
    }

    public FixSession Session { get; }

    /// <summary>Locked around every use of the session by any thread; null for busy-poll sessions (agent only).</summary>
    public object? Gate { get; }

    public InitiatorState? Initiator { get; }
}

/// <summary>Reconnect/failover state of an initiator session.</summary>
internal sealed class InitiatorState(IReadOnlyList<SocketEndpoint> endpoints, TcpConnectionOptions transportOptions, EngineTls.InitiatorTls? tls)
{
    public IReadOnlyList<SocketEndpoint> Endpoints { get; } = endpoints;

    public TcpConnectionOptions TransportOptions { get; } = transportOptions;

    /// <summary>TLS setup when SocketUseSSL=Y, else null.</summary>
    public EngineTls.InitiatorTls? Tls { get; } = tls;

    public int NextEndpoint;
    public long NextAttemptNs;
    public volatile bool Connecting;
}
