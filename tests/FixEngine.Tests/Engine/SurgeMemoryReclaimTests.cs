using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Net;
using System.Net.Sockets;
using System.Text;
using System.Threading;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Tests.Infrastructure;
using FixEngine.Tests.Transport;
using FixEngine.Transport;

namespace FixEngine.Tests.Engine;

/// <summary>Issue #14 item 1, "RSS comes back after an attack": a pre-Logon connection's receive buffer goes back to its
/// pool when it closes, and once a surge of connections that closed before their Logon has ended the engine collects
/// (and trims the native heap) once, rate-limited.</summary>
public sealed class SurgeMemoryReclaimTests
{
    private const long Ms = 1_000_000L;

    [Fact]
    public void ASurgeOfClosesBeforeLogonStartsOneReclaimOnceItHasEnded()
    {
        var reclaim = new SurgeMemoryReclaim(10, new EngineConsole(null));
        long now = 5_000 * Ms;
        // Connections arrive and wait: nothing closed yet.
        Assert.False(reclaim.Observe(30, 0, now));
        // They close over 300 ms, a few per duty cycle.
        for (int i = 0; i < 10; i++)
        {
            now += 30 * Ms;
            Assert.False(reclaim.Observe(30 - 3 * (i + 1), 3, now));
        }
        long lastClose = now;
        Assert.False(reclaim.Observe(0, 0, lastClose + SurgeMemoryReclaim.SettleNs - 1), "not before the surge has been quiet for a second");
        Assert.True(reclaim.Observe(0, 0, lastClose + SurgeMemoryReclaim.SettleNs));
    }

    [Fact]
    public void ASurgeSmallerThanTheThresholdIsForgottenNotAddedToTheNextOne()
    {
        var reclaim = new SurgeMemoryReclaim(10, new EngineConsole(null));
        Assert.False(reclaim.Observe(0, 6, 0));
        Assert.False(reclaim.Observe(0, 0, SurgeMemoryReclaim.SettleNs));
        // A health check now and then must not add up to a reclaim.
        Assert.False(reclaim.Observe(0, 6, 10_000 * Ms));
        Assert.False(reclaim.Observe(0, 0, 10_000 * Ms + SurgeMemoryReclaim.SettleNs));
        Assert.False(reclaim.Observe(0, 0, 60_000 * Ms));
    }

    [Fact]
    public void NoReclaimWhileAsManyConnectionsStillWaitForTheirLogon()
    {
        var reclaim = new SurgeMemoryReclaim(10, new EngineConsole(null));
        Assert.False(reclaim.Observe(500, 20, 0));
        Assert.False(reclaim.Observe(500, 0, 2_000 * Ms), "their memory is in use");
        Assert.False(reclaim.Observe(10, 0, 3_000 * Ms));
        Assert.True(reclaim.Observe(9, 0, 4_000 * Ms));
    }

    [Fact]
    public void ReclaimsStartAtLeastTheMinimumIntervalApart()
    {
        var reclaim = new SurgeMemoryReclaim(10, new EngineConsole(null));
        Assert.False(reclaim.Observe(0, 10, 0));
        long first = SurgeMemoryReclaim.SettleNs;
        Assert.True(reclaim.Observe(0, 0, first));
        // A second surge ends 3 s later: it waits until 10 s after the first reclaim started, then runs.
        Assert.False(reclaim.Observe(0, 50, first + 2_000 * Ms));
        Assert.False(reclaim.Observe(0, 0, first + 3_000 * Ms));
        Assert.False(reclaim.Observe(0, 0, first + SurgeMemoryReclaim.MinIntervalNs - 1));
        Assert.True(reclaim.Observe(0, 0, first + SurgeMemoryReclaim.MinIntervalNs));
        Assert.False(reclaim.Observe(0, 0, first + 2 * SurgeMemoryReclaim.MinIntervalNs), "one surge, one reclaim");
    }

    [Fact]
    public void ZeroTurnsItOff()
    {
        var reclaim = new SurgeMemoryReclaim(0, new EngineConsole(null));
        Assert.False(reclaim.Observe(0, 100_000, 0));
        Assert.False(reclaim.Observe(0, 0, 60_000 * Ms));
    }

