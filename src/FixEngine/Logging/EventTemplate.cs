using System;
using System.Collections.Generic;
using System.Text;

namespace FixEngine.Logging;

/// <summary>A parsed event template: literal text interleaved with argument and payload placeholders.</summary>
internal sealed class EventTemplate
{
    public const int PayloadSlot = 4;
    private const int LiteralSlot = -1;

    private EventTemplate(string text, Part[] parts, int payloadSlots, int literalLength)
    {
        Text = text;
        Parts = parts;
        PayloadSlots = payloadSlots;
        LiteralLength = literalLength;
    }

    public string Text { get; }

    public Part[] Parts { get; }

    public bool HasPayload => PayloadSlots > 0;

    public int PayloadSlots { get; }

    public int LiteralLength { get; }

    /// <summary>Parses <c>{0}</c>..<c>{3}</c>, <c>{payload}</c>, and <c>{{</c>/<c>}}</c> escapes.</summary>
    /// <exception cref="ArgumentException">Unknown placeholder or unbalanced brace, with its character offset.</exception>
    public static EventTemplate Parse(string template)
    {
        var parts = new List<Part>();
        var literal = new StringBuilder();
        int payloadSlots = 0;
        int literalLength = 0;
        for (int i = 0; i < template.Length; i++)
        {
            char c = template[i];
            if (c == '{' && i + 1 < template.Length && template[i + 1] == '{')
            {
                literal.Append('{');
                i++;
                continue;
            }
            if (c == '}' && i + 1 < template.Length && template[i + 1] == '}')
            {
                literal.Append('}');
                i++;
                continue;
            }
            if (c == '}')
            {
                throw new ArgumentException($"Unbalanced '}}' at offset {i} in log template \"{template}\".", nameof(template));
            }
            if (c != '{')
            {
                literal.Append(c);
                continue;
            }
            int close = template.IndexOf('}', i + 1);
            if (close < 0)
            {
                throw new ArgumentException($"Unclosed '{{' at offset {i} in log template \"{template}\".", nameof(template));
            }
            string name = template.Substring(i + 1, close - i - 1);
            int slot = name switch
            {
                "0" => 0,
                "1" => 1,
                "2" => 2,
                "3" => 3,
                "payload" => PayloadSlot,
                _ => throw new ArgumentException(
                    $"Unknown placeholder '{{{name}}}' at offset {i} in log template \"{template}\"; use {{0}}..{{3}} or {{payload}}.",
                    nameof(template)),
            };
            if (literal.Length > 0)
            {
                literalLength += literal.Length;
                parts.Add(new Part(literal.ToString(), LiteralSlot));
                literal.Clear();
            }
            payloadSlots += slot == PayloadSlot ? 1 : 0;
            parts.Add(new Part(null, slot));
            i = close;
        }
        if (literal.Length > 0)
        {
            literalLength += literal.Length;
            parts.Add(new Part(literal.ToString(), LiteralSlot));
        }
        return new EventTemplate(template, parts.ToArray(), payloadSlots, literalLength);
    }

    /// <summary>One piece of a template: literal text (Slot = -1), an argument (0..3) or the payload (4).</summary>
    internal readonly record struct Part(string? Literal, int Slot);
}
