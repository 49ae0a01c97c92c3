using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.DependencyInjection;
using FixEngine.Session;
using FixEngine.Testing;
using FixEngine.Tests.Infrastructure;
using Microsoft.Extensions.Logging;

namespace FixEngine.Tests.DependencyInjection;

/// <summary>Each session event reaches ILogger with its own EventId and named properties (docs/operations.md, "Session
/// events"), so a log query can select "every Logon refused" or "every gap above N" without parsing text.</summary>
public sealed class SessionEventLogTests
{
    private static IReadOnlyList<KeyValuePair<string, object?>> Single(CapturingLoggerProvider logs, int id, string name)
    {
        var matches = logs.Records.Where(r => r.Id.Id == id).ToList();
        Assert.True(matches.Count == 1, $"EventId {id}: {matches.Count} records; all: {string.Join(" | ", logs.Records.Select(r => r.Id + " " + r.Text))}");
        Assert.Equal(name, matches[0].Id.Name);
        return matches[0].Properties;
    }

    private static object? Property(IReadOnlyList<KeyValuePair<string, object?>> properties, string name)
    {
        foreach (KeyValuePair<string, object?> p in properties)
        {
            if (p.Key == name) return p.Value;
        }
        throw new Xunit.Sdk.XunitException($"no property {name} in {string.Join(", ", properties.Select(p => p.Key))}");
    }

    [Fact]
    public void LogonRejectGapResendAndLogoutHaveTheirOwnIdsAndProperties()
    {
        var logs = new CapturingLoggerProvider();
        using var factory = new LoggerSessionLogFactory(logs);
        using var pair = FixSessionTestPair.Create(LoggedAcceptor.Settings(), new LoggedAcceptor.Accepting(), sessionLogs: factory);
        pair.Connect();

        IReadOnlyList<KeyValuePair<string, object?>> logon = Single(logs, 4, "Logon");
        // Raised once the exchange is complete: our Logon reply (1) sent, the counterparty's Logon (1) accepted and consumed.
        Assert.Equal(2, Property(logon, "NextTargetMsgSeqNum"));
        Assert.Equal(2, Property(logon, "NextSenderMsgSeqNum"));
        Assert.Equal(1, Property(logon, "ReceivedMsgSeqNum"));

        // A SequenceReset without NewSeqNo(36): Reject with RefTagID 36, SessionRejectReason 1 (required tag missing).
        pair.SendRawFromCounterparty(LoggedAcceptor.Raw(pair, 2, "35=4|123=N"));
        IReadOnlyList<KeyValuePair<string, object?>> reject = Single(logs, 11, "RejectSent");
        Assert.Equal(2, Property(reject, "RefSeqNum"));
        Assert.Equal(36, Property(reject, "RefTagId"));
        Assert.Equal(1, Property(reject, "SessionRejectReason"));

        // A gap: expected 2 (a SequenceReset in Reset mode, 123=N, consumes no MsgSeqNum, rejected or not), received 50;
        // the ResendRequest the session sends asks for 2 to the end.
        pair.SendRawFromCounterparty(LoggedAcceptor.Raw(pair, 50, "35=D|11=G1|55=EURUSD|54=1|38=100|40=1|60=20260105-09:00:00"));
        IReadOnlyList<KeyValuePair<string, object?>> gap = Single(logs, 7, "SequenceGap");
        Assert.Equal(2, Property(gap, "ExpectedMsgSeqNum"));
        Assert.Equal(50, Property(gap, "ReceivedMsgSeqNum"));
        IReadOnlyList<KeyValuePair<string, object?>> resend = Single(logs, 8, "ResendRequest");
        Assert.Equal("Sent", Property(resend, "Direction"));
        Assert.Equal(2, Property(resend, "BeginSeqNo"));
        Assert.Equal(0, Property(resend, "EndSeqNo")); // 0: to the end (no ResendRequestChunkSize)

        pair.Session.Logout("end of day", pair.Session.EpochNs);
        pair.Pump();
        // Ours with its reason, then the counterparty's answer.
        var logouts = logs.Records.Where(r => r.Id.Id == 5).ToList();
        Assert.Equal(2, logouts.Count);
        Assert.All(logouts, r => Assert.Equal("Logout", r.Id.Name));
        Assert.Equal("Sent", Property(logouts[0].Properties, "Direction"));
        Assert.Equal("end of day", Property(logouts[0].Properties, "Reason"));
        Assert.Equal("Received", Property(logouts[1].Properties, "Direction"));
        Assert.Equal("response", Property(logouts[1].Properties, "Reason"));
    }

    [Fact]
    public void ARefusedLogonSaysByWhomAndWhy()
    {
        var logs = new CapturingLoggerProvider();
        using var factory = new LoggerSessionLogFactory(logs);
        using var pair = FixSessionTestPair.Create(LoggedAcceptor.Settings(), new LoggedAcceptor.Accepting(refuseLogon: true), sessionLogs: factory);
        pair.Connect();
        IReadOnlyList<KeyValuePair<string, object?>> refused = Single(logs, 6, "LogonRefused");
        Assert.Equal("application", Property(refused, "RefusedBy"));
        Assert.Equal("not today", Property(refused, "Reason"));
        Assert.Equal(LogLevel.Error, logs.Records.Single(r => r.Id.Id == 6).Level);
        Assert.Equal("not today", pair.Session.LastLogonRefusal);
    }

