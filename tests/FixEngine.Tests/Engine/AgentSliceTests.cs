using System;
using System.Collections.Generic;
using System.Linq;
using System.Text;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Session;
using FixEngine.Store;
using FixEngine.Testing;
using FixEngine.Tests.Session;

namespace FixEngine.Tests.Engine;

/// <summary>Issue 35: past <see cref="EngineAgent.SweepEveryCycleItems"/> items the agent sweeps its connections,
/// sessions and initiators in slices of at most <see cref="EngineAgent.MaxSliceItems"/> per duty cycle, paced to visit
/// each once per <see cref="EngineAgent.SweepIntervalNs"/> (Engine/EngineAgent.cs, "Sweeps"). Before, it swept them all
/// in one duty cycle: at 10,000 sessions a 6-13 ms burst every 100 ms. The agent runs on this thread with a fake clock.</summary>
public sealed class AgentSliceTests
{
    private const int Sessions = 1_000;
    private const long CycleNs = 1_000_000; // the idle strategy's park: a duty cycle a millisecond
    private const long Second = 1_000_000_000L;

    [Fact]
    public void NoDutyCycleVisitsMoreThanASliceAndEverySessionIsVisitedWithinTheSweepInterval()
    {
        using var engine = new AgentOnFakeClock(Sessions);
        engine.Agent.DoWork(engine.Clock.NowNs); // the first duty cycle sweeps all (nothing was visited yet)
        Assert.Equal(1, engine.Agent.FullSweeps);
        long[] lastVisitNs = new long[Sessions];
        Array.Fill(lastVisitNs, engine.Clock.NowNs);
        long[] visits = [.. engine.Slots.Select(s => s.ServiceVisits)];
        long longestGapNs = 0;
        int mostInOneCycle = 0;
        for (int cycle = 0; cycle < 2_500; cycle++)
        {
            engine.Clock.Advance(CycleNs);
            engine.Agent.DoWork(engine.Clock.NowNs);
            int thisCycle = 0;
            for (int i = 0; i < Sessions; i++)
            {
                long v = engine.Slots[i].ServiceVisits;
                if (v == visits[i])
                {
                    longestGapNs = Math.Max(longestGapNs, engine.Clock.NowNs - lastVisitNs[i]);
                    continue;
                }
                thisCycle += (int)(v - visits[i]);
                visits[i] = v;
                lastVisitNs[i] = engine.Clock.NowNs;
            }
            mostInOneCycle = Math.Max(mostInOneCycle, thisCycle);
        }
        Assert.Equal(1, engine.Agent.FullSweeps);
        Assert.True(mostInOneCycle <= EngineAgent.MaxSliceItems, $"one duty cycle visited {mostInOneCycle} sessions");
        Assert.True(longestGapNs < EngineAgent.MaxSweepIntervalNs + CycleNs, $"a session went {longestGapNs / 1_000} µs without a visit");
        Assert.True(engine.Agent.SlicedSweeps >= 2, $"{engine.Agent.SlicedSweeps} sweeps completed in 2.5 s");
    }

