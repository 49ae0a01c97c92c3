using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Net;
using System.Net.Sockets;
using System.Security.Cryptography.X509Certificates;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Tests.Engine;
using static FixEngine.Tests.Config.TestPki;
using static FixEngine.Tests.Engine.EngineTestSupport;

namespace FixEngine.Tests.Config;

/// <summary>Issue #16: a TLS acceptor logs every refused handshake with the peer and the reason (plaintext client, bad
/// client certificate, protocol mismatch, timeout), handshakes count against the pre-Logon caps, an initiator names what
/// is wrong with the server's certificate (expired, untrusted chain, name mismatch), and the intermediates of a
/// certificate PEM are sent. Real TLS over loopback, with throwaway certificates made here.</summary>
public sealed class TlsFailureEngineTests : IDisposable
{
    private readonly string _dir = TempDirectory("fixengine-tls-fail-");
    private readonly X509Certificate2 _serverCa = CreateCa("Server CA");
    private readonly X509Certificate2 _clientCa = CreateCa("Client CA");

    public TlsFailureEngineTests() => Directory.CreateDirectory(_dir);

    public void Dispose()
    {
        _serverCa.Dispose();
        _clientCa.Dispose();
        DeleteDirectory(_dir);
    }

    private string Pem(string name, X509Certificate2 certificate, params X509Certificate2[] chain) =>
        Write(_dir, name, certificate.ExportCertificatePem() + "\n" + string.Concat(chain.Select(c => c.ExportCertificatePem() + "\n"))
            + (certificate.HasPrivateKey ? KeyPem(certificate) : ""));

    private IReadOnlyList<SessionSettings> Acceptor(int port, string serverPem, string extra = "") => SettingsFile.Parse($"""
        [DEFAULT]
        ConnectionType=acceptor
        SocketAcceptPort={port}
        NonStopSession=Y
        UseDataDictionary=N
        SocketUseSSL=Y
        SSLCertificate={serverPem}
        SSLCACertificate={CaPem("client-ca.pem", _clientCa)}
        SSLRequireClientCertificate=Y
        {extra}
        [SESSION]
        BeginString=FIX.4.4
        SenderCompID=EXEC
        TargetCompID=CLIENT
        """, "tls-acceptor.cfg");

    private IReadOnlyList<SessionSettings> Initiator(int port, string clientPem, string trusted, string extra = "") => SettingsFile.Parse($"""
        [DEFAULT]
        ConnectionType=initiator
        SocketConnectHost=127.0.0.1
        SocketConnectPort={port}
        NonStopSession=Y
        UseDataDictionary=N
        HeartBtInt=30
        ReconnectInterval=1
        ResetOnLogon=Y
        SocketUseSSL=Y
        SSLCertificate={clientPem}
        SSLCACertificate={trusted}
        SSLServerName=localhost
        {extra}
        [SESSION]
        BeginString=FIX.4.4
        SenderCompID=CLIENT
        TargetCompID=EXEC
        """, "tls-initiator.cfg");

    private string GoodServer()
    {
        using X509Certificate2 server = Issue(_serverCa);
        return Pem("server.pem", server);
    }

    private string GoodClient()
    {
        using X509Certificate2 client = Issue(_clientCa, "CN=fix-client");
        return Pem("client.pem", client);
    }

    private string CaPem(string name, X509Certificate2 ca) => Write(_dir, name, ca.ExportCertificatePem());

    private static string Lines(ConcurrentQueue<string> lines) => string.Join(" | ", lines);

    private static bool Logged(ConcurrentQueue<string> lines, params string[] parts) =>
        WaitFor(() => lines.Any(l => parts.All(p => l.Contains(p, StringComparison.Ordinal))));

    private static Socket Connect(int port)
    {
        var s = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { ReceiveTimeout = 30_000 };
        s.Connect(IPAddress.Loopback, port);
        return s;
    }

    private static string LocalPort(Socket s) => ":" + ((IPEndPoint)s.LocalEndPoint!).Port;

    private static bool ClosedByPeer(Socket s)
    {
        var buffer = new byte[1024];
        try
        {
            while (s.Receive(buffer) > 0)
            {
            }
            return true;
        }
        catch (SocketException e)
        {
            return e.SocketErrorCode != SocketError.TimedOut;
        }
    }

