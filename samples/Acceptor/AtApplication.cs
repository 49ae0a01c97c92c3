using System;
using System.Collections.Generic;
using System.Linq;
using System.Text;
using FixEngine.Codec;
using FixEngine.Dictionary;
using FixEngine.Session;

namespace FixEngine.Samples.Acceptor;

/// <summary>The application of the QuickFIX acceptance suite: echoes NewOrderSingle, SecurityDefinition and Email.</summary>
internal sealed class AtApplication : IApplication
{
    private readonly Dictionary<FixSession, HashSet<string>> _clOrdIds = [];
    private readonly Dictionary<string, DataDictionary> _dictionaries = new(StringComparer.Ordinal);

    public void OnLogon(FixSession session)
    {
        Console.WriteLine($"[at] logon {session.Id}");
        ClOrdIds(session).Clear();
    }

    public void OnLogout(FixSession session) => Console.WriteLine($"[at] logout {session.Id}");

    public FromAppResult FromApp(FixSession session, FixMessage message)
    {
        ReadOnlySpan<byte> msgType = message.MsgType;
        if (msgType.SequenceEqual(MsgTypes.NewOrderSingle))
        {
            bool possResend = message.TryGetBool(FixTags.PossResend, out bool pr) == FixValueStatus.Ok && pr;
            string clOrdId = message.TryGetSpan(FixTags.ClOrdID, out ReadOnlySpan<byte> id) ? Encoding.ASCII.GetString(id) : "";
            HashSet<string> seen = ClOrdIds(session);
            if (possResend && seen.Contains(clOrdId)) return FromAppResult.Accepted;
            seen.Add(clOrdId);
            Echo(session, message, AppDictionary(session), HeaderDictionary(session));
            return FromAppResult.Accepted;
        }
        if (msgType.SequenceEqual(MsgTypes.SecurityDefinition) || msgType.SequenceEqual(MsgTypes.Email))
        {
            Echo(session, message, AppDictionary(session), HeaderDictionary(session));
            return FromAppResult.Accepted;
        }
        return FromAppResult.UnsupportedMessageType;
    }

    private HashSet<string> ClOrdIds(FixSession session)
    {
        if (!_clOrdIds.TryGetValue(session, out HashSet<string>? set))
        {
            set = new HashSet<string>(StringComparer.Ordinal);
            _clOrdIds.Add(session, set);
        }
        return set;
    }

    // The session's application dictionary (loaded once per file), to find where each repeating group ends.
    private DataDictionary? AppDictionary(FixSession session) => Load(session.Settings.AppDataDictionary ?? session.Settings.DataDictionary);

    // The dictionary that defines the header: the transport dictionary on FIXT.1.1 (FIX.5.0's application
    // dictionaries have an empty header, so ApplVerID(1128) is a header field only there).
    private DataDictionary? HeaderDictionary(FixSession session) => Load(session.Settings.TransportDataDictionary ?? session.Settings.DataDictionary);

    private DataDictionary? Load(string? path)
    {
        if (path is null) return null;
        if (!_dictionaries.TryGetValue(path, out DataDictionary? dictionary))
        {
            dictionary = DataDictionary.Load(path);
            _dictionaries.Add(path, dictionary);
        }
        return dictionary;
    }

    // Sends the message back as QuickFIX's test application does (it sends a copy of the parsed message): header fields
    // first, then the body in ascending tag order, each repeating group right after its count field with its entries as
    // they came. The session writes 8, 9, 35, 34, 49, 52, 56 and 10 itself.
    private static void Echo(FixSession session, FixMessage message, DataDictionary? dictionary, DataDictionary? headerDictionary)
    {
        var header = new List<(int Start, int End)>();
        var body = new List<(int Tag, int Start, int End)>();
        for (int i = 0; i < message.Count; i++)
        {
            int tag = message.GetTag(i);
            if (tag is 8 or 9 or 10 or 34 or 35 or 49 or 52 or 56 or 43 or 122) continue;
            int end = i + 1;
            FixGroupDefinition? group = dictionary?.GetFixGroupDefinition(message.MsgType, tag);
            if (group is not null)
            {
                FixGroup found = message.GetGroup(group);
                if (found.CountFieldIndex == i && found.EndFieldIndex > end) end = found.EndFieldIndex;
            }
            if (headerDictionary is not null && headerDictionary.Header.IsAllowed(tag)) header.Add((i, end));
            else body.Add((tag, i, end));
            i = end - 1;
        }
        var order = new List<(int Start, int End)>(header);
        order.AddRange(body.OrderBy(u => u.Tag).Select(u => (u.Start, u.End)));
        session.Send(message.MsgType, new EchoState(message, order), static (ref FixWriter w, scoped in EchoState s) =>
        {
            foreach ((int start, int end) in s.Order)
            {
                for (int i = start; i < end; i++) w.Write(s.Message.GetTag(i), s.Message.GetValue(i));
            }
        });
    }

    private readonly ref struct EchoState(FixMessage message, List<(int Start, int End)> order)
    {
        public FixMessage Message { get; } = message;
        public List<(int Start, int End)> Order { get; } = order;
    }
}
