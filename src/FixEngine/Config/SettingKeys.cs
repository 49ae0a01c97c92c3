using System;
using System.Collections.Generic;
using System.Globalization;
using System.Security.Authentication;
using FixEngine.Transport;

namespace FixEngine.Config;

/// <summary>The table of known keys: how each is parsed into <see cref="SessionSettings"/> and written back.</summary>
internal static class SettingKeys
{
    /// <summary>A value that does not parse; the loader adds file, line and key.</summary>
    internal sealed class BadValueException(string reason) : Exception(reason);

    /// <summary>A supported key: how its value is applied and written back.</summary>
    /// <param name="Name">The key as documented.</param>
    /// <param name="Apply">Parses the value into the settings; throws <see cref="BadValueException"/>.</param>
    /// <param name="Format">The value to write back, or null to leave the key out (aliases write nothing).</param>
    /// <param name="Note">A warning about an accepted value (e.g. a precision rounded up), or null.</param>
    internal sealed record Key(
        string Name,
        Func<SessionSettings, string, SessionSettings> Apply,
        Func<SessionSettings, string?> Format,
        Func<string, string?>? Note = null);

    public static readonly Key[] All =
    [
        new("ConnectionType", (s, v) => s with { ConnectionType = ParseConnectionType(v) }, s => s.ConnectionType switch
        {
            ConnectionType.Acceptor => "acceptor",
            ConnectionType.Initiator => "initiator",
            _ => null,
        }),
        Str("BeginString", (s, v) => s with { BeginString = v }, s => s.BeginString),
        Str("DefaultApplVerID", (s, v) => s with { DefaultApplVerID = v }, s => s.DefaultApplVerID),
        Str("SenderCompID", (s, v) => s with { SenderCompID = v }, s => s.SenderCompID),
        Str("TargetCompID", (s, v) => s with { TargetCompID = v }, s => s.TargetCompID),
        Str("SenderSubID", (s, v) => s with { SenderSubID = v }, s => s.SenderSubID),
        Str("SenderLocationID", (s, v) => s with { SenderLocationID = v }, s => s.SenderLocationID),
        Str("TargetSubID", (s, v) => s with { TargetSubID = v }, s => s.TargetSubID),
        Str("TargetLocationID", (s, v) => s with { TargetLocationID = v }, s => s.TargetLocationID),
        Str("SessionQualifier", (s, v) => s with { SessionQualifier = v }, s => s.SessionQualifier),
        Int("HeartBtInt", (s, v) => s with { HeartBtInt = v }, s => s.HeartBtInt),
        Str("SocketAcceptHost", (s, v) => s with { SocketAcceptHost = v }, s => s.SocketAcceptHost),
        Int("SocketAcceptPort", (s, v) => s with { SocketAcceptPort = v }, s => s.SocketAcceptPort),
        Str("SocketConnectHost", (s, v) => s with { SocketConnectHost = v }, s => s.SocketConnectHost),
        Int("SocketConnectPort", (s, v) => s with { SocketConnectPort = v }, s => s.SocketConnectPort),
        Str("SocketLocalHost", (s, v) => s with { SocketLocalHost = v }, s => s.SocketLocalHost),
        Alias("SocketConnectSourceHost", "SocketLocalHost"),
        Int("SocketLocalPort", (s, v) => s with { SocketLocalPort = v }, s => s.SocketLocalPort),
        Alias("SocketConnectSourcePort", "SocketLocalPort"),
        new("AllowedRemoteAddresses", (s, v) => s with { AllowedRemoteAddresses = ParseList(v) },
            s => s.AllowedRemoteAddresses.Count == 0 ? null : string.Join(",", s.AllowedRemoteAddresses)),
        Int("ReconnectInterval", (s, v) => s with { ReconnectInterval = v }, s => s.ReconnectInterval),
        Int("LogonTimeout", (s, v) => s with { LogonTimeout = v }, s => s.LogonTimeout),
        Int("LogoutTimeout", (s, v) => s with { LogoutTimeout = v }, s => s.LogoutTimeout),
        new("StartTime", (s, v) => s with { StartTime = ParseTime(v) }, s => FormatTime(s.StartTime)),
        new("EndTime", (s, v) => s with { EndTime = ParseTime(v) }, s => FormatTime(s.EndTime)),
        Str("TimeZone", (s, v) => s with { TimeZone = v }, s => s.TimeZone),
        Bool("UseLocalTime", (s, v) => s with { UseLocalTime = v }, s => s.UseLocalTime),
        new("StartDay", (s, v) => s with { StartDay = ParseDay(v) }, s => s.StartDay?.ToString()),
        new("EndDay", (s, v) => s with { EndDay = ParseDay(v) }, s => s.EndDay?.ToString()),
        new("Weekdays", (s, v) => s with { Weekdays = ParseDays(v) }, s => s.Weekdays.Count == 0 ? null : string.Join(",", s.Weekdays)),
        Bool("NonStopSession", (s, v) => s with { NonStopSession = v }, s => s.NonStopSession),
        new("LogonTime", (s, v) => s with { LogonTime = ParseTime(v) }, s => FormatTime(s.LogonTime)),
        new("LogoutTime", (s, v) => s with { LogoutTime = ParseTime(v) }, s => FormatTime(s.LogoutTime)),
        new("LogonDay", (s, v) => s with { LogonDay = ParseDay(v) }, s => s.LogonDay?.ToString()),
        new("LogoutDay", (s, v) => s with { LogoutDay = ParseDay(v) }, s => s.LogoutDay?.ToString()),
        Bool("ContinueInitializationOnError", (s, v) => s with { ContinueInitializationOnError = v }, s => s.ContinueInitializationOnError),
        Str("FileStorePath", (s, v) => s with { FileStorePath = v }, s => s.FileStorePath),
        Str("FileStoreArchivePath", (s, v) => s with { FileStoreArchivePath = v }, s => s.FileStoreArchivePath),
        Bool("FileStoreIndexCheckpoint", (s, v) => s with { FileStoreIndexCheckpoint = v }, s => s.FileStoreIndexCheckpoint),
        Str("FileLogPath", (s, v) => s with { FileLogPath = v }, s => s.FileLogPath),
        Enum("FileLogLayout", (s, v) => s with { FileLogLayout = v }, s => s.FileLogLayout),
        new("RedactFieldsInLogs", (s, v) => s with { RedactFieldsInLogs = ParseTags(v) },
            s => s.RedactFieldsInLogs.Count == 0 ? null : string.Join(",", s.RedactFieldsInLogs)),
        Str("RedactionLogText", (s, v) => s with { RedactionLogText = v },
            s => s.RedactionLogText == SessionSettings.DefaultRedactionLogText ? null : s.RedactionLogText),
        Str("DataDictionary", (s, v) => s with { DataDictionary = v }, s => s.DataDictionary),
        Str("TransportDataDictionary", (s, v) => s with { TransportDataDictionary = v }, s => s.TransportDataDictionary),
        Str("AppDataDictionary", (s, v) => s with { AppDataDictionary = v }, s => s.AppDataDictionary),
        // The default Y is not written back for settings without a dictionary: written, it would be refused on reading.
        new("UseDataDictionary", (s, v) => s with { UseDataDictionary = ParseBool(v) },
            s => !s.UseDataDictionary ? "N" : s.DataDictionary is null && s.TransportDataDictionary is null && s.AppDataDictionary is null ? null : "Y"),
        Bool("ResetOnLogon", (s, v) => s with { ResetOnLogon = v }, s => s.ResetOnLogon),
        Bool("ResetOnLogout", (s, v) => s with { ResetOnLogout = v }, s => s.ResetOnLogout),
        Bool("ResetOnDisconnect", (s, v) => s with { ResetOnDisconnect = v }, s => s.ResetOnDisconnect),
        Bool("RefreshOnLogon", (s, v) => s with { RefreshOnLogon = v }, s => s.RefreshOnLogon),
        Bool("SendRedundantResendRequests", (s, v) => s with { SendRedundantResendRequests = v }, s => s.SendRedundantResendRequests),
        Int("ResendRequestChunkSize", (s, v) => s with { ResendRequestChunkSize = v }, s => s.ResendRequestChunkSize),
        Alias("MaxMessagesInResendRequest", "ResendRequestChunkSize"),
        Bool("ValidateFieldsOutOfOrder", (s, v) => s with { ValidateFieldsOutOfOrder = v }, s => s.ValidateFieldsOutOfOrder),
        Bool("ValidateFieldsHaveValues", (s, v) => s with { ValidateFieldsHaveValues = v }, s => s.ValidateFieldsHaveValues),
        Bool("ValidateUserDefinedFields", (s, v) => s with { ValidateUserDefinedFields = v }, s => s.ValidateUserDefinedFields),
        Bool("ValidateUnorderedGroupFields", (s, v) => s with { ValidateUnorderedGroupFields = v }, s => s.ValidateUnorderedGroupFields),
        Bool("ValidateLengthAndChecksum", (s, v) => s with { ValidateLengthAndChecksum = v }, s => s.ValidateLengthAndChecksum),
        Bool("AllowUnknownMsgFields", (s, v) => s with { AllowUnknownMsgFields = v }, s => s.AllowUnknownMsgFields),
        Bool("AllowUnknownEnumValues", (s, v) => s with { AllowUnknownEnumValues = v }, s => s.AllowUnknownEnumValues),
        Alias("AllowUnknownFieldValues", "AllowUnknownEnumValues"),
        Bool("IgnorePossDupResendRequests", (s, v) => s with { IgnorePossDupResendRequests = v }, s => s.IgnorePossDupResendRequests),
        Bool("SendLogoutBeforeDisconnectFromTimeout", (s, v) => s with { SendLogoutBeforeDisconnectFromTimeout = v }, s => s.SendLogoutBeforeDisconnectFromTimeout),
        Bool("CheckLatency", (s, v) => s with { CheckLatency = v }, s => s.CheckLatency),
        Int("MaxLatency", (s, v) => s with { MaxLatency = v }, s => s.MaxLatency),
        Bool("CheckCompID", (s, v) => s with { CheckCompID = v }, s => s.CheckCompID),
        Bool("PersistMessages", (s, v) => s with { PersistMessages = v }, s => s.PersistMessages),
        Bool("MillisecondsInTimeStamp", (s, v) => s with { MillisecondsInTimeStamp = v }, s => s.MillisecondsInTimeStamp),
        new("TimestampPrecision", (s, v) => s with { TimestampPrecision = ParsePrecision(v) },
            s => s.TimestampPrecision?.ToString(CultureInfo.InvariantCulture), PrecisionNote),
        Bool("EnableLastMsgSeqNumProcessed", (s, v) => s with { EnableLastMsgSeqNumProcessed = v }, s => s.EnableLastMsgSeqNumProcessed),
        Bool("EnableNextExpectedMsgSeqNum", (s, v) => s with { EnableNextExpectedMsgSeqNum = v }, s => s.EnableNextExpectedMsgSeqNum),
        Int("MaxSenderSeqNumCatchUp", (s, v) => s with { MaxSenderSeqNumCatchUp = v }, s => s.MaxSenderSeqNumCatchUp),
        Bool("SocketNodelay", (s, v) => s with { SocketNodelay = v }, s => s.SocketNodelay),
        Bool("SocketReuseAddress", (s, v) => s with { SocketReuseAddress = v }, s => s.SocketReuseAddress),
        Bool("SocketReusePort", (s, v) => s with { SocketReusePort = v }, s => s.SocketReusePort),
        Int("SocketSendBufferSize", (s, v) => s with { SocketSendBufferSize = v }, s => s.SocketSendBufferSize),
        Int("SocketReceiveBufferSize", (s, v) => s with { SocketReceiveBufferSize = v }, s => s.SocketReceiveBufferSize),
        Bool("SocketKeepAlive", (s, v) => s with { SocketKeepAlive = v }, s => s.SocketKeepAlive),
        Enum("ReceiveMode", (s, v) => s with { ReceiveMode = v }, s => s.ReceiveMode),
        new("CpuAffinity", (s, v) => s with { CpuAffinity = ParseCpus(v) }, s => s.CpuAffinity.Count == 0 ? null : string.Join(",", s.CpuAffinity)),
        Enum("IdleStrategy", (s, v) => s with { IdleStrategy = v }, s => s.IdleStrategy),
        new("FileStoreSync", (s, v) => s with { FileStoreSync = ParseStoreSync(v) }, s => s.FileStoreSync.ToString()),
        Enum("FileStoreRecovery", (s, v) => s with { FileStoreRecovery = v }, s => s.FileStoreRecovery),
        Int("MaxMessageSize", (s, v) => s with { MaxMessageSize = v }, s => s.MaxMessageSize),
        Int("PreLogonMaxMessageSize", (s, v) => s with { PreLogonMaxMessageSize = v }, s => s.PreLogonMaxMessageSize),
        Int("MaxUnauthenticatedConnections", (s, v) => s with { MaxUnauthenticatedConnections = v }, s => s.MaxUnauthenticatedConnections),
        Int("SSLHandshakeTimeout", (s, v) => s with { SSLHandshakeTimeout = v }, s => s.SSLHandshakeTimeout),
        Int("MaxUnauthenticatedConnectionsPerAddress", (s, v) => s with { MaxUnauthenticatedConnectionsPerAddress = v }, s => s.MaxUnauthenticatedConnectionsPerAddress),
        Int("StoreIndexCapacity", (s, v) => s with { StoreIndexCapacity = v }, s => s.StoreIndexCapacity),
        Int("MemoryStoreCapacityBytes", (s, v) => s with { MemoryStoreCapacityBytes = v }, s => s.MemoryStoreCapacityBytes),
        Enum("StoreFailurePolicy", (s, v) => s with { StoreFailurePolicy = v }, s => s.StoreFailurePolicy),
        Alias("PostgreSQLStoreFailurePolicy", "StoreFailurePolicy"),
        // Keys of integration packages: kept as written (SessionSettings.ExtensionSettings) for the package to parse.
        Extension("PostgreSQLStoreConnectionString"),
        Extension("PostgreSQLStoreTablePrefix"),
        Extension("PostgreSQLStoreSync"),
        Extension("PostgreSQLStoreLeaseTimeout"),
        // QuickFIX C++'s PostgreSQL store keys: FixEngine.PostgreSQL builds its connection string from them.
        Extension("PostgreSQLStoreDatabase"),
        Extension("PostgreSQLStoreUser"),
        Extension("PostgreSQLStorePassword"),
        Extension("PostgreSQLStoreHost"),
        Extension("PostgreSQLStorePort"),
        Extension("PostgreSQLStoreUseConnectionPool"),
        Extension("HttpAcceptPort"),
        Extension("HttpAcceptAddress"),
        Bool("SocketUseSSL", (s, v) => s with { SocketUseSSL = v }, s => s.SocketUseSSL),
        Alias("SSLEnable", "SocketUseSSL"),
        Str("SSLCertificate", (s, v) => s with { SSLCertificate = v }, s => s.SSLCertificate),
        Str("SSLCertificateKeyFile", (s, v) => s with { SSLCertificateKeyFile = v }, s => s.SSLCertificateKeyFile),
        Str("SSLCertificatePassword", (s, v) => s with { SSLCertificatePassword = v }, s => s.SSLCertificatePassword),
        Str("SSLServerName", (s, v) => s with { SSLServerName = v }, s => s.SSLServerName),
        Bool("SSLRequireClientCertificate", (s, v) => s with { SSLRequireClientCertificate = v }, s => s.SSLRequireClientCertificate),
        Str("SSLCACertificate", (s, v) => s with { SSLCACertificate = v }, s => s.SSLCACertificate),
        Alias("CertificationAuthoritiesFile", "SSLCACertificate"),
        Str("SSLCACertificateDirectory", (s, v) => s with { SSLCACertificateDirectory = v }, s => s.SSLCACertificateDirectory),
        Alias("CertificationAuthoritiesDirectory", "SSLCACertificateDirectory"),
        Bool("SSLValidateCertificates", (s, v) => s with { SSLValidateCertificates = v }, s => s.SSLValidateCertificates),
        Bool("SSLCheckCertificateRevocation", (s, v) => s with { SSLCheckCertificateRevocation = v }, s => s.SSLCheckCertificateRevocation),
        new("SSLProtocols", (s, v) => s with { SSLProtocols = ParseProtocols(v) },
            s => s.SSLProtocols == SslProtocols.None ? null : FormatProtocols(s.SSLProtocols), ProtocolsNote),
        new("SSLProtocol", (s, v) => s with { SSLProtocols = ParseOpenSslProtocols(v) }, _ => null, OpenSslProtocolsNote),
        Bool("Verbose", (s, v) => s with { Verbose = v }, s => s.Verbose),
    ];

