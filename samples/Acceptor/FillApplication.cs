using System;
using FixEngine.Codec;
using FixEngine.Session;

namespace FixEngine.Samples.Acceptor;

/// <summary>Answers each NewOrderSingle with a fully filled ExecutionReport.</summary>
internal sealed class FillApplication : IApplication
{
    private long _nextId;

    public void OnLogon(Session.Session session) => Console.WriteLine($"[acceptor] logon {session.Id}");

    public void OnLogout(Session.Session session) => Console.WriteLine($"[acceptor] logout {session.Id}");

    public FromAppResult FromApp(Session.Session session, FixMessage message)
    {
        if (!message.MsgType.SequenceEqual(MsgTypes.NewOrderSingle)) return FromAppResult.UnsupportedMessageType;
        if (!message.Contains(FixTags.ClOrdID)) return FromAppResult.RequiredTagMissing(FixTags.ClOrdID);
        var fill = new Fill(message, ++_nextId);
        session.Send(MsgTypes.ExecutionReport, fill, static (ref FixWriter w, scoped in Fill f) =>
        {
            FixMessage order = f.Order;
            order.TryGetSpan(FixTags.OrderQty, out ReadOnlySpan<byte> qty);
            bool hasPrice = order.TryGetSpan(FixTags.Price, out ReadOnlySpan<byte> price);
            if (!hasPrice) price = "100"u8;
            w.Write(FixTags.AvgPx, price);
            order.TryGetSpan(FixTags.ClOrdID, out ReadOnlySpan<byte> clOrdId);
            w.Write(FixTags.ClOrdID, clOrdId);
            w.Write(FixTags.CumQty, qty);
            w.Write(FixTags.ExecID, f.Id);
            w.Write(FixTags.LastPx, price);
            w.Write(FixTags.LastQty, qty);
            w.Write(FixTags.OrderID, f.Id);
            w.Write(FixTags.OrderQty, qty);
            w.Write(FixTags.OrdStatus, '2');
            if (order.TryGetSpan(FixTags.Side, out ReadOnlySpan<byte> side)) w.Write(FixTags.Side, side);
            if (order.TryGetSpan(FixTags.Symbol, out ReadOnlySpan<byte> symbol)) w.Write(FixTags.Symbol, symbol);
            w.Write(FixTags.ExecType, 'F');
            w.Write(FixTags.LeavesQty, 0);
        });
        return FromAppResult.Accepted;
    }

    private readonly ref struct Fill(FixMessage order, long id)
    {
        public FixMessage Order { get; } = order;

        public long Id { get; } = id;
    }
}
