using System;
using System.Collections.Generic;

namespace FixEngine.Config;

/// <summary>Where a session's settings came from: the file and the line of each key, so problems found after loading
/// (a host that does not resolve, a certificate that does not load) can name the line.</summary>
/// <remarks>Immutable; thread-safe.</remarks>
public sealed class SettingsOrigin
{
    private readonly Dictionary<string, int> _lines;

    internal SettingsOrigin(string fileName, int sectionLine, Dictionary<string, int> lines)
    {
        FileName = fileName;
        SectionLine = sectionLine;
        _lines = lines;
    }

    /// <summary>The same keys, attributed to <paramref name="fileName"/> without line numbers: settings read from a
    /// configuration section, where a key has a path rather than a line.</summary>
    internal SettingsOrigin WithoutLines(string fileName)
    {
        var lines = new Dictionary<string, int>(_lines.Comparer);
        foreach (string key in _lines.Keys) lines[key] = 0;
        return new SettingsOrigin(fileName, 0, lines);
    }

    /// <summary>The settings file's path or display name.</summary>
    public string FileName { get; }

    /// <summary>1-based line of the session's <c>[SESSION]</c> header.</summary>
    public int SectionLine { get; }

    /// <summary>1-based line that set <paramref name="key"/> (in the session or in [DEFAULT]); <see cref="SectionLine"/>
    /// when the key was not written.</summary>
    /// <param name="key">A key, case-insensitive (e.g. <c>SocketConnectHost2</c>).</param>
    /// <returns>The line.</returns>
    public int LineOf(string key) => _lines.TryGetValue(key, out int line) ? line : SectionLine;

    /// <summary>True when <paramref name="key"/> was written in the file (in the session or in [DEFAULT]).</summary>
    /// <param name="key">A key, case-insensitive.</param>
    /// <returns>Whether it was written.</returns>
    public bool Has(string key) => _lines.ContainsKey(key);

    /// <summary>A <see cref="ConfigException"/> naming this file, the line of <paramref name="key"/> and the key.</summary>
    /// <param name="settings">The session's settings, or null.</param>
    /// <param name="key">The key at fault.</param>
    /// <param name="reason">What is wrong.</param>
    /// <returns>The exception (not thrown).</returns>
    public static ConfigException Error(SessionSettings? settings, string key, string reason)
    {
        ArgumentNullException.ThrowIfNull(key);
        SettingsOrigin? origin = settings?.Origin;
        return new ConfigException(origin?.FileName, origin?.LineOf(key) ?? 0, key, reason);
    }
}
