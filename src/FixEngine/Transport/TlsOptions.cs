using System;
using System.Net.Security;
using System.Security.Authentication;
using System.Security.Cryptography.X509Certificates;

namespace FixEngine.Transport;

/// <summary>TLS settings for <see cref="TlsConnection"/> and <see cref="TlsAcceptor"/>.</summary>
/// <remarks>Read when a handshake starts; share one instance, do not mutate it while connections are being made.</remarks>
internal sealed class TlsOptions
{
    /// <summary>The server's certificate with its private key (server side).</summary>
    public X509Certificate2? ServerCertificate { get; set; }

    /// <summary>Certificates the client may present (client side; needed when the server requires one).</summary>
    public X509Certificate2Collection? ClientCertificates { get; set; }

    /// <summary>Server side: ask for and require a client certificate. Default false.</summary>
    public bool RequireClientCertificate { get; set; }

    /// <summary>Intermediate certificates sent after ours (<see cref="ServerCertificate"/>, or the first of
    /// <see cref="ClientCertificates"/>) so the peer can build the chain to its trusted root; null sends our certificate alone.</summary>
    public X509Certificate2Collection? CertificateChain { get; set; }

    /// <summary>Validates the peer's certificate; null uses the platform's chain and name checks. When it refuses, the
    /// handshake fails with a <see cref="TlsHandshakeException"/> naming what the platform found (expired, untrusted, name).
    /// <see cref="CertificateValidator"/> takes precedence.</summary>
    public RemoteCertificateValidationCallback? RemoteCertificateValidation { get; set; }

    /// <summary>Validates the peer's certificate and names the reason when it refuses it: returns null to accept, or the
    /// reason (e.g. from <see cref="TlsFailures.DescribeCertificate"/>), which the <see cref="TlsHandshakeException"/> carries.
    /// Takes precedence over <see cref="RemoteCertificateValidation"/>.</summary>
    public Func<X509Certificate?, X509Chain?, SslPolicyErrors, string?>? CertificateValidator { get; set; }

    /// <summary>Allowed protocol versions. Default TLS 1.2 and TLS 1.3.</summary>
    public SslProtocols EnabledProtocols { get; set; } = SslProtocols.Tls12 | SslProtocols.Tls13;

    /// <summary>Client side: the server name to validate (SNI); the remote host when null.</summary>
    public string? TargetHost { get; set; }

    /// <summary>Longest handshake (on the server side, from the TCP accept: a client that connects and sends nothing is
    /// closed after it). Default 10 s.</summary>
    public TimeSpan HandshakeTimeout { get; set; } = TimeSpan.FromSeconds(10);

    // Server side: the certificate with its intermediates, built once (building it checks the chain).
    private SslStreamCertificateContext? _serverContext;

    internal SslStreamCertificateContext? ServerCertificateContext()
    {
        if (ServerCertificate is null || CertificateChain is not { Count: > 0 } chain) return null;
        return _serverContext ??= SslStreamCertificateContext.Create(ServerCertificate, chain, offline: true);
    }
}
