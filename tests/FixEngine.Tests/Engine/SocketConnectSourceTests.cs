using System;
using System.Collections.Concurrent;
using System.Linq;
using System.Net;
using System.Net.Sockets;
using System.Threading.Tasks;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Tests.Session;

namespace FixEngine.Tests.Engine;

/// <summary>Issue 33: QuickFIX C++'s SocketConnectSourceHost/SocketConnectSourcePort (and SocketConnectSourceHost&lt;n&gt;/
/// SocketConnectSourcePort&lt;n&gt; for failover n) bind the initiator's socket to that local address and port before it
/// connects; the counterparty sees them as the connection's source. Real loopback sockets (Linux routes all of 127/8 to lo).</summary>
public sealed class SocketConnectSourceTests
{
    private static string Initiator(string keys) => $"""
        [DEFAULT]
        ConnectionType=initiator
        HeartBtInt=30
        ReconnectInterval=1
        NonStopSession=Y
        UseDataDictionary=N
        BeginString=FIX.4.4
        TargetCompID=GW
        {keys}

        [SESSION]
        SenderCompID=C1
        """;

    // A port free on 127.0.0.x now (the system picked it for a socket that is closed at once): the initiator binds it.
    private static int FreePort(string address)
    {
        using var probe = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        probe.Bind(new IPEndPoint(IPAddress.Parse(address), 0));
        return ((IPEndPoint)probe.LocalEndPoint!).Port;
    }