    [Fact]
    public void HeartbeatsTestRequestsAndTimeoutsFireWithinTheSweepIntervalOfTheirDueTime()
    {
        using var engine = new AgentOnFakeClock(Sessions);
        long logonNs = engine.Clock.EpochNs;
        FakeConnection[] connections = engine.LogOnAll(heartBtInt: 1);
        engine.Agent.DoWork(engine.Clock.NowNs);
        long[] heartbeatAt = new long[Sessions];
        long[] testRequestAt = new long[Sessions];
        long[] disconnectAt = new long[Sessions];
        int[] seen = [.. connections.Select(c => c.Sent.Count)];
        int mostInOneCycle = 0;
        long[] visits = [.. engine.Slots.Select(s => s.ServiceVisits)];
        while (engine.Clock.EpochNs - logonNs < 2_600_000_000L)
        {
            engine.Clock.Advance(CycleNs);
            engine.Agent.DoWork(engine.Clock.NowNs);
            long at = engine.Clock.EpochNs - logonNs;
            int thisCycle = 0;
            for (int i = 0; i < Sessions; i++)
            {
                thisCycle += (int)(engine.Slots[i].ServiceVisits - visits[i]);
                visits[i] = engine.Slots[i].ServiceVisits;
                FakeConnection c = connections[i];
                for (; seen[i] < c.Sent.Count; seen[i]++)
                {
                    string type = MsgType(c.Sent[seen[i]]);
                    if (type == "0" && heartbeatAt[i] == 0) heartbeatAt[i] = at;
                    if (type == "1" && testRequestAt[i] == 0) testRequestAt[i] = at;
                }
                if (c.Disconnected && disconnectAt[i] == 0) disconnectAt[i] = at;
            }
            mostInOneCycle = Math.Max(mostInOneCycle, thisCycle);
        }
        // The peer stays silent: a Heartbeat at 1 s (or earlier: all 1,000 are due together, and the agent spreads them
        // toward their phases, up to half the interval, and off crowded ticks), a TestRequest at 1.2 s, the disconnect at
        // 2.4 s, each on the timer wheel's duty cycles after its time (all 1,000 come due on one tick: MaxWheelItems a
        // cycle), far within the sweep interval, and no cycle visits more than a slice.
        long late = (Sessions / EngineAgent.MaxWheelItems + 2) * CycleNs;
        AssertWithin(heartbeatAt, 1 * Second, late, "Heartbeat", Second * EngineAgent.MaxPhaseLeadTenths / 10 + EngineAgent.MaxHeartbeatLeadNs + CycleNs);
        AssertWithin(testRequestAt, 12 * Second / 10, late, "TestRequest");
        AssertWithin(disconnectAt, 24 * Second / 10, late, "disconnect");
        // A slice, and the sessions of the last one that sent something (the hot list visits them once more).
        Assert.True(mostInOneCycle <= 2 * EngineAgent.MaxSliceItems, $"one duty cycle visited {mostInOneCycle} sessions");
        Assert.Equal(1, engine.Agent.FullSweeps);
    }

    [Fact]
    public void AFullSweepInWhichEverySessionSentAHeartbeatIsFollowedByHotVisitsOfAtMostTheBoundPerDutyCycle()
    {
        using var engine = new AgentOnFakeClock(Sessions);
        FakeConnection[] connections = engine.LogOnAll(heartBtInt: 1);
        engine.Agent.DoWork(engine.Clock.NowNs);
        // Every session's Heartbeat is due; a signal asks for a full sweep, which sends them all at once.
        engine.Clock.Advance(Second + CycleNs);
        engine.Wakeup.Signal();
        long sweeps = engine.Agent.FullSweeps;
        engine.Agent.DoWork(engine.Clock.NowNs);
        Assert.Equal(sweeps + 1, engine.Agent.FullSweeps);
        Assert.All(connections, c => Assert.Equal("0", MsgType(c.Sent[^1])));
        Assert.Equal(Sessions, engine.Agent.HotWaiting);

        // The sessions that did work are visited once more, at most MaxHotItems per duty cycle, in order, and the agent
        // reports work while some still wait (so it does not park on them).
        int cycles = 0;
        long hotVisits = engine.Agent.HotVisits;
        while (engine.Agent.HotWaiting > 0)
        {
            Assert.True(++cycles <= 10, $"{engine.Agent.HotWaiting} sessions still on the hot list after {cycles} duty cycles");
            int waiting = engine.Agent.HotWaiting;
            engine.Clock.Advance(CycleNs);
            int work = engine.Agent.DoWork(engine.Clock.NowNs);
            long visited = engine.Agent.HotVisits - hotVisits;
            hotVisits = engine.Agent.HotVisits;
            Assert.True(visited <= EngineAgent.MaxHotItems, $"one duty cycle visited {visited} sessions from the hot list");
            Assert.Equal(Math.Min(waiting, EngineAgent.MaxHotItems), visited);
            if (engine.Agent.HotWaiting > 0) Assert.True(work > 0, "the agent reported no work with sessions still waiting");
        }
        Assert.Equal((Sessions + EngineAgent.MaxHotItems - 1) / EngineAgent.MaxHotItems, cycles);
        // Each session was visited at least once after the sweep (from the hot list, or also by a slice).
        long[] visits = [.. engine.Slots.Select(s => s.ServiceVisits)];
        Assert.All(visits, v => Assert.True(v >= 3, $"a session was visited {v} times"));
        Assert.Equal(sweeps + 1, engine.Agent.FullSweeps);
    }

