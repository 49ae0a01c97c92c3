using System.Collections.Generic;
using System.Net;

namespace FixEngine.Engine;

// Design:
// - One per Listener (acceptor port). Admit runs on the acceptor's thread; Release on whichever thread binds the
//   connection to its session (the router, on the receiving thread) or sees it close first (the engine agent). All
//   under _gate: a few dictionary operations per connection, never per message.
// - Each admitted SessionConnection holds the gate until it releases it exactly once (SessionConnection.ReleaseAdmission).

/// <summary>Caps the connections on one acceptor port that have not yet had a Logon routed to a session: in total and
/// per source address (<c>MaxUnauthenticatedConnections</c>, <c>MaxUnauthenticatedConnectionsPerAddress</c>).</summary>
internal sealed class UnauthenticatedGate(int port, int maxTotal, int maxPerAddress, EngineConsole console)
{
    private readonly object _gate = new();
    private readonly Dictionary<IPAddress, int> _perAddress = [];
    private int _total;

    /// <summary>Acceptor thread: takes a place for a connection from <paramref name="remote"/>, or logs the refusal.</summary>
    /// <returns>The address key to release with, or null when refused.</returns>
    public IPAddress? Admit(EndPoint? remote)
    {
        IPAddress address = Key(remote);
        lock (_gate)
        {
            _perAddress.TryGetValue(address, out int fromAddress);
            if (_total >= maxTotal)
            {
                Refuse(remote, $"{_total} connections without a Logon on port {port} (MaxUnauthenticatedConnections={maxTotal})");
                return null;
            }
            if (fromAddress >= maxPerAddress)
            {
                Refuse(remote, $"{fromAddress} connections without a Logon from {address} on port {port} (MaxUnauthenticatedConnectionsPerAddress={maxPerAddress})");
                return null;
            }
            _total++;
            _perAddress[address] = fromAddress + 1;
        }
        return address;
    }

    /// <summary>Gives back the place taken by <see cref="Admit"/> (once per admitted connection).</summary>
    public void Release(IPAddress address)
    {
        lock (_gate)
        {
            _total--;
            if (_perAddress.TryGetValue(address, out int n))
            {
                if (n <= 1) _perAddress.Remove(address);
                else _perAddress[address] = n - 1;
            }
        }
    }

    private void Refuse(EndPoint? remote, string why) => console.Refused(remote?.ToString() ?? "?", "refused before Logon: " + why);

    // An IPv4 client of a dual-stack socket arrives as ::ffff:a.b.c.d; count it as a.b.c.d.
    internal static IPAddress Key(EndPoint? remote) => remote is IPEndPoint ip
        ? ip.Address.IsIPv4MappedToIPv6 ? ip.Address.MapToIPv4() : ip.Address
        : IPAddress.None;
}
