using System;
using System.Collections.Concurrent;
using System.IO;
using System.Linq;
using System.Net;
using System.Security.Authentication;
using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;
using System.Threading;
using System.Threading.Tasks;
using System.Net.Security;
using System.Net.Sockets;
using System.Text;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Tests.Infrastructure;
using FixEngine.Transport;

namespace FixEngine.Tests.Transport;

public class TlsConnectionTests
{
    private static X509Certificate2 CreateCertificate(string subject = "CN=localhost") => TlsCertificates.Create(subject);

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
            using X509Certificate2 fromPem = CertificateFiles.LoadCertificateWithKey(certPath, keyPath, password: null);
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
        // The failure names the problem instead of the platform's generic "rejected by the callback".
        TlsHandshakeException e = await Assert.ThrowsAsync<TlsHandshakeException>(() => TlsConnection.ConnectAsync(acceptor.LocalEndPoint, TimeSpan.FromSeconds(5), options,
            new TlsOptions { TargetHost = "localhost" }, new RecordingHandler()));
        Assert.StartsWith("server certificate refused: ", e.Reason, StringComparison.Ordinal);
        Assert.Contains("untrusted chain", e.Reason, StringComparison.Ordinal);
    }

    public static readonly TheoryData<int> ReceiveBufferSizes = new() { 256, 64 * 1024 };

    [Theory]
    [MemberData(nameof(ReceiveBufferSizes))]
    public void AMessageSplitAtEveryByteIsReassembled(int initialReceiveBufferBytes)
    {
        // 256: the receive buffer starts smaller than a TLS record and than the 300-byte message, so SslStream's reads are
        // cut short, the buffer compacts and grows; 64 KiB: every read lands in room to spare.
        using var loop = new TlsLoopback(new TcpConnectionOptions { InitialReceiveBufferBytes = initialReceiveBufferBytes });
        var (ssl, _, server, handler) = loop.ConnectRaw();
        byte[] stream = FixMessages.Numbered(1).Concat(FixMessages.Numbered(2, 300)).Concat(FixMessages.Numbered(3)).ToArray();
        TlsLoopback.WriteByteByByte(ssl, server, stream);
        Assert.True(Loopback.Until(() => handler.Messages.Count == 3), $"{handler.Messages.Count} messages, {handler.Errors.Count} errors, {server.DisconnectReason} {server.DisconnectDetail}");
        Assert.Equal(new long[] { 1, 2, 3 }, handler.Messages.Select(m => FixMessages.ReadSeq(m)));
        Assert.Equal(FixMessages.Numbered(2, 300), handler.Messages.ElementAt(1));
        Assert.Empty(handler.Errors);
        Assert.Equal(3, server.MessagesReceived);
        Assert.Equal(stream.Length, server.BytesReceived);
        ssl.Dispose();
        Assert.True(handler.Disconnected.Wait(Loopback.Wait));
        Assert.Equal(DisconnectReason.PeerClosed, handler.Reason);
        loop.AssertNoLeaks();
    }

    [Theory]
    [MemberData(nameof(ReceiveBufferSizes))]
    public void ManyMessagesPerReadAreAllDeliveredInOrder(int initialReceiveBufferBytes)
    {
        using var loop = new TlsLoopback(new TcpConnectionOptions { InitialReceiveBufferBytes = initialReceiveBufferBytes });
        var (ssl, _, server, handler) = loop.ConnectRaw();
        // Mixed sizes so frame boundaries fall everywhere relative to receive-buffer and TLS record boundaries.
        byte[] batch = Enumerable.Range(0, 500).SelectMany(i => FixMessages.Numbered(i, i % 7 == 0 ? 700 : 0)).ToArray();
        ssl.Write(batch);
        ssl.Flush();
        Assert.True(Loopback.Until(() => handler.Messages.Count == 500), $"{handler.Messages.Count} messages, {handler.Errors.Count} errors, {server.DisconnectReason} {server.DisconnectDetail}");
        Assert.Equal(Enumerable.Range(0, 500).Select(i => (long)i), handler.Messages.Select(m => FixMessages.ReadSeq(m)));
        Assert.Equal(Enumerable.Range(0, 500).Select(i => FixMessages.Numbered(i, i % 7 == 0 ? 700 : 0)), handler.Messages);
        Assert.Empty(handler.Errors);
        Assert.Equal(batch.Length, server.BytesReceived);
        Assert.InRange(server.ReceiveBufferCapacity, 0, loop.Options.MaxReceiveBufferBytes);
        ssl.Dispose();
        Assert.True(handler.Disconnected.Wait(Loopback.Wait));
        loop.AssertNoLeaks();
    }

    [Theory]
    [MemberData(nameof(ReceiveBufferSizes))]
    public void GarbageBetweenMessagesIsReportedAndSkipped(int initialReceiveBufferBytes)
    {
        using var loop = new TlsLoopback(new TcpConnectionOptions { InitialReceiveBufferBytes = initialReceiveBufferBytes });
        var (ssl, _, server, handler) = loop.ConnectRaw();
        byte[] garbage = Encoding.ASCII.GetBytes("hello world");
        byte[] badCheckSum = FixMessages.Numbered(99);
        badCheckSum[^3] = (byte)(badCheckSum[^3] == '0' ? '1' : '0');
        byte[] stream = FixMessages.Numbered(1).Concat(garbage).Concat(FixMessages.Numbered(2)).Concat(badCheckSum).Concat(FixMessages.Numbered(3)).ToArray();
        ssl.Write(stream);
        ssl.Flush();
        Assert.True(Loopback.Until(() => handler.Messages.Count == 3));
        Assert.Equal(new long[] { 1, 2, 3 }, handler.Messages.Select(m => FixMessages.ReadSeq(m)));
        var errors = handler.Errors.ToArray();
        Assert.Equal(2, errors.Length);
        Assert.Equal((FrameStatus.Garbage, garbage.Length), (errors[0].Status, errors[0].Skipped));
        Assert.Equal((FrameStatus.CheckSumMismatch, badCheckSum.Length), (errors[1].Status, errors[1].Skipped));
        Assert.Equal(2, server.FrameErrors);
        Assert.False(server.IsClosing);
        ssl.Dispose();
        Assert.True(handler.Disconnected.Wait(Loopback.Wait));
        loop.AssertNoLeaks();
    }

    [Fact]
    public void TooMuchConsecutiveGarbageDisconnectsWithReason()
    {
        using var loop = new TlsLoopback(new TcpConnectionOptions { MaxConsecutiveGarbageBytes = 4096, MaxConsecutiveFrameErrors = 1000 });
        var (ssl, _, server, handler) = loop.ConnectRaw();
        ssl.Write(FixMessages.Numbered(1));
        byte[] junk = Enumerable.Repeat((byte)'z', 1000).ToArray();
        for (int i = 0; i < 10 && !handler.Disconnected.IsSet; i++)
        {
            try { ssl.Write(junk); ssl.Flush(); } catch (IOException) { break; }
            Loopback.Until(() => server.BytesReceived >= FixMessages.Numbered(1).Length + (i + 1) * 1000L || server.IsClosing);
        }
        Assert.True(handler.Disconnected.Wait(Loopback.Wait));
        Assert.Equal(DisconnectReason.Garbage, handler.Reason);
        Assert.Contains("too much garbage", handler.Detail);
        Assert.Single(handler.Messages);
        Assert.Equal(1, handler.DisconnectCount);
        ssl.Dispose();
        loop.AssertNoLeaks();
    }

    [Fact]
    public void AHugeBodyLengthIsRejectedAfterTheHeaderWithoutBuffering()
    {
        var options = new TcpConnectionOptions { InitialReceiveBufferBytes = 4096, MaxReceiveBufferBytes = 16384, MaxMessageBodyLength = 8192, MaxConsecutiveGarbageBytes = 8 << 20 };
        using var loop = new TlsLoopback(options);
        var (ssl, _, server, handler) = loop.ConnectRaw();
        loop.Bytes.ResetPeak();
        ssl.Write(Encoding.ASCII.GetBytes("8=FIX.4.4\u00019=100000000\u000135=D\u0001"));
        ssl.Flush();
        Assert.True(Loopback.Until(() => !handler.Errors.IsEmpty));
        Assert.Equal(FrameStatus.BodyLengthTooLarge, handler.Errors.First().Status);
        // 4 MB of would-be body: skipped as garbage while it arrives, never held.
        byte[] body = Enumerable.Repeat((byte)'a', 64 * 1024).ToArray();
        for (int i = 0; i < 64; i++) ssl.Write(body);
        ssl.Write(FixMessages.Numbered(7));
        ssl.Flush();
        Assert.True(Loopback.Until(() => handler.Messages.Count == 1), $"{server.BytesReceived} bytes received, {server.DisconnectReason} {server.DisconnectDetail}");
        Assert.Equal(7, FixMessages.ReadSeq(handler.Messages.Single()));
        Assert.False(server.IsClosing);
        Assert.InRange(handler.MaxCapacitySeen, 0, options.MaxReceiveBufferBytes);
        // The receive buffer (and the send queue, never used here): far below the 4 MB sent.
        Assert.InRange(loop.Bytes.PeakBytes, 0, 256 * 1024);
        ssl.Dispose();
        Assert.True(handler.Disconnected.Wait(Loopback.Wait));
        loop.AssertNoLeaks();
    }

    [Fact]
    public async Task PeerClosingMidMessageIsReportedOnceWithTheByteCount()
    {
        using var loop = new TlsLoopback(new TcpConnectionOptions { InitialReceiveBufferBytes = 256 });
        var (ssl, socket, server, handler) = loop.ConnectRaw();
        byte[] stream = FixMessages.Numbered(1).Concat(FixMessages.Numbered(2)).ToArray();
        int partial = FixMessages.Numbered(1).Length + 30;
        ssl.Write(stream, 0, partial);
        ssl.Flush();
        Assert.True(Loopback.Until(() => server.BytesReceived == partial));
        await ssl.ShutdownAsync();
        socket.Shutdown(SocketShutdown.Send);
        Assert.True(handler.Disconnected.Wait(Loopback.Wait));
        Assert.Equal(DisconnectReason.PeerClosedMidMessage, handler.Reason);
        Assert.Equal("peer closed mid-message: 30 bytes of an incomplete frame", handler.Detail);
        Assert.Single(handler.Messages);
        ssl.Dispose();
        loop.AssertNoLeaks();
        Assert.Equal(1, handler.DisconnectCount);
        Assert.True(server.IsClosed);
    }

    public static readonly TheoryData<SslProtocols> Protocols = new() { SslProtocols.Tls12, SslProtocols.Tls13 };

    [Theory]
    [MemberData(nameof(Protocols))]
    public void EachProtocolVersionRoundTrips(SslProtocols protocol)
    {
        using var loop = new TlsLoopback(new TcpConnectionOptions { InitialReceiveBufferBytes = 1024 });
        loop.ServerHandlerFactory = () => new RecordingHandler { OnMessageHook = (c, m) => Assert.Equal(SendResult.Queued, c.TrySend(m)) };
        var (client, clientHandler, server, serverHandler) = loop.Connect(new TlsOptions
        {
            TargetHost = "localhost",
            EnabledProtocols = protocol,
            RemoteCertificateValidation = TlsCertificates.Pinned(TlsCertificates.Localhost),
        });
        Assert.Equal(protocol, client.SslProtocol);
        Assert.Equal(protocol, server.SslProtocol);
        const int Count = 300;
        for (int i = 0; i < Count; i++)
        {
            int length = FixMessages.WriteNumbered(client.GetSendSpan(128), i);
            Assert.Equal(SendResult.Queued, client.Commit(length));
        }
        Assert.True(Loopback.Until(() => clientHandler.Messages.Count == Count), $"{clientHandler.Messages.Count} echoed");
        Assert.Equal(Enumerable.Range(0, Count).Select(i => (long)i), clientHandler.Messages.Select(m => FixMessages.ReadSeq(m)));
        // MessagesReceived counts a message once its OnMessage has returned, which may be after its echo arrived.
        Assert.True(Loopback.Until(() => server.MessagesReceived == Count), $"{server.MessagesReceived} counted");
        client.Close();
        Assert.True(serverHandler.Disconnected.Wait(Loopback.Wait));
        Assert.True(clientHandler.Disconnected.Wait(Loopback.Wait));
        loop.AssertNoLeaks();
    }

    [Fact]
    public async Task ARequiredClientCertificateThatIsAbsentFailsTheHandshake()
    {
        using var loop = new TlsLoopback(serverTls: new TlsOptions
        {
            ServerCertificate = TlsCertificates.Localhost,
            RequireClientCertificate = true,
            RemoteCertificateValidation = TlsCertificates.Pinned(TlsCertificates.Client),
        });
        var handler = new RecordingHandler();
        try
        {
            // TLS 1.3 finishes the client's side of the handshake before the server checks the client certificate, so the
            // refusal may arrive as a failed connect or as the connection closing right after it.
            TlsConnection client = await TlsConnection.ConnectAsync(loop.Acceptor.LocalEndPoint, TimeSpan.FromSeconds(5), loop.Options,
                new TlsOptions { TargetHost = "localhost", RemoteCertificateValidation = TlsCertificates.Pinned(TlsCertificates.Localhost) }, handler);
            client.Start();
            Assert.True(handler.Disconnected.Wait(Loopback.Wait), "the refused client stayed connected");
            Assert.NotEqual(DisconnectReason.Local, handler.Reason);
        }
        catch (Exception ex) when (ex is AuthenticationException or IOException)
        {
        }
        Assert.True(Loopback.Until(() => loop.Acceptor.HandshakeFailureCount == 1), $"{loop.Acceptor.HandshakeFailureCount} handshake failures");
        Assert.Equal(0, loop.Acceptor.AcceptedCount);
        loop.AssertNoLeaks();
    }

    [Fact]
    public void WithoutRequireClientCertificateClientsConnectWithOrWithoutOne()
    {
        using var loop = new TlsLoopback();
        var (_, _, without, _) = loop.ConnectRaw();
        Assert.False(without.HasRemoteCertificate);
        var (_, _, with, _) = loop.ConnectRaw(clientCertificates: new X509Certificate2Collection(TlsCertificates.Client));
        // The acceptor counts a connection after its accept callback returned, and the test took it inside that callback.
        Assert.True(Loopback.Until(() => loop.Acceptor.AcceptedCount == 2), $"accepted {loop.Acceptor.AcceptedCount}");
        Assert.Equal(0, loop.Acceptor.HandshakeFailureCount);
        without.Close();
        with.Close();
        loop.AssertNoLeaks();
    }

    [Fact]
    public void AThrowingHandlerIsCountedAndClosesTheConnectionWithTheException()
    {
        using var loop = new TlsLoopback();
        int calls = 0;
        loop.ServerHandlerFactory = () => new RecordingHandler
        {
            OnMessageHook = (_, _) =>
            {
                if (Interlocked.Increment(ref calls) == 2) throw new InvalidOperationException("boom");
            },
        };
        var (ssl, _, server, handler) = loop.ConnectRaw();
        ssl.Write(FixMessages.Numbered(1).Concat(FixMessages.Numbered(2)).Concat(FixMessages.Numbered(3)).ToArray());
        ssl.Flush();
        Assert.True(handler.Disconnected.Wait(Loopback.Wait));
        Assert.Equal(DisconnectReason.HandlerError, handler.Reason);
        Assert.Equal("connection handler threw InvalidOperationException in OnMessage: boom", handler.Detail);
        Assert.Equal(1, server.MessagesReceived);
        Assert.Equal(1, server.HandlerErrors);
        Assert.Equal(2, calls);
        Assert.Equal(1, handler.DisconnectCount);
        ssl.Dispose();
        loop.AssertNoLeaks();
    }
}
