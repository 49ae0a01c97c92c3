using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using FixEngine.Transport;

namespace FixEngine.Tests.Transport;

/// <summary>Completion mode through the engine's reactor threads (ConnectionReactor, Linux): a close while the socket is
/// readable, many connections on one reactor, and a resume after a pause. Allocation: TcpAllocationTests.</summary>
public sealed class ConnectionReactorTests
{
    private static Loopback ReactorLoopback()
    {
        var loop = new Loopback(ReceiveMode.Completion, new TcpConnectionOptions { CompletionReactor = true }, startServerConnections: false);
        return loop;
    }

    [Fact]
    public void CompletionConnectionsOnLinuxUseAReactorAndTheSwitchTurnsItOff()
    {
        using (var loop = ReactorLoopback())
        {
            var (client, _, server, _) = loop.Connect();
            Assert.Equal(OperatingSystem.IsLinux(), server.UsesReactor);
            Assert.Equal(OperatingSystem.IsLinux(), client.UsesReactor);
            client.Close();
            server.Close();
            loop.AssertNoLeaks();
        }
        using (var loop = new Loopback(ReceiveMode.Completion, new TcpConnectionOptions { CompletionReactor = false }, startServerConnections: false))
        {
            var (client, _, server, _) = loop.Connect();
            Assert.False(server.UsesReactor);
            client.Close();
            server.Close();
            loop.AssertNoLeaks();
        }
    }

    [Theory]
    [InlineData(null, 2, 1)]
    [InlineData(null, 1, 1)]
    [InlineData(null, 8, 4)]
    [InlineData("2", 2, 2)]
    [InlineData("64", 2, 64)]
    [InlineData("0", 8, 4)]
    [InlineData("65", 8, 4)]
    [InlineData("-1", 2, 1)]
    [InlineData("two", 2, 1)]
    public void TheReactorCountIsHalfTheCoresUnlessAValidOverrideIsGiven(string? overrideValue, int processors, int expected)
    {
        Assert.Equal(expected, ConnectionReactor.ThreadCount(overrideValue, processors));
    }

    [Fact]
    public void AConnectionClosedWhileReadableIsNeverProcessedAfterTheClose()
    {
        if (!OperatingSystem.IsLinux()) return;
        using var loop = ReactorLoopback();
        // The blocker's handler holds the reactor thread, so the victim's readable event waits behind it.
        var (blockerClient, _, blocker, blockerHandler) = loop.Connect();
        var victims = new List<(TcpConnection Client, TcpConnection Server, RecordingHandler Handler)>();
        while (victims.Count == 0 || victims[^1].Server.Reactor != blocker.Reactor)
        {
            var (c, _, s, h) = loop.Connect();
            victims.Add((c, s, h));
            Assert.True(victims.Count <= 4 * ConnectionReactor.Count, "no connection landed on the blocker's reactor");
        }
        var (victimClient, victim, victimHandler) = victims[^1];
        using var inHandler = new ManualResetEventSlim();
        using var release = new ManualResetEventSlim();
        blockerHandler.OnMessageHook = (_, _) =>
        {
            inHandler.Set();
            release.Wait(Loopback.Wait);
        };
        long afterDisconnect = 0;
        victimHandler.OnMessageHook = (connection, _) =>
        {
            if (victimHandler.DisconnectCount != 0 || connection.IsClosing) Interlocked.Increment(ref afterDisconnect);
        };
        foreach (var v in victims) v.Server.Start();
        blocker.Start();

        Assert.Equal(SendResult.Sent, blockerClient.TrySend(FixMessages.Numbered(0)));
        Assert.True(inHandler.Wait(Loopback.Wait), "the blocker's message was not dispatched");
        // The reactor thread is inside the blocker's handler: the victim's bytes wait in its socket, readable.
        for (int i = 0; i < 5; i++) Assert.Equal(SendResult.Sent, victimClient.TrySend(FixMessages.Numbered(i)));
        Assert.True(Loopback.Until(() => victim.UnreadBytes > 0), "the victim's bytes did not arrive");

        victim.Close();
        // Its socket is still in the reactor's set (the membership holds an in-flight count): no teardown yet.
        Assert.True(victim.IsClosing);
        Assert.False(victim.IsClosed);
        Assert.Equal(0, victimHandler.DisconnectCount);

        release.Set();
        Assert.True(victimHandler.Disconnected.Wait(Loopback.Wait), "the closed connection was not torn down");
        Assert.Equal(0, Volatile.Read(ref victimHandler.MessageCount));
        Assert.Equal(0, Interlocked.Read(ref afterDisconnect));
        Assert.Equal(DisconnectReason.Local, victimHandler.Reason);
        Assert.Equal(1, victimHandler.DisconnectCount);

        // The reactor goes on serving the others.
        Assert.Equal(SendResult.Sent, blockerClient.TrySend(FixMessages.Numbered(1)));
        Assert.True(Loopback.Until(() => Volatile.Read(ref blockerHandler.MessageCount) == 2));
        foreach (var v in victims)
        {
            v.Client.Close();
            v.Server.Close();
        }
        blockerClient.Close();
        blocker.Close();
        loop.AssertNoLeaks();
    }

