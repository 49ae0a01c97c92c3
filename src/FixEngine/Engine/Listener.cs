using System;
using System.Collections.Generic;
using System.Net;
using System.Net.Sockets;
using FixEngine.Transport;

namespace FixEngine.Engine;

// Design:
// - One per SocketAcceptPort. Start and Stop run on the caller of FixEngineHost.Start/Stop. OnAccepted runs on the
//   acceptor's thread (TcpAcceptor: its accept completion thread, one connection at a time; TlsAcceptor: the thread that
//   finished the handshake), which owns the new connection until it queues it to the engine agent.
// - Addresses: SocketAcceptHost resolved by the FixEngineHost constructor (HostResolver.ResolveAcceptHost, so a bad name
//   is a ConfigException naming file, line and key before anything runs). Not set: one dual-stack socket on IPv6Any
//   (IPv4 clients arrive as IPv4-mapped addresses), or IPv4 Any where the OS has no IPv6. A name with several addresses
//   (localhost: 127.0.0.1 and ::1) gets one socket per address, all on the port the first one bound (port 0 picks it).
// - Before its Logon a connection is unauthenticated: the gate caps their number (per port and per source address,
//   refusals logged), and the transport's pre-Logon limit (PreLogonMaxMessageSize) bounds its receive buffer. On a TLS
//   port the place is taken when the TCP connection is accepted, before the handshake (TlsAcceptor's Admit hook), so
//   handshakes in progress count against the caps; a failed or timed-out handshake (SSLHandshakeTimeout) gives it back and
//   is logged with the peer's address and the reason.
// - Every session on the port shares its receive mode (EngineConfiguration.CheckPort), decided here before the Logon
//   says which session a connection is for. A busy-poll connection receives nothing until the agent polls it; a guarded
//   one (dedicated, completion mode, TLS) is started here and receives on its own thread (dedicated) or on completion
//   threads once the handler is returned, routing
//   its Logon itself, while the agent only watches it (Logon timeout, close).

