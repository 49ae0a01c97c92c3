using System;
using System.Collections.Generic;
using System.Globalization;
using System.Text;
using FixEngine.Codec;

namespace FixEngine.Testing;

/// <summary>A copy of one message the counterparty of a <see cref="FixSessionTestPair"/> received, for assertions.</summary>
/// <remarks>Test helper: it allocates (a copy of the bytes and a string per field read).</remarks>
public sealed class ReceivedFixMessage
{
    private readonly List<(int Tag, string Value)> _fields = [];

    internal ReceivedFixMessage(ReadOnlySpan<byte> bytes)
    {
        Bytes = bytes.ToArray();
        int start = 0;
        for (int i = 0; i < Bytes.Length; i++)
        {
            if (Bytes[i] != AsciiParsing.Soh) continue;
            ReadOnlySpan<byte> field = Bytes.AsSpan(start, i - start);
            int eq = field.IndexOf((byte)'=');
            if (eq > 0 && int.TryParse(Encoding.ASCII.GetString(field[..eq]), NumberStyles.None, CultureInfo.InvariantCulture, out int tag))
            {
                _fields.Add((tag, Encoding.ASCII.GetString(field[(eq + 1)..])));
            }
            start = i + 1;
        }
    }

    /// <summary>The whole message as received, <c>8=</c> through the CheckSum.</summary>
    public byte[] Bytes { get; }

    /// <summary>MsgType(35).</summary>
    public string MsgType => this[FixTags.MsgType] ?? "";

    /// <summary>MsgSeqNum(34), or 0 when missing.</summary>
    public int MsgSeqNum => int.TryParse(this[FixTags.MsgSeqNum], NumberStyles.None, CultureInfo.InvariantCulture, out int n) ? n : 0;

    /// <summary>PossDupFlag(43) is Y.</summary>
    public bool IsPossDup => this[FixTags.PossDupFlag] == "Y";

    /// <summary>The value of the first occurrence of <paramref name="tag"/>, or null.</summary>
    public string? this[int tag]
    {
        get
        {
            foreach ((int t, string v) in _fields)
            {
                if (t == tag) return v;
            }
            return null;
        }
    }

    /// <summary>Every field in order (repeating-group fields included).</summary>
    public IReadOnlyList<(int Tag, string Value)> Fields => _fields;

    /// <summary>The message with SOH shown as <c>|</c>.</summary>
    public override string ToString() => Encoding.ASCII.GetString(Bytes).Replace((char)AsciiParsing.Soh, '|');
}
