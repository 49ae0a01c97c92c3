using System;
using System.Collections.Generic;
using System.IO;
using System.Net.Security;
using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;
using FixEngine.Config;
using FixEngine.Transport;

namespace FixEngine.Engine;

/// <summary>Turns the SSL settings of a session into the transport's <see cref="TlsOptions"/>.</summary>
/// <remarks>
/// Start-up only (certificates are loaded once, when the engine is built, and owned by the engine); a certificate that
/// cannot be loaded is a <see cref="ConfigException"/> naming the key and the session. Peer validation: the platform's
/// (system trust store, and the name on initiators) by default; only <c>SSLCACertificate</c> as trusted root when set
/// (name still checked on initiators); none with <c>SSLValidateCertificates=N</c>.
/// </remarks>
internal static class EngineTls
{
    /// <summary>Server-side options of an acceptor port (its sessions agree on every SSL key).</summary>
    public static TlsOptions ForAcceptor(SessionSettings s, List<IDisposable> owned)
    {
        X509Certificate2 certificate = LoadOwnCertificate(s, owned);
        X509Certificate2? root = LoadRoot(s, owned);
        return new TlsOptions
        {
            ServerCertificate = certificate,
            RequireClientCertificate = s.SSLRequireClientCertificate,
            EnabledProtocols = s.SSLProtocols,
            RemoteCertificateValidation = Validation(s, root, certificateOptional: !s.SSLRequireClientCertificate),
        };
    }

    /// <summary>The parts of an initiator's client-side options that do not depend on the endpoint.</summary>
    public static InitiatorTls ForInitiator(SessionSettings s, List<IDisposable> owned)
    {
        X509Certificate2Collection? clientCertificates = null;
        if (!string.IsNullOrEmpty(s.SSLCertificate)) clientCertificates = [LoadOwnCertificate(s, owned)];
        X509Certificate2? root = LoadRoot(s, owned);
        return new InitiatorTls(s, clientCertificates, Validation(s, root, certificateOptional: false));
    }

    /// <summary>An initiator's TLS setup; <see cref="For"/> adds the name to validate for one endpoint.</summary>
    public sealed class InitiatorTls(SessionSettings settings, X509Certificate2Collection? clientCertificates, RemoteCertificateValidationCallback? validation)
    {
        /// <summary>Options for a connect to <paramref name="host"/>: SSLServerName, else the host, is the expected name.</summary>
        public TlsOptions For(string host) => new()
        {
            TargetHost = settings.SSLServerName ?? host,
            ClientCertificates = clientCertificates,
            EnabledProtocols = settings.SSLProtocols,
            RemoteCertificateValidation = validation,
        };
    }

    private static X509Certificate2 LoadOwnCertificate(SessionSettings s, List<IDisposable> owned)
    {
        string path = s.SSLCertificate!;
        try
        {
            X509Certificate2 certificate = path.EndsWith(".pem", StringComparison.OrdinalIgnoreCase)
                ? TlsOptions.LoadPem(path)
                : TlsOptions.LoadPfx(path, s.SSLCertificatePassword);
            owned.Add(certificate);
            if (!certificate.HasPrivateKey)
            {
                throw new ConfigException(null, 0, nameof(SessionSettings.SSLCertificate), $"session {s.SessionId}: '{path}' has no private key");
            }
            return certificate;
        }
        catch (Exception e) when (e is CryptographicException or IOException or UnauthorizedAccessException)
        {
            throw new ConfigException(null, 0, nameof(SessionSettings.SSLCertificate), $"session {s.SessionId}: cannot load '{path}': {e.Message}");
        }
    }

    private static X509Certificate2? LoadRoot(SessionSettings s, List<IDisposable> owned)
    {
        if (string.IsNullOrEmpty(s.SSLCACertificate)) return null;
        try
        {
            X509Certificate2 root = X509CertificateLoader.LoadCertificateFromFile(s.SSLCACertificate);
            owned.Add(root);
            return root;
        }
        catch (Exception e) when (e is CryptographicException or IOException or UnauthorizedAccessException)
        {
            throw new ConfigException(null, 0, nameof(SessionSettings.SSLCACertificate), $"session {s.SessionId}: cannot load '{s.SSLCACertificate}': {e.Message}");
        }
    }

    private static RemoteCertificateValidationCallback? Validation(SessionSettings s, X509Certificate2? root, bool certificateOptional)
    {
        if (!s.SSLValidateCertificates) return (_, certificate, _, _) => certificateOptional || certificate is not null;
        if (root is null) return null;
        return (_, certificate, _, errors) => ChainsToRoot(certificate, errors, root, certificateOptional);
    }

    // The peer's certificate must chain to the configured root alone (not the system store); a name mismatch reported by
    // the platform (initiators) still fails.
    private static bool ChainsToRoot(X509Certificate? certificate, SslPolicyErrors errors, X509Certificate2 root, bool certificateOptional)
    {
        if (certificate is null) return certificateOptional;
        if ((errors & SslPolicyErrors.RemoteCertificateNameMismatch) != 0) return false;
        X509Certificate2? created = certificate as X509Certificate2 is null ? X509CertificateLoader.LoadCertificate(certificate.GetRawCertData()) : null;
        X509Certificate2 leaf = created ?? (X509Certificate2)certificate;
        try
        {
            using var chain = new X509Chain();
            chain.ChainPolicy.TrustMode = X509ChainTrustMode.CustomRootTrust;
            chain.ChainPolicy.CustomTrustStore.Add(root);
            chain.ChainPolicy.RevocationMode = X509RevocationMode.NoCheck;
            return chain.Build(leaf);
        }
        finally
        {
            created?.Dispose();
        }
    }
}
