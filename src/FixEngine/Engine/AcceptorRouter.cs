using System;
using System.Collections.Generic;
using System.Text;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Session;

namespace FixEngine.Engine;

// Design:
// - Owner: the receiving threads of acceptor connections not yet bound to a session (the engine agent for busy-poll
//   ports, socket completion threads for completion-mode and TLS ports), serialised by _routeGate. The route table is
//   filled by the FixEngineHost constructor and changed, under _routeGate, by FixEngineHost.AddSession/RemoveSession
//   and for an unknown session's Logon (once per session, never per message).
// - A Logon for a session not in the table goes to the host's unknown-session path (Unknown, outside _routeGate: it may
//   run the application's handler and open a store) when EngineOptions.UnknownSessionHandler is set; it answers with the
//   new session's slot, or refuses (the connection is then answered with a Logout and closed).
// - The routing index is shared, so the lookup runs under _routeGate (once per connection); the session is then
//   attached inside its scope (order: route gate, then session gate; nothing takes them the other way round).

/// <summary>Binds an accepted connection to its acceptor session by the first message's (BeginString, TargetCompID,
/// SenderCompID), and attaches it if the session may take it.</summary>
internal sealed class AcceptorRouter(EngineAgent agent, EngineConsole console, bool prewarm)
{
    private readonly Dictionary<string, SessionSlot> _routes = new(StringComparer.Ordinal);
    private readonly FixMessageIndex _routingIndex = new(64);
    private readonly object _routeGate = new();

    /// <summary>The host's unknown-session path: the slot of a session made for this Logon, or null when it refused it
    /// (it has answered and closed the connection). Null when the engine has no UnknownSessionHandler.</summary>
    public Func<SessionConnection, ReadOnlySpan<byte>, long, SessionSlot?>? Unknown { get; set; }

    /// <summary>The session <paramref name="slot"/> answers Logons addressed to its CompIDs (any thread).</summary>
    /// <exception cref="ArgumentException">Another session already answers them.</exception>
    public void Add(SessionSettings settings, SessionSlot slot)
    {
        lock (_routeGate) _routes.Add(Key(settings.BeginString!, settings.SenderCompID!, settings.TargetCompID!), slot);
    }

    /// <summary>Whether a session already answers Logons addressed to these CompIDs (any thread).</summary>
    public bool Contains(SessionSettings settings)
    {
        return Find(settings.BeginString!, settings.SenderCompID!, settings.TargetCompID!) is not null;
    }

    /// <summary>Logons addressed to the CompIDs of <paramref name="settings"/> are no longer routed (any thread).</summary>
    public void Remove(SessionSettings settings)
    {
        lock (_routeGate) _routes.Remove(Key(settings.BeginString!, settings.SenderCompID!, settings.TargetCompID!));
    }

    /// <summary>The session answering Logons for our (<paramref name="beginString"/>, <paramref name="ourSender"/>,
    /// <paramref name="ourTarget"/>), or null (any thread).</summary>
    public SessionSlot? Find(string beginString, string ourSender, string ourTarget)
    {
        lock (_routeGate) return _routes.TryGetValue(Key(beginString, ourSender, ourTarget), out SessionSlot? slot) ? slot : null;
    }

    /// <summary>Receiving thread: the first message of <paramref name="connection"/> picks its session.</summary>
    public void Route(IEngineConnection connection, ReadOnlySpan<byte> frame, long epochNs)
    {
        SessionSlot? slot;
        lock (_routeGate)
        {
            _routingIndex.Parse(frame);
            var m = new FixMessage(frame, _routingIndex);
            if (!m.TryGetSpan(FixTags.BeginString, out ReadOnlySpan<byte> begin)
                || !m.TryGetSpan(FixTags.SenderCompID, out ReadOnlySpan<byte> theirSender)
                || !m.TryGetSpan(FixTags.TargetCompID, out ReadOnlySpan<byte> theirTarget))
            {
                connection.Close("first message lacks BeginString or CompIDs");
                return;
            }
            string key = Key(Encoding.ASCII.GetString(begin), Encoding.ASCII.GetString(theirTarget), Encoding.ASCII.GetString(theirSender));
            if (!_routes.TryGetValue(key, out slot) && Unknown is null)
            {
                // The agent logs the close of a connection that never had a Logon routed, with this reason.
                connection.Close($"no session for {Encoding.ASCII.GetString(begin)} {Encoding.ASCII.GetString(theirSender)}->{Encoding.ASCII.GetString(theirTarget)}");
                return;
            }
        }
        if (slot is null)
        {
            if (agent.IsStopping)
            {
                connection.Close("engine stopping");
                return;
            }
            if (connection is not SessionConnection socketConnection)
            {
                // The unknown-session handler is asked for connections on the engine's own ports only.
                connection.Close("no session for this Logon's CompIDs (hosted connection: the unknown-session handler is not asked)");
                return;
            }
            slot = Unknown!(socketConnection, frame, epochNs);
            if (slot is null) return;
        }
        if (agent.IsStopping)
        {
            connection.Close("engine stopping");
            return;
        }
        if (connection.Guarded && !slot.Guarded)
        {
            // A busy-poll session is run by the agent alone, without a gate: no other thread may enter it.
            connection.Close($"{slot.Session.Id} runs in busy-poll mode on the engine's own listener; a hosted connection needs ReceiveMode Dedicated or Completion, or EngineOptions.ListenOnAcceptorPorts = false");
            return;
        }
        using SessionScope scope = slot.Enter(epochNs);
        Attach(slot, connection, frame, scope.EpochNs);
    }

