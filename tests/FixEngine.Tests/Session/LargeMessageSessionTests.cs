using System;
using System.Text;
using FixEngine.Codec;
using FixEngine.Session;
using FixEngine.Tests.Infrastructure;
using FixEngine.Transport;

namespace FixEngine.Tests.Session;

/// <summary>A message with more fields than a default index holds (1,024): a FIX.4.4 MarketDataSnapshotFullRefresh with
/// 1,000 NoMDEntries entries of four fields (4,000+ fields, ~30 KB) reaches the application whole, and a stored one is
/// resent whole. Before, the session's index stopped at its capacity: validation and the application saw the message
/// cut short, and a resend re-encoded only what was indexed.</summary>
public sealed class LargeMessageSessionTests
{
    private const int Entries = 1000;

    private static readonly FixGroupDefinition MDEntries = new(268, 269, [269, 270, 271, 290]);

    private sealed class SnapshotApp : IApplication
    {
        public int Snapshots;
        public int GroupCount = -1;
        public FixGroupStatus GroupStatus;
        public long SizeSum;
        public bool SawCheckSum;

        public FromAppResult FromApp(FixEngine.Session.FixSession session, FixMessage message)
        {
            if (!message.MsgType.SequenceEqual("W"u8)) return FromAppResult.UnsupportedMessageType;
            Snapshots++;
            FixGroup group = message.GetGroup(MDEntries);
            GroupStatus = group.Status;
            GroupCount = 0;
            foreach (FixMessage entry in group)
            {
                GroupCount++;
                if (entry.TryGetLong(271, out long size) == FixValueStatus.Ok) SizeSum += size;
            }
            SawCheckSum = message.GetTag(message.Count - 1) == FixTags.CheckSum;
            return FromAppResult.Accepted;
        }
    }

    private static string Body(int entries)
    {
        var sb = new StringBuilder("262=MDREQ-1|55=MSFT|268=").Append(entries);
        for (int i = 0; i < entries; i++)
        {
            sb.Append("|269=").Append(i & 1).Append("|270=").Append(200 + i).Append(".25|271=").Append(100 * (i + 1)).Append("|290=").Append(i / 2 + 1);
        }
        return sb.ToString();
    }

    private static long ExpectedSizeSum(int entries) => 100L * entries * (entries + 1) / 2;

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public void ASnapshotWithMoreFieldsThanTheDefaultIndexReachesTheApplicationWhole(bool dictionary)
    {
        var app = new SnapshotApp();
        using var h = new SessionHarness("FIX.4.4", s => s with { UseDataDictionary = dictionary }, application: app);
        h.Logon();
        h.Receive("35=W|34=2|" + Body(Entries));
        h.ExpectNothing();
        Assert.Equal(1, app.Snapshots);
        Assert.Equal(FixGroupStatus.Ok, app.GroupStatus);
        Assert.Equal(Entries, app.GroupCount);
        Assert.Equal(ExpectedSizeSum(Entries), app.SizeSum);
        Assert.True(app.SawCheckSum, "the message view ends before its CheckSum");
        Assert.Equal(3, h.Session.NextTargetMsgSeqNum);

        // The next large message is read as whole with the grown index; a small one after it too.
        h.Receive("35=W|34=3|" + Body(Entries));
        Assert.Equal(2, app.Snapshots);
        Assert.Equal(Entries, app.GroupCount);
        h.Receive("35=W|34=4|" + Body(3));
        Assert.Equal(3, app.Snapshots);
        Assert.Equal(3, app.GroupCount);
    }

    [Fact]
    public void AStoredSnapshotWithMoreFieldsThanTheDefaultIndexIsResentWhole()
    {
        using var h = new SessionHarness("FIX.4.4", application: new SnapshotApp());
        h.Logon();
        string body = Body(Entries);
        SendResult result = h.Session.Send("W"u8, body, static (ref FixWriter w, scoped in string fields) =>
        {
            foreach (string field in fields.Split('|'))
            {
                int eq = field.IndexOf('=');
                w.Write(int.Parse(field.AsSpan(0, eq), System.Globalization.CultureInfo.InvariantCulture), Encoding.ASCII.GetBytes(field[(eq + 1)..]));
            }
        }, h.Now);
        Assert.Equal(SendResult.Sent, result);
        Sent original = h.Expect("W");
        Assert.Equal("2", original[34]);

        h.Receive("35=2|34=2|7=2|16=0");
        Sent resent = h.Expect("W");
        Assert.Equal("2", resent[34]);
        Assert.Equal("Y", resent[43]);
        // Every entry is there, in order, and the message ends with a CheckSum over all of it.
        string originalBody = original.Text[original.Text.IndexOf("|262=", StringComparison.Ordinal)..original.Text.LastIndexOf("|10=", StringComparison.Ordinal)];
        string resentBody = resent.Text[resent.Text.IndexOf("|262=", StringComparison.Ordinal)..resent.Text.LastIndexOf("|10=", StringComparison.Ordinal)];
        Assert.Equal(originalBody, resentBody);
        Assert.Equal(Entries, CountOf(resent.Text, "|269="));
        Assert.True(FixFramer.Frame(h.Connection.Sent[h.Read - 1], 1 << 20).IsComplete, "the resent message does not frame (BodyLength or CheckSum)");
    }

