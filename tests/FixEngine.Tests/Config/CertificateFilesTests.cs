using System;
using System.IO;
using System.Linq;
using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;
using FixEngine.Config;
using static FixEngine.Tests.Config.TestPki;

namespace FixEngine.Tests.Config;

public sealed class CertificateFilesTests : IDisposable
{
    private static readonly Lazy<X509Certificate2> s_ca = new(() => CreateCa("Test CA"));
    private static readonly Lazy<X509Certificate2> s_leaf = new(() => Issue(s_ca.Value));
    private static readonly Lazy<X509Certificate2> s_other = new(() => Issue(s_ca.Value, "CN=other"));

    private readonly string _dir = Path.Combine(Path.GetTempPath(), "fixengine-certs-" + Guid.NewGuid().ToString("N"));

    public CertificateFilesTests() => Directory.CreateDirectory(_dir);

    public void Dispose() => Directory.Delete(_dir, true);

    private static X509Certificate2 Leaf => s_leaf.Value;

    private static void AssertUsable(X509Certificate2 loaded, X509Certificate2 expected)
    {
        using (loaded)
        {
            Assert.Equal(expected.Thumbprint, loaded.Thumbprint);
            Assert.True(loaded.HasPrivateKey);
            // The key really is the certificate's: sign with it and verify with the certificate's public key.
            byte[] data = [1, 2, 3];
            using RSA? rsa = loaded.GetRSAPrivateKey();
            using ECDsa? ec = loaded.GetECDsaPrivateKey();
            if (rsa is not null)
            {
                byte[] signature = rsa.SignData(data, HashAlgorithmName.SHA256, RSASignaturePadding.Pkcs1);
                using RSA pub = expected.GetRSAPublicKey()!;
                Assert.True(pub.VerifyData(data, signature, HashAlgorithmName.SHA256, RSASignaturePadding.Pkcs1));
            }
            else
            {
                byte[] signature = ec!.SignData(data, HashAlgorithmName.SHA256);
                using ECDsa pub = expected.GetECDsaPublicKey()!;
                Assert.True(pub.VerifyData(data, signature, HashAlgorithmName.SHA256));
            }
        }
    }

    [Fact]
    public void PemCertificateWithItsKeyInASeparateFile()
    {
        string crt = Write(_dir, "server.crt", Leaf.ExportCertificatePem());
        string key = Write(_dir, "server.key", KeyPem(Leaf));
        AssertUsable(CertificateFiles.LoadCertificateWithKey(crt, key, null), Leaf);
    }

    [Fact]
    public void PemContentInACrtFileWithTheKeyInside()
    {
        string crt = Write(_dir, "both.crt", Leaf.ExportCertificatePem() + "\n" + KeyPem(Leaf));
        AssertUsable(CertificateFiles.LoadCertificateWithKey(crt, null, null), Leaf);
    }

    [Fact]
    public void PkcsOneRsaAndSecOneEcKeys()
    {
        string crt = Write(_dir, "server.pem", Leaf.ExportCertificatePem());
        using (RSA rsa = Leaf.GetRSAPrivateKey()!)
        {
            string key = Write(_dir, "rsa.key", rsa.ExportRSAPrivateKeyPem());
            AssertUsable(CertificateFiles.LoadCertificateWithKey(crt, key, null), Leaf);
        }
        using X509Certificate2 ecLeaf = Issue(s_ca.Value, ecdsa: true);
        string ecCrt = Write(_dir, "ec.crt", ecLeaf.ExportCertificatePem());
        using ECDsa ec = ecLeaf.GetECDsaPrivateKey()!;
        string ecKey = Write(_dir, "ec.key", ec.ExportECPrivateKeyPem());
        AssertUsable(CertificateFiles.LoadCertificateWithKey(ecCrt, ecKey, null), ecLeaf);
    }

