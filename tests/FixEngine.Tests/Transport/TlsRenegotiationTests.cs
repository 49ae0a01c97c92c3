using System;
using System.Linq;
using System.Net;
using System.Net.Security;
using System.Net.Sockets;
using System.Security.Authentication;
using System.Security.Cryptography.X509Certificates;
using System.Threading;
using System.Threading.Tasks;
using FixEngine.Tests.Infrastructure;
using FixEngine.Transport;

namespace FixEngine.Tests.Transport;

/// <summary>SslStream writing on its own inside a read (here: answering the server's request for a client certificate
/// after the handshake), which a TlsConnection must send although no send of its own is in flight.</summary>
public sealed class TlsRenegotiationTests
{
    public static readonly TheoryData<SslProtocols> Protocols = new() { SslProtocols.Tls12, SslProtocols.Tls13 };

    [Theory]
    [MemberData(nameof(Protocols))]
    public async Task AClientCertificateRequestedAfterTheHandshakeIsAnsweredAndTrafficGoesOn(SslProtocols protocol)
    {
        // SslStream can make this request only there (elsewhere there is nothing to test).
        if (!(OperatingSystem.IsLinux() || OperatingSystem.IsWindows() || OperatingSystem.IsFreeBSD())) return;
        var pool = new LeakTrackingArrayPool<byte>();
        var options = new TcpConnectionOptions { BufferPool = pool };
        using var listener = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        listener.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        listener.Listen(1);
        Task<Socket> accepting = listener.AcceptAsync();
        var handler = new RecordingHandler();
        Task<TlsConnection> connecting = TlsConnection.ConnectAsync(listener.LocalEndPoint!, TimeSpan.FromSeconds(5), options, new TlsOptions
        {
            TargetHost = "localhost",
            EnabledProtocols = protocol,
            ClientCertificates = new X509Certificate2Collection(TlsCertificates.Client),
            RemoteCertificateValidation = TlsCertificates.Pinned(TlsCertificates.Localhost),
        }, handler);
        using Socket accepted = await accepting;
        using var server = new SslStream(new NetworkStream(accepted, ownsSocket: false));
        await server.AuthenticateAsServerAsync(new SslServerAuthenticationOptions
        {
            ServerCertificate = TlsCertificates.Localhost,
            EnabledSslProtocols = protocol,
            ClientCertificateRequired = false,
            RemoteCertificateValidationCallback = (_, _, _, _) => true,
        });
        TlsConnection client = await connecting;
        client.Start();
        Assert.Null(server.RemoteCertificate);

        // Traffic first, so the client's receive loop has a read pending when the request comes.
        Assert.Equal(SendResult.Queued, client.TrySend(FixMessages.Numbered(0)));
        byte[] buffer = new byte[4096];
        int received = await server.ReadAsync(buffer);
        Assert.Equal(FixMessages.Numbered(0), buffer.Take(received).ToArray());

        // The server asks for a certificate: the client's SslStream answers from inside its pending read, through the
        // connection's ciphertext buffer and a writer of its own (no send of the client's was in flight).
        await server.NegotiateClientCertificateAsync().WaitAsync(Loopback.Wait);
        Assert.NotNull(server.RemoteCertificate);
        Assert.Equal(TlsCertificates.Client.Thumbprint, new X509Certificate2(server.RemoteCertificate!).Thumbprint);

        // Both directions still work, in order.
        for (int i = 1; i <= 3; i++) Assert.Equal(SendResult.Queued, client.TrySend(FixMessages.Numbered(i)));
        byte[] expected = Enumerable.Range(1, 3).SelectMany(i => FixMessages.Numbered(i)).ToArray();
        int length = 0;
        while (length < expected.Length)
        {
            int n = await server.ReadAsync(buffer.AsMemory(length)).AsTask().WaitAsync(Loopback.Wait);
            Assert.True(n > 0, "the client closed");
            length += n;
        }
        Assert.Equal(expected, buffer.Take(length).ToArray());
        await server.WriteAsync(FixMessages.Numbered(7));
        Assert.True(Loopback.Until(() => handler.Messages.Count == 1), $"{handler.Messages.Count} messages; {client.DisconnectReason} {client.DisconnectDetail}");
        Assert.Equal(7, FixMessages.ReadSeq(handler.Messages.Single()));

        client.Close();
        Assert.True(handler.Disconnected.Wait(Loopback.Wait));
        Assert.True(Loopback.Until(() => pool.Outstanding == 0), $"{pool.Outstanding} arrays outstanding");
        pool.AssertClean();
    }
}
