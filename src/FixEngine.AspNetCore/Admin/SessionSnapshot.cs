using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO.Pipelines;
using System.Runtime.CompilerServices;
using System.Text.Json;
using System.Threading;
using System.Threading.Tasks;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Session;
using FixEngine.Store;

namespace FixEngine.AspNetCore;

/// <summary>Writes sessions as the console shows them (JSON, camelCase, in this order: id, role, state, enabled, loggedOn,
/// schedule, inSchedule, logonWindow, inLogonWindow, endpoint, peer, nextSender, nextTarget, lastSent, lastReceived, messagesSent, messagesReceived,
/// logons, disconnects, gaps, rejectsSent, resendRequestsSent, resendRequestsReceived, sendBacklogBytes, queuedMessages,
/// store, storeHealth, storeProblem, storeCreated, heartBtInt).</summary>
/// <remarks>
/// Read on the request's thread from what each session publishes for other threads (its counters, state, sequence numbers,
/// times and store health: the values the health check and the metrics read), without entering the session: a poll
/// neither wakes the engine agent nor takes the session's gate, so a message arriving meanwhile never waits for it. Each
/// value is recent; they are not all from one instant (a counter may be one message ahead of another). Writing a
/// session allocates nothing: the text that does not change (its id, schedule, endpoint, store type) is kept per session,
/// the peer's address per connection, and times are formatted on the stack (SessionSnapshotAllocationTests).
/// </remarks>
internal sealed class SessionSnapshot
{
    private static readonly JsonEncodedText s_id = JsonEncodedText.Encode("id");
    private static readonly JsonEncodedText s_role = JsonEncodedText.Encode("role");
    private static readonly JsonEncodedText s_state = JsonEncodedText.Encode("state");
    private static readonly JsonEncodedText s_enabled = JsonEncodedText.Encode("enabled");
    private static readonly JsonEncodedText s_loggedOn = JsonEncodedText.Encode("loggedOn");
    private static readonly JsonEncodedText s_schedule = JsonEncodedText.Encode("schedule");
    private static readonly JsonEncodedText s_inSchedule = JsonEncodedText.Encode("inSchedule");
    private static readonly JsonEncodedText s_logonWindow = JsonEncodedText.Encode("logonWindow");
    private static readonly JsonEncodedText s_inLogonWindow = JsonEncodedText.Encode("inLogonWindow");
    private static readonly JsonEncodedText s_endpoint = JsonEncodedText.Encode("endpoint");
    private static readonly JsonEncodedText s_peer = JsonEncodedText.Encode("peer");
    private static readonly JsonEncodedText s_nextSender = JsonEncodedText.Encode("nextSender");
    private static readonly JsonEncodedText s_nextTarget = JsonEncodedText.Encode("nextTarget");
    private static readonly JsonEncodedText s_lastSent = JsonEncodedText.Encode("lastSent");
    private static readonly JsonEncodedText s_lastReceived = JsonEncodedText.Encode("lastReceived");
    private static readonly JsonEncodedText s_messagesSent = JsonEncodedText.Encode("messagesSent");
    private static readonly JsonEncodedText s_messagesReceived = JsonEncodedText.Encode("messagesReceived");
    private static readonly JsonEncodedText s_logons = JsonEncodedText.Encode("logons");
    private static readonly JsonEncodedText s_disconnects = JsonEncodedText.Encode("disconnects");
    private static readonly JsonEncodedText s_gaps = JsonEncodedText.Encode("gaps");
    private static readonly JsonEncodedText s_rejectsSent = JsonEncodedText.Encode("rejectsSent");
    private static readonly JsonEncodedText s_resendRequestsSent = JsonEncodedText.Encode("resendRequestsSent");
    private static readonly JsonEncodedText s_resendRequestsReceived = JsonEncodedText.Encode("resendRequestsReceived");
    private static readonly JsonEncodedText s_sendBacklogBytes = JsonEncodedText.Encode("sendBacklogBytes");
    private static readonly JsonEncodedText s_queuedMessages = JsonEncodedText.Encode("queuedMessages");
    private static readonly JsonEncodedText s_store = JsonEncodedText.Encode("store");
    private static readonly JsonEncodedText s_storeHealth = JsonEncodedText.Encode("storeHealth");
    private static readonly JsonEncodedText s_storeProblem = JsonEncodedText.Encode("storeProblem");
    private static readonly JsonEncodedText s_storeCreated = JsonEncodedText.Encode("storeCreated");
    private static readonly JsonEncodedText s_heartBtInt = JsonEncodedText.Encode("heartBtInt");
    private static readonly JsonEncodedText[] s_states = States();

