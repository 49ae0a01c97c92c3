using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.Net;
using System.Net.Sockets;
using System.Threading;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Session;
using FixEngine.Tests.Transport;
using FixEngine.Tests.Infrastructure;
using FixEngine.Timing;
using static FixEngine.Tests.Engine.EngineTestSupport;
using static FixEngine.Tests.Engine.RawPeerMessages;

namespace FixEngine.Tests.Engine;

/// <summary>A slow consumer over real sockets: the initiator's application holds its engine thread inside the first
/// ExecutionReport while the acceptor answers one order with a burst far larger than the socket buffers (64 KiB asked)
/// and the transport's 1 MiB send queue together, so the acceptor's transport must refuse messages (Backpressure)
/// whatever the timing. Every report must still arrive once, in order, with no gap and no resend (a session that
/// dropped refused messages would leave a gap only a stuck or late resend could fill).</summary>
public sealed class BackpressureEngineTests
{
    /// <summary>ExecutionReports in the burst: about 2 MB, twice the transport's send queue.</summary>
    private const int Burst = 8_000;

    private static string Defaults(string receiveMode) => $"""
        [DEFAULT]
        NonStopSession=Y
        UseDataDictionary=N
        ResetOnLogon=Y
        HeartBtInt=30
        ReceiveMode={receiveMode}
        IdleStrategy=Yielding
        SocketSendBufferSize=65536
        SocketReceiveBufferSize=65536
        """;

    [Theory]
    [InlineData("BusyPoll")]
    [InlineData("Completion")]
    [InlineData("Dedicated")]
    public void ABurstIntoASlowConsumerArrivesWholeAndInOrder(string receiveMode)
    {
        int port = 0;
        (IReadOnlyList<SessionSettings> acceptorSettings, IReadOnlyList<SessionSettings> initiatorSettings) = ExecClientPair(Defaults(receiveMode), port);
        var burster = new BurstApp();
        var client = new SlowClientApp();
        using var acceptor = new FixEngineHost(acceptorSettings, burster);
        acceptor.Start();
        port = EngineTestSupport.PortOf(acceptor);
        initiatorSettings = EngineTestSupport.WithConnectPort(initiatorSettings, port);
        using var initiator = new FixEngineHost(initiatorSettings, client);
        initiator.Start();
        try
        {
            Assert.True(client.LoggedOn.Wait(Wait), "initiator did not log on");
            Assert.True(burster.LoggedOn.Wait(Wait), "acceptor did not log on");
            FixSession session = client.Session!;
            FixSession acceptorSession = burster.Session!;

            SendOrder(session, 1);
            // The whole burst has been handed to the acceptor's session while the initiator reads nothing.
            Assert.True(burster.BurstSent.Wait(Wait), "the acceptor did not finish its burst");
            Assert.True(acceptorSession.SendBackpressureCount > 0, "the burst fit in the transport: the test did not fill it");
            client.Release.Set();

            Assert.True(WaitFor(() => Volatile.Read(ref client.Reports) == Burst), $"{Volatile.Read(ref client.Reports)} of {Burst} reports");
            Assert.True(WaitFor(() => acceptorSession.SendBacklogBytes == 0), "the acceptor's backlog did not drain");
            client.AssertClean();
            burster.AssertClean();
            Assert.Equal(0, session.GapsDetected);
            Assert.Equal(0, session.ResendRequestsSent);
            Assert.Equal(0, acceptorSession.ResendRequestsReceived);
            Assert.True(acceptorSession.SendBacklogHighWaterBytes > 0);
        }
        finally
        {
            client.Release.Set();
            initiator.Stop(TimeSpan.FromSeconds(5));
        }
    }

