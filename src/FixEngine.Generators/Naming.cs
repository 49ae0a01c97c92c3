using System.Collections.Generic;
using System.Text;
using Microsoft.CodeAnalysis.CSharp;

namespace FixEngine.Generators;

/// <summary>C# identifiers from dictionary names and descriptions.</summary>
internal static class Naming
{
    public static bool IsIdentifier(string name)
    {
        if (name.Length == 0 || !(char.IsLetter(name[0]) || name[0] == '_')) return false;
        foreach (char c in name)
        {
            if (!(char.IsLetterOrDigit(c) || c == '_')) return false;
        }
        return true;
    }

    /// <summary>PascalCase from a description such as <c>PARTIAL_FILL</c> or <c>Good Till Cancel</c>.</summary>
    public static string Pascal(string text)
    {
        var sb = new StringBuilder();
        bool upper = true;
        foreach (char c in text)
        {
            if (char.IsLetterOrDigit(c) && c < 0x80)
            {
                sb.Append(upper ? char.ToUpperInvariant(c) : char.ToLowerInvariant(c));
                upper = false;
            }
            else
            {
                upper = true;
            }
        }
        if (sb.Length == 0) return "";
        if (char.IsDigit(sb[0])) sb.Insert(0, 'V');
        return sb.ToString();
    }

    /// <summary>camelCase parameter name, escaped when it is a keyword.</summary>
    public static string Camel(string name)
    {
        string camel = name.Length == 0 ? name : char.ToLowerInvariant(name[0]) + name.Substring(1);
        return SyntaxFacts.GetKeywordKind(camel) != SyntaxKind.None || SyntaxFacts.GetContextualKeywordKind(camel) != SyntaxKind.None ? "@" + camel : camel;
    }

    /// <summary>A namespace segment from a file name: <c>FIX44</c> → <c>Fix44</c>, <c>my-venue</c> → <c>MyVenue</c>.</summary>
    public static string FileIdentifier(string fileName)
    {
        var sb = new StringBuilder();
        bool upper = true;
        bool previousLetter = false;
        foreach (char c in fileName)
        {
            if (char.IsLetter(c) && c < 0x80)
            {
                sb.Append(upper || !previousLetter ? char.ToUpperInvariant(c) : char.ToLowerInvariant(c));
                upper = false;
                previousLetter = true;
            }
            else if (char.IsDigit(c))
            {
                sb.Append(c);
                upper = true;
                previousLetter = false;
            }
            else
            {
                upper = true;
                previousLetter = false;
            }
        }
        if (sb.Length == 0 || char.IsDigit(sb[0])) sb.Insert(0, "Fix");
        return sb.ToString();
    }

    /// <summary>Returns <paramref name="name"/>, or it with a numeric suffix when already taken; records the result.</summary>
    public static string Unique(string name, HashSet<string> taken)
    {
        string candidate = name;
        for (int i = 2; !taken.Add(candidate); i++) candidate = name + i;
        return candidate;
    }

    /// <summary>A C# string literal body (ASCII, escaped).</summary>
    public static string Literal(string text)
    {
        var sb = new StringBuilder();
        foreach (char c in text)
        {
            if (c == '"' || c == '\\') sb.Append('\\');
            sb.Append(c);
        }
        return sb.ToString();
    }

    /// <summary>Text safe inside an XML doc comment.</summary>
    public static string Xml(string text) => text.Replace("&", "&amp;").Replace("<", "&lt;").Replace(">", "&gt;");
}
