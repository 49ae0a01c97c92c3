using System;
using System.Linq;
using System.Net;
using System.Net.Sockets;
using System.Text;
using System.Threading;
using FixEngine.Codec;
using FixEngine.Transport;

namespace FixEngine.Tests.Transport;

public class TcpConnectionTests
{
    public static readonly TheoryData<ReceiveMode> Modes = new() { ReceiveMode.Completion, ReceiveMode.BusyPoll, ReceiveMode.Dedicated };

    [Theory]
    [MemberData(nameof(Modes))]
    public void MessagesRoundTripThroughAnEchoServer(ReceiveMode mode)
    {
        using var loop = new Loopback(mode);
        loop.ServerHandlerFactory = () => new RecordingHandler { OnMessageHook = (c, m) => Assert.Equal(SendResult.Sent, c.TrySend(m)) };
        var (client, clientHandler, server, serverHandler) = loop.Connect();

        byte[][] sent = Enumerable.Range(1, 3).Select(i => FixMessages.Numbered(i, 100 * i)).ToArray();
        foreach (byte[] m in sent)
        {
            Span<byte> span = client.GetSendSpan(m.Length);
            m.CopyTo(span);
            Assert.Equal(SendResult.Sent, client.Commit(m.Length));
        }

        Assert.True(Loopback.Until(() => clientHandler.Messages.Count == 3));
        Assert.Equal(sent, clientHandler.Messages.ToArray());
        Assert.Equal(sent, serverHandler.Messages.ToArray());
        Assert.Equal(3, server.MessagesReceived);
        Assert.Equal(mode, client.ReceiveMode);

        client.Close();
        Assert.True(serverHandler.Disconnected.Wait(Loopback.Wait));
        Assert.True(clientHandler.Disconnected.Wait(Loopback.Wait));
        Assert.Equal(DisconnectReason.Local, clientHandler.Reason);
        Assert.Equal(DisconnectReason.PeerClosed, serverHandler.Reason);
        Assert.Equal(SendResult.Closed, client.TrySend(sent[0]));
        loop.AssertNoLeaks();
        Assert.Equal(1, clientHandler.DisconnectCount);
        Assert.Equal(1, serverHandler.DisconnectCount);
    }

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public void DedicatedModeDispatchesOnTheConnectionsOwnThreadWhichEndsWithTheConnection(bool closeLocally)
    {
        using var loop = new Loopback(ReceiveMode.Dedicated);
        var threads = new System.Collections.Concurrent.ConcurrentQueue<Thread>();
        loop.ServerHandlerFactory = () => new RecordingHandler { OnMessageHook = (c, m) => threads.Enqueue(Thread.CurrentThread) };
        var (client, _, server, serverHandler) = loop.Connect();
        for (int i = 0; i < 3; i++) Assert.Equal(SendResult.Sent, client.TrySend(FixMessages.Numbered(i)));
        Assert.True(Loopback.Until(() => Volatile.Read(ref serverHandler.MessageCount) == 3));

        // Every message ran on one thread: the connection's own, not a thread-pool worker.
        Thread receiver = Assert.Single(threads.Distinct());
        Assert.False(receiver.IsThreadPoolThread);
        Assert.Equal("fix-receive#" + server.Id, receiver.Name);

        // Idle, the thread sleeps in the kernel; a close from this thread (or the peer's) wakes it and it ends.
        if (closeLocally) server.Close();
        else client.Close();
        Assert.True(serverHandler.Disconnected.Wait(Loopback.Wait));
        Assert.Equal(closeLocally ? DisconnectReason.Local : DisconnectReason.PeerClosed, serverHandler.Reason);
        Assert.True(receiver.Join(Loopback.Wait), "the receive thread outlived its connection");
        client.Close();
        loop.AssertNoLeaks();
    }

