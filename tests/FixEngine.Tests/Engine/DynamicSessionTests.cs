using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Net;
using System.Net.Sockets;
using System.Threading;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Session;
using static FixEngine.Tests.Engine.EngineTestSupport;

namespace FixEngine.Tests.Engine;

/// <summary>Issue #16: sessions added to and removed from a running engine (acceptors on an existing or a new port,
/// initiators), over real sockets.</summary>
public sealed class DynamicSessionTests
{
    internal const string Defaults = "[DEFAULT]\nNonStopSession=Y\nUseDataDictionary=N\nHeartBtInt=30\nResetOnLogon=Y\nLogoutTimeout=5\n";

    internal static SessionSettings AcceptorSession(int port, string client, string extra = "") => SettingsFile.Parse(
        Defaults + extra + $"\nConnectionType=acceptor\nSocketAcceptPort={port}\n[SESSION]\nBeginString=FIX.4.4\nSenderCompID=EXEC\nTargetCompID={client}\n", "acceptor.cfg")[0];

    internal static SessionSettings InitiatorSession(int port, string client, string extra = "") => SettingsFile.Parse(
        Defaults + extra + $"\nConnectionType=initiator\nSocketConnectHost=127.0.0.1\nSocketConnectPort={port}\nReconnectInterval=1\n" +
        $"[SESSION]\nBeginString=FIX.4.4\nSenderCompID={client}\nTargetCompID=EXEC\n", "initiator.cfg")[0];

    /// <summary>Fills orders of every session, each with its own count; counts logons and logouts per session.</summary>
    internal sealed class MultiApp : IApplication
    {
        public readonly ConcurrentDictionary<SessionId, int> Logons = new();
        public readonly ConcurrentDictionary<SessionId, int> Logouts = new();
        public readonly ConcurrentDictionary<SessionId, long> Orders = new();
        public readonly ConcurrentDictionary<SessionId, long> Fills = new();
        public readonly ConcurrentQueue<string> LogoutTexts = new();
        public Action<FixSession>? OnLogonHook;

        public int LogonsOf(SessionId id) => Logons.TryGetValue(id, out int n) ? n : 0;

        public int LogoutsOf(SessionId id) => Logouts.TryGetValue(id, out int n) ? n : 0;

        public long FillsOf(SessionId id) => Fills.TryGetValue(id, out long n) ? n : 0;

        public void OnLogon(FixSession session)
        {
            Logons.AddOrUpdate(session.Id, 1, (_, n) => n + 1);
            OnLogonHook?.Invoke(session);
        }

        public void OnLogout(FixSession session) => Logouts.AddOrUpdate(session.Id, 1, (_, n) => n + 1);

        public void FromAdmin(FixSession session, FixMessage message)
        {
            if (message.MsgType.SequenceEqual("5"u8) && message.TryGetSpan(FixTags.Text, out ReadOnlySpan<byte> text))
            {
                LogoutTexts.Enqueue(System.Text.Encoding.ASCII.GetString(text));
            }
        }

        public FromAppResult FromApp(FixSession session, FixMessage message)
        {
            if (message.MsgType.SequenceEqual(MsgTypes.NewOrderSingle))
            {
                Orders.AddOrUpdate(session.Id, 1, (_, n) => n + 1);
                session.Send(MsgTypes.ExecutionReport, message, static (ref FixWriter w, scoped in FixMessage o) =>
                {
                    o.TryGetSpan(FixTags.ClOrdID, out ReadOnlySpan<byte> clOrdId);
                    w.Write(FixTags.ClOrdID, clOrdId);
                    w.Write(FixTags.ExecType, 'F');
                    w.Write(FixTags.OrdStatus, '2');
                });
            }
            else if (message.MsgType.SequenceEqual(MsgTypes.ExecutionReport))
            {
                Fills.AddOrUpdate(session.Id, 1, (_, n) => n + 1);
            }
            return FromAppResult.Accepted;
        }
    }

