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
/// Start-up only (certificates are loaded once, when the engine is built, and owned by the engine) through
/// <see cref="CertificateFiles"/>; a certificate that cannot be loaded is a <see cref="ConfigException"/> naming the
/// settings file and line, the key, the session and the certificate file. Peer validation: the platform's (system trust
/// store, and the name on initiators) by default; only the certificates of <c>SSLCACertificate</c> (every one of a bundle)
/// and <c>SSLCACertificateDirectory</c> as trust anchors when set (name still checked on initiators); none with
/// <c>SSLValidateCertificates=N</c>. <c>SSLCheckCertificateRevocation=Y</c> adds an online revocation check of the chain.
/// </remarks>
internal static class EngineTls
{
    /// <summary>Server-side options of an acceptor port (its sessions agree on every SSL key).</summary>
    public static TlsOptions ForAcceptor(SessionSettings s, List<IDisposable> owned)
    {
        X509Certificate2 certificate = LoadOwnCertificate(s, owned);
        X509Certificate2Collection? root = LoadRoot(s, owned);
        return new TlsOptions
        {
            ServerCertificate = certificate,
            CertificateChain = LoadChain(s, owned),
            RequireClientCertificate = s.SSLRequireClientCertificate,
            EnabledProtocols = s.SSLProtocols,
            CertificateValidator = Validation(s, root, certificateOptional: !s.SSLRequireClientCertificate, expectedName: null),
            HandshakeTimeout = TimeSpan.FromSeconds(s.SSLHandshakeTimeout),
        };
    }

    /// <summary>The parts of an initiator's client-side options that do not depend on the endpoint.</summary>
    public static InitiatorTls ForInitiator(SessionSettings s, List<IDisposable> owned)
    {
        X509Certificate2Collection? clientCertificates = null;
        X509Certificate2Collection? chain = null;
        if (!string.IsNullOrEmpty(s.SSLCertificate))
        {
            clientCertificates = [LoadOwnCertificate(s, owned)];
            chain = LoadChain(s, owned);
        }
        X509Certificate2Collection? root = LoadRoot(s, owned);
        return new InitiatorTls(s, clientCertificates, chain, root);
    }

    /// <summary>An initiator's TLS setup; <see cref="For"/> adds the name to validate for one endpoint.</summary>
    public sealed class InitiatorTls(SessionSettings settings, X509Certificate2Collection? clientCertificates, X509Certificate2Collection? chain,
        X509Certificate2Collection? roots)
    {
        /// <summary>Options for a connect to <paramref name="host"/>: SSLServerName, else the host, is the expected name.</summary>
        public TlsOptions For(string host)
        {
            string name = settings.SSLServerName ?? host;
            return new()
            {
                TargetHost = name,
                ClientCertificates = clientCertificates,
                CertificateChain = chain,
                EnabledProtocols = settings.SSLProtocols,
                CertificateValidator = Validation(settings, roots, certificateOptional: false, expectedName: name),
                HandshakeTimeout = TimeSpan.FromSeconds(settings.SSLHandshakeTimeout),
            };
        }
    }

    private static X509Certificate2 LoadOwnCertificate(SessionSettings s, List<IDisposable> owned)
    {
        X509Certificate2 certificate = WithSession(s, () => CertificateFiles.LoadOwnCertificate(s));
        owned.Add(certificate);
        return certificate;
    }

    // The intermediates in our certificate file, sent with our certificate.
    private static X509Certificate2Collection? LoadChain(SessionSettings s, List<IDisposable> owned)
    {
        X509Certificate2Collection chain = WithSession(s, () => CertificateFiles.LoadOwnCertificateChain(s));
        foreach (X509Certificate2 c in chain) owned.Add(c);
        return chain.Count == 0 ? null : chain;
    }

    private static X509Certificate2Collection? LoadRoot(SessionSettings s, List<IDisposable> owned)
    {
        X509Certificate2Collection roots = WithSession(s, () => CertificateFiles.LoadTrustedCertificates(s));
        foreach (X509Certificate2 root in roots) owned.Add(root);
        return roots.Count == 0 ? null : roots;
    }

    // Adds the session to a certificate error (the file, line and key are already in it).
    private static T WithSession<T>(SessionSettings s, Func<T> load)
    {
        try
        {
            return load();
        }
        catch (ConfigException e)
        {
            throw new ConfigException(e.FileName, e.LineNumber, e.Key, $"session {s.SessionId}: {e.Reason}");
        }
    }

    // Null accepts; otherwise the reason the peer's certificate is refused, for the handshake's failure.
    private static Func<X509Certificate?, X509Chain?, SslPolicyErrors, string?> Validation(SessionSettings s, X509Certificate2Collection? roots,
        bool certificateOptional, string? expectedName)
    {
        if (!s.SSLValidateCertificates)
        {
            return (certificate, _, _) => certificateOptional || certificate is not null ? null : "the peer presented no certificate";
        }
        bool revocation = s.SSLCheckCertificateRevocation;
        return (certificate, chain, errors) => Verify(certificate, chain, errors, roots, revocation, certificateOptional, expectedName);
    }

    // Without configured roots or revocation the platform's verdict stands. With configured roots the peer's certificate
    // must chain to them alone (not the system store), and the platform's chain verdict is replaced by ours; a name
    // mismatch reported by the platform (initiators) always fails. With revocation on, the chain is rebuilt with an online
    // revocation check.
    private static string? Verify(X509Certificate? certificate, X509Chain? platformChain, SslPolicyErrors errors, X509Certificate2Collection? roots,
        bool revocation, bool certificateOptional, string? expectedName)
    {
        if (certificate is null) return certificateOptional ? null : "the peer presented no certificate";
        if ((errors & SslPolicyErrors.RemoteCertificateNameMismatch) != 0)
        {
            return TlsFailures.DescribeCertificate(certificate, platformChain, SslPolicyErrors.RemoteCertificateNameMismatch, expectedName);
        }
        if (roots is null && !revocation)
        {
            return errors == SslPolicyErrors.None ? null : TlsFailures.DescribeCertificate(certificate, platformChain, errors, expectedName);
        }
        if (roots is null && errors != SslPolicyErrors.None) return TlsFailures.DescribeCertificate(certificate, platformChain, errors, expectedName);
        X509Certificate2? created = certificate as X509Certificate2 is null ? X509CertificateLoader.LoadCertificate(certificate.GetRawCertData()) : null;
        X509Certificate2 leaf = created ?? (X509Certificate2)certificate;
        try
        {
            using var chain = new X509Chain();
            if (roots is not null)
            {
                chain.ChainPolicy.TrustMode = X509ChainTrustMode.CustomRootTrust;
                chain.ChainPolicy.CustomTrustStore.AddRange(roots);
                // Intermediates of a CA bundle help build the chain too.
                chain.ChainPolicy.ExtraStore.AddRange(roots);
            }
            // Intermediates the peer sent with its certificate.
            if (platformChain is not null)
            {
                foreach (X509ChainElement element in platformChain.ChainElements)
                {
                    if (!ReferenceEquals(element.Certificate, leaf)) chain.ChainPolicy.ExtraStore.Add(element.Certificate);
                }
            }
            chain.ChainPolicy.RevocationMode = revocation ? X509RevocationMode.Online : X509RevocationMode.NoCheck;
            chain.ChainPolicy.RevocationFlag = X509RevocationFlag.ExcludeRoot;
            return chain.Build(leaf) ? null : TlsFailures.DescribeCertificate(leaf, chain, SslPolicyErrors.RemoteCertificateChainErrors, expectedName);
        }
        finally
        {
            created?.Dispose();
        }
    }
}
