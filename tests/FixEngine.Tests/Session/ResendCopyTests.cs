using System;
using System.Linq;
using System.Text;
using FixEngine.Codec;
using FixEngine.Logging;
using FixEngine.Store;
using FixEngine.Tests.Store;

namespace FixEngine.Tests.Session;

/// <summary>A resent message is the stored message with its header rewritten (PossDupFlag=Y, SendingTime now,
/// OrigSendingTime = the stored SendingTime, the other header fields as stored) and its body copied byte for byte:
/// repeating groups, data fields holding SOH (even "10=" inside a value), custom header fields. A stored message whose
/// header the quick read does not take (a data field in the header, a BodyLength that does not end at the trailer) is
/// resent the full way, indexed field by field; one that cannot be resent at all is gap-filled with the reason logged.</summary>
public sealed class ResendCopyTests
{
    private const string StoredTime = "20260105-11:00:00.000";

    // A message as a session stores it: "8=FIX.4.4|9=n|" + fields + "10=sss|", '|' standing for SOH. `bodyLengthError`
    // puts a wrong BodyLength in it (the checksum stays valid for the bytes stored).
    private static byte[] Stored(string fields, int bodyLengthError = 0)
    {
        string body = fields.Replace('|', '\u0001');
        string head = "8=FIX.4.4\u00019=" + (Encoding.ASCII.GetByteCount(body) + bodyLengthError) + "\u0001";
        return Encoding.ASCII.GetBytes(head + body + "10=" + CheckSum(head + body) + "\u0001");
    }

    private static string CheckSum(string text) => (text.Sum(c => (int)c) % 256).ToString("D3", System.Globalization.CultureInfo.InvariantCulture);

    // A session (FIX.4.4, ISLD to TW44) whose store holds `stored` as messages 1..n; the counterparty logs on and asks
    // for 1..n. Returns the harness with the session's Logon read.
    private static SessionHarness Replaying(byte[][] stored, RecordingSessionLog? log = null)
    {
        var store = new MemoryMessageStore(1, 1 << 20);
        for (int i = 0; i < stored.Length; i++) store.AppendAndIncrement(i + 1, stored[i]);
        var h = new SessionHarness("FIX.4.4", s => s with { ResetOnLogon = false }, store, log: log);
        h.Logon();
        h.Receive("35=2|34=2|7=1|16=" + stored.Length);
        return h;
    }

    // What the resend of `header` + `body` must be, byte for byte: the session's header (8, 9, 35, 34, 43=Y, 49, 52 as
    // sent, 56), then `kept` (the stored header fields other than 34, 43, 49, 52, 56, 122, with 122 already in its
    // place), then the body as stored; BodyLength and CheckSum over those bytes.
    private static string Expected(string msgType, int seqNum, string sendingTime, string kept, string body)
    {
        string fields = ("35=" + msgType + "|34=" + seqNum + "|43=Y|49=ISLD|52=" + sendingTime + "|56=TW44|" + kept + body).Replace('|', '\u0001');
        string head = "8=FIX.4.4\u00019=" + Encoding.ASCII.GetByteCount(fields) + "\u0001";
        return (head + fields + "10=" + CheckSum(head + fields) + "\u0001").Replace('\u0001', '|');
    }

    private static string Text(byte[] bytes) => Encoding.ASCII.GetString(bytes).Replace('\u0001', '|');

    private static byte[] NextBytes(SessionHarness h)
    {
        Assert.True(h.Read < h.Connection.Sent.Count, "expected another outbound message");
        return h.Connection.Sent[h.Read++];
    }

    // The resent message's own SendingTime (now), read from its bytes.
    private static string SendingTimeOf(byte[] bytes)
    {
        string text = Text(bytes);
        int at = text.IndexOf("|52=", StringComparison.Ordinal) + 4;
        return text.Substring(at, text.IndexOf('|', at) - at);
    }