    [Fact]
    public void EncryptedPemKeyWithThePassword()
    {
        string crt = Write(_dir, "server.crt", Leaf.ExportCertificatePem());
        string key = Write(_dir, "server.key", EncryptedKeyPem(Leaf));
        AssertUsable(CertificateFiles.LoadCertificateWithKey(crt, key, Password), Leaf);

        var missing = Assert.Throws<CertificateFileException>(() => CertificateFiles.LoadCertificateWithKey(crt, key, null));
        Assert.Equal($"the private key in '{key}' is encrypted: set SSLCertificatePassword", missing.Message);
        Assert.True(missing.InKeyFile);
        var wrong = Assert.Throws<CertificateFileException>(() => CertificateFiles.LoadCertificateWithKey(crt, key, "nope"));
        Assert.Equal($"cannot decrypt the private key in '{key}' with SSLCertificatePassword (wrong password?)", wrong.Message);
    }

    [Fact]
    public void DerCertificateWithAPemKey()
    {
        string cer = Write(_dir, "server.cer", Leaf.Export(X509ContentType.Cert));
        string key = Write(_dir, "server.key", KeyPem(Leaf));
        AssertUsable(CertificateFiles.LoadCertificateWithKey(cer, key, null), Leaf);
    }

    [Fact]
    public void Pkcs12WithAndWithoutItsPassword()
    {
        string pfx = Write(_dir, "server.pfx", Leaf.Export(X509ContentType.Pkcs12, Password));
        AssertUsable(CertificateFiles.LoadCertificateWithKey(pfx, null, Password), Leaf);
        var e = Assert.Throws<CertificateFileException>(() => CertificateFiles.LoadCertificateWithKey(pfx, null, "wrong"));
        Assert.StartsWith($"'{pfx}' is neither PEM nor a PKCS#12 file that opens with the configured password", e.Message);
    }

    [Fact]
    public void KeyOfAnotherCertificateIsNamed()
    {
        string crt = Write(_dir, "server.crt", Leaf.ExportCertificatePem());
        string key = Write(_dir, "other.key", KeyPem(s_other.Value));
        var e = Assert.Throws<CertificateFileException>(() => CertificateFiles.LoadCertificateWithKey(crt, key, null));
        Assert.StartsWith($"the private key in '{key}' does not belong to the certificate in '{crt}'", e.Message);
        Assert.True(e.InKeyFile);
    }

    [Fact]
    public void MissingPiecesAreNamed()
    {
        string crt = Write(_dir, "server.crt", Leaf.ExportCertificatePem());
        var noKey = Assert.Throws<CertificateFileException>(() => CertificateFiles.LoadCertificateWithKey(crt, null, null));
        Assert.StartsWith($"'{crt}' holds no private key", noKey.Message);

        string keyOnly = Write(_dir, "key-only.pem", KeyPem(Leaf));
        var noCert = Assert.Throws<CertificateFileException>(() => CertificateFiles.LoadCertificateWithKey(keyOnly, null, null));
        Assert.Equal($"'{keyOnly}' holds no certificate (no -----BEGIN CERTIFICATE----- block)", noCert.Message);

        string certAsKey = Write(_dir, "cert-as-key.key", Leaf.ExportCertificatePem());
        var wrongFile = Assert.Throws<CertificateFileException>(() => CertificateFiles.LoadCertificateWithKey(crt, certAsKey, null));
        Assert.Equal($"'{certAsKey}' holds no private key (no -----BEGIN ... PRIVATE KEY----- block)", wrongFile.Message);

        string absent = Path.Combine(_dir, "absent.key");
        var gone = Assert.Throws<CertificateFileException>(() => CertificateFiles.LoadCertificateWithKey(crt, absent, null));
        Assert.StartsWith($"cannot read '{absent}'", gone.Message);

        string legacy = Write(_dir, "legacy.key",
            "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-256-CBC,00112233445566778899AABBCCDDEEFF\n\nAAAA\n-----END RSA PRIVATE KEY-----\n");
        var old = Assert.Throws<CertificateFileException>(() => CertificateFiles.LoadCertificateWithKey(crt, legacy, "x"));
        Assert.StartsWith($"the private key in '{legacy}' uses OpenSSL's legacy encryption", old.Message);
    }

