using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.IO;
using System.Security.Cryptography.X509Certificates;
using System.Threading;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Session;
using FixEngine.Tests.Engine;
using static FixEngine.Tests.Config.TestPki;
using static FixEngine.Tests.Engine.EngineTestSupport;

namespace FixEngine.Tests.Config;

/// <summary>Mutual TLS between two engines configured the QuickFIX C++ way (settings files with ServerCertificateFile,
/// ClientCertificateFile, CertificationAuthoritiesFile, CertificateVerifyLevel, SSLProtocol), from PEM files made here:
/// a server certificate with an encrypted key in a separate file, a client certificate with its key in one .crt file, and
/// CA bundles in which the CA that matters is the last of several.</summary>
public sealed class PemTlsEngineTests : IDisposable
{
    private readonly string _dir = TempDirectory("fixengine-pem-tls-");

    public PemTlsEngineTests() => Directory.CreateDirectory(_dir);

    public void Dispose() => DeleteDirectory(_dir);

    private sealed record Files(string AcceptorCfg, string InitiatorCfg);

    private Files WriteFiles(int port, bool initiatorTrustsServerCa)
    {
        using X509Certificate2 serverCa = CreateCa("Server CA");
        using X509Certificate2 clientCa = CreateCa("Client CA");
        using X509Certificate2 unrelated1 = CreateCa("Unrelated CA 1");
        using X509Certificate2 unrelated2 = CreateCa("Unrelated CA 2");
        using X509Certificate2 server = Issue(serverCa);
        using X509Certificate2 client = Issue(clientCa, "CN=fix-client", ecdsa: true);

        string serverCrt = Write(_dir, "server.crt", server.ExportCertificatePem());
        string serverKey = Write(_dir, "server.key", EncryptedKeyPem(server));
        string clientCrt = Write(_dir, "client.crt", client.ExportCertificatePem() + "\n" + KeyPem(client));
        string acceptorBundle = Write(_dir, "acceptor-cas.crt", unrelated1.ExportCertificatePem() + unrelated2.ExportCertificatePem() + clientCa.ExportCertificatePem());
        string initiatorBundle = Write(_dir, "initiator-cas.crt",
            unrelated1.ExportCertificatePem() + unrelated2.ExportCertificatePem() + (initiatorTrustsServerCa ? serverCa.ExportCertificatePem() : ""));

        string acceptorCfg = Write(_dir, "acceptor.cfg", $"""
            # QuickFIX C++ style SSL acceptor
            [DEFAULT]
            ConnectionType=acceptor
            SocketAcceptPort={port}
            StartTime=00:00:00.000
            EndTime=00:00:00.000
            UseDataDictionary=N
            ResetOnLogon=Y
            IdleStrategy=Yielding
            LogoutTimeout=10
            ServerCertificateFile={serverCrt}
            ServerCertificateKeyFile={serverKey}
            SSLCertificatePassword={Password}
            CertificationAuthoritiesFile={acceptorBundle}
            CertificateVerifyLevel=1
            SSLProtocol=all -SSLv2 -SSLv3
            [SESSION]
            BeginString=FIX.4.4
            SenderCompID=EXEC
            TargetCompID=CLIENT
            """);
        string initiatorCfg = Write(_dir, "initiator.cfg", $"""
            [DEFAULT]
            ConnectionType=initiator
            SocketConnectHost=127.0.0.1
            SocketConnectPort={(port == 0 ? 1 : port)}
            HeartBtInt=30
            ReconnectInterval=1
            StartTime=00:00:00
            EndTime=00:00:00
            UseDataDictionary=N
            ResetOnLogon=Y
            IdleStrategy=Yielding
            LogoutTimeout=10
            ClientCertificateFile={clientCrt}
            CertificationAuthoritiesFile={initiatorBundle}
            SSLServerName=localhost
            SSLProtocol=TLSv1_2 +TLSv1_3
            [SESSION]
            BeginString=FIX.4.4
            SenderCompID=CLIENT
            TargetCompID=EXEC
            """);
        return new Files(acceptorCfg, initiatorCfg);
    }

    [Fact]
    public void MutualTlsFromPemFilesAndCaBundles()
    {
        const int Orders = 200;
        int port = 0;
        Files files = WriteFiles(port, initiatorTrustsServerCa: true);
        IReadOnlyList<SessionSettings> acceptorSettings = SettingsFile.Load(files.AcceptorCfg);
        IReadOnlyList<SessionSettings> initiatorSettings = SettingsFile.Load(files.InitiatorCfg);
        Assert.Empty(SettingsFile.Warnings(acceptorSettings));
        Assert.Empty(SettingsFile.Warnings(initiatorSettings));
        Assert.True(acceptorSettings[0].SSLRequireClientCertificate);

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
        Assert.True(WaitFor(() => Volatile.Read(ref filler.Logouts) == 1), "the logout did not reach the acceptor");
        filler.AssertClean();
        client.AssertClean();
        Assert.Equal(Orders, filler.Orders);
    }

    [Fact]
    public void WithoutTheServerCaInTheBundleNothingLogsOn()
    {
        int port = 0;
        Files files = WriteFiles(port, initiatorTrustsServerCa: false);
        var filler = new FillerApp();
        var client = new ClientApp();
        var events = new ConcurrentQueue<string>();
        using var acceptor = new FixEngineHost(SettingsFile.Load(files.AcceptorCfg), filler);
        acceptor.Start();
        using var initiator = new FixEngineHost(WithConnectPort(SettingsFile.Load(files.InitiatorCfg), PortOf(acceptor)), client, new EngineOptions { Console = events.Enqueue });
        initiator.Start();
        Assert.True(WaitFor(() => Array.Exists(events.ToArray(), l => l.Contains("failed", StringComparison.Ordinal))), "no failed connect reported: " + string.Join(" / ", events));
        Assert.Equal(0, Volatile.Read(ref client.Logons));
        Assert.Equal(0, Volatile.Read(ref filler.Logons));
    }

    [Fact]
    public void AWrongKeyPasswordStopsTheEngineNamingTheFileLineAndKey()
    {
        int port = 0;
        Files files = WriteFiles(port, initiatorTrustsServerCa: true);
        File.WriteAllText(files.AcceptorCfg, File.ReadAllText(files.AcceptorCfg).Replace($"SSLCertificatePassword={Password}", "SSLCertificatePassword=wrong"));
        ConfigException e = Assert.Throws<ConfigException>(() =>
        {
            using var acceptor = new FixEngineHost(SettingsFile.Load(files.AcceptorCfg), new FillerApp());
            acceptor.Start();
        });
        Assert.Equal((files.AcceptorCfg, 12, "ServerCertificateKeyFile"), (e.FileName, e.LineNumber, e.Key));
        Assert.Contains("wrong password", e.Reason, StringComparison.Ordinal);
        Assert.Contains("session FIX.4.4:EXEC->CLIENT", e.Reason, StringComparison.Ordinal);
    }
}
