using System;
using System.IO;
using System.Linq;
using System.Threading;
using FixEngine.Logging;
using FixEngine.Session;

namespace FixEngine.Tests.Logging;

/// <summary><see cref="FixLog.Retire"/>: a producer whose thread is done (a removed session) leaves the drain's list with
/// everything it logged written, and the file it wrote (the last producer on it) is closed.</summary>
public class FixLogRetireTests
{
    private static readonly TimeSpan s_wait = TimeSpan.FromSeconds(20);

    /// <summary>File handles this process holds on <paramref name="path"/> (Linux: /proc/self/fd); -1 elsewhere.</summary>
    internal static int OpenHandles(string path)
    {
        if (!OperatingSystem.IsLinux()) return -1;
        string full = Path.GetFullPath(path);
        int count = 0;
        foreach (string fd in Directory.GetFiles("/proc/self/fd"))
        {
            try
            {
                if (new FileInfo(fd).LinkTarget == full) count++;
            }
            catch (IOException)
            {
                // The descriptor closed while we looked (another test's file).
            }
        }
        return count;
    }

    private static string TempDir() => Path.Combine(Path.GetTempPath(), "fixlog-retire-" + Guid.NewGuid().ToString("N"));

    [Fact]
    public void AddingAndRetiringASessionsProducers50TimesKeepsTheCountsAndHandlesFlatAndLosesNoLine()
    {
        string dir = TempDir();
        try
        {
            // A small ring with the default Wait policy: each round's producer fills it, so its last lines are still in the
            // ring (not yet drained) when it stops, and the retirement has to drain them.
            using var log = new FixLog(TextWriter.Null, new FixLogOptions { RingCapacityBytes = 4096 });
            int line = log.RegisterEvent("round {0} line {1}");
            int logout = log.RegisterEvent("round {0} Logout");
            // A session that stays, with its own file: the log and its drain keep running throughout.
            LogProducer stays = log.CreateProducer("STAYS", Path.Combine(dir, "stays.log"));
            string messages = Path.Combine(dir, "daily.messages.log");
            string events = Path.Combine(dir, "daily.event.log");
            const int Rounds = 50;
            const int Lines = 300;
            for (int round = 0; round < Rounds; round++)
            {
                LogProducer m = log.CreateProducer("DAILY", messages);
                LogProducer e = log.CreateProducer("DAILY", events);
                Assert.Equal(3, log.ProducerCount);
                Assert.Equal(3, log.OpenFileCount);
                // The session's own thread logs, then stops (as a removed session's last line is its Logout).
                var session = new Thread(() =>
                {
                    for (int i = 0; i < Lines; i++) m.Log(LogLevel.Information, line, round, i);
                    e.Log(LogLevel.Information, logout, round);
                });
                session.Start();
                Assert.True(session.Join(s_wait));
                stays.Log(LogLevel.Information, line, round, -1);

                Assert.True(log.Retire(m, s_wait));
                Assert.True(log.Retire(e, s_wait));
                Assert.True(m.IsRetired);
                Assert.Equal(1, log.ProducerCount);
                Assert.Equal(1, log.OpenFileCount);
                if (OperatingSystem.IsLinux())
                {
                    Assert.Equal(0, OpenHandles(messages));
                    Assert.Equal(0, OpenHandles(events));
                    Assert.Equal(1, OpenHandles(Path.Combine(dir, "stays.log")));
                }
                // Closed, so complete on disk: this round's last lines are there.
                Assert.EndsWith($"[DAILY] round {round} line {Lines - 1}", File.ReadLines(messages).Last());
                Assert.EndsWith($"[DAILY] round {round} Logout", File.ReadLines(events).Last());
            }
            string[] all = File.ReadAllLines(messages);
            Assert.Equal(Rounds * Lines, all.Length);
            for (int round = 0; round < Rounds; round++)
            {
                for (int i = 0; i < Lines; i++) Assert.EndsWith($"round {round} line {i}", all[round * Lines + i]);
            }
            Assert.Equal(Rounds, File.ReadAllLines(events).Length);
            Assert.Equal(0, log.SinkErrors);
            Assert.True(log.Flush(s_wait));
            Assert.Equal(Rounds * Lines + Rounds + Rounds, log.LinesWritten);
        }
        finally
        {
            if (Directory.Exists(dir)) Directory.Delete(dir, recursive: true);
        }
    }

    [Fact]
    public void AFileSharedByTwoProducersStaysOpenUntilTheLastIsRetired()
    {
        string dir = TempDir();
        try
        {
            string path = Path.Combine(dir, "shared.log");
            using var log = new FixLog(TextWriter.Null);
            int id = log.RegisterEvent("{0}");
            LogProducer a = log.CreateProducer("A", path);
            LogProducer b = log.CreateProducer("B", path);
            a.Log(LogLevel.Information, id, 1);
            Assert.True(log.Retire(a, s_wait));
            Assert.Equal(1, log.OpenFileCount);
            if (OperatingSystem.IsLinux()) Assert.Equal(1, OpenHandles(path));
            b.Log(LogLevel.Information, id, 2);
            Assert.True(log.Retire(b, s_wait));
            Assert.Equal(0, log.OpenFileCount);
            Assert.Equal(0, log.ProducerCount);
            if (OperatingSystem.IsLinux()) Assert.Equal(0, OpenHandles(path));
            Assert.Equal(["[A] 1", "[B] 2"], File.ReadAllLines(path).Select(l => l[(l.IndexOf('[', StringComparison.Ordinal))..]).ToArray());
            // The path opens again for a new producer, appending.
            LogProducer c = log.CreateProducer("C", path);
            c.Log(LogLevel.Information, id, 3);
            Assert.True(log.Retire(c, s_wait));
            Assert.Equal(3, File.ReadAllLines(path).Length);
        }
        finally
        {
            if (Directory.Exists(dir)) Directory.Delete(dir, recursive: true);
        }
    }

