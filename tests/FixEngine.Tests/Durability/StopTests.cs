using System;
using System.Collections.Concurrent;
using System.Linq;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Session;
using FixEngine.Tests.Engine;

namespace FixEngine.Tests.Durability;

/// <summary>A real engine whose initiator never reaches its counterparty: what the application handed over is stored by
/// Stop and confirmed one by one; nothing accepted vanishes.</summary>
public sealed class StopTests
{
    private sealed class Confirmations : IApplication
    {
        public readonly ConcurrentQueue<(long Token, int Seq)> Stored = new();
        public readonly ConcurrentQueue<long> NotStored = new();

        public void OnSendStored(FixSession session, long token, int msgSeqNum) => Stored.Enqueue((token, msgSeqNum));

        public void OnSendNotStored(FixSession session, long token, SendNotStoredReason reason) => NotStored.Enqueue(token);

        public FromAppResult FromApp(FixSession session, FixMessage message) => FromAppResult.Accepted;
    }

    [Fact]
    public void StopStoresEverythingHandedOverWhileTheCounterpartyIsUnreachable()
    {
        string dir = EngineTestSupport.TempDirectory("fixengine-stop-");
        using System.Net.Sockets.Socket closed = EngineTestSupport.ClosedPort(out int port); // nothing listens there
        try
        {
            string text = $"""
                [DEFAULT]
                ConnectionType=initiator
                NonStopSession=Y
                HeartBtInt=30
                ReconnectInterval=1
                UseDataDictionary=N
                ResetOnLogon=N
                FileStorePath={dir}
                SocketConnectHost=127.0.0.1
                SocketConnectPort={port}
                [SESSION]
                BeginString=FIX.4.4
                SenderCompID=CLIENT
                TargetCompID=EXEC
                """;
            var app = new Confirmations();
            using (var engine = new FixEngineHost(SettingsFile.Parse(text, "stop.cfg"), app))
            {
                engine.Start();
                FixSession session = engine.Sessions[0];
                for (long i = 0; i < 300; i++)
                {
                    Assert.True(session.TrySendFromAnyThread(MsgTypes.NewOrderSingle, i, i, static (ref FixWriter w, scoped in long id) =>
                    {
                        w.Write(FixTags.ClOrdID, id);
                        w.Write(FixTags.Symbol, "EURUSD"u8);
                    }));
                }
                Assert.Empty(app.Stored); // not logged on: accepted, waiting
                engine.Stop(TimeSpan.FromSeconds(10));

                Assert.Equal(Enumerable.Range(0, 300).Select(i => (long)i), app.Stored.Select(s => s.Token));
                Assert.Equal(Enumerable.Range(1, 300), app.Stored.Select(s => s.Seq));
                Assert.Empty(app.NotStored);
                Assert.Equal(0, session.HandedOverNotStoredCount);
                // Stopped: nothing more is accepted, so nothing can be dropped silently.
                Assert.False(session.TrySendFromAnyThread(MsgTypes.NewOrderSingle, 999, 0, static (ref FixWriter w, scoped in int _) => w.Write(FixTags.ClOrdID, 1)));
            }
            // The stored orders are in the journal for the next start (and for resends).
            var reopened = new FixEngine.Store.FileMessageStore(dir, SettingsFile.Parse(text, "stop.cfg")[0].SessionId.ToString(), 1);
            try
            {
                Assert.Equal(301, reopened.NextSenderMsgSeqNum);
            }
            finally
            {
                reopened.Dispose();
            }
        }
        finally
        {
            EngineTestSupport.DeleteDirectory(dir);
        }
    }

    [Fact]
    public void AnUnwritableStoreFolderIsTheDocumentedMessageStoreExceptionFromTheHost()
    {
        if (OperatingSystem.IsWindows()) return;
        // /proc refuses new folders even to root (a chmod'ed folder does not stop root).
        string text = $"""
            [DEFAULT]
            ConnectionType=initiator
            NonStopSession=Y
            HeartBtInt=30
            UseDataDictionary=N
            FileStorePath=/proc/fixengine-stop-{Guid.NewGuid():N}
            SocketConnectHost=127.0.0.1
            SocketConnectPort=1
            [SESSION]
            BeginString=FIX.4.4
            SenderCompID=CLIENT
            TargetCompID=EXEC
            """;
        FixEngine.Store.MessageStoreException error = Assert.Throws<FixEngine.Store.MessageStoreException>(
            () => new FixEngineHost(SettingsFile.Parse(text, "stop.cfg"), new Confirmations()));
        Assert.Equal(FixEngine.Store.MessageStoreOperation.Open, error.Operation);
        Assert.Contains("/proc/fixengine-stop-", error.Message);
    }
}
