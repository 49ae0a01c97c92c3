using System;
using System.Collections.Generic;

namespace FixEngine.Logging;

/// <summary>The fields a message log writes redacted (QuickFIX/n <c>RedactFieldsInLogs</c>/<c>RedactionLogText</c>):
/// each listed tag's value is written as <see cref="Text"/>. Immutable; read by the drain thread only.</summary>
internal sealed class LogRedaction
{
    private readonly int[] _tags;

    /// <summary>Creates the redaction.</summary>
    /// <param name="tags">The tags (1 or more), in any order.</param>
    /// <param name="text">The replacement, printable ASCII.</param>
    public LogRedaction(IEnumerable<int> tags, string text)
    {
        ArgumentNullException.ThrowIfNull(tags);
        ArgumentException.ThrowIfNullOrEmpty(text);
        var sorted = new List<int>(tags);
        sorted.Sort();
        _tags = [.. sorted];
        Text = text;
    }

    /// <summary>What a redacted value is written as.</summary>
    public string Text { get; }

    /// <summary>Whether <paramref name="tag"/>'s values are redacted.</summary>
    public bool Redacts(int tag) => Array.BinarySearch(_tags, tag) >= 0;

    /// <summary>The most characters the replacements can add to <paramref name="message"/> beyond its own length: the
    /// text's length for each field whose tag is redacted (one pass over the message, no allocation).</summary>
    public int ExtraChars(ReadOnlySpan<byte> message)
    {
        int extra = 0;
        int at = 0;
        while (at < message.Length)
        {
            if (FieldTag(message, at, out int tag, out _) && Redacts(tag)) extra += Text.Length;
            int soh = message[at..].IndexOf((byte)1);
            if (soh < 0) break;
            at += soh + 1;
        }
        return extra;
    }

    /// <summary>Reads the tag of the field starting at <paramref name="start"/>: digits then '='.</summary>
    /// <returns>False when the field does not start with a tag number and '=' (a truncated or malformed field: written as is).</returns>
    internal static bool FieldTag(ReadOnlySpan<byte> message, int start, out int tag, out int valueStart)
    {
        tag = 0;
        valueStart = start;
        int i = start;
        while (i < message.Length && message[i] is >= (byte)'0' and <= (byte)'9' && i - start < 9)
        {
            tag = tag * 10 + (message[i] - '0');
            i++;
        }
        if (i == start || i >= message.Length || message[i] != (byte)'=') return false;
        valueStart = i + 1;
        return true;
    }
}
