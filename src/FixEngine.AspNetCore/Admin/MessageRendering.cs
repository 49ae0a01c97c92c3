using System;
using System.Collections.Generic;
using System.Globalization;
using System.Text;
using System.Text.Json;
using FixEngine.Dictionary;

namespace FixEngine.AspNetCore;

/// <summary>A FIX message the console shows: where it came from, its MsgSeqNum and its fields, each with the name (and
/// enum meaning) from the session's dictionary.</summary>
internal sealed class RenderedMessage
{
    public required string Source { get; init; }
    public required string Direction { get; init; }
    public required int SeqNum { get; init; }
    public string? Time { get; init; }
    public required string Raw { get; init; }
    public required List<(int Tag, string? Name, string Value, string? Meaning)> Fields { get; init; }

    public void Write(Utf8JsonWriter w)
    {
        w.WriteStartObject();
        w.WriteString("source", Source);
        w.WriteString("direction", Direction);
        w.WriteNumber("seqNum", SeqNum);
        w.WriteString("time", Time);
        w.WriteString("raw", Raw);
        w.WriteStartArray("fields");
        foreach ((int tag, string? name, string value, string? meaning) in Fields)
        {
            w.WriteStartObject();
            w.WriteNumber("tag", tag);
            w.WriteString("name", name);
            w.WriteString("value", value);
            w.WriteString("meaning", meaning);
            w.WriteEndObject();
        }
        w.WriteEndArray();
        w.WriteEndObject();
    }
}

