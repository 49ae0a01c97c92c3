using System;
using FixEngine.Transport;

namespace FixEngine.Tests.Transport;

/// <summary>The flushing close of the one connection lifecycle: <see cref="TransportConnection.CloseAfterFlush"/> lets the
/// queued bytes leave first and closes when they have, or when <see cref="TransportConnection.FlushTimeoutNs"/> of the
/// time given to <see cref="TransportConnection.Poll"/> has passed. The busy-poll client is never launched, so this test
/// is its only poller and drives its time.</summary>
public sealed class CloseAfterFlushTests
{
    private static readonly TcpConnectionOptions SmallBuffers = new() { SendQueueBytes = 64 * 1024, SendBufferSize = 4096, ReceiveBufferSize = 4096 };

    private static int FillUntilBackpressure(TcpConnection client)
    {
        int sent = 0;
        byte[] message = FixMessages.Numbered(1, size: 300);
        while (client.TrySend(message) is SendResult.Sent or SendResult.Queued) sent++;
        return sent;
    }

    [Fact]
    public void AFlushingCloseWaitsForThePeerUntilItsTimeIsUp()
    {
        using var loop = new Loopback(ReceiveMode.BusyPoll, SmallBuffers, startServerConnections: false);
        var clientHandler = new RecordingHandler();
        TcpConnection client = TcpConnector.Connect(loop.EndPoint, TimeSpan.FromSeconds(5), loop.Options, clientHandler);
        TcpConnection server = loop.TakeAccepted();
        FillUntilBackpressure(client);
        Assert.True(client.QueuedSendBytes > 0);

        client.CloseAfterFlush(DisconnectReason.Local, "logout sent");
        Assert.True(client.IsFlushing);
        Assert.False(client.IsClosing);

        // The first poll starts the clock; the server reads nothing, so only the deadline ends the flush.
        client.Poll(1_000);
        client.Poll(1_000 + TransportConnection.FlushTimeoutNs - 1);
        Assert.True(client.IsFlushing);
        Assert.Equal(1, client.Poll(1_000 + TransportConnection.FlushTimeoutNs));
        Assert.True(client.IsClosing);
        Assert.False(client.IsFlushing);
        Assert.True(client.IsClosed);
        Assert.Equal(DisconnectReason.Local, clientHandler.Reason);
        Assert.Equal("logout sent", clientHandler.Detail);
        server.Close();
        loop.AssertNoLeaks();
    }

    [Fact]
    public void AFlushingCloseSendsEveryQueuedByteThenCloses()
    {
        using var loop = new Loopback(ReceiveMode.BusyPoll, SmallBuffers, startServerConnections: false);
        var serverHandler = new RecordingHandler(keepMessages: false);
        loop.ServerHandlerFactory = () => serverHandler;
        var clientHandler = new RecordingHandler();
        TcpConnection client = TcpConnector.Connect(loop.EndPoint, TimeSpan.FromSeconds(5), loop.Options, clientHandler);
        TcpConnection server = loop.TakeAccepted();
        int sent = FillUntilBackpressure(client);

        client.CloseAfterFlush(DisconnectReason.Local, "logout sent");
        loop.Launch(server);
        // Time never advances: only an empty queue can end the flush.
        Assert.True(Loopback.Until(() =>
        {
            client.Poll(0);
            return client.IsClosing;
        }), "the flush did not finish");
        Assert.Equal(0, client.QueuedSendBytes);
        Assert.Equal("logout sent", clientHandler.Detail);
        // Every message taken before the close reached the peer, then its FIN.
        Assert.True(Loopback.Until(() => serverHandler.DisconnectCount == 1));
        Assert.Equal(sent, serverHandler.MessageCount);
        Assert.Equal(DisconnectReason.PeerClosed, serverHandler.Reason);
        loop.AssertNoLeaks();
    }

    [Fact]
    public void AFlushingCloseWithNothingQueuedClosesAtOnce()
    {
        using var loop = new Loopback(ReceiveMode.Completion);
        var (client, clientHandler, _, serverHandler) = loop.Connect();
        client.CloseAfterFlush(DisconnectReason.Local, "done");
        Assert.True(client.IsClosing);
        Assert.True(Loopback.Until(() => clientHandler.DisconnectCount == 1));
        Assert.Equal("done", clientHandler.Detail);
        Assert.True(Loopback.Until(() => serverHandler.DisconnectCount == 1));
        loop.AssertNoLeaks();
    }
}
