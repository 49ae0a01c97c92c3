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
using static FixEngine.Tests.Engine.EngineTestSupport;
using static FixEngine.Tests.Engine.RawPeerMessages;

namespace FixEngine.Tests.Engine;

/// <summary>A slow consumer over real sockets: the initiator's application holds its engine thread inside the first
/// ExecutionReport while the acceptor answers one order with a burst far larger than the socket buffers (64 KiB asked)
/// and the transport's 1 MiB send queue together, so the acceptor's transport must refuse messages (Backpressure)
/// whatever the timing. Every report must still arrive once, in order, with no gap and no resend. Before the session
/// kept refused messages, the completion-mode run received 4,750 of 8,000 reports and then nothing (the rest were
/// dropped and the resend stuck), and the busy-poll run received reports 4,750 on only as resends after 30 s.</summary>
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
        int port = FreePort();
        (IReadOnlyList<SessionSettings> acceptorSettings, IReadOnlyList<SessionSettings> initiatorSettings) = ExecClientPair(Defaults(receiveMode), port);
        var burster = new BurstApp();
        var client = new SlowClientApp();
        using var acceptor = new FixEngineHost(acceptorSettings, burster);
        acceptor.Start();
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
    /// A peer that sends orders without reading the reports: the acceptor's outbound backlog passes the receive-pause
    /// threshold, the engine stops reading that socket, and TCP flow control stops the peer's writes (small socket
    /// buffers keep what the kernel holds small). So the peer cannot send all its orders before it reads, and the
    /// acceptor's backlog stays near the threshold instead of holding the answers to everything the peer could send
    /// (without the pause: all 50,000 reports, about 11 MB). Once the peer reads, every report arrives, in order.
    /// </summary>
    [Theory(Skip = "Known defect under investigation (README, Known gaps): with the CPU saturated, in about 1 of 12 runs and in"
        + " both receive modes, the acceptor stops taking the peer's orders after ~2,000-2,500 of them while its agent runs, its"
        + " transport is not paused and its send backlog is empty; the peer's writes then block for good. Remove the Skip to"
        + " reproduce: run this test in a loop beside three busy CPU loops.")]
    [InlineData("BusyPoll")]
    [InlineData("Completion")]
    public void APeerThatDoesNotReadIsSlowedDownByTcpFlowControl(string receiveMode)
    {
        const int Orders = 50_000;
        int port = FreePort();
        (IReadOnlyList<SessionSettings> acceptorSettings, _) = ExecClientPair(Defaults(receiveMode), port);
        var filler = new FillerApp();
        using var acceptor = new FixEngineHost(acceptorSettings, filler);
        acceptor.Start();
        using var peer = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp)
        {
            NoDelay = true, SendBufferSize = 65536, ReceiveBufferSize = 65536,
        };
        peer.Connect(new IPEndPoint(IPAddress.Loopback, port));
        peer.Blocking = false;
        var stream = new PeerStream(peer);
        stream.Queue(Message(1, "35=A|98=0|108=30|141=Y"));
        int nextOrder = 0;

        // Phase 1: write orders as fast as the socket takes them, reading nothing, until the acceptor has asked to stop
        // reading and the socket has refused 20 writes in a row (a paused acceptor reads nothing until its stall bound,
        // 1 s; one that still reads would take every order).
        var watch = Stopwatch.StartNew();
        bool pausedAndBlocked = false;
        int refused = 0;
        while (nextOrder < Orders && watch.Elapsed < Wait)
        {
            if (!stream.HasPending) stream.Queue(Order(nextOrder++));
            if (stream.TrySend())
            {
                refused = 0;
                continue;
            }
            if (filler.Session is { IsReceivePauseRequested: true } && ++refused >= 20)
            {
                pausedAndBlocked = true;
                break;
            }
            peer.Poll(10_000, SelectMode.SelectWrite);
        }
        string agentState = "";
        if (!pausedAndBlocked && filler.Session is { } stuck)
        {
            // Diagnosis of a rare failure under CPU load: is the acceptor's agent still running (session time moves),
            // and is its transport paused?
            long before = stuck.NowNs;
            Thread.Sleep(500);
            agentState = $" session time moved {(stuck.NowNs - before) / 1_000_000} ms in 500 ms;"
                + $" transport paused {(stuck.Connection as SessionConnection)?.Transport.IsReceivePaused}";
        }
        Assert.True(pausedAndBlocked, agentState + $" the peer wrote {nextOrder} orders without reading and was never held back by a paused acceptor"
            + $" (acceptor app saw {Volatile.Read(ref filler.Orders)} orders; session connected {filler.Session?.IsConnected},"
            + $" backlog {filler.Session?.SendBacklogBytes} B, back-pressure count {filler.Session?.SendBackpressureCount},"
            + $" pause requested {filler.Session?.IsReceivePauseRequested}; peer write pending {stream.HasPending}, refused {refused})");
        FixSession session = filler.Session!;

        // Phase 2: read the reports, and send the rest as the socket takes them.
        while (stream.Reports < Orders && watch.Elapsed < Wait)
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
        Assert.Equal(Orders, stream.Reports);
        filler.AssertClean();
        Assert.Equal(0, session.GapsDetected);
        Assert.True(session.SendBackpressureCount > 0);
        // Threshold (1 MiB) plus the answers to what the receives of one duty cycle had already read; far below the
        // ~11 MB of reports.
        Assert.True(session.SendBacklogHighWaterBytes < 4L << 20, $"backlog reached {session.SendBacklogHighWaterBytes} B");
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