    [Fact]
    public void InManualDrainModeRetireWritesEverythingBeforeItReturns()
    {
        var sink = new StringWriter();
        using var log = new FixLog(sink, new FixLogOptions { BackgroundDrain = false });
        int id = log.RegisterEvent("n={0}");
        LogProducer stays = log.CreateProducer("stays");
        LogProducer p = log.CreateProducer("gone");
        for (int i = 0; i < 3; i++) p.Log(LogLevel.Information, id, i);
        stays.Log(LogLevel.Information, id, 9);
        Assert.True(log.Retire(p, TimeSpan.Zero));
        // Retire drained the retired ring only; the other waits for DrainPending as before.
        Assert.Equal(["[gone] n=0", "[gone] n=1", "[gone] n=2"], sink.ToString().Split('\n', StringSplitOptions.RemoveEmptyEntries).Select(l => l[l.IndexOf('[', StringComparison.Ordinal)..]).ToArray());
        Assert.Equal(1, log.ProducerCount);
        Assert.Equal(1, log.DrainPending());
        // Retiring again is harmless.
        Assert.True(log.Retire(p, TimeSpan.Zero));
    }

    [Fact]
    public void AProducerLoggingAfterItsRetirementDropsInsteadOfWaitingForever()
    {
        // Misuse (the thread did not stop first): with the Wait policy a full ring waits for the drain, which no longer
        // reads a retired ring; the call must give up and count the drop.
        foreach (bool background in new[] { false, true })
        {
            using var log = new FixLog(TextWriter.Null, new FixLogOptions { BackgroundDrain = background, RingCapacityBytes = 4096 });
            int id = log.RegisterEvent("x={0}");
            LogProducer p = log.CreateProducer("late");
            Assert.True(log.Retire(p, s_wait));
            var writer = new Thread(() =>
            {
                for (int i = 0; i < 500; i++) p.Log(LogLevel.Information, id, i);
            }) { IsBackground = true };
            writer.Start();
            Assert.True(writer.Join(s_wait), "a retired producer's full ring waited for a drain that never comes");
            Assert.True(p.DroppedCount > 0);
        }
    }

    [Fact]
    public void RetireAfterDisposeAndOfAnotherLogsProducer()
    {
        var log = new FixLog(TextWriter.Null);
        LogProducer p = log.CreateProducer("p");
        using var other = new FixLog(TextWriter.Null);
        ArgumentException e = Assert.Throws<ArgumentException>(() => other.Retire(p, s_wait));
        Assert.Contains("'p'", e.Message, StringComparison.Ordinal);
        log.Dispose();
        Assert.True(log.Retire(p, s_wait));
        Assert.True(p.IsRetired);
        Assert.Throws<ObjectDisposedException>(() => log.CreateProducer("q"));
    }

    [Fact]
    public void TheSameTemplateRegisteredAgainKeepsItsId()
    {
        using var log = new FixLog(TextWriter.Null);
        int a = log.RegisterEvent("< {payload}");
        int b = log.RegisterEvent("> {payload}");
        Assert.NotEqual(a, b);
        // Each session log registers its templates: 100 sessions do not grow the table.
        for (int i = 0; i < 100; i++)
        {
            using var sessionLog = new FixLogSessionLog(log, "S" + i);
            Assert.Equal(a, log.RegisterEvent("< {payload}"));
        }
        Assert.Equal(b, log.RegisterEvent("> {payload}"));
        Assert.Equal(b + 2, log.RegisterEvent("new {0}"));
    }

    [Fact]
    public void ASessionLogDisposedReleasesItsProducersAndFiles()
    {
        string dir = TempDir();
        try
        {
            using var log = new FixLog(TextWriter.Null);
            FixLogSessionLog session = FixLogSessionLog.CreatePerSessionFiles(log, dir, "FIX.4.4:A->B", "FIX.4.4-A-B");
            session.OnOutgoing("8=FIX.4.4\u00019=5\u000135=5\u000110=000\u0001"u8, 0);
            session.OnEvent("Sent Logout", 0);
            Assert.Equal(2, log.ProducerCount);
            Assert.Equal(2, log.OpenFileCount);
            session.Dispose();
            Assert.True(session.IsDisposed);
            Assert.Equal(0, log.ProducerCount);
            Assert.Equal(0, log.OpenFileCount);
            Assert.Contains("35=5", File.ReadAllText(Path.Combine(dir, "FIX.4.4-A-B.messages.log")), StringComparison.Ordinal);
            Assert.Contains("Sent Logout", File.ReadAllText(Path.Combine(dir, "FIX.4.4-A-B.event.log")), StringComparison.Ordinal);
            session.Dispose();
        }
        finally
        {
            if (Directory.Exists(dir)) Directory.Delete(dir, recursive: true);
        }
    }
}
