using System;
using FixEngine.Codec;
using FixEngine.Session;
using FixEngine.Messages.Fix44;

namespace FixApp;

/// <summary>Fills every NewOrderSingle in full at its limit price (100 without one); other message types get a
/// BusinessMessageReject. Runs on the session's thread: no locks, no allocation per message.</summary>
internal sealed class FillApplication : MessageCracker, IApplication
{
    private long _nextId;

    public void OnLogon(FixSession session) => Console.WriteLine($"logon {session.Id}");

    public void OnLogout(FixSession session) => Console.WriteLine($"logout {session.Id}");

    public FromAppResult FromApp(FixSession session, FixMessage message) => Crack(session, message);

    public override FromAppResult OnMessage(FixSession session, in NewOrderSingle.Reader order)
    {
        if (order.ClOrdID.IsEmpty) return FromAppResult.RequiredTagMissing(Tags.ClOrdID);
        if (!order.TryGetSide(out _)) return FromAppResult.RequiredTagMissing(Tags.Side);
        session.Send(ExecutionReport.MsgType, new Fill(order, ++_nextId), static (ref FixWriter w, scoped in Fill f) =>
        {
            Span<byte> id = stackalloc byte[20];       // OrderID and ExecID, formatted on the stack
            FixValueFormatter.TryFormatLong(f.Id, id, out int idLength);
            NewOrderSingle.Reader order = f.Order;
            FixDecimal qty = order.OrderQty ?? default;
            FixDecimal price = order.Price ?? new FixDecimal(100, 0);
            ExecutionReport.Begin(ref w)               // fields in dictionary order; leaving out a required one does not compile
                .OrderID(id[..idLength])
                .ClOrdID(order.ClOrdID)
                .ExecID(id[..idLength])
                .ExecType(ExecType.Trade)
                .OrdStatus(OrdStatus.Filled)
                .Symbol(order.Symbol)
                .Side(order.Side)
                .OrderQty(qty)
                .LastQty(qty)
                .LastPx(price)
                .LeavesQty(0)
                .CumQty(qty)
                .AvgPx(price)
                .End();
        });
        return FromAppResult.Accepted;
    }

    private readonly ref struct Fill(NewOrderSingle.Reader order, long id)
    {
        public NewOrderSingle.Reader Order { get; } = order;

        public long Id { get; } = id;
    }
}
