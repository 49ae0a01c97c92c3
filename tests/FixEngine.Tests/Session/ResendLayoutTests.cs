using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text;
using FixEngine.Codec;
using FixEngine.Logging;
using FixEngine.Session;
using FixEngine.Store;
using FixEngine.Tests.Store;

namespace FixEngine.Tests.Session;

/// <summary>The file store records each message's resend layout (where MsgType, SendingTime and the body are, the body's
/// byte sum) in its journal record, and a resend from it uses that layout instead of reading the stored header: the bytes
/// resent are exactly those of the header read (a memory store's resend), for every shape of stored message; a message
/// the layout does not describe, or whose recorded layout the session does not trust, goes the header-read way; a journal
/// written before layouts were recorded (Message records) is read and resent as before, also mixed with new records.</summary>
public sealed class ResendLayoutTests
{
    private const string T = "20260105-11:00:00.000";

    // Stored messages 1..n, '|' for SOH; the trailing comment says whether the store records a layout the session takes.
    private static readonly string[] Shapes =
    [
        "35=8|34=1|49=ISLD|52=" + T + "|56=TW44|37=O1|17=E1|150=0|39=0|55=EURUSD|54=1|38=1000000|", // laid out
        "35=D|34=2|49=ISLD|52=" + T + "|56=TW44|11=ID1|55=INTC|95=20|96=ab|cd|10=123|efghijk|354=3|355=x|y|58=after|", // laid out (data fields in the body)
        "35=W|34=3|49=ISLD|50=DESK1|52=" + T + "|56=TW44|115=ONBEHALF|128=DELIVER|369=7|262=REQ1|55=EURUSD|268=1|269=0|270=1.1|", // kept header fields: header read
        "35=D|34=4|43=Y|49=ISLD|52=" + T + "|56=TW44|122=20260105-10:00:00.000|11=ID4|55=INTC|", // stored as a resend: laid out
        "35=8|34=5|49=ISLD|52=" + T + "|56=TW44|", // no body: laid out
        "35=8|34=6|49=ISLD|52=" + T + "|56=TW44|12345678=x|37=O6|", // an 8-digit first body tag: laid out
        "35=8|34=7|49=ISLD|52=" + T + "|56=TW44|115=ONBEHALF|37=O7|", // the store stops at 115, a header field: header read
        "35=0|34=8|49=ISLD|52=" + T + "|56=TW44|", // admin: gap-filled
        "35=8|34=9|49=ISLD|52=" + T + "|52=20260105-12:00:00.000|56=TW44|37=O9|", // SendingTime twice: laid out, the first one is 122
        "35=8|34=10|49=ISLD|52=" + T + "|56=TW44|58=" + new string('z', 1000) + "|", // a body of 1,000+ bytes: laid out
        "35=8|34=11|52=" + T + "|37=O11|", // no 49, no 56: laid out
        "35=8|34=12|49=ISLD|56=TW44|37=O12|", // no SendingTime: neither way (gap-filled, logged)
    ];

    // 1, 2, 4, 5, 6, 9, 10, 11, and the Heartbeat 8 (laid out too, then gap-filled as admin).
    private const int LaidOut = 9;

    private static byte[] Stored(string fields, int bodyLengthError = 0)
    {
        string body = fields.Replace('|', '\u0001');
        string head = "8=FIX.4.4\u00019=" + (Encoding.ASCII.GetByteCount(body) + bodyLengthError) + "\u0001";
        return Encoding.ASCII.GetBytes(head + body + "10=" + (Encoding.ASCII.GetBytes(head + body).Sum(b => b) % 256).ToString("D3") + "\u0001");
    }

    private static byte[][] All() => Shapes.Select(s => Stored(s)).Append(Stored("35=8|34=13|49=ISLD|52=" + T + "|56=TW44|37=O13|", bodyLengthError: 2)).ToArray();

    // Everything the session sends after its Logon in answer to a ResendRequest for 1..n, as text.
    private static List<string> Resend(IMessageStore store, int n, out FixSession session)
    {
        using var h = new SessionHarness("FIX.4.4", s => s with { ResetOnLogon = false }, store);
        h.Logon();
        int before = h.Connection.Sent.Count;
        h.Receive("35=2|34=2|7=1|16=" + n);
        session = h.Session;
        var sent = h.Connection.Sent.Skip(before).Select(b => Encoding.ASCII.GetString(b).Replace('\u0001', '|')).ToList();
        return sent;
    }

