using System;
using System.Linq;
using FixEngine.Tests.Session;

namespace FixEngine.Tests.Diagnostics;

/// <summary>The diagnostics' allocation set-up: a logged-on FIX.4.4 session (SessionHarness, nothing captured) and
/// windows of <see cref="Count"/> NewOrderSingles received in a row, each window starting from the same numbers.</summary>
internal sealed class OrderWindows : IDisposable
{
    public const int Count = 5_000;
    private readonly byte[][] _frames = new byte[Count][];

    /// <param name="beforeLogon">Runs on the session before its Logon (e.g. gives it a latency recorder).</param>
    public OrderWindows(Action<SessionHarness>? beforeLogon = null)
    {
        H = new SessionHarness("FIX.4.4", s => s with { ResetOnLogon = false }, store: SessionHarness.ReservedStore());
        H.Connection.CaptureEnabled = false;
        beforeLogon?.Invoke(H);
        H.Session.OnMessage(H.Build("35=A|34=1|98=0|108=30"), H.Now);
        Assert.True(H.Session.IsLoggedOn);
        for (int i = 0; i < Count; i++) _frames[i] = H.Build($"35=D|34={i + 2}|11=ID{i}|21=3|38=100|40=1|54=1|55=INTC|60={H.Time()}");
    }

    public SessionHarness H { get; }

    /// <summary>One window: the bytes this thread allocated while the session took <see cref="Count"/> orders.</summary>
    public long Run()
    {
        H.Session.ResetSequenceNumbers(H.Now);
        H.Store.SetNextTargetMsgSeqNum(2);
        H.Session.Poll(H.Now);
        long before = GC.GetAllocatedBytesForCurrentThread();
        for (int i = 0; i < Count; i++) H.Session.OnMessage(_frames[i], H.Now);
        H.Session.Poll(H.Now);
        return GC.GetAllocatedBytesForCurrentThread() - before;
    }

    /// <summary>A warm-up window, then three measured ones. A per-message allocation shows in every window; a one-time
    /// runtime effect (a method's tier-1 code installed while the window runs) in one at most: judge by the least.</summary>
    public long[] Measure()
    {
        Run();
        return [Run(), Run(), Run()];
    }

    public static string Describe(long[] windows) => string.Join(", ", windows.Select(w => w.ToString(System.Globalization.CultureInfo.InvariantCulture)));

    public void Dispose() => H.Dispose();
}
