using System;
using System.Net;
using System.Net.Sockets;
using System.Threading.Tasks;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Tests.Session;

namespace FixEngine.Tests.Engine;

/// <summary>SocketLocalHost: an initiator binds its socket to the address given before it connects, so the counterparty
/// sees that source address (thousands of clients spread over a few addresses, or a chosen interface).</summary>
public sealed class SocketLocalHostTests
{
    [Theory]
    [InlineData("127.0.0.2")]
    [InlineData("127.0.0.3")]
    public async Task TheInitiatorConnectsFromTheAddressGiven(string local)
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        int port = ((IPEndPoint)listener.LocalEndpoint).Port;
        var settings = SettingsFile.Parse($"""
            [DEFAULT]
            ConnectionType=initiator
            SocketConnectHost=127.0.0.1
            SocketConnectPort={port}
            SocketLocalHost={local}
            HeartBtInt=30
            ReconnectInterval=1
            StartTime=00:00:00
            EndTime=00:00:00
            UseDataDictionary=N
            BeginString=FIX.4.4
            TargetCompID=GW

            [SESSION]
            SenderCompID=C1
            """, "<test>");
        using var host = new FixEngineHost(settings, new EchoApp());
        host.Start();
        using Socket accepted = await listener.AcceptSocketAsync().WaitAsync(EngineTestSupport.Wait);
        Assert.Equal(IPAddress.Parse(local), ((IPEndPoint)accepted.RemoteEndPoint!).Address);
        host.Stop(TimeSpan.FromSeconds(1));
    }
}
