using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Net;
using System.Net.Sockets;
using System.Text;
using FixEngine.Config;
using FixEngine.Engine;

namespace FixEngine.Tests.Engine;

/// <summary>Issue #14 item 1: before its Logon a connection may hold only a small buffer, and the unauthenticated
/// connections of a port are capped, in total and per source address, each refusal logged with the peer.</summary>
public sealed class PreLogonLimitTests
{
    private static IReadOnlyList<SessionSettings> Acceptor(int port, string extra) => SettingsFile.Parse(
        $"[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort={port}\nNonStopSession=Y\nUseDataDictionary=N\n{extra}" +
        "[SESSION]\nBeginString=FIX.4.4\nSenderCompID=EXEC\nTargetCompID=CLIENT\n", "acceptor.cfg");

    private static IReadOnlyList<SessionSettings> Initiator(string host, int port) => SettingsFile.Parse(
        $"[DEFAULT]\nConnectionType=initiator\nSocketConnectHost={host}\nSocketConnectPort={port}\nNonStopSession=Y\nUseDataDictionary=N\n" +
        "HeartBtInt=30\nReconnectInterval=1\nResetOnLogon=Y\n[SESSION]\nBeginString=FIX.4.4\nSenderCompID=CLIENT\nTargetCompID=EXEC\n", "initiator.cfg");

    private static Socket Connect(IPAddress address, int port)
    {
        var s = new Socket(address.AddressFamily, SocketType.Stream, ProtocolType.Tcp) { ReceiveTimeout = 30_000 };
        s.Connect(address, port);
        return s;
    }

    // The acceptor closed it: a read ends (FIN or reset) instead of timing out.
    private static bool ClosedByPeer(Socket s)
    {
        var buffer = new byte[4096];
        try
        {
            while (true)
            {
                if (s.Receive(buffer) == 0) return true;
            }
        }
        catch (SocketException e)
        {
            return e.SocketErrorCode != SocketError.TimedOut;
        }
    }

    private static int Count(ConcurrentQueue<string> lines, string part) => Array.FindAll(lines.ToArray(), l => l.Contains(part, StringComparison.Ordinal)).Length;

    [Fact]
    public void AHugeBodyLengthBeforeLogonIsCutAtThePreLogonLimitWhileAGoodClientTrades()
    {
        const int Attackers = 200;
        int port = 0;
        var lines = new ConcurrentQueue<string>();
        var filler = new FillerApp();
        var clientApp = new RecordingApp();
        using var acceptor = new FixEngineHost(Acceptor(port, "MaxUnauthenticatedConnectionsPerAddress=1000\n"), filler, new EngineOptions { Console = lines.Enqueue });
        acceptor.Start();
        port = EngineTestSupport.PortOf(acceptor);
        using var initiator = new FixEngineHost(Initiator("127.0.0.1", port), clientApp);
        initiator.Start();
        Assert.True(clientApp.LoggedOn.Wait(EngineTestSupport.Wait), "the good client logged on");

        byte[] header = Encoding.ASCII.GetBytes("8=FIX.4.4\u00019=1048476\u000135=A\u000134=1\u000149=CLIENT\u000156=EXEC\u0001");
        byte[] trickle = new byte[512];
        Array.Fill(trickle, (byte)'x');
        var attackers = new List<Socket>();
        try
        {
            for (int i = 0; i < Attackers; i++)
            {
                Socket s = Connect(IPAddress.Loopback, port);
                attackers.Add(s);
                s.Send(header);
                try
                {
                    s.Send(trickle);
                }
                catch (SocketException)
                {
                    // Already cut.
                }
            }
            for (int i = 0; i < 50; i++) EngineTestSupport.SendOrder(initiator.Sessions[0], i);
            foreach (Socket s in attackers) Assert.True(ClosedByPeer(s), "the acceptor cut the attacker");
            Assert.True(EngineTestSupport.WaitFor(() => Count(lines, "BodyLength 1048476") == Attackers),
                "one line per attacker naming the BodyLength: " + Count(lines, "BodyLength 1048476"));
            Assert.Contains(lines, l => l.Contains("closed before Logon: garbled data before Logon: BodyLength 1048476", StringComparison.Ordinal)
                && l.Contains("127.0.0.1", StringComparison.Ordinal));
            Assert.True(EngineTestSupport.WaitFor(() => System.Threading.Volatile.Read(ref filler.Orders) == 50), "the good client kept trading");
            Assert.True(acceptor.Sessions[0].IsLoggedOn);
        }
        finally
        {
            foreach (Socket s in attackers) s.Dispose();
        }
    }

