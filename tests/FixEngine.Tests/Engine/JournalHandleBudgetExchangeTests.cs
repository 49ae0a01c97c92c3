using System;
using System.Collections.Generic;
using System.Text;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Store;
using FixEngine.Tests.Infrastructure;
using FixEngine.Tests.Session;
using FixEngine.Tests.Store;

namespace FixEngine.Tests.Engine;

/// <summary>Above the budget's park mark, the journal of a session idle on both sides (only Heartbeats and the like sent
/// and received last) is parked when its next write, by the heartbeat exchange, is at least half a HeartBtInt away, at
/// once, and kept open while that write is near, however long it has been idle (below the pressure mark): a parked
/// journal is then not reopened by the Heartbeat due next (Engine/JournalHandleBudget.cs).</summary>
public sealed class JournalHandleBudgetExchangeTests : IDisposable
{
    private const long Second = 1_000_000_000L;
    private readonly TempDirectory _directory = new();

    public void Dispose() => _directory.Dispose();

    private JournalHandleBudget Budget(int configured, int spare)
    {
        var s = new StringBuilder("[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=1\nStartTime=00:00:00\nEndTime=00:00:00\nBeginString=FIX.4.4\nSenderCompID=GW\n"
            + $"FileStorePath={_directory.Path}\n");
        for (int i = 0; i < configured; i++) s.Append($"[SESSION]\nTargetCompID=C{i}\n");
        IReadOnlyList<SessionSettings> settings = SettingsFile.Parse(s.ToString(), "<exchange>");
        return JournalHandleBudget.Create(settings, new EngineConsole(_ => { }), limit: configured + JournalHandleBudget.RuntimeReserve + spare)!;
    }

    private SessionHarness[] LoggedOn(int count)
    {
        var options = new FileMessageStoreOptions { SyncPolicy = FileStoreSyncPolicy.OS };
        var harnesses = new SessionHarness[count];
        for (int i = 0; i < count; i++)
        {
            var store = new FileMessageStore(_directory.Path, "x" + i, SessionHarness.StartEpochNs, options);
            harnesses[i] = new SessionHarness("FIX.4.4", store: store);
            harnesses[i].Logon(heartBtInt: 30);
        }
        return harnesses;
    }

    private static FileMessageStore StoreOf(SessionHarness h) => (FileMessageStore)h.Store;

    // The harness's epoch time doubles as the agent's monotonic time.
    private static void Visit(JournalHandleBudget budget, SessionHarness h) => budget.Visit(h.Session, h.Now, h.Now);

    [Fact]
    public void AnIdleSessionsJournalIsParkedWhenItsNextHeartbeatIsFarAndKeptWhenItIsNear()
    {
        if (!OperatingSystem.IsLinux()) return;
        // 16 left for journals: the park mark is 14, the pressure mark 15.
        JournalHandleBudget budget = Budget(configured: 20, spare: 16);
        Assert.Equal(14, budget.ParkMark);
        SessionHarness[] h = LoggedOn(16);
        try
        {
            for (int i = 0; i < 14; i++) Visit(budget, h[i]);
            Assert.Equal(14, budget.OpenJournals);
            Assert.All(h, x => Assert.False(StoreOf(x).IsParked));

            // Just logged on (the journal written a moment ago), next Heartbeat either way 30 s away: parked at the first
            // look above the mark, without waiting for a second of idleness.
            Assert.Equal(h[14].Now + 30 * Second, h[14].Session.IdleExchangeDueNs);
            Visit(budget, h[14]);
            Assert.True(StoreOf(h[14]).IsParked);
            Assert.Equal(14, budget.OpenJournals);

            // Idle for 20 s, its Heartbeat due in 10 s: kept open above the mark (idle for a second was enough before),
            // and looked at again just after that Heartbeat.
            h[0].Advance(20 * Second);
            h[15].Advance(20 * Second);
            Visit(budget, h[15]);
            Assert.Equal(15, budget.OpenJournals);
            Visit(budget, h[0]);
            Assert.False(StoreOf(h[0]).IsParked);
            Assert.False(StoreOf(h[15]).IsParked);
            Assert.Equal(h[0].Now + 10 * Second + JournalHandleBudget.ExchangeLookDelayNs, budget.NextVisitNs(h[0].Session, h[0].Now, h[0].Now));

            // The Heartbeat goes out (the Poll writes the journal); the peer's is due now: kept open, looked at again soon.
            h[0].Advance(10 * Second);
            h[0].Expect("0");
            Assert.Equal(h[0].Now + JournalHandleBudget.ExchangeLookDelayNs, budget.NextVisitNs(h[0].Session, h[0].Now, h[0].Now));
            Assert.False(StoreOf(h[0]).IsParked);

            // The peer's Heartbeat comes in (the journal written again): the next exchange is 30 s away, the look parks it.
            h[0].Now += JournalHandleBudget.ExchangeLookDelayNs / 2;
            h[0].Receive("35=0|34=2");
            Assert.Equal(long.MaxValue, budget.NextVisitNs(h[0].Session, h[0].Now, h[0].Now));
            Assert.True(StoreOf(h[0]).IsParked);
            Assert.Equal(14, budget.OpenJournals);

            // Traffic ends the prediction: after an application message the journal is parked by its idle time, a second.
            h[1].Now = h[15].Now;
            h[1].Receive("35=D|34=2|11=A|21=1|55=X|54=1|60=" + h[1].Time() + "|38=1|40=1");
            Assert.Equal(long.MinValue, h[1].Session.IdleExchangeDueNs);
            h[0].Receive("35=D|34=3|11=A|21=1|55=X|54=1|60=" + h[0].Time() + "|38=1|40=1"); // reopened by the write
            Visit(budget, h[0]);
            Assert.False(StoreOf(h[0]).IsParked);
            Assert.Equal(15, budget.OpenJournals);
            Visit(budget, h[1]);
            Assert.False(StoreOf(h[1]).IsParked);
            h[1].Now += JournalHandleBudget.IdleNs;
            Visit(budget, h[1]);
            Assert.True(StoreOf(h[1]).IsParked);
            Assert.Equal(14, budget.OpenJournals);
        }
        finally
        {
            foreach (SessionHarness x in h) x.Dispose();
        }
    }

