using System;
using System.IO;
using System.Net;
using System.Net.Sockets;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Session;
using FixEngine.Tests.Session;
using FixEngine.Transport;

namespace FixEngine.Tests.Engine;

/// <summary>Issue 34 item 2: an acceptor never shares its listening port unless SocketReusePort=Y says so; a second one
/// fails naming the port, the settings file, line and key; a session without a persistent store says so at start.</summary>
public sealed class ListenerPortTests
{
    private static System.Collections.Generic.IReadOnlyList<SessionSettings> Acceptor(int port, string extra = "", string target = "CLIENT") => SettingsFile.Parse(
        $"[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort={port}\nNonStopSession=Y\nUseDataDictionary=N\n{extra}" +
        $"[SESSION]\nBeginString=FIX.4.4\nSenderCompID=EXEC\nTargetCompID={target}\n", "acceptor.cfg");

    [Fact]
    public void AnAcceptorOnAPortAnotherListenerHoldsFailsNamingThePortAndTheKey()
    {
        // The first listener is as permissive as can be: .NET's ReuseAddress, which on Linux also sets SO_REUSEPORT (as
        // the engine's own listener did before), on every address, port 0 read back.
        bool v6 = Socket.OSSupportsIPv6;
        using var other = new Socket(v6 ? AddressFamily.InterNetworkV6 : AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        if (v6) other.DualMode = true;
        other.SetSocketOption(SocketOptionLevel.Socket, SocketOptionName.ReuseAddress, true);
        other.Bind(new IPEndPoint(v6 ? IPAddress.IPv6Any : IPAddress.Any, 0));
        other.Listen(16);
        int port = ((IPEndPoint)other.LocalEndPoint!).Port;

        using var engine = new FixEngineHost(Acceptor(port), new EchoApp());
        ConfigException error = Assert.Throws<ConfigException>(engine.Start);
        Assert.Contains($"port {port} is already in use by another listener", error.Message, StringComparison.Ordinal);
        Assert.StartsWith("acceptor.cfg(3): SocketAcceptPort: ", error.Message, StringComparison.Ordinal);
        Assert.Equal("SocketAcceptPort", error.Key);
    }

    [Fact]
    public void ListenersDoNotSetReusePortUnlessAskedAndThenShareThePort()
    {
        var endPoint = new IPEndPoint(IPAddress.Loopback, 0);
        using var plain = new TcpAcceptor(endPoint, new TcpConnectionOptions { ReuseAddress = true }, _ => null);
        plain.Start();
        Assert.False(plain.ListenerReusePort);
        var taken = new IPEndPoint(IPAddress.Loopback, plain.LocalEndPoint.Port);
        using var intruder = new TcpAcceptor(taken, new TcpConnectionOptions { ReuseAddress = true }, _ => null);
        var refused = Assert.Throws<SocketException>(intruder.Start);
        Assert.Equal(SocketError.AddressAlreadyInUse, refused.SocketErrorCode);

        if (!OperatingSystem.IsLinux()) return;
        using var sharing = new TcpAcceptor(endPoint, new TcpConnectionOptions { ReusePort = true }, _ => null);
        sharing.Start();
        Assert.True(sharing.ListenerReusePort);
        using var partner = new TcpAcceptor(new IPEndPoint(IPAddress.Loopback, sharing.LocalEndPoint.Port), new TcpConnectionOptions { ReusePort = true }, _ => null);
        partner.Start();
        Assert.Equal(sharing.LocalEndPoint.Port, partner.LocalEndPoint.Port);
    }

    [Fact]
    public void SocketReusePortIsAPerPortSettingDefaultN()
    {
        SessionSettings off = Acceptor(1234)[0];
        Assert.False(off.SocketReusePort);
        Assert.False(EngineConfiguration.TransportOptions(off, off.MaxMessageSize).ReusePort);
        SessionSettings on = Acceptor(1234, "SocketReusePort=Y\n")[0];
        Assert.True(EngineConfiguration.TransportOptions(on, on.MaxMessageSize).ReusePort);
    }

    [Fact]
    public void ASessionWithAnInMemoryStoreSaysAtStartThatNothingSurvivesARestart()
    {
        string logs = Path.Combine(Path.GetTempPath(), "fixengine-memlog-" + Guid.NewGuid().ToString("N"));
        try
        {
            SessionSettings settings = Acceptor(1234, $"FileLogPath={logs}\n")[0];
            using (var factory = new SessionFactory())
            {
                using FixSession session = factory.Create(settings, new EchoApp(), 5);
            }
            string text = File.ReadAllText(Path.Combine(logs, "fixengine.log"));
            Assert.Contains("do not survive a restart", text, StringComparison.Ordinal);
        }
        finally
        {
            if (Directory.Exists(logs)) Directory.Delete(logs, recursive: true);
        }
    }
}