    [Fact]
    public void AMessageUpToPreLogonMaxMessageSizeIsReadAndTheLimitIsLiftedAfterLogon()
    {
        int port = 0;
        var lines = new ConcurrentQueue<string>();
        var app = new RecordingApp();
        using var acceptor = new FixEngineHost(Acceptor(port, "PreLogonMaxMessageSize=300\n"), app, new EngineOptions { Console = lines.Enqueue });
        acceptor.Start();
        port = EngineTestSupport.PortOf(acceptor);
        // A Logon padded past 300 bytes is refused before Logon...
        using (Socket big = Connect(IPAddress.Loopback, port))
        {
            big.Send(Transport.FixMessages.Build("FIX.4.4", $"35=A|34=1|49=CLIENT|56=EXEC|52={EngineSettingsTests.Now()}|98=0|108=30|141=Y|58={new string('p', 400)}|"));
            Assert.True(ClosedByPeer(big));
        }
        Assert.True(EngineTestSupport.WaitFor(() => Count(lines, "exceeds the maximum") == 1), string.Join(" | ", lines));
        // ... a plain one is taken, and after it a 4 KB message passes (MaxMessageSize applies).
        using Socket client = Connect(IPAddress.Loopback, port);
        client.Send(EngineSettingsTests.Logon());
        Assert.True(EngineTestSupport.WaitFor(() => acceptor.Sessions[0].IsLoggedOn), "logged on");
        client.Send(Transport.FixMessages.Build("FIX.4.4", $"35=D|34=2|49=CLIENT|56=EXEC|52={EngineSettingsTests.Now()}|11=BIG|55=EURUSD|54=1|38=100|40=1|58={new string('q', 4000)}|60={EngineSettingsTests.Now()}|"));
        Assert.True(EngineTestSupport.WaitFor(() => System.Threading.Interlocked.Read(ref app.AppMessages) == 1), "the large order arrived after the Logon");
        Assert.Equal(1, Count(lines, "exceeds the maximum"));
    }

    [Fact]
    public void UnauthenticatedConnectionsAreCappedPerAddressAndPerPort()
    {
        int port = 0;
        var lines = new ConcurrentQueue<string>();
        var app = new RecordingApp();
        using var acceptor = new FixEngineHost(Acceptor(port, "MaxUnauthenticatedConnections=5\nMaxUnauthenticatedConnectionsPerAddress=3\nLogonTimeout=30\n"),
            app, new EngineOptions { Console = lines.Enqueue });
        acceptor.Start();
        port = EngineTestSupport.PortOf(acceptor);
        var silent = new List<Socket>();
        try
        {
            // Three silent IPv4 connections take the address's places; a fourth from it is refused.
            for (int i = 0; i < 3; i++) silent.Add(Connect(IPAddress.Loopback, port));
            Assert.True(EngineTestSupport.WaitFor(() => Count(lines, "Accepted connection") == 3));
            using (Socket fourth = Connect(IPAddress.Loopback, port)) Assert.True(ClosedByPeer(fourth), "the fourth from 127.0.0.1 was refused");
            Assert.Contains(lines, l => l.Contains("127.0.0.1", StringComparison.Ordinal) && l.Contains("MaxUnauthenticatedConnectionsPerAddress=3", StringComparison.Ordinal));

            // Two from ::1 fill the port (5); a third from ::1 is refused by the per-port cap.
            for (int i = 0; i < 2; i++) silent.Add(Connect(IPAddress.IPv6Loopback, port));
            Assert.True(EngineTestSupport.WaitFor(() => Count(lines, "Accepted connection") == 5));
            using (Socket sixth = Connect(IPAddress.IPv6Loopback, port)) Assert.True(ClosedByPeer(sixth), "the sixth on the port was refused");
            Assert.Contains(lines, l => l.Contains("::1", StringComparison.Ordinal) && l.Contains("MaxUnauthenticatedConnections=5", StringComparison.Ordinal));

            // The silent ones leave: their places come back and a client logs on.
            foreach (Socket s in silent) s.Dispose();
            silent.Clear();
            Assert.True(EngineTestSupport.WaitFor(() => Count(lines, "closed before Logon") == 5), string.Join(" | ", lines));
            using Socket client = Connect(IPAddress.Loopback, port);
            client.Send(EngineSettingsTests.Logon());
            Assert.True(EngineTestSupport.WaitFor(() => acceptor.Sessions[0].IsLoggedOn), "logged on once the places were given back");
        }
        finally
        {
            foreach (Socket s in silent) s.Dispose();
        }
    }

