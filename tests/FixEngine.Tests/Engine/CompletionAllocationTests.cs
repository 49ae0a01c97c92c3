using System;
using System.Threading;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Session;
using FixEngine.Tests.Infrastructure;

namespace FixEngine.Tests.Engine;

/// <summary>The completion-mode and dedicated-mode engine paths (receive on socket completion threads or on each
/// connection's receive thread, session under its gate, FromApp,
/// reply, re-posted receive; timers and outbox on the agent) allocates nothing per message.</summary>
[Collection(nameof(AllocationMeasurement))]
public class CompletionAllocationTests
{
    private const int Warmup = 10_000;
    private const int RoundSize = 100;
    private const int Rounds = 200;

    /// <remarks>
    /// Three kinds of thread do per-message work: the sender (this thread: encodes into the initiator's outbox and, when
    /// the session is free, numbers, stores and sends the order itself), whichever thread takes a handed-over order
    /// otherwise (the receiving thread in the session, or the agent: header, store, socket send; sampled in ToApp on
    /// every thread), and socket completion threads (receive, frame, session, FromApp, the fill, re-posting the receive;
    /// sampled in FromApp on both sides). The sender is measured over the whole window, exactly. Completion threads are thread-pool
    /// threads that also run other work items of the test host now and then (168-byte objects, tens per 20,000 round
    /// trips here, none in a standalone process), so each thread is measured between its first and last callback within
    /// a round of 100 round trips and the best round must be exactly 0: an allocation of the engine's path repeats every
    /// round (at least 100 times its size), another work item's does not.
    /// <para>Dedicated mode: the receiving threads are each connection's own receive thread (no other work items run on
    /// them); the same measurement applies.</para>
    /// </remarks>
    [Theory]
    [InlineData("Completion")]
    [InlineData("Dedicated")]
    public void CompletionModeOrderToFillRoundTripsAllocateNothingPerMessage(string receiveMode)
    {
        string store = EngineTestSupport.TempDirectory("fixengine-alloc-");
        int port = 0;
        string common = $"""
            [DEFAULT]
            StartTime=00:00:00
            EndTime=00:00:00
            UseDataDictionary=N
            ResetOnLogon=Y
            IdleStrategy=Yielding
            ReceiveMode={receiveMode}
            FileStorePath={store}
            StoreIndexCapacity=262144
            HeartBtInt=30
            """;
        var client = new ProbedClient();
        var filler = new ProbedFiller();
        try
        {
            var (acceptorSettings, initiatorSettings) = EngineTestSupport.ExecClientPair(common, port);
            using var acceptor = new FixEngineHost(acceptorSettings, filler);
            acceptor.Start();
            port = EngineTestSupport.PortOf(acceptor);
            initiatorSettings = EngineTestSupport.WithConnectPort(initiatorSettings, port);
            using var initiator = new FixEngineHost(initiatorSettings, client);
            initiator.Start();
            Assert.True(client.LoggedOn.Wait(TimeSpan.FromSeconds(20)), "initiator did not log on");

            RoundTrips(client, filler, 0, Warmup);
            long next = Warmup;
            long before = GC.GetAllocatedBytesForCurrentThread();
            long best = long.MaxValue;
            int cleanRounds = 0;
            long coveredInBest = 0;
            long total = 0;
            for (int r = 0; r < Rounds; r++)
            {
                filler.Arm(next + 1, next + RoundSize);
                client.Arm(next + 1, next + RoundSize);
                client.Outbound.Arm(next + 1, next + RoundSize);
                RoundTrips(client, filler, next, RoundSize);
                next += RoundSize;
                if (!filler.Done || !client.Done || !client.Outbound.Done) Assert.Fail("the callbacks did not see round " + r);
                long round = filler.Allocated + client.Allocated + client.Outbound.Allocated;
                long covered = filler.Covered + client.Covered + client.Outbound.Covered;
                total += round;
                if (round == 0) cleanRounds++;
                if (round < best || (round == best && covered > coveredInBest))
                {
                    best = round;
                    coveredInBest = covered;
                }
            }
            long sender = GC.GetAllocatedBytesForCurrentThread() - before;

            Assert.Equal(0, sender);
            Assert.True(best == 0, $"{receiveMode} receiving threads allocated in every round: best {best} B, {total} B over {Rounds} rounds");
            // The clean round measured real work: most of its callbacks followed an earlier one on the same thread.
            Assert.True(coveredInBest >= RoundSize, $"the clean round covered only {coveredInBest} of {3 * RoundSize} callbacks ({cleanRounds} clean rounds)");

            initiator.Stop(TimeSpan.FromSeconds(3));
            acceptor.Stop(TimeSpan.FromSeconds(3));
        }
        finally
        {
            EngineTestSupport.DeleteDirectory(store);
        }
    }

