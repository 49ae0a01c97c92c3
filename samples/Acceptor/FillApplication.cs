using System;
using FixEngine.Codec;
using FixEngine.Session;
using FixMessages.Fix44;

namespace FixEngine.Samples.Acceptor;

/// <summary>Answers each NewOrderSingle with a fully filled ExecutionReport.</summary>
/// <remarks>
/// Uses the typed API generated from FIX44.xml (see Acceptor.csproj): the cracker dispatches by MsgType (other types
/// get BusinessMessageReject), the reader gives typed fields and the writer emits the report in dictionary order.
/// </remarks>
internal sealed class FillApplication : MessageCracker, IApplication
{
    private readonly byte[] _id = new byte[20]; // ExecID/OrderID text; FromApp runs on the session's thread only
    private long _nextId;

    public void OnLogon(FixSession session) => Console.WriteLine($"[acceptor] logon {session.Id}");

    public void OnLogout(FixSession session) => Console.WriteLine($"[acceptor] logout {session.Id}");

    public FromAppResult FromApp(FixSession session, FixMessage message) => Crack(session, message);

    public override FromAppResult OnMessage(FixSession session, in NewOrderSingle.Reader order)
    {
        if (order.ClOrdID.IsEmpty) return FromAppResult.RequiredTagMissing(Tags.ClOrdID);
        if (!order.TryGetSide(out _)) return FromAppResult.RequiredTagMissing(Tags.Side);
        FixValueFormatter.TryFormatLong(++_nextId, _id, out int idLength);
        session.Send(ExecutionReport.MsgType, new Fill(order, _id.AsSpan(0, idLength)), static (ref FixWriter w, scoped in Fill f) =>
        {
            NewOrderSingle.Reader order = f.Order;
            FixDecimal qty = order.OrderQty ?? default;
            FixDecimal price = order.Price ?? new FixDecimal(100, 0);
            ExecutionReport.Write(ref w, orderID: f.Id, execID: f.Id, execType: ExecType.Trade,
                ordStatus: OrdStatus.Filled, side: order.Side, leavesQty: default, cumQty: qty, avgPx: price,
                clOrdID: order.ClOrdID, symbol: order.Symbol, orderQty: qty, lastQty: qty, lastPx: price);
        });
        return FromAppResult.Accepted;
    }

    private readonly ref struct Fill(NewOrderSingle.Reader order, ReadOnlySpan<byte> id)
    {
        public NewOrderSingle.Reader Order { get; } = order;

        public ReadOnlySpan<byte> Id { get; } = id;
    }
}