    [Theory]
    [MemberData(nameof(Modes))]
    public void ManyMessagesInOneReadAreAllDelivered(ReceiveMode mode)
    {
        using var loop = new Loopback(mode);
        var (raw, server, handler) = loop.ConnectRaw();
        byte[] batch = Enumerable.Range(0, 200).SelectMany(i => FixMessages.Numbered(i)).ToArray();
        raw.Send(batch);
        Assert.True(Loopback.Until(() => handler.Messages.Count == 200), loop.Describe(server, handler, batch.Length));
        Assert.Equal(Enumerable.Range(0, 200).Select(i => (long)i), handler.Messages.Select(m => FixMessages.ReadSeq(m)));
        Assert.True(server.BytesReceived == batch.Length, loop.Describe(server, handler, batch.Length));
        raw.Dispose();
        Assert.True(handler.Disconnected.Wait(Loopback.Wait));
        loop.AssertNoLeaks();
    }

    [Theory]
    [MemberData(nameof(Modes))]
    public void BytesArrivingBeforeTheAcceptHandlerReturnsWaitForItsHandler(ReceiveMode mode)
    {
        // The accept handler hands the connection to its receiving thread (poller or Start) and only then returns the
        // handler. Data the peer sends in between must wait for the handler, not reach a connection without one.
        using var sent = new ManualResetEventSlim(false);
        using var loop = new Loopback(mode);
        loop.BeforeAcceptReturns = connection =>
        {
            sent.Wait(Loopback.Wait);
            // Bounded: long enough for the poller or the pending receive to see the bytes if it were allowed to.
            SpinWait.SpinUntil(() => connection.BytesReceived > 0 || connection.IsClosing, TimeSpan.FromMilliseconds(200));
        };
        var (raw, server, handler) = loop.ConnectRaw();
        byte[] batch = Enumerable.Range(0, 3).SelectMany(i => FixMessages.Numbered(i)).ToArray();
        raw.Send(batch);
        sent.Set();
        Assert.True(Loopback.Until(() => handler.Messages.Count == 3 || server.IsClosing), loop.Describe(server, handler, batch.Length));
        Assert.False(server.IsClosing, loop.Describe(server, handler, batch.Length));
        Assert.Equal(new long[] { 0, 1, 2 }, handler.Messages.Select(m => FixMessages.ReadSeq(m)));
        raw.Dispose();
        Assert.True(handler.Disconnected.Wait(Loopback.Wait), loop.Describe(server, handler, batch.Length));
        Assert.Equal(DisconnectReason.PeerClosed, handler.Reason);
        loop.AssertNoLeaks();
    }

    [Theory]
    [MemberData(nameof(Modes))]
    public void AMessageSplitAtEveryByteIsReassembled(ReceiveMode mode)
    {
        using var loop = new Loopback(mode);
        var (raw, server, handler) = loop.ConnectRaw();
        byte[] stream = FixMessages.Numbered(1).Concat(FixMessages.Numbered(2)).ToArray();
        for (int i = 0; i < stream.Length; i++)
        {
            raw.Send(stream, i, 1, SocketFlags.None);
            // Wait until the server has read this byte, so every byte arrives in its own read.
            Assert.True(Loopback.Until(() => server.BytesReceived == i + 1), $"byte {i} not received");
        }
        Assert.True(Loopback.Until(() => handler.Messages.Count == 2));
        Assert.Equal(new long[] { 1, 2 }, handler.Messages.Select(m => FixMessages.ReadSeq(m)));
        Assert.Empty(handler.Errors);
        raw.Dispose();
        Assert.True(handler.Disconnected.Wait(Loopback.Wait));
        Assert.Equal(DisconnectReason.PeerClosed, handler.Reason);
        loop.AssertNoLeaks();
    }