    /// <summary>Keys that set the same property as another key (QuickFIX/n or QuickFIX C++ spelling -> ours); setting
    /// both in one session is an error.</summary>
    private static readonly Dictionary<string, string> s_sameAs = new(StringComparer.OrdinalIgnoreCase)
    {
        ["SSLEnable"] = "SocketUseSSL",
        ["CertificationAuthoritiesFile"] = "SSLCACertificate",
        ["CertificationAuthoritiesDirectory"] = "SSLCACertificateDirectory",
        ["MaxMessagesInResendRequest"] = "ResendRequestChunkSize",
        ["AllowUnknownFieldValues"] = "AllowUnknownEnumValues",
        ["SSLProtocol"] = "SSLProtocols",
        ["PostgreSQLStoreFailurePolicy"] = "StoreFailurePolicy",
        ["SocketConnectSourceHost"] = "SocketLocalHost",
        ["SocketConnectSourcePort"] = "SocketLocalPort",
    };

    /// <summary>The package that reads each integration key, with the way to use it (named in the error a session gets
    /// when the package is not in use) and whether the key selects that package's store (a connection string, or one of
    /// QuickFIX C++'s PostgreSQL connection keys) rather than only tuning it.</summary>
    private static readonly Dictionary<string, (string Package, string Usage, bool SelectsStore)> s_extensionOwners = new(StringComparer.OrdinalIgnoreCase)
    {
        ["PostgreSQLStoreConnectionString"] = (PostgreSQLPackage, PostgreSQLUsage, true),
        ["PostgreSQLStoreTablePrefix"] = (PostgreSQLPackage, PostgreSQLUsage, false),
        ["PostgreSQLStoreSync"] = (PostgreSQLPackage, PostgreSQLUsage, false),
        ["PostgreSQLStoreLeaseTimeout"] = (PostgreSQLPackage, PostgreSQLUsage, false),
        ["PostgreSQLStoreDatabase"] = (PostgreSQLPackage, PostgreSQLUsage, true),
        ["PostgreSQLStoreUser"] = (PostgreSQLPackage, PostgreSQLUsage, true),
        ["PostgreSQLStorePassword"] = (PostgreSQLPackage, PostgreSQLUsage, true),
        ["PostgreSQLStoreHost"] = (PostgreSQLPackage, PostgreSQLUsage, true),
        ["PostgreSQLStorePort"] = (PostgreSQLPackage, PostgreSQLUsage, true),
        ["PostgreSQLStoreUseConnectionPool"] = (PostgreSQLPackage, PostgreSQLUsage, true),
        ["HttpAcceptPort"] = (AspNetCorePackage, AspNetCoreUsage, false),
        ["HttpAcceptAddress"] = (AspNetCorePackage, AspNetCoreUsage, false),
    };