    private static List<string> FromMemory(byte[][] stored)
    {
        var memory = new MemoryMessageStore(1, 1 << 20);
        for (int i = 0; i < stored.Length; i++) memory.AppendAndIncrement(i + 1, stored[i]);
        List<string> sent = Resend(memory, stored.Length, out FixSession session);
        Assert.Equal(0, session.StoredMessagesLaidOutForResend);
        return sent;
    }

    [Fact]
    public void AResendFromRecordedLayoutsSendsTheBytesOfTheHeaderRead()
    {
        byte[][] stored = All();
        using var directory = new TempDirectory();
        var file = new FileMessageStore(directory.Path, "s", 1, new FileMessageStoreOptions());
        for (int i = 0; i < stored.Length; i++) file.AppendAndIncrement(i + 1, stored[i]);
        List<string> expected = FromMemory(stored);
        List<string> actual = Resend(file, stored.Length, out FixSession session);
        Assert.Equal(expected, actual);
        Assert.Equal(LaidOut, session.StoredMessagesLaidOutForResend);
        Assert.Contains(actual, m => m.Contains("|122=20260105-10:00:00.000|", StringComparison.Ordinal) is false && m.Contains("|37=O9|", StringComparison.Ordinal)
            && m.Contains("|122=" + T + "|", StringComparison.Ordinal));
        Assert.True(actual.Count >= 10);
        foreach (string m in actual) Assert.True(FixFramer.Frame(Encoding.ASCII.GetBytes(m.Replace('|', '\u0001')), 1 << 20).IsComplete, m);
    }

    [Fact]
    public void TheHeaderWritersLayoutIsTheOneReadFromTheFinishedMessage()
    {
        // Bodies from empty to ~1,200 bytes: BodyLength of 1 to 4 digits, so TryFinish moves the message by 0-2 bytes
        // (3 reserved) or grows it; MsgTypes of 1 and 2 characters; with a Reject's routing fields after 56.
        var header = new SessionHeaderWriter("FIX.4.4", "SENDER", "TARGET", 6, writeLastMsgSeqNumProcessed: false, 4096, new MemoryMessageStore(1));
        int checkedCount = 0;
        foreach (int bodyBytes in new[] { 0, 1, 5, 40, 80, 150, 900, 1200 })
        {
            foreach (string msgType in new[] { "8", "AE" })
            {
                foreach (bool routed in new[] { false, true })
                {
                    FixWriter w = header.CreateWriter();
                    var routing = new RoutingFields();
                    if (routed) routing.OnBehalfOfCompId = "BROKER"u8;
                    int seq = 7 + checkedCount;
                    header.WriteHeader(ref w, Encoding.ASCII.GetBytes(msgType), seq, 1_767_610_800_000_000_000L, ref routing);
                    if (bodyBytes > 0) w.Write(58, Encoding.ASCII.GetBytes(new string('x', bodyBytes)));
                    Assert.True(w.TryFinish(out int length), $"finish {bodyBytes} {msgType} {routed}");
                    byte[] message = header.Encoded(length).ToArray();
                    ResendLayout encoded = header.TakeLayout(message, seq);
                    Assert.True(ResendLayout.TryCompute(message, out ResendLayout read), Encoding.ASCII.GetString(message));
                    Assert.True(encoded.FitsEncoded(message), $"fits {bodyBytes} {msgType} {routed} {encoded.BodyStart} {encoded.MsgTypeStart} " + Encoding.ASCII.GetString(message));
                    Assert.Equal((read.BodyStart, read.SendingTimeStart, read.SendingTimeLength, read.MsgTypeStart, read.MsgTypeLength, read.BodySum),
                        (encoded.BodyStart, encoded.SendingTimeStart, encoded.SendingTimeLength, encoded.MsgTypeStart, encoded.MsgTypeLength, encoded.BodySum));
                    Assert.False(header.TakeLayout(message, seq).IsKnown); // taken once
                    checkedCount++;
                }
            }
        }
        Assert.Equal(32, checkedCount);
        // Another number than the header's: none.
        FixWriter other = header.CreateWriter();
        var none = new RoutingFields();
        header.WriteHeader(ref other, "0"u8, 100, 1_767_610_800_000_000_000L, ref none);
        Assert.True(other.TryFinish(out int otherLength));
        Assert.False(header.TakeLayout(header.Encoded(otherLength), 101).IsKnown);
    }