    /// <summary>Branch tail16: between their timers, idle sessions are visited by the sweep's slices once per
    /// <see cref="EngineAgent.MaxSweepIntervalNs"/> (1 s), not ten times a second: with the timer wheel firing the
    /// timers, the slices are a backstop, and at 10,000 sessions their 100 ms pace was half of the agent's CPU. The
    /// backstop still comes by: every session is visited at least once a second.</summary>
    [Fact]
    public void IdleSessionsBetweenTheirTimersAreVisitedOnceASecondNotTenTimes()
    {
        using var engine = new AgentOnFakeClock(Sessions);
        engine.LogOnAll(heartBtInt: 30);
        engine.Agent.DoWork(engine.Clock.NowNs);
        engine.RunCycles(1_000);
        long[] visits = [.. engine.Slots.Select(s => s.ServiceVisits)];
        long[] lastVisitNs = new long[Sessions];
        Array.Fill(lastVisitNs, engine.Clock.NowNs);
        long longestGapNs = 0;
        for (int cycle = 0; cycle < 3_000; cycle++)
        {
            engine.Clock.Advance(CycleNs);
            engine.Agent.DoWork(engine.Clock.NowNs);
            for (int i = 0; i < Sessions; i++)
            {
                if (engine.Slots[i].ServiceVisits == visits[i]) continue;
                longestGapNs = Math.Max(longestGapNs, engine.Clock.NowNs - lastVisitNs[i]);
                lastVisitNs[i] = engine.Clock.NowNs;
                visits[i] = engine.Slots[i].ServiceVisits;
            }
        }
        // No timer is due in these 3 s (HeartBtInt=30): only the backstop visits, about one a second each.
        for (int i = 0; i < Sessions; i++)
        {
            Assert.True(engine.Clock.NowNs - lastVisitNs[i] <= EngineAgent.MaxSweepIntervalNs + EngineAgent.WheelMaxParkNs,
                $"session {i}: not visited for {(engine.Clock.NowNs - lastVisitNs[i]) / 1_000_000} ms");
        }
        Assert.True(longestGapNs <= EngineAgent.MaxSweepIntervalNs + EngineAgent.WheelMaxParkNs, $"a session went {longestGapNs / 1_000_000} ms without a visit");
        Assert.True(longestGapNs >= EngineAgent.MaxSweepIntervalNs / 2, $"sessions were visited every {longestGapNs / 1_000_000} ms or more often");
        Assert.True(engine.Agent.SliceVisits <= 5 * 2 * Sessions, $"{engine.Agent.SliceVisits} slice visits in 4 s for {Sessions} sessions");
    }

