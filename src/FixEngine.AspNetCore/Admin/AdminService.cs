using System;
using System.Collections.Generic;
using System.Text;
using System.Threading;
using System.Threading.Channels;
using System.Threading.Tasks;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Session;
using FixEngine.Store;

namespace FixEngine.AspNetCore;

/// <summary>An operator's request the console could not carry out (unknown session or action, bad number, an action the
/// session's state does not allow): answered 400/404/409 with the one-line reason.</summary>
internal sealed class AdminRequestException(int status, string message) : Exception(message)
{
    public int Status { get; } = status;
}

/// <summary>One line of the console's live tail: a session event as the session raised it, with the EventId, name and
/// properties the ILogger bridge logs it with (SessionEventIds; docs/operations.md, "Session events").</summary>
internal sealed record AdminEvent(long Id, string Time, string Session, int EventId, string EventName, string Level, string Text,
    KeyValuePair<string, object?>[] Properties);

/// <summary>What the console does for one engine: snapshots, actions, stored messages, searches and the live tail.
/// Snapshots read what each session publishes for other threads (<see cref="SessionSnapshot"/>); everything that acts on
/// a session or reads its store runs on the session's own thread through the engine's session commands
/// (EngineRuntime.RunOnSessionAsync, docs/architecture.md), which this class only waits for, on request threads. The
/// live tail is the sessions' own events (the engine's SessionEventTap), kept from the console's start.</summary>
internal sealed class AdminService : IDisposable, ISessionEventObserver
{
    /// <summary>Longest wait for a session command (an application callback may hold the session's thread).</summary>
    private static readonly TimeSpan s_commandTimeout = TimeSpan.FromSeconds(10);
    private const int StoreChunk = 2_000;
    private const int TailCapacity = 500;

    private readonly FixEngineHost _host;
    private readonly SessionSnapshot _snapshots = new();
    private readonly Lock _tailLock = new();
    private readonly Queue<AdminEvent> _tail = new();
    private readonly List<Channel<AdminEvent>> _subscribers = [];
    private long _nextEventId;
    private bool _disposed;

    public AdminService(FixEngineHost host)
    {
        _host = host;
        // Every session's events, on the session's thread, as they are raised: events are rare (never one per message),
        // and the console adds nothing to the message path.
        Engine.EventTap.Add(this);
    }

    public FixEngineHost Host => _host;

    private EngineRuntime Engine => _host.Runtime;

    /// <summary>Writes the sessions <paramref name="query"/> selects (a JSON array, or a page) into a response as it goes,
    /// read from what the sessions publish, without entering them (<see cref="SessionSnapshot.WriteAllAsync"/>).</summary>
    public Task WriteSessionsAsync(System.Text.Json.Utf8JsonWriter w, System.IO.Pipelines.PipeWriter pipe, SessionQuery query, CancellationToken cancel) =>
        _snapshots.WriteAllAsync(w, pipe, Engine, Engine.EpochNow(), query, cancel);

    /// <summary>Writes one session (a JSON object), as <see cref="WriteSessionsAsync"/> writes each.</summary>
    public void WriteSession(System.Text.Json.Utf8JsonWriter w, SessionId id)
    {
        if (!Engine.TryGetSlot(id, out SessionSlot? slot)) throw new AdminRequestException(404, "no session " + id + " in this engine");
        _snapshots.Write(w, slot, Engine.EpochNow());
    }

    public SessionId Resolve(string? id)
    {
        if (string.IsNullOrEmpty(id)) throw new AdminRequestException(400, "the session is missing (?id=BeginString:Sender->Target)");
        foreach (FixSession s in _host.Sessions)
        {
            if (s.Id.ToString() == id) return s.Id;
        }
        throw new AdminRequestException(404, "no session " + id + " in this engine");
    }

