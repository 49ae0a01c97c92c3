using System;
using System.Collections.Generic;
using System.Globalization;
using System.Security.Authentication;

namespace FixEngine.Config;

/// <summary>The table of known keys: how each is parsed into <see cref="SessionSettings"/> and written back.</summary>
internal static class SettingKeys
{
    /// <summary>A value that does not parse; the loader adds file, line and key.</summary>
    internal sealed class BadValueException(string reason) : Exception(reason);

    internal sealed record Key(string Name, Func<SessionSettings, string, SessionSettings> Apply, Func<SessionSettings, string?> Format);

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
        Int("ReconnectInterval", (s, v) => s with { ReconnectInterval = v }, s => s.ReconnectInterval),
        Int("LogonTimeout", (s, v) => s with { LogonTimeout = v }, s => s.LogonTimeout),
        Int("LogoutTimeout", (s, v) => s with { LogoutTimeout = v }, s => s.LogoutTimeout),
        new("StartTime", (s, v) => s with { StartTime = ParseTime(v) }, s => FormatTime(s.StartTime)),
        new("EndTime", (s, v) => s with { EndTime = ParseTime(v) }, s => FormatTime(s.EndTime)),
        Str("TimeZone", (s, v) => s with { TimeZone = v }, s => s.TimeZone),
        new("StartDay", (s, v) => s with { StartDay = ParseDay(v) }, s => s.StartDay?.ToString()),
        new("EndDay", (s, v) => s with { EndDay = ParseDay(v) }, s => s.EndDay?.ToString()),
        Bool("NonStopSession", (s, v) => s with { NonStopSession = v }, s => s.NonStopSession),
        Str("FileStorePath", (s, v) => s with { FileStorePath = v }, s => s.FileStorePath),
        Str("FileLogPath", (s, v) => s with { FileLogPath = v }, s => s.FileLogPath),
        Str("DataDictionary", (s, v) => s with { DataDictionary = v }, s => s.DataDictionary),
        Str("TransportDataDictionary", (s, v) => s with { TransportDataDictionary = v }, s => s.TransportDataDictionary),
        Str("AppDataDictionary", (s, v) => s with { AppDataDictionary = v }, s => s.AppDataDictionary),
        Bool("UseDataDictionary", (s, v) => s with { UseDataDictionary = v }, s => s.UseDataDictionary),
        Bool("ResetOnLogon", (s, v) => s with { ResetOnLogon = v }, s => s.ResetOnLogon),
        Bool("ResetOnLogout", (s, v) => s with { ResetOnLogout = v }, s => s.ResetOnLogout),
        Bool("ResetOnDisconnect", (s, v) => s with { ResetOnDisconnect = v }, s => s.ResetOnDisconnect),
        Bool("RefreshOnLogon", (s, v) => s with { RefreshOnLogon = v }, s => s.RefreshOnLogon),
        Bool("SendRedundantResendRequests", (s, v) => s with { SendRedundantResendRequests = v }, s => s.SendRedundantResendRequests),
        Int("ResendRequestChunkSize", (s, v) => s with { ResendRequestChunkSize = v }, s => s.ResendRequestChunkSize),
        Bool("ValidateFieldsOutOfOrder", (s, v) => s with { ValidateFieldsOutOfOrder = v }, s => s.ValidateFieldsOutOfOrder),
        Bool("ValidateFieldsHaveValues", (s, v) => s with { ValidateFieldsHaveValues = v }, s => s.ValidateFieldsHaveValues),
        Bool("ValidateUserDefinedFields", (s, v) => s with { ValidateUserDefinedFields = v }, s => s.ValidateUserDefinedFields),
        Bool("ValidateUnorderedGroupFields", (s, v) => s with { ValidateUnorderedGroupFields = v }, s => s.ValidateUnorderedGroupFields),
        Bool("ValidateLengthAndChecksum", (s, v) => s with { ValidateLengthAndChecksum = v }, s => s.ValidateLengthAndChecksum),
        Bool("AllowUnknownMsgFields", (s, v) => s with { AllowUnknownMsgFields = v }, s => s.AllowUnknownMsgFields),
        Bool("CheckLatency", (s, v) => s with { CheckLatency = v }, s => s.CheckLatency),
        Int("MaxLatency", (s, v) => s with { MaxLatency = v }, s => s.MaxLatency),
        Bool("CheckCompID", (s, v) => s with { CheckCompID = v }, s => s.CheckCompID),
        Bool("PersistMessages", (s, v) => s with { PersistMessages = v }, s => s.PersistMessages),
        Bool("MillisecondsInTimeStamp", (s, v) => s with { MillisecondsInTimeStamp = v }, s => s.MillisecondsInTimeStamp),
        Int("TimestampPrecision", (s, v) => s with { TimestampPrecision = v }, s => s.TimestampPrecision),
        Bool("EnableLastMsgSeqNumProcessed", (s, v) => s with { EnableLastMsgSeqNumProcessed = v }, s => s.EnableLastMsgSeqNumProcessed),
        Bool("EnableNextExpectedMsgSeqNum", (s, v) => s with { EnableNextExpectedMsgSeqNum = v }, s => s.EnableNextExpectedMsgSeqNum),
        Bool("SocketNodelay", (s, v) => s with { SocketNodelay = v }, s => s.SocketNodelay),
        Bool("SocketReuseAddress", (s, v) => s with { SocketReuseAddress = v }, s => s.SocketReuseAddress),
        Int("SocketSendBufferSize", (s, v) => s with { SocketSendBufferSize = v }, s => s.SocketSendBufferSize),
        Int("SocketReceiveBufferSize", (s, v) => s with { SocketReceiveBufferSize = v }, s => s.SocketReceiveBufferSize),
        Bool("SocketKeepAlive", (s, v) => s with { SocketKeepAlive = v }, s => s.SocketKeepAlive),
        Enum("ReceiveMode", (s, v) => s with { ReceiveMode = v }, s => s.ReceiveMode),
        new("CpuAffinity", (s, v) => s with { CpuAffinity = ParseCpus(v) }, s => s.CpuAffinity.Count == 0 ? null : string.Join(",", s.CpuAffinity)),
        Enum("IdleStrategy", (s, v) => s with { IdleStrategy = v }, s => s.IdleStrategy),
        Enum("FileStoreSync", (s, v) => s with { FileStoreSync = v }, s => s.FileStoreSync),
        Int("MaxMessageSize", (s, v) => s with { MaxMessageSize = v }, s => s.MaxMessageSize),
        Int("StoreIndexCapacity", (s, v) => s with { StoreIndexCapacity = v }, s => s.StoreIndexCapacity),
        Int("MemoryStoreCapacityBytes", (s, v) => s with { MemoryStoreCapacityBytes = v }, s => s.MemoryStoreCapacityBytes),
        Str("PostgreSQLStoreConnectionString", (s, v) => s with { PostgreSQLStoreConnectionString = v }, s => s.PostgreSQLStoreConnectionString),
        Str("PostgreSQLStoreTablePrefix", (s, v) => s with { PostgreSQLStoreTablePrefix = v }, s => s.PostgreSQLStoreTablePrefix),
        Enum("PostgreSQLStoreSync", (s, v) => s with { PostgreSQLStoreSync = v }, s => s.PostgreSQLStoreSync),
        Int("PostgreSQLStoreLeaseTimeout", (s, v) => s with { PostgreSQLStoreLeaseTimeout = v }, s => s.PostgreSQLStoreLeaseTimeout),
        Bool("SocketUseSSL", (s, v) => s with { SocketUseSSL = v }, s => s.SocketUseSSL),
        Str("SSLCertificate", (s, v) => s with { SSLCertificate = v }, s => s.SSLCertificate),
        Str("SSLCertificatePassword", (s, v) => s with { SSLCertificatePassword = v }, s => s.SSLCertificatePassword),
        Str("SSLServerName", (s, v) => s with { SSLServerName = v }, s => s.SSLServerName),
        Bool("SSLRequireClientCertificate", (s, v) => s with { SSLRequireClientCertificate = v }, s => s.SSLRequireClientCertificate),
        Str("SSLCACertificate", (s, v) => s with { SSLCACertificate = v }, s => s.SSLCACertificate),
        Bool("SSLValidateCertificates", (s, v) => s with { SSLValidateCertificates = v }, s => s.SSLValidateCertificates),
        new("SSLProtocols", (s, v) => s with { SSLProtocols = ParseProtocols(v) }, s => s.SSLProtocols == SslProtocols.None ? null : FormatProtocols(s.SSLProtocols)),
        Bool("Verbose", (s, v) => s with { Verbose = v }, s => s.Verbose),
    ];

    private static readonly Dictionary<string, Key> s_byName = Index();

    private static Dictionary<string, Key> Index()
    {
        var d = new Dictionary<string, Key>(StringComparer.OrdinalIgnoreCase);
        foreach (Key k in All) d.Add(k.Name, k);
        return d;
    }

    public static Key? Find(string name) => s_byName.TryGetValue(name, out Key? k) ? k : null;

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

    internal static TimeOnly ParseTime(string v)
    {
        if (TimeOnly.TryParseExact(v, "HH:mm:ss", CultureInfo.InvariantCulture, DateTimeStyles.None, out TimeOnly t)) return t;
        throw new BadValueException($"'{v}' is not a time HH:MM:SS");
    }

    private static string? FormatTime(TimeOnly? t) => t?.ToString("HH:mm:ss", CultureInfo.InvariantCulture);

    internal static DayOfWeek ParseDay(string v)
    {
        foreach (DayOfWeek d in System.Enum.GetValues<DayOfWeek>())
        {
            string name = d.ToString();
            if (name.Equals(v, StringComparison.OrdinalIgnoreCase)) return d;
            if (v.Length == 3 && name.StartsWith(v, StringComparison.OrdinalIgnoreCase)) return d;
        }
        throw new BadValueException($"'{v}' is not a day name (Monday or Mon ...)");
    }

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

    private static SslProtocols ParseProtocols(string v)
    {
        SslProtocols result = SslProtocols.None;
        foreach (string part in v.Split(',', StringSplitOptions.TrimEntries | StringSplitOptions.RemoveEmptyEntries))
        {
            result |= part.ToUpperInvariant() switch
            {
                "TLS12" => SslProtocols.Tls12,
                "TLS13" => SslProtocols.Tls13,
                "NONE" => SslProtocols.None,
                _ => throw new BadValueException($"'{part}' is not Tls12, Tls13 or None"),
            };
        }
        return result;
    }

    private static string FormatProtocols(SslProtocols p)
    {
        var parts = new List<string>();
        if ((p & SslProtocols.Tls12) != 0) parts.Add("Tls12");
        if ((p & SslProtocols.Tls13) != 0) parts.Add("Tls13");
        return string.Join(",", parts);
    }
}
