using System;
using System.Collections.Concurrent;
using System.IO;
using System.Linq;
using System.Net;
using System.Security.Authentication;
using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;
using System.Threading.Tasks;
using FixEngine.Tests.Infrastructure;
using FixEngine.Transport;

namespace FixEngine.Tests.Transport;

public class TlsConnectionTests
{
    /// <summary>A self-signed localhost certificate, round-tripped through PKCS#12 so Linux SslStream can use its key.</summary>
    private static X509Certificate2 CreateCertificate(string subject = "CN=localhost")
    {
        using RSA rsa = RSA.Create(2048);
        var request = new CertificateRequest(subject, rsa, HashAlgorithmName.SHA256, RSASignaturePadding.Pkcs1);
        var san = new SubjectAlternativeNameBuilder();
        san.AddDnsName("localhost");
        san.AddIpAddress(IPAddress.Loopback);
        request.CertificateExtensions.Add(san.Build());
        request.CertificateExtensions.Add(new X509EnhancedKeyUsageExtension([new Oid("1.3.6.1.5.5.7.3.1"), new Oid("1.3.6.1.5.5.7.3.2")], false));
        using X509Certificate2 created = request.CreateSelfSigned(DateTimeOffset.UtcNow.AddMinutes(-5), DateTimeOffset.UtcNow.AddHours(1));
        return X509CertificateLoader.LoadPkcs12(created.Export(X509ContentType.Pkcs12), null);
    }

    private static async Task RoundTrip(TlsOptions serverTls, TlsOptions clientTls, Action<TlsConnection>? checkServer = null)
    {
        var pool = new LeakTrackingArrayPool<byte>();
        var options = new TcpConnectionOptions { BufferPool = pool };
        var servers = new BlockingCollection<(TlsConnection, RecordingHandler)>();
        using var acceptor = new TlsAcceptor(new IPEndPoint(IPAddress.Loopback, 0), options, serverTls, c =>
        {
            var handler = new RecordingHandler { OnMessageHook = (conn, m) => Assert.Equal(SendResult.Queued, conn.TrySend(m)) };
            servers.Add((c, handler));
            c.Start();
            return handler;
        });
        acceptor.Start();
        var clientHandler = new RecordingHandler();
        TlsConnection client = await TlsConnection.ConnectAsync(acceptor.LocalEndPoint, TimeSpan.FromSeconds(5), options, clientTls, clientHandler);
        client.Start();
        Assert.True(servers.TryTake(out var server, Loopback.Wait));
        Assert.True(client.SslProtocol is SslProtocols.Tls12 or SslProtocols.Tls13, client.SslProtocol.ToString());
        checkServer?.Invoke(server.Item1);

        const int Count = 500;
        for (int i = 0; i < Count; i++)
        {
            int length = FixMessages.WriteNumbered(client.GetSendSpan(128), i);
            Assert.Equal(SendResult.Queued, client.Commit(length));
        }
        Assert.True(Loopback.Until(() => clientHandler.Messages.Count == Count), $"{clientHandler.Messages.Count} echoed");
        Assert.Equal(Enumerable.Range(0, Count).Select(i => (long)i), clientHandler.Messages.Select(m => FixMessages.ReadSeq(m)));
        Assert.Equal(SendResult.TooLarge, client.TrySend(new byte[options.SendQueueBytes + 1]));

        client.Close();
        Assert.True(clientHandler.Disconnected.Wait(Loopback.Wait));
        Assert.True(server.Item2.Disconnected.Wait(Loopback.Wait));
        Assert.Equal(DisconnectReason.Local, clientHandler.Reason);
        Assert.True(server.Item2.Reason is DisconnectReason.PeerClosed or DisconnectReason.PeerReset or DisconnectReason.SocketError, server.Item2.Reason + " " + server.Item2.Detail);
        Assert.Equal(1, server.Item2.DisconnectCount);
        Assert.True(Loopback.Until(() => pool.Outstanding == 0), $"{pool.Outstanding} arrays leaked");
        pool.AssertClean();
    }

    [Fact]
    public async Task MessagesRoundTripOverTlsWithAPfxCertificate()
    {
        using X509Certificate2 certificate = CreateCertificate();
        string thumbprint = certificate.Thumbprint;
        await RoundTrip(
            new TlsOptions { ServerCertificate = certificate },
            new TlsOptions { TargetHost = "localhost", RemoteCertificateValidation = (_, cert, _, _) => cert is not null && new X509Certificate2(cert).Thumbprint == thumbprint });
    }

    [Fact]
    public async Task MutualTlsWithAPemServerCertificateAndARequiredClientCertificate()
    {
        using X509Certificate2 serverCertificate = CreateCertificate();
        using X509Certificate2 clientCertificate = CreateCertificate("CN=fix-client");
        string directory = Directory.CreateTempSubdirectory("fixengine-tls").FullName;
        try
        {
            string certPath = Path.Combine(directory, "server.crt");
            string keyPath = Path.Combine(directory, "server.key");
            File.WriteAllText(certPath, serverCertificate.ExportCertificatePem());
            File.WriteAllText(keyPath, serverCertificate.GetRSAPrivateKey()!.ExportPkcs8PrivateKeyPem());
            using X509Certificate2 fromPem = TlsOptions.LoadPem(certPath, keyPath);
            Assert.True(fromPem.HasPrivateKey);
            string clientThumbprint = clientCertificate.Thumbprint;
            await RoundTrip(
                new TlsOptions
                {
                    ServerCertificate = fromPem,
                    RequireClientCertificate = true,
                    RemoteCertificateValidation = (_, cert, _, _) => cert is not null && new X509Certificate2(cert).Thumbprint == clientThumbprint,
                },
                new TlsOptions
                {
                    TargetHost = "localhost",
                    ClientCertificates = new X509Certificate2Collection(clientCertificate),
                    RemoteCertificateValidation = (_, cert, _, _) => cert is not null,
                },
                server => Assert.True(server.HasRemoteCertificate));
        }
        finally
        {
            Directory.Delete(directory, recursive: true);
        }
    }

    [Fact]
    public async Task AnUntrustedServerCertificateFailsTheHandshake()
    {
        using X509Certificate2 certificate = CreateCertificate();
        var options = new TcpConnectionOptions();
        using var acceptor = new TlsAcceptor(new IPEndPoint(IPAddress.Loopback, 0), options, new TlsOptions { ServerCertificate = certificate }, _ => new RecordingHandler());
        acceptor.Start();
        await Assert.ThrowsAsync<AuthenticationException>(() => TlsConnection.ConnectAsync(acceptor.LocalEndPoint, TimeSpan.FromSeconds(5), options,
            new TlsOptions { TargetHost = "localhost" }, new RecordingHandler()));
    }
}
