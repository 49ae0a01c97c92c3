using System;

namespace FixEngine.Config;

/// <summary>A settings file or a <see cref="SessionSettings"/> object is invalid: names the file, the line and the key.</summary>
public sealed class ConfigException : Exception
{
    /// <summary>Creates the exception; the message reads <c>file(line): key: reason</c>, <c>file: key: reason</c> without a
    /// line (0), or <c>key: reason</c> without a file.</summary>
    public ConfigException(string? fileName, int lineNumber, string key, string reason)
        : base(Format(fileName, lineNumber, key, reason))
    {
        FileName = fileName;
        LineNumber = lineNumber;
        Key = key;
        Reason = reason;
    }

    /// <summary>The settings file's path or display name; null for settings built in code.</summary>
    public string? FileName { get; }

    /// <summary>1-based line of the key (of the section header for a missing key); 0 for settings built in code.</summary>
    public int LineNumber { get; }

    /// <summary>The offending key (for settings built in code, the property of the same name).</summary>
    public string Key { get; }

    /// <summary>What is wrong.</summary>
    public string Reason { get; }

    private static string Format(string? fileName, int line, string key, string reason)
    {
        string prefix = fileName is null ? "" : line > 0 ? $"{fileName}({line}): " : fileName + ": ";
        return key.Length == 0 ? prefix + reason : $"{prefix}{key}: {reason}";
    }
}
