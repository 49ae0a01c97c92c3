using System;
using System.Collections.Generic;
using System.Threading;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Session;
using static FixEngine.Tests.Engine.EngineTestSupport;

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