    [Fact]
    public void AboveThePressureMarkAnIdleJournalIsParkedAfterAShortIdlenessWhateverItsNextHeartbeat()
    {
        if (!OperatingSystem.IsLinux()) return;
        JournalHandleBudget budget = Budget(configured: 20, spare: 16);
        SessionHarness[] h = LoggedOn(16);
        try
        {
            foreach (SessionHarness x in h) x.Advance(20 * Second); // every Heartbeat due in 10 s
            for (int i = 0; i < 16; i++) Visit(budget, h[i]);
            Assert.Equal(16, budget.OpenJournals);
            Assert.Equal(JournalHandleBudget.PressedIdleNs, budget.CurrentIdleNs);
            Assert.Equal(h[3].Now + JournalHandleBudget.PressedIdleNs, budget.NextVisitNs(h[3].Session, h[3].Now, h[3].Now));
            h[3].Now += JournalHandleBudget.PressedIdleNs;
            Visit(budget, h[3]);
            Assert.True(StoreOf(h[3]).IsParked);
            Assert.Equal(15, budget.OpenJournals);
            // Back at the pressure mark: the next one stays open until its Heartbeats are done.
            h[4].Now += JournalHandleBudget.IdleNs;
            Visit(budget, h[4]);
            Assert.False(StoreOf(h[4]).IsParked);
        }
        finally
        {
            foreach (SessionHarness x in h) x.Dispose();
        }
    }

    [Fact]
    public void LookingAtAnIdleSessionsNextHeartbeatAllocatesNothing()
    {
        if (!OperatingSystem.IsLinux()) return;
        // 16 left for journals: 15 open are above the park mark (14), not above the pressure mark (15).
        JournalHandleBudget budget = Budget(configured: 20, spare: 16);
        SessionHarness[] h = LoggedOn(15);
        try
        {
            foreach (SessionHarness x in h) x.Advance(20 * Second); // Heartbeats due in 10 s: kept open, looked at again
            foreach (SessionHarness x in h) Visit(budget, x);
            Assert.Equal(15, budget.OpenJournals);
            long t = h[0].Now;
            long allocated = Allocations.Measure(() =>
            {
                t += 1_000;
                budget.Visit(h[0].Session, t, t);
                budget.NextVisitNs(h[0].Session, t, t);
            }, warmup: 100, iterations: 1_000);
            Assert.Equal(0, allocated);
            Assert.False(StoreOf(h[0]).IsParked);
            Assert.Equal(h[0].Now + 10 * Second + JournalHandleBudget.ExchangeLookDelayNs, budget.NextVisitNs(h[0].Session, h[0].Now, h[0].Now));
        }
        finally
        {
            foreach (SessionHarness x in h) x.Dispose();
        }
    }
}
