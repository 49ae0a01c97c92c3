using System.IO;
using FixEngine.Logging;
using FixEngine.Session;
using FixEngine.Store;

namespace FixEngine.Tests.Session;

public sealed class SessionLogTests
{
    [Fact]
    public void MessagesAndEventsGoToTheStructLogger()
    {
        var writer = new StringWriter();
        using (var fixLog = new FixLog(writer))
        {
            var log = new FixLogSessionLog(fixLog, "FIX.4.2:ISLD->TW42");
            log.OnIncoming("8=FIX.4.2\u000135=0\u0001"u8, 0);
            log.OnOutgoing("8=FIX.4.2\u000135=A\u0001"u8, 0);
            log.OnEvent("Logon received", 0);
            Assert.True(fixLog.Flush(System.TimeSpan.FromSeconds(5)));
        }
        string text = writer.ToString();
        Assert.Contains("35=0", text);
        Assert.Contains("35=A", text);
        Assert.Contains("Logon received", text);
        Assert.Contains("ISLD->TW42", text);
    }

    [Fact]
    public void WithTheSessionLogClockEntriesCarryTheTimeTheSessionWasGiven()
    {
        var writer = new StringWriter();
        long incoming = new System.DateTimeOffset(2021, 3, 4, 5, 6, 7, System.TimeSpan.Zero).ToUnixTimeMilliseconds() * 1_000_000L + 123_456_789L;
        long outgoing = incoming + 1_000_000_000L;
        using (var fixLog = new FixLog(writer, new FixLogOptions { Clock = SessionLogClock.Instance }))
        {
            var log = new FixLogSessionLog(fixLog, "FIX.4.4:A->B");
            log.OnIncoming("8=FIX.4.4\u000135=0\u0001"u8, incoming);
            log.OnOutgoing("8=FIX.4.4\u000135=A\u0001"u8, outgoing);
            log.OnEvent("Logon received", outgoing + 5);
            Assert.True(fixLog.Flush(System.TimeSpan.FromSeconds(5)));
        }
        string[] lines = writer.ToString().Split('\n', System.StringSplitOptions.RemoveEmptyEntries);
        Assert.Equal(3, lines.Length);
        Assert.StartsWith("2021-03-04T05:06:07.123456789Z", lines[0]);
        Assert.StartsWith("2021-03-04T05:06:08.123456789Z", lines[1]);
        Assert.StartsWith("2021-03-04T05:06:08.123456794Z", lines[2]);
    }
}