    [Fact]
    public void ARepeatingGroupBodyAndCustomHeaderFieldsAreResentAsStoredUnderTheNewHeader()
    {
        // Header fields before and after OrigSendingTime(122) (50, 115 / 128, 142, 369), then a market-data snapshot
        // with a three-entry group.
        const string body = "262=REQ1|55=EURUSD|268=3|269=0|270=1.1012|271=1000000|269=1|270=1.1014|271=2000000|269=2|270=1.1013|271=500000|";
        byte[] stored = Stored("35=W|34=1|49=ISLD|50=DESK1|52=" + StoredTime + "|56=TW44|115=ONBEHALF|128=DELIVER|142=LDN|369=7|" + body);
        using var h = Replaying([stored]);
        byte[] resent = NextBytes(h);
        Assert.Equal(Expected("W", 1, SendingTimeOf(resent), "50=DESK1|115=ONBEHALF|122=" + StoredTime + "|128=DELIVER|142=LDN|369=7|", body), Text(resent));
        Assert.NotEqual(StoredTime, SendingTimeOf(resent));
        // Read by its header only: the body was copied, not indexed.
        Assert.Equal((1, 0), (h.Session.StoredMessagesCopiedForResend, h.Session.StoredMessagesIndexedForResend));
        h.ExpectNothing();
    }

    [Fact]
    public void DataFieldsHoldingSohAndATrailerLookalikeAreCopiedWhole()
    {
        // RawData(96) of 20 bytes holding SOHs and "10=123|"; EncodedText(355) holding SOH after it.
        const string body = "11=ID1|55=INTC|95=20|96=ab|cd|10=123|efghijk|354=3|355=x|y|58=after|";
        byte[] stored = Stored("35=D|34=1|49=ISLD|52=" + StoredTime + "|56=TW44|" + body);
        using var h = Replaying([stored]);
        byte[] resent = NextBytes(h);
        Assert.Equal(Expected("D", 1, SendingTimeOf(resent), "122=" + StoredTime + "|", body), Text(resent));
        Assert.True(FixFramer.Frame(resent, 1 << 20).IsComplete);
        Assert.Equal((1, 0), (h.Session.StoredMessagesCopiedForResend, h.Session.StoredMessagesIndexedForResend));
        h.ExpectNothing();
    }

    [Fact]
    public void HeaderValuesAcrossTheSohMaskBlocksAndLongTagsAfterTheHeaderAreReadWholeAndCopied()
    {
        // The header read takes SOHs from 64-byte masks: values of 63 to 130 bytes end in a later block than they start.
        // The body's first tag has 8 digits (beyond the header read's 8-byte tag word: read digit by digit).
        foreach (int valueLength in new[] { 1, 63, 64, 65, 130 })
        {
            string desk = new('D', valueLength);
            const string body = "12345678=x|37=O|17=E|150=0|39=0|";
            byte[] stored = Stored("35=8|34=1|49=ISLD|50=" + desk + "|52=" + StoredTime + "|56=TW44|142=" + desk + "|" + body);
            using var h = Replaying([stored]);
            byte[] resent = NextBytes(h);
            Assert.Equal(Expected("8", 1, SendingTimeOf(resent), "50=" + desk + "|122=" + StoredTime + "|142=" + desk + "|", body), Text(resent));
            Assert.Equal((1, 0), (h.Session.StoredMessagesCopiedForResend, h.Session.StoredMessagesIndexedForResend));
            h.ExpectNothing();
        }
    }

    [Fact]
    public void TheReplayMethodsCompiledAheadAllCompile()
    {
        // The list ReplayCompilation hands to RuntimeHelpers.PrepareMethod, with the file store's read path: every entry
        // is bound to the method it names and compiles (a failure would leave that method to its first call, silently).
        using var directory = new TempDirectory();
        var store = new FileMessageStore(directory.Path, "s", 1, new FileMessageStoreOptions());
        using var h = new SessionHarness("FIX.4.4", s => s with { ResetOnLogon = false }, store);
        Delegate[] methods = h.Session.ReplayMethods(session: true, store);
        Assert.Equal(19, methods.Length);
        foreach (Delegate method in methods)
        {
            System.Runtime.CompilerServices.RuntimeHelpers.PrepareMethod(method.Method.MethodHandle);
            Assert.True(method.Method.MethodImplementationFlags.HasFlag(System.Reflection.MethodImplAttributes.AggressiveOptimization),
                method.Method.DeclaringType + "." + method.Method.Name + " is compiled ahead but not marked AggressiveOptimization");
        }
    }

    [Fact]
    public void AStoredPossibleDuplicateKeepsOneOrigSendingTimeAndOnePossDupFlag()
    {
        // A message stored as a resend already (43=Y, 122 = the first SendingTime): 122 becomes its latest SendingTime,
        // as the full path does, and neither field is repeated.
        const string body = "11=ID1|55=INTC|54=1|38=100|40=1|";
        byte[] stored = Stored("35=D|34=1|43=Y|49=ISLD|52=" + StoredTime + "|56=TW44|122=20260105-10:00:00.000|" + body);
        using var h = Replaying([stored]);
        byte[] resent = NextBytes(h);
        Assert.Equal(Expected("D", 1, SendingTimeOf(resent), "122=" + StoredTime + "|", body), Text(resent));
    }