    [Fact]
    public void APlaintextClientIsRefusedAndLoggedWithItsAddress()
    {
        int port = 0;
        var lines = new ConcurrentQueue<string>();
        using var acceptor = new FixEngineHost(Acceptor(port, GoodServer()), new RecordingApp(), new EngineOptions { Console = lines.Enqueue });
        acceptor.Start();
        port = EngineTestSupport.PortOf(acceptor);
        using Socket plain = Connect(port);
        plain.Send(EngineSettingsTests.Logon());
        Assert.True(ClosedByPeer(plain));
        Assert.True(Logged(lines, "Refused ", LocalPort(plain), "TLS handshake failed: plaintext FIX from the client ('8=FIX.4.4|9="), Lines(lines));
    }

    [Fact]
    public void AClientCertificateFromAnUntrustedCaIsRefusedAndTheAcceptorNamesIt()
    {
        int port = 0;
        var lines = new ConcurrentQueue<string>();
        using var acceptor = new FixEngineHost(Acceptor(port, GoodServer()), new RecordingApp(), new EngineOptions { Console = lines.Enqueue });
        acceptor.Start();
        port = EngineTestSupport.PortOf(acceptor);
        using X509Certificate2 rogueCa = CreateCa("Rogue CA");
        using X509Certificate2 rogue = Issue(rogueCa, "CN=rogue-client");
        var app = new RecordingApp();
        using var initiator = new FixEngineHost(Initiator(port, Pem("rogue.pem", rogue), CaPem("server-ca.pem", _serverCa)), app);
        initiator.Start();
        Assert.True(Logged(lines, "Refused ", "127.0.0.1", "TLS handshake failed: client certificate refused: untrusted chain", "'CN=Rogue CA'"), Lines(lines));
        Assert.Equal(0, app.Logons);
    }

    [Fact]
    public void AnInitiatorWhoseClientCertificateIsRejectedSaysSoInsteadOfTimingOut()
    {
        int port = 0;
        using var acceptor = new FixEngineHost(Acceptor(port, GoodServer()), new RecordingApp());
        acceptor.Start();
        port = EngineTestSupport.PortOf(acceptor);
        using X509Certificate2 rogueCa = CreateCa("Rogue CA");
        using X509Certificate2 rogue = Issue(rogueCa, "CN=rogue-client");
        var lines = new ConcurrentQueue<string>();
        var app = new RecordingApp();
        using var initiator = new FixEngineHost(Initiator(port, Pem("rogue.pem", rogue), CaPem("server-ca.pem", _serverCa)), app,
            new EngineOptions { Console = lines.Enqueue });
        initiator.Start();
        Assert.True(Logged(lines, "Disconnected ", "most likely it rejected our client certificate 'CN=rogue-client'"), Lines(lines));
        Assert.DoesNotContain(lines, l => l.Contains("timed out", StringComparison.Ordinal));
        Assert.Equal(0, app.Logons);
    }

    [Fact]
    public void AnExpiredServerCertificateIsNamedByTheInitiator()
    {
        int port = 0;
        using X509Certificate2 expired = Issue(_serverCa, notBefore: DateTimeOffset.UtcNow.AddDays(-10), notAfter: DateTimeOffset.UtcNow.AddDays(-1));
        using var acceptor = new FixEngineHost(Acceptor(port, Pem("expired.pem", expired)), new RecordingApp());
        acceptor.Start();
        port = EngineTestSupport.PortOf(acceptor);
        var lines = new ConcurrentQueue<string>();
        using var initiator = new FixEngineHost(Initiator(port, GoodClient(), CaPem("server-ca.pem", _serverCa)), new RecordingApp(), new EngineOptions { Console = lines.Enqueue });
        initiator.Start();
        Assert.True(Logged(lines, "failed: TLS handshake failed: server certificate refused: certificate 'CN=localhost' expired on "), Lines(lines));
        Assert.DoesNotContain(lines, l => l.Contains("RemoteCertificateValidationCallback", StringComparison.Ordinal));
    }

    [Fact]
    public void AnUntrustedServerChainIsNamedByTheInitiator()
    {
        int port = 0;
        using var acceptor = new FixEngineHost(Acceptor(port, GoodServer()), new RecordingApp());
        acceptor.Start();
        port = EngineTestSupport.PortOf(acceptor);
        var lines = new ConcurrentQueue<string>();
        // The initiator trusts the client CA only.
        using var initiator = new FixEngineHost(Initiator(port, GoodClient(), CaPem("wrong-ca.pem", _clientCa)), new RecordingApp(), new EngineOptions { Console = lines.Enqueue });
        initiator.Start();
        Assert.True(Logged(lines, "server certificate refused: untrusted chain", "'CN=Server CA'"), Lines(lines));
    }

