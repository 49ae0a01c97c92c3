using System;
using System.Collections.Generic;
using System.IO;
using System.IO.Pipelines;
using System.Threading;
using System.Threading.Tasks;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Session;
using FixEngine.Store;
using FixEngine.Tests.Infrastructure;
using FixEngine.Tests.Session;
using FixEngine.Tests.Transport;
using FixEngine.Transport;
using Xunit.Abstractions;

namespace FixEngine.Tests.Engine;

/// <summary>
/// A hosted (pipe) connection whose session asks to stop reading: the read loop parks on an awaitable, allocates nothing
/// while parked (no timer, no Task per millisecond: the old <c>Task.Delay(1)</c> poll allocated on every wake), is
/// woken once when the backlog has drained, and is woken by every way the connection can close, so that
/// <c>RunAcceptorConnectionAsync</c> always ends.
/// </summary>
/// <remarks>The engine runs on a frozen <see cref="FakeClock"/>, so the session's one-second no-progress rule never lifts
/// the pause while the peer reads nothing: only the drain, or a close, can end it.</remarks>
[Collection(nameof(AllocationMeasurement))]
public sealed class HostedPipeReceivePauseTests(ITestOutputHelper output)
{
    internal const string Probe = "hosted-pipe-receive-pause";

    /// <summary>The read loop parks once for the whole pause, the process allocates nothing while it is parked
    /// (measured over every thread, in a process of its own), and it reads again after the peer drained the backlog.
    /// Before the loop parked on an awaitable it polled with <c>Task.Delay(1)</c>: a Task and a timer per wake, so every
    /// window allocated (and it woke hundreds of times).</summary>
    [Fact]
    public void AParkedReadLoopAllocatesNothingAndResumesWhenTheBacklogDrains()
    {
        // A hang bound: seconds idle, minutes beside a CPU hog.
        (int exitCode, string report) = IsolatedProcess.Run(Probe, TimeSpan.FromMinutes(10));
        output.WriteLine(report);
        Assert.True(exitCode == 0, $"exit code {exitCode}: {report}");
        Assert.Contains(": 0 B all threads", report);
    }

    /// <summary>The measurement behind <see cref="AParkedReadLoopAllocatesNothingAndResumesWhenTheBacklogDrains"/>, run in
    /// a child process.</summary>
    /// <returns>0 when one window of 250 ms while parked allocated exactly 0 bytes on every thread of the process, the loop
    /// parked exactly once, and every order and report went through once the peer read.</returns>
    internal static int MeasurePausedAllocation(TextWriter output)
    {
        const int MaxRounds = 8;
        using PausedPipe pipe = PausedPipe.Start(null);
        PipeEngineConnection connection = pipe.EngineConnection;
        long[] total = new long[MaxRounds];
        int rounds = 0;
        while (rounds < MaxRounds)
        {
            long before = GC.GetTotalAllocatedBytes(precise: true);
            Thread.Sleep(250);
            total[rounds] = GC.GetTotalAllocatedBytes(precise: true) - before;
            rounds++;
            if (total[rounds - 1] == 0) break;
        }
        for (int r = 0; r < rounds; r++) output.WriteLine($"window {r} (250 ms parked): {total[r]} B all threads");
        long parksWhilePaused = connection.ReceiveParks;
        bool stillParked = connection.IsReceiveParked;
        long ordersWhilePaused = Volatile.Read(ref pipe.App.Orders);
        output.WriteLine($"paused: {parksWhilePaused} park(s), parked {stillParked}, {ordersWhilePaused} order(s) taken, {pipe.OrdersWritten} written, peer backlog {pipe.Client.SendBacklogBytes} B");

        // The peer reads: the engine's backlog drains, the agent resumes the loop, and the orders waiting in the pipe
        // are read and answered.
        bool drained = pipe.PumpUntil(() => Volatile.Read(ref pipe.App.Orders) == pipe.OrdersWritten
            && Volatile.Read(ref pipe.ClientApp.Fills) == PausedPipe.Burst + pipe.OrdersWritten - 1);
        output.WriteLine($"resumed: {Volatile.Read(ref pipe.App.Orders)} of {pipe.OrdersWritten} orders taken, {Volatile.Read(ref pipe.ClientApp.Fills)} reports read, {connection.ReceiveParks} park(s) in all, drained {drained}");
        foreach (string p in pipe.App.Problems) output.WriteLine("engine app: " + p);
        foreach (string p in pipe.ClientApp.Problems) output.WriteLine("client app: " + p);
        bool ok = total[rounds - 1] == 0 && parksWhilePaused == 1 && stillParked && ordersWhilePaused == 1 && drained
            && pipe.App.Problems.Count == 0 && pipe.ClientApp.Problems.Count == 0;
        return ok ? 0 : 1;
    }