    [Fact]
    public void AStoredLayoutThatDoesNotFitItsMessageIsWorkedOutFromTheMessage()
    {
        byte[] message = All()[0];
        Assert.True(ResendLayout.TryCompute(message, out ResendLayout right));
        var wrong = new ResendLayout(right.BodyStart + 1, right.SendingTimeStart, right.SendingTimeLength, right.MsgTypeStart, right.MsgTypeLength, right.BodySum);
        Assert.False(wrong.FitsEncoded(message));
        Assert.True(right.FitsEncoded(message));
        using var directory = new TempDirectory();
        var file = new FileMessageStore(directory.Path, "s", 1, new FileMessageStoreOptions());
        file.AppendAndIncrement(1, message, 0, wrong);
        var recorded = new List<ResendLayout>();
        var handler = new LayoutCollector { Layouts = recorded };
        file.ReadRangeLaidOut(1, 1, 0, ref handler);
        Assert.Single(recorded);
        Assert.Equal(right.BodyStart, recorded[0].BodyStart);
        file.Dispose();
    }

    private struct LayoutCollector : ILaidOutMessageHandler
    {
        public List<ResendLayout> Layouts;

        public bool OnMessage(int seqNum, ReadOnlySpan<byte> message, in ResendLayout layout)
        {
            Layouts.Add(layout);
            return true;
        }
    }

    [Fact]
    public void TheStoreRecordsALayoutOnlyForTheMessagesItDescribes()
    {
        byte[][] stored = All();
        bool[] known = stored.Select(m => ResendLayout.TryCompute(m, out _)).ToArray();
        // 3 (no SendingTime before the first kept field), 8 (admin: laid out, gap-filled anyway), 12 (no SendingTime),
        // 13 (BodyLength off the trailer) have none; 7 has one (at 115) that the session refuses.
        Assert.Equal([true, true, false, true, true, true, true, true, true, true, true, false, false], known);
        Assert.True(ResendLayout.TryCompute(stored[0], out ResendLayout layout));
        string text = Encoding.ASCII.GetString(stored[0]);
        int bodyStart = text.IndexOf("\u000137=", StringComparison.Ordinal) + 1;
        Assert.Equal(bodyStart, layout.BodyStart);
        Assert.Equal("8", text.Substring(layout.MsgTypeStart, layout.MsgTypeLength));
        Assert.Equal(T, text.Substring(layout.SendingTimeStart, layout.SendingTimeLength));
        Assert.Equal(AsciiParsing.Sum(stored[0].AsSpan(bodyStart, stored[0].Length - 7 - bodyStart)), layout.BodySum);
        Span<byte> bytes = stackalloc byte[ResendLayout.Size];
        layout.Write(bytes);
        ResendLayout read = ResendLayout.Read(bytes);
        Assert.Equal((layout.BodyStart, layout.SendingTimeStart, layout.SendingTimeLength, layout.MsgTypeStart, layout.MsgTypeLength, layout.BodySum),
            (read.BodyStart, read.SendingTimeStart, read.SendingTimeLength, read.MsgTypeStart, read.MsgTypeLength, read.BodySum));
    }

    [Fact]
    public void AJournalWrittenBeforeLayoutsIsResentByItsHeaderAlsoMixedWithNewRecords()
    {
        // Format 2 Message records, as every journal before LaidOutMessage holds: a Reset record, then one record per
        // message with the state after it.
        byte[][] stored = All();
        using var directory = new TempDirectory();
        string path = FileMessageStore.GetJournalPath(directory.Path, "old");
        using (var journal = new MemoryStream())
        {
            byte[] record = new byte[4096];
            JournalState state = JournalState.Fresh(1);
            journal.Write(record, 0, JournalFormat.Write(record, JournalRecordType.Reset, 0, default, state));
            for (int i = 0; i < stored.Length; i++)
            {
                state.NextSender = i + 2;
                journal.Write(record, 0, JournalFormat.Write(record, JournalRecordType.Message, i + 1, stored[i], state));
            }
            File.WriteAllBytes(path, journal.ToArray());
        }
        List<string> expected = FromMemory(stored);
        using (var old = new FileMessageStore(path, 1))
        {
            Assert.Null(old.LastRecoveryReport);
            Assert.Equal(stored.Length, old.MessageCount);
            List<string> actual = Resend(old, stored.Length, out FixSession session);
            Assert.Equal(expected, actual);
            Assert.Equal(0, session.StoredMessagesLaidOutForResend);
            Assert.True(session.StoredMessagesCopiedForResend >= 9);
        }

        // New messages after the old ones are laid out; the journal reopens whole, and one resend serves both kinds.
        byte[] next = Stored("35=8|34=14|49=ISLD|52=" + T + "|56=TW44|37=O14|");
        var mixedStored = stored.Append(next).ToArray();
        long lengthBefore;
        using (var store = new FileMessageStore(path, 1))
        {
            lengthBefore = store.JournalLengthInBytes;
            store.AppendAndIncrement(14, next);
            store.SetNextTargetMsgSeqNum(1); // the counterparty logs on again from 1
            lengthBefore += JournalFormat.RecordSize(JournalRecordType.State, 0);
            Assert.Equal(lengthBefore + JournalFormat.RecordSize(JournalRecordType.LaidOutMessage, ResendLayout.Size + next.Length), store.JournalLengthInBytes);
        }
        using (var mixed = new FileMessageStore(path, 1))
        {
            Assert.Null(mixed.LastRecoveryReport);
            Assert.Equal(mixedStored.Length, mixed.MessageCount);
            List<string> actual = Resend(mixed, mixedStored.Length, out FixSession session);
            Assert.Equal(FromMemory(mixedStored), actual);
            Assert.Equal(1, session.StoredMessagesLaidOutForResend);
        }
    }

