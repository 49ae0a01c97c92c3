using System;
using FixEngine.Codec;

namespace FixEngine.Transport;

/// <summary>Receives framed messages, framing errors and the disconnect of a <see cref="TransportConnection"/>.</summary>
/// <remarks>
/// Callbacks for one connection never overlap. They run on the receiving thread: the polling thread in
/// <see cref="ReceiveMode.BusyPoll"/>, the connection's own receive thread in <see cref="ReceiveMode.Dedicated"/>, in
/// <see cref="ReceiveMode.Completion"/> the engine's reactor thread (plain TCP on Linux) or the socket completion thread
/// (elsewhere, and TLS).
/// A callback may send on the connection and may close it. An exception from <see cref="OnMessage"/> or
/// <see cref="OnFrameError"/> never escapes the receive loop: it is counted in <see cref="TransportConnection.HandlerErrors"/>
/// and closes the connection with <see cref="DisconnectReason.HandlerError"/>; that message is not counted in
/// <see cref="TransportConnection.MessagesReceived"/>.
/// </remarks>
internal interface IConnectionHandler
{
    /// <summary>A complete message with a valid BodyLength and CheckSum.</summary>
    /// <param name="connection">The connection.</param>
    /// <param name="message">The whole frame, <c>8=</c> through the CheckSum SOH; it points into the receive buffer and is valid only during the call.</param>
    void OnMessage(TransportConnection connection, ReadOnlySpan<byte> message);

    /// <summary>Bytes that were not a valid message were skipped (the stream resynchronises on the next <c>8=FIX</c>).</summary>
    /// <param name="connection">The connection.</param>
    /// <param name="error">The framer's verdict; offsets are relative to <paramref name="skipped"/>.</param>
    /// <param name="skipped">The discarded bytes; valid only during the call.</param>
    void OnFrameError(TransportConnection connection, in FrameResult error, ReadOnlySpan<byte> skipped);

    /// <summary>The connection ended; called exactly once, after which the connection's buffers are back in their pools.</summary>
    /// <param name="connection">The connection.</param>
    /// <param name="reason">Why.</param>
    /// <param name="detail">A human-readable explanation (may be null for a plain local close).</param>
    /// <remarks>Runs on the thread that finished the close: the receiving thread, or the thread that called Close/Abort when nothing was in flight.</remarks>
    void OnDisconnected(TransportConnection connection, DisconnectReason reason, string? detail);
}

/// <summary>Decides what to do with a connection accepted by a <see cref="TcpAcceptor"/>.</summary>
/// <remarks>Called on the acceptor's completion thread, one connection at a time.</remarks>
internal interface IAcceptHandler
{
    /// <summary>A new connection: return its handler, or null to refuse it (it is closed at once, without callbacks).</summary>
    /// <param name="connection">The connection; it does not receive until <see cref="TransportConnection.Start"/> (completion mode) or
    /// <see cref="TransportConnection.Poll"/> (busy-poll mode) is called, nor before this method has returned its handler, so it can be
    /// started or handed to its owning thread here.</param>
    /// <returns>The handler, or null to refuse.</returns>
    IConnectionHandler? OnAccepted(TcpConnection connection);
}