    /// <summary>The evidence for the session gate's type: a contended entry into a gated session (the waiter blocks in
    /// SessionSlot.Enter, then gets the gate) allocates nothing on the managed heap, where a System.Threading.Lock
    /// allocates its wait event the first time.</summary>
    /// <remarks>Each round uses a new session and slot, so every round is a first contention of its gate: an allocation
    /// the first contention makes repeats in every round, and the best round must be exactly 0. A one-off allocation on
    /// the waiter thread while it blocks (the runtime's, under a loaded machine) does not repeat.</remarks>
    [Fact]
    public void SessionGateContentionAllocatesNothing()
    {
        var settings = new SessionSettings
        {
            ConnectionType = ConnectionType.Acceptor, BeginString = "FIX.4.4", SenderCompID = "EXEC", TargetCompID = "CLIENT",
            SocketAcceptPort = 7001, NonStopSession = true, UseDataDictionary = false,
        };
        long best = long.MaxValue;
        var perRound = new System.Collections.Generic.List<long>();
        for (int round = 0; round < 4 && best != 0; round++)
        {
            using var session = new FixSession(settings, new ProbedFiller(), new FixEngine.Store.MemoryMessageStore(0));
            var slot = new SessionSlot(session, guarded: true);
            long waiterBytes = -1;
            bool contended = false;
            using var holding = new ManualResetEventSlim(false);
            var waiter = new Thread(() =>
            {
                holding.Wait();
                long before = GC.GetAllocatedBytesForCurrentThread();
                using (SessionScope scope = slot.Enter(0))
                {
                    session.Poll(scope.EpochNs);
                }
                waiterBytes = GC.GetAllocatedBytesForCurrentThread() - before;
            });
            waiter.Start();
            using (slot.Enter(0))
            {
                holding.Set();
                // Hold long enough for the waiter to spin out and block.
                Thread.Sleep(50);
                contended = waiter.ThreadState.HasFlag(ThreadState.WaitSleepJoin);
            }
            waiter.Join();
            Assert.True(contended, $"round {round}: the waiter was not blocked on the gate");
            perRound.Add(waiterBytes);
            best = Math.Min(best, waiterBytes);
        }
        Assert.True(best == 0, $"a contended gate entry allocated in every round: {string.Join(", ", perRound)} B");
    }

    private static void RoundTrips(ProbedClient client, ProbedFiller filler, long firstId, int count)
    {
        FixSession session = client.Session!;
        for (long i = firstId; i < firstId + count; i++)
        {
            long target = Volatile.Read(ref client.Fills) + 1;
            while (!session.TrySendFromAnyThread(MsgTypes.NewOrderSingle, i, static (ref FixWriter w, scoped in long id) =>
            {
                w.Write(FixTags.ClOrdID, id);
                w.Write(FixTags.Symbol, "EURUSD"u8);
                w.Write(FixTags.Side, '1');
                w.Write(FixTags.OrderQty, 100);
                w.Write(FixTags.OrdType, '1');
            }))
            {
                Thread.Yield();
            }
            var spin = new SpinWait();
            long started = Environment.TickCount64;
            while (Volatile.Read(ref client.Fills) < target)
            {
                spin.SpinOnce(sleep1Threshold: -1);
                if (Environment.TickCount64 - started > 20_000) Assert.Fail(Stuck(client, filler, i, target, started));
            }
        }
    }

    // A fill 20 s late: where the order is (handed over, numbered and sent, received, filled), and whether it is lost or
    // only late (waits up to 2 minutes more for it).
    private static string Stuck(ProbedClient client, ProbedFiller filler, long order, long target, long started)
    {
        FixSession session = client.Session!;
        string where = $"order {order}: {client.Outbound.Count} orders numbered and sent by the initiator, {filler.Count} received by the acceptor, " +
            $"{Volatile.Read(ref client.Fills)} fills (waiting for {target}); initiator {State(session)}; acceptor {State(filler.Session)}";
        while (Volatile.Read(ref client.Fills) < target && Environment.TickCount64 - started < 140_000) Thread.Sleep(10);
        long fills = Volatile.Read(ref client.Fills);
        return fills >= target
            ? $"the fill came {(Environment.TickCount64 - started) / 1000.0:0.0} s late; at 20 s: {where}; then {client.Outbound.Count} sent, {filler.Count} received"
            : $"no fill within 140 s (lost); at 20 s: {where}; at 140 s: {client.Outbound.Count} sent, {filler.Count} received, {fills} fills; " +
              $"initiator {State(session)}; acceptor {State(filler.Session)}";
    }