    /// <summary>
    /// A peer that sends orders without reading the reports is held back by TCP flow control once the acceptor pauses
    /// its receive side: its first order is answered with a burst of <see cref="PauseBurst"/> reports that fills the
    /// peer's socket, the acceptor's socket and transport queue and passes the 1 MiB receive-pause threshold of the
    /// session's backlog, so the pause does not depend on any later packet arriving. The engine runs on a frozen
    /// <see cref="FakeClock"/>, so the session's 1 s no-progress bound never lifts the pause while the peer reads nothing.
    /// The peer then writes orders until its socket refuses them (the paused acceptor reads nothing more), reads, and
    /// every report arrives once, in order.
    /// </summary>
    /// <remarks>
    /// This used to be timed by the kernel: the peer wrote orders until the acceptor's backlog reached the threshold,
    /// about 24,000 orders after its own receive buffer had filled. On loopback with 64 KiB buffers the full receive
    /// queue of the peer drops the acceptor's segments (and the ACKs they carry); both ends then retransmit with
    /// exponential back-off (ss: <c>d18</c> at the peer, <c>d3</c> at the acceptor, <c>backoff:3 rto:1632 cwnd:1 lost:10</c>;
    /// TcpExt RcvPruned, TCPOFODrop, TCPTimeouts) while the acceptor's socket has 0 unread bytes, its backlog is empty
    /// and the session is not paused, so under load the peer's orders could stop arriving for seconds (all of them
    /// arrive at once when the peer reads). Run on the real clock, the session's no-progress bound could also lift the
    /// pause before the peer saw its writes refused. Neither is an engine defect; neither can happen here.
    /// </remarks>
    [Theory]
    [InlineData("BusyPoll")]
    [InlineData("Completion")]
    public void APeerThatDoesNotReadIsSlowedDownByTcpFlowControl(string receiveMode)
    {
        const int Orders = 20_000;
        long epoch = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds() * 1_000_000L;
        var clock = new FakeClock(nowNs: 1_000_000_000_000L, epochNs: epoch);
        int port = 0;
        (IReadOnlyList<SessionSettings> acceptorSettings, _) = ExecClientPair(Defaults(receiveMode) + "\nCheckLatency=N", port);
        var app = new PausingFillerApp(PauseBurst);
        using var acceptor = new FixEngineHost(acceptorSettings, app, new EngineOptions { Clock = clock });
        acceptor.Start();
        port = EngineTestSupport.PortOf(acceptor);
        using var peer = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp)
        {
            NoDelay = true, SendBufferSize = 65536, ReceiveBufferSize = 65536,
        };
        peer.Connect(new IPEndPoint(IPAddress.Loopback, port));
        peer.Blocking = false;
        var stream = new PeerStream(peer);
        var deadline = Stopwatch.StartNew();

        // Phase 1: the Logon and order 0; its burst makes the session ask to stop reading, and the transport stops.
        stream.Queue(Message(1, "35=A|98=0|108=30|141=Y"));
        while (stream.HasPending && deadline.Elapsed < Wait) if (!stream.TrySend()) peer.Poll(10_000, SelectMode.SelectWrite);
        stream.Queue(Order(0));
        while (stream.HasPending && deadline.Elapsed < Wait) if (!stream.TrySend()) peer.Poll(10_000, SelectMode.SelectWrite);
        Assert.True(WaitFor(() => app.Session is { IsReceivePauseRequested: true }),
            $"the burst did not pause the acceptor's receive side (backlog {app.Session?.SendBacklogBytes} B)");
        FixSession session = app.Session!;
        Assert.True(WaitFor(() => (session.Connection as SessionConnection)?.Transport.IsReceivePaused == true), "the transport did not pause");

        // Phase 2: orders until the socket refuses 20 writes in a row; the paused acceptor takes none of them.
        int nextOrder = 1;
        int refused = 0;
        while (nextOrder < Orders && refused < 20 && deadline.Elapsed < Wait)
        {
            if (!stream.HasPending) stream.Queue(Order(nextOrder++));
            if (stream.TrySend())
            {
                refused = 0;
                continue;
            }
            refused++;
            peer.Poll(10_000, SelectMode.SelectWrite);
        }
        Assert.True(refused >= 20, $"the peer wrote {nextOrder} orders without reading and was never held back");
        Assert.True(session.IsReceivePauseRequested, "the pause was lifted while the peer read nothing");
        Assert.True(Volatile.Read(ref app.Orders) < nextOrder, $"the paused acceptor took all {nextOrder} orders");

