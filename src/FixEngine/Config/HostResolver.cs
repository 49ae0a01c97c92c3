using System;
using System.Collections.Generic;
using System.Net;
using System.Net.Sockets;
using System.Threading;
using System.Threading.Tasks;

namespace FixEngine.Config;

/// <summary>Turns <c>SocketAcceptHost</c>, <c>SocketConnectHost</c> and the failover hosts into IP addresses: an address
/// literal as it is (<c>127.0.0.1</c>, <c>::1</c>, <c>[::1]</c>), a host name through DNS (every address it resolves to, in the
/// resolver's order, without duplicates).</summary>
/// <remarks>
/// A name that does not resolve is a <see cref="ConfigException"/> naming the settings file, the key's line and the key
/// (from <see cref="SessionSettings.Origin"/>), not a <see cref="FormatException"/> or <see cref="SocketException"/>.
/// Connect and bind time only (DNS may block or allocate); thread-safe.
/// </remarks>
internal static class HostResolver
{
    /// <summary>True when <paramref name="host"/> is an IP address (IPv6 optionally in brackets) or a syntactically valid
    /// host name; nothing is looked up.</summary>
    /// <param name="host">The value of a host key.</param>
    /// <returns>Whether it can be resolved at all.</returns>
    public static bool IsHostSyntax(string host)
    {
        ArgumentNullException.ThrowIfNull(host);
        if (TryParseAddress(host, out _)) return true;
        return Uri.CheckHostName(host) == UriHostNameType.Dns;
    }

    /// <summary>Every address of <paramref name="host"/>, in order (a literal gives itself).</summary>
    /// <param name="host">An address or host name.</param>
    /// <param name="settings">The session the host comes from (its <see cref="SessionSettings.Origin"/> names the file
    /// and line in errors), or null.</param>
    /// <param name="key">The key the host was given under, e.g. <c>SocketConnectHost2</c>.</param>
    /// <returns>At least one address.</returns>
    /// <exception cref="ConfigException">The host is malformed or does not resolve.</exception>
    public static IPAddress[] Resolve(string host, SessionSettings? settings, string key)
    {
        ArgumentNullException.ThrowIfNull(host);
        ArgumentNullException.ThrowIfNull(key);
        if (TryParseAddress(host, out IPAddress? literal)) return [literal];
        CheckSyntax(host, settings, key);
        try
        {
            return Distinct(Dns.GetHostAddresses(host), host, settings, key);
        }
        catch (SocketException e)
        {
            throw SettingsOrigin.Error(settings, key, $"cannot resolve '{host}': {e.Message}");
        }
    }

    /// <summary>Every address of <paramref name="host"/>, in order, without blocking the caller's thread on DNS.</summary>
    /// <param name="host">An address or host name.</param>
    /// <param name="settings">The session the host comes from, or null.</param>
    /// <param name="key">The key the host was given under.</param>
    /// <param name="cancellationToken">Cancels the lookup.</param>
    /// <returns>At least one address.</returns>
    /// <exception cref="ConfigException">The host is malformed or does not resolve.</exception>
    public static async ValueTask<IPAddress[]> ResolveAsync(string host, SessionSettings? settings, string key, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(host);
        ArgumentNullException.ThrowIfNull(key);
        if (TryParseAddress(host, out IPAddress? literal)) return [literal];
        CheckSyntax(host, settings, key);
        try
        {
            return Distinct(await Dns.GetHostAddressesAsync(host, cancellationToken).ConfigureAwait(false), host, settings, key);
        }
        catch (SocketException e)
        {
            throw SettingsOrigin.Error(settings, key, $"cannot resolve '{host}': {e.Message}");
        }
    }

    /// <summary>The addresses an acceptor binds for <see cref="SessionSettings.SocketAcceptHost"/>; empty when it is not set
    /// (the caller then listens on every interface).</summary>
    /// <param name="settings">The acceptor session's settings.</param>
    /// <returns>The addresses, in order.</returns>
    /// <exception cref="ConfigException">The host does not resolve.</exception>
    public static IPAddress[] ResolveAcceptHost(SessionSettings settings)
    {
        ArgumentNullException.ThrowIfNull(settings);
        return string.IsNullOrEmpty(settings.SocketAcceptHost)
            ? []
            : Resolve(settings.SocketAcceptHost, settings, nameof(SessionSettings.SocketAcceptHost));
    }

    /// <summary>The key a connect endpoint of <see cref="SessionSettings.SocketConnectEndpoints"/> came from:
    /// <c>SocketConnectHost</c> for index 0, <c>SocketConnectHost&lt;n&gt;</c> for failover n.</summary>
    /// <param name="endpointIndex">Index into <see cref="SessionSettings.SocketConnectEndpoints"/>.</param>
    /// <returns>The key.</returns>
    public static string ConnectHostKey(int endpointIndex)
        => endpointIndex == 0 ? nameof(SessionSettings.SocketConnectHost) : nameof(SessionSettings.SocketConnectHost) + endpointIndex;

    private static bool TryParseAddress(string host, [System.Diagnostics.CodeAnalysis.NotNullWhen(true)] out IPAddress? address)
    {
        string bare = host.Length > 2 && host[0] == '[' && host[^1] == ']' ? host.Substring(1, host.Length - 2) : host;
        // IPAddress.TryParse also takes "1" or "0x7f.1" as IPv4; QuickFIX users write dotted quads or IPv6.
        if (IPAddress.TryParse(bare, out address) && (address.AddressFamily == AddressFamily.InterNetworkV6 || IsDottedQuad(bare)))
        {
            return true;
        }
        address = null;
        return false;
    }

    private static bool IsDottedQuad(string s)
    {
        int dots = 0;
        foreach (char c in s)
        {
            if (c == '.') dots++;
            else if (c is < '0' or > '9') return false;
        }
        return dots == 3;
    }

    private static void CheckSyntax(string host, SessionSettings? settings, string key)
    {
        if (Uri.CheckHostName(host) != UriHostNameType.Dns)
        {
            throw SettingsOrigin.Error(settings, key, $"'{host}' is not an IP address or a host name");
        }
    }

    private static IPAddress[] Distinct(IPAddress[] addresses, string host, SessionSettings? settings, string key)
    {
        var list = new List<IPAddress>(addresses.Length);
        foreach (IPAddress a in addresses)
        {
            if (!list.Contains(a)) list.Add(a);
        }
        if (list.Count == 0) throw SettingsOrigin.Error(settings, key, $"'{host}' resolves to no address");
        return list.ToArray();
    }
}
