using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using FixEngine.AspNetCore;
using FixEngine.Config;
using FixEngine.DependencyInjection;
using FixEngine.Engine;
using FixEngine.Session;
using FixEngine.Tests.DependencyInjection;
using FixEngine.Tests.Engine;
using FixEngine.Tests.Infrastructure;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Connections;
using Microsoft.AspNetCore.Hosting;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;

namespace FixEngine.Tests.AspNetCore;

/// <summary>An ASP.NET Core app hosts a FIX acceptor on Kestrel: a FixEngine initiator logs on over TCP, orders are
/// filled, and the host's shutdown logs the session out.</summary>
public sealed class KestrelAcceptorTests
{
    private static WebApplication BuildApp(int port, CapturingLoggerProvider logs, System.Security.Cryptography.X509Certificates.X509Certificate2? tls = null)
    {
        WebApplicationBuilder builder = WebApplication.CreateSlimBuilder();
        builder.Configuration.AddInMemoryCollection(HostedAcceptor.Config(port));
        builder.Logging.ClearProviders();
        builder.Logging.AddProvider(logs);
        builder.Logging.SetMinimumLevel(LogLevel.Debug);
        builder.Services.AddFixEngine<FillerApp>(builder.Configuration.GetSection("FixEngine"),
            o => o.Engine = new EngineOptions { ListenOnAcceptorPorts = false });
        // Port 0: Kestrel binds a port the system picks (read back with KestrelPort once started).
        builder.WebHost.ConfigureKestrel(k => k.Listen(System.Net.IPAddress.Loopback, port, listen =>
        {
            // Kestrel's TLS: the handler sees the decrypted connection.
            if (tls is not null) listen.UseHttps(tls);
            listen.UseConnectionHandler<FixConnectionHandler>();
        }));
        return builder.Build();
    }

    /// <summary>The port Kestrel bound (the app listens on port 0).</summary>
    private static int KestrelPort(WebApplication app)
    {
        var addresses = app.Services.GetRequiredService<Microsoft.AspNetCore.Hosting.Server.IServer>().Features
            .Get<Microsoft.AspNetCore.Hosting.Server.Features.IServerAddressesFeature>()!;
        return new Uri(addresses.Addresses.First()).Port;
    }

    [Fact]
    public async Task AnInitiatorLogsOnToAKestrelHostedAcceptorTradesAndIsLoggedOutAtShutdown()
    {
        int port = 0;
        var logs = new CapturingLoggerProvider();
        await using WebApplication app = BuildApp(port, logs);
        await app.StartAsync();
        port = KestrelPort(app);
        FixEngineHost engine = app.Services.GetRequiredService<FixEngineHost>();
        // Kestrel owns the port: the engine bound nothing.
        Assert.Empty(engine.AcceptorPorts);
        var filler = (FillerApp)app.Services.GetRequiredService<IApplication>();

        (_, IReadOnlyList<SessionSettings> initiatorSettings) = EngineTestSupport.ExecClientPair("[DEFAULT]\nHeartBtInt=30\nStartTime=00:00:00\nEndTime=00:00:00\nUseDataDictionary=N\nIdleStrategy=Backoff", port);
        var client = new ClientApp();
        using var initiator = new FixEngineHost(initiatorSettings, client);
        initiator.Start();
        Assert.True(client.LoggedOn.Wait(EngineTestSupport.Wait), "the initiator logged on to the Kestrel-hosted acceptor");
        Assert.True(engine.Sessions[0].IsLoggedOn || EngineTestSupport.WaitFor(() => engine.Sessions[0].IsLoggedOn));

        const int orders = 200;
        for (int i = 0; i < orders; i++) EngineTestSupport.SendOrder(client.Session!, i);
        Assert.True(EngineTestSupport.WaitFor(() => Interlocked.Read(ref client.Fills) == orders), $"{Interlocked.Read(ref client.Fills)} of {orders} orders filled");
        Assert.Equal(orders, Interlocked.Read(ref filler.Orders));

        await app.StopAsync();
        Assert.True(EngineTestSupport.WaitFor(() => client.CountAdmin("5") >= 1), "the initiator received the acceptor's Logout");
        Assert.True(EngineTestSupport.WaitFor(() => Volatile.Read(ref filler.Logouts) == 1), "the hosted application saw its session log out");
        initiator.Stop(TimeSpan.FromSeconds(1));
        filler.AssertClean();
        client.AssertClean();
        // The session's events went to its own logger category.
        Assert.Contains(logs.Lines, l => l.Category == "FixEngine.Session.FIX.4.4:EXEC->CLIENT" && l.Level == LogLevel.Information && l.Text.Contains("logged on", StringComparison.Ordinal));
    }

