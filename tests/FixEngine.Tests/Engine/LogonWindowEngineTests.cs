using System;
using System.Collections.Concurrent;
using System.Linq;
using System.Threading;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Session;
using FixEngine.Testing;

namespace FixEngine.Tests.Engine;

/// <summary>An initiator whose engine runs on a fake clock inside its session time but before its LogonTime: it does not
/// dial until the clock reaches LogonTime, logs on, logs out once LogoutTime has passed and keeps its sequence numbers.</summary>
public sealed class LogonWindowEngineTests
{
    private const long Second = 1_000_000_000L;
    private const long Hour = 3600 * Second;

    private sealed class App : IApplication
    {
        public int Logons;
        public int Logouts;

        public void OnLogon(FixSession session) => Interlocked.Increment(ref Logons);

        public void OnLogout(FixSession session) => Interlocked.Increment(ref Logouts);

        public FromAppResult FromApp(FixSession session, FixMessage message) => FromAppResult.Accepted;
    }

    private static bool WaitFor(Func<bool> condition)
    {
        DateTime deadline = DateTime.UtcNow + EngineTestSupport.Wait;
        while (!condition())
        {
            if (DateTime.UtcNow > deadline) return false;
            Thread.Sleep(5);
        }
        return true;
    }

    [Fact]
    public void InitiatorDialsOnlyFromLogonTimeAndLogsOutAfterLogoutTimeKeepingItsNumbers()
    {
        var acceptorApp = new App();
        using var acceptor = new FixEngineHost(SettingsFile.Parse("""
            [DEFAULT]
            ConnectionType=acceptor
            SocketAcceptPort=0
            NonStopSession=Y
            UseDataDictionary=N
            CheckLatency=N
            [SESSION]
            BeginString=FIX.4.4
            SenderCompID=ACC
            TargetCompID=INI
            """, "acceptor.cfg"), acceptorApp);
        acceptor.Start();
        int port = EngineTestSupport.PortOf(acceptor);

        // Monday 2026-01-05 12:00 UTC: inside the session time 08:00-20:00, before the logon window 13:00-18:00.
        long epoch = new DateTimeOffset(2026, 1, 5, 12, 0, 0, TimeSpan.Zero).ToUnixTimeMilliseconds() * 1_000_000L;
        var clock = new FakeClock(nowNs: 1_000_000_000_000L, epochNs: epoch);
        var lines = new ConcurrentQueue<string>();
        var initiatorApp = new App();
        using var initiator = new FixEngineHost(SettingsFile.Parse($"""
            [DEFAULT]
            ConnectionType=initiator
            SocketConnectHost=127.0.0.1
            SocketConnectPort={port}
            HeartBtInt=20000
            ReconnectInterval=1
            StartTime=08:00:00
            EndTime=20:00:00
            LogonTime=13:00:00
            LogoutTime=18:00:00
            UseDataDictionary=N
            CheckLatency=N
            [SESSION]
            BeginString=FIX.4.4
            SenderCompID=INI
            TargetCompID=ACC
            """, "initiator.cfg"), initiatorApp, new EngineOptions { Clock = clock, Console = lines.Enqueue });
        initiator.Start();
        FixSession session = Assert.Single(initiator.Sessions);

        // The agent runs (a real thread) while the fake clock stands before LogonTime: no dial. Progress bound: many
        // agent duty cycles pass in this second on any machine; a connector that ignored the window dials in the first.
        Thread.Sleep(1000);
        Assert.DoesNotContain(lines, l => l.StartsWith("Connecting", StringComparison.Ordinal));
        Assert.False(session.IsConnected);

        clock.Advance(Hour); // 13:00:00
        Assert.True(WaitFor(() => session.IsLoggedOn && Volatile.Read(ref acceptorApp.Logons) == 1), "the initiator did not log on at LogonTime");
        Assert.Equal((2, 2), (session.NextSenderMsgSeqNum, session.NextTargetMsgSeqNum));

        clock.Advance(5 * Hour + Second); // 18:00:01
        Assert.True(WaitFor(() => !session.IsConnected && Volatile.Read(ref initiatorApp.Logouts) == 1), "the initiator did not log out after LogoutTime");
        // Logon and Logout each way; nothing reset.
        Assert.Equal((3, 3), (session.NextSenderMsgSeqNum, session.NextTargetMsgSeqNum));

        // Still inside the session time, outside the window: no reconnect however long (ReconnectInterval=1).
        int dials = lines.Count(l => l.StartsWith("Connecting", StringComparison.Ordinal));
        clock.Advance(Hour);
        Thread.Sleep(1000);
        Assert.Equal(dials, lines.Count(l => l.StartsWith("Connecting", StringComparison.Ordinal)));
        Assert.Equal((3, 3), (session.NextSenderMsgSeqNum, session.NextTargetMsgSeqNum));
    }
}
