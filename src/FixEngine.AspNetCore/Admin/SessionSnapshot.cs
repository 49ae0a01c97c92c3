using System;
using System.Collections.Generic;
using System.Globalization;
using System.Text.Json;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Session;
using FixEngine.Store;

namespace FixEngine.AspNetCore;

/// <summary>One session as the console shows it, taken on the session's own thread (a session command), so every value
/// is from the same moment.</summary>
internal sealed class SessionSnapshot
{
    public required string Id { get; init; }
    public required string Role { get; init; }
    public required string State { get; init; }
    public required bool Enabled { get; init; }
    public required bool LoggedOn { get; init; }
    public required string Schedule { get; init; }
    public required bool InSchedule { get; init; }
    public required string Endpoint { get; init; }
    public required string? Peer { get; init; }
    public required int NextSender { get; init; }
    public required int NextTarget { get; init; }
    public required long LastSentEpochNs { get; init; }
    public required long LastReceivedEpochNs { get; init; }
    public required long MessagesSent { get; init; }
    public required long MessagesReceived { get; init; }
    public required long Logons { get; init; }
    public required long Disconnects { get; init; }
    public required long Gaps { get; init; }
    public required long RejectsSent { get; init; }
    public required long ResendRequestsSent { get; init; }
    public required long ResendRequestsReceived { get; init; }
    public required long SendBacklogBytes { get; init; }
    public required int QueuedMessages { get; init; }
    public required string Store { get; init; }
    public required string StoreHealth { get; init; }
    public required string? StoreProblem { get; init; }
    public required long StoreCreatedEpochNs { get; init; }
    public required int HeartBtInt { get; init; }

    /// <summary>Session thread only (inside a session command).</summary>
    public static SessionSnapshot Take(SessionSlot slot, long epochNs)
    {
        FixSession s = slot.Session;
        SessionSettings settings = s.Settings;
        IMessageStore store = s.Store;
        string endpoint = s.IsInitiator
            ? string.Join(", ", Endpoints(settings.SocketConnectEndpoints))
            : "port " + (settings.SocketAcceptPort?.ToString(CultureInfo.InvariantCulture) ?? "?");
        MessageStoreException? problem = s.StoreFailure ?? s.StoreHoldReason ?? store.CurrentFailure;
        string health = s.StoreFailure is not null ? "failed" : s.IsStoreHeld ? "holding" : problem is not null ? "unavailable" : "ok";
        return new SessionSnapshot
        {
            Id = s.Id.ToString(),
            Role = s.IsInitiator ? "initiator" : "acceptor",
            State = s.State.ToString(),
            Enabled = !slot.Disabled,
            LoggedOn = s.IsLoggedOn,
            Schedule = s.Schedule.ToString(),
            InSchedule = s.IsSessionTime(epochNs),
            Endpoint = endpoint,
            Peer = (s.Connection as IEngineConnection)?.RemoteEndPoint,
            NextSender = store.NextSenderMsgSeqNum,
            NextTarget = store.NextTargetMsgSeqNum,
            LastSentEpochNs = s.LastSentEpochNs,
            LastReceivedEpochNs = s.LastReceivedEpochNs,
            MessagesSent = s.MessagesSent,
            MessagesReceived = s.MessagesReceived,
            Logons = s.LogonCount,
            Disconnects = s.DisconnectCount,
            Gaps = s.GapsDetected,
            RejectsSent = s.RejectsSent,
            ResendRequestsSent = s.ResendRequestsSent,
            ResendRequestsReceived = s.ResendRequestsReceived,
            SendBacklogBytes = s.SendBacklogBytes,
            QueuedMessages = s.QueuedMessageCount,
            Store = store.GetType().Name,
            StoreHealth = health,
            StoreProblem = problem?.Message,
            StoreCreatedEpochNs = store.CreationTimeEpochNs,
            HeartBtInt = s.HeartBtIntSec,
        };
    }

    private static IEnumerable<string> Endpoints(IReadOnlyList<SocketEndpoint> endpoints)
    {
        foreach (SocketEndpoint e in endpoints) yield return e.Host + ":" + e.Port.ToString(CultureInfo.InvariantCulture);
    }

    public void Write(Utf8JsonWriter w)
    {
        w.WriteStartObject();
        w.WriteString("id", Id);
        w.WriteString("role", Role);
        w.WriteString("state", State);
        w.WriteBoolean("enabled", Enabled);
        w.WriteBoolean("loggedOn", LoggedOn);
        w.WriteString("schedule", Schedule);
        w.WriteBoolean("inSchedule", InSchedule);
        w.WriteString("endpoint", Endpoint);
        w.WriteString("peer", Peer);
        w.WriteNumber("nextSender", NextSender);
        w.WriteNumber("nextTarget", NextTarget);
        w.WriteString("lastSent", Time(LastSentEpochNs));
        w.WriteString("lastReceived", Time(LastReceivedEpochNs));
        w.WriteNumber("messagesSent", MessagesSent);
        w.WriteNumber("messagesReceived", MessagesReceived);
        w.WriteNumber("logons", Logons);
        w.WriteNumber("disconnects", Disconnects);
        w.WriteNumber("gaps", Gaps);
        w.WriteNumber("rejectsSent", RejectsSent);
        w.WriteNumber("resendRequestsSent", ResendRequestsSent);
        w.WriteNumber("resendRequestsReceived", ResendRequestsReceived);
        w.WriteNumber("sendBacklogBytes", SendBacklogBytes);
        w.WriteNumber("queuedMessages", QueuedMessages);
        w.WriteString("store", Store);
        w.WriteString("storeHealth", StoreHealth);
        w.WriteString("storeProblem", StoreProblem);
        w.WriteString("storeCreated", Time(StoreCreatedEpochNs));
        w.WriteNumber("heartBtInt", HeartBtInt);
        w.WriteEndObject();
    }

    /// <summary>ISO-8601 UTC with milliseconds, or null for 0 (never).</summary>
    public static string? Time(long epochNs)
        => epochNs <= 0 ? null
            : DateTimeOffset.FromUnixTimeMilliseconds(epochNs / 1_000_000).UtcDateTime.ToString("yyyy-MM-dd'T'HH:mm:ss.fff'Z'", CultureInfo.InvariantCulture);
}