    // Inside the session's scope.
    private void Attach(SessionSlot slot, IEngineConnection connection, ReadOnlySpan<byte> frame, long epochNs)
    {
        FixSession session = slot.Session;
        if (slot.Removed)
        {
            connection.Close($"{session.Id} was removed from the engine");
            return;
        }
        if (slot.Disabled)
        {
            connection.Close($"{session.Id} is disabled by an operator");
            return;
        }
        if (slot.AllowedAddresses is { } allowed && RemoteAddress(connection) is var address
            && (address is null || Array.IndexOf(allowed, address) < 0))
        {
            // QuickFIX/J refuses such a Logon too; the peer learns why from the Logout (nothing of the session's state is
            // used or changed: MsgSeqNum 1, like the refusal of an unknown session), and the close is logged with the reason.
            string shown = address?.ToString() ?? connection.RemoteEndPoint;
            SendRefusal(connection, session.Id, $"Logon from {shown} not allowed for this session", epochNs);
            connection.Close($"Logon for {session.Id} refused: {shown} is not in its AllowedRemoteAddresses");
            return;
        }
        // The previous connection may be closed without the agent having noticed yet: let the reconnect in now.
        if (session.Connection is IEngineConnection previous && previous.IsClosed) session.OnDisconnected(previous.CloseReason, epochNs);
        if (session.IsConnected)
        {
            connection.Close($"{session.Id} is already connected");
            return;
        }
        if (!session.IsSessionTime(epochNs))
        {
            connection.Close("outside the session schedule");
            return;
        }
        connection.Slot = slot;
        connection.ReleaseAdmission();
        slot.Connect(connection, epochNs);
        session.OnMessage(frame, epochNs);
        // The Logon bound the connection: the session's own message size and framing checks apply from the next frame,
        // and its send buffers are rented now (not for connections that never log on).
        if (ReferenceEquals(session.Connection, connection) && !connection.IsClosed) connection.OnBound(session, prewarm);
        if (session.IsLoggedOn) console.LoggedOn(session.Id, connection.RemoteEndPoint);
    }

    private static string Key(string beginString, string ourSender, string ourTarget) => beginString + "\u0001" + ourSender + "\u0001" + ourTarget;

    /// <summary>The peer's IP address (IPv4-mapped shown as IPv4), or null when the connection does not say (a hosted
    /// connection whose server gave no address).</summary>
    internal static System.Net.IPAddress? RemoteAddress(IEngineConnection connection)
    {
        if (connection is SessionConnection { Transport: { } transport }) return UnauthenticatedGate.Key(transport.RemoteEndPoint);
        return System.Net.IPEndPoint.TryParse(connection.RemoteEndPoint, out System.Net.IPEndPoint? ep)
            ? UnauthenticatedGate.Key(ep)
            : null;
    }

    /// <summary>Answers a refused Logon with a Logout (MsgSeqNum 1, our CompIDs from <paramref name="id"/>, Text = the
    /// reason) without touching any session's state; the caller closes the connection.</summary>
    internal static void SendRefusal(IEngineConnection connection, SessionId id, string reason, long epochNs)
    {
        string text = reason.Replace('\u0001', ' ').Replace('\r', ' ').Replace('\n', ' ');
        Span<byte> buffer = stackalloc byte[1024];
        var w = new FixWriter(buffer);
        w.Begin(Encoding.ASCII.GetBytes(id.BeginString), "5"u8);
        w.Write(FixTags.MsgSeqNum, 1);
        w.Write(FixTags.SenderCompID, id.SenderCompID);
        w.Write(FixTags.TargetCompID, id.TargetCompID);
        w.WriteTimestamp(FixTags.SendingTime, epochNs, TimestampPrecision.Millis);
        w.Write(FixTags.Text, text.Length > 512 ? text[..512] : text);
        if (w.TryFinish(out int length)) connection.Send(buffer[..length]);
    }
}
