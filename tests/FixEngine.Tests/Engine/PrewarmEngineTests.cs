using System;
using System.Collections.Generic;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Session;
using FixEngine.Transport;
using static FixEngine.Tests.Engine.EngineTestSupport;

namespace FixEngine.Tests.Engine;

/// <summary>The engine prewarms each connection when it is established (the initiator's connect, the acceptor's accept):
/// the first array of the transport's send queue (16 KiB) is rented before any back-pressure, so the first burst that
/// fills the socket allocates nothing for it (the transport allocation tests measure that). The queue grows on demand and
/// the session's send backlog is rented only when the queue is full (issue 35: no longer about 1.1 MiB up front).</summary>
public sealed class PrewarmEngineTests
{
    private static string Defaults(string receiveMode) => $"""
        [DEFAULT]
        NonStopSession=Y
        UseDataDictionary=N
        ResetOnLogon=Y
        HeartBtInt=30
        ReceiveMode={receiveMode}
        IdleStrategy=Yielding
        """;

    private static TcpConnection TransportOf(FixSession session) =>
        Assert.IsType<TcpConnection>(Assert.IsType<SessionConnection>(session.Connection).Transport);

    [Theory]
    [InlineData("BusyPoll", true)]
    [InlineData("Completion", true)]
    [InlineData("BusyPoll", false)]
    public void ConnectionsArePrewarmedWhenEstablished(string receiveMode, bool prewarm)
    {
        int port = 0;
        (IReadOnlyList<SessionSettings> acceptorSettings, IReadOnlyList<SessionSettings> initiatorSettings) = ExecClientPair(Defaults(receiveMode), port);
        var filler = new FillerApp();
        var client = new ClientApp();
        var options = new EngineOptions { PrewarmConnections = prewarm };
        using var acceptor = new FixEngineHost(acceptorSettings, filler, options);
        acceptor.Start();
        port = EngineTestSupport.PortOf(acceptor);
        initiatorSettings = EngineTestSupport.WithConnectPort(initiatorSettings, port);
        using var initiator = new FixEngineHost(initiatorSettings, client, options);
        initiator.Start();
        try
        {
            Assert.True(client.LoggedOn.Wait(Wait), "initiator did not log on");
            Assert.True(filler.LoggedOn.Wait(Wait), "acceptor did not log on");
            // Logon exchanged, nothing refused: only a prewarm can have rented these.
            foreach (FixSession session in new[] { client.Session!, filler.Session! })
            {
                Assert.Equal(0, session.SendBackpressureCount);
                Assert.Equal(prewarm, TransportOf(session).HasSendQueue);
                Assert.Equal(prewarm ? 16 * 1024 : 0, TransportOf(session).SendQueueArrayBytes);
                Assert.Equal(0, session.SendBacklogCapacityBytes);
            }
        }
        finally
        {
            initiator.Stop(TimeSpan.FromSeconds(5));
        }
    }
}
