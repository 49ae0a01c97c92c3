using System;
using System.Collections.Generic;
using System.Threading;
using FixEngine.Hosting;

namespace FixEngine.Transport;

// Design:
// - The polling thread owns _connections (array + count) and is the only one to read or change it.
// - Other threads (the acceptor's completion thread) call Add, which appends to _pending under a lock and
//   raises _pendingCount; the polling thread checks _pendingCount with one acquire read per duty cycle and
//   moves the pending connections in under the same lock. So a connection is first polled, and first
//   receives, on the owning thread. _pendingCount is stored plainly under the lock: the poller touches _pending only
//   after taking the lock, so the count needs no release of its own.
// - _count is stored plainly by the polling thread; Count reads it with an acquire read (approximate off that thread).
// - Closed connections are dropped (swap-remove) by the polling thread.

/// <summary>Polls many busy-poll connections in one duty cycle: an <see cref="IAgent"/> for an <see cref="AgentRunner"/>.</summary>
/// <remarks>
/// <see cref="Add"/> is thread-safe; <see cref="DoWork"/> runs on one thread. The duty cycle allocates nothing
/// (the array grows, by doubling, only when a connection is added).
/// </remarks>
internal sealed class ConnectionPoller : IAgent
{
    private readonly List<TransportConnection> _pending = new();
    private TransportConnection[] _connections = new TransportConnection[16];
    private int _count;
    private int _pendingCount;

    /// <summary>Creates a poller.</summary>
    /// <param name="name">Agent name.</param>
    public ConnectionPoller(string name = "connection-poller") => Name = name;

    /// <inheritdoc/>
    public string Name { get; }

    /// <summary>Connections being polled (read on the polling thread; approximate elsewhere).</summary>
    public int Count => Volatile.Read(ref _count);

    /// <summary>Hands a connection to the polling thread; it is polled from the next duty cycle until it closes.</summary>
    /// <param name="connection">A busy-poll connection.</param>
    public void Add(TransportConnection connection)
    {
        ArgumentNullException.ThrowIfNull(connection);
        lock (_pending)
        {
            _pending.Add(connection);
            _pendingCount = _pending.Count;
        }
    }

    /// <inheritdoc/>
    public int DoWork(long nowNs)
    {
        int work = 0;
        if (Volatile.Read(ref _pendingCount) != 0)
        {
            work += TakePending();
        }
        TransportConnection[] connections = _connections;
        int i = 0;
        while (i < _count)
        {
            TransportConnection connection = connections[i];
            work += connection.Poll(nowNs);
            if (connection.IsClosed)
            {
                int last = --_count;
                connections[i] = connections[last];
                connections[last] = null!;
                continue;
            }
            i++;
        }
        return work;
    }

    /// <summary>Closes every polled and pending connection with <see cref="DisconnectReason.Local"/> (polling thread).</summary>
    public void OnClose()
    {
        TakePending();
        for (int i = 0; i < _count; i++)
        {
            _connections[i].Close(DisconnectReason.Local, "poller closed");
        }
    }

    private int TakePending()
    {
        lock (_pending)
        {
            int added = _pending.Count;
            if (_count + added > _connections.Length)
            {
                Array.Resize(ref _connections, Math.Max(_connections.Length * 2, _count + added));
            }
            for (int i = 0; i < added; i++)
            {
                _connections[_count++] = _pending[i];
            }
            _pending.Clear();
            _pendingCount = 0;
            return added;
        }
    }
}