/// <summary>Splits a FIX message into fields and names them from the session's dictionaries (a few session-level tags
/// are named without one).</summary>
/// <remarks>A FIXT.1.1 session with several application versions (<c>AppDataDictionary.&lt;version&gt;</c>) names an
/// application field from the dictionary the message's version selects, as the session validates it: its ApplVerID(1128)
/// when it has one; else, for a message received, the counterparty's DefaultApplVerID(1137), and for one sent, the
/// session's DefaultApplVerID. A version without a dictionary (a message the session rejected) falls back to the
/// DefaultApplVerID's.</remarks>
/// <param name="session">The header/trailer/admin dictionary, or null.</param>
/// <param name="application">The application dictionary (FIX.4.x: none, the session dictionary has it all; FIXT.1.1:
/// the DefaultApplVerID's), or null.</param>
/// <param name="versions">FIXT.1.1 with several application versions: the dictionary of each; null otherwise.</param>
/// <param name="inboundDefault">With <paramref name="versions"/>: the dictionary of the counterparty's DefaultApplVerID.</param>
internal sealed class MessageRenderer(DataDictionary? session, DataDictionary? application,
    FixEngine.Session.ApplicationDictionaries? versions = null, DataDictionary? inboundDefault = null)
{
    /// <summary>The renderer of <paramref name="s"/>'s messages (its dictionaries; any thread).</summary>
    public static MessageRenderer For(FixEngine.Session.FixSession s) =>
        new(s.SessionDictionary, s.ApplicationDictionary, s.ApplicationVersions, s.CounterpartyApplicationDictionary);

    /// <summary>The application dictionary <paramref name="message"/> is named from (see the remarks).</summary>
    /// <param name="message">The message.</param>
    /// <param name="direction"><c>in</c> (received) or <c>out</c> (sent).</param>
    public DataDictionary? ApplicationFor(ReadOnlySpan<byte> message, string direction)
    {
        if (versions is null) return application;
        if (TryGetField(message, "1128="u8, out ReadOnlySpan<byte> applVerId)) return versions.Find(applVerId) ?? application;
        return direction == "in" ? inboundDefault ?? application : application;
    }

    // Names for a session without a dictionary (UseDataDictionary=N): the header, the trailer and the tags a desk
    // searches by most.
    private static readonly Dictionary<int, string> s_builtIn = new()
    {
        [8] = "BeginString", [9] = "BodyLength", [10] = "CheckSum", [11] = "ClOrdID", [14] = "CumQty", [17] = "ExecID",
        [34] = "MsgSeqNum", [35] = "MsgType", [36] = "NewSeqNo", [37] = "OrderID", [38] = "OrderQty", [39] = "OrdStatus",
        [40] = "OrdType", [41] = "OrigClOrdID", [43] = "PossDupFlag", [44] = "Price", [45] = "RefSeqNum", [49] = "SenderCompID",
        [52] = "SendingTime", [54] = "Side", [55] = "Symbol", [56] = "TargetCompID", [58] = "Text", [60] = "TransactTime",
        [97] = "PossResend", [98] = "EncryptMethod", [108] = "HeartBtInt", [112] = "TestReqID", [122] = "OrigSendingTime",
        [123] = "GapFillFlag", [141] = "ResetSeqNumFlag", [150] = "ExecType", [151] = "LeavesQty", [371] = "RefTagID",
        [372] = "RefMsgType", [373] = "SessionRejectReason", [789] = "NextExpectedMsgSeqNum", [1128] = "ApplVerID",
        [1137] = "DefaultApplVerID",
    };

    public RenderedMessage Render(string source, string direction, ReadOnlySpan<byte> message, string? time = null)
    {
        DataDictionary? app = ApplicationFor(message, direction);
        var fields = new List<(int, string?, string, string?)>();
        int seq = 0;
        int i = 0;
        while (i < message.Length)
        {
            int eq = message[i..].IndexOf((byte)'=');
            if (eq < 0) break;
            int end = message[(i + eq + 1)..].IndexOf((byte)1);
            int valueEnd = end < 0 ? message.Length : i + eq + 1 + end;
            ReadOnlySpan<byte> tagBytes = message.Slice(i, eq);
            string value = Encoding.Latin1.GetString(message[(i + eq + 1)..valueEnd]);
            if (int.TryParse(Encoding.ASCII.GetString(tagBytes), NumberStyles.None, CultureInfo.InvariantCulture, out int tag))
            {
                if (tag == 34) int.TryParse(value, NumberStyles.None, CultureInfo.InvariantCulture, out seq);
                FieldDefinition? def = session?.GetField(tag) ?? app?.GetField(tag);
                string? name = def?.Name ?? (s_builtIn.TryGetValue(tag, out string? known) ? known : null);
                string? meaning = null;
                if (def is not null)
                {
                    foreach (FieldEnumValue v in def.Values)
                    {
                        if (v.Value == value)
                        {
                            meaning = v.Description;
                            break;
                        }
                    }
                }
                fields.Add((tag, name, value, meaning));
            }
            i = valueEnd + 1;
        }
        return new RenderedMessage
        {
            Source = source,
            Direction = direction,
            SeqNum = seq,
            Time = time,
            Raw = Encoding.Latin1.GetString(message).Replace('\u0001', '|'),
            Fields = fields,
        };
    }

    // The value of the first field tagEquals (e.g. "1128=") at a field start.
    private static bool TryGetField(ReadOnlySpan<byte> message, ReadOnlySpan<byte> tagEquals, out ReadOnlySpan<byte> value)
    {
        int from = 0;
        while (from < message.Length)
        {
            int at = message[from..].IndexOf(tagEquals);
            if (at < 0) break;
            at += from;
            if (at == 0 || message[at - 1] == 1)
            {
                int valueAt = at + tagEquals.Length;
                int end = message[valueAt..].IndexOf((byte)1);
                value = end < 0 ? message[valueAt..] : message.Slice(valueAt, end);
                return true;
            }
            from = at + 1;
        }
        value = default;
        return false;
    }

    /// <summary>True when <paramref name="message"/> has the field <paramref name="tagEquals"/><paramref name="value"/> (any
    /// occurrence, repeating groups included).</summary>
    public static bool HasField(ReadOnlySpan<byte> message, ReadOnlySpan<byte> tagEquals, ReadOnlySpan<byte> value)
    {
        int from = 0;
        while (from < message.Length)
        {
            int at = message[from..].IndexOf(tagEquals);
            if (at < 0) return false;
            at += from;
            bool fieldStart = at == 0 || message[at - 1] == 1;
            int valueAt = at + tagEquals.Length;
            int end = message[valueAt..].IndexOf((byte)1);
            ReadOnlySpan<byte> found = end < 0 ? message[valueAt..] : message.Slice(valueAt, end);
            if (fieldStart && found.SequenceEqual(value)) return true;
            from = at + 1;
        }
        return false;
    }
}
