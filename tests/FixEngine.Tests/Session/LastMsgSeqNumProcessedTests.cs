using System.Collections.Generic;

namespace FixEngine.Tests.Session;

public sealed class LastMsgSeqNumProcessedTests
{
    private const int LastMsgSeqNumProcessed = 369;

    private static string Order(SessionHarness h, int seq) => $"35=D|34={seq}|11=ID{seq}|21=3|38=100|40=1|54=1|55=INTC|60={h.Time()}";

    /// <summary>Logon reply, an application reply, a TestRequest answer, a timer Heartbeat, a timer TestRequest and a
    /// resend's GapFill, each with the 369 it should carry (or null when disabled), then the message itself.</summary>
    private static List<(string Type, Sent Message)> Exchange(SessionHarness h)
    {
        var sent = new List<(string, Sent)>();
        h.Receive("35=A|34=1|98=0|108=10");
        sent.Add(("A", h.Expect("A")));
        h.Receive(Order(h, 2));
        sent.Add(("D", h.Expect("D")));
        h.Receive("35=1|34=3|112=PING");
        sent.Add(("0", h.Expect("0")));
        h.Advance(10 * SessionHarness.Second);
        sent.Add(("0", h.Expect("0")));
        h.Advance(2 * SessionHarness.Second);
        sent.Add(("1", h.Expect("1")));
        h.Receive("35=2|34=4|7=1|16=1");
        sent.Add(("4", h.Expect("4")));
        return sent;
    }

    [Fact]
    public void EnabledStampsTheLastInboundMsgSeqNumProcessedOnAdminAndApplicationMessages()
    {
        using var h = new SessionHarness("FIX.4.4", s => s with { EnableLastMsgSeqNumProcessed = true });
        List<(string Type, Sent Message)> sent = Exchange(h);
        // While an inbound message is processed it is not yet "processed": replies carry the number before it
        // (Logon 1 -> 0, order 2 -> 1, TestRequest 3 -> 2); timer messages carry the last one (3); the GapFill
        // answering ResendRequest 4 carries 3.
        string[] expected = ["0", "1", "2", "3", "3", "3"];
        for (int i = 0; i < sent.Count; i++)
        {
            Assert.True(sent[i].Message[LastMsgSeqNumProcessed] == expected[i], $"{sent[i].Type}: expected 369={expected[i]} in {sent[i].Message.Text}");
        }
        // Header field: before the body of the order reply.
        string order = sent[1].Message.Text;
        Assert.True(order.IndexOf("|369=") < order.IndexOf("|11="), order);
    }

    [Fact]
    public void DisabledSendsNoLastMsgSeqNumProcessed()
    {
        using var h = new SessionHarness("FIX.4.4");
        foreach ((string type, Sent message) in Exchange(h))
        {
            Assert.False(message.Has(LastMsgSeqNumProcessed), type + ": " + message.Text);
        }
    }

    [Fact]
    public void EnabledLastMsgSeqNumProcessedPassesThePeersValidation()
    {
        // Our stamped messages are valid FIX.4.2 for a validating peer (369 is a header field there).
        using var sender = new SessionHarness("FIX.4.2", s => s with { EnableLastMsgSeqNumProcessed = true });
        sender.Logon();
        sender.Receive(Order(sender, 2));
        Sent reply = sender.Expect("D");
        Assert.Equal("1", reply[LastMsgSeqNumProcessed]);
        using var peer = new SessionHarness("FIX.4.2");
        peer.Logon();
        peer.Receive($"35=D|34=2|369=1|11=ID2|21=3|38=100|40=1|54=1|55=INTC|60={peer.Time()}");
        Assert.Equal("D", peer.Expect("D")[35]);
    }
}
