using System;
using System.Buffers.Binary;
using System.IO;
using FixEngine.Store;
using FixEngine.Tests.Session;

namespace FixEngine.Tests.Store;

/// <summary>End to end: a message whose body a recovery lost is answered with SequenceReset-GapFill on a resend request,
/// the messages around it are resent, and the sequence numbers continue where they were.</summary>
public sealed class RecoveredJournalResendTests : IDisposable
{
    private readonly TempDirectory _directory = new();

    public void Dispose() => _directory.Dispose();

    /// <summary>The byte offset of the format 2 message record stored under <paramref name="seqNum"/> (its head).</summary>
    private static long FindMessageRecord(byte[] journal, int seqNum)
    {
        long position = 0;
        while (position < journal.Length)
        {
            ReadOnlySpan<byte> head = journal.AsSpan((int)position, 40);
            int length = BinaryPrimitives.ReadInt32LittleEndian(head.Slice(4));
            // Type 1 (Message) or 5 (LaidOutMessage: the message after its 8-byte resend layout).
            if (head[3] is 1 or 5 && BinaryPrimitives.ReadInt32LittleEndian(head.Slice(8)) == seqNum) return position;
            position += 80 + (head[3] == 4 ? length : (length + 7) & ~7);
        }
        throw new InvalidOperationException($"no record for MsgSeqNum {seqNum}");
    }

    [Fact]
    public void ALostBodyIsGapFilledOnResendAndTheSequenceNumbersDoNotRewind()
    {
        var options = new FileMessageStoreOptions { SyncPolicy = FileStoreSyncPolicy.OS, Recovery = StoreRecoveryPolicy.RecoverAndGapFill };
        string journal;
        long now;
        using (var h = new SessionHarness("FIX.4.2", s => s with { ResetOnLogon = false }, new FileMessageStore(_directory.Path, "s", 1, options)))
        {
            now = h.Now;
            journal = ((FileMessageStore)h.Store).JournalPath;
            h.Logon();
            for (int i = 0; i < 3; i++)
            {
                h.Receive($"35=D|34={2 + i}|11=ORD{i}|21=3|38=100|40=1|54=1|55=INTC|60={h.Time()}");
                Assert.Equal((2 + i).ToString(System.Globalization.CultureInfo.InvariantCulture), h.Expect("D")[34]);
            }
        }
        byte[] bytes = File.ReadAllBytes(journal);
        bytes[FindMessageRecord(bytes, 3) + 40 + 30] ^= 0x20;
        File.WriteAllBytes(journal, bytes);

        var store = new FileMessageStore(journal, now, options);
        StoreRecoveryReport report = store.LastRecoveryReport!;
        Assert.Equal(3, Assert.Single(report.Damages).LostMessageSeqNum);
        // The lost body was the answer to inbound 3: its processed mark is not kept, inbound 3 is asked for again.
        Assert.Equal(3, Assert.Single(report.Damages).ProcessedInboundNotKept);
        using (var h = new SessionHarness("FIX.4.2", s => s with { ResetOnLogon = false }, store))
        {
            h.App.RecordRedelivery = true;
            Assert.Equal(5, h.Session.NextSenderMsgSeqNum);
            Assert.Equal(3, h.Session.NextTargetMsgSeqNum);
            h.Receive("35=A|34=5|98=0|108=30");
            Assert.Equal("5", h.Expect("A")[34]);
            Sent resendRequest = h.Expect("2");
            Assert.Equal(("6", "3"), (resendRequest[34], resendRequest[7]));
            // The counterparty resends the orders; both are handed over again, flagged, and answered anew.
            h.Receive($"35=D|34=3|43=Y|122={h.Time()}|11=ORD1|21=3|38=100|40=1|54=1|55=INTC|60={h.Time()}");
            Sent answer1 = h.Expect("D");
            Assert.Equal(("7", "ORD1"), (answer1[34], answer1[11]));
            h.Receive($"35=D|34=4|43=Y|122={h.Time()}|11=ORD2|21=3|38=100|40=1|54=1|55=INTC|60={h.Time()}");
            Sent answer2 = h.Expect("D");
            Assert.Equal(("8", "ORD2"), (answer2[34], answer2[11]));
            Assert.Equal([true, true], h.App.PossibleRedelivery);
            h.Receive("35=4|34=5|43=Y|122=" + h.Time() + "|123=Y|36=6");
            Assert.Equal(6, h.Session.NextTargetMsgSeqNum);
            h.Receive("35=2|34=6|7=2|16=0");
            Sent two = h.Expect("D");
            Assert.Equal(("2", "Y", "ORD0"), (two[34], two[43], two[11]));
            Sent gap = h.Expect("4");
            Assert.Equal(("3", "Y", "4"), (gap[34], gap[123], gap[36]));
            Sent four = h.Expect("D");
            Assert.Equal(("4", "Y", "ORD2"), (four[34], four[43], four[11]));
            Sent logonGap = h.Expect("4");
            Assert.Equal(("5", "7"), (logonGap[34], logonGap[36]));
            Sent again1 = h.Expect("D");
            Assert.Equal(("7", "Y", "ORD1"), (again1[34], again1[43], again1[11]));
            Sent again2 = h.Expect("D");
            Assert.Equal(("8", "Y", "ORD2"), (again2[34], again2[43], again2[11]));
            h.ExpectNothing();
        }
    }
}