    private static SessionId Id(string sender, string target) => new("FIX.4.4", sender, target);

    private static void Trade(FixSession session, MultiApp app, int orders)
    {
        long before = app.FillsOf(session.Id);
        for (int i = 0; i < orders; i++) SendOrder(session, i);
        Assert.True(WaitFor(() => app.FillsOf(session.Id) == before + orders), $"{app.FillsOf(session.Id) - before} of {orders} fills on {session.Id}");
    }

    [Fact]
    public void AnAcceptorSessionAddedOnARunningPortTakesItsLogonAndTrades()
    {
        int port = 0;
        var acceptorApp = new MultiApp();
        var lines = new ConcurrentQueue<string>();
        using var acceptor = new FixEngineHost([AcceptorSession(port, "CLIENT")], acceptorApp, new EngineOptions { Console = lines.Enqueue });
        acceptor.Start();
        port = EngineTestSupport.PortOf(acceptor);
        var clientApp = new MultiApp();
        using var client2 = new FixEngineHost([InitiatorSession(port, "CLIENT2")], clientApp);
        client2.Start();
        // Not configured yet: its Logons are refused.
        Assert.True(WaitFor(() => lines.Any(l => l.Contains("no session for FIX.4.4 CLIENT2->EXEC", StringComparison.Ordinal))), string.Join(" | ", lines));
        Assert.False(acceptor.TryGetSession(Id("EXEC", "CLIENT2"), out _));

        FixSession added = acceptor.AddSession(AcceptorSession(port, "CLIENT2"));
        Assert.Equal(Id("EXEC", "CLIENT2"), added.Id);
        Assert.True(acceptor.TryGetSession(added.Id, out FixSession? found));
        Assert.Same(added, found);
        Assert.Equal(2, acceptor.Sessions.Count);
        Assert.Contains(lines, l => l == "Session added: " + added.Id);
        Assert.True(WaitFor(() => clientApp.LogonsOf(Id("CLIENT2", "EXEC")) == 1), "the added session took the reconnecting initiator's Logon");
        Trade(client2.Sessions[0], clientApp, 100);
        Assert.Equal(100, acceptorApp.Orders[added.Id]);
        // Sending by SessionID reaches the added session too.
        Assert.True(acceptor.TrySend(added.Id, MsgTypes.NewOrderSingle, 7L, static (ref FixWriter w, scoped in long id) =>
        {
            w.Write(FixTags.ClOrdID, id);
            w.Write(FixTags.Symbol, "EURUSD"u8);
            w.Write(FixTags.Side, '1');
            w.Write(FixTags.OrderQty, 1);
            w.Write(FixTags.OrdType, '1');
        }));
        Assert.True(WaitFor(() => clientApp.Orders.TryGetValue(Id("CLIENT2", "EXEC"), out long n) && n == 1));
    }

    [Fact]
    public void AnAcceptorSessionOnANewPortListensAtOnce()
    {
        // The added session's port is known before it listens: held (SO_REUSEADDR, not listening) so nobody takes it.
        using System.Net.Sockets.Socket held = HeldPort(out int newPort);
        int port = 0;
        var acceptorApp = new MultiApp();
        using var acceptor = new FixEngineHost([AcceptorSession(port, "CLIENT")], acceptorApp);
        acceptor.Start();
        port = EngineTestSupport.PortOf(acceptor);
        Assert.Equal([port], acceptor.AcceptorPorts);
        acceptor.AddSession(AcceptorSession(newPort, "CLIENT3"));
        Assert.Equal(new[] { port, newPort }.Order().ToArray(), acceptor.AcceptorPorts.Order().ToArray());
        var clientApp = new MultiApp();
        using var client = new FixEngineHost([InitiatorSession(newPort, "CLIENT3")], clientApp);
        client.Start();
        Assert.True(WaitFor(() => clientApp.LogonsOf(Id("CLIENT3", "EXEC")) == 1));
        Trade(client.Sessions[0], clientApp, 50);
    }

