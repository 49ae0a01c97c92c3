using System;
using FixEngine.Codec;
using FixEngine.Session;
using FixMessages.Fix44;

namespace FixEngine.Samples.Acceptor;

/// <summary>Answers each NewOrderSingle with a fully filled ExecutionReport that is valid FIX for the session's version.</summary>
/// <remarks>
/// Uses the typed API generated from FIX44.xml (see Acceptor.csproj): the cracker dispatches by MsgType (other types
/// get BusinessMessageReject), the reader gives typed fields and the body writer emits the report in dictionary order.
/// FIX.4.4 and FIXT.1.1 (FIX.5.0 and later) sessions get that report. The older versions require other fields: FIX.4.0
/// to 4.2 ExecTransType(20), FIX.4.0 and 4.1 LastShares(32), LastPx(31) and OrderQty(38), and before FIX.4.3 ExecType(150)
/// has no Trade (F): a fill is 150=2. Orders on those versions are read and answered with the raw <see cref="FixMessage"/>
/// and <see cref="FixWriter"/>.
/// </remarks>
internal sealed class FillApplication : MessageCracker, IApplication
{
    private long _nextId; // FromApp runs on the session's thread only

    public void OnLogon(FixSession session) => Console.WriteLine($"[acceptor] logon {session.Id}");

    public void OnLogout(FixSession session) => Console.WriteLine($"[acceptor] logout {session.Id}");

    public FromAppResult FromApp(FixSession session, FixMessage message)
    {
        string beginString = session.Id.BeginString;
        if (beginString is "FIX.4.0" or "FIX.4.1" or "FIX.4.2" or "FIX.4.3" && message.MsgType.SequenceEqual(MsgTypes.NewOrderSingle))
        {
            return FillOlderVersion(session, message, beginString[6] - '0');
        }
        return Crack(session, message);
    }

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

    // FIX.4.0 to 4.3: the same fill with the fields each of those versions requires (raw reader and writer).
    private FromAppResult FillOlderVersion(FixSession session, FixMessage order, int minor)
    {
        if (!order.TryGetSpan(FixTags.ClOrdID, out _)) return FromAppResult.RequiredTagMissing(FixTags.ClOrdID);
        if (order.TryGetChar(FixTags.Side, out _) != FixValueStatus.Ok) return FromAppResult.RequiredTagMissing(FixTags.Side);
        session.Send(MsgTypes.ExecutionReport, new OlderFill(order, ++_nextId, minor), static (ref FixWriter w, scoped in OlderFill f) =>
        {
            Span<byte> id = stackalloc byte[20];
            FixValueFormatter.TryFormatLong(f.Id, id, out int idLength);
            FixMessage o = f.Order;
            o.TryGetSpan(FixTags.ClOrdID, out ReadOnlySpan<byte> clOrdId);
            o.TryGetChar(FixTags.Side, out char side);
            FixDecimal qty = o.TryGetDecimal(FixTags.OrderQty, out FixDecimal q) == FixValueStatus.Ok ? q : default;
            FixDecimal price = o.TryGetDecimal(FixTags.Price, out FixDecimal p) == FixValueStatus.Ok ? p : new FixDecimal(100, 0);
            w.Write(FixTags.AvgPx, price);
            w.Write(FixTags.ClOrdID, clOrdId);
            w.Write(FixTags.CumQty, qty);
            w.Write(FixTags.ExecID, id[..idLength]);
            if (f.Minor <= 2) w.Write(FixTags.ExecTransType, '0');  // New; ExecTransType left FIX in 4.3
            w.Write(FixTags.LastPx, price);
            w.Write(FixTags.LastQty, qty);                           // LastShares(32) before FIX.4.3
            w.Write(FixTags.OrderID, id[..idLength]);
            w.Write(FixTags.OrderQty, qty);
            w.Write(FixTags.OrdStatus, '2');                         // Filled
            w.Write(FixTags.Side, side);
            if (o.TryGetSpan(FixTags.Symbol, out ReadOnlySpan<byte> symbol)) w.Write(FixTags.Symbol, symbol);
            if (f.Minor >= 1)
            {
                w.Write(FixTags.ExecType, f.Minor >= 3 ? 'F' : '2'); // Trade from FIX.4.3; Fill before
                w.Write(FixTags.LeavesQty, 0);
            }
        });
        return FromAppResult.Accepted;
    }

    private readonly ref struct OlderFill(FixMessage order, long id, int minor)
    {
        public FixMessage Order { get; } = order;

        public long Id { get; } = id;

        public int Minor { get; } = minor;
    }

    private readonly ref struct Fill(NewOrderSingle.Reader order, long id)
    {
        public NewOrderSingle.Reader Order { get; } = order;

        public long Id { get; } = id;
    }
}
