using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Session;
using FixEngine.Store;
using FixEngine.Tests.Infrastructure;
using FixEngine.Tests.Session;
using FixEngine.Tests.Store;
using static FixEngine.Tests.Engine.DynamicSessionTests;
using static FixEngine.Tests.Engine.EngineTestSupport;

namespace FixEngine.Tests.Engine;

/// <summary>An engine whose file-store sessions would need more descriptors than the process's open-files limit says so
/// in one line naming the limit, and keeps no more journals open than the limit leaves room for (Engine/JournalHandleBudget.cs):
/// idle sessions' journals are parked down to the budget's mark, busy ones stay open.</summary>
public sealed class JournalHandleBudgetTests
{
    private const int Sessions = 24;

    private static IReadOnlyList<SessionSettings> Acceptors(int port, string storeDir)
    {
        var s = new StringBuilder($"[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort={port}\nHeartBtInt=30\nStartTime=00:00:00\nEndTime=00:00:00\n"
            + $"UseDataDictionary=N\nReceiveMode=Completion\nBeginString=FIX.4.4\nSenderCompID=GW\nFileStorePath={storeDir}\n");
        for (int i = 1; i <= Sessions; i++) s.Append($"[SESSION]\nTargetCompID=C{i:D2}\n");
        return SettingsFile.Parse(s.ToString(), "<acceptors>");
    }

    private static IReadOnlyList<SessionSettings> Initiators(int port)
    {
        var s = new StringBuilder($"[DEFAULT]\nConnectionType=initiator\nSocketConnectHost=127.0.0.1\nSocketConnectPort={port}\nReconnectInterval=1\nHeartBtInt=30\n"
            + "StartTime=00:00:00\nEndTime=00:00:00\nUseDataDictionary=N\nReceiveMode=Completion\nBeginString=FIX.4.4\nTargetCompID=GW\n");
        for (int i = 1; i <= Sessions; i++) s.Append($"[SESSION]\nSenderCompID=C{i:D2}\n");
        return SettingsFile.Parse(s.ToString(), "<initiators>");
    }

    [Fact]
    public void TheNeedIsCountedPerSocketJournalAndIndex()
    {
        IReadOnlyList<SessionSettings> settings = SettingsFile.Parse(
            "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=1\nStartTime=00:00:00\nEndTime=00:00:00\nBeginString=FIX.4.4\nSenderCompID=GW\n"
            + "[SESSION]\nTargetCompID=A\nFileStorePath=/tmp/x\n[SESSION]\nTargetCompID=B\nFileStorePath=/tmp/x\nFileStoreIndexCheckpoint=Y\n[SESSION]\nTargetCompID=M\n", "<plan>");
        Assert.Equal((3, 2, 1, 3 + 2 + 1 + JournalHandleBudget.RuntimeReserve), JournalHandleBudget.Plan(settings));
        var lines = new List<string>();
        Assert.Null(JournalHandleBudget.Create(settings, new EngineConsole(lines.Add), limit: 3 + 2 + 1 + JournalHandleBudget.RuntimeReserve));
        Assert.Empty(lines);
        Assert.NotNull(JournalHandleBudget.Create(settings, new EngineConsole(lines.Add), limit: 3 + 2 + JournalHandleBudget.RuntimeReserve));
        Assert.Single(lines);
    }