    /// <summary>Branch beat13: sessions that logged on one per millisecond send their Heartbeats one per millisecond, each
    /// on the first duty cycle at or after its due time (the timer wheel). The sweep's slices alone found a due Heartbeat
    /// up to the sweep interval late, and found all that came due since the cursor last passed together: here about ten
    /// per duty cycle every 100 ms (at 10,000 sessions, hundreds).</summary>
    [Fact]
    public void HeartbeatsGoOutWhenDueOnePerDutyCycleNotInTheSweepsBursts()
    {
        using var engine = new AgentOnFakeClock(Sessions);
        engine.Agent.DoWork(engine.Clock.NowNs);
        var connections = new FakeConnection[Sessions];
        long[] loggedOnAt = new long[Sessions];
        long[] heartbeatAt = new long[Sessions];
        int[] seen = new int[Sessions];
        int mostInOneCycle = 0;
        for (int cycle = 0; cycle < Sessions + 1_150; cycle++)
        {
            engine.Clock.Advance(CycleNs);
            if (cycle < Sessions)
            {
                connections[cycle] = engine.LogOn(cycle, heartBtInt: 1);
                loggedOnAt[cycle] = engine.Clock.EpochNs;
                seen[cycle] = connections[cycle].Sent.Count;
            }
            engine.Agent.DoWork(engine.Clock.NowNs);
            int heartbeats = 0;
            for (int i = 0; i < Math.Min(cycle + 1, Sessions); i++)
            {
                FakeConnection c = connections[i];
                for (; seen[i] < c.Sent.Count; seen[i]++)
                {
                    if (MsgType(c.Sent[seen[i]]) != "0") continue;
                    heartbeats++;
                    if (heartbeatAt[i] == 0) heartbeatAt[i] = engine.Clock.EpochNs;
                }
            }
            mostInOneCycle = Math.Max(mostInOneCycle, heartbeats);
        }
        // On the duty cycle of its due time, or earlier: at the session's phase point (branch beat14: up to half the
        // interval) or within the agent's lead where the tick was crowded (the agent spreads what would fall on one tick).
        long earliest = Second * EngineAgent.MaxPhaseLeadTenths / 10 + EngineAgent.MaxHeartbeatLeadNs + CycleNs;
        for (int i = 0; i < Sessions; i++)
        {
            long after = heartbeatAt[i] - loggedOnAt[i];
            Assert.True(heartbeatAt[i] != 0, $"session {i}: no Heartbeat");
            Assert.True(after >= Second - earliest && after <= Second + CycleNs,
                $"session {i}: Heartbeat {(after - Second) / 1_000} µs after its due time");
        }
        Assert.True(mostInOneCycle <= 2, $"{mostInOneCycle} Heartbeats in one duty cycle");
        Assert.True(engine.Agent.WheelVisits >= Sessions, $"{engine.Agent.WheelVisits} visits from the wheel");
    }

    /// <summary>Branch beat13: 1,000 sessions that logged on at the same instant have their Heartbeats due on one tick; the
    /// agent spreads them over the ticks up to <see cref="EngineAgent.MaxHeartbeatLeadNs"/> before it, so no duty cycle
    /// sends more than about 1,000 / 51 of them. Without the spread the wheel sent MaxWheelItems per duty cycle, back to
    /// back, and the sweep's slices alone hundreds at a time. Each session sends an application message at the Logon's
    /// instant, so the phases of idle sessions (branch beat14) play no part. HeartBtInt=2 (branch tail16): the sweep's
    /// slices come by each session once a second, and a session first seen less than the lead before its Heartbeat
    /// (possible with HeartBtInt=1) has fewer ticks left to spread to.</summary>
    [Fact]
    public void HeartbeatsDueOnOneTickAreSpreadOverTheLeadBeforeIt()
    {
        using var engine = new AgentOnFakeClock(Sessions);
        long logonNs = engine.Clock.EpochNs;
        FakeConnection[] connections = engine.LogOnAll(heartBtInt: 2);
        foreach (SessionSlot slot in engine.Slots)
        {
            using SessionScope scope = slot.Enter(engine.Clock.EpochNs);
            slot.Session.Send("D"u8, 0, static (ref FixEngine.Codec.FixWriter w, scoped in int _) => w.Write(11, "X"u8), scope.EpochNs);
        }
        engine.Agent.DoWork(engine.Clock.NowNs);
        long[] heartbeatAt = new long[Sessions];
        int[] seen = [.. connections.Select(c => c.Sent.Count)];
        int mostInOneCycle = 0;
        while (engine.Clock.EpochNs - logonNs < 2 * Second + 20 * CycleNs)
        {
            engine.Clock.Advance(CycleNs);
            engine.Agent.DoWork(engine.Clock.NowNs);
            int heartbeats = 0;
            for (int i = 0; i < Sessions; i++)
            {
                FakeConnection c = connections[i];
                for (; seen[i] < c.Sent.Count; seen[i]++)
                {
                    if (MsgType(c.Sent[seen[i]]) != "0") continue;
                    heartbeats++;
                    if (heartbeatAt[i] == 0) heartbeatAt[i] = engine.Clock.EpochNs - logonNs;
                }
            }
            mostInOneCycle = Math.Max(mostInOneCycle, heartbeats);
        }
        AssertWithin(heartbeatAt, 2 * Second, CycleNs, "Heartbeat", EngineAgent.MaxHeartbeatLeadNs + CycleNs);
        long ticks = EngineAgent.MaxHeartbeatLeadNs / EngineAgent.WheelTickNs + 1;
        Assert.True(mostInOneCycle <= Sessions / ticks + 2 * EngineAgent.CrowdedTick, $"{mostInOneCycle} Heartbeats in one duty cycle");
        Assert.True(engine.Agent.EarlyHeartbeatVisits >= Sessions / 2, $"{engine.Agent.EarlyHeartbeatVisits} early visits");
    }

