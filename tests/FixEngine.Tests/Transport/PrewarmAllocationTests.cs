using System;
using FixEngine.Tests.Infrastructure;
using FixEngine.Transport;

namespace FixEngine.Tests.Transport;

/// <summary>After <see cref="TransportConnection.Prewarm"/>, the first burst that fills the socket and then the send queue
/// (the first back-pressure after connecting) allocates nothing on the sending thread when the queue's first array is the
/// whole queue (<see cref="TcpConnectionOptions.InitialSendQueueBytes"/> = SendQueueBytes): it and, in completion mode,
/// the send event args were rented at connect. With the default 16 KiB first array the queue grows through
/// ArrayPool.Shared, which allocates when the pool holds no array of the next size on this thread or core (it depends on
/// what else ran in the process); growth is tested in TcpConnectionTests. Without Prewarm the first partial send rents the
/// queue.</summary>
/// <remarks>Completion mode: the first async send that has to wait for the socket allocates one small object inside the
/// runtime (measured 120 B on .NET 10 / Linux: SocketAsyncContext caches one send operation per socket, created the
/// first time a send pends); Prewarm cannot create it without a pending send. It happens once per socket: the next fill
/// allocates 0 B.</remarks>
[Collection(nameof(AllocationMeasurement))]
public sealed class PrewarmAllocationTests
{
    public static readonly TheoryData<ReceiveMode> Modes = new() { ReceiveMode.Completion, ReceiveMode.BusyPoll, ReceiveMode.Dedicated };

    /// <summary>A client that only sends (never started, so nothing else touches it) and the accepted server side (not
    /// started either: it reads nothing).</summary>
    private static (TcpConnection Client, TcpConnection Server) Connect(Loopback loop)
    {
        TcpConnection client = TcpConnector.Connect(loop.EndPoint, TimeSpan.FromSeconds(5), loop.Options, new RecordingHandler());
        return (client, loop.TakeAccepted());
    }

    /// <summary>Sends <paramref name="message"/> until the connection answers Backpressure; returns the bytes this thread
    /// allocated meanwhile.</summary>
    private static long FillUntilBackpressure(TcpConnection client, byte[] message, out int sent)
    {
        sent = 0;
        long before = GC.GetAllocatedBytesForCurrentThread();
        SendResult result;
        while ((result = client.TrySend(message)) is SendResult.Sent or SendResult.Queued)
        {
            sent++;
        }
        long allocated = GC.GetAllocatedBytesForCurrentThread() - before;
        Assert.Equal(SendResult.Backpressure, result);
        return allocated;
    }

    [Theory]
    [MemberData(nameof(Modes))]
    public void TheFirstBackpressureAfterPrewarmAllocatesNothing(ReceiveMode mode)
    {
        var options = new TcpConnectionOptions
        {
            SendQueueBytes = 64 * 1024, InitialSendQueueBytes = 64 * 1024, SendBufferSize = 4096, ReceiveBufferSize = 4096,
        };
        using var loop = new Loopback(mode, options, startServerConnections: false);
        byte[] message = FixMessages.Numbered(1, size: 300);

        // A first connection runs the code once (JIT, first-use statics); its numbers are not measured.
        var (warmClient, warmServer) = Connect(loop);
        warmClient.Prewarm();
        FillUntilBackpressure(warmClient, message, out _);
        warmClient.Close();
        warmServer.Close();

        // The server never reads: the socket buffers fill, then the queue, then Backpressure.
        var (client, server) = Connect(loop);
        client.Prewarm();
        Assert.True(client.HasSendQueue);
        long allocated = FillUntilBackpressure(client, message, out int sent);
        Assert.True(sent > options.SendQueueBytes / message.Length, $"only {sent} messages before Backpressure");
        if (mode == ReceiveMode.BusyPoll)
        {
            Assert.Equal(0, allocated);
        }
        else
        {
            // Not the queue (rented whole at Prewarm) nor the event args: only the runtime's per-socket send operation (see remarks).
            Assert.True(allocated <= 256, $"{allocated} B allocated by the first fill");
            // The server reads everything; the completion-mode client drains its queue on its own; then a second fill.
            loop.Launch(server);
            Assert.True(Loopback.Until(() => client.QueuedSendBytes == 0), "the queue did not drain");
            Assert.Equal(0, FillUntilBackpressure(client, message, out _));
        }
        client.Close();
        server.Close();
        loop.AssertNoLeaks();
    }

    [Fact]
    public void WithoutPrewarmTheQueueIsRentedByTheFirstPartialSend()
    {
        var options = new TcpConnectionOptions { SendQueueBytes = 64 * 1024, SendBufferSize = 4096, ReceiveBufferSize = 4096 };
        using var loop = new Loopback(ReceiveMode.BusyPoll, options, startServerConnections: false);
        byte[] message = FixMessages.Numbered(1, size: 300);
        var (client, server) = Connect(loop);
        Assert.False(client.HasSendQueue);
        FillUntilBackpressure(client, message, out _);
        Assert.True(client.HasSendQueue);
        client.Close();
        server.Close();
        loop.AssertNoLeaks();
    }
}
