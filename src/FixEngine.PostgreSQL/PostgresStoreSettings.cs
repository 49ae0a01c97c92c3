using System;
using System.Globalization;
using FixEngine.Config;

namespace FixEngine.PostgreSQL;

/// <summary>The <c>PostgreSQLStore*</c> keys of one session, parsed and checked (<see cref="Parse"/>).</summary>
/// <remarks>A settings file (or <c>IConfiguration</c> section) keeps these keys as written in
/// <see cref="SessionSettings.ExtensionSettings"/>; this package reads them. In code, set them with
/// <see cref="SessionSettings.WithExtensionSetting"/>.</remarks>
public sealed record PostgresStoreSettings
{
    /// <summary>Key: the Npgsql connection string; a session that sets it stores in PostgreSQL.</summary>
    public const string ConnectionStringKey = "PostgreSQLStoreConnectionString";

    /// <summary>Key: the prefix of the store's tables.</summary>
    public const string TablePrefixKey = "PostgreSQLStoreTablePrefix";

    /// <summary>Key: when the store writes (<see cref="PostgresSyncPolicy"/>).</summary>
    public const string SyncKey = "PostgreSQLStoreSync";

    /// <summary>Key: the lease, in seconds.</summary>
    public const string LeaseTimeoutKey = "PostgreSQLStoreLeaseTimeout";

    // QuickFIX C++'s keys for the database: a session that sets any of them (and no ConnectionStringKey) stores in
    // PostgreSQL, with a connection string built from them and QuickFIX C++'s defaults for the others (database quickfix,
    // user postgres, no password, host localhost, port 5432).
    private static readonly string[] QuickFixConnectionKeys =
    [
        "PostgreSQLStoreDatabase", "PostgreSQLStoreUser", "PostgreSQLStorePassword", "PostgreSQLStoreHost", "PostgreSQLStorePort",
        "PostgreSQLStoreUseConnectionPool",
    ];

    /// <summary>Npgsql connection string of the session's PostgreSQL store (<c>PostgreSQLStoreConnectionString</c>, or
    /// built from QuickFIX C++'s <c>PostgreSQLStoreHost</c>/<c>Port</c>/<c>Database</c>/<c>User</c>/<c>Password</c>/
    /// <c>UseConnectionPool</c> with its defaults: host localhost, port 5432, database quickfix, user postgres); null when
    /// the session does not store in PostgreSQL.</summary>
    public string? ConnectionString { get; init; }

    /// <summary>Prefix of the store's tables (<c>PostgreSQLStoreTablePrefix</c>: lower-case letters, digits, '_').
    /// Default <c>fixengine_</c>.</summary>
    public string TablePrefix { get; init; } = "fixengine_";

    /// <summary>When the store writes (<c>PostgreSQLStoreSync</c>): PerMessage (default), GroupCommit or
    /// LocalJournalFirst (which needs <c>FileStorePath</c> for its local journal).</summary>
    public PostgresSyncPolicy Sync { get; init; } = PostgresSyncPolicy.PerMessage;

    /// <summary>The lease in seconds (<c>PostgreSQLStoreLeaseTimeout</c>): a standby takes the session over at most this
    /// long after the primary stops renewing. Default 10.</summary>
    public int LeaseTimeout { get; init; } = 10;