    private const string PostgreSQLPackage = "FixEngine.PostgreSQL";

    private const string AspNetCorePackage = "FixEngine.AspNetCore";

    private const string AspNetCoreUsage = "referencing it is enough: the engine then serves its web console on that port, "
        + "bound to loopback; or map it into an ASP.NET Core app with MapFixEngineAdmin";

    private const string PostgreSQLUsage = "set EngineOptions.MessageStoreFactory = PostgresMessageStoreFactory.Instance, "
        + "or register it as the IMessageStoreFactory of AddFixEngine";

    /// <summary>The package that reads the integration key <paramref name="name"/> and how to use it, or null for a key
    /// that is not an integration package's.</summary>
    public static (string Package, string Usage)? ExtensionOwner(string name)
        => s_extensionOwners.TryGetValue(name, out var owner) ? (owner.Package, owner.Usage) : null;

    /// <summary>True for an integration key that selects that package's store (a connection string, or one of QuickFIX
    /// C++'s PostgreSQL connection keys); the package's other keys only tune its store.</summary>
    public static bool SelectsStore(string name) => s_extensionOwners.TryGetValue(name, out var owner) && owner.SelectsStore;

    private static readonly Dictionary<string, Key> s_byName = Index();

    private static Dictionary<string, Key> Index()
    {
        var d = new Dictionary<string, Key>(StringComparer.OrdinalIgnoreCase);
        foreach (Key k in All) d.Add(k.Name, k);
        return d;
    }

