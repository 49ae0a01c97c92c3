using System;
using System.Collections.Generic;
using System.Text;
using FixEngine.Config;
using Microsoft.Extensions.Configuration;

namespace FixEngine.DependencyInjection;

/// <summary>Reads FIX session settings from an <see cref="IConfiguration"/> section (appsettings.json, environment
/// variables, any configuration provider), with the same keys, values and validation as a QuickFIX-style settings file.</summary>
/// <remarks>
/// <para>The section holds a <c>Default</c> object (the <c>[DEFAULT]</c> block: every session inherits its keys) and a
/// <c>Sessions</c> array (one <c>[SESSION]</c> block each, whose keys win over the defaults):</para>
/// <code>
/// "FixEngine": {
///   "Default":  { "ConnectionType": "acceptor", "SocketAcceptPort": "5001", "StartTime": "00:00:00", "EndTime": "00:00:00" },
///   "Sessions": [ { "BeginString": "FIX.4.4", "SenderCompID": "EXEC", "TargetCompID": "CLIENT" } ]
/// }
/// </code>
/// <para>Alternatively <c>SettingsFile</c> names a QuickFIX-style settings file to load instead. Errors are
/// <see cref="ConfigException"/>s whose <see cref="ConfigException.FileName"/> is the configuration path of the offending
/// block (for example <c>FixEngine:Sessions:1</c>) and whose <see cref="ConfigException.Key"/> is the key.</para>
/// <para>Runs once at start-up; allocates freely.</para>
/// </remarks>
public static class ConfigurationSettings
{
    /// <summary>The key of the defaults block.</summary>
    public const string DefaultKey = "Default";

    /// <summary>The key of the sessions array.</summary>
    public const string SessionsKey = "Sessions";

    /// <summary>The key naming a settings file to load instead of inline blocks.</summary>
    public const string SettingsFileKey = "SettingsFile";

    /// <summary>Parses the session settings in <paramref name="section"/>.</summary>
    /// <param name="section">The configuration section (e.g. <c>configuration.GetSection("FixEngine")</c>).</param>
    /// <returns>One <see cref="SessionSettings"/> per session, validated.</returns>
    /// <exception cref="ConfigException">A key is unknown, a value is invalid, a required key is missing, or the section
    /// holds no session; the message names the configuration path and the key.</exception>
    public static IReadOnlyList<SessionSettings> Load(IConfiguration section)
    {
        ArgumentNullException.ThrowIfNull(section);
        string path = section is IConfigurationSection s ? s.Path : "";
        string? file = section[SettingsFileKey];
        if (!string.IsNullOrWhiteSpace(file)) return SettingsFile.Load(file);

        var text = new StringBuilder();
        // lineOrigins[i] is the configuration path of text line i + 1.
        var lineOrigins = new List<string>();
        string defaultsPath = Combine(path, DefaultKey);
        AppendBlock(text, lineOrigins, "[DEFAULT]", section.GetSection(DefaultKey), defaultsPath);
        var sessionPaths = new List<string>();
        foreach (IConfigurationSection session in section.GetSection(SessionsKey).GetChildren())
        {
            AppendBlock(text, lineOrigins, "[SESSION]", session, session.Path);
            sessionPaths.Add(session.Path);
        }
        if (sessionPaths.Count == 0)
        {
            throw new ConfigException(Combine(path, SessionsKey), 0, SessionsKey, "no session configured (add at least one object to the Sessions array, or name a SettingsFile)");
        }
        IReadOnlyList<SessionSettings> parsed;
        try
        {
            parsed = SettingsFile.Parse(text.ToString(), path.Length == 0 ? "<configuration>" : path);
        }
        catch (ConfigException e) when (e.LineNumber > 0 && e.LineNumber <= lineOrigins.Count)
        {
            throw new ConfigException(lineOrigins[e.LineNumber - 1], 0, e.Key, e.Reason);
        }
        // A problem found later (a store factory's key, a certificate at engine start) names the session's path and the
        // key, not a line of the text built here.
        // Each session by its own [SESSION] header line (sessions left out under ContinueInitializationOnError=Y leave gaps).
        var result = new SessionSettings[parsed.Count];
        for (int i = 0; i < parsed.Count; i++)
        {
            result[i] = parsed[i].Origin is SettingsOrigin origin && origin.SectionLine > 0 && origin.SectionLine <= lineOrigins.Count
                ? parsed[i] with { Origin = origin.WithoutLines(lineOrigins[origin.SectionLine - 1]) }
                : parsed[i];
        }
        IReadOnlyList<SkippedSession> skipped = SettingsFile.SkippedOf(parsed);
        if (skipped.Count == 0) return result;
        var named = new SkippedSession[skipped.Count];
        for (int i = 0; i < skipped.Count; i++)
        {
            SkippedSession k = skipped[i];
            named[i] = k.Error is ConfigException e && e.LineNumber > 0 && e.LineNumber <= lineOrigins.Count
                ? new SkippedSession(k.Session, new ConfigException(lineOrigins[e.LineNumber - 1], 0, e.Key, e.Reason))
                : k;
        }
        return new SettingsFile.LoadedSessions(result, named);
    }

    private static void AppendBlock(StringBuilder text, List<string> origins, string header, IConfigurationSection block, string blockPath)
    {
        text.Append(header).Append('\n');
        origins.Add(blockPath);
        foreach (IConfigurationSection entry in block.GetChildren())
        {
            if (entry.Value is null)
            {
                throw new ConfigException(blockPath, 0, entry.Key, "expected a plain value, found a nested object or array");
            }
            if (entry.Value.IndexOfAny(['\n', '\r']) >= 0)
            {
                throw new ConfigException(blockPath, 0, entry.Key, "a value must be on one line");
            }
            text.Append(entry.Key).Append('=').Append(entry.Value).Append('\n');
            origins.Add(blockPath);
        }
    }

    private static string Combine(string path, string key) => path.Length == 0 ? key : path + ":" + key;
}
