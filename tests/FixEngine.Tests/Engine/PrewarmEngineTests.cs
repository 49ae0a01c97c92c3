using System;
using System.Collections.Generic;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Session;
using FixEngine.Transport;
using static FixEngine.Tests.Engine.EngineTestSupport;

namespace FixEngine.Tests.Engine;

/// <summary>The engine prewarms each connection when it is established (the initiator's connect, the acceptor's accept):
/// the transport's send queue and the session's send backlog are rented before any back-pressure, so the first burst
/// that fills the transport allocates nothing for them (the transport and session allocation tests measure that).</summary>
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
                Assert.Equal(prewarm, session.SendBacklogCapacityBytes > 0);
            }
        }
        finally
        {
            initiator.Stop(TimeSpan.FromSeconds(5));
        }
    }
}
