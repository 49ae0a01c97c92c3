using System;
using System.Collections.Generic;
using System.IO;
using System.Net;
using System.Net.Sockets;
using System.Security.Authentication;
using System.Threading;
using System.Threading.Tasks;
using FixEngine.Config;
using FixEngine.Session;
using FixEngine.Transport;

namespace FixEngine.Engine;

// Design:
// - One per initiator session. Owner thread: the engine agent, which alone reads and writes the schedule
//   (_nextEndpoint, _lastAttemptNs, _attempted, in monotonic time) in Poll and learns of a new connection in Connected.
// - A connect runs as one task on the thread pool (DNS, TCP connect and, for TLS, the handshake must not block the
//   agent). The task owns the new connection until it queues it to the agent (EngineAgent.Enqueue): it rents its buffers
//   (Prewarm) before anything else can touch it. _connecting is the one field both sides write: the agent sets it when
//   it starts a task; the task clears it when the attempt fails, the agent when it takes the connection. Hence volatile.

// - TLS refusals back off: a failed TLS handshake (a certificate either side refuses, a protocol mismatch, the peer's
//   alert) or a connection the acceptor ends before sending anything after the handshake, as it ends one whose client
//   certificate it rejected, will not mend itself in a second, and redialling at ReconnectInterval fills the
//   counterparty's log. After each such refusal in a row the interval doubles (2, 4, 8 ... times ReconnectInterval, at
//   most 60 s or ReconnectInterval if longer), each refusal logged with the reason and the next attempt; a Logon resets
//   it. A refused TCP connect (the counterparty restarting) keeps the plain ReconnectInterval. _tlsRefusals is written by
//   the connect task and the agent, hence Interlocked/Volatile.

