using System;
using System.Collections.Generic;
using System.Net.Security;
using System.Security.Authentication;
using System.Security.Cryptography.X509Certificates;
using System.Text;

namespace FixEngine.Transport;

/// <summary>A TLS handshake that failed for a reason the transport could name: the peer's certificate (expired, untrusted
/// chain, name mismatch, none presented), a plaintext client, a timeout.</summary>
public sealed class TlsHandshakeException : AuthenticationException
{
    /// <summary>Creates the exception.</summary>
    /// <param name="reason">What went wrong, for a log line.</param>
    /// <param name="inner">The platform's exception, or null.</param>
    public TlsHandshakeException(string reason, Exception? inner = null)
        : base("TLS handshake failed: " + reason, inner)
    {
        Reason = reason;
    }

    /// <summary>What went wrong (without the "TLS handshake failed" prefix).</summary>
    public string Reason { get; }
}

/// <summary>Names what is wrong with a peer's certificate, and why a handshake failed, in words for a log line.</summary>
/// <remarks>Handshake time only (allocates). The time a certificate is checked against is the chain's
/// <see cref="X509ChainPolicy.VerificationTime"/>, never the clock.</remarks>
public static class TlsFailures
{
    /// <summary>Describes the problems of a peer certificate as a validation callback sees them.</summary>
    /// <param name="certificate">The peer's certificate, or null when it presented none.</param>
    /// <param name="chain">The chain built for it (its element and chain statuses are read), or null.</param>
    /// <param name="errors">The policy errors.</param>
    /// <param name="expectedName">The host name the certificate should be for (client side), or null.</param>
    /// <returns>e.g. "certificate 'CN=venue' expired on 2026-01-01 00:00:00Z", or "untrusted chain: ...".</returns>
    public static string DescribeCertificate(X509Certificate? certificate, X509Chain? chain, SslPolicyErrors errors, string? expectedName)
    {
        if (certificate is null || (errors & SslPolicyErrors.RemoteCertificateNotAvailable) != 0) return "the peer presented no certificate";
        var reasons = new List<string>();
        if ((errors & SslPolicyErrors.RemoteCertificateNameMismatch) != 0)
        {
            string names = certificate is X509Certificate2 c2 ? NamesOf(c2) : certificate.Subject;
            reasons.Add($"name mismatch: the certificate is for {names}, not '{expectedName ?? "?"}'");
        }
        if (chain is not null)
        {
            DateTime at = chain.ChainPolicy.VerificationTime;
            var seen = new HashSet<X509ChainStatusFlags>();
            foreach (X509ChainElement element in chain.ChainElements)
            {
                foreach (X509ChainStatus status in element.ChainElementStatus)
                {
                    if (status.Status == X509ChainStatusFlags.NoError || !seen.Add(status.Status)) continue;
                    reasons.Add(DescribeStatus(status, element.Certificate, at, chain));
                }
            }
            foreach (X509ChainStatus status in chain.ChainStatus)
            {
                if (status.Status == X509ChainStatusFlags.NoError || !seen.Add(status.Status)) continue;
                X509Certificate2 last = chain.ChainElements.Count > 0 ? chain.ChainElements[^1].Certificate
                    : certificate as X509Certificate2 ?? X509CertificateLoader.LoadCertificate(certificate.GetRawCertData());
                reasons.Add(DescribeStatus(status, last, at, chain));
            }
        }
        if (reasons.Count == 0 && (errors & SslPolicyErrors.RemoteCertificateChainErrors) != 0) reasons.Add("the certificate chain is not valid");
        if (reasons.Count == 0) reasons.Add("the certificate was refused");
        return string.Join("; ", reasons);
    }

    /// <summary>The description of a TLS alert the peer sent, from the platform's error text (OpenSSL: "sslv3 alert bad
    /// certificate", "tlsv1 alert unknown ca", "tlsv13 alert certificate required"), or null.</summary>
    internal static string? PeerAlert(Exception error)
    {
        for (Exception? e = error; e is not null; e = e.InnerException)
        {
            System.Text.RegularExpressions.Match m = System.Text.RegularExpressions.Regex.Match(e.Message, @"(?:sslv3|tlsv1|tlsv13) alert ([a-z ]+)");
            if (m.Success) return m.Groups[1].Value.Trim();
        }
        return null;
    }

