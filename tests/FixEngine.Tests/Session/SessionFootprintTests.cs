using System;
using System.Collections.Generic;
using System.Text;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Session;
using FixEngine.Store;
using FixEngine.Tests.Infrastructure;

namespace FixEngine.Tests.Session;

/// <summary>A configured session holds a few KB until it sends: its encode buffer and its TrySendFromAnyThread
/// hand-off grow on demand (up to MaxMessageSize and 1 MiB), and a message larger than what they hold so far still
/// goes out whole.</summary>
[Collection(nameof(AllocationMeasurement))]
public sealed class SessionFootprintTests
{
    private const int Sessions = 1_000;

    private static SessionSettings Settings(int i) => new()
    {
        ConnectionType = ConnectionType.Acceptor,
        BeginString = "FIX.4.4",
        SenderCompID = "GW",
        TargetCompID = "C" + i.ToString(System.Globalization.CultureInfo.InvariantCulture),
        SocketAcceptPort = 5001,
        NonStopSession = true,
    };

    [Fact]
    public void AThousandConfiguredSessionsReserveAFewKilobytesEach()
    {
        var settings = new SessionSettings[Sessions];
        var stores = new MemoryMessageStore[Sessions];
        for (int i = 0; i < Sessions; i++)
        {
            settings[i] = Settings(i);
            stores[i] = new MemoryMessageStore(1);
        }
        var sessions = new List<FixEngine.Session.FixSession>(Sessions);
        try
        {
            long before = GC.GetAllocatedBytesForCurrentThread();
            for (int i = 0; i < Sessions; i++) sessions.Add(new FixEngine.Session.FixSession(settings[i], new EchoApp(), stores[i]));
            long perSession = (GC.GetAllocatedBytesForCurrentThread() - before) / Sessions;
            // Before: a 1 MiB hand-off ring and a 1 MiB encode buffer per session, whether it ever sent or not.
            Assert.InRange(perSession, 1, 16 * 1024);
            foreach (FixEngine.Session.FixSession session in sessions) Assert.Equal(SessionHeaderWriter.InitialBufferBytes, session.SendBufferBytes);
        }
        finally
        {
            foreach (FixEngine.Session.FixSession session in sessions) session.Dispose();
        }
    }

    [Fact]
    public void AMessageLargerThanTheFirstEncodeBufferIsSentWhole()
    {
        using var h = new SessionHarness("FIX.4.4");
        h.Logon();
        string text = new('x', 200_000);
        h.Session.Send(MsgTypes.News, text, static (ref FixWriter w, scoped in string t) =>
        {
            w.Write(FixTags.Headline, "big"u8);
            w.Write(FixTags.Text, Encoding.ASCII.GetBytes(t));
        });
        Sent m = h.Expect("B");
        Assert.Equal(text, m[FixTags.Text]);
        Assert.Equal("2", m[FixTags.MsgSeqNum]);
        Assert.InRange(h.Session.SendBufferBytes, 200_000, 512 * 1024);
        // Later messages go out as before, in the grown buffer; the stored copy resends whole.
        h.Session.Send(MsgTypes.Heartbeat, 0, static (ref FixWriter w, scoped in int _) => { });
        Assert.Equal("3", h.Expect("0")[FixTags.MsgSeqNum]);
        h.Receive("35=2|34=2|7=2|16=2");
        Sent again = h.Expect("B");
        Assert.Equal("Y", again[FixTags.PossDupFlag]);
        Assert.Equal(text, again[FixTags.Text]);
    }

    [Fact]
    public void AMessageLargerThanMaxMessageSizeIsStillRefused()
    {
        using var h = new SessionHarness("FIX.4.4", s => s with { MaxMessageSize = 8192 });
        h.Logon();
        int before = h.Session.NextSenderMsgSeqNum;
        h.Session.Send(MsgTypes.News, 0, static (ref FixWriter w, scoped in int _) => w.Write(FixTags.Text, Encoding.ASCII.GetBytes(new string('z', 20_000))));
        h.ExpectNothing();
        Assert.Equal(before, h.Session.NextSenderMsgSeqNum);
        Assert.Equal(8192 + SessionHeaderWriter.HeaderAllowanceBytes, h.Session.SendBufferBytes);
    }

    [Fact]
    public void HandedOverMessagesLargerThanTheFirstRingGoOutInOrder()
    {
        using var h = new SessionHarness("FIX.4.4");
        h.Logon();
        // Nothing drains while these are handed over: the hand-off grows from its first 16 KiB ring, in order.
        var sizes = new[] { 100, 30_000, 100, 200_000, 5_000, 100 };
        for (int i = 0; i < sizes.Length; i++)
        {
            Assert.True(h.Session.TrySendFromAnyThread(MsgTypes.News, i, sizes[i], static (ref FixWriter w, scoped in int size) =>
            {
                w.Write(FixTags.Headline, "h"u8);
                w.Write(FixTags.Text, Encoding.ASCII.GetBytes(new string('y', size)));
            }), "hand-off " + i + " refused");
        }
        Assert.InRange(h.Session.SendBufferBytes, 200_000, 2 * 1024 * 1024);
        h.Session.Poll(h.Now);
        for (int i = 0; i < sizes.Length; i++)
        {
            Sent m = h.Expect("B");
            Assert.Equal((i + 2).ToString(System.Globalization.CultureInfo.InvariantCulture), m[FixTags.MsgSeqNum]);
            Assert.Equal(sizes[i], m[FixTags.Text]!.Length);
        }
        h.ExpectNothing();
    }
}