    public static Key? Find(string name) => s_byName.TryGetValue(name, out Key? k) ? k : null;

    /// <summary>The key whose property <paramref name="name"/> sets (itself unless it is an alias).</summary>
    public static string Canonical(string name) => s_sameAs.TryGetValue(name, out string? canonical) ? canonical : name;

    /// <summary>The known key closest to <paramref name="unknown"/> by edit distance (ignoring case), or null when none
    /// is close enough to be a likely typo.</summary>
    public static string? Suggest(string unknown)
    {
        string? best = null;
        int bestDistance = int.MaxValue;
        foreach (string candidate in KnownNames())
        {
            int d = EditDistance(unknown.ToUpperInvariant(), candidate.ToUpperInvariant());
            if (d < bestDistance)
            {
                bestDistance = d;
                best = candidate;
            }
        }
        int allowed = Math.Max(2, unknown.Length / 3);
        return bestDistance <= allowed ? best : null;
    }

    private static IEnumerable<string> KnownNames()
    {
        foreach (Key k in All) yield return k.Name;
        foreach (CompatibilityKeys.Warned w in CompatibilityKeys.All) yield return w.Name;
        foreach (CompatibilityKeys.RoleKey r in CompatibilityKeys.RoleKeys) yield return r.Name;
        yield return CompatibilityKeys.VerifyLevel;
    }