    [Fact]
    public void TheReclaimRunsAFullBlockingCollectionOffTheCallingThreadAndSaysWhatItDid()
    {
        var lines = new ConcurrentQueue<string>();
        var reclaim = new SurgeMemoryReclaim(10, new EngineConsole(lines.Enqueue));
        Assert.False(reclaim.Observe(0, 12, 0));
        Assert.True(reclaim.Observe(0, 0, SurgeMemoryReclaim.SettleNs));
        int fullBefore = GC.CollectionCount(GC.MaxGeneration);
        reclaim.Start();
        Assert.Equal(1, reclaim.Started);
        Assert.True(SpinWait.SpinUntil(() => reclaim.Completed == 1, EngineTestSupport.Wait), "the reclaim finished");
        Assert.True(GC.CollectionCount(GC.MaxGeneration) > fullBefore, "a full collection ran");
        string line = Assert.Single(lines);
        Assert.StartsWith("Reclaimed memory after a surge of 12 connections that closed without a Logon: GC committed ", line, StringComparison.Ordinal);
        Assert.Contains(" ms", line, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(ReceiveMode.Dedicated)]
    [InlineData(ReceiveMode.Completion)]
    [InlineData(ReceiveMode.BusyPoll)]
    public void APreLogonConnectionHoldsOnlyItsSmallBufferAndReturnsItWhenItCloses(ReceiveMode mode)
    {
        using var loop = new Loopback(mode, new TcpConnectionOptions { PreLogonMaxMessageBodyLength = 8192 });
        (Socket raw, TcpConnection server, RecordingHandler handler) = loop.ConnectRaw();
        // An attacker's Logon header declaring 8,000 body bytes, then 7,000 of them: held, incomplete.
        byte[] header = Encoding.ASCII.GetBytes("8=FIX.4.4\u00019=8000\u000135=A\u000134=1\u000149=CLIENT\u000156=EXEC\u0001");
        raw.Send(header);
        raw.Send(new byte[7000]);
        long sent = header.Length + 7000;
        Assert.True(Loopback.Until(() => server.BytesReceived == sent), loop.Describe(server, handler, sent));
        Assert.InRange(server.ReceiveBufferCapacity, 1, 8192 + TcpConnectionOptions.FrameOverheadBytes);
        Assert.True(loop.Pool.Outstanding >= 1);
        raw.Dispose();
        // The teardown returns the buffer, then tells the handler.
        Assert.True(Loopback.Until(() => handler.DisconnectCount == 1), loop.Describe(server, handler, sent));
        Assert.Equal(0, server.ReceiveBufferCapacity);
        Assert.Equal(DisconnectReason.PeerClosedMidMessage, server.DisconnectReason);
        loop.AssertNoLeaks();
    }

    [Fact]
    public void AfterASurgeOfConnectionsThatNeverLoggedOnTheEngineReclaimsOnceWhileAGoodClientTrades()
    {
        const int Attackers = 60;
        int port = 0;
        var lines = new ConcurrentQueue<string>();
        var filler = new FillerApp();
        var clientApp = new RecordingApp();
        IReadOnlyList<SessionSettings> acceptorSettings = SettingsFile.Parse(
            $"[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort={port}\nNonStopSession=Y\nUseDataDictionary=N\nMaxUnauthenticatedConnectionsPerAddress=1000\n" +
            "[SESSION]\nBeginString=FIX.4.4\nSenderCompID=EXEC\nTargetCompID=CLIENT\n", "acceptor.cfg");
        IReadOnlyList<SessionSettings> initiatorSettings = SettingsFile.Parse(
            $"[DEFAULT]\nConnectionType=initiator\nSocketConnectHost=127.0.0.1\nSocketConnectPort={(port == 0 ? 1 : port)}\nNonStopSession=Y\nUseDataDictionary=N\n" +
            "HeartBtInt=30\nReconnectInterval=1\nResetOnLogon=Y\n[SESSION]\nBeginString=FIX.4.4\nSenderCompID=CLIENT\nTargetCompID=EXEC\n", "initiator.cfg");
        using var acceptor = new FixEngineHost(acceptorSettings, filler, new EngineOptions { Console = lines.Enqueue, MemoryReclaimSurgeConnections = 50 });
        acceptor.Start();
        port = EngineTestSupport.PortOf(acceptor);
        initiatorSettings = EngineTestSupport.WithConnectPort(initiatorSettings, port);
        using var initiator = new FixEngineHost(initiatorSettings, clientApp);
        initiator.Start();
        Assert.True(clientApp.LoggedOn.Wait(EngineTestSupport.Wait), "the good client logged on");

        byte[] header = Encoding.ASCII.GetBytes("8=FIX.4.4\u00019=8000\u000135=A\u000134=1\u000149=CLIENT\u000156=EXEC\u0001");
        var attackers = new List<Socket>();
        try
        {
            for (int i = 0; i < Attackers; i++)
            {
                var s = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
                s.Connect(IPAddress.Loopback, port);
                s.Send(header);
                s.Send(new byte[2000]);
                attackers.Add(s);
            }
            for (int i = 0; i < 20; i++) EngineTestSupport.SendOrder(initiator.Sessions[0], i);
        }
        finally
        {
            foreach (Socket s in attackers) s.Dispose();
        }
        Assert.True(EngineTestSupport.WaitFor(() => Count(lines, "closed before Logon") == Attackers), "every attacker's close was logged: " + Count(lines, "closed before Logon"));
        Assert.True(EngineTestSupport.WaitFor(() => Count(lines, "Reclaimed memory after") == 1), string.Join(" | ", lines));
        Assert.Contains(lines, l => l.StartsWith($"Reclaimed memory after a surge of {Attackers} connections that closed without a Logon", StringComparison.Ordinal));
        for (int i = 20; i < 40; i++) EngineTestSupport.SendOrder(initiator.Sessions[0], i);
        Assert.True(EngineTestSupport.WaitFor(() => Volatile.Read(ref filler.Orders) == 40), "the good client kept trading");
        Assert.True(acceptor.Sessions[0].IsLoggedOn);
        Thread.Sleep(1500);
        Assert.Equal(1, Count(lines, "Reclaimed memory after"));
    }

    private static int Count(ConcurrentQueue<string> lines, string part) => Array.FindAll(lines.ToArray(), l => l.Contains(part, StringComparison.Ordinal)).Length;
}
