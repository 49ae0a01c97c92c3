using System;
using System.IO.Pipelines;
using System.Threading;
using FixEngine.Codec;
using FixEngine.Session;

namespace FixEngine.Tests.Engine;

/// <summary>Receive-pause tests' acceptor: answers order 0 with <paramref name="burst"/> reports (ClOrdIDs 0..burst-1),
/// enough to fill the peer's side and make the session ask to pause reading, and every later order k with one report
/// (ClOrdID burst + k - 1), so the peer's checker sees ClOrdIDs 0, 1, 2, ...</summary>
internal sealed class PausingFillerApp(long burst) : RecordingApp
{
    public long Orders;

    protected override FromAppResult OnApp(FixSession session, FixMessage message)
    {
        if (!message.MsgType.SequenceEqual(MsgTypes.NewOrderSingle)) return FromAppResult.UnsupportedMessageType;
        message.TryGetLong(FixTags.ClOrdID, out long id);
        if (id != Orders) Problem($"order {id} arrived when {Orders} was expected");
        Volatile.Write(ref Orders, id + 1);
        long first = id == 0 ? 0 : burst + id - 1;
        long count = id == 0 ? burst : 1;
        for (long r = first; r < first + count; r++)
        {
            session.Send(MsgTypes.ExecutionReport, r, static (ref FixWriter w, scoped in long report) =>
            {
                w.Write(FixTags.OrderID, report);
                w.Write(FixTags.ClOrdID, report);
                w.Write(FixTags.ExecID, report);
                w.Write(FixTags.ExecType, 'F');
                w.Write(FixTags.OrdStatus, '2');
                w.Write(FixTags.Symbol, "EURUSD-PAUSE-TEST-PADDING-0123456789"u8);
                w.Write(FixTags.Side, '1');
                w.Write(FixTags.LeavesQty, 0L);
                w.Write(FixTags.CumQty, 100L);
                w.Write(FixTags.Text, "report of a receive-pause test: filler to about two hundred and fifty bytes"u8);
            });
        }
        return FromAppResult.Accepted;
    }
}

/// <summary>An <see cref="IDuplexPipe"/> over two ends of in-memory pipes (what a hosting server hands the engine).</summary>
internal sealed class DuplexPipe(PipeReader input, PipeWriter output) : IDuplexPipe
{
    public PipeReader Input { get; } = input;

    public PipeWriter Output { get; } = output;
}