    [Fact]
    public void AnInitiatorSessionAddedToARunningEngineConnectsAndTrades()
    {
        int port = 0;
        var acceptorApp = new MultiApp();
        using var acceptor = new FixEngineHost([AcceptorSession(port, "CLIENT")], acceptorApp);
        acceptor.Start();
        port = EngineTestSupport.PortOf(acceptor);
        // The initiator engine starts with an unrelated acceptor session only.
        var clientApp = new MultiApp();
        using var client = new FixEngineHost([AcceptorSession(0, "NOBODY")], clientApp);
        client.Start();
        FixSession added = client.AddSession(InitiatorSession(port, "CLIENT"));
        Assert.True(WaitFor(() => clientApp.LogonsOf(added.Id) == 1), "the added initiator connected and logged on");
        Assert.True(WaitFor(() => acceptorApp.LogonsOf(Id("EXEC", "CLIENT")) == 1));
        // Its messages are sent from another thread through the session's hand-off.
        Trade(added, clientApp, 100);
    }

    [Fact]
    public void RemovingAnAcceptorSessionLogsItOutClosesItsStoreAndRefusesItsLogonsUntilAddedAgain()
    {
        int port = 0;
        string store = TempDirectory("fe-dyn-store-");
        try
        {
            SessionSettings settings = AcceptorSession(port, "CLIENT", $"FileStorePath={store}\n");
            var acceptorApp = new MultiApp();
            var lines = new ConcurrentQueue<string>();
            using var acceptor = new FixEngineHost([AcceptorSession(port, "OTHER"), settings], acceptorApp, new EngineOptions { Console = lines.Enqueue });
            acceptor.Start();
            port = EngineTestSupport.PortOf(acceptor);
            var clientApp = new MultiApp();
            using var client = new FixEngineHost([InitiatorSession(port, "CLIENT")], clientApp);
            client.Start();
            SessionId id = settings.SessionId;
            Assert.True(WaitFor(() => acceptorApp.LogonsOf(id) == 1));
            Trade(client.Sessions[0], clientApp, 20);

            Assert.True(acceptor.RemoveSession(id));
            // An orderly logout: the initiator got a Logout saying why, and the acceptor's session saw the reply.
            Assert.Contains("Session removed", clientApp.LogoutTexts);
            Assert.Equal(1, acceptorApp.LogoutsOf(id));
            Assert.False(acceptor.TryGetSession(id, out _));
            Assert.Single(acceptor.Sessions);
            Assert.False(acceptor.RemoveSession(id), "already removed");
            Assert.Contains(lines, l => l == "Session removed: " + id);
            // The store is closed: its journal can be opened again at once (a held journal refuses a second open).
            using (var reopened = new FixEngine.Store.FileMessageStore(store, id.ToString(), 0)) Assert.True(reopened.NextSenderMsgSeqNum > 1);
            // The initiator reconnects, and is refused while the session is gone...
            Assert.True(WaitFor(() => lines.Count(l => l.Contains("no session for FIX.4.4 CLIENT->EXEC", StringComparison.Ordinal)) >= 1), string.Join(" | ", lines));
            Assert.Equal(1, acceptorApp.LogonsOf(id));
            // ...and logs on again once it is added back, on the same store.
            acceptor.AddSession(settings);
            Assert.True(WaitFor(() => acceptorApp.LogonsOf(id) == 2), string.Join(" | ", lines));
            Trade(client.Sessions[0], clientApp, 20);
        }
        finally
        {
            DeleteDirectory(store);
        }
    }

