using System.Threading;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Session;
using FixEngine.Store;

namespace FixEngine.Tests.Engine;

/// <summary><see cref="SessionSlot.Enter"/>, the one way into a session: a gated session is held by one thread at a time
/// and its time never goes back when threads bring theirs out of order; a busy-poll session has no gate; the agent's
/// <see cref="SessionSlot.EnterForService"/> skips a busy gate within its delay bound.</summary>
public sealed class SessionScopeTests
{
    private static FixSession NewSession() => new(new SessionSettings
    {
        ConnectionType = ConnectionType.Acceptor, BeginString = "FIX.4.4", SenderCompID = "EXEC", TargetCompID = "CLIENT",
        SocketAcceptPort = 7001, NonStopSession = true, UseDataDictionary = false,
    }, new NoApplication(), new MemoryMessageStore(0));

    [Fact]
    public void AGatedSessionsTimeNeverGoesBack()
    {
        using FixSession session = NewSession();
        var slot = new SessionSlot(session, guarded: true);
        using (SessionScope scope = slot.Enter(2_000)) Assert.Equal(2_000, scope.EpochNs);
        // A completion thread that read the clock before the agent's later duty cycle arrives second.
        using (SessionScope scope = slot.Enter(1_500)) Assert.Equal(2_000, scope.EpochNs);
        using (SessionScope scope = slot.Enter(3_000)) Assert.Equal(3_000, scope.EpochNs);
        Assert.Equal(0, slot.GateWaits);
    }

    [Fact]
    public void ABusyPollSessionHasNoGateAndTakesTheTimeGiven()
    {
        using FixSession session = NewSession();
        var slot = new SessionSlot(session, guarded: false);
        Assert.False(slot.Guarded);
        using (SessionScope scope = slot.Enter(2_000)) Assert.Equal(2_000, scope.EpochNs);
        using (SessionScope scope = slot.Enter(1_500)) Assert.Equal(1_500, scope.EpochNs);
    }

    [Fact]
    public void AGatedSessionIsHeldByOneThreadAtATime()
    {
        using FixSession session = NewSession();
        var slot = new SessionSlot(session, guarded: true);
        bool enteredWhileHeld = false;
        using var holding = new ManualResetEventSlim(false);
        using var released = new ManualResetEventSlim(false);
        var other = new Thread(() =>
        {
            holding.Wait();
            using (slot.Enter(0)) enteredWhileHeld = !released.IsSet;
        });
        other.Start();
        using (slot.Enter(0))
        {
            holding.Set();
            // The other thread must wait for this scope; a gate that let it in would be seen here within the bound.
            Assert.False(SpinWait.SpinUntil(() => other.ThreadState == ThreadState.Stopped, 200));
            // ... and is counted as a gate wait (the diagnostic FIXENGINE_GATE_TRACE prints) before it blocks.
            Assert.True(SpinWait.SpinUntil(() => slot.GateWaits == 1, System.TimeSpan.FromSeconds(20)), "the waiting thread was not counted");
            released.Set();
        }
        other.Join();
        Assert.False(enteredWhileHeld);
        // Uncontended entries are not counted.
        using (slot.Enter(0)) Assert.Equal(1, slot.GateWaits);
    }

    [Fact]
    public void TheAgentSkipsABusyGateUntilItsDelayBoundThenWaitsForIt()
    {
        using FixSession session = NewSession();
        var slot = new SessionSlot(session, guarded: true);
        using var holding = new ManualResetEventSlim(false);
        using var release = new ManualResetEventSlim(false);
        var receiver = new Thread(() =>
        {
            // A receiving thread inside the session (processing a message).
            using (slot.Enter(0))
            {
                holding.Set();
                release.Wait();
            }
        });
        receiver.Start();
        holding.Wait();

        // Refused while the receiver holds the gate, for up to MaxServiceDelayNs of the agent's time: the agent goes on.
        const long T0 = 5_000_000_000L;
        using (SessionScope scope = slot.EnterForService(1_000, T0)) Assert.False(scope.Entered);
        using (SessionScope scope = slot.EnterForService(1_000, T0 + SessionSlot.MaxServiceDelayNs - 1)) Assert.False(scope.Entered);

        // Past the bound the agent waits for the gate: it gets it once the receiver leaves.
        bool entered = false;
        long epochNs = 0;
        var agent = new Thread(() =>
        {
            using SessionScope scope = slot.EnterForService(2_000, T0 + SessionSlot.MaxServiceDelayNs);
            entered = scope.Entered;
            epochNs = scope.EpochNs;
        });
        agent.Start();
        Assert.False(agent.Join(200), "the agent did not wait for the gate past its delay bound");
        release.Set();
        receiver.Join();
        agent.Join();
        Assert.True(entered);
        Assert.Equal(2_000, epochNs);

        // A free gate is taken at once, and the refusal count starts again.
        using (SessionScope scope = slot.EnterForService(3_000, T0 + 10 * SessionSlot.MaxServiceDelayNs))
        {
            Assert.True(scope.Entered);
            Assert.Equal(3_000, scope.EpochNs);
        }
    }

    [Fact]
    public void TheAgentAlwaysEntersABusyPollSession()
    {
        using FixSession session = NewSession();
        var slot = new SessionSlot(session, guarded: false);
        using SessionScope scope = slot.EnterForService(1_000, 0);
        Assert.True(scope.Entered);
        Assert.Equal(1_000, scope.EpochNs);
    }

    private sealed class NoApplication : IApplication
    {
        public FromAppResult FromApp(FixSession session, FixMessage message) => FromAppResult.Accepted;
    }
}