    [Fact]
    public void AnAdminActionIsLoggedWithWhoDidIt()
    {
        var logs = new CapturingLoggerProvider();
        using var factory = new LoggerSessionLogFactory(logs);
        using var pair = FixSessionTestPair.Create(LoggedAcceptor.Settings(), new LoggedAcceptor.Accepting(), sessionLogs: factory);
        pair.Connect();
        pair.Session.RecordAdminAction("set-next-sender", "alice", "next sender 40", pair.Session.EpochNs);
        IReadOnlyList<KeyValuePair<string, object?>> action = Single(logs, 15, "AdminAction");
        Assert.Equal("set-next-sender", Property(action, "Action"));
        Assert.Equal("alice", Property(action, "Actor"));
        Assert.Equal("next sender 40", Property(action, "Detail"));
    }

    [Fact]
    public void AStoreHoldAFailedStoreAndATakeoverHaveTheirOwnIdsWithTheStoresError()
    {
        // Real failures of the session's store (not events made up for the test), as a log query would select them.
        (int Id, string Name, string Reason, LogLevel Level) Logged(global::FixEngine.Store.MessageStoreException error, StoreFailurePolicy policy, int id)
        {
            var logs = new CapturingLoggerProvider();
            var store = new FixEngine.Tests.Session.SwitchableStore();
            using var h = new FixEngine.Tests.Session.SessionHarness("FIX.4.4", s => s with { ResetOnLogon = false, StoreFailurePolicy = policy }, store,
                log: new LoggerSessionLog(logs.CreateLogger("FixEngine.Session.X"), null));
            h.Logon();
            store.Failing = error;
            h.Receive("35=0|34=2");
            var records = logs.Records.Where(r => r.Id.Id == id).ToList();
            Assert.True(records.Count == 1, $"EventId {id}: {records.Count} records; all: {string.Join(" | ", logs.Records.Select(r => r.Id + " " + r.Text))}");
            return (id, records[0].Id.Name!, (string)Property(records[0].Properties, "Reason")!, records[0].Level);
        }

        (int _, string name, string reason, LogLevel level) = Logged(
            new global::FixEngine.PostgreSQL.PostgresStoreException(global::FixEngine.PostgreSQL.PostgresStoreFailure.Unavailable, "test: the database is away"), StoreFailurePolicy.Hold, 13);
        Assert.Equal(("StoreHold", LogLevel.Warning), (name, level));
        Assert.Contains("test: the database is away", reason, StringComparison.Ordinal);

        (_, name, reason, level) = Logged(
            new global::FixEngine.Store.MessageStoreException("disk full", "/data/store.journal", global::FixEngine.Store.MessageStoreOperation.Append), StoreFailurePolicy.Logout, 12);
        Assert.Equal(("StoreFailed", LogLevel.Error), (name, level));
        Assert.Contains("disk full", reason, StringComparison.Ordinal);

        (_, name, reason, level) = Logged(
            new global::FixEngine.PostgreSQL.PostgresStoreException(global::FixEngine.PostgreSQL.PostgresStoreFailure.Fenced, "test: fenced by epoch 7"), StoreFailurePolicy.Logout, 14);
        Assert.Equal(("TakenOver", LogLevel.Error), (name, level));
        Assert.Contains("test: fenced by epoch 7", reason, StringComparison.Ordinal);
    }

    [Fact]
    public void ATextLogGetsTheSameTextAsBeforeEventsHadProperties()
    {
        var e = new List<string>();
        var log = new TextOnlyLog(e);
        SessionSettings settings = LoggedAcceptor.Settings();
        using var pair = FixSessionTestPair.Create(settings, new LoggedAcceptor.Accepting(), sessionLogs: new OneLog(log));
        pair.Connect();
        pair.SendRawFromCounterparty(LoggedAcceptor.Raw(pair, 9, "35=D|11=G1|55=EURUSD|54=1|38=100|40=1|60=20260105-09:00:00"));
        Assert.Contains("Logon received; logged on", e);
        Assert.Contains("MsgSeqNum too high, expecting 2 but received 9", e);
        Assert.Contains("Sent ResendRequest from 2 to 0", e);
    }

    private sealed class TextOnlyLog(List<string> events) : ISessionLog
    {
        public void OnIncoming(ReadOnlySpan<byte> message, long epochNs)
        {
        }

        public void OnOutgoing(ReadOnlySpan<byte> message, long epochNs)
        {
        }

        public void OnEvent(string text, long epochNs) => events.Add(text);
    }

    private sealed class OneLog(ISessionLog log) : global::FixEngine.Engine.ISessionLogFactory
    {
        public ISessionLog? Create(SessionSettings settings) => log;
    }
}
