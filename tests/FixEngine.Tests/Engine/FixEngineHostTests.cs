using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using System.Threading;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Session;
using FixEngine.Tests.Session;

namespace FixEngine.Tests.Engine;

public sealed class FixEngineHostTests
{
    private sealed class CountingApp : IApplication
    {
        public int Logons;
        public int Fills;
        public bool Echo;

        public void OnLogon(FixEngine.Session.FixSession session) => Interlocked.Increment(ref Logons);

        public FromAppResult FromApp(FixEngine.Session.FixSession session, FixMessage message)
        {
            if (Echo && message.MsgType.SequenceEqual("D"u8))
            {
                Interlocked.Increment(ref Fills);
                session.Send("D"u8, message, static (ref FixWriter w, scoped in FixMessage m) => w.Write(11, m.TryGetSpan(11, out ReadOnlySpan<byte> v) ? v : default));
            }
            else
            {
                Interlocked.Increment(ref Fills);
            }
            return FromAppResult.Accepted;
        }
    }


    private static bool WaitFor(Func<bool> condition, TimeSpan timeout)
    {
        var sw = Stopwatch.StartNew();
        while (sw.Elapsed < timeout)
        {
            if (condition()) return true;
            Thread.Sleep(20);
        }
        return condition();
    }

    [Fact]
    public void InitiatorCyclesFailoverHostsReconnectsAndExchangesMessages()
    {
        // The initiator runs before the acceptor exists: both ports are known before, held (nothing listens on them yet).
        using System.Net.Sockets.Socket held = EngineTestSupport.HeldPort(out int acceptorPort);
        using System.Net.Sockets.Socket dead = EngineTestSupport.ClosedPort(out int deadPort);
        var acceptorSettings = new List<SessionSettings>
        {
            new() { ConnectionType = ConnectionType.Acceptor, BeginString = "FIX.4.4", SenderCompID = "EXEC", TargetCompID = "CLIENT", SocketAcceptPort = acceptorPort, NonStopSession = true, UseDataDictionary = false },
            new() { ConnectionType = ConnectionType.Acceptor, BeginString = "FIX.4.2", SenderCompID = "EXEC", TargetCompID = "OTHER", SocketAcceptPort = acceptorPort, NonStopSession = true, UseDataDictionary = false },
        };
        var initiatorSettings = new List<SessionSettings>
        {
            new()
            {
                ConnectionType = ConnectionType.Initiator, BeginString = "FIX.4.4", SenderCompID = "CLIENT", TargetCompID = "EXEC",
                SocketConnectHost = "127.0.0.1", SocketConnectPort = deadPort, SocketConnectFailovers = [new SocketEndpoint("127.0.0.1", acceptorPort)],
                HeartBtInt = 30, ReconnectInterval = 1, NonStopSession = true, UseDataDictionary = false, ResetOnLogon = true,
            },
        };
        var acceptorApp = new CountingApp { Echo = true };
        var initiatorApp = new CountingApp();
        using var initiator = new FixEngineHost(initiatorSettings, initiatorApp);
        initiator.Start();
        Thread.Sleep(1200);
        Assert.Equal(0, Volatile.Read(ref initiatorApp.Logons));
        using var acceptor = new FixEngineHost(acceptorSettings, acceptorApp);
        acceptor.Start();
        Assert.True(WaitFor(() => Volatile.Read(ref initiatorApp.Logons) == 1, TimeSpan.FromSeconds(15)), "initiator logged on through the failover host");
        // The acceptor sends its Logon reply before its own OnLogon runs, so the initiator can see it first.
        Assert.True(WaitFor(() => Volatile.Read(ref acceptorApp.Logons) == 1, TimeSpan.FromSeconds(5)), "acceptor saw the logon");

        FixEngine.Session.FixSession session = initiator.Sessions[0];
        for (int i = 0; i < 5; i++)
        {
            Assert.True(session.TrySendFromAnyThread("D"u8, i, static (ref FixWriter w, scoped in int n) => w.Write(11, n)));
        }
        Assert.True(WaitFor(() => Volatile.Read(ref initiatorApp.Fills) == 5, TimeSpan.FromSeconds(10)), "5 orders echoed back");
        Assert.Equal(5, Volatile.Read(ref acceptorApp.Fills));
        initiator.Stop(TimeSpan.FromSeconds(3));
        Assert.False(session.IsConnected, "initiator state " + session.State);
        Assert.True(WaitFor(() => !acceptor.Sessions[0].IsConnected, TimeSpan.FromSeconds(5)), "logout handshake closed the acceptor side: " + acceptor.Sessions[0].State);
    }
}