    [Fact]
    public async Task ThePrimaryIsConnectedFromTheSourceAddressAndPortGiven()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        int port = ((IPEndPoint)listener.LocalEndpoint).Port;
        int source = FreePort("127.0.0.2");
        var settings = SettingsFile.Parse(Initiator($"SocketConnectHost=127.0.0.1\nSocketConnectPort={port}\nSocketConnectSourceHost=127.0.0.2\nSocketConnectSourcePort={source}"), "<test>");
        Assert.Equal("127.0.0.2", settings[0].SocketLocalHost);
        Assert.Equal(source, settings[0].SocketLocalPort);
        using var host = new FixEngineHost(settings, new EchoApp());
        host.Start();
        using Socket accepted = await listener.AcceptSocketAsync().WaitAsync(EngineTestSupport.Wait);
        Assert.Equal(new IPEndPoint(IPAddress.Parse("127.0.0.2"), source), (IPEndPoint)accepted.RemoteEndPoint!);
        host.Stop(TimeSpan.FromSeconds(1));
    }

    [Fact]
    public async Task AFailoverIsConnectedFromItsOwnSourceAddressAndPort()
    {
        using Socket closed = EngineTestSupport.ClosedPort(out int refused);
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        int port = ((IPEndPoint)listener.LocalEndpoint).Port;
        int source = FreePort("127.0.0.3");
        var lines = new ConcurrentQueue<string>();
        var settings = SettingsFile.Parse(Initiator(
            $"SocketConnectHost=127.0.0.1\nSocketConnectPort={refused}\nSocketConnectSourceHost=127.0.0.2\n"
            + $"SocketConnectHost1=127.0.0.1\nSocketConnectPort1={port}\nSocketConnectSourceHost1=127.0.0.3\nSocketConnectSourcePort1={source}"), "<test>");
        SocketEndpoint failover = Assert.Single(settings[0].SocketConnectFailovers);
        Assert.Equal("127.0.0.3", failover.SourceHost);
        Assert.Equal(source, failover.SourcePort);
        using var host = new FixEngineHost(settings, new EchoApp(), new EngineOptions { Console = lines.Enqueue });
        host.Start();
        using Socket accepted = await listener.AcceptSocketAsync().WaitAsync(EngineTestSupport.Wait);
        Assert.Equal(new IPEndPoint(IPAddress.Parse("127.0.0.3"), source), (IPEndPoint)accepted.RemoteEndPoint!);
        // The primary was tried first, from its own source address, and refused.
        Assert.Contains(lines, l => l.Contains($"127.0.0.1:{refused}", StringComparison.Ordinal) && l.Contains("refused", StringComparison.Ordinal));
        host.Stop(TimeSpan.FromSeconds(1));
    }

    [Fact]
    public void AFailoverWithoutSourceKeysUsesTheSessionSourceAddressAndAnEphemeralPort()
    {
        var s = SettingsFile.Parse(Initiator("SocketConnectHost=10.0.0.1\nSocketConnectPort=5000\nSocketConnectSourceHost=10.0.0.9\nSocketConnectSourcePort=7000\n"
            + "SocketConnectHost1=10.0.0.2\nSocketConnectPort1=5001"), "<test>")[0];
        Assert.Equal([new SocketEndpoint("10.0.0.1", 5000) { SourceHost = "10.0.0.9", SourcePort = 7000 }, new SocketEndpoint("10.0.0.2", 5001) { SourceHost = "10.0.0.9" }],
            s.SocketConnectEndpoints);
        // Written back with the keys that read the same settings.
        string text = SettingsFile.ToSettingsText(s);
        SessionSettings again = SettingsFile.Parse(text, "<again>")[0];
        Assert.Equal(s.SocketConnectEndpoints, again.SocketConnectEndpoints);
        Assert.Equal(text, SettingsFile.ToSettingsText(again));
    }

    [Fact]
    public void ABindFailureNamesTheAddressAndTheKeyAndTheInitiatorKeepsTrying()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        int port = ((IPEndPoint)listener.LocalEndpoint).Port;
        var lines = new ConcurrentQueue<string>();
        // 192.0.2.1 (TEST-NET-1) is no address of this machine: the bind fails at every attempt.
        var settings = SettingsFile.Parse(Initiator($"SocketConnectHost=127.0.0.1\nSocketConnectPort={port}\nSocketConnectSourceHost=192.0.2.1\nSocketConnectSourcePort=7001"), "<test>");
        using var host = new FixEngineHost(settings, new EchoApp(), new EngineOptions { Console = lines.Enqueue });
        host.Start();
        Assert.True(EngineTestSupport.WaitFor(() => lines.Count(l => l.Contains("cannot bind", StringComparison.Ordinal)) >= 2), string.Join(" | ", lines));
        string line = lines.First(l => l.Contains("cannot bind", StringComparison.Ordinal));
        Assert.Contains("from 192.0.2.1:7001 (SocketConnectSourceHost, SocketConnectSourcePort)", line, StringComparison.Ordinal);
        Assert.False(listener.Pending());
        host.Stop(TimeSpan.FromSeconds(1));
    }

    [Theory]
    [InlineData("SocketLocalHost=127.0.0.2\nSocketConnectSourceHost=127.0.0.3", 12, "SocketConnectSourceHost", "sets the same setting as SocketLocalHost (line 11)")]
    [InlineData("SocketLocalPort=7000\nSocketConnectSourcePort=7001", 12, "SocketConnectSourcePort", "sets the same setting as SocketLocalPort (line 11)")]
    [InlineData("SocketConnectSourceHost=gateway", 11, "SocketConnectSourceHost", "'gateway' is not an IP address")]
    [InlineData("SocketConnectSourcePort=70000", 11, "SocketConnectSourcePort", "70000 is not a port (1..65535)")]
    [InlineData("SocketConnectSourcePort=0", 11, "SocketConnectSourcePort", "0 is not a port (1..65535)")]
    [InlineData("SocketConnectSourceHost2=127.0.0.3", 11, "SocketConnectSourceHost2", "failover 2 has no SocketConnectHost2")]
    [InlineData("SocketConnectSourcePort1=7000", 11, "SocketConnectSourcePort1", "failover 1 has no SocketConnectHost1")]
    [InlineData("SocketConnectHost1=10.0.0.2\nSocketConnectPort1=5001\nSocketConnectSourceHost1=gw", 13, "SocketConnectSourceHost1", "'gw' is not an IP address")]
    [InlineData("SocketConnectHost1=10.0.0.2\nSocketConnectPort1=5001\nSocketConnectSourcePort1=x", 13, "SocketConnectSourcePort1", "'x' is not an integer")]
    [InlineData("SocketConnectHost1=10.0.0.2\nSocketConnectPort1=5001\nSocketConnectSourcePort1=65536", 13, "SocketConnectSourcePort1", "65536 is not a port (1..65535)")]
    public void BadSourceKeysAreRefusedAtLoadNamingTheLineAndKey(string lines, int line, string key, string reason)
    {
        ConfigException e = Assert.Throws<ConfigException>(() => SettingsFile.Parse(Initiator("SocketConnectHost=10.0.0.1\nSocketConnectPort=5000\n" + lines), "ini.cfg"));
        Assert.Equal(line, e.LineNumber);
        Assert.Equal(key, e.Key);
        Assert.Contains(reason, e.Message, StringComparison.Ordinal);
    }
}
