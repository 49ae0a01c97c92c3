using System;
using System.Collections.Generic;
using System.Globalization;

namespace FixEngine.Config;

/// <summary>QuickFIX/n and QuickFIX C++ keys that FixEngine accepts but does not (or only partly) act on, keys it
/// refuses because it cannot apply them, and the QuickFIX C++ TLS keys whose meaning depends on the session's role.</summary>
/// <remarks>
/// A warned key is parsed (its value must be well-formed) and, unless its value is what FixEngine does anyway, reported
/// as a <see cref="ConfigWarning"/> naming the key and why it cannot apply. docs/quickfix-compatibility.md lists them.
/// A key that <see cref="SettingKeys"/> supports takes precedence over an entry here.
/// </remarks>
internal static class CompatibilityKeys
{
    /// <summary>How a warned key's value is checked.</summary>
    internal enum ValueKind
    {
        /// <summary>Y or N.</summary>
        Bool,
        /// <summary>An integer.</summary>
        Int,
        /// <summary>Any non-empty text.</summary>
        Text,
    }

    /// <summary>A key accepted with a warning.</summary>
    /// <param name="Name">The key.</param>
    /// <param name="Kind">How its value is checked.</param>
    /// <param name="Reason">Why it does not apply (what FixEngine does instead).</param>
    /// <param name="Honoured">The value that matches FixEngine's own behaviour (no warning), or null to always warn.</param>
    internal sealed record Warned(string Name, ValueKind Kind, string Reason, string? Honoured = null);

    /// <summary>A QuickFIX C++ TLS key that applies to one role and sets one of our keys.</summary>
    /// <param name="Name">The QuickFIX C++ key.</param>
    /// <param name="Role">The role it applies to.</param>
    /// <param name="Target">Our key it sets.</param>
    internal sealed record RoleKey(string Name, ConnectionType Role, string Target);

    /// <summary>QuickFIX C++ <c>CertificateVerifyLevel</c> (acceptors: 0 no client certificate, 1 required, 2 optional,
    /// 3 not set).</summary>
    public const string VerifyLevel = "CertificateVerifyLevel";

    public static readonly RoleKey[] RoleKeys =
    [
        new("ServerCertificateFile", ConnectionType.Acceptor, "SSLCertificate"),
        new("ServerCertificateKeyFile", ConnectionType.Acceptor, "SSLCertificateKeyFile"),
        new("ClientCertificateFile", ConnectionType.Initiator, "SSLCertificate"),
        new("ClientCertificateKeyFile", ConnectionType.Initiator, "SSLCertificateKeyFile"),
    ];

    private const string NoDatabase = "FixEngine has no MySQL/ODBC store or log; use FileStorePath/FileLogPath or your own IMessageStore/ISessionLog";
    private const string NoScreenLog = "FixEngine has no screen log; session events go to FileLogPath and EngineOptions.Console";

    public static readonly Warned[] All =
    [
        // Session behaviour fixed in FixEngine
        new("RequiresOrigSendingTime", ValueKind.Bool, "FixEngine always rejects a PossDup message without OrigSendingTime(122)", "Y"),
        new("ResendSessionLevelRejects", ValueKind.Bool, "FixEngine gap-fills session-level Rejects on resend, as it does every admin message", "N"),
        new("CmeEnhancedResend", ValueKind.Bool, "CME enhanced resend is not supported; resends follow the FIX rules", "N"),
        new("SendResetSeqNumFlag", ValueKind.Bool, "use ResetOnLogon: FixEngine sends ResetSeqNumFlag(141)=Y on Logon when ResetOnLogon=Y", "N"),
        new("PreserveMessageFieldsOrder", ValueKind.Bool, "FixEngine always sends fields in the order the application writes them", "Y"),
        new("Encoding", ValueKind.Text, "FixEngine hands the application raw bytes (FixMessage spans); decode text fields with the encoding you need"),
        // Sockets
        new("SocketSendTimeout", ValueKind.Int, "FixEngine sockets are non-blocking; a stuck peer is caught by the heartbeat/TestRequest timeout and SendBacklogLimitBytes", "0"),
        new("SocketReceiveTimeout", ValueKind.Int, "FixEngine sockets are non-blocking; a silent peer is caught by the heartbeat/TestRequest timeout", "0"),
        new("SocketIgnoreProxy", ValueKind.Bool, "FixEngine never connects through a proxy", "Y"),
        // TLS
        new("SSLCipherSuite", ValueKind.Text, "cipher suites come from the operating system's TLS policy (OpenSSL configuration on Linux)"),
        new("TLSCipherSuites", ValueKind.Text, "cipher suites come from the operating system's TLS policy (OpenSSL configuration on Linux)"),
        new("CertificateRevocationListFile", ValueKind.Text, "CRL files are not loaded; SSLCheckCertificateRevocation=Y checks revocation online"),
        new("CertificateRevocationListDirectory", ValueKind.Text, "CRL directories are not loaded; SSLCheckCertificateRevocation=Y checks revocation online"),
        // Store
        new("FileStoreMaxCachedMsgs", ValueKind.Int, "the file store keeps its own preallocated index of every message in the session period (StoreIndexCapacity)"),
        new("MySQLStoreDatabase", ValueKind.Text, NoDatabase),
        new("MySQLStoreUser", ValueKind.Text, NoDatabase),
        new("MySQLStorePassword", ValueKind.Text, NoDatabase),
        new("MySQLStoreHost", ValueKind.Text, NoDatabase),
        new("MySQLStorePort", ValueKind.Int, NoDatabase),
        new("MySQLStoreUseConnectionPool", ValueKind.Bool, NoDatabase),
        new("OdbcStoreUser", ValueKind.Text, NoDatabase),
        new("OdbcStorePassword", ValueKind.Text, NoDatabase),
        new("OdbcStoreConnectionString", ValueKind.Text, NoDatabase),
        // Log
        new("FileLogBackupPath", ValueKind.Text, "FixEngine does not back up or roll its log files"),
        new("DebugFileLogPath", ValueKind.Text, "FixEngine has no separate debug log; engine events go to FileLogPath and EngineOptions.Console"),
        new("DebugLogFilePath", ValueKind.Text, "FixEngine has no separate debug log; engine events go to FileLogPath and EngineOptions.Console"),
        new("ScreenLogShowIncoming", ValueKind.Bool, NoScreenLog),
        new("ScreenLogShowOutgoing", ValueKind.Bool, NoScreenLog),
        new("ScreenLogShowEvents", ValueKind.Bool, NoScreenLog),
        new("ScreenLogShowHeartBeats", ValueKind.Bool, NoScreenLog),
        new("MySQLLogDatabase", ValueKind.Text, NoDatabase),
        new("MySQLLogUser", ValueKind.Text, NoDatabase),
        new("MySQLLogPassword", ValueKind.Text, NoDatabase),
        new("MySQLLogHost", ValueKind.Text, NoDatabase),
        new("MySQLLogPort", ValueKind.Int, NoDatabase),
        new("MySQLLogUseConnectionPool", ValueKind.Bool, NoDatabase),
        new("MySQLLogIncomingTable", ValueKind.Text, NoDatabase),
        new("MySQLLogOutgoingTable", ValueKind.Text, NoDatabase),
        new("MySQLLogEventTable", ValueKind.Text, NoDatabase),
        new("OdbcLogUser", ValueKind.Text, NoDatabase),
        new("OdbcLogPassword", ValueKind.Text, NoDatabase),
        new("OdbcLogConnectionString", ValueKind.Text, NoDatabase),
        new("OdbcLogIncomingTable", ValueKind.Text, NoDatabase),
        new("OdbcLogOutgoingTable", ValueKind.Text, NoDatabase),
        new("OdbcLogEventTable", ValueKind.Text, NoDatabase),
    ];

