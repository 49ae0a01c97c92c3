using System.Collections.Generic;
using System.Threading;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Session;
using FixEngine.Store;
using FixEngine.Testing;

namespace FixEngine.Tests.Engine;

/// <summary>Issue 35: a message handed over (TrySendFromAnyThread) while another thread holds its session asks the engine
/// agent to service that session alone (<see cref="EngineAgent.RequestService"/>). Before, it signalled the agent's
/// wake-up, which made the next duty cycle sweep every session: with 10,000 sessions and an application sending from its
/// own threads, hundreds of O(N) sweeps a second on the agent.</summary>
public sealed class AgentServiceRequestTests
{
    private const int Sessions = 300;

    [Fact]
    public void AHandOverWhileTheGateIsHeldIsServicedAloneWithoutASweepOfEverySession()
    {
        var clock = new FakeClock(nowNs: 1_000_000_000L, epochNs: SessionPeriod());
        var wakeup = new FixEngine.Timing.IdleWakeup();
        var slots = new List<SessionSlot>(Sessions);
        var agent = new EngineAgent(slots, new EpochAnchor(clock), new EngineConsole(null), logonTimeoutSeconds: 10, wakeup: wakeup);
        for (int i = 0; i < Sessions; i++)
        {
            var session = new FixSession(new SessionSettings
            {
                ConnectionType = ConnectionType.Acceptor, BeginString = "FIX.4.4", SenderCompID = "EXEC", TargetCompID = "C" + i,
                SocketAcceptPort = 7001, NonStopSession = true, UseDataDictionary = false,
            }, new NoApplication(), new MemoryMessageStore(0));
            session.AgentWakeup = wakeup;
            var slot = new SessionSlot(session, guarded: true, () => clock.EpochNs);
            session.AgentServiceRequest = () => agent.RequestService(slot);
            agent.AddInitial(slot);
        }
        try
        {
            // The first duty cycle sweeps all; the next ones (well within the sweep interval) service only the hot list.
            agent.DoWork(clock.NowNs);
            clock.NowNs += 1_000;
            agent.DoWork(clock.NowNs);
            Assert.Equal(1, agent.FullSweeps);
            Assert.Equal(0, agent.HotVisits);

            // Another thread holds session 7 (as a receiving thread does) while this one hands a message over.
            SessionSlot held = slots[7];
            using var holding = new ManualResetEventSlim(false);
            using var handedOver = new ManualResetEventSlim(false);
            var receiver = new Thread(() =>
            {
                using (held.Enter(clock.EpochNs))
                {
                    holding.Set();
                    handedOver.Wait();
                }
            });
            receiver.Start();
            holding.Wait();
            Assert.True(held.Session.TrySendFromAnyThread(MsgTypes.NewOrderSingle, 0, static (ref FixWriter w, scoped in int _) => w.Write(FixTags.ClOrdID, "1"u8)));
            handedOver.Set();
            receiver.Join();
            Assert.Equal(1, held.ServiceRequested);
            Assert.True(wakeup.IsSignalled, "the agent was not woken");

            clock.NowNs += 1_000;
            agent.DoWork(clock.NowNs);
            Assert.Equal(1, agent.FullSweeps);
            Assert.Equal(1, agent.HotVisits);
            Assert.Equal(0, held.ServiceRequested);
        }
        finally
        {
            foreach (SessionSlot slot in slots) slot.Session.Dispose();
            wakeup.Dispose();
        }
    }

    /// <summary>A session already on the hot list (its gate busy) that is also asked for is serviced once per duty cycle:
    /// the hot list holds it once. Without that, each request added it again and its visits per cycle grew by one.</summary>
    [Fact]
    public void ASessionAskedForWhileOnTheHotListIsServicedOncePerDutyCycle()
    {
        const int Cycles = 5;
        var clock = new FakeClock(nowNs: 1_000_000_000L, epochNs: SessionPeriod());
        var wakeup = new FixEngine.Timing.IdleWakeup();
        var slots = new List<SessionSlot>(Sessions);
        var agent = new EngineAgent(slots, new EpochAnchor(clock), new EngineConsole(null), logonTimeoutSeconds: 10, wakeup: wakeup);
        for (int i = 0; i < Sessions; i++)
        {
            var session = new FixSession(new SessionSettings
            {
                ConnectionType = ConnectionType.Acceptor, BeginString = "FIX.4.4", SenderCompID = "EXEC", TargetCompID = "C" + i,
                SocketAcceptPort = 7001, NonStopSession = true, UseDataDictionary = false,
            }, new NoApplication(), new MemoryMessageStore(0));
            agent.AddInitial(new SessionSlot(session, guarded: true, () => clock.EpochNs));
        }
        SessionSlot held = slots[7];
        using var holding = new ManualResetEventSlim(false);
        using var release = new ManualResetEventSlim(false);
        var receiver = new Thread(() =>
        {
            using (held.Enter(clock.EpochNs))
            {
                holding.Set();
                release.Wait();
            }
        });
        try
        {
            agent.DoWork(clock.NowNs);
            Assert.Equal(1, agent.FullSweeps);
            receiver.Start();
            holding.Wait();
            // Each cycle: asked for again while its gate stays busy (within SessionSlot.MaxServiceDelayNs, so skipped).
            for (int cycle = 0; cycle < Cycles; cycle++)
            {
                agent.RequestService(held);
                clock.NowNs += 1_000;
                agent.DoWork(clock.NowNs);
            }
            Assert.Equal(1, agent.FullSweeps);
            Assert.Equal(Cycles, agent.HotVisits);
        }
        finally
        {
            release.Set();
            if (receiver.IsAlive) receiver.Join();
            foreach (SessionSlot slot in slots) slot.Session.Dispose();
            wakeup.Dispose();
        }
    }

    private static long SessionPeriod() => new System.DateTimeOffset(2026, 1, 5, 12, 0, 0, System.TimeSpan.Zero).ToUnixTimeMilliseconds() * 1_000_000L;

    private sealed class NoApplication : IApplication
    {
        public FromAppResult FromApp(FixSession session, FixMessage message) => FromAppResult.Accepted;
    }
}
