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

    /// <summary>Validates the peer's certificate; null uses the platform's chain and name checks.</summary>
    public RemoteCertificateValidationCallback? RemoteCertificateValidation { get; set; }

    /// <summary>Allowed protocol versions. Default TLS 1.2 and TLS 1.3.</summary>
    public SslProtocols EnabledProtocols { get; set; } = SslProtocols.Tls12 | SslProtocols.Tls13;

    /// <summary>Client side: the server name to validate (SNI); the remote host when null.</summary>
    public string? TargetHost { get; set; }

    /// <summary>Longest handshake. Default 10 s.</summary>
    public TimeSpan HandshakeTimeout { get; set; } = TimeSpan.FromSeconds(10);
}
