using System.Threading;
using FixEngine.Codec;

namespace FixEngine.Tests.Session;

/// <summary>The one route into a gated session from another thread (docs/architecture.md, "Who runs a session"): a
/// sender hands its message over, then enters the gate only when it is free; a message handed over while another thread
/// holds the session is sent by that holder when it leaves (FixSession.Leave), never left behind.</summary>
public sealed class SessionGateTests
{
    private static void News(ref FixWriter w, scoped in int n)
    {
        w.Write(148, "news"u8);
        w.Write(33, 1);
        w.Write(58, n);
    }

    [Fact]
    public void AMessageHandedOverWhileTheSessionIsHeldIsSentByTheHolderWhenItLeaves()
    {
        using var h = new SessionHarness();
        h.Logon();
        // Senders may enter a free gate (a clock is given); this one finds it held by the test thread.
        h.Session.UseGate(() => h.Now);
        long epochNs = h.Session.Enter(h.Now);
        Assert.Equal(h.Now, epochNs);
        var sender = new Thread(() => Assert.True(h.Session.TrySendFromAnyThread("B"u8, 7L, 1, News)));
        sender.Start();
        Assert.True(sender.Join(10_000), "the sender waited for the held gate");
        h.ExpectNothing();
        h.Session.Leave();
        Sent news = h.Expect("B");
        Assert.Equal("1", news[58]);
        h.ExpectNothing();
    }

    [Fact]
    public void ASenderThatFindsTheGateFreeSendsOnItsOwnThread()
    {
        using var h = new SessionHarness();
        h.Logon();
        h.Session.UseGate(() => h.Now);
        var sender = new Thread(() => Assert.True(h.Session.TrySendFromAnyThread("B"u8, 8L, 2, News)));
        sender.Start();
        Assert.True(sender.Join(10_000));
        Sent news = h.Expect("B");
        Assert.Equal("2", news[58]);
    }

    [Fact]
    public void WithoutAClockASenderNeverEntersAndTheNextHolderSends()
    {
        using var h = new SessionHarness();
        h.Logon();
        h.Session.UseGate(null);
        var sender = new Thread(() => Assert.True(h.Session.TrySendFromAnyThread("B"u8, 9L, 3, News)));
        sender.Start();
        Assert.True(sender.Join(10_000));
        h.ExpectNothing();
        h.Session.Enter(h.Now);
        h.Session.Leave();
        Assert.Equal("3", h.Expect("B")[58]);
    }

    [Fact]
    public void AGatedSessionsTimeNeverGoesBackAndItsHolderOwnsSend()
    {
        using var h = new SessionHarness();
        h.Logon();
        h.Session.UseGate(null);
        Assert.Equal(h.Now + 2_000, h.Session.Enter(h.Now + 2_000));
        h.Session.Leave();
        // A thread that read its clock earlier arrives second: it is given the later time.
        Assert.Equal(h.Now + 2_000, h.Session.Enter(h.Now + 1_000));
        h.Session.Leave();
        // Another thread that entered (and left) owns the session now: Send on this thread is refused.
        var other = new Thread(() =>
        {
            h.Session.Enter(h.Now + 3_000);
            h.Session.Leave();
        });
        other.Start();
        other.Join();
        Assert.Throws<System.InvalidOperationException>(() => h.Session.Send("B"u8, 4, News));
    }
}
