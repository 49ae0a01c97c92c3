using System;
using System.Collections.Generic;
using System.Net;
using System.Net.Sockets;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using FixEngine.Config;
using FixEngine.Engine;

namespace FixEngine.Tests.Engine;

/// <summary>A stopping engine against a peer that keeps sending orders and never answers the Logout: once the engine's
/// Logout is on the wire no ExecutionReport follows it, no order reaches the application after it, and the orders it
/// did not process stay expected (the session's next inbound number is the first unprocessed order's).</summary>
public sealed class AfterOwnLogoutEngineTests
{
    private const string Defaults = "[DEFAULT]\nHeartBtInt=30\nStartTime=00:00:00\nEndTime=00:00:00\nUseDataDictionary=N\nIdleStrategy=Backoff\nLogoutTimeout=3";

    [Fact]
    public async Task NothingButTheLogoutGoesOutAfterItAndUnprocessedOrdersStayExpected()
    {
        int port = 0;
        (IReadOnlyList<SessionSettings> acceptorSettings, _) = EngineTestSupport.ExecClientPair(Defaults, port);
        var filler = new FillerApp();
        using var acceptor = new FixEngineHost(acceptorSettings, filler);
        await acceptor.StartAsync();
        port = EngineTestSupport.PortOf(acceptor);

        using var peer = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        await peer.ConnectAsync(IPAddress.Loopback, port);
        await peer.SendAsync(RawPeerMessages.Message(1, "35=A|98=0|108=30"));
        var received = new StringBuilder();
        var buffer = new byte[65536];
        using var stopReading = new CancellationTokenSource();
        Task reader = Task.Run(async () =>
        {
            try
            {
                int n;
                while ((n = await peer.ReceiveAsync(buffer, stopReading.Token)) > 0)
                {
                    lock (received) received.Append(Encoding.ASCII.GetString(buffer, 0, n));
                }
            }
            catch (Exception e) when (e is OperationCanceledException or SocketException or ObjectDisposedException)
            {
            }
        });
        Assert.True(EngineTestSupport.WaitFor(() => acceptor.Sessions[0].IsLoggedOn));

        // The peer keeps sending orders, before and all through the stop, until the engine closes the connection.
        int sent = 0;
        using var stopSending = new CancellationTokenSource();
        Task sender = Task.Run(async () =>
        {
            try
            {
                while (!stopSending.IsCancellationRequested)
                {
                    await peer.SendAsync(RawPeerMessages.Order(sent));
                    Interlocked.Increment(ref sent);
                    await Task.Delay(1);
                }
            }
            catch (SocketException)
            {
            }
        });
        Assert.True(EngineTestSupport.WaitFor(() => Interlocked.Read(ref filler.Orders) >= 20), "orders are being filled");

        // The peer never answers the Logout: LogoutTimeout ends the connection.
        await acceptor.StopAsync(EngineTestSupport.Wait);
        Assert.False(acceptor.Sessions[0].IsConnected);
        int sentAtStop = Volatile.Read(ref sent);
        await stopSending.CancelAsync();
        await sender;
        await stopReading.CancelAsync();
        await reader;

        string wire;
        lock (received) wire = received.ToString();
        int logout = wire.IndexOf("\u000135=5\u0001", StringComparison.Ordinal);
        Assert.True(logout > 0, "the engine sent its Logout");
        Assert.DoesNotContain("\u000135=8\u0001", wire.Substring(logout), StringComparison.Ordinal);
        long processed = Interlocked.Read(ref filler.Orders);
        int reports = CountOf(wire, "\u000135=8\u0001");
        Assert.Equal(processed, reports);
        Assert.True(sentAtStop > processed, $"the peer sent orders the engine did not process ({sentAtStop} sent, {processed} processed)");
        // Orders 0 .. processed-1 carried MsgSeqNum 2 .. processed+1: the next expected is the first unprocessed one.
        Assert.Equal(processed + 2, acceptor.Sessions[0].NextTargetMsgSeqNum);
        filler.AssertClean();
    }

    private static int CountOf(string text, string what)
    {
        int count = 0;
        for (int i = text.IndexOf(what, StringComparison.Ordinal); i >= 0; i = text.IndexOf(what, i + 1, StringComparison.Ordinal)) count++;
        return count;
    }
}