    // Levenshtein distance, two rows.
    internal static int EditDistance(string a, string b)
    {
        var previous = new int[b.Length + 1];
        var current = new int[b.Length + 1];
        for (int j = 0; j <= b.Length; j++) previous[j] = j;
        for (int i = 1; i <= a.Length; i++)
        {
            current[0] = i;
            for (int j = 1; j <= b.Length; j++)
            {
                int substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
                current[j] = Math.Min(substitution, Math.Min(previous[j] + 1, current[j - 1] + 1));
            }
            (previous, current) = (current, previous);
        }
        return previous[b.Length];
    }

    /// <summary>The prefix of QuickFIX's per-version application dictionary keys (<c>AppDataDictionary.FIX.4.4</c>).</summary>
    internal const string AppDictionaryPrefix = "AppDataDictionary.";

    /// <summary>The application versions an <c>AppDataDictionary.&lt;version&gt;</c> key may name, as QuickFIX spells
    /// them (BeginString-style), in ApplVerID(1128) order: FIX.4.0 is 2 ... FIX.5.0SP2 is 9.</summary>
    internal static readonly string[] ApplVersionNames = ["FIX.4.0", "FIX.4.1", "FIX.4.2", "FIX.4.3", "FIX.4.4", "FIX.5.0", "FIX.5.0SP1", "FIX.5.0SP2"];

    /// <summary>Splits <c>AppDataDictionary.FIX.4.4</c>: true for any key with the prefix and something after it;
    /// <paramref name="version"/> is the version's name as <see cref="ApplVersionNames"/> spells it (the key ignores
    /// case), or null when the text after the dot names no application version.</summary>
    internal static bool TryParseAppDictionaryKey(string key, out string? version)
    {
        version = null;
        if (key.Length <= AppDictionaryPrefix.Length || !key.StartsWith(AppDictionaryPrefix, StringComparison.OrdinalIgnoreCase)) return false;
        string rest = key.Substring(AppDictionaryPrefix.Length);
        foreach (string name in ApplVersionNames)
        {
            if (name.Equals(rest, StringComparison.OrdinalIgnoreCase)) version = name;
        }
        return true;
    }

    /// <summary>Why the text after <c>AppDataDictionary.</c> is refused.</summary>
    internal static string UnknownApplVersion(string key)
        => $"'{key.Substring(AppDictionaryPrefix.Length)}' is not an application version: name one as QuickFIX does, "
            + $"{string.Join(", ", ApplVersionNames)} (e.g. AppDataDictionary.FIX.4.4)";

    /// <summary>The ApplVerID(1128) enum value of a version name or DefaultApplVerID setting (<c>FIX.5.0SP2</c> or
    /// <c>9</c>); other text is returned as it is, an empty string for null.</summary>
    internal static string ToApplVerId(string? setting) => setting switch
    {
        null or "" => "",
        "FIX.2.7" => "0",
        "FIX.3.0" => "1",
        "FIX.4.0" => "2",
        "FIX.4.1" => "3",
        "FIX.4.2" => "4",
        "FIX.4.3" => "5",
        "FIX.4.4" => "6",
        "FIX.5.0" => "7",
        "FIX.5.0SP1" => "8",
        "FIX.5.0SP2" => "9",
        _ => setting,
    };

