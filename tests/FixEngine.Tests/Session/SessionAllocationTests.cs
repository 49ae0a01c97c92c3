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
        using var h = new SessionHarness("FIX.4.4", s => s with { ResetOnLogon = false });
        h.Connection.CaptureEnabled = false;
        h.Session.OnMessage(h.Build("35=A|34=1|98=0|108=30"), h.Now);
        Assert.True(h.Session.IsLoggedOn);
        const int count = 10_000;
        // Pre-encode the inbound orders (the test's own allocations stay out of the measurement).
        var frames = new byte[count][];
        for (int i = 0; i < count; i++) frames[i] = h.Build($"35=D|34={i + 2}|11=ID{i}|21=3|38=100|40=1|54=1|55=INTC|60={h.Time()}");

        for (int i = 0; i < count; i++) h.Session.OnMessage(frames[i], h.Now);
        Assert.Equal(count + 2, h.Session.NextTargetMsgSeqNum);
        h.Session.ResetSequenceNumbers(h.Now);
        h.Store.SetNextTargetMsgSeqNum(2);
        h.Session.Poll(h.Now);

        long before = GC.GetAllocatedBytesForCurrentThread();
        for (int i = 0; i < count; i++) h.Session.OnMessage(frames[i], h.Now);
        h.Session.Poll(h.Now);
        long allocated = GC.GetAllocatedBytesForCurrentThread() - before;

        Assert.Equal(count + 2, h.Session.NextTargetMsgSeqNum);
        Assert.Equal(count + 1, h.Session.NextSenderMsgSeqNum);
        Assert.True(h.Connection.SentCount >= 2 * count, "replies were sent");
        Assert.Equal(0, allocated);
    }
}
