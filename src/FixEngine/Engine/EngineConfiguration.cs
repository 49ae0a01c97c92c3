using System;
using System.Collections.Generic;
using System.Globalization;
using FixEngine.Config;
using FixEngine.Transport;

namespace FixEngine.Engine;

/// <summary>Checks and derives the settings that are not per session: engine-wide (one agent thread) and per listening
/// port (one acceptor socket, so one receive mode, one TLS setup, one set of socket options).</summary>
/// <remarks>Start-up only; allocates. Errors are <see cref="ConfigException"/>s naming the key and the sessions.</remarks>
internal static class EngineConfiguration
{
    /// <summary>The keys every session on one SocketAcceptPort must agree on, with a printable value each.</summary>
    private static readonly (string Key, Func<SessionSettings, string> Value)[] s_portKeys =
    [
        (nameof(SessionSettings.ReceiveMode), s => s.ReceiveMode.ToString()),
        (nameof(SessionSettings.SocketUseSSL), s => YesNo(s.SocketUseSSL)),
        (nameof(SessionSettings.SSLCertificate), s => s.SocketUseSSL ? s.SSLCertificate ?? "(none)" : "-"),
        (nameof(SessionSettings.SSLCertificatePassword), s => s.SocketUseSSL ? (s.SSLCertificatePassword is null ? "(none)" : "(a password)") : "-"),
        (nameof(SessionSettings.SSLRequireClientCertificate), s => s.SocketUseSSL ? YesNo(s.SSLRequireClientCertificate) : "-"),
        (nameof(SessionSettings.SSLProtocols), s => s.SocketUseSSL ? s.SSLProtocols.ToString() : "-"),
        (nameof(SessionSettings.SSLCACertificate), s => s.SocketUseSSL ? s.SSLCACertificate ?? "(none)" : "-"),
        (nameof(SessionSettings.SSLValidateCertificates), s => s.SocketUseSSL ? YesNo(s.SSLValidateCertificates) : "-"),
        (nameof(SessionSettings.SSLHandshakeTimeout), s => s.SocketUseSSL ? s.SSLHandshakeTimeout.ToString(CultureInfo.InvariantCulture) : "-"),
        (nameof(SessionSettings.SSLCertificateKeyFile), s => s.SocketUseSSL ? s.SSLCertificateKeyFile ?? "(none)" : "-"),
        (nameof(SessionSettings.SSLCACertificateDirectory), s => s.SocketUseSSL ? s.SSLCACertificateDirectory ?? "(none)" : "-"),
        (nameof(SessionSettings.SSLCheckCertificateRevocation), s => s.SocketUseSSL ? YesNo(s.SSLCheckCertificateRevocation) : "-"),
        (nameof(SessionSettings.SocketAcceptHost), s => s.SocketAcceptHost ?? "(any)"),
        (nameof(SessionSettings.SocketNodelay), s => YesNo(s.SocketNodelay)),
        (nameof(SessionSettings.SocketReceiveBufferSize), s => s.SocketReceiveBufferSize.ToString(CultureInfo.InvariantCulture)),
        (nameof(SessionSettings.SocketSendBufferSize), s => s.SocketSendBufferSize.ToString(CultureInfo.InvariantCulture)),
        (nameof(SessionSettings.SocketKeepAlive), s => YesNo(s.SocketKeepAlive)),
        (nameof(SessionSettings.SocketReuseAddress), s => YesNo(s.SocketReuseAddress)),
        (nameof(SessionSettings.SocketReusePort), s => YesNo(s.SocketReusePort)),
        (nameof(SessionSettings.PreLogonMaxMessageSize), s => s.PreLogonMaxMessageSize.ToString(CultureInfo.InvariantCulture)),
        (nameof(SessionSettings.MaxUnauthenticatedConnections), s => s.MaxUnauthenticatedConnections.ToString(CultureInfo.InvariantCulture)),
        (nameof(SessionSettings.MaxUnauthenticatedConnectionsPerAddress), s => s.MaxUnauthenticatedConnectionsPerAddress.ToString(CultureInfo.InvariantCulture)),
    ];

    /// <summary>The agent's idle strategy: the option, else the value all sessions share.</summary>
    public static IdleStrategyKind ResolveIdleStrategy(IReadOnlyList<SessionSettings> settings, EngineOptions options)
    {
        if (options.IdleStrategy is IdleStrategyKind kind) return kind;
        RequireSame(settings, nameof(SessionSettings.IdleStrategy), s => s.IdleStrategy.ToString(), EngineScope("EngineOptions.IdleStrategy"));
        return settings[0].IdleStrategy;
    }

