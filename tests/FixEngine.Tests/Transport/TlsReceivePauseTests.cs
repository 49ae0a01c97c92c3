using System;
using System.Linq;
using System.Threading;
using FixEngine.Tests.Infrastructure;
using FixEngine.Transport;

namespace FixEngine.Tests.Transport;

/// <summary>PauseReceive/ResumeReceive on TLS: a paused connection issues no SslStream read (so TCP flow control reaches
/// the peer), keeps what arrives in order and delivers it all on resume; a close while paused still tears down and returns
/// every pooled resource.</summary>
public sealed class TlsReceivePauseTests
{
    /// <summary>Long enough for a connection that (wrongly) kept reading to show it on loopback; not a timing assertion.</summary>
    private static readonly TimeSpan Settle = TimeSpan.FromMilliseconds(200);

    [Fact]
    public void APausedTlsConnectionReadsNothingUntilResumed()
    {
        using var loop = new TlsLoopback();
        var (ssl, _, server, handler) = loop.ConnectRaw();
        ssl.Write(FixMessages.Numbered(0));
        Assert.True(Loopback.Until(() => Volatile.Read(ref handler.MessageCount) == 1));

        // A read is already pending: the next message completes it, and then the loop stops before issuing another.
        server.PauseReceive();
        Assert.True(server.IsReceivePaused);
        ssl.Write(FixMessages.Numbered(1));
        Assert.True(Loopback.Until(() => server.IsReceiveParked), "the receive loop did not stop");
        long delivered = Volatile.Read(ref handler.MessageCount);
        long bytes = server.BytesReceived;
        Assert.InRange(delivered, 1, 2);

        // Parked: no read is outstanding, so these stay in the socket.
        for (int i = 2; i <= 4; i++) ssl.Write(FixMessages.Numbered(i));
        ssl.Flush();
        Assert.False(SpinWait.SpinUntil(() => server.BytesReceived != bytes, Settle), "a parked connection read from its socket");
        Assert.Equal(delivered, Volatile.Read(ref handler.MessageCount));
        Assert.True(server.IsReceiveParked);

        server.ResumeReceive();
        Assert.False(server.IsReceivePaused);
        Assert.True(Loopback.Until(() => Volatile.Read(ref handler.MessageCount) == 5), $"{handler.MessageCount} of 5");
        Assert.Equal(new long[] { 0, 1, 2, 3, 4 }, handler.Messages.Select(m => FixMessages.ReadSeq(m)));

        // And it keeps receiving.
        ssl.Write(FixMessages.Numbered(5));
        Assert.True(Loopback.Until(() => Volatile.Read(ref handler.MessageCount) == 6));
        ssl.Dispose();
        Assert.True(handler.Disconnected.Wait(Loopback.Wait));
        Assert.Equal(DisconnectReason.PeerClosed, handler.Reason);
        loop.AssertNoLeaks();
    }