    /// <summary>Carries out an operator's action on the session's thread and writes it, with who asked, to the session's
    /// event log and the console's tail.</summary>
    public async Task<string> ActAsync(SessionId id, string action, string who, string? text, int? sender, int? target)
    {
        string done = action switch
        {
            "logon" => await RunAsync(id, (slot, now) =>
            {
                slot.Disabled = false;
                if (slot.Session.IsConnected) return "already connected (" + slot.Session.State + ")";
                if (slot.Initiator is InitiatorConnector initiator)
                {
                    initiator.ConnectNow();
                    return slot.Session.IsLogonTime(now) ? "connecting now; the Logon goes out once connected"
                        : slot.Session.IsSessionTime(now) ? "enabled, but outside the logon window (" + slot.Session.Settings.DescribeLogonWindow() + "): it connects when the window opens"
                        : "enabled, but outside the schedule: it connects when the schedule opens";
                }
                return "enabled; an acceptor waits for the counterparty to connect and log on";
            }).ConfigureAwait(false),
            "logout" => await RunAsync(id, (slot, now) =>
            {
                if (!slot.Session.IsConnected) return "not connected";
                slot.Session.Logout(string.IsNullOrWhiteSpace(text) ? null : text, now);
                return slot.Session.IsConnected ? "Logout sent; disconnecting on the reply or after LogoutTimeout" : "disconnected";
            }).ConfigureAwait(false),
            "disconnect" => await RunAsync(id, (slot, now) =>
            {
                if (!slot.Session.IsConnected) return "not connected";
                slot.Session.Disconnect("disconnected by an operator (" + who + ")", now);
                return "disconnected without a Logout";
            }).ConfigureAwait(false),
            "reset" => await RunAsync(id, (slot, now) => slot.Session.ResetSequenceNumbersInSession(now)).ConfigureAwait(false),
            "seqnum" => sender is null && target is null
                ? throw new AdminRequestException(400, "give sender and/or target (the next MsgSeqNum to send / to expect)")
                : await RunAsync(id, (slot, now) => slot.Session.SetNextSequenceNumbers(sender, target, now)).ConfigureAwait(false),
            "disable" => await RunAsync(id, (slot, now) =>
            {
                slot.Disabled = true;
                if (slot.Session.State == SessionState.LoggedOn)
                {
                    slot.Session.Logout(string.IsNullOrWhiteSpace(text) ? "session disabled" : text, now);
                    return "disabled; Logout sent, no reconnect and no Logon accepted until enabled";
                }
                if (slot.Session.IsConnected) slot.Session.Disconnect("session disabled by an operator (" + who + ")", now);
                return "disabled; no reconnect and no Logon accepted until enabled";
            }).ConfigureAwait(false),
            "enable" => await RunAsync(id, (slot, _) =>
            {
                slot.Disabled = false;
                return "enabled";
            }).ConfigureAwait(false),
            _ => throw new AdminRequestException(404, "unknown action " + action + " (logon, logout, disconnect, reset, seqnum, enable, disable)"),
        };
        // The session's AdminAction event (EventId 15): its log, ILogger, the trace and this console's tail.
        string detail = Describe(action, text, sender, target) + done;
        await RunAsync(id, (slot, now) =>
        {
            slot.Session.RecordAdminAction(action, who, detail, now);
            return 0;
        }).ConfigureAwait(false);
        return done;
    }

    private static string Describe(string action, string? text, int? sender, int? target)
    {
        if (action == "seqnum") return "sender " + (sender?.ToString(System.Globalization.CultureInfo.InvariantCulture) ?? "unchanged") + ", target " + (target?.ToString(System.Globalization.CultureInfo.InvariantCulture) ?? "unchanged") + "; ";
        return string.IsNullOrWhiteSpace(text) ? "" : "\"" + text + "\"; ";
    }

    /// <summary>Stored (sent) messages from <paramref name="from"/> to <paramref name="to"/>, at most <paramref name="limit"/>.</summary>
    public Task<List<RenderedMessage>> MessagesAsync(SessionId id, int from, int to, int limit)
    {
        if (from < 1) throw new AdminRequestException(400, "from must be at least 1");
        if (to != 0 && to < from) throw new AdminRequestException(400, "to must be 0 (no end) or at least from");
        return RunAsync(id, (slot, _) =>
        {
            var renderer = MessageRenderer.For(slot.Session);
            var collect = new Collect(renderer, null, default, limit);
            slot.Session.Store.ReadRange(from, to, ref collect);
            return collect.Found;
        });
    }

    /// <summary>Messages with <paramref name="tag"/>=<paramref name="value"/>: sent messages in the store (read on the
    /// session's thread in chunks of 2,000 numbers, so the session is never held for a whole day's store) and both
    /// directions in the message log (FileLogPath).</summary>
    public async Task<List<RenderedMessage>> SearchAsync(SessionId id, int tag, string value, int limit)
    {
        if (tag < 1) throw new AdminRequestException(400, "tag must be a positive FIX tag number");
        if (string.IsNullOrEmpty(value) || value.Contains('\u0001')) throw new AdminRequestException(400, "value is missing");
        var found = new List<RenderedMessage>();
        byte[] tagEquals = Encoding.ASCII.GetBytes(tag.ToString(System.Globalization.CultureInfo.InvariantCulture) + "=");
        byte[] wanted = Encoding.Latin1.GetBytes(value);
        int next = await RunAsync(id, (slot, _) => slot.Session.Store.NextSenderMsgSeqNum).ConfigureAwait(false);
        for (int from = 1; from < next && found.Count < limit; from += StoreChunk)
        {
            int start = from;
            List<RenderedMessage> chunk = await RunAsync(id, (slot, _) =>
            {
                var renderer = MessageRenderer.For(slot.Session);
                var collect = new Collect(renderer, tagEquals, wanted, limit - found.Count);
                slot.Session.Store.ReadRange(start, start + StoreChunk - 1, ref collect);
                return collect.Found;
            }).ConfigureAwait(false);
            found.AddRange(chunk);
        }
        if (found.Count < limit && _host.TryGetSession(id, out FixSession? session))
        {
            var renderer = MessageRenderer.For(session);
            MessageLogSearch.Search(session.Settings, renderer, tag, value, limit, found);
        }
        return found;
    }

