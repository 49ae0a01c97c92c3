using System;
using System.Collections.Generic;
using System.IO;
using System.Net;
using System.Net.Sockets;
using System.Security.Authentication;
using System.Threading.Tasks;
using FixEngine.Config;
using FixEngine.Session;
using FixEngine.Transport;

namespace FixEngine.Engine;

// Design:
// - One per initiator session. Owner thread: the engine agent, which alone reads and writes the schedule
//   (_nextEndpoint, _nextAttemptNs, in monotonic time) in Poll and learns of a new connection in Connected.
// - A connect runs as one task on the thread pool (DNS, TCP connect and, for TLS, the handshake must not block the
//   agent). The task owns the new connection until it queues it to the agent (EngineAgent.Enqueue): it rents its buffers
//   (Prewarm) before anything else can touch it. _connecting is the one field both sides write: the agent sets it when
//   it starts a task; the task clears it when the attempt fails, the agent when it takes the connection. Hence volatile.

/// <summary>Connects an initiator session, and reconnects it (failing over between SocketConnectHost[n]) after
/// ReconnectInterval while it is disconnected and inside its schedule. A host name is resolved at each attempt
/// (<see cref="HostResolver"/>) and every address it resolves to is tried, in order, before the next failover host.</summary>
internal sealed class InitiatorConnector(SessionSlot slot, IReadOnlyList<SocketEndpoint> endpoints, TcpConnectionOptions transport,
    EngineTls.InitiatorTls? tls, EngineAgent agent, EpochAnchor time, EngineConsole console, bool prewarm,
    Func<string, Task<IPAddress[]>>? resolve = null)
{
    private const long NsPerSecond = 1_000_000_000L;
    private static readonly TimeSpan ConnectTimeout = TimeSpan.FromSeconds(10);

    private int _nextEndpoint;
    private long _nextAttemptNs = long.MinValue;
    private volatile bool _connecting;
    private bool _storeFailureReported;

    /// <summary>Completion-mode or TLS: the session is entered from completion threads, so it has a gate.</summary>
    public static bool IsGuarded(TcpConnectionOptions transport, bool tls) => tls || transport.ReceiveMode != ReceiveMode.BusyPoll;

    /// <summary>Agent: starts a connect when the session is disconnected, in its schedule and its reconnect time has come.</summary>
    /// <returns>1 when an attempt started, else 0.</returns>
    public int Poll(long nowNs, long epochNs)
    {
        FixSession s = slot.Session;
        // IsConnected may be read while a completion thread disconnects the session: a stale true only delays the
        // attempt by a duty cycle; only the agent attaches initiator connections.
        if (_connecting || slot.Disabled || s.IsConnected || endpoints.Count == 0 || nowNs < _nextAttemptNs || !s.IsSessionTime(epochNs)) return 0;
        if (s.StoreFailure is { } failure)
        {
            // The session refuses every connection once its store failed (until the engine restarts): dialling again would
            // only connect, drop before the Logon, and fill the counterparty's log. Stop, and say so once.
            if (!_storeFailureReported)
            {
                _storeFailureReported = true;
                console.NotReconnecting(s.Id, "the message store failed (" + failure.Message + "); restart the engine once it is fixed");
            }
            return 0;
        }
        int index = _nextEndpoint;
        SocketEndpoint ep = endpoints[index];
        _nextEndpoint = (_nextEndpoint + 1) % endpoints.Count;
        _nextAttemptNs = nowNs + s.Settings.ReconnectInterval * NsPerSecond;
        _connecting = true;
        console.Connecting(s.Id, ep, tls is not null);
        StartConnect(ep, index);
        return 1;
    }

    // Not inlined into Poll: the lambda's closure would be allocated on every Poll, at the entry of the scope that
    // declares what it captures.
    private void StartConnect(SocketEndpoint ep, int index) => Task.Run(() => ConnectAsync(ep, index));

    /// <summary>Agent (or the caller of a session command while the agent is not running): the next connect is due now,
    /// not after the reconnect interval (an operator's Logon).</summary>
    public void ConnectNow() => _nextAttemptNs = 0;

    /// <summary>Agent: the connection the task queued has been taken.</summary>
    public void Connected() => _connecting = false;

    // Thread pool. Every address the host resolves to, in the resolver's order, until one connects.
    private async Task ConnectAsync(SocketEndpoint ep, int endpointIndex)
    {
        IPAddress[] addresses;
        try
        {
            addresses = resolve is not null
                ? await resolve(ep.Host).ConfigureAwait(false)
                : await HostResolver.ResolveAsync(ep.Host, slot.Session.Settings, HostResolver.ConnectHostKey(endpointIndex)).ConfigureAwait(false);
        }
        catch (Exception e) when (e is ConfigException or SocketException or OperationCanceledException)
        {
            // A name that does not resolve: the ConfigException names the file, line and key.
            console.ConnectFailed(ep, e);
            _connecting = false;
            return;
        }
        for (int i = 0; i < addresses.Length; i++)
        {
            var remote = new IPEndPoint(addresses[i], ep.Port);
            var connection = new SessionConnection(router: null, time, IsGuarded(transport, tls is not null)) { Slot = slot };
            TransportConnection transportConnection;
            try
            {
                transportConnection = tls is not null
                    ? await TlsConnection.ConnectAsync(remote, ConnectTimeout, transport, tls.For(ep.Host), connection).ConfigureAwait(false)
                    : await TcpConnector.ConnectAsync(remote, ConnectTimeout, transport, connection).ConfigureAwait(false);
            }
            catch (Exception e) when (e is SocketException or OperationCanceledException or TransportConnectException
                or AuthenticationException or IOException)
            {
                console.ConnectFailed(ep, remote, e, i + 1 < addresses.Length);
                continue;
            }
            connection.Attach(transportConnection);
            // Still owned by this task (the agent gets it through the queue): rent its buffers now.
            if (prewarm) transportConnection.Prewarm();
            if (agent.IsStopping)
            {
                connection.CloseNow("engine stopping");
                _connecting = false;
                return;
            }
            agent.Enqueue(connection);
            return;
        }
        _connecting = false;
    }
}