    [Fact]
    public void ANameMismatchIsNamedByTheInitiator()
    {
        int port = 0;
        using var acceptor = new FixEngineHost(Acceptor(port, GoodServer()), new RecordingApp());
        acceptor.Start();
        port = EngineTestSupport.PortOf(acceptor);
        var lines = new ConcurrentQueue<string>();
        IReadOnlyList<SessionSettings> settings = Initiator(port, GoodClient(), CaPem("server-ca.pem", _serverCa));
        using var initiator = new FixEngineHost([settings[0] with { SSLServerName = "venue.example" }], new RecordingApp(), new EngineOptions { Console = lines.Enqueue });
        initiator.Start();
        Assert.True(Logged(lines, "server certificate refused: name mismatch: the certificate is for 'CN=localhost' (localhost, 127.0.0.1), not 'venue.example'"), Lines(lines));
    }

    [Fact]
    public void AProtocolMismatchIsLoggedByTheAcceptor()
    {
        int port = 0;
        var lines = new ConcurrentQueue<string>();
        using var acceptor = new FixEngineHost(Acceptor(port, GoodServer(), "SSLProtocols=Tls13"), new RecordingApp(), new EngineOptions { Console = lines.Enqueue });
        acceptor.Start();
        port = EngineTestSupport.PortOf(acceptor);
        var clientLines = new ConcurrentQueue<string>();
        using var initiator = new FixEngineHost(Initiator(port, GoodClient(), CaPem("server-ca.pem", _serverCa), "SSLProtocols=Tls12"), new RecordingApp(),
            new EngineOptions { Console = clientLines.Enqueue });
        initiator.Start();
        Assert.True(Logged(lines, "Refused ", "127.0.0.1", "TLS handshake failed: protocol mismatch", "(this side allows Tls13)"), Lines(lines));
        Assert.True(Logged(clientLines, "TLS handshake failed: "), Lines(clientLines));
    }

    [Fact]
    public void SilentTlsClientsCountAgainstThePreLogonCapsAndAreClosedAfterTheHandshakeTimeout()
    {
        int port = 0;
        var lines = new ConcurrentQueue<string>();
        using var acceptor = new FixEngineHost(Acceptor(port, GoodServer(), "SSLHandshakeTimeout=2\nMaxUnauthenticatedConnectionsPerAddress=2"),
            new RecordingApp(), new EngineOptions { Console = lines.Enqueue });
        acceptor.Start();
        port = EngineTestSupport.PortOf(acceptor);
        using Socket silent1 = Connect(port);
        using Socket silent2 = Connect(port);
        // Two handshakes in progress fill the address's places: a third connection is refused at once.
        using (Socket third = Connect(port))
        {
            Assert.True(ClosedByPeer(third));
            Assert.True(Logged(lines, "Refused ", LocalPort(third), "MaxUnauthenticatedConnectionsPerAddress=2"), Lines(lines));
        }
        // The silent ones are closed once the handshake timeout has passed, with the reason.
        Assert.True(ClosedByPeer(silent1));
        Assert.True(ClosedByPeer(silent2));
        Assert.True(Logged(lines, LocalPort(silent1), "TLS handshake failed: timed out after 2 s: the client sent no TLS handshake"), Lines(lines));
        Assert.True(Logged(lines, LocalPort(silent2), "timed out after 2 s"), Lines(lines));
        // Their places came back: a real client logs on.
        var app = new RecordingApp();
        using var initiator = new FixEngineHost(Initiator(port, GoodClient(), CaPem("server-ca.pem", _serverCa)), app);
        initiator.Start();
        Assert.True(app.LoggedOn.Wait(Wait), Lines(lines));
    }