    /// <summary>Splits <c>SocketConnectHost3</c> into ("SocketConnectHost", 3); false for other keys.</summary>
    public static bool TryParseFailoverKey(string key, out bool isHost, out int index)
    {
        isHost = false;
        index = 0;
        string rest;
        if (key.StartsWith("SocketConnectHost", StringComparison.OrdinalIgnoreCase))
        {
            isHost = true;
            rest = key.Substring("SocketConnectHost".Length);
        }
        else if (key.StartsWith("SocketConnectPort", StringComparison.OrdinalIgnoreCase))
        {
            rest = key.Substring("SocketConnectPort".Length);
        }
        else
        {
            return false;
        }
        return rest.Length > 0 && int.TryParse(rest, NumberStyles.None, CultureInfo.InvariantCulture, out index) && index >= 1;
    }

    /// <summary>Splits <c>SocketConnectSourceHost3</c> into ("SocketConnectSourceHost", 3) (QuickFIX C++: the local
    /// address and port failover n is connected from); false for other keys, including the unnumbered ones.</summary>
    public static bool TryParseFailoverSourceKey(string key, out bool isHost, out int index)
    {
        isHost = false;
        index = 0;
        string rest;
        if (key.StartsWith("SocketConnectSourceHost", StringComparison.OrdinalIgnoreCase))
        {
            isHost = true;
            rest = key.Substring("SocketConnectSourceHost".Length);
        }
        else if (key.StartsWith("SocketConnectSourcePort", StringComparison.OrdinalIgnoreCase))
        {
            rest = key.Substring("SocketConnectSourcePort".Length);
        }
        else
        {
            return false;
        }
        return rest.Length > 0 && int.TryParse(rest, NumberStyles.None, CultureInfo.InvariantCulture, out index) && index >= 1;
    }

    /// <summary>A comma-separated list (QuickFIX/J <c>AllowedRemoteAddresses</c>); entries are trimmed, empty ones refused.</summary>
    internal static IReadOnlyList<string> ParseList(string v)
    {
        string[] parts = v.Split(',', StringSplitOptions.TrimEntries);
        foreach (string p in parts)
        {
            if (p.Length == 0) throw new BadValueException($"'{v}' has an empty entry (a comma-separated list of addresses or host names)");
        }
        return parts;
    }

    /// <summary>Comma-separated tag numbers (QuickFIX/n <c>RedactFieldsInLogs</c>), each 1 or more.</summary>
    internal static IReadOnlyList<int> ParseTags(string v)
    {
        var tags = new List<int>();
        foreach (string p in v.Split(',', StringSplitOptions.TrimEntries))
        {
            if (!int.TryParse(p, NumberStyles.None, CultureInfo.InvariantCulture, out int tag) || tag < 1)
            {
                throw new BadValueException($"'{p}' is not a tag number (RedactFieldsInLogs is a comma-separated list like 553,554)");
            }
            if (!tags.Contains(tag)) tags.Add(tag);
        }
        return tags.ToArray();
    }

    // A second spelling of an existing key: same parsing, nothing written back.
    private static Key Alias(string name, string canonical)
        => new(name, (s, v) => Find(canonical)!.Apply(s, v), _ => null, v => Find(canonical)!.Note?.Invoke(v));

    private static Key Extension(string name)
        => new(name, (s, v) => v.Length == 0 ? throw new BadValueException("empty value") : s.WithExtensionSetting(name, v),
            s => s.ExtensionSettings.TryGetValue(name, out string? v) ? v : null);

    private static Key Str(string name, Func<SessionSettings, string, SessionSettings> apply, Func<SessionSettings, string?> format)
        => new(name, (s, v) => v.Length == 0 ? throw new BadValueException("empty value") : apply(s, v), format);

    private static Key Bool(string name, Func<SessionSettings, bool, SessionSettings> apply, Func<SessionSettings, bool> format)
        => new(name, (s, v) => apply(s, ParseBool(v)), s => format(s) ? "Y" : "N");

    private static Key Int(string name, Func<SessionSettings, int, SessionSettings> apply, Func<SessionSettings, int?> format)
        => new(name, (s, v) => apply(s, ParseInt(v)), s => format(s)?.ToString(CultureInfo.InvariantCulture));

    private static Key Enum<T>(string name, Func<SessionSettings, T, SessionSettings> apply, Func<SessionSettings, T> format)
        where T : struct, System.Enum
        => new(name, (s, v) => apply(s, ParseEnum<T>(v)), s => format(s).ToString());

    internal static bool ParseBool(string v) => v switch
    {
        "Y" or "y" => true,
        "N" or "n" => false,
        _ => throw new BadValueException($"'{v}' is not Y or N"),
    };

    internal static int ParseInt(string v)
        => int.TryParse(v, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out int i)
            ? i
            : throw new BadValueException($"'{v}' is not an integer");

    private static ConnectionType ParseConnectionType(string v)
    {
        if (v.Equals("acceptor", StringComparison.OrdinalIgnoreCase)) return ConnectionType.Acceptor;
        if (v.Equals("initiator", StringComparison.OrdinalIgnoreCase)) return ConnectionType.Initiator;
        throw new BadValueException($"'{v}' is not acceptor or initiator");
    }

