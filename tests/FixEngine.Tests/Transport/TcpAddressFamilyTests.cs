using System.Linq;
using System.Net;
using System.Net.Sockets;
using FixEngine.Transport;
using Xunit.Abstractions;

namespace FixEngine.Tests.Transport;

public class TcpAddressFamilyTests
{
    private readonly ITestOutputHelper _output;

    public TcpAddressFamilyTests(ITestOutputHelper output) => _output = output;

    [Theory]
    [MemberData(nameof(TcpConnectionTests.Modes), MemberType = typeof(TcpConnectionTests))]
    public void MessagesFlowOverIPv6Loopback(ReceiveMode mode)
    {
        if (!Socket.OSSupportsIPv6)
        {
            _output.WriteLine("SKIPPED: IPv6 is not available on this machine (Socket.OSSupportsIPv6 is false).");
            return;
        }
        using var loop = new Loopback(mode, address: IPAddress.IPv6Loopback);
        Assert.Equal(AddressFamily.InterNetworkV6, loop.EndPoint.AddressFamily);
        var (client, clientHandler, _, serverHandler) = loop.Connect();
        Assert.Equal(IPAddress.IPv6Loopback, ((IPEndPoint)client.RemoteEndPoint!).Address);
        byte[] message = FixMessages.Numbered(42);
        Assert.Equal(SendResult.Sent, client.TrySend(message));
        Assert.True(Loopback.Until(() => serverHandler.Messages.Count == 1));
        Assert.Equal(message, serverHandler.Messages.Single());
        client.Close();
        Assert.True(serverHandler.Disconnected.Wait(Loopback.Wait));
        Assert.True(clientHandler.Disconnected.Wait(Loopback.Wait));
        loop.AssertNoLeaks();
    }

    [Fact]
    public void AnAcceptorOnIPv6AnyIsDualModeAndAcceptsIPv4()
    {
        if (!Socket.OSSupportsIPv6)
        {
            _output.WriteLine("SKIPPED: IPv6 is not available on this machine (Socket.OSSupportsIPv6 is false).");
            return;
        }
        using var loop = new Loopback(ReceiveMode.Completion, address: IPAddress.IPv6Any);
        var (client, clientHandler, _, serverHandler) = loop.Connect(new IPEndPoint(IPAddress.Loopback, loop.EndPoint.Port));
        Assert.Equal(SendResult.Sent, client.TrySend(FixMessages.Numbered(1)));
        Assert.True(Loopback.Until(() => serverHandler.Messages.Count == 1));
        client.Close();
        Assert.True(serverHandler.Disconnected.Wait(Loopback.Wait));
        loop.AssertNoLeaks();
    }
}
