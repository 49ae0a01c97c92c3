using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading.Tasks;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Session;
using FixEngine.Tests.DependencyInjection;
using FixEngine.Tests.Infrastructure;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;

namespace FixEngine.Tests.Engine;

/// <summary>ContinueInitializationOnError (QuickFIX/J): with Y a session whose settings or files fail to load is left out
/// and named with its one-line error, and the others start; with N (the default) the engine refuses to start as before;
/// every session failing fails the start either way.</summary>
public sealed class ContinueInitializationOnErrorTests
{
    private sealed class App : IApplication
    {
        public FromAppResult FromApp(FixSession session, FixMessage message) => FromAppResult.Accepted;
    }

    // Line 9 is the bad session's DataDictionary.
    private static string Config(string continueOnError) => $"""
        [DEFAULT]
        ConnectionType=acceptor
        SocketAcceptPort=0
        NonStopSession=Y
        ContinueInitializationOnError={continueOnError}
        [SESSION]
        BeginString=FIX.4.2
        SenderCompID=ACC
        DataDictionary=no-such-dictionary.xml
        TargetCompID=BAD
        [SESSION]
        BeginString=FIX.4.2
        SenderCompID=ACC
        TargetCompID=GOOD
        UseDataDictionary=N
        """;

    private const string BadDictionary = "acceptor.cfg(9): DataDictionary: the data dictionary 'no-such-dictionary.xml' does not exist";

    [Fact]
    public void YesStartsTheGoodSessionAndNamesTheBadOne()
    {
        var lines = new ConcurrentQueue<string>();
        using var engine = new FixEngineHost(SettingsFile.Parse(Config("Y"), "acceptor.cfg"), new App(), new EngineOptions { Console = lines.Enqueue });
        FixSession good = Assert.Single(engine.Sessions);
        Assert.Equal("GOOD", good.Id.TargetCompID);
        SkippedSession skipped = Assert.Single(engine.SkippedSessions);
        Assert.Equal("FIX.4.2:ACC->BAD", skipped.Session);
        Assert.StartsWith(BadDictionary, Assert.IsType<ConfigException>(skipped.Error).Message, StringComparison.Ordinal);
        Assert.Contains(lines, l => l.StartsWith("Session FIX.4.2:ACC->BAD not started (ContinueInitializationOnError=Y): " + BadDictionary, StringComparison.Ordinal));
        engine.Start();
        Assert.NotEqual(0, EngineTestSupport.PortOf(engine));
    }

