using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Session;
using FixEngine.Store;

namespace FixEngine.Tests.Engine;

/// <summary>Issue #16: store and log factories through code, session lookup by SessionID and send-by-SessionID from any thread.</summary>
public sealed class SessionLookupAndFactoryTests
{
    private sealed class CountingStores : IMessageStoreFactory
    {
        public readonly List<(SessionId Id, MemoryMessageStore Store)> Made = [];

        public IMessageStore Create(SessionSettings settings, long epochNs)
        {
            var store = (MemoryMessageStore)MemoryMessageStoreFactory.Instance.Create(settings, epochNs);
            Made.Add((settings.SessionId, store));
            return store;
        }
    }

    private sealed class CountingLogs : ISessionLogFactory
    {
        public readonly List<SessionId> Asked = [];

        public ISessionLog? Create(SessionSettings settings)
        {
            Asked.Add(settings.SessionId);
            return null;
        }
    }

    [Fact]
    public void TheStoreAndLogFactoriesOfTheOptionsMakeEverySessionsStoreAndLog()
    {
        int port = 0;
        string dir = EngineTestSupport.TempDirectory("fe-factory-");
        try
        {
            // FileStorePath is set, but the memory factory given in code wins.
            var (acceptorSettings, _) = EngineTestSupport.ExecClientPair(
                $"[DEFAULT]\nNonStopSession=Y\nUseDataDictionary=N\nHeartBtInt=30\nResetOnLogon=Y\nFileStorePath={dir}\nFileLogPath={dir}", port);
            var (_, initiatorSettings) = EngineTestSupport.ExecClientPair("[DEFAULT]\nNonStopSession=Y\nUseDataDictionary=N\nHeartBtInt=30\nResetOnLogon=Y", port);
            var stores = new CountingStores();
            var logs = new CountingLogs();
            var app = new RecordingApp();
            using var acceptor = new FixEngineHost(acceptorSettings, app, new EngineOptions { MessageStoreFactory = stores, SessionLogFactory = logs });
            acceptor.Start();
            port = EngineTestSupport.PortOf(acceptor);
            initiatorSettings = EngineTestSupport.WithConnectPort(initiatorSettings, port);
            using var initiator = new FixEngineHost(initiatorSettings, new RecordingApp());
            initiator.Start();
            Assert.True(app.LoggedOn.Wait(EngineTestSupport.Wait));
            Assert.Equal([acceptor.Sessions[0].Id], logs.Asked);
            Assert.Single(stores.Made);
            Assert.Equal(acceptor.Sessions[0].Id, stores.Made[0].Id);
            // The session writes to the store the factory made: its Logon reply moved the sender number on.
            Assert.True(EngineTestSupport.WaitFor(() => stores.Made[0].Store.NextSenderMsgSeqNum > 1));
            Assert.False(System.IO.File.Exists(System.IO.Path.Combine(dir, "fixengine.log")), "no built-in log when a log factory is given");
            Assert.Empty(System.IO.Directory.Exists(dir) ? System.IO.Directory.GetFiles(dir) : []);
        }
        finally
        {
            EngineTestSupport.DeleteDirectory(dir);
        }
    }

    [Fact]
    public void SessionsAreFoundBySessionIdAndFourThreadsSendThroughTheEngine()
    {
        const int PerThread = 250;
        int port = 0;
        var (acceptorSettings, initiatorSettings) = EngineTestSupport.ExecClientPair(
            "[DEFAULT]\nNonStopSession=Y\nUseDataDictionary=N\nHeartBtInt=30\nResetOnLogon=Y", port);
        var acceptorApp = new RecordingApp();
        var initiatorApp = new RecordingApp();
        using var acceptor = new FixEngineHost(acceptorSettings, acceptorApp);
        acceptor.Start();
        port = EngineTestSupport.PortOf(acceptor);
        initiatorSettings = EngineTestSupport.WithConnectPort(initiatorSettings, port);
        using var initiator = new FixEngineHost(initiatorSettings, initiatorApp);
        initiator.Start();
        Assert.True(initiatorApp.LoggedOn.Wait(EngineTestSupport.Wait));

        var id = new SessionId("FIX.4.4", "CLIENT", "EXEC");
        Assert.True(initiator.TryGetSession(id, out FixSession? found));
        Assert.Same(initiator.Sessions[0], found);
        Assert.False(initiator.TryGetSession(new SessionId("FIX.4.4", "CLIENT", "NOBODY"), out _));
        Assert.Throws<ArgumentException>(() => initiator.TrySend(new SessionId("FIX.4.2", "X", "Y"), MsgTypes.NewOrderSingle, 0L, static (ref FixWriter w, scoped in long n) => w.Write(FixTags.ClOrdID, n)));

        Parallel.For(0, 4, new ParallelOptions { MaxDegreeOfParallelism = 4 }, t =>
        {
            for (long i = 0; i < PerThread; i++)
            {
                long clOrdId = t * 1_000_000L + i;
                while (!initiator.TrySend(id, MsgTypes.NewOrderSingle, clOrdId, static (ref FixWriter w, scoped in long n) =>
                {
                    w.Write(FixTags.ClOrdID, n);
                    w.Write(FixTags.Symbol, "EURUSD"u8);
                    w.Write(FixTags.Side, '1');
                    w.Write(FixTags.OrderQty, 100);
                    w.Write(FixTags.OrdType, '1');
                }))
                {
                    Thread.Yield();
                }
            }
        });
        Assert.True(EngineTestSupport.WaitFor(() => Interlocked.Read(ref acceptorApp.AppMessages) == 4 * PerThread), "all orders arrived: " + acceptorApp.AppMessages);
        acceptorApp.AssertClean();
    }
}