    /// <summary>Branch beat14: 1,000 sessions that logged on at one instant keep their Heartbeats together with the
    /// crowded-tick spread alone (all within its 50 ms lead, every interval: at 10,000 sessions that logged on within
    /// 2 s, 5 a millisecond for 2 s of each 5). Sessions idle on their side move their Heartbeats toward their phases,
    /// spread over the whole interval: from the third interval on every 10 ms of the interval holds some and none holds
    /// more than a few times its share, each session sends one Heartbeat per interval, and no Heartbeat goes later than
    /// HeartBtInt after the session's last send or earlier than <see cref="EngineAgent.MaxPhaseLeadTenths"/>
    /// tenths of it.</summary>
    [Fact]
    public void HeartbeatsOfSessionsThatLoggedOnTogetherSpreadOverTheInterval()
    {
        using var engine = new AgentOnFakeClock(Sessions);
        long logonNs = engine.Clock.EpochNs;
        FakeConnection[] connections = engine.LogOnAll(heartBtInt: 1);
        // The peers are alive: bytes of theirs wait unread, so no TestRequest goes out (for 4.8 intervals).
        foreach (FakeConnection c in connections) c.UnreadInboundBytes = 1;
        engine.Agent.DoWork(engine.Clock.NowNs);
        int[] seen = [.. connections.Select(c => c.Sent.Count)];
        long[] lastSentNs = new long[Sessions];
        Array.Fill(lastSentNs, logonNs);
        long shortestGapNs = long.MaxValue, longestGapNs = 0;
        int[] perBucket = new int[100]; // 10 ms buckets of the fourth second after the Logons
        int[] inFourthSecond = new int[Sessions];
        while (engine.Clock.EpochNs - logonNs < 4 * Second)
        {
            engine.Clock.Advance(CycleNs);
            engine.Agent.DoWork(engine.Clock.NowNs);
            long sinceLogonNs = engine.Clock.EpochNs - logonNs;
            for (int i = 0; i < Sessions; i++)
            {
                FakeConnection c = connections[i];
                for (; seen[i] < c.Sent.Count; seen[i]++)
                {
                    Assert.Equal("0", MsgType(c.Sent[seen[i]]));
                    long gapNs = engine.Clock.EpochNs - lastSentNs[i];
                    (shortestGapNs, longestGapNs) = (Math.Min(shortestGapNs, gapNs), Math.Max(longestGapNs, gapNs));
                    lastSentNs[i] = engine.Clock.EpochNs;
                    if (sinceLogonNs <= 3 * Second) continue;
                    perBucket[Math.Min((int)((sinceLogonNs - 3 * Second - 1) / (10 * CycleNs)), 99)]++;
                    inFourthSecond[i]++;
                }
            }
        }
        Assert.True(longestGapNs <= Second + CycleNs, $"a Heartbeat went {(longestGapNs - Second) / 1_000} µs late");
        Assert.True(shortestGapNs >= Second * EngineAgent.MaxPhaseLeadTenths / 10 - EngineAgent.MaxHeartbeatLeadNs - CycleNs,
            $"a Heartbeat went {shortestGapNs / 1_000_000} ms after the last send");
        Assert.All(inFourthSecond, n => Assert.Equal(1, n));
        int empty = perBucket.Count(n => n == 0);
        Assert.True(empty == 0, $"{empty} of 100 buckets of 10 ms held no Heartbeat: [{string.Join(", ", perBucket)}]");
        Assert.True(perBucket.Max() <= 3 * Sessions / 100, $"a bucket of 10 ms held {perBucket.Max()} Heartbeats: [{string.Join(", ", perBucket)}]");
    }