    private static T ParseEnum<T>(string v)
        where T : struct, System.Enum
    {
        foreach (T value in System.Enum.GetValues<T>())
        {
            if (value.ToString().Equals(v, StringComparison.OrdinalIgnoreCase)) return value;
        }
        throw new BadValueException($"'{v}' is not one of {string.Join(", ", System.Enum.GetNames<T>())}");
    }

    /// <summary>HH:MM:SS (or H:MM:SS) with an optional fraction of up to 9 digits, as QuickFIX writes schedule times
    /// (<c>08:00:00</c>, <c>08:00:00.000</c>); a fraction finer than 100 ns is truncated.</summary>
    internal static TimeOnly ParseTime(string v)
    {
        int dot = v.IndexOf('.');
        string main = dot < 0 ? v : v.Substring(0, dot);
        if (!TimeOnly.TryParseExact(main, s_timeFormats, CultureInfo.InvariantCulture, DateTimeStyles.None, out TimeOnly t))
        {
            throw new BadValueException($"'{v}' is not a time HH:MM:SS[.fff]");
        }
        if (dot < 0) return t;
        string fraction = v.Substring(dot + 1);
        if (fraction.Length is 0 or > 9 || !IsDigits(fraction)) throw new BadValueException($"'{v}' is not a time HH:MM:SS[.fff]");
        string ticks = fraction.Length > 7 ? fraction.Substring(0, 7) : fraction.PadRight(7, '0');
        return t.Add(TimeSpan.FromTicks(long.Parse(ticks, NumberStyles.None, CultureInfo.InvariantCulture)));
    }

    private static readonly string[] s_timeFormats = ["HH:mm:ss", "H:mm:ss"];

    private static string? FormatTime(TimeOnly? t)
        => t?.ToString(t.Value.Ticks % TimeSpan.TicksPerSecond == 0 ? "HH:mm:ss" : "HH:mm:ss.FFFFFFF", CultureInfo.InvariantCulture);

    private static bool IsDigits(string s)
    {
        foreach (char c in s)
        {
            if (c is < '0' or > '9') return false;
        }
        return true;
    }

    /// <summary>A day name in English or any abbreviation of it of two letters or more (<c>Mo</c>, <c>Mon</c>,
    /// <c>Monda</c>, <c>Monday</c>), as QuickFIX accepts; case-insensitive.</summary>
    internal static DayOfWeek ParseDay(string v)
    {
        if (v.Length >= 2)
        {
            foreach (DayOfWeek d in System.Enum.GetValues<DayOfWeek>())
            {
                if (d.ToString().StartsWith(v, StringComparison.OrdinalIgnoreCase)) return d;
            }
        }
        throw new BadValueException($"'{v}' is not a day name (Monday, Mon or Mo ...)");
    }

    /// <summary>QuickFIX/n <c>Weekdays</c>: a comma-separated list of day names (<c>Mon,Tue,Wed,Thu,Fri</c>).</summary>
    internal static IReadOnlyList<DayOfWeek> ParseDays(string v)
    {
        var days = new SortedSet<DayOfWeek>();
        foreach (string part in v.Split(',', StringSplitOptions.TrimEntries | StringSplitOptions.RemoveEmptyEntries))
        {
            days.Add(ParseDay(part));
        }
        if (days.Count == 0) throw new BadValueException($"'{v}' is not a list of day names like Mon,Tue,Wed,Thu,Fri");
        return [.. days];
    }

    /// <summary>Digits 0-9 (QuickFIX C++) or the QuickFIX/n names Second(s), Millisecond(s), Microsecond(s),
    /// Nanosecond(s). Digits other than 0, 3, 6 and 9 round up to the next of those (see <see cref="PrecisionNote"/>).</summary>
    internal static int ParsePrecision(string v)
    {
        if (v.Length == 1 && v[0] is >= '0' and <= '9')
        {
            int digits = v[0] - '0';
            return digits == 0 ? 0 : (digits + 2) / 3 * 3;
        }
        return v.TrimEnd('s', 'S').ToUpperInvariant() switch
        {
            "SECOND" => 0,
            "MILLISECOND" => 3,
            "MICROSECOND" => 6,
            "NANOSECOND" => 9,
            _ => throw new BadValueException($"'{v}' is not 0-9, Seconds, Milliseconds, Microseconds or Nanoseconds"),
        };
    }

    private static string? PrecisionNote(string v)
    {
        if (v.Length != 1 || v[0] is '0' or '3' or '6' or '9' || v[0] is < '0' or > '9') return null;
        return $"{v} fraction digits are sent as {ParsePrecision(v)} (FixEngine writes 0, 3, 6 or 9 digits)";
    }