    /// <summary>The agent's CPUs: the option, else the list all sessions share (empty = not pinned).</summary>
    public static int[] ResolveCpuAffinity(IReadOnlyList<SessionSettings> settings, EngineOptions options)
    {
        if (options.CpuAffinity is IReadOnlyList<int> cpus)
        {
            foreach (int cpu in cpus)
            {
                if (cpu < 0) throw new ConfigException(null, 0, nameof(SessionSettings.CpuAffinity), $"EngineOptions.CpuAffinity: CPU {cpu} must not be negative");
            }
            return [.. cpus];
        }
        RequireSame(settings, nameof(SessionSettings.CpuAffinity), s => s.CpuAffinity.Count == 0 ? "(not pinned)" : string.Join(",", s.CpuAffinity), EngineScope("EngineOptions.CpuAffinity"));
        return [.. settings[0].CpuAffinity];
    }

    /// <summary>The acceptor sessions grouped by SocketAcceptPort, each group checked with <see cref="CheckPort"/>.</summary>
    public static Dictionary<int, List<SessionSettings>> AcceptorPorts(IReadOnlyList<SessionSettings> settings)
    {
        var ports = new Dictionary<int, List<SessionSettings>>();
        foreach (SessionSettings s in settings)
        {
            if (s.ConnectionType != ConnectionType.Acceptor) continue;
            int port = s.SocketAcceptPort!.Value;
            if (!ports.TryGetValue(port, out List<SessionSettings>? list)) ports.Add(port, list = []);
            list.Add(s);
        }
        foreach ((int port, List<SessionSettings> list) in ports) CheckPort(port, list);
        return ports;
    }

    /// <summary>How long an accepted connection may go without a Logon before the engine closes it: the longest
    /// LogonTimeout of any session, at least 10 s (the connection's session is not known until its Logon).</summary>
    public static int PendingLogonTimeoutSeconds(IReadOnlyList<SessionSettings> settings)
    {
        int seconds = 10;
        foreach (SessionSettings s in settings) seconds = Math.Max(seconds, s.LogonTimeout);
        return seconds;
    }

    /// <summary>Checks that the acceptor sessions sharing one port agree on every per-port key.</summary>
    public static void CheckPort(int port, IReadOnlyList<SessionSettings> sessionsOnPort)
    {
        string scope = $"all sessions on SocketAcceptPort {port} share one listening socket, so they must agree";
        foreach ((string key, Func<SessionSettings, string> value) in s_portKeys) RequireSame(sessionsOnPort, key, value, scope);
    }

    /// <summary>Transport options for a listening port (from its first session; the port check made them agree) or an initiator.</summary>
    /// <remarks>An acceptor port's connections check BodyLength and CheckSum until their Logon is routed (the session is not
    /// known before); the router then applies the session's ValidateLengthAndChecksum and MaxMessageSize
    /// (TransportConnection.SetSessionLimits).</remarks>
    public static TcpConnectionOptions TransportOptions(SessionSettings s, int maxMessageSize) => new()
    {
        ReuseAddress = s.SocketReuseAddress,
        ReusePort = s.SocketReusePort,
        ValidateLengthAndChecksum = s.ConnectionType == ConnectionType.Acceptor || s.ValidateLengthAndChecksum,
        // An acceptor's connection is unauthenticated until its Logon is routed: a small limit and buffer until then.
        PreLogonMaxMessageBodyLength = s.ConnectionType == ConnectionType.Acceptor ? Math.Min(s.PreLogonMaxMessageSize, maxMessageSize) : 0,
        ReceiveMode = s.SocketUseSSL ? ReceiveMode.Completion : s.ReceiveMode,
        MaxMessageBodyLength = maxMessageSize,
        MaxReceiveBufferBytes = Math.Max(4 << 20, maxMessageSize * 2 + 1024),
        SendQueueBytes = Math.Max(1 << 20, maxMessageSize + 1024),
        NoDelay = s.SocketNodelay,
        ReceiveBufferSize = s.SocketReceiveBufferSize > 0 ? s.SocketReceiveBufferSize : null,
        SendBufferSize = s.SocketSendBufferSize > 0 ? s.SocketSendBufferSize : null,
        KeepAlive = s.SocketKeepAlive,
    };

    private static string EngineScope(string option) =>
        $"one engine agent runs every session, so set it once in [DEFAULT] (or through {option})";

    private static void RequireSame(IReadOnlyList<SessionSettings> settings, string key, Func<SessionSettings, string> value, string scope)
    {
        SessionSettings first = settings[0];
        string expected = value(first);
        for (int i = 1; i < settings.Count; i++)
        {
            string actual = value(settings[i]);
            if (!string.Equals(actual, expected, StringComparison.Ordinal))
            {
                throw new ConfigException(null, 0, key,
                    $"session {settings[i].SessionId} has {actual} but session {first.SessionId} has {expected}; {scope}");
            }
        }
    }

    private static string YesNo(bool value) => value ? "Y" : "N";
}
