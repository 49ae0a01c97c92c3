using System.Linq;
using System.Net;
using System.Threading.Tasks;
using FixEngine.Config;

namespace FixEngine.Tests.Config;

public sealed class HostResolverTests
{
    private static SessionSettings Initiator(string host, string failover) => Assert.Single(SettingsFile.Parse($"""
        [SESSION]
        ConnectionType=initiator
        BeginString=FIX.4.4
        SenderCompID=A
        TargetCompID=B
        HeartBtInt=30
        NonStopSession=Y
        UseDataDictionary=N
        SocketConnectHost={host}
        SocketConnectPort=9000
        SocketConnectHost1=127.0.0.1
        SocketConnectPort1=9001
        SocketConnectHost2={failover}
        SocketConnectPort2=9002
        """, "initiator.cfg"));

    [Theory]
    [InlineData("127.0.0.1", "127.0.0.1")]
    [InlineData("::1", "::1")]
    [InlineData("[::1]", "::1")]
    [InlineData("fe80::1%1", "fe80::1%1")]
    public void AddressLiteralsAreTakenAsTheyAre(string host, string expected)
        => Assert.Equal(IPAddress.Parse(expected), Assert.Single(HostResolver.Resolve(host, null, "SocketConnectHost")));

    [Fact]
    public void HostNamesResolveToAllTheirAddressesInOrder()
    {
        IPAddress[] expected = Dns.GetHostAddresses("localhost").Distinct().ToArray();
        IPAddress[] resolved = HostResolver.Resolve("localhost", null, "SocketAcceptHost");
        Assert.Equal(expected, resolved);
        Assert.All(resolved, a => Assert.True(IPAddress.IsLoopback(a)));
    }

    [Fact]
    public async Task AnUnresolvableNameNamesTheFileLineAndKey()
    {
        SessionSettings s = Initiator("localhost", "no-such-host.invalid");
        Assert.Equal(new[] { "localhost", "127.0.0.1", "no-such-host.invalid" }, s.SocketConnectEndpoints.Select(e => e.Host).ToArray());
        Assert.NotEmpty(HostResolver.Resolve(s.SocketConnectEndpoints[0].Host, s, HostResolver.ConnectHostKey(0)));

        ConfigException e = Assert.Throws<ConfigException>(() => HostResolver.Resolve(s.SocketConnectEndpoints[2].Host, s, HostResolver.ConnectHostKey(2)));
        Assert.Equal(("initiator.cfg", 13, "SocketConnectHost2"), (e.FileName, e.LineNumber, e.Key));
        Assert.StartsWith("cannot resolve 'no-such-host.invalid': ", e.Reason);

        ConfigException async = await Assert.ThrowsAsync<ConfigException>(async () => await HostResolver.ResolveAsync("no-such-host.invalid", s, "SocketConnectHost2"));
        Assert.Equal(("initiator.cfg", 13, "SocketConnectHost2"), (async.FileName, async.LineNumber, async.Key));
    }

    [Fact]
    public void AcceptHostResolvesThroughTheSettings()
    {
        SessionSettings s = Assert.Single(SettingsFile.Parse("""
            [SESSION]
            ConnectionType=acceptor
            BeginString=FIX.4.4
            SenderCompID=A
            TargetCompID=B
            NonStopSession=Y
            UseDataDictionary=N
            SocketAcceptPort=5001
            SocketAcceptHost=localhost
            """, "acceptor.cfg"));
        Assert.All(HostResolver.ResolveAcceptHost(s), a => Assert.True(IPAddress.IsLoopback(a)));
        Assert.Empty(HostResolver.ResolveAcceptHost(s with { SocketAcceptHost = null }));
        ConfigException e = Assert.Throws<ConfigException>(() => HostResolver.ResolveAcceptHost(s with { SocketAcceptHost = "nowhere.invalid" }));
        Assert.Equal(("acceptor.cfg", 9, "SocketAcceptHost"), (e.FileName, e.LineNumber, e.Key));
    }

    [Theory]
    [InlineData("venue-1.example.com", true)]
    [InlineData("localhost", true)]
    [InlineData("10.1.2.3", true)]
    [InlineData("2001:db8::1", true)]
    [InlineData("bad host", false)]
    [InlineData("", false)]
    [InlineData("host:9000", false)]
    public void HostSyntax(string host, bool valid) => Assert.Equal(valid, HostResolver.IsHostSyntax(host));
}