    [Fact]
    public void ADamagedLayoutIsCaughtByTheRecordCrcAndItsMessageGapFilled()
    {
        // A byte of message 2's recorded layout flipped on disk: the payload CRC (which covers the layout) fails on open,
        // the body is reported lost and gap-filled, and messages 1 and 3 are resent from their layouts, as stored.
        byte[][] stored = [Stored(Shapes[0]), Stored(Shapes[1].Replace("34=2", "34=2")), Stored(Shapes[5].Replace("34=6", "34=3"))];
        using var directory = new TempDirectory();
        string path;
        long second;
        using (var store = new FileMessageStore(directory.Path, "s", 1, new FileMessageStoreOptions()))
        {
            store.AppendAndIncrement(1, stored[0]);
            second = store.JournalLengthInBytes;
            store.AppendAndIncrement(2, stored[1]);
            store.AppendAndIncrement(3, stored[2]);
            path = store.JournalPath;
        }
        using (var file = new FileStream(path, FileMode.Open, FileAccess.ReadWrite))
        {
            file.Position = second + JournalFormat.HeadSize + 7; // the recorded body sum
            int b = file.ReadByte();
            file.Position--;
            file.WriteByte((byte)(b ^ 0x01));
        }
        using var reopened = new FileMessageStore(path, 1, new FileMessageStoreOptions { Recovery = StoreRecoveryPolicy.RecoverAndGapFill });
        Assert.NotNull(reopened.LastRecoveryReport);
        Assert.Equal(2, reopened.MessageCount);
        Assert.Equal(4, reopened.NextSenderMsgSeqNum);
        List<string> actual = Resend(reopened, 3, out FixSession session);
        List<string> expected = FromMemory(stored);
        Assert.Equal(expected[0], actual[0]);
        Assert.Contains("|35=4|", actual[1], StringComparison.Ordinal);
        Assert.Contains("|36=3|", actual[1], StringComparison.Ordinal);
        Assert.Equal(expected[2], actual[2]);
        Assert.Equal(2, session.StoredMessagesLaidOutForResend);
    }

    [Fact]
    public void AReplayStepReadsTheJournalOnlyUpToItsLastMessage()
    {
        // Each step (ReplayMessagesPerStep messages) reads the journal from its first record to the next step's: every
        // byte of the replayed records once, where a whole 64 KiB window per step read ~1.5 times as much here.
        using var directory = new TempDirectory();
        var file = new FileMessageStore(directory.Path, "s", 1, new FileMessageStoreOptions());
        const int n = 1_000;
        for (int i = 1; i <= n; i++)
        {
            file.AppendAndIncrement(i, Stored("35=8|34=" + i + "|49=ISLD|52=" + T + "|56=TW44|37=O" + i + "|17=E" + i + "|150=0|39=0|55=EURUSD|54=1|58="
                + new string('t', 150) + "|"));
        }
        long journal = file.JournalLengthInBytes;
        using var h = new SessionHarness("FIX.4.4", s => s with { ResetOnLogon = false }, file);
        h.Logon();
        long loaded = file.JournalBytesLoaded;
        long sent = h.Connection.SentCount;
        h.Receive("35=2|34=2|7=1|16=0");
        int polls = 0;
        while (h.Session.IsReplayPending && polls++ < 100) h.Session.Poll(h.Now);
        Assert.Equal(n + 1, h.Connection.SentCount - sent); // and the Logon, gap-filled
        Assert.Equal(n + 1, h.Session.StoredMessagesLaidOutForResend);
        // The stored orders' records, and at most the Logon's and the state records written since.
        Assert.InRange(file.JournalBytesLoaded - loaded, journal, file.JournalLengthInBytes);
    }
}