    private static int CountOf(string text, string what)
    {
        int n = 0;
        for (int i = text.IndexOf(what, StringComparison.Ordinal); i >= 0; i = text.IndexOf(what, i + 1, StringComparison.Ordinal)) n++;
        return n;
    }
}

/// <summary>The grown index's cost: a session that keeps receiving large snapshots allocates nothing after the first
/// (the grown index is reused), and an index larger than <see cref="FixMessageIndexPool.RetainMaxFields"/> (a message
/// of tens of thousands of fields, as a hostile peer can send) is not kept after its message.</summary>
[Collection(nameof(AllocationMeasurement))]
public sealed class LargeMessageAllocationTests
{
    private static readonly FixGroupDefinition MDEntries = new(268, 269, [269, 270, 271, 290]);

    /// <summary>Reads every entry of a snapshot's group without allocating.</summary>
    private sealed class CountingApp : IApplication
    {
        public long Entries;

        public FromAppResult FromApp(FixEngine.Session.FixSession session, FixMessage message)
        {
            if (!message.MsgType.SequenceEqual("W"u8)) return FromAppResult.UnsupportedMessageType;
            foreach (FixMessage entry in message.GetGroup(MDEntries))
            {
                if (entry.TryGetLong(271, out _) == FixValueStatus.Ok) Entries++;
            }
            return FromAppResult.Accepted;
        }
    }

    private static string Snapshot(int seq, int entries)
    {
        var sb = new StringBuilder("35=W|34=").Append(seq).Append("|262=MDREQ-1|55=MSFT|268=").Append(entries);
        for (int i = 0; i < entries; i++) sb.Append("|269=").Append(i & 1).Append("|270=").Append(200 + i).Append(".25|271=").Append(100 * (i + 1)).Append("|290=1");
        return sb.ToString();
    }

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public void RepeatedSnapshotsLargerThanTheDefaultIndexAllocateNothingAfterTheFirst(bool dictionary)
    {
        const int Entries = 1000, Warmup = 3, PerWindow = 4, Rounds = 3;
        var app = new CountingApp();
        using var h = new SessionHarness("FIX.4.4", s => s with { UseDataDictionary = dictionary }, application: app);
        h.Logon();
        h.Connection.CaptureEnabled = false;
        // Built before measuring (the harness builds messages as strings): seq 2 on.
        var frames = new byte[Warmup + PerWindow * Rounds][];
        for (int i = 0; i < frames.Length; i++) frames[i] = h.Build(Snapshot(2 + i, Entries));
        int next = 0;
        for (; next < Warmup; next++) h.Session.OnMessage(frames[next], h.Now);
        long allocated = Allocations.BestWindow(() =>
        {
            for (int i = 0; i < PerWindow; i++, next++) h.Session.OnMessage(frames[next], h.Now);
        }, rounds: Rounds);
        Assert.Equal(0, allocated);
        Assert.True(app.Entries >= (long)Entries * (Warmup + PerWindow), $"the application read {app.Entries} entries");
        Assert.True(h.Session.NextTargetMsgSeqNum >= 2 + Warmup + PerWindow, "every snapshot was taken in");
    }

    [Fact]
    public void AnIndexOverTheRetainLimitIsNotKeptAfterItsMessage()
    {
        // 5,000 entries: 20,000+ fields, past the 16,384 kept; the message reaches the application whole.
        const int Entries = 5000;
        var app = new CountingApp();
        using var h = new SessionHarness("FIX.4.4", s => s with { UseDataDictionary = false }, application: app);
        h.Logon();
        h.Connection.CaptureEnabled = false;
        byte[] first = h.Build(Snapshot(2, Entries));
        byte[] second = h.Build(Snapshot(3, Entries));
        h.Session.OnMessage(first, h.Now);
        Assert.Equal(Entries, app.Entries);
        // Had the first message's index been kept, the second would be read with it, allocating nothing.
        long before = GC.GetAllocatedBytesForCurrentThread();
        h.Session.OnMessage(second, h.Now);
        long allocated = GC.GetAllocatedBytesForCurrentThread() - before;
        Assert.Equal(2L * Entries, app.Entries);
        Assert.True(allocated > 16L * FixMessageIndexPool.RetainMaxFields, $"{allocated} B: the large index was kept for reuse");
    }

    [Fact]
    public void ThePoolKeepsAnIndexUpToTheLimitAndDropsALargerOne()
    {
        FixMessageIndex held = FixMessageIndexPool.Rent(); // empties this thread's slot
        var kept = new FixMessageIndex(FixMessageIndexPool.RetainMaxFields);
        FixMessageIndexPool.Return(kept);
        FixMessageIndex again = FixMessageIndexPool.Rent();
        Assert.Same(kept, again);

        var dropped = new FixMessageIndex(FixMessageIndexPool.RetainMaxFields + 1);
        FixMessageIndexPool.Return(dropped);
        var rented = new FixMessageIndex[40];
        for (int i = 0; i < rented.Length; i++)
        {
            rented[i] = FixMessageIndexPool.Rent();
            Assert.NotSame(dropped, rented[i]);
        }
        foreach (FixMessageIndex r in rented) FixMessageIndexPool.Return(r);
        FixMessageIndexPool.Return(again);
        FixMessageIndexPool.Return(held);
    }
}
