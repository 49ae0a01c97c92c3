using System;
using FixEngine.Codec;
using FixEngine.Session;
using FixEngine.Tests.Infrastructure;

namespace FixEngine.Tests.Session;

[Collection(nameof(AllocationMeasurement))]
public sealed class SessionAllocationTests
{
    [Fact]
    public void InboundAppMessagesAndRepliesAllocateNothingAfterWarmUp()
    {
        using var h = new SessionHarness("FIX.4.4", s => s with { ResetOnLogon = false }, store: SessionHarness.ReservedStore());
        h.Connection.CaptureEnabled = false;
        h.Session.OnMessage(h.Build("35=A|34=1|98=0|108=30"), h.Now);
        Assert.True(h.Session.IsLoggedOn);
        const int count = 10_000;
        // Pre-encode the inbound orders (the test's own allocations stay out of the measurement).
        var frames = new byte[count][];
        for (int i = 0; i < count; i++) frames[i] = h.Build($"35=D|34={i + 2}|11=ID{i}|21=3|38=100|40=1|54=1|55=INTC|60={h.Time()}");

        for (int i = 0; i < count; i++) h.Session.OnMessage(frames[i], h.Now);
        Assert.Equal(count + 2, h.Session.NextTargetMsgSeqNum);
        // Best of up to three windows, each from the same sequence state.
        var windows = new System.Collections.Generic.List<long>();
        long best = Allocations.BestWindow(prepare: () => ResetSequenceNumbers(h), window: () =>
        {
            for (int i = 0; i < count; i++) h.Session.OnMessage(frames[i], h.Now);
            h.Session.Poll(h.Now);
        }, windows: windows);

        Assert.Equal(count + 2, h.Session.NextTargetMsgSeqNum);
        Assert.Equal(count + 1, h.Session.NextSenderMsgSeqNum);
        Assert.True(h.Connection.SentCount >= 2 * count, "replies were sent");
        Assert.True(best == 0, $"bytes allocated per window of {count} orders and replies: {string.Join(", ", windows)}");
    }

    // Both sequence numbers back to the start (inbound next expected 2, after the Logon), so a window repeats the last.
    private static void ResetSequenceNumbers(SessionHarness h)
    {
        h.Session.ResetSequenceNumbers(h.Now);
        h.Store.SetNextTargetMsgSeqNum(2);
        h.Session.Poll(h.Now);
    }

    private sealed class CountingApp : IApplication
    {
        public long Stored;
        public long TokenSum;

        public void OnSendStored(FixEngine.Session.FixSession session, long token, int msgSeqNum)
        {
            Stored++;
            TokenSum += token;
        }

        public FromAppResult FromApp(FixEngine.Session.FixSession session, FixMessage message) => FromAppResult.Accepted;
    }

    [Fact]
    public void HandOverNumberStoreAndStoredCallbackAllocateNothingAfterWarmUp()
    {
        var app = new CountingApp();
        using var h = new SessionHarness("FIX.4.4", s => s with { ResetOnLogon = false }, store: SessionHarness.ReservedStore(), application: app);
        h.Connection.CaptureEnabled = false;
        h.Session.OnMessage(h.Build("35=A|34=1|98=0|108=30"), h.Now);
        Assert.True(h.Session.IsLoggedOn);
        const int count = 20_000;
        static void Hand(FixEngine.Session.FixSession session, long token) =>
            Assert.True(session.TrySendFromAnyThread(MsgTypes.NewOrderSingle, token, token, static (ref FixWriter w, scoped in long id) =>
            {
                w.Write(FixTags.ClOrdID, id);
                w.Write(FixTags.Symbol, "EURUSD"u8);
            }));

        for (int i = 0; i < count; i++)
        {
            Hand(h.Session, i);
            if ((i & 63) == 63) h.Session.Poll(h.Now);
        }
        h.Session.Poll(h.Now);
        Assert.Equal(count, app.Stored);
        // Best of up to three windows, each from the same sequence state on the store capacity the warm-up filled (the
        // measured loop re-uses it).
        int windows = 0;
        long best = Allocations.BestWindow(prepare: () =>
        {
            windows++;
            ResetSequenceNumbers(h);
        }, window: () =>
        {
            for (int i = 0; i < count; i++)
            {
                Hand(h.Session, i);
                if ((i & 63) == 63) h.Session.Poll(h.Now);
            }
            h.Session.Poll(h.Now);
        });

        Assert.Equal((windows + 1) * (long)count, app.Stored);
        Assert.Equal(count + 1, h.Session.NextSenderMsgSeqNum);
        Assert.Equal(0, best);
    }
}
