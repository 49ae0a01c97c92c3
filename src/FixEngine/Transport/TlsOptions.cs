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

    /// <summary>Loads a certificate with its private key from a PKCS#12 (PFX) file.</summary>
    /// <param name="path">The file.</param>
    /// <param name="password">Its password, or null.</param>
    /// <returns>The certificate.</returns>
    public static X509Certificate2 LoadPfx(string path, string? password) => X509CertificateLoader.LoadPkcs12FromFile(path, password);

    /// <summary>Loads a certificate and its private key from PEM files (the key may be in the certificate file).</summary>
    /// <param name="certificatePath">PEM certificate.</param>
    /// <param name="keyPath">PEM private key; null when it is in the certificate file.</param>
    /// <returns>The certificate, re-imported through PKCS#12 so every platform's TLS stack can use its key.</returns>
    public static X509Certificate2 LoadPem(string certificatePath, string? keyPath = null)
    {
        using X509Certificate2 ephemeral = X509Certificate2.CreateFromPemFile(certificatePath, keyPath);
        return X509CertificateLoader.LoadPkcs12(ephemeral.Export(X509ContentType.Pkcs12), null);
    }
}
