using System;
using System.IO;
using System.Net;
using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;

namespace FixEngine.Tests.Config;

/// <summary>Certificates made at run time: CAs, leaves they issue (server and client auth, localhost), and the files
/// QuickFIX users keep them in (PEM certificate, PKCS#8 / encrypted PKCS#8 / PKCS#1 / SEC1 keys, bundles, DER, PFX).</summary>
internal static class TestPki
{
    public const string Password = "s3cret!";

    public static X509Certificate2 CreateCa(string name)
    {
        using RSA rsa = RSA.Create(2048);
        var request = new CertificateRequest($"CN={name}", rsa, HashAlgorithmName.SHA256, RSASignaturePadding.Pkcs1);
        request.CertificateExtensions.Add(new X509BasicConstraintsExtension(true, false, 0, true));
        request.CertificateExtensions.Add(new X509KeyUsageExtension(X509KeyUsageFlags.KeyCertSign | X509KeyUsageFlags.CrlSign, true));
        request.CertificateExtensions.Add(new X509SubjectKeyIdentifierExtension(request.PublicKey, false));
        return request.CreateSelfSigned(DateTimeOffset.UtcNow.AddMinutes(-5), DateTimeOffset.UtcNow.AddDays(1));
    }

    /// <summary>An intermediate CA issued by <paramref name="ca"/>, with its private key.</summary>
    public static X509Certificate2 IssueCa(X509Certificate2 ca, string name)
    {
        using RSA rsa = RSA.Create(2048);
        var request = new CertificateRequest($"CN={name}", rsa, HashAlgorithmName.SHA256, RSASignaturePadding.Pkcs1);
        request.CertificateExtensions.Add(new X509BasicConstraintsExtension(true, false, 0, true));
        request.CertificateExtensions.Add(new X509KeyUsageExtension(X509KeyUsageFlags.KeyCertSign | X509KeyUsageFlags.CrlSign, true));
        request.CertificateExtensions.Add(new X509SubjectKeyIdentifierExtension(request.PublicKey, false));
        byte[] serial = new byte[8];
        RandomNumberGenerator.Fill(serial);
        serial[0] &= 0x7F;
        using RSA caKey = ca.GetRSAPrivateKey()!;
        using X509Certificate2 issued = request.Create(ca.SubjectName, X509SignatureGenerator.CreateForRSA(caKey, RSASignaturePadding.Pkcs1),
            DateTimeOffset.UtcNow.AddMinutes(-5), DateTimeOffset.UtcNow.AddHours(20), serial);
        return issued.CopyWithPrivateKey(rsa);
    }

    /// <summary>A localhost leaf issued by <paramref name="ca"/>, with its private key (RSA, or ECDSA P-256); valid from 5
    /// minutes ago for 12 hours unless <paramref name="notBefore"/>/<paramref name="notAfter"/> say otherwise.</summary>
    public static X509Certificate2 Issue(X509Certificate2 ca, string subject = "CN=localhost", bool ecdsa = false,
        DateTimeOffset? notBefore = null, DateTimeOffset? notAfter = null)
    {
        using RSA? rsa = ecdsa ? null : RSA.Create(2048);
        using ECDsa? ec = ecdsa ? ECDsa.Create(ECCurve.NamedCurves.nistP256) : null;
        CertificateRequest request = ecdsa
            ? new CertificateRequest(subject, ec!, HashAlgorithmName.SHA256)
            : new CertificateRequest(subject, rsa!, HashAlgorithmName.SHA256, RSASignaturePadding.Pkcs1);
        var san = new SubjectAlternativeNameBuilder();
        san.AddDnsName("localhost");
        san.AddIpAddress(IPAddress.Loopback);
        request.CertificateExtensions.Add(san.Build());
        request.CertificateExtensions.Add(new X509BasicConstraintsExtension(false, false, 0, false));
        request.CertificateExtensions.Add(new X509KeyUsageExtension(X509KeyUsageFlags.DigitalSignature | X509KeyUsageFlags.KeyEncipherment, false));
        request.CertificateExtensions.Add(new X509EnhancedKeyUsageExtension([new Oid("1.3.6.1.5.5.7.3.1"), new Oid("1.3.6.1.5.5.7.3.2")], false));
        byte[] serial = new byte[8];
        RandomNumberGenerator.Fill(serial);
        serial[0] &= 0x7F;
        using RSA caKey = ca.GetRSAPrivateKey()!;
        using X509Certificate2 issued = request.Create(
            ca.SubjectName, X509SignatureGenerator.CreateForRSA(caKey, RSASignaturePadding.Pkcs1),
            notBefore ?? DateTimeOffset.UtcNow.AddMinutes(-5), notAfter ?? DateTimeOffset.UtcNow.AddHours(12), serial);
        return ecdsa ? issued.CopyWithPrivateKey(ec!) : issued.CopyWithPrivateKey(rsa!);
    }

    public static string KeyPem(X509Certificate2 certificate)
    {
        using AsymmetricAlgorithm key = (AsymmetricAlgorithm?)certificate.GetRSAPrivateKey() ?? certificate.GetECDsaPrivateKey()!;
        return key.ExportPkcs8PrivateKeyPem();
    }

    public static string EncryptedKeyPem(X509Certificate2 certificate, string password = Password)
    {
        using AsymmetricAlgorithm key = (AsymmetricAlgorithm?)certificate.GetRSAPrivateKey() ?? certificate.GetECDsaPrivateKey()!;
        return key.ExportEncryptedPkcs8PrivateKeyPem(password, new PbeParameters(PbeEncryptionAlgorithm.Aes256Cbc, HashAlgorithmName.SHA256, 10_000));
    }

    public static string Write(string directory, string name, string text)
    {
        string path = Path.Combine(directory, name);
        File.WriteAllText(path, text);
        return path;
    }

    public static string Write(string directory, string name, byte[] bytes)
    {
        string path = Path.Combine(directory, name);
        File.WriteAllBytes(path, bytes);
        return path;
    }
}