    [Fact]
    public void UnderATightLimitIdleJournalsAreClosedAndTheSessionsCarryOnWithoutLosingAMessage()
    {
        if (!OperatingSystem.IsLinux()) return;
        string storeDir = TempDirectory("fe-budget-");
        try
        {
            var lines = new ConcurrentQueue<string>();
            // Room for 8 journals beside the sockets and the reserve: idle ones are parked down to 7 (the park mark).
            long limit = Sessions + JournalHandleBudget.RuntimeReserve + 8;
            const int ParkMark = 7;
            var gatewayApp = new MultiApp();
            var clientApp = new MultiApp();
            List<(SessionId Id, int NextSender, int NextTarget)> finalState;
            using (var gateway = new FixEngineHost(Acceptors(0, storeDir), gatewayApp, new EngineOptions { Console = lines.Enqueue, OpenFilesLimitForTesting = limit }))
            {
                // One line before anything connects, naming the limit, the need and the settings to change.
                string warning = Assert.Single(lines, l => l.StartsWith("FixEngine resource limit:", StringComparison.Ordinal));
                Assert.Contains($"open-files limit of {limit:N0}", warning, StringComparison.Ordinal);
                Assert.Contains("ulimit -n", warning, StringComparison.Ordinal);
                Assert.Contains($"{Sessions} file-store journals", warning, StringComparison.Ordinal);
                // Every store was opened (its journal replayed) and parked at once.
                Assert.Equal(0, JournalParkingTests.OpenDescriptorsUnder(storeDir));

                gateway.Start();
                int port = PortOf(gateway);
                using var clients = new FixEngineHost(Initiators(port), clientApp);
                clients.Start();
                Assert.True(WaitFor(() => gatewayApp.Logons.Count == Sessions && clientApp.Logons.Count == Sessions), "not all sessions logged on");

                Assert.Equal(ParkMark, gateway.Runtime.Agent.Journals!.ParkMark);
                Assert.Contains($"while more than {ParkMark} are open", warning, StringComparison.Ordinal);
                // Idle (HeartBtInt=30): within a second or two of the last write the journals above the mark are closed again.
                Assert.True(WaitFor(() => JournalParkingTests.OpenDescriptorsUnder(storeDir) <= ParkMark),
                    $"{JournalParkingTests.OpenDescriptorsUnder(storeDir)} journals still open while idle");

                // Orders on every session: each store opens its journal again, stores and answers in sequence.
                FixSession[] sessions = [.. clients.Sessions];
                for (int round = 1; round <= 3; round++)
                {
                    foreach (FixSession s in sessions) SendOrder(s, round);
                }
                Assert.True(WaitFor(() => sessions.All(s => clientApp.FillsOf(s.Id) == 3)), "not every order was answered");
                Assert.Empty(gatewayApp.Logouts);
                Assert.True(WaitFor(() => JournalParkingTests.OpenDescriptorsUnder(storeDir) <= ParkMark), "journals not closed again after the orders");
                finalState = [.. gateway.Sessions.Select(s => (s.Id, s.Store.NextSenderMsgSeqNum, s.Store.NextTargetMsgSeqNum))];
                clients.Stop(TimeSpan.FromSeconds(5));
                gateway.Stop(TimeSpan.FromSeconds(5));
            }
            Assert.Equal(0, JournalParkingTests.OpenDescriptorsUnder(storeDir));
            // On disk: the sequence numbers the sessions had (Logon, three orders and answers, Logout each way at least).
            foreach ((SessionId id, int nextSender, int nextTarget) in finalState)
            {
                using var store = new FileMessageStore(storeDir, id.ToString(), 1);
                Assert.True(store.NextSenderMsgSeqNum >= nextSender && nextSender >= 5, $"{id}: sender {store.NextSenderMsgSeqNum} vs {nextSender}");
                Assert.True(store.NextTargetMsgSeqNum >= nextTarget && nextTarget >= 5, $"{id}: target {store.NextTargetMsgSeqNum} vs {nextTarget}");
                Assert.Equal(3, StoreTestData.ReadAll(store).Count(m => Encoding.ASCII.GetString(m.Bytes).Contains("\u000135=8\u0001", StringComparison.Ordinal)));
            }
        }
        finally
        {
            DeleteDirectory(storeDir);
        }
    }

    [Fact]
    public void ASessionLeftOutAfterItsStoreOpenedIsNotCountedAsParked()
    {
        if (!OperatingSystem.IsLinux()) return;
        string storeDir = TempDirectory("fe-budget-skip-");
        try
        {
            // GOOD and BAD are file-store initiators; BAD's CA file is missing, which fails after its store was opened.
            IReadOnlyList<SessionSettings> settings = SettingsFile.Parse(
                "[DEFAULT]\nConnectionType=initiator\nSocketConnectHost=127.0.0.1\nSocketConnectPort=1\nHeartBtInt=30\nStartTime=00:00:00\nEndTime=00:00:00\n"
                + $"UseDataDictionary=N\nBeginString=FIX.4.4\nTargetCompID=GW\nFileStorePath={storeDir}\nContinueInitializationOnError=Y\n"
                + "[SESSION]\nSenderCompID=GOOD\n"
                + $"[SESSION]\nSenderCompID=BAD\nSocketUseSSL=Y\nSSLCACertificate={Path.Combine(storeDir, "no-such-ca.pem")}\n", "<initiators>");
            var lines = new ConcurrentQueue<string>();
            using var engine = new FixEngineHost(settings, new MultiApp(), new EngineOptions { Console = lines.Enqueue, OpenFilesLimitForTesting = 3 });
            Assert.Equal("GOOD", Assert.Single(engine.Sessions).Id.SenderCompID);
            Assert.Equal("FIX.4.4:BAD->GW", Assert.Single(engine.SkippedSessions).Session);
            Assert.Equal(1, engine.Runtime.Agent.Journals!.Parked);
            Assert.Equal(0, JournalParkingTests.OpenDescriptorsUnder(storeDir));
        }
        finally
        {
            DeleteDirectory(storeDir);
        }
    }

