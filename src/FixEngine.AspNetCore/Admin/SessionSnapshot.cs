using System;
using System.Collections.Generic;
using System.Globalization;
using System.Text.Json;
using System.Text.Json.Serialization;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Session;
using FixEngine.Store;

namespace FixEngine.AspNetCore;

/// <summary>One session as the console shows it, taken on the session's own thread (a session command), so every value
/// is from the same moment. Written as JSON by <see cref="AdminJson"/> (property names in camelCase, in this order).</summary>
internal sealed record SessionSnapshot(
    string Id, string Role, string State, bool Enabled, bool LoggedOn, string Schedule, bool InSchedule, string Endpoint,
    string? Peer, int NextSender, int NextTarget, string? LastSent, string? LastReceived, long MessagesSent,
    long MessagesReceived, long Logons, long Disconnects, long Gaps, long RejectsSent, long ResendRequestsSent,
    long ResendRequestsReceived, long SendBacklogBytes, int QueuedMessages, string Store, string StoreHealth,
    string? StoreProblem, string? StoreCreated, int HeartBtInt)
{
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
        return new SessionSnapshot(
            Id: s.Id.ToString(),
            Role: s.IsInitiator ? "initiator" : "acceptor",
            State: s.State.ToString(),
            Enabled: !slot.Disabled,
            LoggedOn: s.IsLoggedOn,
            Schedule: s.Schedule.ToString(),
            InSchedule: s.IsSessionTime(epochNs),
            Endpoint: endpoint,
            Peer: (s.Connection as IEngineConnection)?.RemoteEndPoint,
            NextSender: store.NextSenderMsgSeqNum,
            NextTarget: store.NextTargetMsgSeqNum,
            LastSent: Time(s.LastSentEpochNs),
            LastReceived: Time(s.LastReceivedEpochNs),
            MessagesSent: s.MessagesSent,
            MessagesReceived: s.MessagesReceived,
            Logons: s.LogonCount,
            Disconnects: s.DisconnectCount,
            Gaps: s.GapsDetected,
            RejectsSent: s.RejectsSent,
            ResendRequestsSent: s.ResendRequestsSent,
            ResendRequestsReceived: s.ResendRequestsReceived,
            SendBacklogBytes: s.SendBacklogBytes,
            QueuedMessages: s.QueuedMessageCount,
            Store: store.GetType().Name,
            StoreHealth: health,
            StoreProblem: problem?.Message,
            StoreCreated: Time(store.CreationTimeEpochNs),
            HeartBtInt: s.HeartBtIntSec);
    }

    private static IEnumerable<string> Endpoints(IReadOnlyList<SocketEndpoint> endpoints)
    {
        foreach (SocketEndpoint e in endpoints) yield return e.Host + ":" + e.Port.ToString(CultureInfo.InvariantCulture);
    }

    public void Write(Utf8JsonWriter w) => JsonSerializer.Serialize(w, this, AdminJson.Default.SessionSnapshot);

    /// <summary>ISO-8601 UTC with milliseconds, or null for 0 (never).</summary>
    public static string? Time(long epochNs)
        => epochNs <= 0 ? null
            : DateTimeOffset.FromUnixTimeMilliseconds(epochNs / 1_000_000).UtcDateTime.ToString("yyyy-MM-dd'T'HH:mm:ss.fff'Z'", CultureInfo.InvariantCulture);
}

/// <summary>The console's JSON shapes, source-generated (no reflection; the package is trimmable).</summary>
[JsonSourceGenerationOptions(PropertyNamingPolicy = JsonKnownNamingPolicy.CamelCase)]
[JsonSerializable(typeof(SessionSnapshot))]
internal sealed partial class AdminJson : JsonSerializerContext;
