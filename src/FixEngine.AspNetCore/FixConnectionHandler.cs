using System.Threading.Tasks;
using FixEngine.Engine;
using Microsoft.AspNetCore.Connections;
using Microsoft.AspNetCore.Connections.Features;

namespace FixEngine.AspNetCore;

/// <summary>Hosts the FIX acceptor sessions of the container's <see cref="FixEngineHost"/> on an ASP.NET Core Kestrel
/// endpoint: each connection Kestrel accepts (with its TLS, connection limits and middleware) is run by the engine over
/// the connection's <see cref="System.IO.Pipelines.IDuplexPipe"/>, routed to its session by the Logon's CompIDs.</summary>
/// <remarks>
/// <code>
/// builder.Services.AddSingleton&lt;IApplication, MyApplication&gt;();
/// builder.Services.AddFixEngine(builder.Configuration.GetSection("FixEngine"),
///     o => o.Engine = new EngineOptions { ListenOnAcceptorPorts = false });   // Kestrel owns the port
/// builder.WebHost.ConfigureKestrel(k => k.ListenAnyIP(5001, listen =>
/// {
///     listen.UseHttps("fix.pfx");                    // optional: Kestrel's TLS
///     listen.UseConnectionHandler&lt;FixConnectionHandler&gt;();
/// }));
/// </code>
/// <para>The engine's sessions, timers and store are the same as with its own listener (see
/// <see cref="FixEngineHost.RunAcceptorConnectionAsync"/>); the engine must be started (the hosted service of
/// <c>AddFixEngine</c> does it). The socket transports of the engine stay the fast path: the pipe path's cost is measured in
/// docs/benchmarks/pipe-transport.md.</para>
/// </remarks>
/// <param name="engine">The engine whose acceptor sessions take the connections.</param>
public sealed class FixConnectionHandler(FixEngineHost engine) : ConnectionHandler
{
    /// <summary>Runs the connection until the session ends it, the peer closes it or the engine stops. When Kestrel shuts
    /// down first it asks the connection to close: the session sends a Logout and the connection ends at the answer.</summary>
    /// <param name="connection">The connection Kestrel accepted.</param>
    /// <returns>A task that completes when the connection has ended.</returns>
    public override Task OnConnectedAsync(ConnectionContext connection)
    {
        System.ArgumentNullException.ThrowIfNull(connection);
        System.Threading.CancellationToken closing = connection.Features.Get<IConnectionLifetimeNotificationFeature>()?.ConnectionClosedRequested ?? default;
        return engine.RunAcceptorConnectionAsync(connection.Transport, connection.RemoteEndPoint?.ToString(), connection.ConnectionClosed, closing);
    }
}
