using System;
using System.Collections.Generic;
using System.Net.Sockets;
using System.Threading;

namespace FixEngine.Transport;

/// <summary>A reusable receive/send <see cref="SocketAsyncEventArgs"/> that routes its completion to its owning connection.</summary>
/// <remarks>Created once and reused for every operation of every connection it serves; never allocated per operation.</remarks>
internal sealed class ConnectionEventArgs : SocketAsyncEventArgs
{
    // PERF: no ExecutionContext capture/restore per completion (aspnetcore SocketAwaitableEventArgs does the same).
    public ConnectionEventArgs()
        : base(unsafeSuppressExecutionContextFlow: true)
    {
    }

    public TcpConnection? Owner { get; set; }

    public bool IsSend { get; set; }

    protected override void OnCompleted(SocketAsyncEventArgs e) => Owner?.OnIoCompleted(this);
}

// Design:
// - Shared by every connection created from one TcpConnectionOptions (rent on first use, return at teardown),
//   touched on connection setup/teardown only, so a plain lock is enough.
// - Bounded: beyond MaxRetained idle objects a returned one is disposed (its native resources freed).
// - _outstanding counts rented objects so tests can prove that every connection returned its SAEAs.

/// <summary>A bounded, thread-safe pool of <see cref="ConnectionEventArgs"/>.</summary>
internal sealed class EventArgsPool
{
    private readonly Stack<ConnectionEventArgs> _items = new();
    private readonly int _maxRetained;
    private int _outstanding;

    public EventArgsPool(int maxRetained) => _maxRetained = maxRetained;

    /// <summary>Objects currently rented.</summary>
    public int Outstanding => Volatile.Read(ref _outstanding);

    public ConnectionEventArgs Rent(TcpConnection owner, bool isSend)
    {
        ConnectionEventArgs? args = null;
        lock (_items)
        {
            _items.TryPop(out args);
        }
        args ??= new ConnectionEventArgs();
        args.Owner = owner;
        args.IsSend = isSend;
        Interlocked.Increment(ref _outstanding);
        return args;
    }

    public void Return(ConnectionEventArgs args)
    {
        args.Owner = null;
        args.SetBuffer(null, 0, 0);
        Interlocked.Decrement(ref _outstanding);
        lock (_items)
        {
            if (_items.Count < _maxRetained)
            {
                _items.Push(args);
                return;
            }
        }
        args.Dispose();
    }
}