    [Fact]
    public void EveryCertificateOfABundleIsLoaded()
    {
        using X509Certificate2 ca2 = CreateCa("Second CA");
        using X509Certificate2 ca3 = CreateCa("Third CA");
        string bundle = Write(_dir, "ca-bundle.crt",
            "# comment lines between blocks are allowed\n" + s_ca.Value.ExportCertificatePem() + "\n" + ca2.ExportCertificatePem() + "\n" + ca3.ExportCertificatePem() + "\n");
        X509Certificate2Collection loaded = CertificateFiles.LoadCertificates(bundle);
        Assert.Equal(new[] { s_ca.Value.Thumbprint, ca2.Thumbprint, ca3.Thumbprint }, loaded.Select(c => c.Thumbprint).ToArray());

        string der = Write(_dir, "ca.der", ca2.Export(X509ContentType.Cert));
        Assert.Equal(ca2.Thumbprint, Assert.Single(CertificateFiles.LoadCertificates(der)).Thumbprint);

        string junk = Write(_dir, "junk.txt", "not a certificate");
        Assert.Equal($"'{junk}' holds no certificate (neither PEM CERTIFICATE blocks, nor a DER certificate, nor PKCS#12)",
            Assert.Throws<CertificateFileException>(() => CertificateFiles.LoadCertificates(junk)).Message);
    }

    [Fact]
    public void CertificateDirectoryLoadsEveryCertificateFile()
    {
        string dir = Path.Combine(_dir, "cas");
        Directory.CreateDirectory(dir);
        using X509Certificate2 ca2 = CreateCa("Second CA");
        Write(dir, "a1b2c3d4.0", s_ca.Value.ExportCertificatePem());
        Write(dir, "e5f6a7b8.0", ca2.Export(X509ContentType.Cert));
        Write(dir, "README", "certificates for the venue");
        X509Certificate2Collection loaded = CertificateFiles.LoadCertificateDirectory(dir);
        Assert.Equal(2, loaded.Count);
        Assert.Throws<CertificateFileException>(() => CertificateFiles.LoadCertificateDirectory(Path.Combine(_dir, "none")));
    }

    [Fact]
    public void ErrorsThroughSettingsNameTheSettingsFileLineAndQuickFixKey()
    {
        string crt = Write(_dir, "server.crt", Leaf.ExportCertificatePem());
        string key = Write(_dir, "server.key", EncryptedKeyPem(Leaf));
        string cfg = $"""
            [DEFAULT]
            ConnectionType=acceptor
            SocketAcceptPort=5001
            NonStopSession=Y
            UseDataDictionary=N
            ServerCertificateFile={crt}
            ServerCertificateKeyFile={key}
            [SESSION]
            BeginString=FIX.4.4
            SenderCompID=A
            TargetCompID=B
            """;
        SessionSettings s = Assert.Single(SettingsFile.Parse(cfg, "ssl.cfg"));
        ConfigException e = Assert.Throws<ConfigException>(() => CertificateFiles.LoadOwnCertificate(s));
        Assert.Equal("ssl.cfg", e.FileName);
        Assert.Equal(7, e.LineNumber);
        Assert.Equal("ServerCertificateKeyFile", e.Key);
        Assert.Equal($"the private key in '{key}' is encrypted: set SSLCertificatePassword", e.Reason);

        AssertUsable(CertificateFiles.LoadOwnCertificate(s with { SSLCertificatePassword = Password }), Leaf);

        SessionSettings badCa = Assert.Single(SettingsFile.Parse(cfg + $"\nCertificationAuthoritiesFile={Path.Combine(_dir, "missing.pem")}", "ssl.cfg"));
        ConfigException ca = Assert.Throws<ConfigException>(() => CertificateFiles.LoadTrustedCertificates(badCa));
        Assert.Equal(("ssl.cfg", 12, "CertificationAuthoritiesFile"), (ca.FileName, ca.LineNumber, ca.Key));
        Assert.StartsWith($"cannot read '{Path.Combine(_dir, "missing.pem")}'", ca.Reason);
    }
}