    [Fact]
    public void WithDescriptorsToSpareEveryJournalStaysOpen()
    {
        if (!OperatingSystem.IsLinux()) return;
        string storeDir = TempDirectory("fe-budget-spare-");
        try
        {
            var lines = new ConcurrentQueue<string>();
            using (var gateway = new FixEngineHost(Acceptors(0, storeDir), new MultiApp(), new EngineOptions { Console = lines.Enqueue, OpenFilesLimitForTesting = 100_000 }))
            {
                Assert.DoesNotContain(lines, l => l.StartsWith("FixEngine resource limit:", StringComparison.Ordinal));
                Assert.Equal(Sessions, JournalParkingTests.OpenDescriptorsUnder(storeDir));
            }
        }
        finally
        {
            DeleteDirectory(storeDir);
        }
    }
}

/// <summary>The agent visits every session's journal on each sweep when the budget is on: a visit allocates nothing,
/// whether the journal is parked, in use (its use count moved since the last visit) or idle but not yet for a second.</summary>
[Collection(nameof(AllocationMeasurement))]
public sealed class JournalHandleBudgetAllocationTests : IDisposable
{
    private readonly TempDirectory _directory = new();

    public void Dispose() => _directory.Dispose();

    [Fact]
    public void AVisitAllocatesNothing()
    {
        if (!OperatingSystem.IsLinux()) return;
        IReadOnlyList<SessionSettings> settings = SettingsFile.Parse(
            "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=1\nStartTime=00:00:00\nEndTime=00:00:00\nBeginString=FIX.4.4\nSenderCompID=GW\n"
            + $"FileStorePath={_directory.Path}\n[SESSION]\nTargetCompID=A\n[SESSION]\nTargetCompID=B\n", "<budget>");
        JournalHandleBudget budget = JournalHandleBudget.Create(settings, new EngineConsole(_ => { }), limit: 1)!;
        var options = new FileMessageStoreOptions { SyncPolicy = FileStoreSyncPolicy.OS };
        var parkedStore = new FileMessageStore(_directory.Path, "parked", 5, options);
        var busyStore = new FileMessageStore(_directory.Path, "busy", 5, options);
        using var parked = new SessionHarness("FIX.4.4", store: parkedStore);
        using var busy = new SessionHarness("FIX.4.4", store: busyStore);
        Assert.True(parkedStore.TryPark());
        byte[] message = StoreTestData.Message(1);
        int seq = busyStore.NextSenderMsgSeqNum;
        // The warm-up and the three windows' appends stay inside the index's first segment (rented at the first append), so
        // the windows measure the visits and the appends, not the index renting its next 1,024-entry segment from the
        // shared pool (3 KB, allocated when the pool has none to give: other tests in the process decide that).
        const int Warmup = 100, Iterations = 300;
        Assert.True(seq - 1 + Warmup + 3 * Iterations <= JournalIndex.SegmentSize);
        long now = 1_000_000_000L;
        long allocated = Allocations.Measure(() =>
        {
            now += 1_000; // far less than IdleNs between visits: nothing is parked
            budget.Visit(parked.Session, now);
            budget.Visit(busy.Session, now);
            budget.Visit(busy.Session, now);
            busyStore.AppendAndIncrement(seq++, message);
        }, warmup: Warmup, iterations: Iterations);
        Assert.Equal(0, allocated);
        Assert.True(parkedStore.IsParked);
        Assert.False(busyStore.IsParked);
        // The same budget parks the busy journal once it has been idle for a second: the visits above did look at it.
        budget.Visit(busy.Session, now);
        budget.Visit(busy.Session, now + JournalHandleBudget.IdleNs);
        Assert.True(busyStore.IsParked);
    }
}

