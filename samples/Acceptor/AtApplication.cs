using System;
using System.Collections.Generic;
using System.Text;
using FixEngine.Codec;
using FixEngine.Session;

namespace FixEngine.Samples.Acceptor;

/// <summary>The application of the QuickFIX acceptance suite: echoes NewOrderSingle, SecurityDefinition and Email.</summary>
internal sealed class AtApplication : IApplication
{
    private readonly Dictionary<Session.Session, HashSet<string>> _clOrdIds = [];

    public void OnLogon(Session.Session session)
    {
        Console.WriteLine($"[at] logon {session.Id}");
        ClOrdIds(session).Clear();
    }

    public void OnLogout(Session.Session session) => Console.WriteLine($"[at] logout {session.Id}");

    public FromAppResult FromApp(Session.Session session, FixMessage message)
    {
        ReadOnlySpan<byte> msgType = message.MsgType;
        if (msgType.SequenceEqual(MsgTypes.NewOrderSingle))
        {
            bool possResend = message.TryGetBool(FixTags.PossResend, out bool pr) == FixValueStatus.Ok && pr;
            string clOrdId = message.TryGetSpan(FixTags.ClOrdID, out ReadOnlySpan<byte> id) ? Encoding.ASCII.GetString(id) : "";
            HashSet<string> seen = ClOrdIds(session);
            if (possResend && seen.Contains(clOrdId)) return FromAppResult.Accepted;
            seen.Add(clOrdId);
            Echo(session, message);
            return FromAppResult.Accepted;
        }
        if (msgType.SequenceEqual(MsgTypes.SecurityDefinition) || msgType.SequenceEqual(MsgTypes.Email))
        {
            Echo(session, message);
            return FromAppResult.Accepted;
        }
        return FromAppResult.UnsupportedMessageType;
    }

    private HashSet<string> ClOrdIds(Session.Session session)
    {
        if (!_clOrdIds.TryGetValue(session, out HashSet<string>? set))
        {
            set = new HashSet<string>(StringComparer.Ordinal);
            _clOrdIds.Add(session, set);
        }
        return set;
    }

    private static void Echo(Session.Session session, FixMessage message)
    {
        session.Send(message.MsgType, message, static (ref FixWriter w, scoped in FixMessage m) =>
        {
            for (int i = 0; i < m.Count; i++)
            {
                int tag = m.GetTag(i);
                if (tag is 8 or 9 or 10 or 34 or 35 or 49 or 52 or 56 or 43 or 122) continue;
                w.Write(tag, m.GetValue(i));
            }
        });
    }
}
