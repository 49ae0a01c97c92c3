using System;
using System.Collections.Immutable;
using System.Text;
using System.Threading;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Session;

namespace FixEngine.Engine;

// Design:
// - Owner: none for routing; the receiving threads of acceptor connections not yet bound to a session (the engine agent
//   for busy-poll ports, socket completion threads for completion-mode and TLS ports, the server's task for hosted
//   connections) only read. The route table is an immutable snapshot: Add and Remove build the next one and publish it
//   (a release store); lookups read the current one (an acquire read) without a lock. Its writers are serialised by
//   their callers: the FixEngineHost constructor, and under the host's control lock AddSession, RemoveSession and an
//   unknown session's Logon (once per session, never per message).
// - Route reads the first frame's header with an index rented from FixMessageIndexPool (nothing shared between the
//   threads that route).
// - A Logon for a session not in the table goes to the host's unknown-session path (Unknown: it may run the
//   application's handler and open a store) when EngineOptions.UnknownSessionHandler is set; it answers with the new
//   session's slot, or refuses (the connection is then answered with a Logout and closed).
// - The session is then attached inside its scope (its gate, if it has one).

/// <summary>Binds an accepted connection to its acceptor session by the first message's (BeginString, TargetCompID,
/// SenderCompID), and attaches it if the session may take it.</summary>
internal sealed class AcceptorRouter(EngineAgent agent, EngineConsole console, bool prewarm)
{
    private ImmutableDictionary<string, SessionSlot> _routes = ImmutableDictionary.Create<string, SessionSlot>(StringComparer.Ordinal);

    /// <summary>The host's unknown-session path: the slot of a session made for this Logon, or null when it refused it
    /// (it has answered and closed the connection). Null when the engine has no UnknownSessionHandler.</summary>
    public Func<SessionConnection, ReadOnlySpan<byte>, long, SessionSlot?>? Unknown { get; set; }

    /// <summary>The session <paramref name="slot"/> answers Logons addressed to its CompIDs (the host's constructor or
    /// under its control lock: one writer at a time).</summary>
    /// <exception cref="ArgumentException">Another session already answers them.</exception>
    public void Add(SessionSettings settings, SessionSlot slot)
    {
        string key = Key(settings.BeginString!, settings.SenderCompID!, settings.TargetCompID!);
        ImmutableDictionary<string, SessionSlot> routes = _routes;
        if (routes.ContainsKey(key)) throw new ArgumentException($"a session already answers Logons for {key.Replace('\u0001', ' ')}", nameof(settings));
        Publish(routes.Add(key, slot));
    }

    /// <summary>Whether a session already answers Logons addressed to these CompIDs (any thread).</summary>
    public bool Contains(SessionSettings settings)
    {
        return Find(settings.BeginString!, settings.SenderCompID!, settings.TargetCompID!) is not null;
    }

    /// <summary>Logons addressed to the CompIDs of <paramref name="settings"/> are no longer routed (the host's control
    /// lock: one writer at a time).</summary>
    public void Remove(SessionSettings settings)
    {
        Publish(_routes.Remove(Key(settings.BeginString!, settings.SenderCompID!, settings.TargetCompID!)));
    }

    // A writer (one at a time, see Add): the snapshot's contents are visible to a thread that reads the reference.
    private void Publish(ImmutableDictionary<string, SessionSlot> next) => Volatile.Write(ref _routes, next);

    // Any thread.
    private SessionSlot? Lookup(string key) => Volatile.Read(ref _routes).GetValueOrDefault(key);

    /// <summary>The session answering Logons for our (<paramref name="beginString"/>, <paramref name="ourSender"/>,
    /// <paramref name="ourTarget"/>), or null (any thread).</summary>
    public SessionSlot? Find(string beginString, string ourSender, string ourTarget)
    {
        return Lookup(Key(beginString, ourSender, ourTarget));
    }

    /// <summary>Receiving thread: the first message of <paramref name="connection"/> picks its session.</summary>
    public void Route(IEngineConnection connection, ReadOnlySpan<byte> frame, long epochNs)
    {
        SessionSlot? slot;
        FixMessageIndex index = FixMessageIndexPool.Rent();
        try
        {
            index.Parse(frame);
            var m = new FixMessage(frame, index);
            if (!m.TryGetSpan(FixTags.BeginString, out ReadOnlySpan<byte> begin)
                || !m.TryGetSpan(FixTags.SenderCompID, out ReadOnlySpan<byte> theirSender)
                || !m.TryGetSpan(FixTags.TargetCompID, out ReadOnlySpan<byte> theirTarget))
            {
                connection.Close("first message lacks BeginString or CompIDs");
                return;
            }
            string key = Key(Encoding.ASCII.GetString(begin), Encoding.ASCII.GetString(theirTarget), Encoding.ASCII.GetString(theirSender));
            slot = Lookup(key);
            if (slot is null && Unknown is null)
            {
                // The agent logs the close of a connection that never had a Logon routed, with this reason.
                connection.Close($"no session for {Encoding.ASCII.GetString(begin)} {Encoding.ASCII.GetString(theirSender)}->{Encoding.ASCII.GetString(theirTarget)}");
                return;
            }
        }
        finally
        {
            FixMessageIndexPool.Return(index);
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
