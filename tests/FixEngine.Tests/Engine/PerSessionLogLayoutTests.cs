using System;
using System.IO;
using System.Linq;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Session;
using static FixEngine.Tests.Engine.DynamicSessionTests;
using static FixEngine.Tests.Engine.EngineTestSupport;

namespace FixEngine.Tests.Engine;

/// <summary>Issue #16 / #14 item 3: <c>FileLogLayout=PerSessionFiles</c> gives each session QuickFIX's
/// <c>BeginString-SenderCompID-TargetCompID.messages.log</c> and <c>.event.log</c> under FileLogPath.</summary>
public sealed class PerSessionLogLayoutTests
{
    [Fact]
    public void TheKeyParsesAndWritesBackAndABadValueNamesTheKey()
    {
        SessionSettings s = AcceptorSession(1234, "CLIENT", "FileLogPath=logs\nFileLogLayout=PerSessionFiles\n");
        Assert.Equal(SessionLogLayout.PerSessionFiles, s.FileLogLayout);
        Assert.Equal(SessionLogLayout.SharedFile, AcceptorSession(1234, "CLIENT").FileLogLayout);
        Assert.Contains("FileLogLayout=PerSessionFiles", SettingsFile.ToSettingsText(s), StringComparison.Ordinal);
        ConfigException e = Assert.Throws<ConfigException>(() => AcceptorSession(1234, "CLIENT", "FileLogLayout=PerSession\n"));
        Assert.Equal("FileLogLayout", e.Key);
        Assert.Equal(7, e.LineNumber);
    }

    [Fact]
    public void AnEngineWithPerSessionFilesWritesEachSessionsMessagesAndEventsApart()
    {
        int port = 0;
        string dir = TempDirectory("fe-per-session-log-");
        try
        {
            string logKeys = $"FileLogPath={dir}\nFileLogLayout=PerSessionFiles\n";
            var acceptorApp = new MultiApp();
            using (var acceptor = new FixEngineHost([AcceptorSession(port, "CLIENT", logKeys), AcceptorSession(port, "OTHER", logKeys)], acceptorApp))
            {
                acceptor.Start();
                port = EngineTestSupport.PortOf(acceptor);
                var clientApp = new MultiApp();
                using (var client = new FixEngineHost([InitiatorSession(port, "CLIENT")], clientApp))
                {
                    client.Start();
                    Assert.True(WaitFor(() => clientApp.LogonsOf(new SessionId("FIX.4.4", "CLIENT", "EXEC")) == 1));
                    for (int i = 0; i < 10; i++) SendOrder(client.Sessions[0], i);
                    Assert.True(WaitFor(() => clientApp.FillsOf(new SessionId("FIX.4.4", "CLIENT", "EXEC")) == 10));
                    client.Stop(TimeSpan.FromSeconds(10));
                }
            }
            // Disposing the engine flushed and closed its logs.
            Assert.Equal(
                ["FIX.4.4-EXEC-CLIENT.event.log", "FIX.4.4-EXEC-CLIENT.messages.log", "FIX.4.4-EXEC-OTHER.event.log", "FIX.4.4-EXEC-OTHER.messages.log"],
                Directory.GetFiles(dir).Select(f => Path.GetFileName(f)!).Order(StringComparer.Ordinal).ToArray());
            string[] messages = File.ReadAllLines(Path.Combine(dir, "FIX.4.4-EXEC-CLIENT.messages.log"));
            Assert.Equal(10, messages.Count(l => l.Contains("< 8=FIX.4.4", StringComparison.Ordinal) && l.Contains("35=D", StringComparison.Ordinal)));
            Assert.Equal(10, messages.Count(l => l.Contains("> 8=FIX.4.4", StringComparison.Ordinal) && l.Contains("35=8", StringComparison.Ordinal)));
            Assert.Contains(messages, l => l.Contains("35=A", StringComparison.Ordinal));
            Assert.DoesNotContain(messages, l => !l.Contains(" < 8=", StringComparison.Ordinal) && !l.Contains(" > 8=", StringComparison.Ordinal));
            string[] events = File.ReadAllLines(Path.Combine(dir, "FIX.4.4-EXEC-CLIENT.event.log"));
            Assert.NotEmpty(events);
            Assert.All(events, l => Assert.DoesNotContain("8=FIX.4.4", l, StringComparison.Ordinal));
            Assert.Empty(File.ReadAllLines(Path.Combine(dir, "FIX.4.4-EXEC-OTHER.messages.log")));
        }
        finally
        {
            DeleteDirectory(dir);
        }
    }
}
