using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.IO;
using System.Net;
using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;
using System.Threading;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Session;
using static FixEngine.Tests.Engine.EngineTestSupport;

namespace FixEngine.Tests.Engine;

/// <summary>Engine acceptor and initiator over TLS, configured only through the SSL settings, with a self-signed
/// certificate made here (written as a PFX for SSLCertificate and as a DER certificate for SSLCACertificate).</summary>
public sealed class TlsEngineTests : IDisposable
{
    private const string Password = "secret";
    private readonly string _directory = TempDirectory("fixengine-tls-");

    public TlsEngineTests() => Directory.CreateDirectory(_directory);

    public void Dispose() => DeleteDirectory(_directory);

    /// <summary>Writes a self-signed localhost certificate (server and client auth) as name.pfx (with key) and name.cer.</summary>
    private (string Pfx, string Cer) Certificate(string name)
    {
        using RSA rsa = RSA.Create(2048);
        var request = new CertificateRequest("CN=localhost", rsa, HashAlgorithmName.SHA256, RSASignaturePadding.Pkcs1);
        var san = new SubjectAlternativeNameBuilder();
        san.AddDnsName("localhost");
        san.AddIpAddress(IPAddress.Loopback);
        request.CertificateExtensions.Add(san.Build());
        request.CertificateExtensions.Add(new X509BasicConstraintsExtension(true, false, 0, true));
        request.CertificateExtensions.Add(new X509KeyUsageExtension(X509KeyUsageFlags.DigitalSignature | X509KeyUsageFlags.KeyEncipherment | X509KeyUsageFlags.KeyCertSign, false));
        request.CertificateExtensions.Add(new X509EnhancedKeyUsageExtension([new Oid("1.3.6.1.5.5.7.3.1"), new Oid("1.3.6.1.5.5.7.3.2")], false));
        using X509Certificate2 certificate = request.CreateSelfSigned(DateTimeOffset.UtcNow.AddMinutes(-5), DateTimeOffset.UtcNow.AddHours(1));
        string pfx = Path.Combine(_directory, name + ".pfx");
        string cer = Path.Combine(_directory, name + ".cer");
        File.WriteAllBytes(pfx, certificate.Export(X509ContentType.Pkcs12, Password));
        File.WriteAllBytes(cer, certificate.Export(X509ContentType.Cert));
        return (pfx, cer);
    }

    private static IReadOnlyList<SessionSettings> Acceptor(int port, string sslKeys) => SettingsFile.Parse($"""
        [DEFAULT]
        ConnectionType=acceptor
        SocketAcceptPort={port}
        NonStopSession=Y
        UseDataDictionary=N
        ResetOnLogon=Y
        IdleStrategy=Yielding
        LogoutTimeout=10
        SocketUseSSL=Y
        {sslKeys}
        [SESSION]
        BeginString=FIX.4.4
        SenderCompID=EXEC
        TargetCompID=CLIENT
        """, "tls acceptor");

    private static IReadOnlyList<SessionSettings> Initiator(int port, string sslKeys) => SettingsFile.Parse($"""
        [DEFAULT]
        ConnectionType=initiator
        SocketConnectHost=127.0.0.1
        SocketConnectPort={(port == 0 ? 1 : port)}
        HeartBtInt=30
        ReconnectInterval=1
        NonStopSession=Y
        UseDataDictionary=N
        ResetOnLogon=Y
        IdleStrategy=Yielding
        LogoutTimeout=10
        SocketUseSSL=Y
        {sslKeys}
        [SESSION]
        BeginString=FIX.4.4
        SenderCompID=CLIENT
        TargetCompID=EXEC
        """, "tls initiator");