    [Fact]
    public void ManyConnectionsOnOneReactorEachGetTheirMessagesInOrder()
    {
        const int Connections = 40;
        const int PerConnection = 500;
        using var loop = ReactorLoopback();
        loop.ServerHandlerFactory = () => new SequenceCheckingHandler();
        var pairs = new List<(TcpConnection Client, TcpConnection Server)>();
        for (int i = 0; i < Connections; i++)
        {
            var (client, _, server, _) = ConnectChecked(loop);
            pairs.Add((client, server));
        }
        if (OperatingSystem.IsLinux())
        {
            // Every reactor serves several of them (round robin).
            Assert.All(pairs, p => Assert.NotNull(p.Server.Reactor));
            Assert.True(pairs.GroupBy(p => p.Server.Reactor).All(g => g.Count() >= Connections / ConnectionReactor.Count - 1));
        }
        foreach (var (_, server) in pairs) server.Start();

        // Interleaved: one message to each connection in turn, so every reactor pass sees many ready sockets.
        for (int seq = 0; seq < PerConnection; seq++)
        {
            foreach (var (client, _) in pairs)
            {
                int length = FixMessages.WriteNumbered(client.GetSendSpan(128), seq);
                while (client.Commit(length) == SendResult.Backpressure) Thread.Yield();
            }
        }
        foreach (var (client, server) in pairs)
        {
            var checker = (SequenceCheckingHandler)loop.HandlerOf(server);
            Assert.True(Loopback.Until(() => Volatile.Read(ref checker.Expected) == PerConnection), $"{server.Name}: {checker.Expected} of {PerConnection}");
            Assert.Equal(0, checker.OutOfOrder);
            Assert.Equal(0, checker.FrameErrors);
            Assert.Equal(0, checker.Disconnects);
        }
        foreach (var (client, server) in pairs)
        {
            client.Close();
            server.Close();
        }
        loop.AssertNoLeaks();
    }

    [Fact]
    public void AResumeDeliversWhatArrivedWhilePausedInOrder()
    {
        using var loop = ReactorLoopback();
        var (client, _, server, serverHandler) = loop.Connect();
        server.Start();
        Assert.Equal(SendResult.Sent, client.TrySend(FixMessages.Numbered(0)));
        Assert.True(Loopback.Until(() => Volatile.Read(ref serverHandler.MessageCount) == 1));

        server.PauseReceive();
        Assert.Equal(SendResult.Sent, client.TrySend(FixMessages.Numbered(1)));
        // The reactor applies the pause at the next event: it parks without reading.
        Assert.True(Loopback.Until(() => server.IsReceiveParked), "the reactor did not park the connection");
        for (int i = 2; i < 200; i++) Assert.Equal(SendResult.Sent, client.TrySend(FixMessages.Numbered(i)));
        Assert.True(Loopback.Until(() => server.UnreadBytes >= 199 * FixMessages.Numbered(1).Length), "the paused bytes did not arrive");
        long delivered = Volatile.Read(ref serverHandler.MessageCount);
        Assert.InRange(delivered, 1, 2);
        Thread.Sleep(20);
        Assert.Equal(delivered, Volatile.Read(ref serverHandler.MessageCount));

        // Paused and resumed twice more, with nothing new arriving in between: a resume that finds the bytes already
        // waiting delivers them (level triggering reports them at once).
        server.ResumeReceive();
        Assert.True(Loopback.Until(() => Volatile.Read(ref serverHandler.MessageCount) == 200), $"{serverHandler.MessageCount} of 200");
        Assert.Equal(Enumerable.Range(0, 200).Select(i => (long)i), serverHandler.Messages.Select(m => FixMessages.ReadSeq(m)));

        server.PauseReceive();
        server.ResumeReceive();
        Assert.Equal(SendResult.Sent, client.TrySend(FixMessages.Numbered(200)));
        Assert.True(Loopback.Until(() => Volatile.Read(ref serverHandler.MessageCount) == 201));
        client.Close();
        Assert.True(serverHandler.Disconnected.Wait(Loopback.Wait));
        Assert.Equal(DisconnectReason.PeerClosed, serverHandler.Reason);
        loop.AssertNoLeaks();
    }

    private static (TcpConnection Client, RecordingHandler ClientHandler, TcpConnection Server, IConnectionHandler ServerHandler) ConnectChecked(Loopback loop)
    {
        var clientHandler = new RecordingHandler(keepMessages: false);
        TcpConnection client = TcpConnector.Connect(loop.EndPoint, TimeSpan.FromSeconds(5), loop.Options, clientHandler);
        client.Start();
        TcpConnection server = loop.TakeAccepted();
        return (client, clientHandler, server, loop.HandlerOf(server));
    }
}
