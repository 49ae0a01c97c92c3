using System;
using System.IO;
using FixEngine.Store;

namespace FixEngine.Tests.Session;

/// <summary>
/// Warm standby: a standby session opens the same journal as the primary (shared file stores) before the primary runs;
/// when the primary is gone and the peer logs on to the standby, RefreshOnLogon makes the standby resume from the
/// journal; without it the standby keeps what it loaded when it opened.
/// </summary>
public sealed class RefreshOnLogonTests
{
    private static readonly FileMessageStoreOptions s_shared = new() { SharedAccess = true };

    private static string Order(SessionHarness h, int seq) => $"35=D|34={seq}|11=ID{seq}|21=3|38=100|40=1|54=1|55=INTC|60={h.Time()}";

    private static void RunPrimary(string dir, long now)
    {
        using var primary = new SessionHarness("FIX.4.2", s => s with { ResetOnLogon = false, RefreshOnLogon = true }, new FileMessageStore(dir, "s1", now, s_shared));
        primary.Logon();
        primary.Receive(Order(primary, 2));
        primary.Expect("D");
        primary.Receive(Order(primary, 3));
        primary.Expect("D");
        Assert.Equal(4, primary.Session.NextSenderMsgSeqNum);
        Assert.Equal(4, primary.Session.NextTargetMsgSeqNum);
        // The primary dies here (no logout): its journal is all the standby has.
    }

    [Fact]
    public void StandbyWithRefreshOnLogonResumesThePrimarysSequenceNumbersAndMessages()
    {
        string dir = Path.Combine(Path.GetTempPath(), "fixengine-refresh-" + Guid.NewGuid().ToString("N"));
        try
        {
            long now = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds() * 1_000_000L;
            using var standby = new SessionHarness("FIX.4.2", s => s with { ResetOnLogon = false, RefreshOnLogon = true }, new FileMessageStore(dir, "s1", now, s_shared), connect: false);
            Assert.Equal(1, standby.Session.NextSenderMsgSeqNum);
            RunPrimary(dir, now);
            Assert.Equal(1, standby.Session.NextSenderMsgSeqNum);

            standby.Connect();
            standby.Receive("35=A|34=4|98=0|108=30");
            Sent logon = standby.Expect("A");
            Assert.Equal("4", logon[34]);
            standby.ExpectNothing();
            Assert.Equal(5, standby.Session.NextTargetMsgSeqNum);
            // The primary's orders are resendable from the standby.
            standby.Receive("35=2|34=5|7=2|16=3");
            Sent first = standby.Expect("D");
            Assert.Equal("2", first[34]);
            Assert.Equal("Y", first[43]);
            Assert.Equal("ID2", first[11]);
            Assert.Equal("ID3", standby.Expect("D")[11]);
            standby.Receive(Order(standby, 6));
            Assert.Equal("5", standby.Expect("D")[34]);
        }
        finally
        {
            if (Directory.Exists(dir)) Directory.Delete(dir, true);
        }
    }

    [Fact]
    public void StandbyWithoutRefreshOnLogonKeepsWhatItLoadedAtStart()
    {
        string dir = Path.Combine(Path.GetTempPath(), "fixengine-refresh-" + Guid.NewGuid().ToString("N"));
        try
        {
            long now = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds() * 1_000_000L;
            using var standby = new SessionHarness("FIX.4.2", s => s with { ResetOnLogon = false }, new FileMessageStore(dir, "s1", now, s_shared), connect: false);
            RunPrimary(dir, now);

            standby.Connect();
            standby.Receive("35=A|34=4|98=0|108=30");
            // Still at 1/1: answers with MsgSeqNum 1 and asks for 1.. as the Logon's 4 is too high.
            Assert.Equal("1", standby.Expect("A")[34]);
            Sent resend = standby.Expect("2");
            Assert.Equal("1", resend[7]);
        }
        finally
        {
            if (Directory.Exists(dir)) Directory.Delete(dir, true);
        }
    }

    [Fact]
    public void InitiatorRefreshesBeforeSendingItsLogon()
    {
        string dir = Path.Combine(Path.GetTempPath(), "fixengine-refresh-" + Guid.NewGuid().ToString("N"));
        try
        {
            long now = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds() * 1_000_000L;
            Func<FixEngine.Config.SessionSettings, FixEngine.Config.SessionSettings> initiator = s => s with
            {
                ConnectionType = FixEngine.Config.ConnectionType.Initiator,
                SocketConnectHost = "localhost",
                SocketConnectPort = 5001,
                HeartBtInt = 30,
                ResetOnLogon = false,
                RefreshOnLogon = true,
            };
            using var standby = new SessionHarness("FIX.4.2", initiator, new FileMessageStore(dir, "s1", now, s_shared), connect: false);
            using (var writer = new FileMessageStore(dir, "s1", now, s_shared))
            {
                writer.SetNextSenderMsgSeqNum(7);
                writer.SetNextTargetMsgSeqNum(9);
            }
            Assert.Equal(1, standby.Session.NextSenderMsgSeqNum);
            standby.Connect();
            Assert.Equal("7", standby.Expect("A")[34]);
            Assert.Equal(9, standby.Session.NextTargetMsgSeqNum);
        }
        finally
        {
            if (Directory.Exists(dir)) Directory.Delete(dir, true);
        }
    }
}
