using System.Threading;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Session;
using FixEngine.Store;

namespace FixEngine.Tests.Engine;

/// <summary><see cref="SessionSlot.Enter"/>, the one way into a session: a gated session is held by one thread at a time
/// and its time never goes back when threads bring theirs out of order; a busy-poll session has no gate.</summary>
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
    }

    [Fact]
    public void ABusyPollSessionHasNoGateAndTakesTheTimeGiven()
    {
        using FixSession session = NewSession();
        var slot = new SessionSlot(session, guarded: false);
        Assert.Null(slot.Gate);
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
            released.Set();
        }
        other.Join();
        Assert.False(enteredWhileHeld);
    }

    private sealed class NoApplication : IApplication
    {
        public FromAppResult FromApp(FixSession session, FixMessage message) => FromAppResult.Accepted;
    }
}
