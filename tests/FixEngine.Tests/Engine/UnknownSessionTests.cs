using System;
using System.Collections.Concurrent;
using System.Linq;
using System.Net;
using System.Net.Sockets;
using System.Text;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Session;
using static FixEngine.Tests.Engine.DynamicSessionTests;
using static FixEngine.Tests.Engine.EngineTestSupport;

namespace FixEngine.Tests.Engine;

/// <summary>Issue #16: an acceptor takes Logons from CompIDs not configured in advance when its UnknownSessionHandler supplies
/// the session's settings, and refuses them (a Logout with the reason, a log line with the peer) otherwise. Real sockets.</summary>
public sealed class UnknownSessionTests
{
    private static string Now() => DateTime.UtcNow.ToString("yyyyMMdd-HH:mm:ss.fff", System.Globalization.CultureInfo.InvariantCulture);

    private static byte[] Logon(string client, string extra = "") =>
        Tests.Transport.FixMessages.Build("FIX.4.4", $"35=A|34=1|49={client}|56=EXEC|52={Now()}|98=0|108=30|141=Y|{extra}");

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

    private static Socket Connect(int port)
    {
        var s = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { ReceiveTimeout = 30_000 };
        s.Connect(IPAddress.Loopback, port);
        return s;
    }

    [Fact]
    public void ALogonFromUnknownCompIdsGetsTheSessionTheHandlerSuppliesAndTrades()
    {
        int port = 0;
        var asked = new ConcurrentQueue<UnknownLogon>();
        SessionSettings template = AcceptorSession(port, "TEMPLATE");
        var acceptorApp = new MultiApp();
        var lines = new ConcurrentQueue<string>();
        using var acceptor = new FixEngineHost([AcceptorSession(port, "CLIENT")], acceptorApp, new EngineOptions
        {
            Console = lines.Enqueue,
            UnknownSessionHandler = logon =>
            {
                asked.Enqueue(logon);
                return UnknownSessionDecision.Accept(template with { TargetCompID = logon.SessionId.TargetCompID, SocketAcceptPort = null });
            },
        });
        acceptor.Start();
        port = EngineTestSupport.PortOf(acceptor);
        var clientApp = new MultiApp();
        using var client = new FixEngineHost([InitiatorSession(port, "NEWCLIENT")], clientApp);
        client.Start();
        var id = new SessionId("FIX.4.4", "EXEC", "NEWCLIENT");
        Assert.True(WaitFor(() => clientApp.LogonsOf(new SessionId("FIX.4.4", "NEWCLIENT", "EXEC")) == 1), string.Join(" | ", lines));
        // The acceptor sends its Logon reply before its application hears of the logon (OnLogon runs after the send on the
        // acceptor's thread): the client can see the logon first, so wait for the acceptor's side too (a race under load).
        Assert.True(WaitFor(() => acceptorApp.LogonsOf(id) == 1), string.Join(" | ", lines));
        UnknownLogon first = Assert.Single(asked);
        Assert.Equal(id, first.SessionId);
        Assert.Equal(port, first.Port);
        Assert.Equal(IPAddress.Loopback, ((IPEndPoint)first.RemoteEndPoint!).Address.MapToIPv4());
        Assert.Equal("NEWCLIENT", first.Field(49));
        Assert.True(acceptor.TryGetSession(id, out FixSession? made));
        // Supplied without a port: it joins the listener as configured (SocketAcceptPort=0, the port the system picked).
        Assert.Equal(0, made.Settings.SocketAcceptPort);
        Assert.True(acceptor.TryGetAcceptorPort(id, out int madePort));
        Assert.Equal(port, madePort);
        Assert.Contains(lines, l => l.Contains("unknown session FIX.4.4:EXEC->NEWCLIENT created", StringComparison.Ordinal));
        for (int i = 0; i < 100; i++) SendOrder(client.Sessions[0], i);
        Assert.True(WaitFor(() => clientApp.FillsOf(new SessionId("FIX.4.4", "NEWCLIENT", "EXEC")) == 100));

        // The session stays: the next Logon (after a reconnect) is routed to it without asking again.
        client.Stop(TimeSpan.FromSeconds(10));
        Assert.True(WaitFor(() => acceptorApp.LogoutsOf(id) == 1));
        using var again = new FixEngineHost([InitiatorSession(port, "NEWCLIENT")], new MultiApp());
        again.Start();
        Assert.True(WaitFor(() => acceptorApp.LogonsOf(id) == 2));
        Assert.Single(asked);
    }

