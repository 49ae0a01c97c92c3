using System.Net;
using FixEngine.Transport;

namespace FixEngine.Engine;

// Design:
// - One per SocketAcceptPort. Start and Stop run on the caller of FixEngineHost.Start/Stop. OnAccepted runs on the
//   acceptor's thread (TcpAcceptor: its accept completion thread, one connection at a time; TlsAcceptor: the thread that
//   finished the handshake), which owns the new connection until it queues it to the engine agent.
// - Every session on the port shares its receive mode (EngineConfiguration.CheckPort), decided here before the Logon
//   says which session a connection is for. A busy-poll connection receives nothing until the agent polls it; a guarded
//   one (dedicated, completion mode, TLS) is started here and receives on its own thread (dedicated) or on completion
//   threads once the handler is returned, routing
//   its Logon itself, while the agent only watches it (Logon timeout, close).

/// <summary>Listens on one acceptor port (TCP or TLS) and hands each accepted connection to the engine agent.</summary>
internal sealed class Listener(string? address, int port, TcpConnectionOptions options, TlsOptions? tls,
    AcceptorRouter router, EngineAgent agent, EpochAnchor time, bool prewarm)
{
    private TcpAcceptor? _tcp;
    private TlsAcceptor? _tls;

    /// <summary>Dedicated, completion-mode or TLS: its sessions are entered from receiving threads other than the agent, so they have gates.</summary>
    public bool Guarded { get; } = InitiatorConnector.IsGuarded(options, tls is not null);

    /// <summary>The bound port (after <see cref="Start"/>).</summary>
    public int BoundPort { get; private set; }

    public void Start()
    {
        IPAddress ip = string.IsNullOrEmpty(address) ? IPAddress.Any : IPAddress.Parse(address);
        var endPoint = new IPEndPoint(ip, port);
        if (tls is not null)
        {
            _tls = new TlsAcceptor(endPoint, options, tls, OnAccepted);
            _tls.Start();
            BoundPort = _tls.LocalEndPoint.Port;
        }
        else
        {
            _tcp = new TcpAcceptor(endPoint, options, OnAccepted);
            _tcp.Start();
            BoundPort = _tcp.LocalEndPoint.Port;
        }
    }

    public void Stop()
    {
        _tcp?.Stop();
        _tls?.Stop();
    }

    // Acceptor thread.
    private IConnectionHandler OnAccepted(TransportConnection transport)
    {
        var connection = new SessionConnection(router, time, Guarded);
        connection.Attach(transport);
        // Before it starts receiving: this thread still owns it.
        if (prewarm) transport.Prewarm();
        if (Guarded) connection.Start();
        agent.Enqueue(connection);
        return connection;
    }
}