    [Fact]
    public void RemovingAnInitiatorSessionLogsOutAndStopsReconnecting()
    {
        int port = 0;
        var acceptorApp = new MultiApp();
        using var acceptor = new FixEngineHost([AcceptorSession(port, "CLIENT")], acceptorApp);
        acceptor.Start();
        port = EngineTestSupport.PortOf(acceptor);
        var clientApp = new MultiApp();
        using var client = new FixEngineHost([AcceptorSession(0, "NOBODY"), InitiatorSession(port, "CLIENT")], clientApp);
        client.Start();
        SessionId id = Id("CLIENT", "EXEC");
        Assert.True(WaitFor(() => acceptorApp.LogonsOf(Id("EXEC", "CLIENT")) == 1));
        // The client's own Logon too: removed before it has the acceptor's Logon reply, its session is not logged on yet
        // and only disconnects (no Logout to carry the text below).
        Assert.True(WaitFor(() => clientApp.LogonsOf(id) == 1), "the client did not log on");
        Assert.True(client.RemoveSession(id));
        Assert.True(WaitFor(() => acceptorApp.LogoutsOf(Id("EXEC", "CLIENT")) == 1), "the acceptor saw the Logout");
        Assert.Contains("Session removed", acceptorApp.LogoutTexts);
        // ReconnectInterval is 1 s: three seconds without a new Logon show it stopped connecting.
        Thread.Sleep(3000);
        Assert.Equal(1, acceptorApp.LogonsOf(Id("EXEC", "CLIENT")));
        Assert.False(client.TryGetSession(id, out _));
        Assert.Throws<ArgumentException>(() => client.TrySend(id, MsgTypes.NewOrderSingle, 0L, static (ref FixWriter w, scoped in long _) => { }));
    }

    [Fact]
    public void RemoveSessionInsideASessionCallbackIsRefusedWithAClearError()
    {
        int port = 0;
        var acceptorApp = new MultiApp();
        using var acceptor = new FixEngineHost([AcceptorSession(port, "CLIENT"), AcceptorSession(port, "OTHER")], acceptorApp);
        Exception? error = null;
        acceptorApp.OnLogonHook = _ =>
        {
            try
            {
                acceptor.RemoveSession(Id("EXEC", "OTHER"));
            }
            catch (Exception e)
            {
                error = e;
            }
        };
        acceptor.Start();
        port = EngineTestSupport.PortOf(acceptor);
        var clientApp = new MultiApp();
        using var client = new FixEngineHost([InitiatorSession(port, "CLIENT")], clientApp);
        client.Start();
        Assert.True(WaitFor(() => Volatile.Read(ref error) is not null));
        InvalidOperationException e = Assert.IsType<InvalidOperationException>(error);
        Assert.Contains("inside a callback of session FIX.4.4:EXEC->CLIENT", e.Message, StringComparison.Ordinal);
        Assert.True(acceptor.TryGetSession(Id("EXEC", "OTHER"), out _), "nothing was removed");
    }

    [Fact]
    public void AddingADuplicateOrADisagreeingSessionFailsPrecisely()
    {
        int port = 0;
        using var acceptor = new FixEngineHost([AcceptorSession(port, "CLIENT")], new MultiApp());
        acceptor.Start();
        ArgumentException duplicate = Assert.Throws<ArgumentException>(() => acceptor.AddSession(AcceptorSession(port, "CLIENT")));
        Assert.Contains("already runs session FIX.4.4:EXEC->CLIENT", duplicate.Message, StringComparison.Ordinal);
        ConfigException mode = Assert.Throws<ConfigException>(() => acceptor.AddSession(AcceptorSession(port, "CLIENT9", "ReceiveMode=BusyPoll\n")));
        Assert.Equal("ReceiveMode", mode.Key);
        Assert.Contains($"SocketAcceptPort {port}", mode.Message, StringComparison.Ordinal);
        ConfigException size = Assert.Throws<ConfigException>(() => acceptor.AddSession(AcceptorSession(port, "CLIENT9", "MaxMessageSize=2097152\n")));
        Assert.Equal("MaxMessageSize", size.Key);
        Assert.Single(acceptor.Sessions);
        acceptor.Stop(TimeSpan.FromSeconds(1));
        Assert.Throws<InvalidOperationException>(() => acceptor.AddSession(AcceptorSession(port, "CLIENT9")));
    }