    [Fact]
    public void APausedTlsConnectionHoldsBackAPeerThatKeepsSending()
    {
        // Small kernel buffers and send queue: what a paused receiver lets the peer write before it is held back is small.
        var options = new TcpConnectionOptions { ReceiveBufferSize = 64 * 1024, SendBufferSize = 64 * 1024, SendQueueBytes = 256 * 1024 };
        using var loop = new TlsLoopback(options);
        var checker = new SequenceCheckingHandler();
        loop.ServerHandlerFactory = () => new RecordingHandler(keepMessages: false) { OnMessageHook = (c, m) => checker.OnMessage(c, m) };
        var (client, _, server, _) = loop.Connect();
        server.PauseReceive();

        // Write until the peer's own send queue is full. A receiver that kept reading would take everything (100 MB
        // are allowed before giving up); a paused one stops TCP, then SslStream's writes, then the queue.
        const long Limit = 1_000_000;
        long seq = 0;
        while (seq < Limit)
        {
            int length = FixMessages.WriteNumbered(client.GetSendSpan(128), seq);
            SendResult result = client.Commit(length);
            if (result == SendResult.Backpressure)
            {
                if (server.IsReceiveParked && client.QueuedSendBytes > options.SendQueueBytes - 256) break;
                Thread.Yield();
                continue;
            }
            Assert.Equal(SendResult.Queued, result);
            seq++;
        }
        Assert.True(seq < Limit, $"the peer sent {seq} messages into a paused connection without being held back");
        long bytes = server.BytesReceived;
        Assert.False(SpinWait.SpinUntil(() => server.BytesReceived != bytes, Settle), "a parked connection read from its socket");
        // The read pending when the pause came completes once (at most the receive buffer's free space), then nothing.
        Assert.InRange(bytes, 0, options.InitialReceiveBufferBytes);

        server.ResumeReceive();
        Assert.True(Loopback.Until(() => Volatile.Read(ref checker.Expected) == seq), $"{checker.Expected} of {seq} delivered after resume");
        Assert.Equal(0, checker.OutOfOrder);
        Assert.True(Loopback.Until(() => client.QueuedSendBytes == 0));
        client.Close();
        Assert.True(Loopback.Until(() => server.IsClosed && client.IsClosed));
        loop.AssertNoLeaks();
    }

    [Fact]
    public void AResumeThatComesBeforeTheLoopStopsCancelsThePause()
    {
        using var loop = new TlsLoopback();
        var (ssl, _, server, handler) = loop.ConnectRaw();
        server.PauseReceive();
        server.ResumeReceive();
        Assert.False(server.IsReceivePaused);
        for (int i = 0; i < 3; i++) ssl.Write(FixMessages.Numbered(i));
        Assert.True(Loopback.Until(() => Volatile.Read(ref handler.MessageCount) == 3));
        Assert.False(server.IsReceiveParked);
        ssl.Dispose();
        Assert.True(handler.Disconnected.Wait(Loopback.Wait));
        loop.AssertNoLeaks();
    }

    [Fact]
    public void ClosingAParkedTlsConnectionTearsDownAndAResumeAfterwardsDoesNothing()
    {
        using var loop = new TlsLoopback();
        var (ssl, _, server, handler) = loop.ConnectRaw();
        // Once a message is delivered the loop is running with a read pending (a pause before the loop's first read
        // would park it at once, which is fine but not what this test is about).
        ssl.Write(FixMessages.Numbered(0));
        Assert.True(Loopback.Until(() => Volatile.Read(ref handler.MessageCount) == 1));
        server.PauseReceive();
        ssl.Write(FixMessages.Numbered(1));
        Assert.True(Loopback.Until(() => server.IsReceiveParked), "the receive loop did not stop");
        ssl.Write(FixMessages.Numbered(2));

        server.Close();
        Assert.True(handler.Disconnected.Wait(Loopback.Wait), "a parked connection did not tear down on close");
        Assert.True(server.IsClosed);
        Assert.True(handler.Reason == DisconnectReason.Local, $"{handler.Reason} {handler.Detail}");
        server.ResumeReceive();
        Assert.Equal(1, handler.DisconnectCount);
        Assert.Equal(2, Volatile.Read(ref handler.MessageCount));
        ssl.Dispose();
        loop.AssertNoLeaks();
    }

    [Fact]
    public void ClosingWhileAPauseIsRequestedButAReadIsPendingTearsDown()
    {
        using var loop = new TlsLoopback();
        var (ssl, _, server, handler) = loop.ConnectRaw();
        ssl.Write(FixMessages.Numbered(0));
        Assert.True(Loopback.Until(() => Volatile.Read(ref handler.MessageCount) == 1));
        server.PauseReceive();
        Assert.False(server.IsReceiveParked);
        server.Close();
        Assert.True(handler.Disconnected.Wait(Loopback.Wait), "closing aborted the pending read but the connection did not tear down");
        Assert.True(server.IsClosed);
        ssl.Dispose();
        loop.AssertNoLeaks();
    }
}