    [Theory]
    [MemberData(nameof(Modes))]
    public void GarbageBetweenMessagesIsReportedAndSkipped(ReceiveMode mode)
    {
        using var loop = new Loopback(mode);
        var (raw, server, handler) = loop.ConnectRaw();
        byte[] garbage = Encoding.ASCII.GetBytes("hello world");
        byte[] badCheckSum = FixMessages.Numbered(99);
        badCheckSum[^3] = (byte)(badCheckSum[^3] == '0' ? '1' : '0');
        byte[] stream = FixMessages.Numbered(1).Concat(garbage).Concat(FixMessages.Numbered(2)).Concat(badCheckSum).Concat(FixMessages.Numbered(3)).ToArray();
        raw.Send(stream);
        Assert.True(Loopback.Until(() => handler.Messages.Count == 3));
        Assert.Equal(new long[] { 1, 2, 3 }, handler.Messages.Select(m => FixMessages.ReadSeq(m)));
        var errors = handler.Errors.ToArray();
        Assert.Equal(2, errors.Length);
        Assert.Equal((FrameStatus.Garbage, garbage.Length), (errors[0].Status, errors[0].Skipped));
        Assert.Equal((FrameStatus.CheckSumMismatch, badCheckSum.Length), (errors[1].Status, errors[1].Skipped));
        Assert.Equal(2, server.FrameErrors);
        Assert.False(server.IsClosing);
        raw.Dispose();
        Assert.True(handler.Disconnected.Wait(Loopback.Wait));
        loop.AssertNoLeaks();
    }

    [Theory]
    [MemberData(nameof(Modes))]
    public void TooMuchConsecutiveGarbageDisconnectsWithReason(ReceiveMode mode)
    {
        using var loop = new Loopback(mode, new TcpConnectionOptions { MaxConsecutiveGarbageBytes = 4096, MaxConsecutiveFrameErrors = 1000 });
        var (raw, server, handler) = loop.ConnectRaw();
        raw.Send(FixMessages.Numbered(1));
        byte[] junk = Enumerable.Repeat((byte)'z', 1000).ToArray();
        for (int i = 0; i < 10 && !handler.Disconnected.IsSet; i++)
        {
            try { raw.Send(junk); } catch (SocketException) { break; }
            Loopback.Until(() => server.BytesReceived >= FixMessages.Numbered(1).Length + (i + 1) * 1000L || server.IsClosing);
        }
        Assert.True(handler.Disconnected.Wait(Loopback.Wait));
        Assert.Equal(DisconnectReason.Garbage, handler.Reason);
        Assert.Contains("too much garbage", handler.Detail);
        Assert.Single(handler.Messages);
        raw.Dispose();
        loop.AssertNoLeaks();
    }

    [Theory]
    [MemberData(nameof(Modes))]
    public void AHugeBodyLengthIsRejectedAfterTheHeaderWithoutGrowingTheBuffer(ReceiveMode mode)
    {
        var options = new TcpConnectionOptions { InitialReceiveBufferBytes = 4096, MaxReceiveBufferBytes = 16384, MaxMessageBodyLength = 8192, MaxConsecutiveGarbageBytes = 1 << 20 };
        using var loop = new Loopback(mode, options);
        var (raw, server, handler) = loop.ConnectRaw();
        byte[] header = Encoding.ASCII.GetBytes("8=FIX.4.4\u00019=100000000\u000135=D\u0001");
        raw.Send(header);
        Assert.True(Loopback.Until(() => !handler.Errors.IsEmpty));
        Assert.Equal(FrameStatus.BodyLengthTooLarge, handler.Errors.First().Status);
        // The rest of the would-be body is skipped as garbage; the buffer never grows past its maximum.
        byte[] body = Enumerable.Repeat((byte)'a', 100_000).ToArray();
        raw.Send(body);
        raw.Send(FixMessages.Numbered(7));
        Assert.True(Loopback.Until(() => handler.Messages.Count == 1));
        Assert.Equal(7, FixMessages.ReadSeq(handler.Messages.Single()));
        Assert.All(handler.Errors, e => Assert.InRange(e.Capacity, 0, options.MaxReceiveBufferBytes));
        Assert.InRange(handler.MaxCapacitySeen, 0, options.MaxReceiveBufferBytes);
        Assert.Equal(4096, server.ReceiveBufferCapacity);
        raw.Dispose();
        Assert.True(handler.Disconnected.Wait(Loopback.Wait));
        loop.AssertNoLeaks();
    }