    /// <summary>Branch beat14: a session whose last send was an application message keeps its Heartbeat at HeartBtInt
    /// after that send (up to the crowded-tick lead): moving it to the session's phase would add a Heartbeat to a
    /// session that sends now and then. Sessions that sent nothing but Heartbeats have moved theirs by then.</summary>
    [Fact]
    public void AHeartbeatAfterAnApplicationMessageIsNotMovedToItsPhase()
    {
        using var engine = new AgentOnFakeClock(Sessions);
        long logonNs = engine.Clock.EpochNs;
        FakeConnection[] connections = engine.LogOnAll(heartBtInt: 1);
        foreach (FakeConnection c in connections) c.UnreadInboundBytes = 1; // the peers are alive (no TestRequest)
        engine.Agent.DoWork(engine.Clock.NowNs);
        const int sending = 100;
        long[] appSentNs = new long[sending];
        int[] seen = new int[Sessions];
        long[] firstHeartbeatNs = new long[Sessions];
        while (engine.Clock.EpochNs - logonNs < 3 * Second)
        {
            engine.Clock.Advance(CycleNs);
            long sinceLogonNs = engine.Clock.EpochNs - logonNs;
            if (sinceLogonNs == 300 * CycleNs)
            {
                // Sessions 0-99 send an application message (as an application thread would, entering the session).
                for (int i = 0; i < sending; i++)
                {
                    using SessionScope scope = engine.Slots[i].Enter(engine.Clock.EpochNs);
                    engine.Slots[i].Session.Send("D"u8, 0, static (ref FixEngine.Codec.FixWriter w, scoped in int _) => w.Write(11, "X"u8), scope.EpochNs);
                    appSentNs[i] = engine.Clock.EpochNs;
                }
                for (int i = 0; i < Sessions; i++) seen[i] = connections[i].Sent.Count;
            }
            engine.Agent.DoWork(engine.Clock.NowNs);
            if (sinceLogonNs <= 300 * CycleNs) continue;
            for (int i = 0; i < Sessions; i++)
            {
                FakeConnection c = connections[i];
                for (; seen[i] < c.Sent.Count; seen[i]++)
                {
                    if (MsgType(c.Sent[seen[i]]) == "0" && firstHeartbeatNs[i] == 0) firstHeartbeatNs[i] = engine.Clock.EpochNs;
                }
            }
        }
        for (int i = 0; i < sending; i++)
        {
            long afterNs = firstHeartbeatNs[i] - appSentNs[i];
            Assert.True(afterNs >= Second - EngineAgent.MaxHeartbeatLeadNs - CycleNs && afterNs <= Second + CycleNs,
                $"session {i}: Heartbeat {(afterNs - Second) / 1_000} µs from HeartBtInt after its application message");
        }
        // The others are idle on their side: their first Heartbeats went toward their phases (up to half the interval
        // early), not within the crowded-tick lead before HeartBtInt after the Logon.
        int moved = 0;
        for (int i = sending; i < Sessions; i++)
        {
            Assert.True(firstHeartbeatNs[i] != 0, $"session {i}: no Heartbeat");
            if (firstHeartbeatNs[i] - logonNs < Second - 2 * EngineAgent.MaxHeartbeatLeadNs) moved++;
        }
        Assert.True(moved >= (Sessions - sending) / 2, $"{moved} idle sessions sent their first Heartbeat before 900 ms");
    }

    /// <summary>Branch beat14: the phase point of a Heartbeat: on the session's phase in its interval, at or before the
    /// due time, at most <see cref="EngineAgent.MaxPhaseLeadTenths"/> tenths of the interval early, and exact for
    /// HeartBtInt values whose nanoseconds times 2^32 overflow 64 bits.</summary>
    [Theory]
    [InlineData(1)]
    [InlineData(5)]
    [InlineData(30)]
    [InlineData(86_400)]
    public void APhasePointLiesOnThePhaseAtMostTheCapBeforeTheDueTime(int heartBtInt)
    {
        long intervalNs = heartBtInt * Second;
        long capNs = intervalNs * EngineAgent.MaxPhaseLeadTenths / 10;
        var random = new Random(35);
        for (int k = 0; k < 1_000; k++)
        {
            uint phase = (uint)random.NextInt64(0, 1L << 32);
            long dueNs = 1_780_000_000_000_000_000L + random.NextInt64(0, 100 * intervalNs);
            long pointNs = EngineAgent.PhasePointNs(dueNs, heartBtInt, phase);
            long offsetNs = (long)((decimal)phase * intervalNs / 4_294_967_296m);
            Assert.InRange(dueNs - pointNs, 0, capNs);
            long behindNs = ((dueNs - offsetNs) % intervalNs + intervalNs) % intervalNs;
            if (intervalNs - behindNs <= EngineAgent.PhaseSlackNs) Assert.Equal(dueNs, pointNs);
            else if (behindNs <= capNs) Assert.InRange(Math.Abs(((pointNs - offsetNs) % intervalNs + intervalNs) % intervalNs), 0, 1);
            else Assert.Equal(dueNs - capNs, pointNs);
        }
        Assert.Equal(long.MaxValue, EngineAgent.PhasePointNs(long.MaxValue, heartBtInt, 7));
        Assert.Equal(123L, EngineAgent.PhasePointNs(123L, 0, 7));
    }