        // Phase 3: read the reports, and send the rest as the socket takes them. The kernel may have dropped segments
        // while the peer's receive queue was full; their retransmission (with back-off) only delays this loop.
        long expected = PauseBurst + Orders - 1;
        var phase3 = Stopwatch.StartNew();
        while (stream.Reports < expected && phase3.Elapsed < TimeSpan.FromSeconds(120))
        {
            bool progress = stream.TrySend();
            if (!stream.HasPending && nextOrder < Orders)
            {
                stream.Queue(Order(nextOrder++));
                progress = true;
            }
            progress |= stream.Receive();
            if (!progress) peer.Poll(1_000, SelectMode.SelectRead);
        }
        Assert.Empty(stream.Problems);
        Assert.Equal(expected, stream.Reports);
        app.AssertClean();
        Assert.Equal(Orders, Volatile.Read(ref app.Orders));
        Assert.Equal(0, session.GapsDetected);
        Assert.True(session.SendBackpressureCount > 0);
        // The burst less what the sockets and the transport's queue held, plus the answers to what one receive had
        // already read; far below the ~8.8 MB of all the reports.
        Assert.True(session.SendBacklogHighWaterBytes < 6L << 20, $"backlog reached {session.SendBacklogHighWaterBytes} B");
    }

    /// <summary>The raw peer's non-blocking socket: one message pending to write, and a framer over what it reads
    /// that checks the ExecutionReports' ClOrdIDs (0, 1, 2, ...) and MsgSeqNums (contiguous after the Logon).</summary>
    private sealed class PeerStream(Socket socket)
    {
        private readonly byte[] _in = new byte[1 << 20];
        private readonly ExecutionReportChecker _checker = new();
        private byte[] _pending = [];
        private int _pendingAt;
        private int _inLength;

        public long Reports => _checker.Reports;

        public List<string> Problems => _checker.Problems;

        public bool HasPending => _pendingAt < _pending.Length;

        public void Queue(byte[] message)
        {
            _pending = message;
            _pendingAt = 0;
        }

        /// <summary>Writes what the socket takes; false when it took nothing.</summary>
        public bool TrySend()
        {
            if (!HasPending) return true;
            int n = socket.Send(_pending, _pendingAt, _pending.Length - _pendingAt, SocketFlags.None, out SocketError error);
            if (error == SocketError.WouldBlock) return false;
            Assert.Equal(SocketError.Success, error);
            _pendingAt += n;
            return n > 0;
        }

        /// <summary>Reads and checks what has arrived; false when nothing had.</summary>
        public bool Receive()
        {
            int n = socket.Receive(_in, _inLength, _in.Length - _inLength, SocketFlags.None, out SocketError error);
            if (error == SocketError.WouldBlock) return false;
            Assert.Equal(SocketError.Success, error);
            Assert.True(n > 0, "the acceptor closed the connection");
            _inLength = _checker.Consume(_in, _inLength + n);
            return true;
        }
    }

    /// <summary>Answers one NewOrderSingle with <see cref="Burst"/> ExecutionReports from inside FromApp.</summary>
    private sealed class BurstApp : RecordingApp
    {
        public readonly ManualResetEventSlim BurstSent = new(false);

        protected override FromAppResult OnApp(FixSession session, FixMessage message)
        {
            if (!message.MsgType.SequenceEqual(MsgTypes.NewOrderSingle)) return FromAppResult.UnsupportedMessageType;
            for (long i = 0; i < Burst; i++)
            {
                session.Send(MsgTypes.ExecutionReport, i, static (ref FixWriter w, scoped in long id) =>
                {
                    w.Write(FixTags.OrderID, id);
                    w.Write(FixTags.ClOrdID, id);
                    w.Write(FixTags.ExecID, id);
                    w.Write(FixTags.ExecType, '0');
                    w.Write(FixTags.OrdStatus, '0');
                    w.Write(FixTags.Symbol, "EURUSD-BURST-TEST-PADDING-0123456789"u8);
                    w.Write(FixTags.Side, '1');
                    w.Write(FixTags.LeavesQty, 100L);
                    w.Write(FixTags.CumQty, 0L);
                    w.Write(FixTags.Text, "slow consumer burst: each report is about two hundred and fifty bytes long"u8);
                });
            }
            BurstSent.Set();
            return FromAppResult.Accepted;
        }
    }

    /// <summary>Reports in answer to order 0 of the non-reading peer: about 4 MB, far more than the sockets, the
    /// transport's 1 MiB queue and the 1 MiB receive-pause threshold together.</summary>
    private const int PauseBurst = 16_000;


    /// <summary>Holds its engine thread in the first report until released; then checks the ClOrdIDs arrive 0, 1, 2, ...</summary>
    private sealed class SlowClientApp : RecordingApp
    {
        public readonly ManualResetEventSlim Release = new(false);
        public long Reports;

        protected override FromAppResult OnApp(FixSession session, FixMessage message)
        {
            if (!message.MsgType.SequenceEqual(MsgTypes.ExecutionReport)) return FromAppResult.UnsupportedMessageType;
            if (Volatile.Read(ref Reports) == 0 && !Release.Wait(Wait)) Problem("never released");
            message.TryGetLong(FixTags.ClOrdID, out long id);
            if (id != Reports) Problem($"report {id} arrived when {Reports} was expected");
            if (message.Contains(FixTags.PossDupFlag)) Problem($"report {id} is a resend");
            Volatile.Write(ref Reports, id + 1);
            return FromAppResult.Accepted;
        }
    }
}
