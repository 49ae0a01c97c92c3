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
internal sealed class MessageRenderer(DataDictionary? session, DataDictionary? application)
{
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
                FieldDefinition? def = session?.GetField(tag) ?? application?.GetField(tag);
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