    /// <summary>Branch beat13: with the timer wheel in use (Heartbeats and TestRequests of sessions that logged on one per
    /// millisecond coming due every duty cycle), a duty cycle allocates nothing once the wheel's lists have grown.</summary>
    [Fact]
    public void DutyCyclesWithTheWheelFiringAllocateNothing()
    {
        using var engine = new AgentOnFakeClock(Sessions);
        engine.Agent.DoWork(engine.Clock.NowNs);
        var connections = new FakeConnection[Sessions];
        for (int cycle = 0; cycle < Sessions; cycle++)
        {
            engine.Clock.Advance(CycleNs);
            connections[cycle] = engine.LogOn(cycle, heartBtInt: 1);
            connections[cycle].CaptureEnabled = false;
            engine.Agent.DoWork(engine.Clock.NowNs);
        }
        // Heartbeats from 1 s after each Logon, TestRequests from 1.2 s (the fake peer stays silent).
        engine.RunCycles(300);
        long wheelVisits = engine.Agent.WheelVisits;
        long sent = connections.Sum(c => c.SentCount);
        long before = GC.GetAllocatedBytesForCurrentThread();
        engine.RunCycles(600);
        long allocated = GC.GetAllocatedBytesForCurrentThread() - before;
        Assert.Equal(0, allocated);
        Assert.True(engine.Agent.WheelVisits - wheelVisits >= 500, $"{engine.Agent.WheelVisits - wheelVisits} visits from the wheel");
        Assert.True(connections.Sum(c => c.SentCount) - sent >= 500, "no Heartbeat or TestRequest was sent");
    }

    [Fact]
    public void AStopLogsOutEverySessionAtOnce()
    {
        using var engine = new AgentOnFakeClock(Sessions);
        FakeConnection[] connections = engine.LogOnAll(heartBtInt: 30);
        engine.RunCycles(10);
        Assert.True(engine.Agent.BeginStop());
        engine.RunCycles(1);
        Assert.All(connections, c => Assert.Equal("5", MsgType(c.Sent[^1])));
        Assert.False(engine.Agent.AllLoggedOut);
    }

    [Fact]
    public void SlicedDutyCyclesAllocateNothing()
    {
        using var engine = new AgentOnFakeClock(Sessions);
        engine.Agent.DoWork(engine.Clock.NowNs);
        engine.RunCycles(300);
        long sweeps = engine.Agent.SlicedSweeps;
        long before = GC.GetAllocatedBytesForCurrentThread();
        engine.RunCycles(1_000);
        long allocated = GC.GetAllocatedBytesForCurrentThread() - before;
        Assert.Equal(0, allocated);
        Assert.True(engine.Agent.SlicedSweeps > sweeps, "no sweep completed");
        Assert.Equal(1, engine.Agent.FullSweeps);
    }

    private static void AssertWithin(long[] at, long dueNs, long lateNs, string what, long earlyNs = 0)
    {
        for (int i = 0; i < at.Length; i++)
        {
            Assert.True(at[i] != 0, $"session {i}: no {what}");
            Assert.True(at[i] >= dueNs - earlyNs && at[i] <= dueNs + lateNs, $"session {i}: {what} at {at[i] / 1_000_000} ms, due at {dueNs / 1_000_000} ms");
        }
    }

