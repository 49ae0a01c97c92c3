using System;
using System.Collections.Generic;
using System.IO;
using System.Net;
using System.Net.Security;
using System.Numerics;
using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;
using System.Threading;
using System.Threading.Tasks;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Transport;
using static FixEngine.Tests.Config.TestPki;
using static FixEngine.Tests.Engine.EngineTestSupport;

namespace FixEngine.Tests.Config;

/// <summary>SSLCheckCertificateRevocation=Y checks the peer's chain against the CRL its CA publishes (served here on
/// loopback); N does not look.</summary>
public sealed class RevocationTests : IDisposable
{
    private readonly string _dir = TempDirectory("fixengine-crl-");
    // A minimal HTTP server for the CRL on a port the system picks (HttpListener cannot listen on port 0).
    private readonly System.Net.Sockets.TcpListener _http = new(IPAddress.Loopback, 0);
    private readonly int _port;
    private byte[] _crl = [];
    private int _crlRequests;

    public RevocationTests()
    {
        Directory.CreateDirectory(_dir);
        _http.Start();
        _port = ((IPEndPoint)_http.LocalEndpoint).Port;
        _ = Task.Run(ServeAsync);
    }

    public void Dispose()
    {
        _http.Stop();
        DeleteDirectory(_dir);
    }

    private async Task ServeAsync()
    {
        while (true)
        {
            System.Net.Sockets.TcpClient client;
            try
            {
                client = await _http.AcceptTcpClientAsync();
            }
            catch (Exception e) when (e is System.Net.Sockets.SocketException or ObjectDisposedException or InvalidOperationException)
            {
                return;
            }
            try
            {
                using (client)
                {
                    System.Net.Sockets.NetworkStream stream = client.GetStream();
                    stream.ReadTimeout = 10_000;
                    // Read the request head (a GET has no body), then answer with the CRL and close.
                    var head = new List<byte>();
                    var one = new byte[1];
                    while (head.Count < 16_384 && await stream.ReadAsync(one) == 1)
                    {
                        head.Add(one[0]);
                        int n = head.Count;
                        if (n >= 4 && head[n - 4] == '\r' && head[n - 3] == '\n' && head[n - 2] == '\r' && head[n - 1] == '\n') break;
                    }
                    Interlocked.Increment(ref _crlRequests);
                    byte[] crl = _crl;
                    await stream.WriteAsync(System.Text.Encoding.ASCII.GetBytes(
                        $"HTTP/1.1 200 OK\r\nContent-Type: application/pkix-crl\r\nContent-Length: {crl.Length}\r\nConnection: close\r\n\r\n"));
                    await stream.WriteAsync(crl);
                }
            }
            catch (Exception e) when (e is IOException or System.Net.Sockets.SocketException or ObjectDisposedException)
            {
                // The client went away: serve the next one.
            }
        }
    }

    // A CA publishing its CRL at our loopback URL, and two leaves it issued (the first revoked).
    private (X509Certificate2 Ca, X509Certificate2 Revoked, X509Certificate2 Good) Pki()
    {
        using RSA caKey = RSA.Create(2048);
        var caRequest = new CertificateRequest("CN=Revoking CA " + Guid.NewGuid().ToString("N"), caKey, HashAlgorithmName.SHA256, RSASignaturePadding.Pkcs1);
        caRequest.CertificateExtensions.Add(new X509BasicConstraintsExtension(true, false, 0, true));
        caRequest.CertificateExtensions.Add(new X509KeyUsageExtension(X509KeyUsageFlags.KeyCertSign | X509KeyUsageFlags.CrlSign, true));
        X509Certificate2 ca = caRequest.CreateSelfSigned(DateTimeOffset.UtcNow.AddMinutes(-5), DateTimeOffset.UtcNow.AddDays(1));
        X509Extension cdp = CertificateRevocationListBuilder.BuildCrlDistributionPointExtension([$"http://127.0.0.1:{_port}/ca.crl"]);
        X509Certificate2 Leaf(byte serial)
        {
            using RSA key = RSA.Create(2048);
            var request = new CertificateRequest("CN=localhost", key, HashAlgorithmName.SHA256, RSASignaturePadding.Pkcs1);
            request.CertificateExtensions.Add(cdp);
            request.CertificateExtensions.Add(new X509EnhancedKeyUsageExtension([new Oid("1.3.6.1.5.5.7.3.1")], false));
            using X509Certificate2 issued = request.Create(ca, DateTimeOffset.UtcNow.AddMinutes(-5), DateTimeOffset.UtcNow.AddHours(1), [serial]);
            return issued.CopyWithPrivateKey(key);
        }
        X509Certificate2 revoked = Leaf(0x11);
        X509Certificate2 good = Leaf(0x22);
        var crl = new CertificateRevocationListBuilder();
        crl.AddEntry(revoked, DateTimeOffset.UtcNow.AddMinutes(-1));
        _crl = crl.Build(ca, BigInteger.One, DateTimeOffset.UtcNow.AddDays(1), HashAlgorithmName.SHA256, RSASignaturePadding.Pkcs1);
        return (ca, revoked, good);
    }

    private Func<X509Certificate?, X509Chain?, SslPolicyErrors, string?> Validation(X509Certificate2 ca, bool checkRevocation, List<IDisposable> owned)
    {
        string caFile = Write(_dir, "ca.pem", ca.ExportCertificatePem());
        SessionSettings s = Assert.Single(SettingsFile.Parse($"""
            [SESSION]
            ConnectionType=initiator
            BeginString=FIX.4.4
            SenderCompID=A
            TargetCompID=B
            HeartBtInt=30
            NonStopSession=Y
            UseDataDictionary=N
            SocketConnectHost=127.0.0.1
            SocketConnectPort=9
            SocketUseSSL=Y
            SSLCACertificate={caFile}
            SSLCheckCertificateRevocation={(checkRevocation ? "Y" : "N")}
            """));
        TlsOptions options = EngineTls.ForInitiator(s, owned).For("localhost");
        return options.CertificateValidator!;
    }

    [Fact]
    public void ARevokedPeerCertificateIsRefusedOnlyWhenRevocationIsChecked()
    {
        (X509Certificate2 ca, X509Certificate2 revoked, X509Certificate2 good) = Pki();
        var owned = new List<IDisposable> { ca, revoked, good };
        try
        {
            // The platform reports an untrusted chain (our CA is not in the system store); the configured CA replaces that verdict.
            const SslPolicyErrors PlatformVerdict = SslPolicyErrors.RemoteCertificateChainErrors;
            Func<X509Certificate?, X509Chain?, SslPolicyErrors, string?> check = Validation(ca, checkRevocation: true, owned);
            Assert.Null(check(good, null, PlatformVerdict));
            // Refused, and the reason says why.
            Assert.Contains("is revoked", check(revoked, null, PlatformVerdict), StringComparison.Ordinal);
            Assert.True(Volatile.Read(ref _crlRequests) >= 1, "the CRL was never fetched");

            Func<X509Certificate?, X509Chain?, SslPolicyErrors, string?> noCheck = Validation(ca, checkRevocation: false, owned);
            Assert.Null(noCheck(revoked, null, PlatformVerdict));
            Assert.Contains("name mismatch", noCheck(revoked, null, SslPolicyErrors.RemoteCertificateNameMismatch), StringComparison.Ordinal);
        }
        finally
        {
            foreach (IDisposable d in owned) d.Dispose();
        }
    }
}