    [Theory]
    [MemberData(nameof(Modes))]
    public void ALargeMessageGrowsTheBufferUpToItsMaximumAndItShrinksBackAfterwards(ReceiveMode mode)
    {
        var options = new TcpConnectionOptions { InitialReceiveBufferBytes = 1024, MaxReceiveBufferBytes = 64 * 1024, MaxMessageBodyLength = 60_000 };
        using var loop = new Loopback(mode, options);
        var (raw, server, handler) = loop.ConnectRaw();
        byte[] big = FixMessages.Numbered(5, 50_000);
        raw.Send(big);
        raw.Send(FixMessages.Numbered(6));
        Assert.True(Loopback.Until(() => handler.Messages.Count == 2));
        Assert.Equal(big, handler.Messages.First());
        Assert.InRange(handler.MaxCapacitySeen, big.Length, options.MaxReceiveBufferBytes);
        // Both messages consumed: back to the initial size, the large array returned to the pool.
        Assert.True(Loopback.Until(() => server.ReceiveBufferCapacity == options.InitialReceiveBufferBytes), "shrunk: " + server.ReceiveBufferCapacity);
        raw.Dispose();
        Assert.True(handler.Disconnected.Wait(Loopback.Wait));
        loop.AssertNoLeaks();
    }

    [Theory]
    [MemberData(nameof(Modes))]
    public void PeerClosingMidMessageIsReportedOnceWithTheByteCount(ReceiveMode mode)
    {
        using var loop = new Loopback(mode);
        var (raw, server, handler) = loop.ConnectRaw();
        byte[] message = FixMessages.Numbered(1);
        raw.Send(message, 0, 30, SocketFlags.None);
        Assert.True(Loopback.Until(() => server.BytesReceived == 30));
        raw.Shutdown(SocketShutdown.Send);
        Assert.True(handler.Disconnected.Wait(Loopback.Wait));
        Assert.Equal(DisconnectReason.PeerClosedMidMessage, handler.Reason);
        Assert.Equal("peer closed mid-message: 30 bytes of an incomplete frame", handler.Detail);
        raw.Dispose();
        loop.AssertNoLeaks();
        Assert.Equal(1, handler.DisconnectCount);
        Assert.True(server.IsClosed);
    }

    [Theory]
    [MemberData(nameof(Modes))]
    public void AbortResetsThePeer(ReceiveMode mode)
    {
        using var loop = new Loopback(mode);
        var (client, clientHandler, server, serverHandler) = loop.Connect();
        Assert.Equal(SendResult.Sent, client.TrySend(FixMessages.Numbered(1)));
        Assert.True(Loopback.Until(() => serverHandler.Messages.Count == 1));
        client.Abort("test abort");
        Assert.True(clientHandler.Disconnected.Wait(Loopback.Wait));
        Assert.Equal(DisconnectReason.Aborted, clientHandler.Reason);
        Assert.Equal("test abort", clientHandler.Detail);
        Assert.True(serverHandler.Disconnected.Wait(Loopback.Wait));
        Assert.Equal(DisconnectReason.PeerReset, serverHandler.Reason);
        loop.AssertNoLeaks();
    }

