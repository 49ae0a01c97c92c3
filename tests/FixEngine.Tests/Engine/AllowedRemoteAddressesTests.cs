using System;
using System.Collections.Concurrent;
using System.Linq;
using System.Net;
using System.Net.Sockets;
using System.Text;
using FixEngine.Config;
using FixEngine.Engine;
using static FixEngine.Tests.Engine.DynamicSessionTests;
using static FixEngine.Tests.Engine.EngineTestSupport;

namespace FixEngine.Tests.Engine;

/// <summary>Issue 33: AllowedRemoteAddresses (QuickFIX/J): an acceptor session takes a Logon only from the listed peer
/// addresses. A connection from an address no session on the port allows is closed when accepted, before a byte is read;
/// a Logon for a session from an address its list lacks is answered with a Logout naming the address and closed. Real
/// sockets from 127.0.0.1 and 127.0.0.2 (Linux routes all of 127/8 to lo).</summary>
public sealed class AllowedRemoteAddressesTests
{
    private static byte[] Logon(string client) =>
        Tests.Transport.FixMessages.Build("FIX.4.4", $"35=A|34=1|49={client}|56=EXEC|52={RawPeerMessages.Now()}|98=0|108=30|141=Y|");

    private static Socket ConnectFrom(string local, int port)
    {
        var s = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { ReceiveTimeout = 30_000 };
        s.Bind(new IPEndPoint(IPAddress.Parse(local), 0));
        s.Connect(IPAddress.Loopback, port);
        return s;
    }

    // Everything the acceptor sends until it closes the connection.
    private static string ReadUntilClosed(Socket s)
    {
        var received = new StringBuilder();
        var buffer = new byte[4096];
        try
        {
            int n;
            while ((n = s.Receive(buffer)) > 0) received.Append(Encoding.ASCII.GetString(buffer, 0, n));
        }
        catch (SocketException)
        {
        }
        return received.ToString().Replace('\u0001', '|');
    }

    [Fact]
    public void AConnectionFromAnAddressNoSessionAllowsIsClosedWhenAcceptedAndAListedOneLogsOn()
    {
        var lines = new ConcurrentQueue<string>();
        var app = new MultiApp();
        using var acceptor = new FixEngineHost([AcceptorSession(0, "CLIENT", "AllowedRemoteAddresses=127.0.0.1, 127.0.0.5\n")], app,
            new EngineOptions { Console = lines.Enqueue });
        acceptor.Start();
        int port = PortOf(acceptor);

        using (Socket stranger = ConnectFrom("127.0.0.2", port))
        {
            // Closed at once: the Logon the stranger would send is never read, and nothing is answered.
            Assert.Equal("", ReadUntilClosed(stranger));
        }
        Assert.True(WaitFor(() => lines.Any(l => l.Contains("127.0.0.2", StringComparison.Ordinal)
            && l.Contains($"refused at accept: 127.0.0.2 is in the AllowedRemoteAddresses of no session on port {port}", StringComparison.Ordinal))), string.Join(" | ", lines));

        using Socket client = ConnectFrom("127.0.0.1", port);
        client.Send(Logon("CLIENT"));
        var buffer = new byte[4096];
        int n = client.Receive(buffer);
        Assert.Contains("\u000135=A\u0001", Encoding.ASCII.GetString(buffer, 0, n), StringComparison.Ordinal);
        Assert.True(WaitFor(() => app.LogonsOf(new SessionId("FIX.4.4", "EXEC", "CLIENT")) == 1));
    }

    [Fact]
    public void ALogonFromAnAddressTheSessionDoesNotListIsAnsweredWithALogoutNamingTheAddress()
    {
        var lines = new ConcurrentQueue<string>();
        var app = new MultiApp();
        // Both addresses may connect to the port (each session lists one), but each session takes its own only.
        using var acceptor = new FixEngineHost(
            [AcceptorSession(0, "ONE", "AllowedRemoteAddresses=127.0.0.1\n"), AcceptorSession(0, "TWO", "AllowedRemoteAddresses=127.0.0.2\n")],
            app, new EngineOptions { Console = lines.Enqueue });
        acceptor.Start();
        int port = PortOf(acceptor);

        using (Socket wrong = ConnectFrom("127.0.0.2", port))
        {
            wrong.Send(Logon("ONE"));
            string answer = ReadUntilClosed(wrong);
            Assert.Contains("|35=5|34=1|49=EXEC|56=ONE|", answer, StringComparison.Ordinal);
            Assert.Contains("|58=Logon from 127.0.0.2 not allowed for this session|", answer, StringComparison.Ordinal);
        }
        Assert.True(WaitFor(() => lines.Any(l => l.StartsWith("Refused ", StringComparison.Ordinal)
            && l.Contains("Logon for FIX.4.4:EXEC->ONE refused: 127.0.0.2 is not in its AllowedRemoteAddresses", StringComparison.Ordinal))), string.Join(" | ", lines));
        Assert.Equal(0, app.LogonsOf(new SessionId("FIX.4.4", "EXEC", "ONE")));

        using Socket right = ConnectFrom("127.0.0.2", port);
        right.Send(Logon("TWO"));
        var buffer = new byte[4096];
        int n = right.Receive(buffer);
        Assert.Contains("\u000135=A\u0001", Encoding.ASCII.GetString(buffer, 0, n), StringComparison.Ordinal);
        Assert.True(WaitFor(() => app.LogonsOf(new SessionId("FIX.4.4", "EXEC", "TWO")) == 1));
    }

    [Fact]
    public void AHostNameStandsForEveryAddressItResolvesTo()
    {
        var app = new MultiApp();
        using var acceptor = new FixEngineHost([AcceptorSession(0, "CLIENT", "AllowedRemoteAddresses=localhost\n")], app);
        acceptor.Start();
        using Socket client = ConnectFrom("127.0.0.1", PortOf(acceptor));
        client.Send(Logon("CLIENT"));
        Assert.True(WaitFor(() => app.LogonsOf(new SessionId("FIX.4.4", "EXEC", "CLIENT")) == 1));
    }

    [Theory]
    [InlineData("ConnectionType=initiator\nSocketConnectHost=127.0.0.1\nSocketConnectPort=5000\nAllowedRemoteAddresses=127.0.0.1", 10, "AllowedRemoteAddresses", "applies to acceptors")]
    [InlineData("ConnectionType=acceptor\nSocketAcceptPort=5000\nAllowedRemoteAddresses=127.0.0.1,,127.0.0.2", 9, "AllowedRemoteAddresses", "has an empty entry")]
    [InlineData("ConnectionType=acceptor\nSocketAcceptPort=5000\nAllowedRemoteAddresses=bad host!", 9, "AllowedRemoteAddresses", "'bad host!' is not an IP address or a host name")]
    public void BadListsAreRefusedAtLoad(string lines, int line, string key, string reason)
    {
        ConfigException e = Assert.Throws<ConfigException>(() => SettingsFile.Parse(
            Defaults + lines + "\n[SESSION]\nBeginString=FIX.4.4\nSenderCompID=EXEC\nTargetCompID=C\n", "a.cfg"));
        Assert.Equal(key, e.Key);
        Assert.Equal(line, e.LineNumber);
        Assert.Contains(reason, e.Message, StringComparison.Ordinal);
    }
}