/// <summary>Idle journals are parked only while more are open than the budget's park mark (7/8 of what the limit leaves
/// after the sockets), after a second; above its pressure mark (15/16) after <see cref="JournalHandleBudget.PressedIdleNs"/>.</summary>
public sealed class JournalHandleBudgetPressureTests : IDisposable
{
    private readonly TempDirectory _directory = new();

    public void Dispose() => _directory.Dispose();

    [Fact]
    public void IdleJournalsAreParkedOnlyAboveTheMarkAndSoonerUnderPressure()
    {
        if (!OperatingSystem.IsLinux()) return;
        const int Stores = 16;
        var s = new StringBuilder("[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=1\nStartTime=00:00:00\nEndTime=00:00:00\nBeginString=FIX.4.4\nSenderCompID=GW\n"
            + $"FileStorePath={_directory.Path}\n");
        const int Configured = 20;
        for (int i = 0; i < Configured; i++) s.Append($"[SESSION]\nTargetCompID=C{i}\n");
        IReadOnlyList<SessionSettings> settings = SettingsFile.Parse(s.ToString(), "<pressure>");
        // 20 sockets + 256 reserved + 16 left for journals: parked above 14 open, sooner above 15.
        JournalHandleBudget budget = JournalHandleBudget.Create(settings, new EngineConsole(_ => { }), limit: Configured + JournalHandleBudget.RuntimeReserve + 16)!;
        Assert.Equal(14, budget.ParkMark);
        Assert.Equal(15, budget.PressureMark);
        var options = new FileMessageStoreOptions { SyncPolicy = FileStoreSyncPolicy.OS };
        var stores = new FileMessageStore[Stores];
        var harnesses = new SessionHarness[Stores];
        try
        {
            for (int i = 0; i < Stores; i++)
            {
                stores[i] = new FileMessageStore(_directory.Path, "s" + i, 5, options);
                harnesses[i] = new SessionHarness("FIX.4.4", store: stores[i]);
            }
            long now = 1_000_000_000L;
            for (int i = 0; i < 14; i++) budget.Visit(harnesses[i].Session, now);
            Assert.Equal(14, budget.OpenJournals);

            // At the mark: a journal idle for a minute stays open, and needs no look until its session wakes for
            // something else (a use after the visit, such as the Heartbeat its Poll wrote, included).
            long later = now + 60 * JournalHandleBudget.IdleNs;
            budget.Visit(harnesses[0].Session, later);
            Assert.False(stores[0].IsParked);
            Assert.Equal(long.MaxValue, budget.NextVisitNs(harnesses[0].Session, later));
            stores[0].AppendAndIncrement(stores[0].NextSenderMsgSeqNum, StoreTestData.Message(1));
            Assert.Equal(long.MaxValue, budget.NextVisitNs(harnesses[0].Session, later));

            // One above the mark (15 open): a journal idle for 100 ms stays, one idle for a second is parked; then the
            // count is back at the mark and the next idle one stays open.
            budget.Visit(harnesses[14].Session, now);
            Assert.Equal(15, budget.OpenJournals);
            Assert.Equal(JournalHandleBudget.IdleNs, budget.CurrentIdleNs);
            budget.Visit(harnesses[1].Session, now + JournalHandleBudget.PressedIdleNs);
            Assert.False(stores[1].IsParked);
            budget.Visit(harnesses[1].Session, now + JournalHandleBudget.IdleNs);
            Assert.True(stores[1].IsParked);
            Assert.Equal(14, budget.OpenJournals);
            budget.Visit(harnesses[2].Session, later);
            Assert.False(stores[2].IsParked);

            // Above the pressure mark (16 open): parked after 100 ms.
            budget.Visit(harnesses[15].Session, now);
            stores[1].AppendAndIncrement(stores[1].NextSenderMsgSeqNum, StoreTestData.Message(1));
            budget.Visit(harnesses[1].Session, now);
            Assert.Equal(16, budget.OpenJournals);
            Assert.Equal(JournalHandleBudget.PressedIdleNs, budget.CurrentIdleNs);
            Assert.Equal(now + JournalHandleBudget.PressedIdleNs, budget.NextVisitNs(harnesses[3].Session, now));
            budget.Visit(harnesses[3].Session, now + JournalHandleBudget.PressedIdleNs - 1);
            Assert.False(stores[3].IsParked);
            budget.Visit(harnesses[3].Session, now + JournalHandleBudget.PressedIdleNs);
            Assert.True(stores[3].IsParked);
            Assert.Equal(15, budget.OpenJournals);
            Assert.Equal(JournalHandleBudget.IdleNs, budget.CurrentIdleNs);

            // Above the mark a use after the visit starts the journal's idle time where the visit's next look is
            // asked for; the look then parks it without a second visit in between.
            budget.Visit(harnesses[5].Session, now);
            stores[5].AppendAndIncrement(stores[5].NextSenderMsgSeqNum, StoreTestData.Message(1));
            long used = now + 7;
            Assert.Equal(used + JournalHandleBudget.IdleNs, budget.NextVisitNs(harnesses[5].Session, used));
            Assert.Equal(used + JournalHandleBudget.IdleNs, budget.NextVisitNs(harnesses[5].Session, used + 5));
            budget.Visit(harnesses[5].Session, used + JournalHandleBudget.IdleNs - 1);
            Assert.False(stores[5].IsParked);
            budget.Visit(harnesses[5].Session, used + JournalHandleBudget.IdleNs);
            Assert.True(stores[5].IsParked);
            Assert.Equal(long.MaxValue, budget.NextVisitNs(harnesses[5].Session, used + JournalHandleBudget.IdleNs));

            // A journal in use is never parked, however many are open.
            stores[4].AppendAndIncrement(stores[4].NextSenderMsgSeqNum, StoreTestData.Message(1));
            budget.Visit(harnesses[4].Session, later);
            Assert.False(stores[4].IsParked);
        }
        finally
        {
            foreach (SessionHarness? h in harnesses) h?.Dispose();
        }
    }