    // What a stalled session is waiting for: its numbers, the hand-off, its send backlog, and both halves of the
    // receive pause (asked for by the session, applied by the transport).
    private static string State(FixSession? s) => s is null
        ? "(no session seen)"
        : $"(logged on {s.IsLoggedOn}, next sender {s.NextSenderMsgSeqNum}, next target {s.NextTargetMsgSeqNum}, handed-over waiting " +
          $"{s.HasHandedOverMessages}, send backlog {s.SendBacklogBytes} B, replay pending {s.IsReplayPending}, receive pause asked " +
          $"{s.IsReceivePauseRequested}, transport receive paused {(s.Connection as SessionConnection)?.Transport.IsReceivePaused})";

    /// <summary>
    /// Per thread that calls <see cref="Sample"/> while the window (by call count) is open: its allocated bytes at its
    /// first and last call. Calls are serialised by the session's gate (one session per probe); the window is re-armed
    /// between rounds, when no message is in flight.
    /// </summary>
    private class ThreadWindows
    {
        private const int MaxThreads = 256;
        private readonly int[] _threadIds = new int[MaxThreads];
        private readonly long[] _first = new long[MaxThreads];
        private readonly long[] _last = new long[MaxThreads];
        private int _threads;
        private long _count;
        private long _start = -1;
        private long _end = -1;
        private long _covered;
        private volatile bool _done;

        public bool Done => _done;

        /// <summary>Callbacks so far (any thread reads a recent value).</summary>
        public long Count => Volatile.Read(ref _count);

        /// <summary>Callbacks that followed an earlier callback on the same thread in this window (what the sum covers).</summary>
        public long Covered => Volatile.Read(ref _covered);

        /// <summary>Bytes the sampled threads allocated between their first and last samples in the window.</summary>
        public long Allocated
        {
            get
            {
                long sum = 0;
                int threads = Volatile.Read(ref _threads);
                for (int i = 0; i < threads; i++) sum += _last[i] - _first[i];
                return sum;
            }
        }

        public void Arm(long start, long end)
        {
            _threads = 0;
            _covered = 0;
            _done = false;
            _end = end;
            Volatile.Write(ref _start, start);
        }

        protected void Sample()
        {
            long n = ++_count;
            long start = Volatile.Read(ref _start);
            if (start < 0 || n < start || n > _end) return;
            long bytes = GC.GetAllocatedBytesForCurrentThread();
            int id = Environment.CurrentManagedThreadId;
            int slot = 0;
            while (slot < _threads && _threadIds[slot] != id) slot++;
            if (slot == _threads)
            {
                if (slot == MaxThreads) return;
                _threadIds[slot] = id;
                _first[slot] = bytes;
                Volatile.Write(ref _threads, slot + 1);
            }
            else
            {
                _covered++;
            }
            _last[slot] = bytes;
            if (n == _end) _done = true;
        }
    }

    private sealed class OutboundWindows : ThreadWindows
    {
        public void Take() => Sample();
    }

    private sealed class ProbedFiller : ThreadWindows, IApplication
    {
        /// <summary>The acceptor's session (set by its first FromApp; for the stuck-fill report).</summary>
        public volatile FixSession? Session;

        public FromAppResult FromApp(FixSession session, FixMessage order)
        {
            Session ??= session;
            Sample();
            session.Send(MsgTypes.ExecutionReport, order, static (ref FixWriter w, scoped in FixMessage o) =>
            {
                o.TryGetSpan(FixTags.ClOrdID, out ReadOnlySpan<byte> id);
                w.Write(FixTags.ClOrdID, id);
                w.Write(FixTags.ExecType, 'F');
                w.Write(FixTags.OrdStatus, '2');
            });
            return FromAppResult.Accepted;
        }
    }

    private sealed class ProbedClient : ThreadWindows, IApplication
    {
        public readonly ManualResetEventSlim LoggedOn = new(false);
        public FixSession? Session;
        public long Fills;

        /// <summary>The initiator's outbound application messages (the orders), sampled in ToApp on whichever thread
        /// numbers, stores and sends them: the sending thread itself when the session is free (TrySendFromAnyThread's
        /// direct path), the receiving thread that held the session when the order was handed over, or the agent.</summary>
        public readonly OutboundWindows Outbound = new();

        public void OnLogon(FixSession session)
        {
            Session = session;
            LoggedOn.Set();
        }

        public void ToApp(FixSession session, ReadOnlySpan<byte> message) => Outbound.Take();

        public FromAppResult FromApp(FixSession session, FixMessage message)
        {
            Sample();
            Interlocked.Increment(ref Fills);
            return FromAppResult.Accepted;
        }
    }
}