    /// <summary>A key refused at load (unless its value is what FixEngine does anyway): FixEngine cannot apply it, and
    /// running as if it were applied would behave differently from what the file asks.</summary>
    /// <param name="Name">The key.</param>
    /// <param name="Kind">How its value is checked.</param>
    /// <param name="Reason">Why it cannot apply, and what to use instead.</param>
    /// <param name="Honoured">The value that matches FixEngine's own behaviour (accepted silently), or null to always refuse.</param>
    internal sealed record Refused(string Name, ValueKind Kind, string Reason, string? Honoured = null);

    public static readonly Refused[] RefusedKeys =
    [
    ];

    private static readonly Dictionary<string, Warned> s_warned = IndexWarned();

    /// <summary>The refused key <paramref name="key"/>, or null. Keys that <see cref="SettingKeys"/> supports are not
    /// refused.</summary>
    public static Refused? FindRefused(string key)
    {
        if (SettingKeys.Find(key) is not null) return null;
        foreach (Refused r in RefusedKeys)
        {
            if (r.Name.Equals(key, StringComparison.OrdinalIgnoreCase)) return r;
        }
        return null;
    }

    /// <summary>Checks a refused key's value: null when it is what FixEngine does anyway, otherwise why it is refused.</summary>
    /// <exception cref="SettingKeys.BadValueException">The value is malformed.</exception>
    public static string? CheckRefused(Refused r, string value)
    {
        switch (r.Kind)
        {
            case ValueKind.Bool:
                bool b = SettingKeys.ParseBool(value);
                if (r.Honoured is not null && b == (r.Honoured == "Y")) return null;
                break;
            case ValueKind.Int:
                SettingKeys.ParseInt(value);
                break;
            default:
                if (value.Length == 0) throw new SettingKeys.BadValueException("empty value");
                break;
        }
        return "not supported: " + r.Reason;
    }

    private static Dictionary<string, Warned> IndexWarned()
    {
        var d = new Dictionary<string, Warned>(StringComparer.OrdinalIgnoreCase);
        foreach (Warned w in All) d.Add(w.Name, w);
        return d;
    }

    /// <summary>The warned key <paramref name="key"/>, or null. Keys that <see cref="SettingKeys"/> supports are not
    /// warned.</summary>
    public static Warned? FindWarned(string key)
    {
        if (SettingKeys.Find(key) is not null) return null;
        if (s_warned.TryGetValue(key, out Warned? w)) return w;
        return null;
    }

    /// <summary>The role key <paramref name="key"/>, or null.</summary>
    public static RoleKey? FindRoleKey(string key)
    {
        foreach (RoleKey r in RoleKeys)
        {
            if (r.Name.Equals(key, StringComparison.OrdinalIgnoreCase)) return r;
        }
        return null;
    }

    /// <summary>Checks a warned key's value; returns the warning reason, or null when the value is what FixEngine does.</summary>
    /// <exception cref="SettingKeys.BadValueException">The value is malformed.</exception>
    public static string? Check(Warned w, string value)
    {
        switch (w.Kind)
        {
            case ValueKind.Bool:
                bool b = SettingKeys.ParseBool(value);
                if (w.Honoured is not null && b == (w.Honoured == "Y")) return null;
                break;
            case ValueKind.Int:
                int i = SettingKeys.ParseInt(value);
                if (w.Honoured is not null && i.ToString(CultureInfo.InvariantCulture) == w.Honoured) return null;
                break;
            default:
                if (value.Length == 0) throw new SettingKeys.BadValueException("empty value");
                break;
        }
        return "accepted but not applied: " + w.Reason;
    }
}