    [Theory]
    [MemberData(nameof(Modes))]
    public void AThrowingHandlerIsCountedAndClosesTheConnectionWithTheException(ReceiveMode mode)
    {
        // Rule: a message whose OnMessage threw was received but failed: it counts in HandlerErrors, not MessagesReceived,
        // and the connection closes with HandlerError; no later message is delivered.
        using var loop = new Loopback(mode);
        int calls = 0;
        loop.ServerHandlerFactory = () => new RecordingHandler
        {
            OnMessageHook = (_, _) =>
            {
                if (Interlocked.Increment(ref calls) == 2) throw new InvalidOperationException("boom");
            },
        };
        var (raw, server, handler) = loop.ConnectRaw();
        raw.Send(FixMessages.Numbered(1).Concat(FixMessages.Numbered(2)).Concat(FixMessages.Numbered(3)).ToArray());
        Assert.True(handler.Disconnected.Wait(Loopback.Wait));
        Assert.Equal(DisconnectReason.HandlerError, handler.Reason);
        Assert.Equal("connection handler threw InvalidOperationException in OnMessage: boom", handler.Detail);
        Assert.Equal(1, server.MessagesReceived);
        Assert.Equal(1, server.HandlerErrors);
        Assert.Equal(2, Volatile.Read(ref calls));
        Assert.Equal(1, handler.DisconnectCount);
        raw.Dispose();
        loop.AssertNoLeaks();
    }

    [Theory]
    [MemberData(nameof(Modes))]
    public void AThrowingFrameErrorHandlerIsCountedAndClosesTheConnection(ReceiveMode mode)
    {
        using var loop = new Loopback(mode);
        loop.ServerHandlerFactory = () => new RecordingHandler { OnFrameErrorHook = (_, _) => throw new FormatException("bad frame") };
        var (raw, server, handler) = loop.ConnectRaw();
        raw.Send(FixMessages.Numbered(1).Concat(Encoding.ASCII.GetBytes("junk")).Concat(FixMessages.Numbered(2)).ToArray());
        Assert.True(handler.Disconnected.Wait(Loopback.Wait));
        Assert.Equal(DisconnectReason.HandlerError, handler.Reason);
        Assert.Equal("connection handler threw FormatException in OnFrameError: bad frame", handler.Detail);
        Assert.Equal(1, server.MessagesReceived);
        Assert.Equal(1, server.FrameErrors);
        Assert.Equal(1, server.HandlerErrors);
        Assert.Single(handler.Messages);
        raw.Dispose();
        loop.AssertNoLeaks();
    }

    [Fact]
    public void AThrowingDisconnectHandlerIsCountedAndDoesNotEscape()
    {
        using var loop = new Loopback(ReceiveMode.Completion);
        var (client, _, server, serverHandler) = loop.Connect();
        var throwing = new DisconnectThrowingHandler();
        TcpConnection other = TcpConnector.Connect(loop.EndPoint, TimeSpan.FromSeconds(5), loop.Options, throwing);
        other.Start();
        loop.TakeAccepted().Close();
        // IsClosed turns true before OnDisconnected runs (and throws), so wait for the count, not for the close.
        Assert.True(Loopback.Until(() => other.HandlerErrors == 1));
        Assert.True(other.IsClosed);
        Assert.Equal(1, other.HandlerErrors);
        Assert.Equal(0, other.MessagesReceived);
        client.Close();
        Assert.True(serverHandler.Disconnected.Wait(Loopback.Wait));
        Assert.Equal(0, server.HandlerErrors);
        loop.AssertNoLeaks();
    }

    private sealed class DisconnectThrowingHandler : IConnectionHandler
    {
        public void OnMessage(TransportConnection connection, ReadOnlySpan<byte> message)
        {
        }

        public void OnFrameError(TransportConnection connection, in FrameResult error, ReadOnlySpan<byte> skipped)
        {
        }

        public void OnDisconnected(TransportConnection connection, DisconnectReason reason, string? detail) => throw new InvalidOperationException("late");
    }