    [Fact]
    public async Task AConnectionForNoSessionIsClosedWithTheReason()
    {
        int port = 0;
        var logs = new CapturingLoggerProvider();
        await using WebApplication app = BuildApp(port, logs);
        await app.StartAsync();
        port = KestrelPort(app);
        using var socket = new System.Net.Sockets.Socket(System.Net.Sockets.AddressFamily.InterNetwork, System.Net.Sockets.SocketType.Stream, System.Net.Sockets.ProtocolType.Tcp);
        await socket.ConnectAsync(System.Net.IPAddress.Loopback, port);
        byte[] logon = Transport.FixMessages.Build("FIX.4.4", $"35=A|34=1|49=STRANGER|56=EXEC|52={RawPeerMessages.Now()}|98=0|108=30|");
        await socket.SendAsync(logon);
        var buffer = new byte[256];
        using var timeout = new CancellationTokenSource(EngineTestSupport.Wait);
        int read = await socket.ReceiveAsync(buffer, timeout.Token);
        Assert.Equal(0, read);
        Assert.True(EngineTestSupport.WaitFor(() => logs.Lines.Any(l => l.Text.Contains("no session for FIX.4.4 STRANGER->EXEC", StringComparison.Ordinal))));
        await app.StopAsync();
    }

    [Fact]
    public async Task AnInitiatorTradesOverKestrelsTls()
    {
        int port = 0;
        string dir = EngineTestSupport.TempDirectory("kestrel-tls-");
        System.IO.Directory.CreateDirectory(dir);
        try
        {
            using var ca = Config.TestPki.CreateCa("Kestrel Test CA");
            using var issued = Config.TestPki.Issue(ca);
            using var server = System.Security.Cryptography.X509Certificates.X509CertificateLoader.LoadPkcs12(
                issued.Export(System.Security.Cryptography.X509Certificates.X509ContentType.Pkcs12), null);
            string caFile = Config.TestPki.Write(dir, "ca.crt", ca.ExportCertificatePem());
            var logs = new CapturingLoggerProvider();
            await using WebApplication app = BuildApp(port, logs, server);
            await app.StartAsync();
            port = KestrelPort(app);
            FixEngineHost engine = app.Services.GetRequiredService<FixEngineHost>();
            var filler = (FillerApp)app.Services.GetRequiredService<IApplication>();

            IReadOnlyList<SessionSettings> initiatorSettings = SettingsFile.Parse(
                "[DEFAULT]\nHeartBtInt=30\nStartTime=00:00:00\nEndTime=00:00:00\nUseDataDictionary=N\nIdleStrategy=Backoff\n"
                + $"SocketUseSSL=Y\nCertificationAuthoritiesFile={caFile}\nSSLServerName=localhost\n"
                + $"ConnectionType=initiator\nSocketConnectHost=127.0.0.1\nSocketConnectPort={port}\nReconnectInterval=1\n"
                + "[SESSION]\nBeginString=FIX.4.4\nSenderCompID=CLIENT\nTargetCompID=EXEC\n", "initiator");
            Assert.True(initiatorSettings[0].SocketUseSSL);
            var client = new ClientApp();
            using var initiator = new FixEngineHost(initiatorSettings, client);
            initiator.Start();
            Assert.True(client.LoggedOn.Wait(EngineTestSupport.Wait), "the initiator logged on over Kestrel's TLS");
            Assert.True(EngineTestSupport.WaitFor(() => engine.Sessions[0].IsLoggedOn));

            const int orders = 50;
            for (int i = 0; i < orders; i++) EngineTestSupport.SendOrder(client.Session!, i);
            Assert.True(EngineTestSupport.WaitFor(() => Interlocked.Read(ref client.Fills) == orders), $"{Interlocked.Read(ref client.Fills)} of {orders} orders filled");
            Assert.Equal(orders, Interlocked.Read(ref filler.Orders));

            await app.StopAsync();
            Assert.True(EngineTestSupport.WaitFor(() => Volatile.Read(ref filler.Logouts) == 1), "the hosted application saw its session log out");
            initiator.Stop(TimeSpan.FromSeconds(1));
            filler.AssertClean();
            client.AssertClean();
        }
        finally
        {
            EngineTestSupport.DeleteDirectory(dir);
        }
    }
}
