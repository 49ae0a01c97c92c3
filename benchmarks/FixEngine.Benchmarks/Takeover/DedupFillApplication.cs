using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Text;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Session;
using FixEngine.Store;

namespace FixEngine.Benchmarks.Takeover;

/// <summary>The acceptor's application of the standby-takeover runs (this harness and PostgresTakeoverTests, which links
/// this file): fills each NewOrderSingle once. A resent order (PossDupFlag=Y) whose ClOrdID already has an
/// ExecutionReport in the session's store, sent by this engine or by the one it took over from, is not filled again
/// (the counterparty has the fill, or gets it by resend), as a venue looks a resent order up by ClOrdID.</summary>
/// <remarks>The store is read once per session, at the first resent order, into a set of filled ClOrdIDs; fills sent
/// after that are added to the set. Orders that are not resent cost nothing more than the fill.</remarks>
internal sealed class DedupFillApplication : IApplication
{
    private readonly ConcurrentDictionary<SessionId, HashSet<string>> _filled = new();

    public FromAppResult FromApp(FixSession session, FixMessage message)
    {
        if (!message.MsgType.SequenceEqual(MsgTypes.NewOrderSingle)) return FromAppResult.UnsupportedMessageType;
        message.TryGetSpan(FixTags.ClOrdID, out ReadOnlySpan<byte> clOrdId);
        if (message.TryGetSpan(FixTags.PossDupFlag, out ReadOnlySpan<byte> possDup) && possDup.SequenceEqual("Y"u8)
            && _filled.GetOrAdd(session.Id, _ => FilledInStore(session)).Contains(Encoding.ASCII.GetString(clOrdId)))
        {
            return FromAppResult.Accepted;
        }
        session.Send(MsgTypes.ExecutionReport, message, static (ref FixWriter w, scoped in FixMessage o) =>
        {
            o.TryGetSpan(FixTags.ClOrdID, out ReadOnlySpan<byte> id);
            w.Write(FixTags.ClOrdID, id);
            w.Write(FixTags.ExecType, 'F');
            w.Write(FixTags.OrdStatus, '2');
        });
        if (_filled.TryGetValue(session.Id, out HashSet<string>? filled)) filled.Add(Encoding.ASCII.GetString(clOrdId));
        return FromAppResult.Accepted;
    }

    // One pass over the sent messages the store holds: the ClOrdID of every ExecutionReport.
    private static HashSet<string> FilledInStore(FixSession session)
    {
        var collect = new CollectFills { Found = [] };
        session.Store.ReadRange(1, 0, ref collect);
        return collect.Found;
    }

    private struct CollectFills : IStoredMessageHandler
    {
        public HashSet<string> Found;

        public readonly bool OnMessage(int seqNum, ReadOnlySpan<byte> message)
        {
            if (message.IndexOf("\u000135=8\u0001"u8) < 0) return true;
            int at = message.IndexOf("\u000111="u8);
            if (at < 0) return true;
            ReadOnlySpan<byte> value = message[(at + 4)..];
            int end = value.IndexOf((byte)1);
            Found.Add(Encoding.ASCII.GetString(end < 0 ? value : value[..end]));
            return true;
        }
    }
}