    private readonly ConditionalWeakTable<FixSession, Fixed> _fixed = new();

    private static JsonEncodedText[] States()
    {
        SessionState[] states = Enum.GetValues<SessionState>();
        var text = new JsonEncodedText[states.Length];
        foreach (SessionState s in states) text[(int)s] = JsonEncodedText.Encode(s.ToString());
        return text;
    }

    /// <summary>Writes the sessions of <paramref name="engine"/> (in its order) that <paramref name="query"/> selects: a
    /// JSON array, or a page object (<c>offset</c>, <c>limit</c>, <c>sessions</c>, <c>total</c>, <c>sessionCount</c>) when
    /// the query asks for a page.</summary>
    public void WriteAll(Utf8JsonWriter w, EngineRuntime engine, long epochNs, SessionQuery? query = null)
    {
        query ??= SessionQuery.All;
        var cursor = new ListCursor(engine.Sessions);
        WriteStart(w, query);
        WriteMatching(w, engine, epochNs, query, ref cursor, int.MaxValue);
        WriteEnd(w, query, cursor);
    }

    /// <summary>Bytes written before the list is handed on to the response (<see cref="WriteAllAsync"/>).</summary>
    private const int FlushBytes = 16 * 1024;

    /// <summary>Writes the sessions <paramref name="query"/> selects, as <see cref="WriteAll"/> does, straight into the
    /// response's <paramref name="pipe"/>, handing it on every <see cref="FlushBytes"/>: the answer is never held whole
    /// in memory, so a list of thousands of sessions costs the same few buffers (the server's pooled ones) as a list of
    /// one.</summary>
    public async Task WriteAllAsync(Utf8JsonWriter w, PipeWriter pipe, EngineRuntime engine, long epochNs, SessionQuery query, CancellationToken cancel)
    {
        var cursor = new ListCursor(engine.Sessions);
        WriteStart(w, query);
        while (!WriteMatching(w, engine, epochNs, query, ref cursor, FlushBytes))
        {
            w.Flush();
            FlushResult flushed = await pipe.FlushAsync(cancel).ConfigureAwait(false);
            // The client went away.
            if (flushed.IsCanceled || flushed.IsCompleted) return;
        }
        WriteEnd(w, query, cursor);
        w.Flush();
    }

    // Where a list being written is: the engine's sessions when it began (one list for the whole answer, flushes
    // included), the next one to look at, how many matched so far.
    private struct ListCursor(IReadOnlyList<FixSession> sessions)
    {
        public readonly IReadOnlyList<FixSession> Sessions = sessions;
        public int Index;
        public int Matched;
    }

    private static readonly JsonEncodedText s_offset = JsonEncodedText.Encode("offset");
    private static readonly JsonEncodedText s_limit = JsonEncodedText.Encode("limit");
    private static readonly JsonEncodedText s_sessions = JsonEncodedText.Encode("sessions");
    private static readonly JsonEncodedText s_total = JsonEncodedText.Encode("total");
    private static readonly JsonEncodedText s_sessionCount = JsonEncodedText.Encode("sessionCount");

