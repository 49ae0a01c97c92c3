using System;
using System.IO;
using System.Linq;
using System.Threading;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.DependencyInjection;
using FixEngine.Engine;
using FixEngine.Session;
using Microsoft.Extensions.Logging.Abstractions;
using static FixEngine.Tests.Engine.DynamicSessionTests;
using static FixEngine.Tests.Engine.EngineTestSupport;

namespace FixEngine.Tests.Engine;

/// <summary>What a removed session or a disposed engine leaves behind: nothing (log producers, log files, the engine
/// thread's wake-up event), and its last log lines are on disk.</summary>
public sealed class SessionLifetimeLeakTests
{
    /// <summary>File handles this process holds under <paramref name="directory"/> (Linux: /proc/self/fd); -1 elsewhere.</summary>
    private static int OpenHandlesUnder(string directory)
    {
        if (!OperatingSystem.IsLinux()) return -1;
        string prefix = Path.GetFullPath(directory) + Path.DirectorySeparatorChar;
        int count = 0;
        foreach (string fd in Directory.GetFiles("/proc/self/fd"))
        {
            try
            {
                if (new FileInfo(fd).LinkTarget is string target && target.StartsWith(prefix, StringComparison.Ordinal)) count++;
            }
            catch (IOException)
            {
                // Closed while we looked (another test's descriptor).
            }
        }
        return count;
    }

    private static int OpenHandles(string path) => Logging.FixLogRetireTests.OpenHandles(path);

    [Fact]
    public void ASessionAddedAndRemoved50TimesLeavesNoLogProducerOrFileBehindAndItsLogoutIsInItsFile()
    {
        int port = 0;
        string dir = TempDirectory("fe-leak-log-");
        try
        {
            string logKeys = $"FileLogPath={dir}\nFileLogLayout=PerSessionFiles\n";
            using var logs = new FileSessionLogFactory();
            var app = new MultiApp();
            var lines = new System.Collections.Concurrent.ConcurrentQueue<string>();
            using (var acceptor = new FixEngineHost([AcceptorSession(port, "STAYS", logKeys)], app, new EngineOptions { SessionLogFactory = logs, Console = lines.Enqueue }))
            {
                acceptor.Start();
                port = EngineTestSupport.PortOf(acceptor);
                // The session that stays: two producers, two files.
                Assert.Equal((1, 2, 2), logs.Totals);
                string messages = Path.Combine(dir, "FIX.4.4-EXEC-DAILY.messages.log");
                string events = Path.Combine(dir, "FIX.4.4-EXEC-DAILY.event.log");
                SessionSettings daily = AcceptorSession(port, "DAILY", logKeys);
                for (int round = 0; round < 50; round++)
                {
                    FixSession added = acceptor.AddSession(daily);
                    Assert.Equal((1, 4, 4), logs.Totals);
                    if (OperatingSystem.IsLinux()) Assert.Equal(1, OpenHandles(messages));
                    Assert.True(acceptor.RemoveSession(added.Id));
                    Assert.Equal((1, 2, 2), logs.Totals);
                    if (OperatingSystem.IsLinux())
                    {
                        Assert.Equal(0, OpenHandles(messages));
                        Assert.Equal(0, OpenHandles(events));
                    }
                }

                // Removed while logged on: the Logout it sends, the peer's answer and its last events are in its files
                // as soon as RemoveSession returns (the files are closed, so complete).
                var clientApp = new MultiApp();
                using var client = new FixEngineHost([InitiatorSession(port, "DAILY")], clientApp);
                client.Start();
                for (int round = 1; round <= 3; round++)
                {
                    FixSession added = acceptor.AddSession(daily);
                    Assert.True(WaitFor(() => app.LogonsOf(added.Id) == round), string.Join(" | ", lines));
                    Assert.True(acceptor.RemoveSession(added.Id));
                    Assert.Equal((1, 2, 2), logs.Totals);
                    if (OperatingSystem.IsLinux())
                    {
                        Assert.Equal(0, OpenHandles(messages));
                        Assert.Equal(0, OpenHandles(events));
                    }
                    string[] sent = File.ReadAllLines(messages);
                    Assert.Equal(round, sent.Count(l => l.Contains(" > 8=FIX.4.4", StringComparison.Ordinal) && l.Contains("35=5", StringComparison.Ordinal)));
                    Assert.Equal(round, sent.Count(l => l.Contains(" < 8=FIX.4.4", StringComparison.Ordinal) && l.Contains("35=5", StringComparison.Ordinal)));
                    string[] happened = File.ReadAllLines(events);
                    Assert.Equal(round, happened.Count(l => l.Contains("Sent Logout: Session removed", StringComparison.Ordinal)));
                    Assert.Equal(round, happened.Count(l => l.Contains("Received Logout response", StringComparison.Ordinal)));
                }
            }
            // The engine disposed: the session that stayed has been handed back too; the factory's last FixLog is closed.
            Assert.Equal(0, logs.Totals.Logs);
            if (OperatingSystem.IsLinux()) Assert.Equal(0, OpenHandlesUnder(dir));
        }
        finally
        {
            DeleteDirectory(dir);
        }
    }

