using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Net;
using System.Net.Sockets;
using System.Threading.Tasks;
using FixEngine.Config;
using FixEngine.Engine;

namespace FixEngine.Tests.Engine;

/// <summary>Issue #16: host names on both sides, a dual-stack acceptor by default, every address of a name tried in order.</summary>
public sealed class HostAddressEngineTests
{
    private const string Defaults = "[DEFAULT]\nNonStopSession=Y\nUseDataDictionary=N\nHeartBtInt=30\nResetOnLogon=Y\nReconnectInterval=1\n";

    private static IReadOnlyList<SessionSettings> Acceptor(int port, string extra, params string[] clients)
    {
        string text = Defaults + $"ConnectionType=acceptor\nSocketAcceptPort={port}\n{extra}";
        foreach (string client in clients) text += $"[SESSION]\nBeginString=FIX.4.4\nSenderCompID=EXEC\nTargetCompID={client}\n";
        return SettingsFile.Parse(text, "acceptor.cfg");
    }

    private static IReadOnlyList<SessionSettings> Initiator(string client, string host, int port) =>
        SettingsFile.Parse(Defaults + $"ConnectionType=initiator\nSocketConnectHost={host}\nSocketConnectPort={port}\n" +
            $"[SESSION]\nBeginString=FIX.4.4\nSenderCompID={client}\nTargetCompID=EXEC\n", "initiator.cfg");

    [Fact]
    public void AnAcceptorHostNameIsResolved()
    {
        int port = 0;
        var acceptorApp = new RecordingApp();
        var initiatorApp = new RecordingApp();
        using var acceptor = new FixEngineHost(Acceptor(port, "SocketAcceptHost=localhost\n", "CLIENT"), acceptorApp);
        acceptor.Start();
        port = EngineTestSupport.PortOf(acceptor);
        using var initiator = new FixEngineHost(Initiator("CLIENT", "localhost", port), initiatorApp);
        initiator.Start();
        Assert.True(initiatorApp.LoggedOn.Wait(EngineTestSupport.Wait), "the initiator logged on through localhost");
        Assert.True(acceptorApp.LoggedOn.Wait(EngineTestSupport.Wait));
    }

    [Fact]
    public void AnAcceptorHostNameThatDoesNotResolveNamesTheFileAndKey()
    {
        var e = Assert.Throws<ConfigException>(() => new FixEngineHost(
            Acceptor(0, "SocketAcceptHost=no-such-host.invalid\n", "CLIENT"), new RecordingApp()));
        Assert.Contains("SocketAcceptHost", e.Message, StringComparison.Ordinal);
        Assert.Contains("acceptor.cfg", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void ADefaultAcceptorTakesIpv6AndIpv4Clients()
    {
        int port = 0;
        var acceptorApp = new RecordingApp();
        var v6 = new RecordingApp();
        var v4 = new RecordingApp();
        var lines = new ConcurrentQueue<string>();
        using var acceptor = new FixEngineHost(Acceptor(port, "", "CLIENT6", "CLIENT4"), acceptorApp, new EngineOptions { Console = lines.Enqueue });
        acceptor.Start();
        port = EngineTestSupport.PortOf(acceptor);
        using var initiator6 = new FixEngineHost(Initiator("CLIENT6", "::1", port), v6);
        using var initiator4 = new FixEngineHost(Initiator("CLIENT4", "127.0.0.1", port), v4);
        initiator6.Start();
        initiator4.Start();
        Assert.True(v6.LoggedOn.Wait(EngineTestSupport.Wait), "the IPv6 client logged on");
        Assert.True(v4.LoggedOn.Wait(EngineTestSupport.Wait), "the IPv4 client logged on");
        Assert.True(EngineTestSupport.WaitFor(() => acceptor.Sessions[0].IsLoggedOn && acceptor.Sessions[1].IsLoggedOn));
    }

    [Fact]
    public void AnInitiatorTriesEveryAddressOfItsHostInOrder()
    {
        int port = 0;
        var acceptorApp = new RecordingApp();
        var initiatorApp = new RecordingApp();
        var lines = new ConcurrentQueue<string>();
        var asked = new ConcurrentQueue<string>();
        using var acceptor = new FixEngineHost(Acceptor(port, "SocketAcceptHost=127.0.0.1\n", "CLIENT"), acceptorApp);
        acceptor.Start();
        port = EngineTestSupport.PortOf(acceptor);
        // exchange.example resolves to an address nothing listens on first (127.0.0.2: refused), the acceptor second.
        var options = new EngineOptions
        {
            Console = lines.Enqueue,
            ResolveHost = host =>
            {
                asked.Enqueue(host);
                return Task.FromResult(new[] { IPAddress.Parse("127.0.0.2"), IPAddress.Loopback });
            },
        };
        using var initiator = new FixEngineHost(Initiator("CLIENT", "exchange.example", port), initiatorApp, options);
        initiator.Start();
        Assert.True(initiatorApp.LoggedOn.Wait(EngineTestSupport.Wait), "logged on through the second address: " + string.Join(" | ", lines));
        Assert.Contains("exchange.example", asked);
        Assert.Contains(lines, l => l.Contains("127.0.0.2", StringComparison.Ordinal) && l.Contains("trying its next address", StringComparison.Ordinal));
    }

    [Fact]
    public void AnInitiatorHostThatDoesNotResolveIsLoggedWithItsKey()
    {
        var lines = new ConcurrentQueue<string>();
        var options = new EngineOptions { Console = lines.Enqueue };
        using var initiator = new FixEngineHost(Initiator("CLIENT", "no-such-host.invalid", 9), new RecordingApp(), options);
        initiator.Start();
        Assert.True(EngineTestSupport.WaitFor(() => lines.ToArray() is var a && Array.Exists(a, l => l.Contains("SocketConnectHost", StringComparison.Ordinal)
            && l.Contains("no-such-host.invalid", StringComparison.Ordinal) && l.Contains("initiator.cfg", StringComparison.Ordinal))),
            "the failure names the key: " + string.Join(" | ", lines));
        Assert.False(initiator.Sessions[0].IsConnected);
    }
}