    /// <summary>Our names (PerMessage, Batched, OS), or QuickFIX/J's Y (fsync every message) and N (leave it to the OS).</summary>
    private static Store.FileStoreSyncPolicy ParseStoreSync(string v) => v switch
    {
        "Y" or "y" => Store.FileStoreSyncPolicy.PerMessage,
        "N" or "n" => Store.FileStoreSyncPolicy.OS,
        _ => ParseEnum<Store.FileStoreSyncPolicy>(v),
    };
    internal static IReadOnlyList<int> ParseCpus(string v)
    {
        var cpus = new List<int>();
        foreach (string part in v.Split(','))
        {
            string p = part.Trim();
            int dash = p.IndexOf('-');
            if (dash < 0)
            {
                cpus.Add(ParseCpu(p, v));
                continue;
            }
            int from = ParseCpu(p.Substring(0, dash).Trim(), v);
            int to = ParseCpu(p.Substring(dash + 1).Trim(), v);
            if (to < from) throw new BadValueException($"'{v}': range {p} is reversed");
            for (int i = from; i <= to; i++) cpus.Add(i);
        }
        return cpus.ToArray();
    }

    private static int ParseCpu(string p, string whole)
        => int.TryParse(p, NumberStyles.None, CultureInfo.InvariantCulture, out int cpu)
            ? cpu
            : throw new BadValueException($"'{whole}' is not a CPU list like 2, 2,3 or 2-3");

    // QuickFIX/n SSLProtocols: names of .NET's SslProtocols, comma-separated. TLS 1.0/1.1 and SSL are accepted and left
    // out (the platform no longer offers them; ProtocolsNote says so); Default means the OS default, as None does.
    private static SslProtocols ParseProtocols(string v)
    {
        SslProtocols result = SslProtocols.None;
        bool any = false;
        foreach (string part in v.Split(',', StringSplitOptions.TrimEntries | StringSplitOptions.RemoveEmptyEntries))
        {
            switch (part.ToUpperInvariant())
            {
                case "TLS12": result |= SslProtocols.Tls12; any = true; break;
                case "TLS13": result |= SslProtocols.Tls13; any = true; break;
                case "NONE" or "DEFAULT": any = true; break;
                case "TLS" or "TLS11" or "SSL2" or "SSL3": break;
                default: throw new BadValueException($"'{part}' is not Tls12, Tls13, None or Default");
            }
        }
        if (!any) throw new BadValueException($"'{v}' enables only TLS 1.0/1.1 or SSL, which are not offered (use Tls12 or Tls13)");
        return result;
    }

    private static string? ProtocolsNote(string v)
    {
        var old = new List<string>();
        foreach (string part in v.Split(',', StringSplitOptions.TrimEntries | StringSplitOptions.RemoveEmptyEntries))
        {
            if (part.ToUpperInvariant() is "TLS" or "TLS11" or "SSL2" or "SSL3") old.Add(part);
        }
        return old.Count == 0 ? null : $"{string.Join(", ", old)} not offered (insecure, disabled by the platform); the other versions are used";
    }

    // QuickFIX C++ SSLProtocol (OpenSSL / mod_ssl style): tokens separated by spaces, each optionally prefixed with + or -:
    // all, SSLv2, SSLv3, TLSv1, TLSv1_1, TLSv1_2, TLSv1_3. A first token without a sign replaces the set. 'all' means
    // every version the platform offers (TLS 1.2 and 1.3 here).
    private static SslProtocols ParseOpenSslProtocols(string v)
    {
        SslProtocols result = SslProtocols.None;
        bool anyToken = false;
        foreach (string raw in v.Split([' ', '\t', ','], StringSplitOptions.RemoveEmptyEntries))
        {
            char sign = raw[0] is '+' or '-' ? raw[0] : ' ';
            string name = sign == ' ' ? raw : raw.Substring(1);
            SslProtocols p = name.ToUpperInvariant() switch
            {
                "ALL" => SslProtocols.Tls12 | SslProtocols.Tls13,
                "TLSV1_2" or "TLSV1.2" => SslProtocols.Tls12,
                "TLSV1_3" or "TLSV1.3" => SslProtocols.Tls13,
                "SSLV2" or "SSLV3" or "TLSV1" or "TLSV1_1" or "TLSV1.1" => SslProtocols.None,
                _ => throw new BadValueException($"'{name}' is not all, SSLv2, SSLv3, TLSv1, TLSv1_1, TLSv1_2 or TLSv1_3"),
            };
            result = sign == '-' ? result & ~p : result | p;
            anyToken = true;
        }
        if (!anyToken || result == SslProtocols.None)
        {
            throw new BadValueException($"'{v}' leaves no protocol this platform offers (TLSv1_2, TLSv1_3)");
        }
        return result;
    }

    private static string? OpenSslProtocolsNote(string v)
    {
        var old = new List<string>();
        foreach (string raw in v.Split([' ', '\t', ','], StringSplitOptions.RemoveEmptyEntries))
        {
            if (raw[0] == '-') continue;
            string name = raw[0] == '+' ? raw.Substring(1) : raw;
            if (name.ToUpperInvariant() is "SSLV2" or "SSLV3" or "TLSV1" or "TLSV1_1" or "TLSV1.1") old.Add(name);
        }
        return old.Count == 0 ? null : $"{string.Join(", ", old)} not offered (insecure, disabled by the platform); the other versions are used";
    }

    private static string FormatProtocols(SslProtocols p)
    {
        var parts = new List<string>();
        if ((p & SslProtocols.Tls12) != 0) parts.Add("Tls12");
        if ((p & SslProtocols.Tls13) != 0) parts.Add("Tls13");
        return string.Join(",", parts);
    }
}