    [Fact]
    public void NoRefusesToStartAsBefore()
    {
        var e = Assert.Throws<ConfigException>(() => new FixEngineHost(SettingsFile.Parse(Config("N"), "acceptor.cfg"), new App()));
        Assert.StartsWith(BadDictionary, e.Message, StringComparison.Ordinal);
        // Not set at all: the same (one line less above the dictionary).
        e = Assert.Throws<ConfigException>(() => new FixEngineHost(SettingsFile.Parse(Config("N").Replace("ContinueInitializationOnError=N\n", ""), "acceptor.cfg"), new App()));
        Assert.StartsWith(BadDictionary.Replace("(9)", "(8)"), e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void EverySessionFailingStillFailsTheStart()
    {
        string allBad = Config("Y").Replace("UseDataDictionary=N", "DataDictionary=no-such-dictionary.xml");
        var e = Assert.Throws<ConfigException>(() => new FixEngineHost(SettingsFile.Parse(allBad, "acceptor.cfg"), new App(), new EngineOptions { Console = _ => { } }));
        Assert.StartsWith(BadDictionary, e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void ASessionWhoseSettingsDoNotLoadIsLeftOutOfTheFile()
    {
        // A bad value and an unknown key, each in its own [SESSION]: with Y only those sessions fail.
        string text = Config("Y").Replace("DataDictionary=no-such-dictionary.xml", "HeartBtInt=often")
            + "\n[SESSION]\nBeginString=FIX.4.2\nSenderCompID=ACC\nTargetCompID=TYPO\nUseDataDictionary=N\nResetOnLogn=Y\n";
        IReadOnlyList<SessionSettings> sessions = SettingsFile.Parse(text, "acceptor.cfg");
        Assert.Equal("GOOD", Assert.Single(sessions).TargetCompID);

        var lines = new ConcurrentQueue<string>();
        using var engine = new FixEngineHost(sessions, new App(), new EngineOptions { Console = lines.Enqueue });
        Assert.Equal(["FIX.4.2:ACC->BAD: acceptor.cfg(9): HeartBtInt: 'often' is not an integer",
            "FIX.4.2:ACC->TYPO: acceptor.cfg(21): ResetOnLogn: unknown key (did you mean ResetOnLogon?)"],
            engine.SkippedSessions.Select(s => s.ToString()));
        Assert.Equal(2, lines.Count(l => l.Contains("not started (ContinueInitializationOnError=Y): acceptor.cfg(", StringComparison.Ordinal)));

        // With N the file does not load at all, with the first error.
        Assert.Equal("acceptor.cfg(9): HeartBtInt: 'often' is not an integer",
            Assert.Throws<ConfigException>(() => SettingsFile.Parse(text.Replace("ContinueInitializationOnError=Y", "ContinueInitializationOnError=N"), "acceptor.cfg")).Message);
    }

    [Fact]
    public void FromSettingsFileStartsTheGoodSession()
    {
        string path = Path.Combine(Path.GetTempPath(), "fixengine-ciioe-" + Guid.NewGuid().ToString("N") + ".cfg");
        File.WriteAllText(path, Config("Y"));
        try
        {
            var lines = new ConcurrentQueue<string>();
            using FixEngineHost engine = FixEngineHost.FromSettingsFile(path, new App(), lines.Enqueue);
            Assert.Single(engine.Sessions);
            Assert.Equal("FIX.4.2:ACC->BAD", Assert.Single(engine.SkippedSessions).Session);
            Assert.Contains(lines, l => l.Contains(path + "(9): DataDictionary: ", StringComparison.Ordinal));
        }
        finally
        {
            File.Delete(path);
        }
    }

    [Fact]
    public async Task TheHostingPackageLogsTheSkippedSessionAsAnError()
    {
        Dictionary<string, string?> values = HostedAcceptor.Config();
        values["FixEngine:Default:ContinueInitializationOnError"] = "Y";
        values["FixEngine:Sessions:1:BeginString"] = "FIX.4.4";
        values["FixEngine:Sessions:1:SenderCompID"] = "EXEC";
        values["FixEngine:Sessions:1:TargetCompID"] = "BAD";
        values["FixEngine:Sessions:1:UseDataDictionary"] = "Y";
        values["FixEngine:Sessions:1:DataDictionary"] = "no-such-dictionary.xml";
        var logs = new CapturingLoggerProvider();
        using IHost host = HostedAcceptor.Build(values, b => b.Logging.AddProvider(logs));
        await host.StartAsync();
        try
        {
            FixEngineHost engine = host.Services.GetRequiredService<FixEngineHost>();
            Assert.Equal("CLIENT", Assert.Single(engine.Sessions).Id.TargetCompID);
            SkippedSession skipped = Assert.Single(engine.SkippedSessions);
            Assert.StartsWith("FixEngine:Sessions:1: DataDictionary: the data dictionary 'no-such-dictionary.xml' does not exist", skipped.Error.Message, StringComparison.Ordinal);
            Assert.Contains(logs.Lines, l => l.Level == LogLevel.Error
                && l.Text.StartsWith("Session FIX.4.4:EXEC->BAD not started (ContinueInitializationOnError=Y): FixEngine:Sessions:1: DataDictionary: ", StringComparison.Ordinal));
        }
        finally
        {
            await host.StopAsync();
        }
    }
}