    private static string MsgType(byte[] message)
    {
        string text = Encoding.ASCII.GetString(message);
        int start = text.IndexOf("\u000135=", StringComparison.Ordinal) + 4;
        return text.Substring(start, text.IndexOf('\u0001', start) - start);
    }

    /// <summary>An engine agent over <c>n</c> gated acceptor sessions (as completion-mode sessions are), on a fake clock.</summary>
    private sealed class AgentOnFakeClock : IDisposable
    {
        private readonly FixEngine.Timing.IdleWakeup _wakeup = new();

        public AgentOnFakeClock(int n)
        {
            Clock = new FakeClock(nowNs: 1_000_000_000L, epochNs: new DateTimeOffset(2026, 1, 5, 12, 0, 0, TimeSpan.Zero).ToUnixTimeMilliseconds() * 1_000_000L);
            Slots = new List<SessionSlot>(n);
            Agent = new EngineAgent(Slots, new EpochAnchor(Clock), new EngineConsole(null), logonTimeoutSeconds: 10, wakeup: _wakeup);
            for (int i = 0; i < n; i++)
            {
                var session = new FixSession(new SessionSettings
                {
                    ConnectionType = ConnectionType.Acceptor, BeginString = "FIX.4.4", SenderCompID = "EXEC", TargetCompID = "C" + i,
                    SocketAcceptPort = 7001, NonStopSession = true, UseDataDictionary = false,
                }, new EchoApp(), new MemoryMessageStore(0));
                session.AgentWakeup = _wakeup;
                var slot = new SessionSlot(session, guarded: true, () => Clock.EpochNs);
                session.AgentServiceRequest = () => Agent.RequestService(slot);
                Agent.AddInitial(slot);
            }
        }

        public FakeClock Clock { get; }

        /// <summary>Runs <paramref name="count"/> duty cycles, the fake clock advanced by one cycle before each.</summary>
        public void RunCycles(int count)
        {
            for (int cycle = 0; cycle < count; cycle++)
            {
                Clock.Advance(CycleNs);
                Agent.DoWork(Clock.NowNs);
            }
        }

        /// <summary>The agent's wake-up (Signal asks it for a full sweep).</summary>
        public FixEngine.Timing.IdleWakeup Wakeup => _wakeup;

        public List<SessionSlot> Slots { get; }

        public EngineAgent Agent { get; }

        /// <summary>Connects every session to a fake connection and takes the peer's Logon (this thread enters each).</summary>
        public FakeConnection[] LogOnAll(int heartBtInt)
        {
            var connections = new FakeConnection[Slots.Count];
            for (int i = 0; i < Slots.Count; i++) connections[i] = LogOn(i, heartBtInt);
            return connections;
        }

        /// <summary>Connects session <paramref name="i"/> to a fake connection and takes the peer's Logon (this thread enters it).</summary>
        public FakeConnection LogOn(int i, int heartBtInt)
        {
            var connection = new FakeConnection();
            SessionSlot slot = Slots[i];
            using SessionScope scope = slot.Enter(Clock.EpochNs);
            slot.Connect(connection, scope.EpochNs);
            slot.Session.OnMessage(Logon("C" + i, heartBtInt), scope.EpochNs);
            Assert.True(slot.Session.IsLoggedOn, $"session {i} did not log on");
            return connection;
        }

        private byte[] Logon(string sender, int heartBtInt)
        {
            string time = DateTime.UnixEpoch.AddTicks(Clock.EpochNs / 100).ToString("yyyyMMdd-HH:mm:ss.fff", System.Globalization.CultureInfo.InvariantCulture);
            string body = $"35=A\u000149={sender}\u000156=EXEC\u000134=1\u000152={time}\u000198=0\u0001108={heartBtInt}\u0001";
            string head = $"8=FIX.4.4\u00019={body.Length}\u0001";
            int sum = 0;
            foreach (char ch in head + body) sum += ch;
            return Encoding.ASCII.GetBytes(head + body + "10=" + (sum % 256).ToString("D3", System.Globalization.CultureInfo.InvariantCulture) + "\u0001");
        }

        public void Dispose()
        {
            foreach (SessionSlot slot in Slots) slot.Session.Dispose();
            _wakeup.Dispose();
        }
    }
}