    [Fact]
    public void SessionsAddedAndRemovedFromTwoThreadsWhileAnotherSessionTradesLeaveItUndisturbed()
    {
        const int Orders = 2000;
        int port = 0;
        var acceptorApp = new MultiApp();
        using var acceptor = new FixEngineHost([AcceptorSession(port, "CLIENT")], acceptorApp);
        acceptor.Start();
        port = EngineTestSupport.PortOf(acceptor);
        var clientApp = new MultiApp();
        using var client = new FixEngineHost([InitiatorSession(port, "CLIENT")], clientApp);
        client.Start();
        Assert.True(WaitFor(() => clientApp.LogonsOf(Id("CLIENT", "EXEC")) == 1));
        var errors = new ConcurrentQueue<Exception>();
        var churn = new Thread[2];
        for (int t = 0; t < churn.Length; t++)
        {
            int thread = t;
            churn[t] = new Thread(() =>
            {
                try
                {
                    for (int i = 0; i < 25; i++)
                    {
                        SessionSettings s = AcceptorSession(port, $"CHURN{thread}X{i}");
                        acceptor.AddSession(s);
                        Assert.True(acceptor.TryGetSession(s.SessionId, out _));
                        Assert.True(acceptor.RemoveSession(s.SessionId));
                    }
                }
                catch (Exception e)
                {
                    errors.Enqueue(e);
                }
            });
            churn[t].Start();
        }
        Trade(client.Sessions[0], clientApp, Orders);
        foreach (Thread t in churn) Assert.True(t.Join(Wait));
        Assert.Empty(errors);
        Assert.Single(acceptor.Sessions);
        Assert.Equal(Orders, acceptorApp.Orders[Id("EXEC", "CLIENT")]);
    }

    [Fact]
    public void LogonsOfManySessionsOnOnePortRoutedAtOnceEachReachTheirOwnSession()
    {
        // The router reads each first frame on its connection's own receiving thread, without a lock: sixteen initiators
        // connect at once, each must be bound to the acceptor session of its own CompIDs (a mix-up would log on the
        // wrong session, or none, and the per-session counts below would not match).
        const int Clients = 16;
        int port = 0;
        var acceptorApp = new MultiApp();
        var clients = Enumerable.Range(0, Clients).Select(i => $"ROUTE{i}").ToArray();
        using var acceptor = new FixEngineHost([.. clients.Select(c => AcceptorSession(port, c))], acceptorApp);
        acceptor.Start();
        port = EngineTestSupport.PortOf(acceptor);
        var clientApp = new MultiApp();
        using var initiators = new FixEngineHost([.. clients.Select(c => InitiatorSession(port, c))], clientApp);
        initiators.Start();
        Assert.True(WaitFor(() => clients.All(c => clientApp.LogonsOf(Id(c, "EXEC")) == 1)),
            $"{clients.Count(c => clientApp.LogonsOf(Id(c, "EXEC")) == 1)} of {Clients} logged on");
        for (int i = 0; i < Clients; i++)
        {
            FixSession session = initiators.Sessions.Single(s => s.Id == Id(clients[i], "EXEC"));
            for (int order = 0; order <= i; order++) SendOrder(session, order);
        }
        Assert.True(WaitFor(() => clients.Select((c, i) => clientApp.FillsOf(Id(c, "EXEC")) == i + 1).All(b => b)));
        for (int i = 0; i < Clients; i++)
        {
            Assert.Equal(1, acceptorApp.LogonsOf(Id("EXEC", clients[i])));
            Assert.Equal(i + 1, acceptorApp.Orders[Id("EXEC", clients[i])]);
        }
    }
}