    private static void WriteStart(Utf8JsonWriter w, SessionQuery query)
    {
        if (!query.Paged)
        {
            w.WriteStartArray();
            return;
        }
        w.WriteStartObject();
        w.WriteNumber(s_offset, query.Offset);
        w.WriteNumber(s_limit, query.Limit);
        w.WriteStartArray(s_sessions);
    }

    // The page's counts come last: the sessions that matched are known once all were looked at, in the same pass that
    // wrote the page (so the counts and the page agree).
    private static void WriteEnd(Utf8JsonWriter w, SessionQuery query, in ListCursor cursor)
    {
        w.WriteEndArray();
        if (!query.Paged) return;
        w.WriteNumber(s_total, cursor.Matched);
        w.WriteNumber(s_sessionCount, cursor.Sessions.Count);
        w.WriteEndObject();
    }

    // Looks at the sessions from the cursor on: counts those that match, writes those inside the page. Returns false when
    // the writer holds flushAt bytes or more (hand them on, then call again), true when every session was looked at.
    private bool WriteMatching(Utf8JsonWriter w, EngineRuntime engine, long epochNs, SessionQuery query, ref ListCursor cursor, int flushAt)
    {
        IReadOnlyList<FixSession> sessions = cursor.Sessions;
        while (cursor.Index < sessions.Count)
        {
            FixSession s = sessions[cursor.Index++];
            // Removed meanwhile: left out.
            if (!engine.TryGetSlot(s.Id, out SessionSlot? slot)) continue;
            Fixed text = FixedOf(s);
            if (!query.Matches(slot, text.Id)) continue;
            int n = cursor.Matched++;
            if (n < query.Offset || n - query.Offset >= query.Limit) continue;
            Write(w, slot, text, epochNs);
            if (w.BytesPending >= flushAt) return false;
        }
        return true;
    }

    private Fixed FixedOf(FixSession s) => _fixed.GetValue(s, static session => new Fixed(session));

    /// <summary>Writes one session as a JSON object (any thread).</summary>
    public void Write(Utf8JsonWriter w, SessionSlot slot, long epochNs) => Write(w, slot, FixedOf(slot.Session), epochNs);

    private static void Write(Utf8JsonWriter w, SessionSlot slot, Fixed text, long epochNs)
    {
        FixSession s = slot.Session;
        IMessageStore store = s.Store;
        MessageStoreException? failed = s.StoreFailure;
        bool held = s.IsStoreHeld;
        MessageStoreException? problem = failed ?? s.StoreHoldReason ?? store.CurrentFailure;
        SessionState state = s.State;
        w.WriteStartObject();
        w.WriteString(s_id, text.Id);
        w.WriteString(s_role, s.IsInitiator ? "initiator" : "acceptor");
        w.WriteString(s_state, s_states[(int)state]);
        w.WriteBoolean(s_enabled, !slot.Disabled);
        w.WriteBoolean(s_loggedOn, state is SessionState.LoggedOn or SessionState.LogoutSent);
        w.WriteString(s_schedule, text.Schedule);
        w.WriteBoolean(s_inSchedule, s.IsSessionTime(epochNs));
        // The logon window (LogonTime-LogoutTime inside the schedule; null when it is the session time): a session may
        // log on (an initiator connects, an acceptor accepts a Logon) only while both are open.
        w.WriteString(s_logonWindow, text.LogonWindow);
        w.WriteBoolean(s_inLogonWindow, s.IsLogonTime(epochNs));
        w.WriteString(s_endpoint, text.Endpoint);
        w.WriteString(s_peer, text.PeerOf(s.Connection as IEngineConnection));
        w.WriteNumber(s_nextSender, store.NextSenderMsgSeqNum);
        w.WriteNumber(s_nextTarget, store.NextTargetMsgSeqNum);
        WriteTime(w, s_lastSent, s.LastSentEpochNs);
        WriteTime(w, s_lastReceived, s.LastReceivedEpochNs);
        w.WriteNumber(s_messagesSent, s.MessagesSent);
        w.WriteNumber(s_messagesReceived, s.MessagesReceived);
        w.WriteNumber(s_logons, s.LogonCount);
        w.WriteNumber(s_disconnects, s.DisconnectCount);
        w.WriteNumber(s_gaps, s.GapsDetected);
        w.WriteNumber(s_rejectsSent, s.RejectsSent);
        w.WriteNumber(s_resendRequestsSent, s.ResendRequestsSent);
        w.WriteNumber(s_resendRequestsReceived, s.ResendRequestsReceived);
        w.WriteNumber(s_sendBacklogBytes, s.SendBacklogBytes);
        w.WriteNumber(s_queuedMessages, s.QueuedMessageCount);
        w.WriteString(s_store, text.Store);
        w.WriteString(s_storeHealth, failed is not null ? "failed" : held ? "holding" : problem is not null ? "unavailable" : "ok");
        w.WriteString(s_storeProblem, problem?.Message);
        WriteTime(w, s_storeCreated, store.CreationTimeEpochNs);
        w.WriteNumber(s_heartBtInt, s.HeartBtIntSec);
        w.WriteEndObject();
    }

