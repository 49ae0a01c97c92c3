using System;
using System.Collections.Generic;
using System.IO;
using System.Threading;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Session;
using static FixEngine.Tests.Engine.EngineTestSupport;

namespace FixEngine.Tests.Engine;

/// <summary>Warm standby through the engine: two acceptor engines share one FileStorePath in turn.</summary>
public sealed class StandbyEngineTests : IDisposable
{
    private readonly string _store = TempDirectory("fixengine-standby-");

    public void Dispose() => DeleteDirectory(_store);

    private IReadOnlyList<SessionSettings> Acceptor(int port, bool refreshOnLogon) => SettingsFile.Parse($"""
        [DEFAULT]
        ConnectionType=acceptor
        SocketAcceptPort={port}
        NonStopSession=Y
        UseDataDictionary=N
        IdleStrategy=Yielding
        FileStorePath={_store}
        RefreshOnLogon={(refreshOnLogon ? "Y" : "N")}
        [SESSION]
        BeginString=FIX.4.4
        SenderCompID=EXEC
        TargetCompID=CLIENT
        """, "acceptor");

    private static IReadOnlyList<SessionSettings> Initiator(int port) => SettingsFile.Parse($"""
        [DEFAULT]
        ConnectionType=initiator
        SocketConnectHost=127.0.0.1
        SocketConnectPort={port}
        HeartBtInt=30
        ReconnectInterval=1
        NonStopSession=Y
        UseDataDictionary=N
        IdleStrategy=Yielding
        [SESSION]
        BeginString=FIX.4.4
        SenderCompID=CLIENT
        TargetCompID=EXEC
        """, "initiator");

    [Fact]
    public void StandbyEngineWithRefreshOnLogonResumesThePrimarysSequenceNumbers()
    {
        // The standby binds the port the primary listened on once the primary is gone: a port known before the start.
        using System.Net.Sockets.Socket held = HeldPort(out int port);
        var primaryApp = new FillerApp();
        var standbyApp = new FillerApp();
        var client = new ClientApp();
        // The standby is built (its journal opened and loaded) before the primary has written anything.
        using var standby = new FixEngineHost(Acceptor(port, refreshOnLogon: true), standbyApp);
        Assert.Equal(1, standby.Sessions[0].NextSenderMsgSeqNum);
        var primary = new FixEngineHost(Acceptor(port, refreshOnLogon: true), primaryApp);
        primary.Start();
        using var initiator = new FixEngineHost(Initiator(port), client);
        initiator.Start();
        Assert.True(client.LoggedOn.Wait(Wait), "no logon to the primary");
        FixSession session = client.Session!;
        for (int i = 0; i < 20; i++) SendOrder(session, i);
        Assert.True(WaitFor(() => Volatile.Read(ref client.Fills) == 20), "the primary did not fill 20 orders");
        int primaryNextSender = primary.Sessions[0].NextSenderMsgSeqNum;
        Assert.Equal(22, primaryNextSender);

        // The primary goes away (it logs the session out on the way); the initiator keeps its numbers and reconnects.
        // Stop waits for the Logout handshake (Dispose alone allows 2 s, which a loaded 2-core test run can exceed: the
        // primary then stops before it has journaled the initiator's Logout reply, and the standby rightly asks for it).
        primary.Stop(Wait);
        primary.Dispose();
        Assert.True(WaitFor(() => !session.IsConnected), "the initiator did not notice the primary stop");
        int initiatorNextTarget = session.NextTargetMsgSeqNum;
        int initiatorNextSender = session.NextSenderMsgSeqNum;
        Assert.Equal(23, initiatorNextTarget);
        Assert.Equal(1, standby.Sessions[0].NextSenderMsgSeqNum);

        standby.Start();
        Assert.True(WaitFor(() => Volatile.Read(ref standbyApp.Logons) == 1 && session.IsLoggedOn), "no logon to the standby");
        FixSession standbySession = standby.Sessions[0];
        // Resumed where the primary left the journal: its Logon answer took the next number, the peer's Logon was expected.
        Assert.Equal(initiatorNextTarget + 1, standbySession.NextSenderMsgSeqNum);
        Assert.Equal(initiatorNextSender + 1, standbySession.NextTargetMsgSeqNum);
        for (int i = 20; i < 25; i++) SendOrder(session, i);
        Assert.True(WaitFor(() => Volatile.Read(ref client.Fills) == 25), "the standby did not fill the next orders");
        Assert.Empty(client.Problems);
        Assert.Equal(0, client.CountAdmin("2"));
        Assert.Equal(0, client.CountAdmin("4"));
        Assert.Equal(standbySession.NextSenderMsgSeqNum, session.NextTargetMsgSeqNum);
        Assert.Equal(session.NextSenderMsgSeqNum, standbySession.NextTargetMsgSeqNum);
    }

    [Fact]
    public void WithoutRefreshOnLogonTheJournalIsExclusiveSoASecondEngineCannotOpenIt()
    {
        int port = 0;
        using var first = new FixEngineHost(Acceptor(port, refreshOnLogon: false), new FillerApp());
        Assert.ThrowsAny<IOException>(() => new FixEngineHost(Acceptor(port, refreshOnLogon: false), new FillerApp()));
    }
}