    private static void LogonOrdersLogout(IReadOnlyList<SessionSettings> acceptorSettings, IReadOnlyList<SessionSettings> initiatorSettings)
    {
        const int Orders = 500;
        var filler = new FillerApp();
        var client = new ClientApp();
        var events = new ConcurrentQueue<string>();
        using var acceptor = new FixEngineHost(acceptorSettings, filler, new EngineOptions { Console = events.Enqueue });
        acceptor.Start();
        using var initiator = new FixEngineHost(WithConnectPort(initiatorSettings, PortOf(acceptor)), client, new EngineOptions { Console = events.Enqueue });
        initiator.Start();
        Assert.True(client.LoggedOn.Wait(Wait), "no logon over TLS: " + string.Join(" / ", events));
        Assert.Contains(events, e => e.Contains("(TLS)", StringComparison.Ordinal));
        FixSession session = client.Session!;
        for (int i = 0; i < Orders; i++) SendOrder(session, i);
        Assert.True(WaitFor(() => Volatile.Read(ref client.Fills) == Orders), $"{Volatile.Read(ref client.Fills)} of {Orders} fills");
        initiator.Stop(TimeSpan.FromSeconds(15));
        Assert.True(WaitFor(() => Volatile.Read(ref filler.Logouts) == 1), "the logout handshake did not reach the acceptor");
        filler.AssertClean();
        client.AssertClean();
        Assert.Equal(Orders, filler.Orders);
        string trace = $"initiator {session.NextSenderMsgSeqNum}/{session.NextTargetMsgSeqNum}, acceptor {acceptor.Sessions[0].NextSenderMsgSeqNum}/{acceptor.Sessions[0].NextTargetMsgSeqNum}; "
            + $"acceptor saw {string.Join(",", filler.AdminTypes)}; initiator saw {string.Join(",", client.AdminTypes)}; events: {string.Join(" / ", events)}";
        Assert.True(session.NextSenderMsgSeqNum == acceptor.Sessions[0].NextTargetMsgSeqNum, trace);
        Assert.True(acceptor.Sessions[0].NextSenderMsgSeqNum == session.NextTargetMsgSeqNum, trace);
    }

    [Fact]
    public void AcceptorAndInitiatorLogOnExchangeOrdersAndLogOutOverTls()
    {
        (string pfx, string cer) = Certificate("server");
        int port = 0;
        LogonOrdersLogout(
            Acceptor(port, $"SSLCertificate={pfx}\nSSLCertificatePassword={Password}\nSSLProtocols=Tls12,Tls13"),
            Initiator(port, $"SSLServerName=localhost\nSSLCACertificate={cer}"));
    }

    [Fact]
    public void MutualTlsWithRequiredClientCertificates()
    {
        (string serverPfx, string serverCer) = Certificate("server");
        (string clientPfx, string clientCer) = Certificate("client");
        int port = 0;
        LogonOrdersLogout(
            Acceptor(port, $"SSLCertificate={serverPfx}\nSSLCertificatePassword={Password}\nSSLRequireClientCertificate=Y\nSSLCACertificate={clientCer}"),
            Initiator(port, $"SSLServerName=localhost\nSSLCACertificate={serverCer}\nSSLCertificate={clientPfx}\nSSLCertificatePassword={Password}"));
    }

    [Fact]
    public void AnUntrustedServerCertificateFailsTheHandshakeAndNothingLogsOn()
    {
        (string pfx, _) = Certificate("server");
        (_, string otherCer) = Certificate("other");
        int port = 0;
        var filler = new FillerApp();
        var client = new ClientApp();
        var events = new ConcurrentQueue<string>();
        using var acceptor = new FixEngineHost(Acceptor(port, $"SSLCertificate={pfx}\nSSLCertificatePassword={Password}"), filler);
        acceptor.Start();
        port = EngineTestSupport.PortOf(acceptor);
        using var initiator = new FixEngineHost(Initiator(port, $"SSLServerName=localhost\nSSLCACertificate={otherCer}"), client, new EngineOptions { Console = events.Enqueue });
        initiator.Start();
        Assert.True(WaitFor(() => events.ToArray() is string[] lines && Array.Exists(lines, l => l.Contains("failed", StringComparison.Ordinal))), "no failed connect reported: " + string.Join(" / ", events));
        Assert.Equal(0, Volatile.Read(ref client.Logons));
        Assert.Equal(0, Volatile.Read(ref filler.Logons));
    }
}
