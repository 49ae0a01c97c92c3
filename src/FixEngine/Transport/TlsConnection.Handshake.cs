using System;
using System.Buffers;
using System.Collections.Generic;
using System.Net;
using System.Net.Security;
using System.Net.Sockets;
using System.Runtime.CompilerServices;
using System.Security.Authentication;
using System.Security.Cryptography.X509Certificates;
using System.Threading;
using System.Threading.Tasks;

namespace FixEngine.Transport;

// The handshakes that make a TlsConnection (client and server); the connection itself is in TlsConnection.cs.
internal sealed partial class TlsConnection
{
    /// <summary>Connects over TCP and performs the client handshake.</summary>
    /// <param name="remoteEndPoint">The server.</param>
    /// <param name="timeout">Connect timeout (the handshake has <see cref="TlsOptions.HandshakeTimeout"/>).</param>
    /// <param name="options">Connection options.</param>
    /// <param name="tls">TLS options.</param>
    /// <param name="handler">Receives messages and the disconnect.</param>
    /// <param name="cancellationToken">Cancels the attempt.</param>
    /// <returns>The connection, not yet receiving (call <see cref="Start"/>).</returns>
    /// <exception cref="TransportConnectException">The TCP connect failed.</exception>
    /// <exception cref="AuthenticationException">The handshake failed: a <see cref="TlsHandshakeException"/> naming the reason
    /// (the peer's certificate and what is wrong with it, a protocol mismatch, a timeout) whenever it is known.</exception>
    /// <param name="local">The local address and port to connect from, or null for <see cref="TcpConnectionOptions.LocalAddress"/>
    /// (or the system's choice).</param>
    public static async Task<TlsConnection> ConnectAsync(EndPoint remoteEndPoint, TimeSpan timeout, TcpConnectionOptions options, TlsOptions tls,
        IConnectionHandler handler, CancellationToken cancellationToken = default, LocalBinding? local = null)
    {
        ArgumentNullException.ThrowIfNull(tls);
        ArgumentNullException.ThrowIfNull(handler);
        Socket socket = await TcpConnector.ConnectSocketAsync(remoteEndPoint, timeout, options, cancellationToken, local).ConfigureAwait(false);
        SocketSetup.ApplyOptions(socket, options, nonBlocking: false);
        var stream = new TlsSocketStream(socket);
        var ssl = new SslStream(stream, leaveInnerStreamOpen: false);
        string? targetHost = tls.TargetHost ?? (remoteEndPoint as DnsEndPoint)?.Host ?? (remoteEndPoint as IPEndPoint)?.Address.ToString();
        var check = new CertificateCheck(tls, server: false, targetHost);
        using var timeoutSource = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        try
        {
            timeoutSource.CancelAfter(tls.HandshakeTimeout);
            var authentication = new SslClientAuthenticationOptions
            {
                TargetHost = targetHost,
                EnabledSslProtocols = tls.EnabledProtocols,
                RemoteCertificateValidationCallback = check.Validate,
            };
            // Our intermediates go with our certificate when the file had them.
            if (tls.CertificateChain is { Count: > 0 } chain && tls.ClientCertificates is { Count: > 0 } own)
            {
                authentication.ClientCertificateContext = SslStreamCertificateContext.Create(own[0], chain, offline: true);
            }
            else
            {
                authentication.ClientCertificates = tls.ClientCertificates;
            }
            await ssl.AuthenticateAsClientAsync(authentication, timeoutSource.Token).ConfigureAwait(false);
        }
        catch (Exception e)
        {
            await ssl.DisposeAsync().ConfigureAwait(false);
            throw check.Named(e, tls, timedOut: timeoutSource.IsCancellationRequested && !cancellationToken.IsCancellationRequested);
        }
        return new TlsConnection(socket, stream, ssl, options, handler);
    }

    /// <summary>Performs the server handshake on an accepted socket.</summary>
    /// <param name="socket">The accepted socket (owned by the connection from now on).</param>
    /// <param name="options">Connection options.</param>
    /// <param name="tls">TLS options (<see cref="TlsOptions.ServerCertificate"/> required).</param>
    /// <param name="handler">The handler, or null to set it later through an acceptor.</param>
    /// <param name="cancellationToken">Cancels the handshake.</param>
    /// <returns>The connection, not yet receiving.</returns>
    /// <exception cref="AuthenticationException">The handshake failed: a <see cref="TlsHandshakeException"/> naming the reason
    /// (the peer's certificate and what is wrong with it, a protocol mismatch, a timeout) whenever it is known.</exception>
    public static async Task<TlsConnection> AuthenticateAsServerAsync(Socket socket, TcpConnectionOptions options, TlsOptions tls,
        IConnectionHandler? handler, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(socket);
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(tls);
        if (tls.ServerCertificate is null)
        {
            Internal.ThrowHelper.ThrowInvalidOperation("TlsOptions.ServerCertificate is required on the server side.");
        }
        options.Validate();
        SocketSetup.ApplyOptions(socket, options, nonBlocking: false);
        var stream = new TlsSocketStream(socket);
        var ssl = new SslStream(stream, leaveInnerStreamOpen: false);
        var check = new CertificateCheck(tls, server: true, expectedName: null);
        using var timeoutSource = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        try
        {
            timeoutSource.CancelAfter(tls.HandshakeTimeout);
            SslStreamCertificateContext? context = tls.ServerCertificateContext();
            await ssl.AuthenticateAsServerAsync(new SslServerAuthenticationOptions
            {
                ServerCertificate = context is null ? tls.ServerCertificate : null,
                ServerCertificateContext = context,
                ClientCertificateRequired = tls.RequireClientCertificate,
                EnabledSslProtocols = tls.EnabledProtocols,
                RemoteCertificateValidationCallback = check.Validate,
            }, timeoutSource.Token).ConfigureAwait(false);
        }
        catch (Exception e)
        {
            await ssl.DisposeAsync().ConfigureAwait(false);
            throw check.Named(e, tls, timedOut: timeoutSource.IsCancellationRequested && !cancellationToken.IsCancellationRequested);
        }
        return new TlsConnection(socket, stream, ssl, options, handler);
    }
}
