using System;
using System.Collections.Generic;
using System.Net.Sockets;
using System.Threading;
using FixEngine.Codec;
using FixEngine.Transport;

namespace FixEngine.Tests.Transport;

/// <summary>Checks that numbered messages arrive in order, without keeping them (no allocation per message).</summary>
internal sealed class SequenceCheckingHandler : IConnectionHandler
{
    public long Expected;
    public long OutOfOrder;
    public long FrameErrors;
    public int Disconnects;
    public DisconnectReason Reason;

    public void OnMessage(TransportConnection connection, ReadOnlySpan<byte> message)
    {
        long seq = FixMessages.ReadSeq(message);
        if (seq != Expected) OutOfOrder++;
        Volatile.Write(ref Expected, seq + 1);
    }

    public void OnFrameError(TransportConnection connection, in FrameResult error, ReadOnlySpan<byte> skipped) => FrameErrors++;

    public void OnDisconnected(TransportConnection connection, DisconnectReason reason, string? detail)
    {
        Reason = reason;
        Interlocked.Increment(ref Disconnects);
    }
}

public class TcpStressTests
{
    /// <summary>Sends numbered messages encoded in place, retrying on backpressure; returns how often it had to wait.</summary>
    internal static long SendNumbered(TcpConnection client, long from, long count, Action? onBackpressure = null)
    {
        long waits = 0;
        for (long seq = from; seq < from + count; seq++)
        {
            int length = FixMessages.WriteNumbered(client.GetSendSpan(128), seq);
            SendResult result;
            while ((result = client.Commit(length)) == SendResult.Backpressure)
            {
                waits++;
                if (onBackpressure is null) Thread.Yield();
                else onBackpressure();
            }
            if (result is not (SendResult.Sent or SendResult.Queued)) throw new InvalidOperationException($"send {seq}: {result}");
        }
        return waits;
    }

    [Theory]
    [MemberData(nameof(TcpConnectionTests.Modes), MemberType = typeof(TcpConnectionTests))]
    public void AMillionMessagesArriveInOrderWithNoneLost(ReceiveMode mode)
    {
        const long Count = 1_000_000;
        using var loop = new Loopback(mode, new TcpConnectionOptions { SendQueueBytes = 256 * 1024 });
        var checker = new SequenceCheckingHandler();
        loop.ServerHandlerFactory = () => checker;
        TcpConnection client = TcpConnector.Connect(loop.EndPoint, TimeSpan.FromSeconds(5), loop.Options, new RecordingHandler());
        loop.Launch(client);

        SendNumbered(client, 0, Count);
        Assert.True(SpinWait.SpinUntil(() => Volatile.Read(ref checker.Expected) == Count, TimeSpan.FromSeconds(60)), $"received {checker.Expected} of {Count}");
        Assert.Equal(0, checker.OutOfOrder);
        Assert.Equal(0, checker.FrameErrors);
        client.Close();
        Assert.True(Loopback.Until(() => Volatile.Read(ref checker.Disconnects) == 1));
        Assert.Equal(DisconnectReason.PeerClosed, checker.Reason);
        loop.AssertNoLeaks();
    }

    [Theory]
    [MemberData(nameof(TcpConnectionTests.Modes), MemberType = typeof(TcpConnectionTests))]
    public void AThousandIdleConnectionsAreAcceptedAndClosedCleanly(ReceiveMode mode)
    {
        const int Count = 1000;
        using var loop = new Loopback(mode, new TcpConnectionOptions { InitialReceiveBufferBytes = 1024 });
        var clients = new List<TcpConnection>(Count);
        var clientHandlers = new List<RecordingHandler>(Count);
        var servers = new List<(TcpConnection Connection, RecordingHandler Handler)>(Count);
        var serverHandlers = new Dictionary<TcpConnection, RecordingHandler>();
        for (int i = 0; i < Count; i++)
        {
            var handler = new RecordingHandler();
            Assert.Equal(SocketError.Success, TcpConnector.TryConnect(loop.EndPoint, TimeSpan.FromSeconds(5), loop.Options, handler, out TcpConnection? client));
            clients.Add(client!);
            clientHandlers.Add(handler);
        }
        Assert.True(Loopback.Until(() => loop.Acceptor.AcceptedCount == Count), $"accepted {loop.Acceptor.AcceptedCount}");
        var accepted = new List<TcpConnection>();
        for (int i = 0; i < Count; i++) accepted.Add(loop.TakeAccepted());
        if (mode == ReceiveMode.BusyPoll) Assert.True(Loopback.Until(() => loop.Poller.Count == Count));

        // Every server connection is idle and open.
        Assert.All(accepted, c => Assert.False(c.IsClosing));

        foreach (TcpConnection client in clients) client.Close();
        Assert.All(clientHandlers, h => Assert.Equal(DisconnectReason.Local, h.Reason));
        Assert.True(Loopback.Until(() => accepted.TrueForAll(c => c.IsClosed)), "some server connections did not close");
        Assert.All(accepted, c => Assert.Equal(DisconnectReason.PeerClosed, c.DisconnectReason));
        if (mode == ReceiveMode.BusyPoll) Assert.True(Loopback.Until(() => loop.Poller.Count == 0));
        loop.AssertNoLeaks();
    }
}