/// <summary>Connects an initiator session, and reconnects it (failing over between SocketConnectHost[n]) after
/// ReconnectInterval while it is disconnected and inside its schedule (longer after TLS refusals, see above). A host name is resolved at each attempt
/// (<see cref="HostResolver"/>) and every address it resolves to is tried, in order, before the next failover host.</summary>
internal sealed class InitiatorConnector(SessionSlot slot, IReadOnlyList<SocketEndpoint> endpoints, TcpConnectionOptions transport,
    EngineTls.InitiatorTls? tls, EngineAgent agent, EpochAnchor time, EngineConsole console, bool prewarm,
    Func<string, Task<IPAddress[]>>? resolve = null)
{
    private const long NsPerSecond = 1_000_000_000L;
    private static readonly TimeSpan ConnectTimeout = TimeSpan.FromSeconds(10);

    private const long MaxTlsBackoffNs = 60 * NsPerSecond;

    private int _nextEndpoint;
    private long _lastAttemptNs;
    private bool _attempted;
    private int _tlsRefusals;
    private volatile bool _connecting;
    private bool _storeFailureReported;

    /// <summary>Reconnect times that passed while the session was disabled, without a connect (agent; for tests).</summary>
    internal long WithheldAttempts { get; private set; }

    /// <summary>Completion-mode or TLS: the session is entered from completion threads, so it has a gate.</summary>
    public static bool IsGuarded(TcpConnectionOptions transport, bool tls) => tls || transport.ReceiveMode != ReceiveMode.BusyPoll;

    /// <summary>Agent: starts a connect when the session is disconnected, in its schedule and logon window (LogonTime-LogoutTime)
    /// and its reconnect time has come.</summary>
    /// <returns>1 when an attempt started, else 0.</returns>
    public int Poll(long nowNs, long epochNs)
    {
        FixSession s = slot.Session;
        // IsConnected may be read while a completion thread disconnects the session: a stale true only delays the
        // attempt by a duty cycle; only the agent attaches initiator connections.
        if (_tlsRefusals != 0 && s.IsLoggedOn) Volatile.Write(ref _tlsRefusals, 0);
        if (_connecting || s.IsConnected || endpoints.Count == 0 || (_attempted && nowNs - _lastAttemptNs < RetryIntervalNs(s.Settings.ReconnectInterval))
            || !s.IsLogonTime(epochNs)) return 0;
        if (slot.Disabled)
        {
            // Disabled (admin console): the reconnect time passes without a connect; once enabled, the initiator connects
            // at its next ReconnectInterval.
            _lastAttemptNs = nowNs;
            _attempted = true;
            WithheldAttempts++;
            return 0;
        }
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
        _lastAttemptNs = nowNs;
        _attempted = true;
        _connecting = true;
        console.Connecting(s.Id, ep, tls is not null);
        StartConnect(ep, index);
        return 1;
    }

    // Not inlined into Poll: the lambda's closure would be allocated on every Poll, at the entry of the scope that
    // declares what it captures.
    private void StartConnect(SocketEndpoint ep, int index) => Task.Run(() => ConnectAsync(ep, index));

    /// <summary>Agent, after <see cref="Poll"/>: when the next connect attempt is due (monotonic ns), or
    /// <see cref="long.MaxValue"/> while none is planned (connected, connecting, outside the logon window, no endpoint, a
    /// failed store); the agent parks until then at most. A connect task that fails wakes the agent
    /// (<see cref="EngineAgent.Wake"/>), a window that opens is seen within the agent's longest park.</summary>
    public long NextPollNs(long nowNs, long epochNs)
    {
        FixSession s = slot.Session;
        if (_connecting || s.IsConnected || endpoints.Count == 0 || s.StoreFailure is not null || !s.IsLogonTime(epochNs)) return long.MaxValue;
        return _attempted ? _lastAttemptNs + RetryIntervalNs(s.Settings.ReconnectInterval) : nowNs;
    }

    /// <summary>Agent (or the caller of a session command while the agent is not running): the next connect is due now,
    /// not after the reconnect interval (an operator's Logon).</summary>
    public void ConnectNow() => _attempted = false;

    /// <summary>Agent: the connection the task queued has been taken.</summary>
    public void Connected() => _connecting = false;

    /// <summary>The wait between attempts: ReconnectInterval, doubled after each TLS refusal in a row (capped).</summary>
    private long RetryIntervalNs(int reconnectSeconds)
    {
        long interval = Math.Max(1, reconnectSeconds) * NsPerSecond;
        int refusals = Volatile.Read(ref _tlsRefusals);
        if (refusals == 0) return interval;
        long cap = Math.Max(interval, MaxTlsBackoffNs);
        return refusals >= 20 ? cap : Math.Min(cap, interval << refusals);
    }

    /// <summary>Agent or connect task: the peer refused us at the TLS level (see the design notes); logs the next attempt.</summary>
    public void TlsRefused(string reason)
    {
        int refusals = Interlocked.Increment(ref _tlsRefusals);
        long next = RetryIntervalNs(slot.Session.Settings.ReconnectInterval);
        console.ReconnectingLater(slot.Session.Id, $"TLS refused {refusals} time(s) in a row ({reason}); next attempt in {next / NsPerSecond} s, "
            + "doubling after each refusal up to " + (Math.Max(Math.Max(1, slot.Session.Settings.ReconnectInterval) * NsPerSecond, MaxTlsBackoffNs) / NsPerSecond) + " s");
    }

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
            agent.Wake();
            return;
        }
        string? tlsRefusal = null;
        for (int i = 0; i < addresses.Length; i++)
        {
            var remote = new IPEndPoint(addresses[i], ep.Port);
            var connection = new SessionConnection(router: null, time, IsGuarded(transport, tls is not null)) { Slot = slot };
            LocalBinding? local = Binding(ep, endpointIndex, remote.Address, slot.Session.Settings);
            TransportConnection transportConnection;
            try
            {
                transportConnection = tls is not null
                    ? await TlsConnection.ConnectAsync(remote, ConnectTimeout, transport, tls.For(ep.Host), connection, local: local).ConfigureAwait(false)
                    : await TcpConnector.ConnectAsync(remote, ConnectTimeout, transport, connection, local: local).ConfigureAwait(false);
            }
            catch (Exception e) when (e is SocketException or OperationCanceledException or TransportConnectException
                or AuthenticationException or IOException)
            {
                console.ConnectFailed(ep, remote, e, i + 1 < addresses.Length);
                if (e is AuthenticationException) tlsRefusal = e is TlsHandshakeException named ? named.Reason : e.Message;
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
        if (tlsRefusal is not null) TlsRefused(tlsRefusal);
        _connecting = false;
        // The agent plans the next attempt (it parks until its deadlines, and none was planned while connecting).
        agent.Wake();
    }

    /// <summary>The local address and port to connect to endpoint <paramref name="endpointIndex"/> from (SocketLocalHost /
    /// SocketConnectSourceHost, SocketLocalPort / SocketConnectSourcePort, or failover n's SocketConnectSourceHost&lt;n&gt; /
    /// SocketConnectSourcePort&lt;n&gt;), or null when the system picks both.</summary>
    internal static LocalBinding? Binding(SocketEndpoint ep, int endpointIndex, IPAddress remote, SessionSettings s)
    {
        if (ep.SourceHost is null && ep.SourcePort is null) return null;
        IPAddress address = ep.SourceHost is null
            ? remote.AddressFamily == AddressFamily.InterNetworkV6 ? IPAddress.IPv6Any : IPAddress.Any
            : IPAddress.Parse(ep.SourceHost);
        var keys = new List<string>(2);
        bool ownHost = endpointIndex > 0 && s.SocketConnectFailovers[endpointIndex - 1].SourceHost is not null;
        if (ep.SourceHost is not null)
        {
            keys.Add(ownHost ? "SocketConnectSourceHost" + endpointIndex : Written(s, nameof(SessionSettings.SocketLocalHost), "SocketConnectSourceHost"));
        }
        if (ep.SourcePort is not null)
        {
            keys.Add(endpointIndex > 0 ? "SocketConnectSourcePort" + endpointIndex : Written(s, nameof(SessionSettings.SocketLocalPort), "SocketConnectSourcePort"));
        }
        return new LocalBinding(new IPEndPoint(address, ep.SourcePort ?? 0), string.Join(", ", keys));
    }

    // The spelling the settings file used for a key with two names.
    private static string Written(SessionSettings s, string ours, string quickFixCpp)
        => s.Origin is { } origin && !origin.Has(ours) && origin.Has(quickFixCpp) ? quickFixCpp : ours;
}
