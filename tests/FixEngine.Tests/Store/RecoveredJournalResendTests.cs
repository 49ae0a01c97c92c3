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

    /// <summary>The byte offset of the format 2 message record stored under <paramref name="seqNum"/>.</summary>
    private static long FindMessageRecord(byte[] journal, int seqNum)
    {
        long position = 0;
        while (position < journal.Length)
        {
            ReadOnlySpan<byte> head = journal.AsSpan((int)position, 40);
            int length = BinaryPrimitives.ReadInt32LittleEndian(head.Slice(4));
            if (head[3] == 1 && BinaryPrimitives.ReadInt32LittleEndian(head.Slice(8)) == seqNum) return position;
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
        using (var h = new SessionHarness("FIX.4.2", s => s with { ResetOnLogon = false }, store))
        {
            Assert.Equal(5, h.Session.NextSenderMsgSeqNum);
            Assert.Equal(5, h.Session.NextTargetMsgSeqNum);
            h.Receive("35=A|34=5|98=0|108=30");
            Assert.Equal("5", h.Expect("A")[34]);
            h.Receive("35=2|34=6|7=2|16=0");
            Sent two = h.Expect("D");
            Assert.Equal(("2", "Y", "ORD0"), (two[34], two[43], two[11]));
            Sent gap = h.Expect("4");
            Assert.Equal(("3", "Y", "4"), (gap[34], gap[123], gap[36]));
            Sent four = h.Expect("D");
            Assert.Equal(("4", "Y", "ORD2"), (four[34], four[43], four[11]));
            Sent logonGap = h.Expect("4");
            Assert.Equal(("5", "6"), (logonGap[34], logonGap[36]));
            h.ExpectNothing();
        }
    }
}