    [Fact]
    public void TheEnginesOwnLogFactoryClosesARemovedSessionsFilesToo()
    {
        int port = 0;
        string dir = TempDirectory("fe-leak-ownlog-");
        try
        {
            string logKeys = $"FileLogPath={dir}\nFileLogLayout=PerSessionFiles\n";
            using var acceptor = new FixEngineHost([AcceptorSession(port, "STAYS", logKeys)], new MultiApp());
            acceptor.Start();
            port = EngineTestSupport.PortOf(acceptor);
            SessionSettings daily = AcceptorSession(port, "DAILY", logKeys);
            for (int round = 0; round < 10; round++)
            {
                FixSession added = acceptor.AddSession(daily);
                Assert.True(acceptor.RemoveSession(added.Id));
            }
            if (OperatingSystem.IsLinux())
            {
                Assert.Equal(0, OpenHandles(Path.Combine(dir, "FIX.4.4-EXEC-DAILY.messages.log")));
                Assert.Equal(0, OpenHandles(Path.Combine(dir, "FIX.4.4-EXEC-DAILY.event.log")));
                Assert.Equal(2, OpenHandlesUnder(dir));
            }
        }
        finally
        {
            DeleteDirectory(dir);
        }
    }

    [Fact]
    public void TheLoggerFactoryHandsTheInnerLogBackToItsInnerFactory()
    {
        string dir = TempDirectory("fe-leak-ilogger-");
        try
        {
            SessionSettings settings = AcceptorSession(1234, "CLIENT", $"FileLogPath={dir}\nFileLogLayout=PerSessionFiles\n");
            using var inner = new FileSessionLogFactory();
            using var factory = new LoggerSessionLogFactory(NullLoggerFactory.Instance, inner);
            ISessionLog log = factory.Create(settings)!;
            log.OnEvent("hello", 0);
            Assert.Equal((1, 2, 2), inner.Totals);
            factory.Release(settings, log);
            Assert.Equal(0, inner.Totals.Logs);
            Assert.Contains("hello", File.ReadAllText(Path.Combine(dir, "FIX.4.4-EXEC-CLIENT.event.log")), StringComparison.Ordinal);
        }
        finally
        {
            DeleteDirectory(dir);
        }
    }

    [Fact]
    public void DisposedEnginesLeaveNoHandleOrWakeupBehindAndALateHandOffNeverThrows()
    {
        string dir = TempDirectory("fe-leak-engine-");
        try
        {
            string keys = $"FileLogPath={dir}\nFileLogLayout=PerSessionFiles\nFileStorePath={dir}\n";
            for (int i = 0; i < 20; i++)
            {
                var engine = new FixEngineHost([AcceptorSession(0, "CLIENT" + i, keys)], new MultiApp());
                engine.Start();
                FixSession kept = engine.Sessions[0];
                // An application thread keeps handing orders over (each signals the engine thread's wake-up: the session is
                // not logged on, so they wait) while the engine is disposed under it.
                Exception? failure = null;
                bool stop = false;
                var producer = new Thread(() =>
                {
                    try
                    {
                        while (!Volatile.Read(ref stop))
                        {
                            TryOrder(kept);
                        }
                    }
                    catch (Exception e)
                    {
                        failure = e;
                    }
                }) { IsBackground = true };
                producer.Start();
                Thread.Sleep(1);
                engine.Dispose();
                Assert.True(engine.AgentWakeup.IsDisposed);
                Thread.Sleep(1);
                Volatile.Write(ref stop, true);
                Assert.True(producer.Join(Wait));
                Assert.Null(failure);
                // Kept from before the dispose: refused, never thrown.
                Assert.False(TryOrder(kept));
                engine.Dispose();
                if (OperatingSystem.IsLinux()) Assert.Equal(0, OpenHandlesUnder(dir));
            }
        }
        finally
        {
            DeleteDirectory(dir);
        }
    }

    private static bool TryOrder(FixSession session) =>
        session.TrySendFromAnyThread(MsgTypes.NewOrderSingle, 1L, static (ref FixWriter w, scoped in long id) =>
        {
            w.Write(FixTags.ClOrdID, id);
            w.Write(FixTags.Symbol, "EURUSD"u8);
        });
}