    /// <summary>Describes why a handshake failed from the exception it ended with.</summary>
    /// <param name="error">What the handshake threw.</param>
    /// <param name="allowed">The protocols this side allows (named in a protocol mismatch).</param>
    /// <returns>The reason, e.g. "protocol mismatch: ... (this side allows Tls13)".</returns>
    public static string DescribeHandshake(Exception error, SslProtocols allowed)
    {
        ArgumentNullException.ThrowIfNull(error);
        if (error is TlsHandshakeException named) return named.Reason;
        var text = new StringBuilder();
        for (Exception? e = error; e is not null; e = e.InnerException)
        {
            if (text.Length > 0) text.Append(": ");
            text.Append(e.Message.TrimEnd('.'));
        }
        string all = text.ToString();
        if (error is System.IO.IOException && error.InnerException is null && all.Contains("EOF", StringComparison.OrdinalIgnoreCase))
        {
            return "the peer closed the connection during the handshake (" + all + ")";
        }
        if (all.Contains("protocol", StringComparison.OrdinalIgnoreCase) || all.Contains("version", StringComparison.OrdinalIgnoreCase))
        {
            return $"protocol mismatch: {all} (this side allows {(allowed == SslProtocols.None ? "the system's default protocols" : allowed.ToString())})";
        }
        return all;
    }

    private static string DescribeStatus(X509ChainStatus status, X509Certificate2 certificate, DateTime at, X509Chain chain)
    {
        string subject = "'" + certificate.Subject + "'";
        switch (status.Status)
        {
            case X509ChainStatusFlags.NotTimeValid:
                return certificate.NotAfter.ToUniversalTime() < at.ToUniversalTime()
                    ? $"certificate {subject} expired on {certificate.NotAfter.ToUniversalTime():yyyy-MM-dd HH:mm:ss}Z"
                    : $"certificate {subject} is not valid before {certificate.NotBefore.ToUniversalTime():yyyy-MM-dd HH:mm:ss}Z";
            case X509ChainStatusFlags.UntrustedRoot:
                return $"untrusted chain: it ends at {subject}, which is not a trusted root";
            case X509ChainStatusFlags.PartialChain:
                X509Certificate2 last = chain.ChainElements.Count > 0 ? chain.ChainElements[^1].Certificate : certificate;
                return $"untrusted chain: no trusted issuer '{last.Issuer}' was found for '{last.Subject}' (a missing intermediate or an unknown CA)";
            case X509ChainStatusFlags.Revoked:
                return $"certificate {subject} is revoked";
            case X509ChainStatusFlags.RevocationStatusUnknown:
            case X509ChainStatusFlags.OfflineRevocation:
                return $"the revocation status of {subject} is unknown ({status.StatusInformation.Trim()})";
            case X509ChainStatusFlags.NotSignatureValid:
                return $"the signature of {subject} is not valid";
            default:
                string info = status.StatusInformation.Trim();
                return $"{status.Status} ({subject}{(info.Length > 0 ? ": " + info : "")})";
        }
    }

    private static string NamesOf(X509Certificate2 certificate)
    {
        var names = new List<string>();
        foreach (X509Extension extension in certificate.Extensions)
        {
            if (extension.Oid?.Value == "2.5.29.17")
            {
                var san = extension as X509SubjectAlternativeNameExtension ?? new X509SubjectAlternativeNameExtension(extension.RawData, extension.Critical);
                foreach (string dns in san.EnumerateDnsNames()) names.Add(dns);
                foreach (System.Net.IPAddress ip in san.EnumerateIPAddresses()) names.Add(ip.ToString());
            }
        }
        return names.Count == 0 ? "'" + certificate.Subject + "'" : "'" + certificate.Subject + "' (" + string.Join(", ", names) + ")";
    }
}