    [Fact]
    public void AJournalOpenedAboveTheCapIsClosedWhenItsOwnerLeaves()
    {
        if (!OperatingSystem.IsLinux()) return;
        var s = new StringBuilder("[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=1\nStartTime=00:00:00\nEndTime=00:00:00\nBeginString=FIX.4.4\nSenderCompID=GW\n"
            + $"FileStorePath={_directory.Path}\n");
        for (int i = 0; i < 4; i++) s.Append($"[SESSION]\nTargetCompID=C{i}\n");
        // 4 sockets + 256 reserved + 1 left: one journal may stay open.
        JournalHandleBudget budget = JournalHandleBudget.Create(SettingsFile.Parse(s.ToString(), "<cap>"), new EngineConsole(_ => { }),
            limit: 4 + JournalHandleBudget.RuntimeReserve + 1)!;
        Assert.Equal(1, budget.OpenLimit.Cap);
        var options = new FileMessageStoreOptions { SyncPolicy = FileStoreSyncPolicy.OS };
        var storeA = new FileMessageStore(_directory.Path, "a", 5, options);
        var storeB = new FileMessageStore(_directory.Path, "b", 5, options);
        using var a = new SessionHarness("FIX.4.4", store: storeA);
        using var b = new SessionHarness("FIX.4.4", store: storeB);
        budget.ParkNew(a.Session);
        budget.ParkNew(b.Session);
        Assert.True(storeA.IsParked && storeB.IsParked);
        Assert.Equal(0, budget.OpenLimit.Open);

        storeA.AppendAndIncrement(storeA.NextSenderMsgSeqNum, StoreTestData.Message(1));
        Assert.Equal(1, budget.OpenLimit.Open);
        Assert.False(storeA.ParkAfterUse);
        storeB.AppendAndIncrement(storeB.NextSenderMsgSeqNum, StoreTestData.Message(1));
        Assert.Equal(2, budget.OpenLimit.Open);
        Assert.True(storeB.ParkAfterUse);

        // B's owner leaves: B is closed at once; A, within the cap, stays open until idle.
        b.Session.Leave(wakeAgent: false);
        Assert.True(storeB.IsParked);
        Assert.False(storeB.ParkAfterUse);
        a.Session.Leave(wakeAgent: false);
        Assert.False(storeA.IsParked);
        Assert.Equal(1, budget.OpenLimit.Open);

        // B opened above the cap and not left yet (a write outside a session entry): the agent's next visit closes it.
        storeB.AppendAndIncrement(storeB.NextSenderMsgSeqNum, StoreTestData.Message(2));
        Assert.True(storeB.ParkAfterUse);
        budget.Visit(b.Session, 1_000_000_000L);
        Assert.True(storeB.IsParked);
        Assert.Equal(1, budget.OpenLimit.Open);

        // A store disposed with its journal open leaves the count.
        storeA.Dispose();
        Assert.Equal(0, budget.OpenLimit.Open);
    }
}

