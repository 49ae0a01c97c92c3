using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.PostgreSQL;
using FixEngine.Session;
using FixEngine.Store;
using FixEngine.Tests.Infrastructure;
using static FixEngine.Tests.Engine.EngineTestSupport;

namespace FixEngine.Tests.Store;

/// <summary>Two real engines over TCP; the acceptor's PostgreSQL database goes away under a stream of orders and comes
/// back: under PostgreSQLStoreFailurePolicy=Hold the session holds without dropping the connection, and every order
/// ends up filled exactly once, with no unflagged duplicate at the counterparty.</summary>
public sealed class PostgresHoldEngineTests
{
    /// <summary>Fills each NewOrderSingle (its Send fails while the database is away: the order is then not consumed).</summary>
    private sealed class FillApp : IApplication
    {
        public int Held;
        public int Resumed;
        public int Failures;

        public void OnStoreHeld(FixSession session, MessageStoreException error) => Interlocked.Increment(ref Held);

        public void OnStoreResumed(FixSession session) => Interlocked.Increment(ref Resumed);

        public void OnStoreFailure(FixSession session, MessageStoreException error) => Interlocked.Increment(ref Failures);

        public FromAppResult FromApp(FixSession session, FixMessage message)
        {
            session.Send(MsgTypes.ExecutionReport, message, static (ref FixWriter w, scoped in FixMessage order) =>
            {
                order.TryGetSpan(FixTags.ClOrdID, out ReadOnlySpan<byte> id);
                w.Write(FixTags.ClOrdID, id);
                w.Write(FixTags.ExecType, 'F');
                w.Write(FixTags.OrdStatus, '2');
            });
            return FromAppResult.Accepted;
        }
    }

    /// <summary>Counts ExecutionReports per ClOrdID, and repeats without PossDupFlag=Y.</summary>
    private sealed class Counterparty : IApplication
    {
        private readonly object _sync = new();
        private readonly Dictionary<long, int> _reports = [];
        public int Logons;
        public int Unflagged;

        public void OnLogon(FixSession session) => Interlocked.Increment(ref Logons);

        public FromAppResult FromApp(FixSession session, FixMessage message)
        {
            message.TryGetLong(FixTags.ClOrdID, out long id);
            bool possDup = message.TryGetSpan(FixTags.PossDupFlag, out ReadOnlySpan<byte> flag) && flag.SequenceEqual("Y"u8);
            lock (_sync)
            {
                _reports.TryGetValue(id, out int count);
                _reports[id] = count + 1;
                if (count > 0 && !possDup) Unflagged++;
            }
            return FromAppResult.Accepted;
        }

        public int Filled
        {
            get
            {
                lock (_sync) return _reports.Count;
            }
        }

        public int[] Missing(int orders)
        {
            lock (_sync) return Enumerable.Range(0, orders).Where(i => !_reports.ContainsKey(i)).ToArray();
        }
    }

    [PostgresFact]
    public void AnAcceptorHoldsThroughADatabaseOutageAndFillsEveryOrderOnce()
    {
        using var db = new PostgresTestDatabase();
        int port = 0;
        var fill = new FillApp();
        var events = new System.Collections.Concurrent.ConcurrentQueue<string>();
        using var acceptor = new FixEngineHost(SettingsFile.Parse($"""
            [DEFAULT]
            ConnectionType=acceptor
            SocketAcceptPort={port}
            NonStopSession=Y
            UseDataDictionary=N
            IdleStrategy=Backoff
            PostgreSQLStoreConnectionString={db.ConnectionString}
            PostgreSQLStoreTablePrefix=fixengine_test_
            PostgreSQLStoreSync=PerMessage
            PostgreSQLStoreLeaseTimeout=30
            PostgreSQLStoreFailurePolicy=Hold
            [SESSION]
            BeginString=FIX.4.4
            SenderCompID=EXEC
            TargetCompID=CLIENT
            """, "acceptor"), fill, new EngineOptions { Console = events.Enqueue, MessageStoreFactory = PostgresMessageStoreFactory.Instance });
        acceptor.Start();
        port = PortOf(acceptor);
        var client = new Counterparty();
        using var initiator = new FixEngineHost(SettingsFile.Parse($"""
            [DEFAULT]
            ConnectionType=initiator
            SocketConnectHost=127.0.0.1
            SocketConnectPort={port}
            HeartBtInt=30
            ReconnectInterval=1
            NonStopSession=Y
            UseDataDictionary=N
            IdleStrategy=Backoff
            [SESSION]
            BeginString=FIX.4.4
            SenderCompID=CLIENT
            TargetCompID=EXEC
            """, "initiator"), client);
        initiator.Start();
        FixSession exec = acceptor.Sessions[0];
        FixSession orders = initiator.Sessions[0];
        Assert.True(WaitFor(() => orders.IsLoggedOn && Volatile.Read(ref client.Logons) == 1), "no logon: " + string.Join(" | ", events));

        for (int id = 0; id < 100; id++) SendOrder(orders, id);
        Assert.True(WaitFor(() => client.Filled == 100), "filled " + client.Filled + " of the first 100");

        db.Block();
        for (int id = 100; id < 150; id++) SendOrder(orders, id);
        Assert.True(WaitFor(() => exec.IsStoreHeld), "the acceptor did not hold");
        // The orders keep arriving while it holds; none is filled (an answer would need the database).
        Thread.Sleep(1000);
        Assert.True(client.Filled < 150);
        Assert.True(exec.IsStoreHeld);

        db.Unblock();
        Assert.True(WaitFor(() => client.Filled == 150, TimeSpan.FromSeconds(90)),
            "filled " + client.Filled + "; missing " + string.Join(",", client.Missing(150)));
        Assert.False(exec.IsStoreHeld);
        Assert.Equal(1, Volatile.Read(ref fill.Held));
        Assert.Equal(1, Volatile.Read(ref fill.Resumed));
        Assert.Equal(0, Volatile.Read(ref fill.Failures));
        Assert.Null(exec.StoreFailure);
        // The connection was kept throughout: one logon, and every order answered once.
        Assert.Equal(1, Volatile.Read(ref client.Logons));
        Assert.Equal(0, client.Unflagged);
        Assert.True(orders.IsLoggedOn);
    }
}
