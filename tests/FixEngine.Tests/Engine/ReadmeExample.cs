using System;
using FixEngine.Codec;
using FixEngine.Session;

namespace FixEngine.Tests.Engine;

/// <summary>The application shown in README.md, kept here so the README example keeps compiling.</summary>
internal sealed class ReadmeFills : IApplication
{
    public FromAppResult FromApp(FixSession session, FixMessage order)
    {
        if (!order.MsgType.SequenceEqual(MsgTypes.NewOrderSingle)) return FromAppResult.UnsupportedMessageType;
        session.Send(MsgTypes.ExecutionReport, order, static (ref FixWriter w, scoped in FixMessage o) =>
        {
            o.TryGetSpan(FixTags.ClOrdID, out var id);
            o.TryGetSpan(FixTags.Symbol, out var symbol);
            o.TryGetChar(FixTags.Side, out char side);
            o.TryGetDecimal(FixTags.OrderQty, out FixDecimal qty);
            w.Write(FixTags.OrderID, id);
            w.Write(FixTags.ExecID, id);
            w.Write(FixTags.ClOrdID, id);
            w.Write(FixTags.ExecType, 'F');
            w.Write(FixTags.OrdStatus, '2');
            w.Write(FixTags.Symbol, symbol);
            w.Write(FixTags.Side, side);
            w.Write(FixTags.LeavesQty, 0);
            w.Write(FixTags.CumQty, qty);
            w.Write(FixTags.AvgPx, 100);
        });
        return FromAppResult.Accepted;
    }
}