    [Fact]
    public void AHeaderDataFieldGoesTheFullWayAndIsResentWithItsValueWhole()
    {
        // SecureData(91) in the header, holding an SOH: the quick header read leaves it to the full index.
        const string body = "11=ID1|55=INTC|54=1|";
        byte[] stored = Stored("35=D|34=1|49=ISLD|52=" + StoredTime + "|56=TW44|90=5|91=a|b|c|" + body);
        using var h = Replaying([stored]);
        byte[] resent = NextBytes(h);
        Assert.Equal(Expected("D", 1, SendingTimeOf(resent), "90=5|91=a|b|c|122=" + StoredTime + "|", body), Text(resent));
        Assert.Equal((0, 1), (h.Session.StoredMessagesCopiedForResend, h.Session.StoredMessagesIndexedForResend));
    }

    [Fact]
    public void AStoredBodyLengthThatMissesTheTrailerGoesTheFullWayAndIsResentWithACorrectOne()
    {
        // BodyLength one too short: the quick read refuses it; the full index finds the fields (and the trailer) itself.
        const string body = "11=ID1|55=INTC|54=1|";
        byte[] stored = Stored("35=D|34=1|49=ISLD|52=" + StoredTime + "|56=TW44|" + body, bodyLengthError: -1);
        using var h = Replaying([stored]);
        byte[] resent = NextBytes(h);
        Assert.Equal(Expected("D", 1, SendingTimeOf(resent), "122=" + StoredTime + "|", body), Text(resent));
        Assert.Equal((0, 1), (h.Session.StoredMessagesCopiedForResend, h.Session.StoredMessagesIndexedForResend));
    }

    [Fact]
    public void AStoredMessageWithoutTheStandardPrefixIsGapFilledWithTheReasonLogged()
    {
        // Message 1 has SenderCompID before MsgType; message 2 is fine.
        byte[] bad = Stored("49=ISLD|35=D|34=1|52=" + StoredTime + "|56=TW44|11=ID1|");
        byte[] good = Stored("35=D|34=2|49=ISLD|52=" + StoredTime + "|56=TW44|11=ID2|");
        var log = new RecordingSessionLog();
        using var h = Replaying([bad, good], log);
        Sent gapFill = h.Expect("4");
        Assert.Equal("1", gapFill[34]);
        Assert.Equal("2", gapFill[36]);
        Assert.Equal("Y", gapFill[123]);
        byte[] resent = NextBytes(h);
        Assert.Equal(Expected("D", 2, SendingTimeOf(resent), "122=" + StoredTime + "|", "11=ID2|"), Text(resent));
        h.ExpectNothing();
        Assert.Contains(log.Events, e => e.Level == LogLevel.Warning && e.Text.Contains("Stored message 1 not resent (gap-filled)", StringComparison.Ordinal)
            && e.Text.Contains("MsgType(35)", StringComparison.Ordinal));
    }

    [Fact]
    public void AdminMessagesBetweenCopiedOnesAreGapFilledAndTheNextIsEncodedAgainAfterTheGapFill()
    {
        byte[] heartbeat = Stored("35=0|34=1|49=ISLD|52=" + StoredTime + "|56=TW44|");
        byte[] order = Stored("35=D|34=2|49=ISLD|52=" + StoredTime + "|56=TW44|11=ID2|55=INTC|");
        byte[] report = Stored("35=8|34=3|49=ISLD|52=" + StoredTime + "|56=TW44|37=O|17=E|150=0|39=0|");
        using var h = Replaying([heartbeat, order, report]);
        Sent gapFill = h.Expect("4");
        Assert.Equal("1", gapFill[34]);
        Assert.Equal("2", gapFill[36]);
        byte[] first = NextBytes(h);
        Assert.Equal(Expected("D", 2, SendingTimeOf(first), "122=" + StoredTime + "|", "11=ID2|55=INTC|"), Text(first));
        byte[] second = NextBytes(h);
        Assert.Equal(Expected("8", 3, SendingTimeOf(second), "122=" + StoredTime + "|", "37=O|17=E|150=0|39=0|"), Text(second));
        h.ExpectNothing();
    }
}
