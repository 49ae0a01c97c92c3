using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Text;

namespace FixEngine.Config;

/// <summary>Reads and writes QuickFIX-style settings files: <c>[DEFAULT]</c> and <c>[SESSION]</c> sections of <c>Key=Value</c> lines.</summary>
/// <remarks>
/// Lines are trimmed; blank lines and lines starting with <c>#</c> or <c>;</c> are skipped. Every SESSION inherits the keys of
/// all DEFAULT sections and may override them. Keys are case-insensitive. Load-time only; thread-safe (no shared state).
/// </remarks>
public static class SettingsFile
{
    /// <summary>Loads the sessions of the file at <paramref name="path"/>.</summary>
    /// <exception cref="ConfigException">Unreadable file, unknown key, bad value, missing required key or duplicate session.</exception>
    public static IReadOnlyList<SessionSettings> Load(string path)
    {
        ArgumentNullException.ThrowIfNull(path);
        StreamReader reader;
        try
        {
            reader = new StreamReader(path, Encoding.UTF8);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            throw new ConfigException(path, 0, "", "cannot open the file: " + e.Message);
        }
        using (reader)
        {
            return Load(reader, path);
        }
    }

    /// <summary>Loads the sessions from <paramref name="reader"/>; <paramref name="displayName"/> names it in errors.</summary>
    /// <exception cref="ConfigException">Unknown key, bad value, missing required key or duplicate session.</exception>
    public static IReadOnlyList<SessionSettings> Load(TextReader reader, string displayName)
    {
        ArgumentNullException.ThrowIfNull(reader);
        ArgumentNullException.ThrowIfNull(displayName);
        return new Parser(displayName).Parse(reader);
    }

    /// <summary>Loads the sessions from settings text (e.g. an embedded default configuration).</summary>
    /// <exception cref="ConfigException">Unknown key, bad value, missing required key or duplicate session.</exception>
    public static IReadOnlyList<SessionSettings> Parse(string text, string displayName = "<string>")
    {
        ArgumentNullException.ThrowIfNull(text);
        using var reader = new StringReader(text);
        return Load(reader, displayName);
    }

    /// <summary>Writes <paramref name="settings"/> as one <c>[SESSION]</c> section listing every key that has a value.</summary>
    /// <remarks>Parsing the text back gives equal settings.</remarks>
    public static string ToSettingsText(SessionSettings settings)
    {
        ArgumentNullException.ThrowIfNull(settings);
        var sb = new StringBuilder("[SESSION]\n");
        foreach (SettingKeys.Key key in SettingKeys.All)
        {
            string? value = key.Format(settings);
            if (value is not null) sb.Append(key.Name).Append('=').Append(value).Append('\n');
        }
        for (int i = 0; i < settings.SocketConnectFailovers.Count; i++)
        {
            SocketEndpoint ep = settings.SocketConnectFailovers[i];
            sb.Append("SocketConnectHost").Append(i + 1).Append('=').Append(ep.Host).Append('\n');
            sb.Append("SocketConnectPort").Append(i + 1).Append('=').Append(ep.Port.ToString(CultureInfo.InvariantCulture)).Append('\n');
        }
        return sb.ToString();
    }

    private readonly record struct Entry(string Key, string Value, int Line);

    private sealed class Section(int line)
    {
        public int Line { get; } = line;

        public List<Entry> Entries { get; } = [];
    }

