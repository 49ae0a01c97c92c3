using System;
using System.IO;
using FixEngine.Session;
using FixEngine.Store;

namespace FixEngine.Tests.Session;

public sealed class SessionStoreTests
{
    [Fact]
    public void SessionResumesSequenceNumbersFromFileStoreAfterRestart()
    {
        string dir = Path.Combine(Path.GetTempPath(), "fixengine-session-" + Guid.NewGuid().ToString("N"));
        try
        {
            long now = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds() * 1_000_000L;
            using (var h = new SessionHarness("FIX.4.2", s => s with { ResetOnLogon = false }, new FileMessageStore(dir, "s1", now)))
            {
                h.Logon();
                h.Receive($"35=D|34=2|11=A|21=3|38=100|40=1|54=1|55=INTC|60={h.Time()}");
                h.Expect("D");
                h.Receive("35=5|34=3");
                h.Expect("5");
                Assert.Equal(4, h.Session.NextTargetMsgSeqNum);
                Assert.Equal(4, h.Session.NextSenderMsgSeqNum);
            }
            using (var h = new SessionHarness("FIX.4.2", s => s with { ResetOnLogon = false }, new FileMessageStore(dir, "s1", now)))
            {
                Assert.Equal(4, h.Session.NextTargetMsgSeqNum);
                Assert.Equal(4, h.Session.NextSenderMsgSeqNum);
                h.Receive("35=A|34=4|98=0|108=30");
                Assert.Equal("4", h.Expect("A")[34]);
                // The order sent before the restart is still resendable from the journal.
                h.Receive("35=2|34=5|7=2|16=2");
                Sent resent = h.Expect("D");
                Assert.Equal("2", resent[34]);
                Assert.Equal("Y", resent[43]);
            }
        }
        finally
        {
            if (Directory.Exists(dir)) Directory.Delete(dir, true);
        }
    }

    [Fact]
    public void ResetOnLogoutAndResetOnDisconnectResetTheStore()
    {
        using (var h = new SessionHarness("FIX.4.2", s => s with { ResetOnLogout = true }))
        {
            h.Logon();
            h.Receive("35=5|34=2");
            h.Expect("5");
            Assert.Equal(1, h.Session.NextSenderMsgSeqNum);
            Assert.Equal(1, h.Session.NextTargetMsgSeqNum);
        }
        using (var h = new SessionHarness("FIX.4.2", s => s with { ResetOnDisconnect = true }))
        {
            h.Logon();
            h.Session.OnDisconnected("peer closed", h.Now);
            Assert.Equal(1, h.Session.NextSenderMsgSeqNum);
            Assert.Equal(1, h.App.Logouts);
        }
    }

    [Fact]
    public void NewSchedulePeriodResetsSequenceNumbers()
    {
        var start = new TimeOnly(8, 0);
        var end = new TimeOnly(17, 0);
        using var h = new SessionHarness("FIX.4.2", s => s with { NonStopSession = false, StartTime = start, EndTime = end, ResetOnLogon = false });
        h.Logon();
        Assert.Equal(2, h.Session.NextSenderMsgSeqNum);
        h.Advance(6 * 3600 * SessionHarness.Second);
        Assert.Equal("5", h.Expect("5")[35]);
        h.Session.OnDisconnected("closed", h.Now);
        h.Advance(16 * 3600 * SessionHarness.Second);
        Assert.Equal(1, h.Session.NextSenderMsgSeqNum);
        Assert.Equal(1, h.Session.NextTargetMsgSeqNum);
    }
}
