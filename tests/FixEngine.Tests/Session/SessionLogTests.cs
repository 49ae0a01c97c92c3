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
}
