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

/// <summary>StartAsync and StopAsync: a graceful logout awaited without holding a thread, bounded by a timeout or a token.</summary>
public sealed class AsyncStopTests
{
    private const string Defaults = "[DEFAULT]\nHeartBtInt=30\nStartTime=00:00:00\nEndTime=00:00:00\nUseDataDictionary=N\nIdleStrategy=Backoff\nLogoutTimeout=600";

    [Fact]
    public async Task StopAsyncLogsEverySessionOutAndSaysSo()
    {
        int port = 0;
        (IReadOnlyList<SessionSettings> acceptorSettings, IReadOnlyList<SessionSettings> initiatorSettings) = EngineTestSupport.ExecClientPair(Defaults, port);
        var filler = new FillerApp();
        var client = new ClientApp();
        using var acceptor = new FixEngineHost(acceptorSettings, filler);
        await acceptor.StartAsync();
        using var initiator = new FixEngineHost(EngineTestSupport.WithConnectPort(initiatorSettings, EngineTestSupport.PortOf(acceptor)), client);
        await initiator.StartAsync();
        Assert.True(client.LoggedOn.Wait(EngineTestSupport.Wait));

        bool loggedOut = await acceptor.StopAsync(EngineTestSupport.Wait);
        Assert.True(loggedOut, "the initiator answered the Logout");
        Assert.True(client.CountAdmin("5") >= 1 || EngineTestSupport.WaitFor(() => client.CountAdmin("5") >= 1));
        Assert.Equal(1, Volatile.Read(ref filler.Logouts));
        // A second stop waits for the first and agrees.
        Assert.True(await acceptor.StopAsync(TimeSpan.FromSeconds(1)));
        await initiator.StopAsync(TimeSpan.FromSeconds(1));
        filler.AssertClean();
    }

    [Fact]
    public async Task StopAsyncWaitsForASilentPeerWithoutBlockingAndTheTokenEndsTheWait()
    {
        int port = 0;
        (IReadOnlyList<SessionSettings> acceptorSettings, _) = EngineTestSupport.ExecClientPair(Defaults, port);
        var filler = new FillerApp();
        using var acceptor = new FixEngineHost(acceptorSettings, filler);
        await acceptor.StartAsync();
        port = EngineTestSupport.PortOf(acceptor);

        // A raw peer that logs on and then never answers anything.
        using var peer = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        await peer.ConnectAsync(IPAddress.Loopback, port);
        await peer.SendAsync(RawPeerMessages.Message(1, "35=A|98=0|108=30"));
        var received = new StringBuilder();
        var buffer = new byte[4096];
        async Task ReadUntil(string what)
        {
            using var timeout = new CancellationTokenSource(EngineTestSupport.Wait);
            while (!received.ToString().Contains(what, StringComparison.Ordinal))
            {
                int n = await peer.ReceiveAsync(buffer, timeout.Token);
                Assert.True(n > 0, $"the connection closed before '{what}' arrived");
                received.Append(Encoding.ASCII.GetString(buffer, 0, n));
            }
        }
        await ReadUntil("\u000135=A\u0001");

        using var hostShutdown = new CancellationTokenSource();
        Task<bool> stop = acceptor.StopAsync(Timeout.InfiniteTimeSpan, hostShutdown.Token);
        await ReadUntil("\u000135=5\u0001");
        // The Logout is out and unanswered: the stop is still waiting, and the call has returned (no thread held).
        Assert.False(stop.IsCompleted);
        await Task.Delay(200);
        Assert.False(stop.IsCompleted);

        hostShutdown.Cancel();
        bool loggedOut = await stop.WaitAsync(EngineTestSupport.Wait);
        Assert.False(loggedOut, "the peer never answered the Logout");
        // The engine closed the connection.
        using var timeout = new CancellationTokenSource(EngineTestSupport.Wait);
        int read;
        do read = await peer.ReceiveAsync(buffer, timeout.Token);
        while (read > 0);
        Assert.False(acceptor.Sessions[0].IsConnected);
    }

    [Fact]
    public async Task StopAsyncWithATimeoutClosesWhatDidNotLogOut()
    {
        int port = 0;
        (IReadOnlyList<SessionSettings> acceptorSettings, _) = EngineTestSupport.ExecClientPair(Defaults, port);
        using var acceptor = new FixEngineHost(acceptorSettings, new FillerApp());
        await acceptor.StartAsync();
        port = EngineTestSupport.PortOf(acceptor);
        using var peer = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        await peer.ConnectAsync(IPAddress.Loopback, port);
        await peer.SendAsync(RawPeerMessages.Message(1, "35=A|98=0|108=30"));
        Assert.True(EngineTestSupport.WaitFor(() => acceptor.Sessions[0].IsLoggedOn));

        Assert.False(await acceptor.StopAsync(TimeSpan.FromMilliseconds(300)));
        Assert.False(acceptor.Sessions[0].IsConnected);
    }

    [Fact]
    public async Task StartAsyncWithACancelledTokenDoesNotStart()
    {
        (IReadOnlyList<SessionSettings> acceptorSettings, _) = EngineTestSupport.ExecClientPair(Defaults, 0);
        using var acceptor = new FixEngineHost(acceptorSettings, new FillerApp());
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => acceptor.StartAsync(new CancellationToken(true)));
        Assert.All(acceptor.AcceptorPorts, p => Assert.Equal(0, p));
        // Never started: a stop completes at once.
        Assert.True(await acceptor.StopAsync(TimeSpan.FromSeconds(1)));
    }
}
