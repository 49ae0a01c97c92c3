using System;
using System.Collections.Generic;
using System.IO.Pipelines;
using System.Net;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Diagnostics;
using FixEngine.Hosting;
using FixEngine.Session;
using FixEngine.Timing;
using FixEngine.Transport;

namespace FixEngine.Engine;

// Connections a hosting server accepted (Kestrel, any IDuplexPipe): run over PipeEngineConnection.
public sealed partial class FixEngineHost
{
    /// <summary>Runs one inbound acceptor connection that a hosting server accepted (Kestrel through
    /// <c>FixConnectionHandler</c> of FixEngine.AspNetCore, or any <see cref="IDuplexPipe"/>): its Logon is routed to the
    /// acceptor session with its CompIDs, as on the engine's own listener, and the session runs over the pipe until the
    /// connection ends.</summary>
    /// <param name="transport">The connection's pipe (Kestrel's <c>ConnectionContext.Transport</c>); the engine completes
    /// both ends when it is done.</param>
    /// <param name="remoteEndPoint">The peer, for the log; null if unknown.</param>
    /// <param name="connectionClosed">The server's signal that the connection is gone (Kestrel's
    /// <c>ConnectionContext.ConnectionClosed</c>).</param>
    /// <param name="closingRequested">The server's request to end the connection gracefully (Kestrel's
    /// <c>IConnectionLifetimeNotificationFeature.ConnectionClosedRequested</c>, at its shutdown): a logged-on session
    /// sends a Logout and the connection ends when the peer answers or after <c>LogoutTimeout</c>.</param>
    /// <returns>A task that completes when the connection has ended (Logout, error, peer or engine stop); it does not
    /// fault for the connection's errors, which are logged as its close reason.</returns>
    /// <remarks>
    /// <para>Sessions are acceptor sessions of this engine; with <see cref="EngineOptions.ListenOnAcceptorPorts"/> false
    /// the engine binds no port itself and the server's listener (with its TLS, connection limits and filters) is the
    /// only way in. A session on a port the engine also listens on must not use <c>ReceiveMode=BusyPoll</c> (the
    /// connection is then refused with that reason).</para>
    /// <para>Before its Logon a connection may send at most <c>PreLogonMaxMessageSize</c> per message, 4 KiB of leading
    /// garbage, and must send its Logon within the engine's pending-Logon timeout. After it, the session's own limits apply.
    /// The pipe path costs more than the engine's socket transports (see docs/benchmarks/pipe-transport.md).</para>
    /// </remarks>
    /// <exception cref="ArgumentNullException"><paramref name="transport"/> is null.</exception>
    public async Task RunAcceptorConnectionAsync(IDuplexPipe transport, string? remoteEndPoint = null, CancellationToken connectionClosed = default, CancellationToken closingRequested = default)
    {
        ArgumentNullException.ThrowIfNull(transport);
        var connection = new PipeEngineConnection(transport, remoteEndPoint ?? "?", _preLogonMaxBodyLength, _router, _time);
        if (_agent.IsStopping || !_hosted.TryAdd(connection))
        {
            connection.Close("engine stopping");
            await transport.Output.CompleteAsync().ConfigureAwait(false);
            await transport.Input.CompleteAsync().ConfigureAwait(false);
            _console.Refused(connection.RemoteEndPoint, "engine stopping");
            return;
        }
        _console.Accepted(connection.RemoteEndPoint);
        try
        {
            await connection.RunAsync(_pendingLogonTimeout, connectionClosed, closingRequested, _console).ConfigureAwait(false);
        }
        finally
        {
            _hosted.Remove(connection);
        }
    }
}