    private struct Collect(MessageRenderer renderer, byte[]? tagEquals, byte[]? value, int limit) : IStoredMessageHandler
    {
        public List<RenderedMessage> Found { get; } = [];

        public readonly bool OnMessage(int seqNum, ReadOnlySpan<byte> message)
        {
            if (tagEquals is not null && !MessageRenderer.HasField(message, tagEquals, value)) return true;
            Found.Add(renderer.Render("store", "out", message));
            return Found.Count < limit;
        }
    }

    private async Task<T> RunAsync<T>(SessionId id, Func<SessionSlot, long, T> action)
    {
        Task<T> task;
        try
        {
            task = Engine.RunOnSessionAsync(id, action);
        }
        catch (ArgumentException)
        {
            throw new AdminRequestException(404, "no session " + id + " in this engine");
        }
        catch (ObjectDisposedException)
        {
            throw new AdminRequestException(503, "the engine is disposed");
        }
        try
        {
            return await task.WaitAsync(s_commandTimeout).ConfigureAwait(false);
        }
        catch (TimeoutException)
        {
            throw new AdminRequestException(504, "the session's thread did not run the request within 10 s (an application callback may be blocking it); it will still run");
        }
        catch (InvalidOperationException e)
        {
            throw new AdminRequestException(409, e.Message);
        }
        catch (ArgumentOutOfRangeException e)
        {
            throw new AdminRequestException(400, e.Message.Split(Environment.NewLine)[0]);
        }
        catch (MessageStoreException e)
        {
            throw new AdminRequestException(500, "the message store failed: " + e.Message);
        }
    }

    // ---- live tail ----

    /// <summary>Session thread: one event into the tail (Debug and Trace events, e.g. a TestRequest sent, are left out).</summary>
    public void OnEvent(FixSession session, in SessionEvent e, long epochNs)
    {
        if (e.Level < Logging.LogLevel.Information) return;
        (int eventId, string name) = SessionEventIds.Of(in e);
        Publish(session.Id.ToString(), epochNs, eventId, name, e.Level.ToString(), e.ToString(), SessionEventProperties.Values(in e));
    }

    private void Publish(string session, long epochNs, int eventId, string name, string level, string text, KeyValuePair<string, object?>[] properties)
    {
        // Numbered and written to every page under one lock, so each page sees the events in id order even when two
        // threads raise them (TryWrite on a DropOldest channel never waits; readers continue on the pool).
        lock (_tailLock)
        {
            if (_disposed) return;
            var e = new AdminEvent(++_nextEventId, SessionSnapshot.Time(epochNs)!, session, eventId, name, level, text, properties);
            _tail.Enqueue(e);
            while (_tail.Count > TailCapacity) _tail.Dequeue();
            foreach (Channel<AdminEvent> c in _subscribers) c.Writer.TryWrite(e);
        }
    }

    /// <summary>The recent events and a channel of the next ones (bounded: a reader that stops reading loses the oldest).</summary>
    public (AdminEvent[] Recent, Channel<AdminEvent> Channel) Subscribe()
    {
        var channel = Channel.CreateBounded<AdminEvent>(new BoundedChannelOptions(1_000) { FullMode = BoundedChannelFullMode.DropOldest, SingleReader = true });
        lock (_tailLock)
        {
            _subscribers.Add(channel);
            return ([.. _tail], channel);
        }
    }

    public void Unsubscribe(Channel<AdminEvent> channel)
    {
        lock (_tailLock) _subscribers.Remove(channel);
        channel.Writer.TryComplete();
    }

    public void Dispose()
    {
        lock (_tailLock)
        {
            _disposed = true;
            foreach (Channel<AdminEvent> c in _subscribers) c.Writer.TryComplete();
            _subscribers.Clear();
        }
        Engine.EventTap.Remove(this);
    }
}