    /// <summary>The ways a hosted connection ends, each taken while its read loop is parked for a receive pause.</summary>
    public static TheoryData<string> ClosePaths =>
    [
        "peer closed", "server aborted", "server shutdown", "Close from another thread", "store failed", "session removed",
        "engine stopped", "engine disposed",
    ];

    /// <summary>Every close of a connection whose read loop is parked ends <c>RunAcceptorConnectionAsync</c> within a few
    /// seconds: a close wakes the parked loop (or, when the close waits for engine time, such as a Logout's timeout,
    /// the time that passes meanwhile also lifts the pause). A loop that no close woke would wait forever here, the
    /// clock being frozen.</summary>
    [Theory]
    [MemberData(nameof(ClosePaths))]
    public async Task EveryCloseEndsAParkedConnection(string path)
    {
        var stores = new SwitchableStores();
        PausedPipe pipe = PausedPipe.Start(stores);
        try
        {
            FixSession session = pipe.App.Session!;
            Assert.True(pipe.EngineConnection.IsReceiveParked, "the read loop is parked before the close");
            Task? closer = null;
            switch (path)
            {
                case "peer closed":
                    // The peer goes away (completes both its ends): the engine's next write finds the pipe closed.
                    pipe.ClosePeer();
                    break;
                case "server aborted":
                    pipe.Aborted.Cancel();
                    break;
                case "server shutdown":
                    // A Logout waits behind the backlog; the peer never answers, so the session ends at LogoutTimeout.
                    pipe.Closing.Cancel();
                    closer = pipe.AdvanceClockUntilDone(pipe.Connection);
                    break;
                case "Close from another thread":
                    closer = Task.Run(() => pipe.EngineConnection.Close("closed by the test"));
                    break;
                case "store failed":
                    // The server's shutdown asks for a Logout the store cannot take: the session disconnects without it.
                    // (Messages handed over from other threads wait while the backlog is full, so no other write comes.)
                    stores.Last!.Failing = new MessageStoreException("test store: disk full", "test-store", MessageStoreOperation.Append, new IOException("No space left on device"));
                    pipe.Closing.Cancel();
                    break;
                case "session removed":
                    // A Logout waits behind the backlog; the removal disconnects at its deadline.
                    Task removed = Task.Run(() => pipe.Engine.RemoveSession(session.Id));
                    closer = pipe.AdvanceClockUntilDone(removed);
                    break;
                case "engine stopped":
                    closer = pipe.Engine.StopAsync(TimeSpan.FromMilliseconds(200));
                    break;
                case "engine disposed":
                    closer = Task.Run(pipe.Engine.Dispose);
                    break;
                default:
                    throw new ArgumentOutOfRangeException(nameof(path), path, null);
            }
            bool ended = await Task.WhenAny(pipe.Connection, Task.Delay(TimeSpan.FromSeconds(5))) == pipe.Connection;
            Assert.True(ended, $"RunAcceptorConnectionAsync did not end within 5 s of \"{path}\" (parked {pipe.EngineConnection.IsReceiveParked}, closed {pipe.EngineConnection.IsClosed}: {pipe.EngineConnection.CloseReason})");
            Assert.True(pipe.EngineConnection.IsClosed);
            if (path == "store failed") Assert.Contains("message store", pipe.EngineConnection.CloseReason, StringComparison.Ordinal);
            Assert.False(pipe.EngineConnection.IsReceiveParked, "the loop left its park");
            if (closer is not null) await closer.WaitAsync(TimeSpan.FromSeconds(10));
            output.WriteLine($"{path}: closed, {pipe.EngineConnection.CloseReason}; {pipe.EngineConnection.ReceiveParks} park(s)");
        }
        finally
        {
            pipe.Dispose();
        }
    }

    /// <summary>Makes each session's store switchable to failing (the last one made is kept).</summary>
    private sealed class SwitchableStores : IMessageStoreFactory
    {
        public SwitchableStore? Last;

        public IMessageStore Create(SessionSettings settings, long epochNs) => Last = new SwitchableStore();
    }

    /// <summary>
    /// A FixEngine acceptor on a frozen clock running a hosted connection over in-memory pipes, and a FixSession
    /// initiator over their other ends, run on the calling thread. Started: logged on, order 0 answered with
    /// <see cref="Burst"/> reports the peer does not read (about 2 MB: the engine's pipe takes 64 KiB, the session's
    /// backlog the rest, past the 1 MiB receive-pause threshold), the read loop parked, and the peer's further orders
    /// refused by the full pipe the engine does not read.
    /// </summary>
    private sealed class PausedPipe : IDisposable
    {
        public const int Burst = 8_000;
        private const string Defaults = "[DEFAULT]\nHeartBtInt=30\nStartTime=00:00:00\nEndTime=00:00:00\nUseDataDictionary=N\nIdleStrategy=Backoff\nCheckLatency=N";