    private sealed class Parser(string fileName)
    {
        public IReadOnlyList<SessionSettings> Parse(TextReader reader)
        {
            var defaults = new List<Entry>();
            var sessions = new List<Section>();
            Section? current = null;
            List<Entry>? target = null;
            int lineNumber = 0;
            string? raw;
            while ((raw = reader.ReadLine()) is not null)
            {
                lineNumber++;
                string line = raw.Trim();
                if (line.Length == 0 || line[0] is '#' or ';') continue;
                if (line[0] == '[')
                {
                    if (line[^1] != ']') throw new ConfigException(fileName, lineNumber, line, "section header must end with ']'");
                    string name = line.Substring(1, line.Length - 2).Trim();
                    if (name.Equals("DEFAULT", StringComparison.OrdinalIgnoreCase))
                    {
                        current = null;
                        target = defaults;
                    }
                    else if (name.Equals("SESSION", StringComparison.OrdinalIgnoreCase))
                    {
                        current = new Section(lineNumber);
                        sessions.Add(current);
                        target = current.Entries;
                    }
                    else
                    {
                        throw new ConfigException(fileName, lineNumber, line, "unknown section (expected [DEFAULT] or [SESSION])");
                    }
                    continue;
                }
                int eq = line.IndexOf('=');
                if (eq <= 0) throw new ConfigException(fileName, lineNumber, line, "expected Key=Value");
                string key = line.Substring(0, eq).Trim();
                string value = line.Substring(eq + 1).Trim();
                if (target is null) throw new ConfigException(fileName, lineNumber, key, "key outside of a [DEFAULT] or [SESSION] section");
                if (SettingKeys.Find(key) is null && !SettingKeys.TryParseFailoverKey(key, out _, out _))
                {
                    throw new ConfigException(fileName, lineNumber, key, "unknown key");
                }
                foreach (Entry e in target)
                {
                    if (e.Key.Equals(key, StringComparison.OrdinalIgnoreCase))
                    {
                        throw new ConfigException(fileName, lineNumber, key, $"duplicate key (first set on line {e.Line})");
                    }
                }
                target.Add(new Entry(key, value, lineNumber));
            }

            var result = new List<SessionSettings>();
            var seen = new Dictionary<SessionId, int>();
            foreach (Section section in sessions)
            {
                SessionSettings settings = Build(section, defaults);
                SessionId id = settings.SessionId;
                if (seen.TryGetValue(id, out int firstLine))
                {
                    throw new ConfigException(fileName, section.Line, "[SESSION]", $"duplicate session {id} (first defined on line {firstLine})");
                }
                seen.Add(id, section.Line);
                result.Add(settings);
            }
            return result;
        }

        private SessionSettings Build(Section section, List<Entry> defaults)
        {
            // Session keys override defaults: collect the effective entry per key, remembering its line for errors.
            var effective = new Dictionary<string, Entry>(StringComparer.OrdinalIgnoreCase);
            foreach (Entry e in defaults) effective[e.Key] = e;
            foreach (Entry e in section.Entries) effective[e.Key] = e;

            var settings = new SessionSettings();
            var hosts = new SortedDictionary<int, Entry>();
            var ports = new SortedDictionary<int, Entry>();
            foreach (Entry e in effective.Values)
            {
                if (SettingKeys.TryParseFailoverKey(e.Key, out bool isHost, out int index))
                {
                    (isHost ? hosts : ports)[index] = e;
                    continue;
                }
                try
                {
                    settings = SettingKeys.Find(e.Key)!.Apply(settings, e.Value);
                }
                catch (SettingKeys.BadValueException ex)
                {
                    throw new ConfigException(fileName, e.Line, e.Key, ex.Message);
                }
            }
            settings = settings with { SocketConnectFailovers = BuildFailovers(section, hosts, ports) };

            if (settings.FindError() is (string key, string reason))
            {
                int line = effective.TryGetValue(key, out Entry entry) ? entry.Line : section.Line;
                throw new ConfigException(fileName, line, key, reason);
            }
            return settings;
        }

        private SocketEndpoint[] BuildFailovers(Section section, SortedDictionary<int, Entry> hosts, SortedDictionary<int, Entry> ports)
        {
            var list = new List<SocketEndpoint>();
            int expected = 1;
            foreach ((int index, Entry host) in hosts)
            {
                if (index != expected)
                {
                    throw new ConfigException(fileName, host.Line, host.Key, $"failover {index} follows failover {expected - 1}: numbers must be 1, 2, 3 ...");
                }
                if (!ports.TryGetValue(index, out Entry port))
                {
                    throw new ConfigException(fileName, section.Line, "SocketConnectPort" + index, "missing (SocketConnectHost" + index + " is set)");
                }
                if (host.Value.Length == 0) throw new ConfigException(fileName, host.Line, host.Key, "empty value");
                int portNumber;
                try
                {
                    portNumber = SettingKeys.ParseInt(port.Value);
                }
                catch (SettingKeys.BadValueException ex)
                {
                    throw new ConfigException(fileName, port.Line, port.Key, ex.Message);
                }
                list.Add(new SocketEndpoint(host.Value, portNumber));
                expected++;
            }
            foreach ((int index, Entry port) in ports)
            {
                if (!hosts.ContainsKey(index))
                {
                    throw new ConfigException(fileName, section.Line, "SocketConnectHost" + index, "missing (" + port.Key + " is set)");
                }
            }
            return list.ToArray();
        }
    }
}
