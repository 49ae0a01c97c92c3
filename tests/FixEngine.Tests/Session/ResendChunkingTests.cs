using System;
using FixEngine.Session;

namespace FixEngine.Tests.Session;

/// <summary>ResendRequestChunkSize: a large gap is requested one chunk at a time (QuickFIX semantics).</summary>
public sealed class ResendChunkingTests
{
    private static string Order(SessionHarness h, int seq, string extra = "") =>
        $"35=D|34={seq}{extra}|11=ID{seq}|21=3|38=100|40=1|54=1|55=INTC|60={h.Time()}";

    private static string Resent(SessionHarness h, int seq) => Order(h, seq, $"|43=Y|122={h.Time()}");

    [Theory]
    [InlineData("FIX.4.2")]
    [InlineData("FIX.4.4")]
    public void GapOfFiveWithChunkSizeTwoIsRequestedInThreeChunks(string beginString)
    {
        using var h = new SessionHarness(beginString, s => s with { ResendRequestChunkSize = 2 });
        h.Logon();
        h.Receive(Order(h, 7));
        Sent first = h.Expect("2");
        Assert.Equal("2", first[7]);
        Assert.Equal("3", first[16]);
        h.ExpectNothing();

        h.Receive(Resent(h, 2));
        Assert.Equal("ID2", h.Expect("D")[11]);
        h.ExpectNothing();
        h.Receive(Resent(h, 3));
        Assert.Equal("ID3", h.Expect("D")[11]);
        Sent second = h.Expect("2");
        Assert.Equal("4", second[7]);
        Assert.Equal("5", second[16]);
        h.ExpectNothing();

        h.Receive(Resent(h, 4));
        Assert.Equal("ID4", h.Expect("D")[11]);
        h.ExpectNothing();
        h.Receive(Resent(h, 5));
        Assert.Equal("ID5", h.Expect("D")[11]);
        Sent third = h.Expect("2");
        Assert.Equal("6", third[7]);
        Assert.Equal("0", third[16]);
        h.ExpectNothing();
        Assert.Equal(1, h.Session.QueuedMessageCount);

        h.Receive(Resent(h, 6));
        Assert.Equal("ID6", h.Expect("D")[11]);
        Assert.Equal("ID7", h.Expect("D")[11]);
        h.ExpectNothing();
        Assert.Equal(8, h.Session.NextTargetMsgSeqNum);
        Assert.Equal(0, h.Session.QueuedMessageCount);

        h.Receive(Order(h, 8));
        Assert.Equal("ID8", h.Expect("D")[11]);
        h.ExpectNothing();
    }

    [Fact]
    public void ChunkFilledByGapFillRequestsTheNextChunk()
    {
        using var h = new SessionHarness("FIX.4.4", s => s with { ResendRequestChunkSize = 2 });
        h.Logon();
        h.Receive(Order(h, 7));
        Assert.Equal("3", h.Expect("2")[16]);
        h.Receive($"35=4|34=2|43=Y|122={h.Time()}|123=Y|36=4");
        Sent second = h.Expect("2");
        Assert.Equal("4", second[7]);
        Assert.Equal("5", second[16]);
        h.Receive($"35=4|34=4|43=Y|122={h.Time()}|123=Y|36=7");
        Assert.Equal("ID7", h.Expect("D")[11]);
        h.ExpectNothing();
        Assert.Equal(8, h.Session.NextTargetMsgSeqNum);
    }

    [Fact]
    public void GapWithinOneChunkIsOneRequestToInfinity()
    {
        using var h = new SessionHarness("FIX.4.4", s => s with { ResendRequestChunkSize = 5 });
        h.Logon();
        h.Receive(Order(h, 5));
        Sent rr = h.Expect("2");
        Assert.Equal("2", rr[7]);
        Assert.Equal("0", rr[16]);
        h.Receive(Resent(h, 2));
        h.Receive(Resent(h, 3));
        h.Receive(Resent(h, 4));
        for (int seq = 2; seq <= 5; seq++) Assert.Equal("ID" + seq, h.Expect("D")[11]);
        h.ExpectNothing();
    }

    [Fact]
    public void ChunkSizeZeroSendsOneRequestToInfinity()
    {
        using var h = new SessionHarness("FIX.4.4", s => s with { ResendRequestChunkSize = 0 });
        h.Logon();
        h.Receive(Order(h, 7));
        Sent rr = h.Expect("2");
        Assert.Equal("2", rr[7]);
        Assert.Equal("0", rr[16]);
        for (int seq = 2; seq <= 6; seq++)
        {
            h.Receive(Resent(h, seq));
            Assert.Equal("ID" + seq, h.Expect("D")[11]);
        }
        Assert.Equal("ID7", h.Expect("D")[11]);
        h.ExpectNothing();
    }
}