        public readonly FakeClock Clock = new(nowNs: 1_000_000_000_000L, epochNs: DateTimeOffset.UtcNow.ToUnixTimeMilliseconds() * 1_000_000L);
        public readonly Pipe ToEngine = new(new PipeOptions(useSynchronizationContext: false));
        public readonly Pipe ToClient = new(new PipeOptions(useSynchronizationContext: false));
        public readonly CancellationTokenSource Aborted = new();
        public readonly CancellationTokenSource Closing = new();
        public readonly PausingFillerApp App = new(Burst);
        public readonly ClientApp ClientApp = new();
        public FixEngineHost Engine = null!;
        public Task Connection = null!;
        public FixSession Client = null!;
        public PipeEngineConnection EngineConnection = null!;
        public long OrdersWritten;
        private SessionFactory? _clientFactory;
        private PipeSessionConnection? _clientSide;

        private static long Now() => (DateTime.UtcNow - DateTime.UnixEpoch).Ticks * 100;

        public static PausedPipe Start(IMessageStoreFactory? stores)
        {
            var pipe = new PausedPipe();
            try
            {
                pipe.Run(stores);
                return pipe;
            }
            catch
            {
                pipe.Dispose();
                throw;
            }
        }

        private void Run(IMessageStoreFactory? stores)
        {
            (IReadOnlyList<SessionSettings> acceptorSettings, IReadOnlyList<SessionSettings> initiatorSettings) = EngineTestSupport.ExecClientPair(Defaults, 5001);
            Engine = new FixEngineHost(acceptorSettings, App, new EngineOptions
            {
                ListenOnAcceptorPorts = false,
                Clock = Clock,
                MessageStoreFactory = stores,
                Console = static _ => { },
            });
            Engine.Start();
            Connection = Engine.RunAcceptorConnectionAsync(new DuplexPipe(ToEngine.Reader, ToClient.Writer), "in-memory", Aborted.Token, Closing.Token);

            _clientFactory = new SessionFactory(MemoryMessageStoreFactory.Instance, null);
            Client = _clientFactory.Create(initiatorSettings[0], ClientApp, Now());
            _clientSide = new PipeSessionConnection(new DuplexPipe(ToClient.Reader, ToEngine.Writer), 1 << 20);
            _clientSide.Attach(Client, Now());
            if (!PumpUntil(() => Client.IsLoggedOn)) throw new InvalidOperationException("the client did not log on");
            EngineConnection = (PipeEngineConnection)App.Session!.Connection!;

            // Order 0: its reports fill the pipe and the session's backlog; the session asks to stop reading and the
            // read loop parks. The client reads nothing from here on.
            SendOrder(0);
            if (!EngineTestSupport.WaitFor(() => EngineConnection.IsReceiveParked))
            {
                throw new InvalidOperationException($"the read loop did not park (pause requested {App.Session.IsReceivePauseRequested}, backlog {App.Session.SendBacklogBytes} B)");
            }
            // The peer writes orders until the pipe the parked engine does not read is full and refuses them (its
            // session keeps them in its own backlog).
            OrdersWritten = 1;
            while (Client.SendBacklogBytes == 0 && OrdersWritten < 5_000) SendOrder(OrdersWritten++);
            if (Client.SendBacklogBytes == 0) throw new InvalidOperationException($"the peer wrote {OrdersWritten} orders and none was refused");
            if (Volatile.Read(ref App.Orders) != 1) throw new InvalidOperationException($"the parked engine took {App.Orders} orders");
        }

        private void SendOrder(long id) => Client.Send(MsgTypes.NewOrderSingle, id, static (ref FixWriter w, scoped in long clOrdId) =>
        {
            w.Write(FixTags.ClOrdID, clOrdId);
            w.Write(FixTags.Symbol, "EURUSD"u8);
            w.Write(FixTags.Side, '1');
            w.Write(FixTags.OrderQty, 100);
            w.Write(FixTags.OrdType, '1');
        });

        /// <summary>The peer goes away: the client's pipe ends complete (its output, the engine's input, and its input).</summary>
        public void ClosePeer() => _clientSide!.Close("the peer went away");

        /// <summary>Runs the client (reads what arrived, sends what its backlog holds) until <paramref name="done"/>.</summary>
        public bool PumpUntil(Func<bool> done) => EngineTestSupport.WaitFor(() =>
        {
            _clientSide!.PumpInbound(Now());
            Client.Poll(Now());
            return done();
        });

        /// <summary>Moves the engine's clock on by 100 ms every 10 ms until <paramref name="task"/> ends (at most 30 s).</summary>
        public Task AdvanceClockUntilDone(Task task) => Task.Run(() =>
        {
            for (int i = 0; i < 3_000 && !task.IsCompleted; i++)
            {
                Clock.Advance(100_000_000L);
                Thread.Sleep(10);
            }
        });

        public void Dispose()
        {
            Aborted.Cancel();
            Connection?.Wait(TimeSpan.FromSeconds(10));
            Engine?.Dispose();
            Client?.Dispose();
            _clientFactory?.Dispose();
            Aborted.Dispose();
            Closing.Dispose();
        }
    }
}