    [Theory]
    [MemberData(nameof(Modes))]
    public void AFullSendQueueReturnsBackpressureAndThenDrainsInOrder(ReceiveMode mode)
    {
        var options = new TcpConnectionOptions { SendQueueBytes = 16 * 1024, SendBufferSize = 4096, ReceiveBufferSize = 4096 };
        using var loop = new Loopback(mode, options, startServerConnections: false);
        var (client, clientHandler, server, serverHandler) = loop.Connect();
        int sent = 0;
        SendResult last = SendResult.Sent;
        // The server is not receiving: the kernel buffers fill, then the bounded queue.
        for (int i = 0; i < 100_000; i++)
        {
            last = client.TrySend(FixMessages.Numbered(sent));
            if (last == SendResult.Backpressure) break;
            Assert.True(last is SendResult.Sent or SendResult.Queued, last.ToString());
            sent++;
        }
        Assert.Equal(SendResult.Backpressure, last);
        Assert.InRange(client.QueuedSendBytes, 1, options.SendQueueBytes);

        loop.Launch(server);
        Assert.True(Loopback.Until(() => serverHandler.Messages.Count == sent), $"{serverHandler.Messages.Count} of {sent}");
        Assert.Equal(Enumerable.Range(0, sent).Select(i => (long)i), serverHandler.Messages.Select(m => FixMessages.ReadSeq(m)));
        Assert.True(Loopback.Until(() => client.QueuedSendBytes == 0));
        Assert.Equal(SendResult.Sent, client.TrySend(FixMessages.Numbered(sent)));
        Assert.Equal(SendResult.TooLarge, client.TrySend(new byte[options.SendQueueBytes + 1]));
        client.Close();
        Assert.True(serverHandler.Disconnected.Wait(Loopback.Wait));
        Assert.True(clientHandler.Disconnected.Wait(Loopback.Wait));
        loop.AssertNoLeaks();
    }

    [Theory]
    [MemberData(nameof(Modes))]
    public void TheSendQueueGrowsFromItsFirstArrayOnDemandAndDrainsInOrder(ReceiveMode mode)
    {
        // Issue 35: the queue's array starts small and doubles while the socket refuses (in completion mode beside an
        // async send that still reads the old array's head, which goes back to the pool only once that send completed).
        var options = new TcpConnectionOptions { SendQueueBytes = 64 * 1024, InitialSendQueueBytes = 256, SendBufferSize = 4096, ReceiveBufferSize = 4096 };
        using var loop = new Loopback(mode, options, startServerConnections: false);
        var (client, clientHandler, server, serverHandler) = loop.Connect();
        Assert.Equal(0, client.SendQueueArrayBytes);
        int sent = 0;
        SendResult last = SendResult.Sent;
        for (int i = 0; i < 100_000; i++)
        {
            // Sizes from 90 to 2,000 bytes, so records straddle the ring's end and each growth.
            last = client.TrySend(FixMessages.Numbered(sent, size: 90 + (sent * 397 % 1911)));
            if (last == SendResult.Backpressure) break;
            Assert.True(last is SendResult.Sent or SendResult.Queued, last.ToString());
            sent++;
        }
        Assert.Equal(SendResult.Backpressure, last);
        // Refused: more than SendQueueBytes - 2,001 bytes were queued, so the array grew from 256 bytes to the bound (and
        // keeps it). The queue itself may already be draining (dedicated mode's drain thread).
        Assert.Equal(options.SendQueueBytes, client.SendQueueArrayBytes);
        Assert.InRange(client.QueuedSendBytes, 1, options.SendQueueBytes);

        loop.Launch(server);
        Assert.True(Loopback.Until(() => serverHandler.Messages.Count == sent), $"{serverHandler.Messages.Count} of {sent}");
        Assert.Equal(Enumerable.Range(0, sent).Select(i => (long)i), serverHandler.Messages.Select(m => FixMessages.ReadSeq(m)));
        Assert.True(Loopback.Until(() => client.QueuedSendBytes == 0));
        client.Close();
        Assert.True(serverHandler.Disconnected.Wait(Loopback.Wait));
        Assert.True(clientHandler.Disconnected.Wait(Loopback.Wait));
        // Every array the queue grew through went back to the pool exactly once.
        loop.AssertNoLeaks();
    }

