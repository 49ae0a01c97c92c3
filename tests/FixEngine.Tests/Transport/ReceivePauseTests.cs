using System.Linq;
using System.Threading;
using FixEngine.Transport;

namespace FixEngine.Tests.Transport;

/// <summary>PauseReceive/ResumeReceive: inbound flow control. A paused connection reads nothing more from its socket (so
/// TCP flow control reaches the peer), keeps what arrives in order, and delivers it all on resume; a close while paused
/// still tears down and returns every pooled resource.</summary>
public sealed class ReceivePauseTests
{
    [Fact]
    public void APausedBusyPollConnectionReadsNothingUntilResumed()
    {
        using var loop = new Loopback(ReceiveMode.BusyPoll, startServerConnections: false);
        var (client, _, server, serverHandler) = loop.Connect();
        // The test thread is the server's only poller.
        Assert.Equal(SendResult.Sent, client.TrySend(FixMessages.Numbered(0)));
        Assert.True(Loopback.Until(() =>
        {
            server.Poll(0);
            return Volatile.Read(ref serverHandler.MessageCount) == 1;
        }));

        server.PauseReceive();
        Assert.True(server.IsReceivePaused);
        for (int i = 1; i <= 3; i++) Assert.Equal(SendResult.Sent, client.TrySend(FixMessages.Numbered(i)));
        for (int i = 0; i < 1_000; i++) server.Poll(0);
        Assert.Equal(1, Volatile.Read(ref serverHandler.MessageCount));
        Assert.Equal(0, server.BytesReceived - FixMessages.Numbered(0).Length);

        server.ResumeReceive();
        Assert.False(server.IsReceivePaused);
        Assert.True(Loopback.Until(() =>
        {
            server.Poll(0);
            return Volatile.Read(ref serverHandler.MessageCount) == 4;
        }));
        Assert.Equal(new long[] { 0, 1, 2, 3 }, serverHandler.Messages.Select(m => FixMessages.ReadSeq(m)));
        client.Close();
        server.Close();
        loop.AssertNoLeaks();
    }

    [Theory]
    [InlineData(ReceiveMode.Completion)]
    [InlineData(ReceiveMode.Dedicated)]
    public void APausedCompletionConnectionPostsNoReceiveUntilResumed(ReceiveMode mode)
    {
        using var loop = new Loopback(mode, startServerConnections: false);
        var (client, _, server, serverHandler) = loop.Connect();
        server.Start();
        Assert.Equal(SendResult.Sent, client.TrySend(FixMessages.Numbered(0)));
        Assert.True(Loopback.Until(() => Volatile.Read(ref serverHandler.MessageCount) == 1));

        // A receive is already posted: the next message completes it, and then the loop stops before posting another.
        server.PauseReceive();
        Assert.Equal(SendResult.Sent, client.TrySend(FixMessages.Numbered(1)));
        Assert.True(Loopback.Until(() => server.IsReceiveParked), "the receive loop did not stop");
        long delivered = Volatile.Read(ref serverHandler.MessageCount);
        Assert.InRange(delivered, 1, 2);

        // Parked: no receive is outstanding, so these stay in the socket.
        for (int i = 2; i <= 4; i++) Assert.Equal(SendResult.Sent, client.TrySend(FixMessages.Numbered(i)));
        Assert.Equal(delivered, Volatile.Read(ref serverHandler.MessageCount));
        Assert.True(server.IsReceiveParked);

        server.ResumeReceive();
        Assert.False(server.IsReceivePaused);
        Assert.True(Loopback.Until(() => Volatile.Read(ref serverHandler.MessageCount) == 5), $"{serverHandler.MessageCount} of 5");
        Assert.Equal(new long[] { 0, 1, 2, 3, 4 }, serverHandler.Messages.Select(m => FixMessages.ReadSeq(m)));

        // And it keeps receiving.
        Assert.Equal(SendResult.Sent, client.TrySend(FixMessages.Numbered(5)));
        Assert.True(Loopback.Until(() => Volatile.Read(ref serverHandler.MessageCount) == 6));
        client.Close();
        Assert.True(serverHandler.Disconnected.Wait(Loopback.Wait));
        loop.AssertNoLeaks();
    }

    [Theory]
    [InlineData(ReceiveMode.Completion)]
    [InlineData(ReceiveMode.Dedicated)]
    public void AResumeThatComesBeforeTheLoopStopsCancelsThePause(ReceiveMode mode)
    {
        using var loop = new Loopback(mode, startServerConnections: false);
        var (client, _, server, serverHandler) = loop.Connect();
        server.Start();
        server.PauseReceive();
        server.ResumeReceive();
        Assert.False(server.IsReceivePaused);
        for (int i = 0; i < 3; i++) Assert.Equal(SendResult.Sent, client.TrySend(FixMessages.Numbered(i)));
        Assert.True(Loopback.Until(() => Volatile.Read(ref serverHandler.MessageCount) == 3));
        client.Close();
        Assert.True(serverHandler.Disconnected.Wait(Loopback.Wait));
        loop.AssertNoLeaks();
    }

    [Theory]
    [InlineData(ReceiveMode.Completion)]
    [InlineData(ReceiveMode.Dedicated)]
    public void ClosingAParkedConnectionTearsDownAndAResumeAfterwardsDoesNothing(ReceiveMode mode)
    {
        using var loop = new Loopback(mode, startServerConnections: false);
        var (client, _, server, serverHandler) = loop.Connect();
        server.Start();
        server.PauseReceive();
        long sent = FixMessages.Numbered(0).Length;
        Assert.Equal(SendResult.Sent, client.TrySend(FixMessages.Numbered(0)));
        // Each wait's failure says the connection's state after it ran out, so a failure under load explains itself.
        bool parked = Loopback.Until(() => server.IsReceiveParked);
        Assert.True(parked, "the receive loop did not stop: " + loop.Describe(server, serverHandler, sent));

        server.Close();
        bool tornDown = serverHandler.Disconnected.Wait(Loopback.Wait);
        Assert.True(tornDown, "a parked connection did not tear down on close: " + loop.Describe(server, serverHandler, sent));
        Assert.True(server.IsClosed, loop.Describe(server, serverHandler, sent));
        server.ResumeReceive();
        Assert.Equal(1, serverHandler.DisconnectCount);
        client.Close();
        loop.AssertNoLeaks();
    }
}