    [Fact]
    public void ARefusedLogonIsAnsweredWithALogoutGivingTheReasonAndLoggedWithThePeer()
    {
        int port = 0;
        var lines = new ConcurrentQueue<string>();
        using var acceptor = new FixEngineHost([AcceptorSession(port, "CLIENT")], new MultiApp(), new EngineOptions
        {
            Console = lines.Enqueue,
            UnknownSessionHandler = logon => logon.Password == "letmein"
                ? UnknownSessionDecision.Accept(AcceptorSession(port, logon.SessionId.TargetCompID))
                : UnknownSessionDecision.Refuse($"user {logon.Username} is not allowed"),
        });
        acceptor.Start();
        port = EngineTestSupport.PortOf(acceptor);

        using (Socket intruder = Connect(port))
        {
            intruder.Send(Logon("INTRUDER", "553=mallory|554=guess|"));
            string answer = ReadUntilClosed(intruder);
            Assert.StartsWith("8=FIX.4.4|", answer, StringComparison.Ordinal);
            Assert.Contains("|35=5|34=1|49=EXEC|56=INTRUDER|", answer, StringComparison.Ordinal);
            Assert.Contains("|58=user mallory is not allowed|", answer, StringComparison.Ordinal);
            string local = ((IPEndPoint)intruder.LocalEndPoint!).ToString();
            Assert.True(WaitFor(() => lines.Any(l => l.StartsWith("Refused ", StringComparison.Ordinal) && l.Contains(local.Split(':')[^1], StringComparison.Ordinal)
                && l.Contains("Logon for unknown session FIX.4.4:EXEC->INTRUDER refused: user mallory is not allowed", StringComparison.Ordinal))), string.Join(" | ", lines));
        }
        Assert.False(acceptor.TryGetSession(new SessionId("FIX.4.4", "EXEC", "INTRUDER"), out _));
        Assert.Single(acceptor.Sessions);

        // The right password creates the session and the Logon is answered with a Logon.
        using Socket friend = Connect(port);
        friend.Send(Logon("FRIEND", "553=alice|554=letmein|"));
        var buffer = new byte[4096];
        int n = friend.Receive(buffer);
        Assert.Contains("35=A", Encoding.ASCII.GetString(buffer, 0, n), StringComparison.Ordinal);
        Assert.True(acceptor.TryGetSession(new SessionId("FIX.4.4", "EXEC", "FRIEND"), out FixSession? friendSession));
        Assert.True(WaitFor(() => friendSession.IsLoggedOn));
    }

    [Fact]
    public void AHandlerThatThrowsOrSuppliesSettingsForAnotherSessionRefusesTheLogon()
    {
        int port = 0;
        var lines = new ConcurrentQueue<string>();
        using var acceptor = new FixEngineHost([AcceptorSession(port, "CLIENT")], new MultiApp(), new EngineOptions
        {
            Console = lines.Enqueue,
            UnknownSessionHandler = logon => logon.SessionId.TargetCompID == "BOOM"
                ? throw new InvalidOperationException("directory unavailable")
                : UnknownSessionDecision.Accept(AcceptorSession(port, "SOMEONE_ELSE")),
        });
        acceptor.Start();
        port = EngineTestSupport.PortOf(acceptor);
        using (Socket boom = Connect(port))
        {
            boom.Send(Logon("BOOM"));
            Assert.Contains("|58=the unknown-session handler failed: InvalidOperationException: directory unavailable|", ReadUntilClosed(boom), StringComparison.Ordinal);
        }
        using (Socket wrong = Connect(port))
        {
            wrong.Send(Logon("WRONG"));
            Assert.Contains("|58=the settings supplied for it are for FIX.4.4 EXEC->SOMEONE_ELSE, not FIX.4.4 EXEC->WRONG|", ReadUntilClosed(wrong), StringComparison.Ordinal);
        }
        Assert.Single(acceptor.Sessions);
        Assert.True(WaitFor(() => lines.Count(l => l.Contains("Logon for unknown session", StringComparison.Ordinal)) == 2), string.Join(" | ", lines));
    }

    [Fact]
    public void WithoutAHandlerAnUnknownLogonIsClosedAsBefore()
    {
        int port = 0;
        var lines = new ConcurrentQueue<string>();
        using var acceptor = new FixEngineHost([AcceptorSession(port, "CLIENT")], new MultiApp(), new EngineOptions { Console = lines.Enqueue });
        acceptor.Start();
        port = EngineTestSupport.PortOf(acceptor);
        using Socket s = Connect(port);
        s.Send(Logon("STRANGER"));
        Assert.Equal("", ReadUntilClosed(s));
        Assert.True(WaitFor(() => lines.Any(l => l.Contains("no session for FIX.4.4 STRANGER->EXEC", StringComparison.Ordinal))));
    }
}
