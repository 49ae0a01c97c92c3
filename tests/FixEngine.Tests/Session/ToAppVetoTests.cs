using System;
using FixEngine.Codec;
using FixEngine.Session;
using FixEngine.Transport;

namespace FixEngine.Tests.Session;

/// <summary><see cref="IApplication.ToApp"/> can veto an outgoing message (QuickFIX/n's DoNotSend): a new one is not
/// stored, not sent and uses no sequence number; a resend of a stored one is gap-filled.</summary>
public sealed class ToAppVetoTests
{
    private sealed class VetoApp : IApplication
    {
        public bool Veto;
        public string? VetoClOrdId;

        public FromAppResult FromApp(FixEngine.Session.FixSession session, FixMessage message) => FromAppResult.Accepted;

        public void ToApp(FixEngine.Session.FixSession session, ReadOnlySpan<byte> message)
        {
            if (Veto) throw DoNotSendException.Instance;
            if (VetoClOrdId is not null && System.Text.Encoding.ASCII.GetString(message).Contains("\u000111=" + VetoClOrdId + "\u0001", StringComparison.Ordinal))
            {
                throw new DoNotSendException();
            }
        }
    }

    private static SendResult SendOrder(SessionHarness h, string id) => h.Session.Send("D"u8, id, static (ref FixWriter w, scoped in string clOrdId) =>
    {
        w.Write(11, System.Text.Encoding.ASCII.GetBytes(clOrdId));
        w.Write(21, "1"u8);
        w.Write(55, "INTC"u8);
        w.Write(54, "1"u8);
        w.Write(38, "100"u8);
        w.Write(40, "1"u8);
    }, h.Now);

    [Fact]
    public void AVetoedNewMessageIsNotStoredNotSentAndUsesNoSequenceNumber()
    {
        var app = new VetoApp();
        using var h = new SessionHarness("FIX.4.2", application: app);
        h.Logon();
        int next = h.Session.NextSenderMsgSeqNum;
        app.Veto = true;
        Assert.Equal(SendResult.Vetoed, SendOrder(h, "A"));
        h.ExpectNothing();
        Assert.Equal(next, h.Session.NextSenderMsgSeqNum);
        app.Veto = false;
        Assert.Equal(SendResult.Sent, SendOrder(h, "B"));
        Sent sent = h.Expect("D");
        Assert.Equal(next.ToString(System.Globalization.CultureInfo.InvariantCulture), sent[34]);
        Assert.Equal("B", sent[11]);
    }

    [Fact]
    public void AStoredMessageVetoedOnResendIsGapFilled()
    {
        var app = new VetoApp();
        using var h = new SessionHarness("FIX.4.2", application: app);
        h.Logon();
        SendOrder(h, "A"); // 2
        SendOrder(h, "B"); // 3
        SendOrder(h, "C"); // 4
        h.Expect("D");
        h.Expect("D");
        h.Expect("D");
        app.Veto = true;
        h.Receive("35=2|34=2|7=2|16=0");
        Sent gapFill = h.Expect("4");
        Assert.Equal("2", gapFill[34]);
        Assert.Equal("5", gapFill[36]);
        Assert.Equal("Y", gapFill[123]);
        h.ExpectNothing();

        app.Veto = false;
        h.Receive("35=2|34=3|7=3|16=3");
        Sent resent = h.Expect("D");
        Assert.Equal("3", resent[34]);
        Assert.Equal("B", resent[11]);
        Assert.Equal("Y", resent[43]);
    }

    [Fact]
    public void AVetoBetweenTwoResentMessagesBecomesAGapFillInPlace()
    {
        var app = new VetoApp();
        using var h = new SessionHarness("FIX.4.2", application: app);
        h.Logon();
        SendOrder(h, "A"); // 2
        SendOrder(h, "B"); // 3
        SendOrder(h, "C"); // 4
        for (int i = 0; i < 3; i++) h.Expect("D");
        app.VetoClOrdId = "B";
        h.Receive("35=2|34=2|7=2|16=0");
        Assert.Equal("A", h.Expect("D")[11]);
        Sent gapFill = h.Expect("4");
        Assert.Equal("3", gapFill[34]);
        Assert.Equal("4", gapFill[36]);
        Sent c = h.Expect("D");
        Assert.Equal("C", c[11]);
        Assert.Equal("4", c[34]);
        h.ExpectNothing();
    }

    [Fact]
    public void FixMessageRendersWithBarsAndCopiesOut()
    {
        using var h = new SessionHarness("FIX.4.2", connect: false);
        byte[] bytes = h.Build("35=0|34=2|112=X");
        var index = new FixMessageIndex();
        index.Parse(bytes);
        var message = new FixMessage(bytes, index);
        string text = message.ToString();
        Assert.Equal(System.Text.Encoding.ASCII.GetString(bytes).Replace('\u0001', '|'), text);

        OwnedFixMessage owned = message.ToOwned();
        Array.Fill(bytes, (byte)'x'); // the callback's buffer is reused
        Assert.Equal("0", owned.MsgType);
        Assert.Equal("X", owned.Message.GetString(112));
        Assert.Equal(text, owned.ToString());
    }
}