    [Fact]
    public void AnAcceptHandlerCanRefuseAConnection()
    {
        var options = new TcpConnectionOptions();
        using var acceptor = new TcpAcceptor(new IPEndPoint(IPAddress.Loopback, 0), options, _ => null);
        acceptor.Start();
        var handler = new RecordingHandler();
        // The reset may reach the client before or after its connect completes.
        SocketError error = TcpConnector.TryConnect(acceptor.LocalEndPoint, TimeSpan.FromSeconds(5), options, handler, out TcpConnection? client);
        if (error == SocketError.Success)
        {
            client!.Start();
            Assert.True(handler.Disconnected.Wait(Loopback.Wait));
            Assert.True(handler.Reason is DisconnectReason.PeerReset or DisconnectReason.PeerClosed, handler.Reason.ToString());
        }
        else
        {
            // The reset reached the connect itself, or the connection's set-up just after it (the peer address or a
            // socket option then fails with ENOTCONN or EINVAL, which TryConnect reports as the reset it is).
            Assert.Equal(SocketError.ConnectionReset, error);
        }
        Assert.True(Loopback.Until(() => acceptor.RefusedCount == 1));
        Assert.Equal(0, acceptor.AcceptedCount);
        Assert.True(Loopback.Until(() => options.EventArgsPool.Outstanding == 0));
    }

    [Fact]
    public async System.Threading.Tasks.Task ConnectingWhereNothingListensIsRefused()
    {
        using var bound = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        bound.Bind(new IPEndPoint(IPAddress.Loopback, 0)); // bound but not listening: SYN gets a reset
        var endPoint = (IPEndPoint)bound.LocalEndPoint!;
        var options = new TcpConnectionOptions();
        SocketError error = TcpConnector.TryConnect(endPoint, TimeSpan.FromSeconds(5), options, new RecordingHandler(), out TcpConnection? connection);
        Assert.Equal(SocketError.ConnectionRefused, error);
        Assert.Null(connection);
        var ex = Assert.Throws<TransportConnectException>(() => TcpConnector.Connect(endPoint, TimeSpan.FromSeconds(5), options, new RecordingHandler()));
        Assert.Equal(SocketError.ConnectionRefused, ex.SocketError);
        Assert.Contains("refused", ex.Message);
        var asyncEx = await Assert.ThrowsAsync<TransportConnectException>(() => TcpConnector.ConnectAsync(endPoint, TimeSpan.FromSeconds(5), options, new RecordingHandler()));
        Assert.Equal(SocketError.ConnectionRefused, asyncEx.SocketError);
    }

    [Fact]
    public void ConnectingToAListenerWithAFullBacklogTimesOut()
    {
        using var listener = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        listener.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        listener.Listen(0); // never accepts: once the accept queue is full further SYNs are dropped
        var endPoint = (IPEndPoint)listener.LocalEndPoint!;
        var options = new TcpConnectionOptions();
        var open = new System.Collections.Generic.List<TcpConnection>();
        SocketError error = SocketError.Success;
        for (int attempt = 0; attempt < 16 && error == SocketError.Success; attempt++)
        {
            error = TcpConnector.TryConnect(endPoint, TimeSpan.FromMilliseconds(250), options, new RecordingHandler(), out TcpConnection? connection);
            if (connection is not null) open.Add(connection);
        }
        Assert.Equal(SocketError.TimedOut, error);
        var ex = Assert.Throws<TransportConnectException>(() => TcpConnector.Connect(endPoint, TimeSpan.FromMilliseconds(100), options, new RecordingHandler()));
        Assert.Equal(SocketError.TimedOut, ex.SocketError);
        Assert.Contains("timed out after 100 ms", ex.Message);
        foreach (TcpConnection c in open) c.Abort();
    }
}
