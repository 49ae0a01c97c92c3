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
internal sealed partial class EngineRuntime
{
    internal async Task RunAcceptorConnectionAsync(IDuplexPipe transport, string? remoteEndPoint = null, CancellationToken connectionClosed = default, CancellationToken closingRequested = default)
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