    /// <summary>Reads and checks the <c>PostgreSQLStore*</c> keys of <paramref name="settings"/>.</summary>
    /// <param name="settings">A session's settings.</param>
    /// <returns>The values, defaults for keys not set.</returns>
    /// <exception cref="ConfigException">A value does not parse or is out of range, or LocalJournalFirst is asked for
    /// without <c>FileStorePath</c>; names the file and line of the key when the settings came from a file.</exception>
    public static PostgresStoreSettings Parse(SessionSettings settings)
    {
        ArgumentNullException.ThrowIfNull(settings);
        var result = new PostgresStoreSettings();
        if (Value(settings, ConnectionStringKey) is string connection) result = result with { ConnectionString = connection };
        if (QuickFixConnectionString(settings) is string built) result = result with { ConnectionString = built };
        if (Value(settings, TablePrefixKey) is string prefix)
        {
            if (!IsTablePrefix(prefix))
            {
                throw SettingsOrigin.Error(settings, TablePrefixKey, $"'{prefix}' must be 1-40 lower-case letters, digits or '_', not starting with a digit");
            }
            result = result with { TablePrefix = prefix };
        }
        if (Value(settings, SyncKey) is string sync) result = result with { Sync = ParseSync(settings, sync) };
        if (Value(settings, LeaseTimeoutKey) is string lease)
        {
            if (!int.TryParse(lease, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out int seconds))
            {
                throw SettingsOrigin.Error(settings, LeaseTimeoutKey, $"'{lease}' is not an integer");
            }
            if (seconds < 1) throw SettingsOrigin.Error(settings, LeaseTimeoutKey, $"{seconds} must be at least 1");
            result = result with { LeaseTimeout = seconds };
        }
        if (result.ConnectionString is not null && result.Sync == PostgresSyncPolicy.LocalJournalFirst && settings.FileStorePath is null)
        {
            throw SettingsOrigin.Error(settings, SyncKey, "LocalJournalFirst needs FileStorePath (the folder of the local journal)");
        }
        return result;
    }

    // QuickFIX C++'s separate keys, as one Npgsql connection string (null when none is set).
    private static string? QuickFixConnectionString(SessionSettings settings)
    {
        string? first = null;
        foreach (string key in QuickFixConnectionKeys)
        {
            if (Value(settings, key) is not null)
            {
                first = key;
                break;
            }
        }
        if (first is null) return null;
        if (Value(settings, ConnectionStringKey) is not null)
        {
            throw SettingsOrigin.Error(settings, first,
                $"set either {ConnectionStringKey} or QuickFIX C++'s separate keys ({string.Join(", ", QuickFixConnectionKeys)}), not both");
        }
        var builder = new Npgsql.NpgsqlConnectionStringBuilder
        {
            Host = Value(settings, "PostgreSQLStoreHost") ?? "localhost",
            Database = Value(settings, "PostgreSQLStoreDatabase") ?? "quickfix",
            Username = Value(settings, "PostgreSQLStoreUser") ?? "postgres",
            Port = 5432,
        };
        if (Value(settings, "PostgreSQLStorePassword") is string password) builder.Password = password;
        if (Value(settings, "PostgreSQLStorePort") is string portText)
        {
            if (!int.TryParse(portText, NumberStyles.None, CultureInfo.InvariantCulture, out int port) || port > 65535)
            {
                throw SettingsOrigin.Error(settings, "PostgreSQLStorePort", $"'{portText}' is not a port (0-65535; 0 is PostgreSQL's default, 5432)");
            }
            if (port != 0) builder.Port = port;
        }
        if (Value(settings, "PostgreSQLStoreUseConnectionPool") is string pool)
        {
            builder.Pooling = pool.ToUpperInvariant() switch
            {
                "Y" or "YES" or "TRUE" or "1" => true,
                "N" or "NO" or "FALSE" or "0" => false,
                _ => throw SettingsOrigin.Error(settings, "PostgreSQLStoreUseConnectionPool", $"'{pool}' is not Y or N"),
            };
        }
        return builder.ConnectionString;
    }

    private static string? Value(SessionSettings settings, string key)
        => settings.ExtensionSettings.TryGetValue(key, out string? value) ? value : null;

    private static PostgresSyncPolicy ParseSync(SessionSettings settings, string value)
    {
        foreach (PostgresSyncPolicy policy in Enum.GetValues<PostgresSyncPolicy>())
        {
            if (policy.ToString().Equals(value, StringComparison.OrdinalIgnoreCase)) return policy;
        }
        throw SettingsOrigin.Error(settings, SyncKey, $"'{value}' is not one of {string.Join(", ", Enum.GetNames<PostgresSyncPolicy>())}");
    }

    private static bool IsTablePrefix(string prefix)
    {
        if (prefix is not { Length: >= 1 and <= 40 } || char.IsAsciiDigit(prefix[0])) return false;
        foreach (char c in prefix)
        {
            if (!(char.IsAsciiLetterLower(c) || char.IsAsciiDigit(c) || c == '_')) return false;
        }
        return true;
    }
}
