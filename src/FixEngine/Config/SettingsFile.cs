using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Text;

namespace FixEngine.Config;

/// <summary>Reads and writes QuickFIX-style settings files: <c>[DEFAULT]</c> and <c>[SESSION]</c> sections of <c>Key=Value</c> lines.</summary>
/// <remarks>
/// Lines are trimmed; blank lines and lines starting with <c>#</c> or <c>;</c> are skipped. Every SESSION inherits the keys of
/// all DEFAULT sections and may override them. Keys are case-insensitive. Every documented QuickFIX/n and QuickFIX C++ key
/// is accepted: with its QuickFIX meaning, or, where it cannot apply, with a <see cref="ConfigWarning"/> in
/// <see cref="SessionSettings.Warnings"/> (docs/quickfix-compatibility.md lists which). An unknown key is an error that
/// names the closest known key. With <c>ContinueInitializationOnError=Y</c> a [SESSION] whose keys fail (a bad value, an
/// unknown or duplicate key, a missing required key) is left out and the others load; the engine reports it
/// (<see cref="Engine.FixEngineHost.SkippedSessions"/>); a file whose every session fails still throws the first error.
/// Load-time only; thread-safe (no shared state).
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

    /// <summary>The warnings of all <paramref name="sessions"/>, each once (a key in [DEFAULT] warns for every session),
    /// in file order.</summary>
    /// <param name="sessions">Sessions from <see cref="Load(string)"/> or <see cref="Parse"/>.</param>
    /// <returns>The distinct warnings.</returns>
    public static IReadOnlyList<ConfigWarning> Warnings(IEnumerable<SessionSettings> sessions)
    {
        ArgumentNullException.ThrowIfNull(sessions);
        var seen = new HashSet<ConfigWarning>();
        var list = new List<ConfigWarning>();
        foreach (SessionSettings s in sessions)
        {
            foreach (ConfigWarning w in s.Warnings)
            {
                if (seen.Add(w)) list.Add(w);
            }
        }
        list.Sort((a, b) => a.LineNumber.CompareTo(b.LineNumber));
        return list;
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
        var versions = new List<string>(settings.AppDataDictionaries.Keys);
        versions.Sort(StringComparer.Ordinal);
        foreach (string version in versions)
        {
            sb.Append(SettingKeys.AppDictionaryPrefix).Append(version).Append('=').Append(settings.AppDataDictionaries[version]).Append('\n');
        }
        for (int i = 0; i < settings.SocketConnectFailovers.Count; i++)
        {
            SocketEndpoint ep = settings.SocketConnectFailovers[i];
            sb.Append("SocketConnectHost").Append(i + 1).Append('=').Append(ep.Host).Append('\n');
            sb.Append("SocketConnectPort").Append(i + 1).Append('=').Append(ep.Port.ToString(CultureInfo.InvariantCulture)).Append('\n');
            if (ep.SourceHost is not null) sb.Append("SocketConnectSourceHost").Append(i + 1).Append('=').Append(ep.SourceHost).Append('\n');
            if (ep.SourcePort is int sp) sb.Append("SocketConnectSourcePort").Append(i + 1).Append('=').Append(sp.ToString(CultureInfo.InvariantCulture)).Append('\n');
        }
        return sb.ToString();
    }

    private readonly record struct Entry(string Key, string Value, int Line);

    private sealed class Section(int line)
    {
        public int Line { get; } = line;

        public List<Entry> Entries { get; } = [];

        // The first error inside the section (unknown or duplicate key): the section fails, and with
        // ContinueInitializationOnError=Y only the section.
        public ConfigException? Error { get; set; }
    }

    /// <summary>The sessions of a file, with those left out under ContinueInitializationOnError=Y.</summary>
    internal sealed class LoadedSessions(IList<SessionSettings> sessions, IReadOnlyList<SkippedSession> skipped)
        : System.Collections.ObjectModel.ReadOnlyCollection<SessionSettings>(sessions)
    {
        public IReadOnlyList<SkippedSession> Skipped { get; } = skipped;
    }

    /// <summary>The sessions a settings file left out under ContinueInitializationOnError=Y (empty for settings built in
    /// code or a file without such sessions).</summary>
    internal static IReadOnlyList<SkippedSession> SkippedOf(IReadOnlyList<SessionSettings> sessions)
        => sessions is LoadedSessions loaded ? loaded.Skipped : [];

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
                ConfigException? error = null;
                if (!IsKnown(key))
                {
                    string? suggestion = SettingKeys.Suggest(key);
                    error = new ConfigException(fileName, lineNumber, key, suggestion is null ? "unknown key" : $"unknown key (did you mean {suggestion}?)");
                }
                foreach (Entry e in target)
                {
                    if (error is null && e.Key.Equals(key, StringComparison.OrdinalIgnoreCase))
                    {
                        error = new ConfigException(fileName, lineNumber, key, $"duplicate key (first set on line {e.Line})");
                    }
                }
                if (error is not null)
                {
                    // In a [SESSION], only that session fails (ContinueInitializationOnError may leave it out).
                    if (current is null) throw error;
                    current.Error ??= error;
                    continue;
                }
                target.Add(new Entry(key, value, lineNumber));
            }

            var result = new List<SessionSettings>();
            var skipped = new List<SkippedSession>();
            ConfigException? firstError = null;
            var seen = new Dictionary<SessionId, int>();
            foreach (Section section in sessions)
            {
                SessionSettings settings;
                try
                {
                    if (section.Error is not null) throw section.Error;
                    settings = Build(section, defaults);
                }
                catch (ConfigException e) when (ContinuesOnError(section, defaults))
                {
                    firstError ??= e;
                    skipped.Add(new SkippedSession(NameOf(section, defaults), e));
                    continue;
                }
                SessionId id = settings.SessionId;
                if (seen.TryGetValue(id, out int firstLine))
                {
                    throw new ConfigException(fileName, section.Line, "[SESSION]", $"duplicate session {id} (first defined on line {firstLine})");
                }
                seen.Add(id, section.Line);
                result.Add(settings);
            }
            // Every session failed: nothing to start, as QuickFIX/J.
            if (result.Count == 0 && firstError is not null) throw firstError;
            return skipped.Count == 0 ? result : new LoadedSessions(result, skipped.ToArray());
        }

        // ContinueInitializationOnError=Y for this section (its own value, or [DEFAULT]'s); a malformed value is not Y.
        private static bool ContinuesOnError(Section section, List<Entry> defaults)
        {
            string? value = ValueOf("ContinueInitializationOnError", section, defaults);
            if (value is null) return false;
            try
            {
                return SettingKeys.ParseBool(value);
            }
            catch (SettingKeys.BadValueException)
            {
                return false;
            }
        }

        private static string? ValueOf(string key, Section section, List<Entry> defaults)
        {
            foreach (Entry e in section.Entries)
            {
                if (e.Key.Equals(key, StringComparison.OrdinalIgnoreCase)) return e.Value;
            }
            foreach (Entry e in defaults)
            {
                if (e.Key.Equals(key, StringComparison.OrdinalIgnoreCase)) return e.Value;
            }
            return null;
        }

        // The SessionID as far as the section's keys give it, else where the section is.
        private string NameOf(Section section, List<Entry> defaults)
        {
            string? begin = ValueOf("BeginString", section, defaults);
            string? sender = ValueOf("SenderCompID", section, defaults);
            string? target = ValueOf("TargetCompID", section, defaults);
            if (string.IsNullOrEmpty(begin) || string.IsNullOrEmpty(sender) || string.IsNullOrEmpty(target))
            {
                return $"[SESSION] at {fileName}({section.Line})";
            }
            return new SessionId(begin, sender, target, ValueOf("SessionQualifier", section, defaults) ?? "").ToString();
        }

        private static bool IsKnown(string key)
            => SettingKeys.Find(key) is not null
                || SettingKeys.TryParseFailoverKey(key, out _, out _)
                || SettingKeys.TryParseAppDictionaryKey(key, out _)
                || SettingKeys.TryParseFailoverSourceKey(key, out _, out _)
                || CompatibilityKeys.FindWarned(key) is not null
                || CompatibilityKeys.FindRefused(key) is not null
                || CompatibilityKeys.FindRoleKey(key) is not null
                || key.Equals(CompatibilityKeys.VerifyLevel, StringComparison.OrdinalIgnoreCase);

        // The setting a key writes: its canonical key, or for a QuickFIX C++ role key the key it sets for its role.
        private static string SettingOf(string key)
            => CompatibilityKeys.FindRoleKey(key) is CompatibilityKeys.RoleKey r ? r.Role + ":" + r.Target : SettingKeys.Canonical(key);

        private SessionSettings Build(Section section, List<Entry> defaults)
        {
            // Session keys override defaults, also when spelled differently (SSLEnable in [DEFAULT], SocketUseSSL in the
            // session); two spellings of one setting in the same section are an error.
            var effective = new Dictionary<string, Entry>(StringComparer.OrdinalIgnoreCase);
            foreach (Entry e in defaults) AddEffective(effective, e);
            var fromSection = new HashSet<string>(StringComparer.OrdinalIgnoreCase);
            foreach (Entry e in section.Entries)
            {
                string setting = SettingOf(e.Key);
                if (fromSection.Add(setting))
                {
                    foreach (Entry d in new List<Entry>(effective.Values))
                    {
                        if (SettingOf(d.Key).Equals(setting, StringComparison.OrdinalIgnoreCase)) effective.Remove(d.Key);
                    }
                }
                AddEffective(effective, e);
            }

            var lines = new Dictionary<string, int>(StringComparer.OrdinalIgnoreCase);
            foreach (Entry e in effective.Values) lines[e.Key] = e.Line;
            var origin = new SettingsOrigin(fileName, section.Line, lines);
            var warnings = new List<ConfigWarning>();

            var settings = new SessionSettings();
            var hosts = new SortedDictionary<int, Entry>();
            var ports = new SortedDictionary<int, Entry>();
            var sourceHosts = new SortedDictionary<int, Entry>();
            var sourcePorts = new SortedDictionary<int, Entry>();
            var deferred = new List<Entry>();
            var appDictionaries = new SortedDictionary<string, string>(StringComparer.Ordinal);
            var ordered = new List<Entry>(effective.Values);
            ordered.Sort((a, b) => a.Line.CompareTo(b.Line));
            foreach (Entry e in ordered)
            {
                if (SettingKeys.TryParseFailoverKey(e.Key, out bool isHost, out int index))
                {
                    (isHost ? hosts : ports)[index] = e;
                    continue;
                }
                if (SettingKeys.TryParseAppDictionaryKey(e.Key, out string? version))
                {
                    if (version is null) throw new ConfigException(fileName, e.Line, e.Key, SettingKeys.UnknownApplVersion(e.Key));
                    if (e.Value.Length == 0) throw new ConfigException(fileName, e.Line, e.Key, "empty value");
                    appDictionaries[version] = e.Value;
                    continue;
                }
                if (SettingKeys.TryParseFailoverSourceKey(e.Key, out bool isSourceHost, out int sourceIndex))
                {
                    (isSourceHost ? sourceHosts : sourcePorts)[sourceIndex] = e;
                    continue;
                }
                try
                {
                    if (SettingKeys.Find(e.Key) is SettingKeys.Key key)
                    {
                        settings = key.Apply(settings, e.Value);
                        if (key.Note?.Invoke(e.Value) is string note) warnings.Add(new ConfigWarning(fileName, e.Line, e.Key, note));
                    }
                    else if (CompatibilityKeys.FindWarned(e.Key) is CompatibilityKeys.Warned w)
                    {
                        if (CompatibilityKeys.Check(w, e.Value) is string reason) warnings.Add(new ConfigWarning(fileName, e.Line, e.Key, reason));
                    }
                    else if (CompatibilityKeys.FindRefused(e.Key) is CompatibilityKeys.Refused r)
                    {
                        if (CompatibilityKeys.CheckRefused(r, e.Value) is string why) throw new ConfigException(fileName, e.Line, e.Key, why);
                    }
                    else
                    {
                        deferred.Add(e);
                    }
                }
                catch (SettingKeys.BadValueException ex)
                {
                    throw new ConfigException(fileName, e.Line, e.Key, ex.Message);
                }
            }
            // QuickFIX C++ TLS keys depend on the role, known only now.
            foreach (Entry e in deferred) settings = ApplyRoleKey(settings, e, origin, warnings);
            settings = settings with { SocketConnectFailovers = BuildFailovers(section, hosts, ports, sourceHosts, sourcePorts) };
            if (appDictionaries.Count > 0) settings = settings with { AppDataDictionaries = new Dictionary<string, string>(appDictionaries, StringComparer.OrdinalIgnoreCase) };
            settings = ImplySsl(settings, origin, warnings);
            settings = settings with { Origin = origin };

            if (settings.FindError() is (string errorKey, string errorReason))
            {
                // Name the key as the file spells it (QuickFIX C++ SocketConnectSourceHost for SocketLocalHost ...).
                foreach ((string alias, string canonical) in s_writtenAs)
                {
                    if (errorKey == canonical && !origin.Has(canonical) && origin.Has(alias)) errorKey = alias;
                }
                throw new ConfigException(fileName, origin.LineOf(errorKey), errorKey, errorReason);
            }
            CheckDictionaries(settings, origin, warnings);
            WarnNonStopSchedule(settings, origin, warnings);
            CheckHosts(settings, origin);
            warnings.Sort((a, b) => a.LineNumber.CompareTo(b.LineNumber));
            return settings with { Warnings = warnings.ToArray() };
        }

        private void AddEffective(Dictionary<string, Entry> effective, Entry e)
        {
            string setting = SettingOf(e.Key);
            foreach (Entry other in effective.Values)
            {
                if (!other.Key.Equals(e.Key, StringComparison.OrdinalIgnoreCase) && SettingOf(other.Key).Equals(setting, StringComparison.OrdinalIgnoreCase))
                {
                    throw new ConfigException(fileName, e.Line, e.Key, $"sets the same setting as {other.Key} (line {other.Line}); keep one of them");
                }
            }
            effective[e.Key] = e;
        }

        private SessionSettings ApplyRoleKey(SessionSettings settings, Entry e, SettingsOrigin origin, List<ConfigWarning> warnings)
        {
            try
            {
                if (CompatibilityKeys.FindRoleKey(e.Key) is CompatibilityKeys.RoleKey role)
                {
                    if (settings.ConnectionType != role.Role)
                    {
                        warnings.Add(new ConfigWarning(fileName, e.Line, e.Key,
                            $"applies to {role.Role.ToString().ToLowerInvariant()}s; ignored for this {Role(settings)} session"));
                        return settings;
                    }
                    if (origin.Has(role.Target))
                    {
                        throw new ConfigException(fileName, e.Line, e.Key, $"sets the same setting as {role.Target} (line {origin.LineOf(role.Target)}); keep one of them");
                    }
                    return SettingKeys.Find(role.Target)!.Apply(settings, e.Value);
                }
                // CertificateVerifyLevel: 0 none, 1 required, 2 optional, 3 not set (QuickFIX C++, acceptors).
                int level = SettingKeys.ParseInt(e.Value);
                if (level is < 0 or > 3) throw new SettingKeys.BadValueException($"'{e.Value}' is not 0 (none), 1 (required), 2 (optional) or 3 (not set)");
                if (level == 3) return settings;
                if (settings.ConnectionType != ConnectionType.Acceptor)
                {
                    warnings.Add(new ConfigWarning(fileName, e.Line, e.Key,
                        "applies to acceptors (client certificates); an initiator validates the server's certificate unless SSLValidateCertificates=N"));
                    return settings;
                }
                bool require = level == 1;
                if (origin.Has(nameof(SessionSettings.SSLRequireClientCertificate)) && settings.SSLRequireClientCertificate != require)
                {
                    throw new ConfigException(fileName, e.Line, e.Key,
                        $"{level} contradicts SSLRequireClientCertificate (line {origin.LineOf(nameof(SessionSettings.SSLRequireClientCertificate))})");
                }
                if (level == 2)
                {
                    warnings.Add(new ConfigWarning(fileName, e.Line, e.Key,
                        "2 (optional client certificate) is not supported: no client certificate is asked for; use 1 to require one"));
                }
                return settings with { SSLRequireClientCertificate = require };
            }
            catch (SettingKeys.BadValueException ex)
            {
                throw new ConfigException(fileName, e.Line, e.Key, ex.Message);
            }
        }

        private static string Role(SessionSettings s) => s.ConnectionType?.ToString().ToLowerInvariant() ?? "unknown";

        // QuickFIX/n: SSL is on when a certificate is given and neither SSLEnable nor SocketUseSSL says otherwise; QuickFIX
        // C++ turns it on by choosing the SSL acceptor/initiator, which its certificate keys stand for here.
        private SessionSettings ImplySsl(SessionSettings settings, SettingsOrigin origin, List<ConfigWarning> warnings)
        {
            bool explicitSsl = origin.Has(nameof(SessionSettings.SocketUseSSL)) || origin.Has("SSLEnable");
            if (settings.SSLCertificate is not null && !explicitSsl) return settings with { SocketUseSSL = true };
            if (settings.SocketUseSSL) return settings;
            if (settings.SSLCertificate is not null)
            {
                string key = origin.Has(nameof(SessionSettings.SocketUseSSL)) ? nameof(SessionSettings.SocketUseSSL) : "SSLEnable";
                warnings.Add(new ConfigWarning(fileName, origin.LineOf(key), key, "N: TLS is off although a certificate is configured"));
                return settings;
            }
            // Other TLS keys without TLS: say so once, at the first of them.
            int firstLine = int.MaxValue;
            string? first = null;
            foreach (string key in s_tlsKeys)
            {
                if (origin.Has(key) && origin.LineOf(key) < firstLine)
                {
                    firstLine = origin.LineOf(key);
                    first = key;
                }
            }
            if (first is not null)
            {
                warnings.Add(new ConfigWarning(fileName, firstLine, first, "TLS is off (SocketUseSSL/SSLEnable not Y): the SSL keys of this session have no effect"));
            }
            return settings;
        }

        private static readonly (string Alias, string Canonical)[] s_writtenAs =
        [
            ("SocketConnectSourceHost", nameof(SessionSettings.SocketLocalHost)),
            ("SocketConnectSourcePort", nameof(SessionSettings.SocketLocalPort)),
        ];

        private static readonly string[] s_tlsKeys =
        [
            nameof(SessionSettings.SSLCertificateKeyFile), nameof(SessionSettings.SSLCertificatePassword), nameof(SessionSettings.SSLServerName),
            nameof(SessionSettings.SSLRequireClientCertificate), nameof(SessionSettings.SSLCACertificate), "CertificationAuthoritiesFile",
            nameof(SessionSettings.SSLCACertificateDirectory), "CertificationAuthoritiesDirectory", nameof(SessionSettings.SSLProtocols), "SSLProtocol",
            nameof(SessionSettings.SSLCheckCertificateRevocation), CompatibilityKeys.VerifyLevel,
        ];

        // QuickFIX/n refuses schedule times with NonStopSession=Y; FixEngine ignores them, and says so.
        private void WarnNonStopSchedule(SessionSettings settings, SettingsOrigin origin, List<ConfigWarning> warnings)
        {
            if (!settings.NonStopSession) return;
            foreach (string key in (string[])["StartTime", "EndTime", "StartDay", "EndDay", "Weekdays", "UseLocalTime", "TimeZone", "LogonTime", "LogoutTime", "LogonDay", "LogoutDay"])
            {
                if (origin.Has(key))
                {
                    warnings.Add(new ConfigWarning(fileName, origin.LineOf(key), key, "ignored: NonStopSession=Y (the session never ends)"));
                }
            }
        }

        // QuickFIX C++ refuses UseDataDictionary=Y without a dictionary; QuickFIX/n runs with basic checks. An explicit Y
        // is an error here; the default Y without a dictionary is a warning.
        private void CheckDictionaries(SessionSettings s, SettingsOrigin origin, List<ConfigWarning> warnings)
        {
            if (!s.UseDataDictionary) return;
            string? missing = s.BeginString == "FIXT.1.1"
                ? s.TransportDataDictionary is null ? nameof(SessionSettings.TransportDataDictionary)
                    : s.AppDataDictionary is null && s.AppDataDictionaries.Count == 0 ? nameof(SessionSettings.AppDataDictionary) : null
                : s.DataDictionary is null ? nameof(SessionSettings.DataDictionary) : null;
            if (missing is null) return;
            const string Key = nameof(SessionSettings.UseDataDictionary);
            if (origin.Has(Key))
            {
                throw new ConfigException(fileName, origin.LineOf(Key), Key, $"Y but {missing} is not set (set {missing}, or UseDataDictionary=N)");
            }
            warnings.Add(new ConfigWarning(fileName, origin.SectionLine, missing,
                "not set: messages are checked without a dictionary (UseDataDictionary defaults to Y; QuickFIX C++ refuses this, set UseDataDictionary=N to mean it)"));
        }

        private void CheckHosts(SessionSettings s, SettingsOrigin origin)
        {
            CheckHost(s.SocketAcceptHost, nameof(SessionSettings.SocketAcceptHost), origin);
            CheckHost(s.SocketConnectHost, nameof(SessionSettings.SocketConnectHost), origin);
            for (int i = 0; i < s.SocketConnectFailovers.Count; i++)
            {
                CheckHost(s.SocketConnectFailovers[i].Host, "SocketConnectHost" + (i + 1), origin);
            }
        }

        private void CheckHost(string? host, string key, SettingsOrigin origin)
        {
            if (host is not null && !HostResolver.IsHostSyntax(host))
            {
                throw new ConfigException(fileName, origin.LineOf(key), key, $"'{host}' is not an IP address or a host name");
            }
        }

        private SocketEndpoint[] BuildFailovers(Section section, SortedDictionary<int, Entry> hosts, SortedDictionary<int, Entry> ports,
            SortedDictionary<int, Entry> sourceHosts, SortedDictionary<int, Entry> sourcePorts)
        {
            // QuickFIX C++: SocketConnectSourceHost<n>/SocketConnectSourcePort<n> bind the socket for failover n.
            foreach (SortedDictionary<int, Entry> source in (SortedDictionary<int, Entry>[])[sourceHosts, sourcePorts])
            {
                foreach ((int index, Entry e) in source)
                {
                    if (!hosts.ContainsKey(index))
                    {
                        throw new ConfigException(fileName, e.Line, e.Key, $"failover {index} has no SocketConnectHost{index}: set it, or remove this key");
                    }
                    if (e.Value.Length == 0) throw new ConfigException(fileName, e.Line, e.Key, "empty value");
                }
            }
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
                int? sourcePort = null;
                if (sourcePorts.TryGetValue(index, out Entry sp))
                {
                    try
                    {
                        sourcePort = SettingKeys.ParseInt(sp.Value);
                    }
                    catch (SettingKeys.BadValueException ex)
                    {
                        throw new ConfigException(fileName, sp.Line, sp.Key, ex.Message);
                    }
                }
                string? sourceHost = sourceHosts.TryGetValue(index, out Entry sh) ? sh.Value : null;
                list.Add(new SocketEndpoint(host.Value, portNumber) { SourceHost = sourceHost, SourcePort = sourcePort });
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