/// <summary>Listens on one acceptor port (TCP or TLS) and hands each accepted connection to the engine agent.</summary>
internal sealed class Listener(IReadOnlyList<IPAddress> addresses, int port, TcpConnectionOptions options, TlsOptions? tls,
    AcceptorRouter router, EngineAgent agent, EpochAnchor time, EngineConsole console, UnauthenticatedGate gate, Config.SessionSettings? settings = null)
{
    private readonly List<TcpAcceptor> _tcp = [];
    private readonly List<TlsAcceptor> _tls = [];

    /// <summary>Dedicated, completion-mode or TLS: its sessions are entered from receiving threads other than the agent, so they have gates.</summary>
    public bool Guarded { get; } = InitiatorConnector.IsGuarded(options, tls is not null);

    /// <summary>The bound port (after <see cref="Start"/>).</summary>
    public int BoundPort { get; private set; }

    /// <summary>The addresses listened on (after <see cref="Start"/>).</summary>
    public List<IPEndPoint> BoundEndPoints { get; } = [];

    /// <summary>The addresses to bind for an acceptor host: the resolved ones, or every interface (dual-stack where the OS
    /// has IPv6) when none is configured.</summary>
    public static IPAddress[] DefaultAddresses(IPAddress[] resolved) =>
        resolved.Length > 0 ? resolved : [Socket.OSSupportsIPv6 ? IPAddress.IPv6Any : IPAddress.Any];

    public void Start()
    {
        int bindPort = port;
        for (int i = 0; i < addresses.Count; i++)
        {
            var endPoint = new IPEndPoint(addresses[i], bindPort);
            IPEndPoint bound;
            try
            {
                bound = Bind(endPoint);
            }
            catch (SocketException e) when (i == 0 && e.SocketErrorCode == SocketError.AddressAlreadyInUse)
            {
                // Not a crash: one line naming the port and the key that chose it (the sample exits with its code).
                throw Config.SettingsOrigin.Error(settings, nameof(Config.SessionSettings.SocketAcceptPort),
                    $"port {bindPort} is already in use by another listener (on {endPoint}: another program, or another acceptor; "
                    + "SocketReusePort=Y would share it, see docs/quickfix-compatibility.md)");
            }
            catch (SocketException e) when (i == 0 && e.SocketErrorCode == SocketError.AccessDenied)
            {
                throw Config.SettingsOrigin.Error(settings, nameof(Config.SessionSettings.SocketAcceptPort),
                    $"not allowed to listen on port {bindPort} ({endPoint}): {e.Message}");
            }
            catch (SocketException e) when (i > 0)
            {
                // The first address is the one the host name stands for; a further one (e.g. ::1 without IPv6) is a bonus.
                console.Refused(endPoint.ToString(), $"cannot listen on this address of the acceptor host: {e.Message}");
                continue;
            }
            if (i == 0) bindPort = BoundPort = bound.Port;
            BoundEndPoints.Add(bound);
        }
    }

    private IPEndPoint Bind(IPEndPoint endPoint)
    {
        if (tls is not null)
        {
            var events = new TlsAcceptorEvents
            {
                Admit = remote => Allowed(remote) && gate.Admit(remote) is not null,
                HandshakeFailed = (remote, reason) =>
                {
                    console.Refused(remote?.ToString() ?? "?", "TLS handshake failed: " + reason);
                    gate.Release(UnauthenticatedGate.Key(remote));
                },
            };
            var acceptor = new TlsAcceptor(endPoint, options, tls, OnTlsAccepted, events: events);
            acceptor.Start();
            _tls.Add(acceptor);
            return acceptor.LocalEndPoint;
        }
        var tcp = new TcpAcceptor(endPoint, options, OnAccepted) { AcceptFailed = console.ResourceLimit };
        tcp.Start();
        _tcp.Add(tcp);
        return tcp.LocalEndPoint;
    }

    public void Stop()
    {
        foreach (TcpAcceptor a in _tcp) a.Stop();
        foreach (TlsAcceptor a in _tls) a.Stop();
    }

    /// <summary>The peer addresses some session on the port takes a Logon from (the union of their AllowedRemoteAddresses);
    /// null: any address (a session on the port has no list, or sessions may be added for unknown Logons). Replaced whole
    /// by the engine when sessions are added or removed (any thread); read on the acceptor's thread.</summary>
    public volatile IPAddress[]? AllowList;

    // Acceptor thread: false (and logged) when no session on the port takes a Logon from this peer's address.
    private bool Allowed(EndPoint? remote)
    {
        IPAddress[]? allow = AllowList;
        if (allow is null) return true;
        IPAddress address = UnauthenticatedGate.Key(remote);
        if (Array.IndexOf(allow, address) >= 0) return true;
        console.Refused(remote?.ToString() ?? "?", $"refused at accept: {address} is in the AllowedRemoteAddresses of no session on port {BoundPort}");
        return false;
    }

    // The thread that finished the TLS handshake; the connection's place was taken before the handshake (Admit).
    private IConnectionHandler? OnTlsAccepted(TransportConnection transport)
    {
        IPAddress address = UnauthenticatedGate.Key(transport.RemoteEndPoint);
        try
        {
            return Publish(transport, address);
        }
        catch
        {
            gate.Release(address);
            throw;
        }
    }

    // Acceptor thread. No buffers are rented here: the receive buffer comes with the first bytes, at the pre-Logon size,
    // and the send side is prewarmed when the Logon binds the connection (AcceptorRouter).
    private IConnectionHandler? OnAccepted(TransportConnection transport)
    {
        if (!Allowed(transport.RemoteEndPoint) || gate.Admit(transport.RemoteEndPoint) is not IPAddress address) return null;
        return Publish(transport, address);
    }

    private SessionConnection Publish(TransportConnection transport, IPAddress address)
    {
        var connection = new SessionConnection(router, time, Guarded) { AcceptPort = port, ListeningPort = BoundPort };
        connection.Attach(transport);
        connection.Admitted(gate, address);
        if (Guarded) connection.Start();
        agent.Enqueue(connection);
        return connection;
    }
}