    /// <summary>Issue #35: a reconnect storm with the default limits. After a gateway restart all its clients connect at
    /// once, from a few NAT addresses (here all from 127.0.0.1), and only then send their Logons: every one of them
    /// logs on, none is refused. (With the former defaults, 64 per address, all but 64 were refused.)</summary>
    [Fact]
    public void AReconnectStormFromOneAddressLogsOnEveryClientWithTheDefaultLimits()
    {
        // Each client is a descriptor here and another in the acceptor (same process): stay under the open-files limit.
        int clients = Math.Min(1_200, (OpenFilesLimit() - 400) / 2);
        Assert.True(clients > 64 * 2, $"the open-files limit ({OpenFilesLimit()}) leaves room for only {clients} clients");
        var lines = new ConcurrentQueue<string>();
        var sessions = new StringBuilder();
        for (int i = 0; i < clients; i++) sessions.Append("[SESSION]\nTargetCompID=C").Append(i).Append('\n');
        IReadOnlyList<SessionSettings> settings = SettingsFile.Parse(
            $"[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=0\nNonStopSession=Y\nUseDataDictionary=N\nReceiveMode=Completion\n"
            + $"BeginString=FIX.4.4\nSenderCompID=EXEC\nStoreIndexCapacity=16\nMemoryStoreCapacityBytes=0\n{sessions}", "storm.cfg");
        using var acceptor = new FixEngineHost(settings, new RecordingApp(), new EngineOptions { Console = lines.Enqueue, PrewarmConnections = false });
        acceptor.Start();
        int port = EngineTestSupport.PortOf(acceptor);
        var sockets = new List<Socket>(clients);
        try
        {
            for (int i = 0; i < clients; i++) sockets.Add(Connect(IPAddress.Loopback, port));
            Assert.True(EngineTestSupport.WaitFor(() => Count(lines, "Accepted connection") + Count(lines, "refused before Logon") == clients, TimeSpan.FromSeconds(30)),
                $"{Count(lines, "Accepted connection")} accepted, {Count(lines, "refused before Logon")} refused of {clients}");
            Assert.Equal(0, Count(lines, "refused before Logon"));
            for (int i = 0; i < clients; i++) sockets[i].Send(Tests.Transport.FixMessages.Build("FIX.4.4", $"35=A|34=1|49=C{i}|56=EXEC|52={DateTime.UtcNow:yyyyMMdd-HH:mm:ss.fff}|98=0|108=30|141=Y|"));
            Assert.True(EngineTestSupport.WaitFor(() => LoggedOn(acceptor) == clients, TimeSpan.FromSeconds(60)), $"{LoggedOn(acceptor)} of {clients} logged on");
            Assert.Equal(0, Count(lines, "refused before Logon"));
        }
        finally
        {
            foreach (Socket s in sockets) s.Dispose();
        }
    }

    private static int LoggedOn(FixEngineHost host)
    {
        int n = 0;
        foreach (FixEngine.Session.FixSession s in host.Sessions) if (s.IsLoggedOn) n++;
        return n;
    }

    private static int OpenFilesLimit()
    {
        if (!System.IO.File.Exists("/proc/self/limits")) return 1_024;
        foreach (string line in System.IO.File.ReadLines("/proc/self/limits"))
        {
            if (!line.StartsWith("Max open files", StringComparison.Ordinal)) continue;
            string[] parts = line.Split(' ', StringSplitOptions.RemoveEmptyEntries);
            return int.TryParse(parts[3], out int soft) ? soft : 1_024;
        }
        return 1_024;
    }
}
