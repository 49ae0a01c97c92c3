using System;
using System.Collections.Generic;
using System.IO.Pipelines;
using System.Threading;
using System.Threading.Tasks;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Session;
using FixEngine.Transport;

namespace FixEngine.Tests.Engine;

/// <summary>FixEngineHost.RunAcceptorConnectionAsync over in-memory pipes (what FixConnectionHandler does with Kestrel's):
/// routed by the Logon, trading, and the server's closing request logs the session out.</summary>
public sealed class HostedPipeConnectionTests
{
    private const string Defaults = "[DEFAULT]\nHeartBtInt=30\nStartTime=00:00:00\nEndTime=00:00:00\nUseDataDictionary=N\nIdleStrategy=Backoff";

    private static long Now() => (DateTime.UtcNow - DateTime.UnixEpoch).Ticks * 100;

    [Fact]
    public async Task AHostedConnectionLogsOnTradesAndTheServersClosingRequestLogsItOut()
    {
        (IReadOnlyList<SessionSettings> acceptorSettings, IReadOnlyList<SessionSettings> initiatorSettings) = EngineTestSupport.ExecClientPair(Defaults, 5001);
        var filler = new FillerApp();
        using var engine = new FixEngineHost(acceptorSettings, filler, new EngineOptions { ListenOnAcceptorPorts = false });
        await engine.StartAsync();
        Assert.Empty(engine.AcceptorPorts);

        var toEngine = new Pipe(new PipeOptions(useSynchronizationContext: false));
        var toClient = new Pipe(new PipeOptions(useSynchronizationContext: false));
        using var closing = new CancellationTokenSource();
        Task connection = engine.RunAcceptorConnectionAsync(new DuplexPipe(toEngine.Reader, toClient.Writer), "in-memory", default, closing.Token);

        // The client: a real initiator session over the other ends, run on this thread.
        using var factory = new SessionFactory(MemoryMessageStoreFactory.Instance, null);
        var client = new ClientApp();
        using FixSession session = factory.Create(initiatorSettings[0], client, Now());
        var clientSide = new PipeSessionConnection(new DuplexPipe(toClient.Reader, toEngine.Writer), 1 << 20);
        clientSide.Attach(session, Now());
        bool PumpUntil(Func<bool> done) => EngineTestSupport.WaitFor(() =>
        {
            clientSide.PumpInbound(Now());
            session.Poll(Now());
            return done();
        });

        Assert.True(PumpUntil(() => session.IsLoggedOn), "the client logged on through the hosted connection");
        for (long i = 0; i < 50; i++)
        {
            session.Send(MsgTypes.NewOrderSingle, i, static (ref FixWriter w, scoped in long id) =>
            {
                w.Write(FixTags.ClOrdID, id);
                w.Write(FixTags.Symbol, "EURUSD"u8);
                w.Write(FixTags.Side, '1');
            });
        }
        Assert.True(PumpUntil(() => Interlocked.Read(ref client.Fills) == 50), $"{Interlocked.Read(ref client.Fills)} of 50 orders filled");

        // The server shuts down: the session sends a Logout, the client answers, the connection ends.
        closing.Cancel();
        Assert.True(PumpUntil(() => client.CountAdmin("5") >= 1 && !session.IsConnected), "the client received the Logout and answered it");
        await connection.WaitAsync(EngineTestSupport.Wait);
        Assert.True(EngineTestSupport.WaitFor(() => Volatile.Read(ref filler.Logouts) == 1));
        Assert.True(await engine.StopAsync(TimeSpan.FromSeconds(5)));
        filler.AssertClean();
        client.AssertClean();
    }

    [Fact]
    public void AWriterCompletedOutsideTheEngineClosesTheConnectionInsteadOfThrowing()
    {
        // A server or user code owning the IDuplexPipe may complete its writer; the session's send must not throw.
        var toPeer = new Pipe(new PipeOptions(useSynchronizationContext: false));
        var fromPeer = new Pipe(new PipeOptions(useSynchronizationContext: false));
        var connection = new PipeSessionConnection(new DuplexPipe(fromPeer.Reader, toPeer.Writer), 1 << 20);
        byte[] message = "8=FIX.4.4\u00019=5\u000135=0\u000110=161\u0001"u8.ToArray();
        Assert.Equal(SendResult.Sent, connection.Send(message));
        toPeer.Writer.Complete();
        Assert.Equal(SendResult.Closed, connection.Send(message));
        Assert.True(connection.IsClosed);
        Assert.Equal(SendResult.Closed, connection.Send(message));
    }

    [Fact]
    public async Task AConnectionThatSendsNoLogonIsClosedAfterThePendingLogonTimeout()
    {
        (IReadOnlyList<SessionSettings> acceptorSettings, _) = EngineTestSupport.ExecClientPair(Defaults, 5001);
        var lines = new List<string>();
        using var engine = new FixEngineHost(acceptorSettings, new FillerApp(), new EngineOptions
        {
            ListenOnAcceptorPorts = false,
            Console = line => { lock (lines) lines.Add(line); },
        });
        await engine.StartAsync();
        var toEngine = new Pipe(new PipeOptions(useSynchronizationContext: false));
        var toClient = new Pipe(new PipeOptions(useSynchronizationContext: false));
        // The engine-wide pending-Logon timeout: the largest LogonTimeout, at least 10 s.
        Task connection = engine.RunAcceptorConnectionAsync(new DuplexPipe(toEngine.Reader, toClient.Writer), "silent");
        await connection.WaitAsync(EngineTestSupport.Wait);
        // The engine completed its side: the peer reads the end of the stream.
        ReadResult end = await toClient.Reader.ReadAsync();
        Assert.True(end.IsCompleted);
        lock (lines) Assert.Contains(lines, l => l.Contains("silent", StringComparison.Ordinal) && l.Contains("no Logon received", StringComparison.Ordinal));
    }
}