    [Fact]
    public void IntermediatesInTheCertificatePemAreSentSoTheClientBuildsTheChainToItsRoot()
    {
        using X509Certificate2 root = CreateCa("Root CA");
        using X509Certificate2 intermediate = IssueCa(root, "Issuing CA");
        using X509Certificate2 leaf = Issue(intermediate);
        using X509Certificate2 intermediatePublic = X509CertificateLoader.LoadCertificate(intermediate.RawData);
        string rootPem = CaPem("root.pem", root);

        // Without the intermediate in the file the client cannot reach its root.
        int port = 0;
        using (var acceptor = new FixEngineHost(Acceptor(port, Pem("leaf-only.pem", leaf)), new RecordingApp()))
        {
            acceptor.Start();
            port = EngineTestSupport.PortOf(acceptor);
            var lines = new ConcurrentQueue<string>();
            using var initiator = new FixEngineHost(Initiator(port, GoodClient(), rootPem), new RecordingApp(), new EngineOptions { Console = lines.Enqueue });
            initiator.Start();
            Assert.True(Logged(lines, "server certificate refused: untrusted chain", "'CN=Issuing CA'"), Lines(lines));
        }

        // With it (leaf, then the intermediate, then the key) the handshake succeeds and the session logs on.
        port = 0;
        using var withChain = new FixEngineHost(Acceptor(port, Pem("leaf-chain.pem", leaf, intermediatePublic)), new RecordingApp());
        withChain.Start();
        port = EngineTestSupport.PortOf(withChain);
        var app = new RecordingApp();
        var clientLines = new ConcurrentQueue<string>();
        using var client = new FixEngineHost(Initiator(port, GoodClient(), rootPem), app, new EngineOptions { Console = clientLines.Enqueue });
        client.Start();
        Assert.True(app.LoggedOn.Wait(Wait), Lines(clientLines));
    }

    /// <summary>
    /// A TLS 1.2 peer (a plain SslStream server here, SslProtocols.Tls12 only, requiring a client certificate) that
    /// rejects ours: the initiator reports the peer's refusal with the reason, not a handshake timeout, and it does not
    /// redial at full rate: after each refusal of the same kind it waits twice as long (ReconnectInterval 1 s: 1, 2, 4 s
    /// ...), so 8 s see at most 4 attempts where a fixed 1 s interval makes 8.
    /// </summary>
    [Fact]
    public void ATls12PeerThatRejectsOurClientCertificateIsNamedAndNotRedialedAtFullRate()
    {
        using X509Certificate2 serverCert = Issue(_serverCa);
        using X509Certificate2 server = X509CertificateLoader.LoadPkcs12(serverCert.Export(X509ContentType.Pkcs12), null);
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        int port = ((IPEndPoint)listener.LocalEndpoint).Port;
        int attempts = 0;
        var serverErrors = new ConcurrentQueue<string>();
        var serving = new System.Threading.CancellationTokenSource();
        System.Threading.Tasks.Task serverLoop = System.Threading.Tasks.Task.Run(async () =>
        {
            while (!serving.IsCancellationRequested)
            {
                Socket accepted;
                try
                {
                    accepted = await listener.AcceptSocketAsync(serving.Token);
                }
                catch (Exception)
                {
                    return;
                }
                System.Threading.Interlocked.Increment(ref attempts);
                using var ssl = new System.Net.Security.SslStream(new NetworkStream(accepted, ownsSocket: true));
                try
                {
                    await ssl.AuthenticateAsServerAsync(new System.Net.Security.SslServerAuthenticationOptions
                    {
                        ServerCertificate = server,
                        ClientCertificateRequired = true,
                        EnabledSslProtocols = System.Security.Authentication.SslProtocols.Tls12,
                        // Rejects every client certificate (as a venue does one it does not know).
                        RemoteCertificateValidationCallback = (_, _, _, _) => false,
                    }, serving.Token);
                    serverErrors.Enqueue("the handshake succeeded");
                }
                catch (Exception e)
                {
                    serverErrors.Enqueue(e.GetType().Name + ": " + e.Message);
                }
            }
        });
        try
        {
            var lines = new ConcurrentQueue<string>();
            var app = new RecordingApp();
            using var initiator = new FixEngineHost(Initiator(port, GoodClient(), CaPem("server-ca.pem", _serverCa), "SSLProtocols=Tls12"), app,
                new EngineOptions { Console = lines.Enqueue });
            initiator.Start();
            Assert.True(Logged(lines, "rejected our client certificate 'CN=fix-client'"), Lines(lines) + " / server: " + string.Join(" | ", serverErrors));
            Assert.DoesNotContain(lines, l => l.Contains("timed out", StringComparison.Ordinal));
            // Counted by the peer: the refusals' backoff, not the 1 s ReconnectInterval, paces the attempts.
            int first = System.Threading.Volatile.Read(ref attempts);
            System.Threading.Thread.Sleep(8000);
            int during = System.Threading.Volatile.Read(ref attempts) - first;
            Assert.True(during <= 4, $"{during} attempts in 8 s after the first refusal: " + Lines(lines));
            Assert.True(Logged(lines, "next attempt in "), Lines(lines));
            Assert.Equal(0, app.Logons);
        }
        finally
        {
            serving.Cancel();
            listener.Stop();
            System.Threading.SpinWait.SpinUntil(() => serverLoop.IsCompleted, Wait);
        }
    }
}
