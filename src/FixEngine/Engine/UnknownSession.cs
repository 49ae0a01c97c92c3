using System;
using System.Net;
using System.Text;
using FixEngine.Codec;
using FixEngine.Config;

namespace FixEngine.Engine;

/// <summary>Asked when a Logon arrives on an acceptor port for a session this engine does not run
/// (<see cref="EngineOptions.UnknownSessionHandler"/>): refuse it, or supply the settings of a new session that takes it.</summary>
/// <param name="logon">The Logon: the session it asks for, the peer, the port and the Logon's own fields.</param>
/// <returns><see cref="UnknownSessionDecision.Accept"/> with the session's settings, or <see cref="UnknownSessionDecision.Refuse"/>.</returns>
/// <remarks>Called on the thread that received the Logon (the connection's receive thread, a socket completion thread, or
/// for a busy-poll port the engine thread, so keep it short), one unknown Logon at a time per engine. An exception thrown
/// by the handler refuses the Logon (its message is the reason logged).</remarks>
public delegate UnknownSessionDecision UnknownSessionHandler(UnknownLogon logon);

/// <summary>A Logon for a session the engine does not run (see <see cref="UnknownSessionHandler"/>).</summary>
public sealed class UnknownLogon
{
    private readonly byte[] _message;

    internal UnknownLogon(SessionId sessionId, int port, EndPoint? remoteEndPoint, ReadOnlySpan<byte> message)
    {
        SessionId = sessionId;
        Port = port;
        RemoteEndPoint = remoteEndPoint;
        _message = message.ToArray();
    }

    /// <summary>The session asked for, from our side: BeginString, SenderCompID = the Logon's TargetCompID(56),
    /// TargetCompID = the Logon's SenderCompID(49). Settings supplied for it must have these three values.</summary>
    public SessionId SessionId { get; }

    /// <summary>The acceptor port the Logon arrived on (the new session's <c>SocketAcceptPort</c>; with SocketAcceptPort=0, the
    /// port the system picked, and settings supplied with that port or none join the port-0 listener).</summary>
    public int Port { get; }

    /// <summary>The peer's address and port.</summary>
    public EndPoint? RemoteEndPoint { get; }

    /// <summary>The Logon message as received (a copy).</summary>
    public ReadOnlyMemory<byte> Message => _message;

    /// <summary>Username(553), or null.</summary>
    public string? Username => Field(FixTags.Username);

    /// <summary>Password(554), or null.</summary>
    public string? Password => Field(FixTags.Password);

    /// <summary>The value of <paramref name="tag"/> in the Logon (ASCII), or null when absent.</summary>
    /// <param name="tag">A tag.</param>
    /// <returns>The value, or null.</returns>
    public string? Field(int tag)
    {
        var index = new FixMessageIndex(64);
        index.Parse(_message);
        var m = new FixMessage(_message, index);
        return m.TryGetSpan(tag, out ReadOnlySpan<byte> value) ? Encoding.ASCII.GetString(value) : null;
    }

    /// <inheritdoc/>
    public override string ToString() => $"Logon for {SessionId} from {RemoteEndPoint} on port {Port}";
}

/// <summary>The answer of an <see cref="UnknownSessionHandler"/>.</summary>
public readonly struct UnknownSessionDecision
{
    private UnknownSessionDecision(SessionSettings? settings, string? reason)
    {
        Settings = settings;
        RefusalReason = reason;
    }

    /// <summary>The new session's settings when accepted, else null.</summary>
    public SessionSettings? Settings { get; }

    /// <summary>Why the Logon is refused (sent as Text(58) of the Logout and logged), when refused.</summary>
    public string? RefusalReason { get; }

    /// <summary>Creates a session from <paramref name="settings"/> and processes the Logon with it, as if it had been configured.</summary>
    /// <param name="settings">An acceptor session with the Logon's BeginString and CompIDs (<see cref="UnknownLogon.SessionId"/>);
    /// <c>SocketAcceptPort</c> may be left unset (the Logon's port is used). Its per-port keys (receive mode, SSL, socket
    /// options) must agree with the port's.</param>
    /// <returns>The decision.</returns>
    public static UnknownSessionDecision Accept(SessionSettings settings)
    {
        ArgumentNullException.ThrowIfNull(settings);
        return new(settings, null);
    }

    /// <summary>Answers the Logon with a Logout carrying <paramref name="reason"/> and closes the connection (logged with the peer's address).</summary>
    /// <param name="reason">Text(58) of the Logout.</param>
    /// <returns>The decision.</returns>
    public static UnknownSessionDecision Refuse(string reason) => new(null, string.IsNullOrEmpty(reason) ? "unknown session" : reason);
}
