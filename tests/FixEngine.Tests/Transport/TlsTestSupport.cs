using System;
using System.Buffers;
using System.Collections.Concurrent;
using System.Net;
using System.Net.Security;
using System.Net.Sockets;
using System.Security.Authentication;
using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;
using System.Threading;
using FixEngine.Tests.Infrastructure;
using FixEngine.Transport;

namespace FixEngine.Tests.Transport;

internal static class TlsCertificates
{
    private static readonly Lazy<X509Certificate2> s_localhost = new(() => Create());
    private static readonly Lazy<X509Certificate2> s_client = new(() => Create("CN=fix-client"));

    /// <summary>A self-signed localhost server certificate shared by the tests (made once: RSA key generation is slow).</summary>
    public static X509Certificate2 Localhost => s_localhost.Value;

    /// <summary>A self-signed client certificate shared by the tests.</summary>
    public static X509Certificate2 Client => s_client.Value;

    /// <summary>A self-signed certificate, round-tripped through PKCS#12 so Linux SslStream can use its key.</summary>
    public static X509Certificate2 Create(string subject = "CN=localhost")
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

    /// <summary>Accepts exactly <paramref name="expected"/> (by thumbprint).</summary>
    public static RemoteCertificateValidationCallback Pinned(X509Certificate2 expected)
    {
        string thumbprint = expected.Thumbprint;
        return (_, certificate, _, _) => certificate is not null && X509CertificateLoader.LoadCertificate(certificate.GetRawCertData()).Thumbprint == thumbprint;
    }
}

/// <summary>Wraps a pool and tracks the bytes of the arrays currently rented and their peak.</summary>
internal sealed class ByteCountingArrayPool : ArrayPool<byte>
{
    private readonly ArrayPool<byte> _inner;
    private long _outstandingBytes;
    private long _peakBytes;

    public ByteCountingArrayPool(ArrayPool<byte> inner) => _inner = inner;

    public long PeakBytes => Interlocked.Read(ref _peakBytes);

    public void ResetPeak() => Interlocked.Exchange(ref _peakBytes, Interlocked.Read(ref _outstandingBytes));

    public override byte[] Rent(int minimumLength)
    {
        byte[] array = _inner.Rent(minimumLength);
        long now = Interlocked.Add(ref _outstandingBytes, array.Length);
        long peak;
        while (now > (peak = Interlocked.Read(ref _peakBytes)) && Interlocked.CompareExchange(ref _peakBytes, now, peak) != peak)
        {
        }
        return array;
    }

    public override void Return(byte[] array, bool clearArray = false)
    {
        Interlocked.Add(ref _outstandingBytes, -array.Length);
        _inner.Return(array, clearArray);
    }
}

/// <summary>A TLS acceptor on loopback; per test, raw TLS clients (an SslStream writing arbitrary bytes) or <see cref="TlsConnection"/> clients.</summary>
internal sealed class TlsLoopback : IDisposable
{
    private readonly BlockingCollection<TlsConnection> _accepted = new();
    private readonly ConcurrentDictionary<TlsConnection, RecordingHandler> _serverHandlers = new();

    public TlsLoopback(TcpConnectionOptions? options = null, TlsOptions? serverTls = null)
    {
        Pool = new LeakTrackingArrayPool<byte>();
        Bytes = new ByteCountingArrayPool(Pool);
        Options = options ?? new TcpConnectionOptions();
        Options.BufferPool = Bytes;
        ServerTls = serverTls ?? new TlsOptions { ServerCertificate = TlsCertificates.Localhost };
        Acceptor = new TlsAcceptor(new IPEndPoint(IPAddress.Loopback, 0), Options, ServerTls, connection =>
        {
            RecordingHandler handler = ServerHandlerFactory();
            _serverHandlers[connection] = handler;
            connection.Start();
            _accepted.Add(connection);
            return handler;
        });
        Acceptor.Start();
    }

    public TcpConnectionOptions Options { get; }
    public TlsOptions ServerTls { get; }
    public LeakTrackingArrayPool<byte> Pool { get; }
    public ByteCountingArrayPool Bytes { get; }
    public TlsAcceptor Acceptor { get; }
    public Func<RecordingHandler> ServerHandlerFactory { get; set; } = () => new RecordingHandler();

    /// <summary>A raw client: a socket and an SslStream over it, authenticated; and the server connection it produced.</summary>
    public (SslStream Ssl, Socket Socket, TlsConnection Server, RecordingHandler ServerHandler) ConnectRaw(
        SslProtocols protocols = SslProtocols.None, X509CertificateCollection? clientCertificates = null)
    {
        var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        socket.Connect(Acceptor.LocalEndPoint);
        var ssl = new SslStream(new NetworkStream(socket, ownsSocket: true));
        ssl.AuthenticateAsClient(new SslClientAuthenticationOptions
        {
            TargetHost = "localhost",
            EnabledSslProtocols = protocols,
            ClientCertificates = clientCertificates,
            RemoteCertificateValidationCallback = TlsCertificates.Pinned(TlsCertificates.Localhost),
        });
        TlsConnection server = TakeAccepted();
        return (ssl, socket, server, _serverHandlers[server]);
    }

    /// <summary>A <see cref="TlsConnection"/> client (started) and the server connection it produced.</summary>
    public (TlsConnection Client, RecordingHandler ClientHandler, TlsConnection Server, RecordingHandler ServerHandler) Connect(TlsOptions? clientTls = null)
    {
        var clientHandler = new RecordingHandler();
        TlsConnection client = TlsConnection.ConnectAsync(Acceptor.LocalEndPoint, TimeSpan.FromSeconds(5), Options,
            clientTls ?? new TlsOptions { TargetHost = "localhost", RemoteCertificateValidation = TlsCertificates.Pinned(TlsCertificates.Localhost) },
            clientHandler).GetAwaiter().GetResult();
        client.Start();
        TlsConnection server = TakeAccepted();
        return (client, clientHandler, server, _serverHandlers[server]);
    }

    public TlsConnection TakeAccepted()
    {
        Assert.True(_accepted.TryTake(out TlsConnection? server, Loopback.Wait), $"no connection accepted ({Acceptor.HandshakeFailureCount} handshake failures)");
        return server!;
    }

    /// <summary>Writes each byte as its own TLS record and waits until the server has received it, so every byte arrives in its own read.</summary>
    public static void WriteByteByByte(SslStream ssl, TransportConnection server, byte[] bytes)
    {
        long before = server.BytesReceived;
        for (int i = 0; i < bytes.Length; i++)
        {
            ssl.Write(bytes, i, 1);
            ssl.Flush();
            long expected = before + i + 1;
            Assert.True(Loopback.Until(() => server.BytesReceived == expected || server.IsClosing), $"byte {i} not received ({server.BytesReceived} of {expected})");
        }
    }

    public void AssertNoLeaks()
    {
        Assert.True(Loopback.Until(() => Pool.Outstanding == 0), $"leaked {Pool.Outstanding} arrays");
        Pool.AssertClean();
    }

    public void Dispose() => Acceptor.Dispose();
}
