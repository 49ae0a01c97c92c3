namespace FixEngine.Transport;

/// <summary>How a session's TCP connection receives (<see cref="Config.SessionSettings.ReceiveMode"/>, setting
/// <c>ReceiveMode</c>); the thread named here runs the session and its <see cref="Session.IApplication"/> callbacks for
/// inbound messages (docs/architecture.md draws each path).</summary>
public enum ReceiveMode
{
    /// <summary>
    /// Many connections share a few threads; inbound messages are processed under the session's gate. On Linux a plain-TCP
    /// connection is served by one of the engine's reactor threads (<c>fix-reactor#i</c>, one per two cores, at least one):
    /// it waits in <c>epoll_wait</c>, reads the ready sockets and processes their messages on that thread. Elsewhere, and
    /// for TLS, a pooled <see cref="System.Net.Sockets.SocketAsyncEventArgs"/> receive per connection, processed on the
    /// socket completion thread (a thread-pool thread). TLS connections always receive this way.
    /// </summary>
    Completion = 0,

    /// <summary>
    /// The engine agent thread reads each connection with one non-blocking <c>Socket.Receive</c> per duty cycle and
    /// processes what it read on that thread. Lowest latency with a spinning idle strategy on a dedicated core.
    /// </summary>
    BusyPoll = 1,

    /// <summary>
    /// A receive thread of its own per connection: it sleeps in the kernel until the socket is readable (<c>poll</c>),
    /// reads into the pooled receive buffer and processes every complete message inline, so the thread the kernel wakes
    /// is the one that runs the session (one wake-up per inbound burst, no thread-pool hop). A send remainder the socket
    /// refused is written by later sends, by the receive thread after each burst and by one process-wide drain thread.
    /// Costs one mostly sleeping thread per connection. The default.
    /// </summary>
    Dedicated = 2,
}

/// <summary>Why a connection ended, passed once to <see cref="IConnectionHandler.OnDisconnected"/>.</summary>
internal enum DisconnectReason
{
    /// <summary>Still connected.</summary>
    None = 0,

    /// <summary>Closed locally and orderly with <see cref="TransportConnection.Close"/> (or <see cref="TransportConnection.Dispose"/>).</summary>
    Local = 1,

    /// <summary>Aborted locally with <see cref="TransportConnection.Abort"/>: linger 0, the peer sees a reset.</summary>
    Aborted = 2,

    /// <summary>The peer closed its side (a receive returned 0 bytes) between messages.</summary>
    PeerClosed = 3,

    /// <summary>The peer closed its side while an incomplete frame was buffered.</summary>
    PeerClosedMidMessage = 4,

    /// <summary>The peer reset the connection.</summary>
    PeerReset = 5,

    /// <summary>Any other socket or stream error on receive or send (the detail names it).</summary>
    SocketError = 6,

    /// <summary>Too many consecutive frame errors or garbage bytes without a valid message.</summary>
    Garbage = 7,

    /// <summary>A handler callback (<see cref="IConnectionHandler.OnMessage"/> or <see cref="IConnectionHandler.OnFrameError"/>) threw; the detail names the callback and the exception (see <see cref="TransportConnection.HandlerErrors"/>).</summary>
    HandlerError = 9,
}

/// <summary>Outcome of a send on a connection (<see cref="Session.FixSession.Send{TState}(System.ReadOnlySpan{byte}, in TState, Session.BodyWriter{TState})"/>).</summary>
public enum SendResult
{
    /// <summary>Every byte was handed to the socket.</summary>
    Sent = 0,

    /// <summary>Some or all bytes wait in the bounded send queue and go out in order on the next poll or send completion.</summary>
    Queued = 1,

    /// <summary>The send queue has no room for the message: nothing was sent; retry after the queue drains.</summary>
    Backpressure = 2,

    /// <summary>The connection is closing or closed: nothing was sent.</summary>
    Closed = 3,

    /// <summary>The message is longer than the connection's send queue (1 MiB, or MaxMessageSize + 1 KiB when that is
    /// larger): it can never be sent.</summary>
    TooLarge = 4,

    /// <summary>The application vetoed the message in <see cref="Session.IApplication.ToApp"/> (it threw
    /// <see cref="Session.DoNotSendException"/>): it was neither stored nor sent and used no sequence number.</summary>
    Vetoed = 5,
}