    private static void WriteTime(Utf8JsonWriter w, JsonEncodedText name, long epochNs)
    {
        Span<char> text = stackalloc char[32];
        if (TryFormatTime(epochNs, text, out int length)) w.WriteString(name, text[..length]);
        else w.WriteNull(name);
    }

    /// <summary>ISO-8601 UTC with milliseconds (<c>2026-12-06T07:55:01.120Z</c>); false for 0 (never).</summary>
    public static bool TryFormatTime(long epochNs, Span<char> destination, out int length)
    {
        length = 0;
        return epochNs > 0
            && DateTimeOffset.FromUnixTimeMilliseconds(epochNs / 1_000_000).UtcDateTime
                .TryFormat(destination, out length, "yyyy-MM-dd'T'HH:mm:ss.fff'Z'", CultureInfo.InvariantCulture);
    }

    /// <summary>The time as <see cref="TryFormatTime"/> formats it, or null for 0 (allocates).</summary>
    public static string? Time(long epochNs)
    {
        Span<char> text = stackalloc char[32];
        return TryFormatTime(epochNs, text, out int length) ? new string(text[..length]) : null;
    }

    // A session's text that does not change, and the peer of its current connection (replaced once per connection).
    private sealed class Fixed(FixSession s)
    {
        public string Id { get; } = s.Id.ToString();

        public string Schedule { get; } = s.Schedule.ToString();

        public string? LogonWindow { get; } = s.LogonWindow is null ? null : s.Settings.DescribeLogonWindow();

        public string Endpoint { get; } = s.IsInitiator
            ? string.Join(", ", Endpoints(s.Settings.SocketConnectEndpoints))
            : "port " + (s.Settings.SocketAcceptPort?.ToString(CultureInfo.InvariantCulture) ?? "?");

        public string Store { get; } = s.Store.GetType().Name;

        private Peer? _peer;

        public string? PeerOf(IEngineConnection? connection)
        {
            if (connection is null) return null;
            Peer? peer = System.Threading.Volatile.Read(ref _peer);
            if (peer is not null && ReferenceEquals(peer.Connection, connection)) return peer.Text;
            string text;
            try
            {
                text = connection.RemoteEndPoint;
            }
            catch (ObjectDisposedException)
            {
                // Closed meanwhile (this thread is not the session's).
                return null;
            }
            System.Threading.Volatile.Write(ref _peer, new Peer(connection, text));
            return text;
        }

        private static IEnumerable<string> Endpoints(IReadOnlyList<SocketEndpoint> endpoints)
        {
            foreach (SocketEndpoint e in endpoints) yield return e.Host + ":" + e.Port.ToString(CultureInfo.InvariantCulture);
        }
    }

    private sealed record Peer(IEngineConnection Connection, string Text);
}
