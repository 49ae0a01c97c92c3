using System;
using System.Globalization;
using System.Linq;
using System.Text;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.DependencyInjection;
using FixEngine.Session;
using FixEngine.Testing;
using FixEngine.Tests.Infrastructure;
using Microsoft.Extensions.Logging;

namespace FixEngine.Tests.DependencyInjection;

/// <summary>Session events reach ILogger under the session's own category with their levels; messages do not.</summary>
public sealed class SessionLoggerTests
{
    private const string Category = "FixEngine.Session.FIX.4.4:EXEC->CLIENT";

    [Fact]
    public void SessionEventsGoToTheSessionsCategoryWithTheirLevels()
    {
        var logs = new CapturingLoggerProvider();
        using var factory = new LoggerSessionLogFactory(logs);
        using var pair = FixSessionTestPair.Create(LoggedAcceptor.Settings(), new LoggedAcceptor.Accepting(), sessionLogs: factory);
        pair.Connect();
        Assert.Equal(Category, LoggerSessionLogFactory.Category(pair.Session.Id));
        Assert.Contains(logs.Lines, l => l.Category == Category && l.Level == LogLevel.Information && l.Text.Contains("logged on", StringComparison.Ordinal));

        // A frame with a wrong CheckSum: garbled, ignored, Warning.
        pair.SendRawFromCounterparty(Encoding.ASCII.GetBytes("8=FIX.4.4\u00019=5\u000135=0\u000110=000\u0001"));
        Assert.Contains(logs.Lines, l => l.Category == Category && l.Level == LogLevel.Warning && l.Text.StartsWith("Garbled message ignored", StringComparison.Ordinal));

        // A sequence gap: Warning for the gap and for the ResendRequest the session sends.
        pair.SendRawFromCounterparty(LoggedAcceptor.Raw(pair, 50, "35=D|11=G1|55=EURUSD|54=1|38=100|40=1|60=20260105-09:00:00"));
        Assert.Contains(logs.Lines, l => l.Category == Category && l.Level == LogLevel.Warning && l.Text.StartsWith("MsgSeqNum too high", StringComparison.Ordinal));
        Assert.Contains(logs.Lines, l => l.Category == Category && l.Level == LogLevel.Warning && l.Text.StartsWith("Sent ResendRequest", StringComparison.Ordinal));

        // Messages are the message log's, never ILogger's: no line carries a FIX message.
        Assert.DoesNotContain(logs.Lines, l => l.Text.Contains("8=FIX", StringComparison.Ordinal) || l.Text.Contains('\u0001'));
        // The counterparty has no log: every line is the session under test's.
        Assert.All(logs.Lines, l => Assert.Equal(Category, l.Category));
    }

    [Fact]
    public void ALogonTheApplicationRefusesIsAnError()
    {
        var logs = new CapturingLoggerProvider();
        using var factory = new LoggerSessionLogFactory(logs);
        using var pair = FixSessionTestPair.Create(LoggedAcceptor.Settings(), new LoggedAcceptor.Accepting(refuseLogon: true), sessionLogs: factory);
        pair.Connect();
        Assert.False(pair.Session.IsLoggedOn);
        Assert.Contains(logs.Lines, l => l.Category == Category && l.Level == LogLevel.Error && l.Text.Contains("not today", StringComparison.Ordinal));
        Assert.DoesNotContain(logs.Lines, l => l.Level == LogLevel.Information && l.Text.Contains("logged on", StringComparison.Ordinal));
    }

    [Fact]
    public void ATestRequestIsDebug()
    {
        var logs = new CapturingLoggerProvider();
        using var factory = new LoggerSessionLogFactory(logs);
        SessionSettings settings = LoggedAcceptor.Settings();
        var start = new DateTime(2026, 1, 5, 9, 0, 0, DateTimeKind.Utc);
        long t0 = (start - DateTime.UnixEpoch).Ticks * 100;
        using var session = new FixSession(settings, new LoggedAcceptor.Accepting(), global::FixEngine.Engine.MemoryMessageStoreFactory.Instance.Create(settings, t0), factory.Create(settings));
        var connection = new Tests.Session.FakeConnection();
        session.OnConnected(connection, t0);
        session.OnMessage(Transport.FixMessages.Build("FIX.4.4", $"35=A|34=1|49=CLIENT|56=EXEC|52={start:yyyyMMdd-HH:mm:ss.fff}|98=0|108=30|"), t0);
        Assert.True(session.IsLoggedOn);
        // The peer goes silent: after 1.2 x HeartBtInt the session sends a TestRequest.
        session.Poll(t0 + 37_000_000_000L);
        Assert.Contains(logs.Lines, l => l.Category == Category && l.Level == LogLevel.Debug && l.Text.StartsWith("Sent test request", StringComparison.Ordinal));
    }
}
