using System;
using FixEngine.Codec;
using FixEngine.Session;
using FixMessages.Fix44;

namespace FixEngine.Samples.Acceptor;

/// <summary>Answers each NewOrderSingle with a fully filled ExecutionReport.</summary>
/// <remarks>
/// Uses the typed API generated from FIX44.xml (see Acceptor.csproj): the cracker dispatches by MsgType (other types
/// get BusinessMessageReject), the reader gives typed fields and the body writer emits the report in dictionary order.
/// </remarks>
internal sealed class FillApplication : MessageCracker, IApplication
{
    private long _nextId; // FromApp runs on the session's thread only

    public void OnLogon(FixSession session) => Console.WriteLine($"[acceptor] logon {session.Id}");

    public void OnLogout(FixSession session) => Console.WriteLine($"[acceptor] logout {session.Id}");

    public FromAppResult FromApp(FixSession session, FixMessage message) => Crack(session, message);

    public override FromAppResult OnMessage(FixSession session, in NewOrderSingle.Reader order)
    {
        if (order.ClOrdID.IsEmpty) return FromAppResult.RequiredTagMissing(Tags.ClOrdID);
        if (!order.TryGetSide(out _)) return FromAppResult.RequiredTagMissing(Tags.Side);
        session.Send(ExecutionReport.MsgType, new Fill(order, ++_nextId), static (ref FixWriter w, scoped in Fill f) =>
        {
            // ExecID/OrderID text on the stack: FixWriter's and the typed writer's text parameters are scoped.
            Span<byte> id = stackalloc byte[20];
            FixValueFormatter.TryFormatLong(f.Id, id, out int idLength);
            NewOrderSingle.Reader order = f.Order;
            FixDecimal qty = order.OrderQty ?? default;
            FixDecimal price = order.Price ?? new FixDecimal(100, 0);
            ExecutionReport.Begin(ref w)         // the typed body writer: fields in dictionary order, required ones lead on
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
                .LeavesQty(0)                        // a whole quantity: the inlined integer path
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
