using System;

namespace FixEngine.Dictionary;

/// <summary>A data dictionary could not be loaded: names the file, the element, its line and the reason.</summary>
public sealed class DataDictionaryException : Exception
{
    /// <summary>Creates the exception; the message reads <c>file(line): &lt;element&gt;: reason</c>.</summary>
    public DataDictionaryException(string fileName, int lineNumber, string element, string reason, Exception? inner = null)
        : base(Format(fileName, lineNumber, element, reason), inner)
    {
        FileName = fileName;
        LineNumber = lineNumber;
        Element = element;
        Reason = reason;
    }

    /// <summary>The dictionary's path or display name.</summary>
    public string FileName { get; }

    /// <summary>1-based line of the offending element; 0 when unknown.</summary>
    public int LineNumber { get; }

    /// <summary>The offending element, e.g. <c>&lt;message name='NewOrderSingle'&gt;</c>.</summary>
    public string Element { get; }

    /// <summary>What is wrong with it.</summary>
    public string Reason { get; }

    private static string Format(string fileName, int line, string element, string reason)
        => element.Length == 0 ? $"{fileName}({line}): {reason}" : $"{fileName}({line}): {element}: {reason}";
}
