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
            o.TryGetSpan(FixTags.ClOrdID, out var clOrdId);
            w.Write(FixTags.ClOrdID, clOrdId);
            w.Write(FixTags.ExecType, 'F');
            w.Write(FixTags.OrdStatus, '2');
        });
        return FromAppResult.Accepted;
    }
}
