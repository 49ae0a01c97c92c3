using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text;
using System.Threading;
using FixEngine.Logging;
using FixEngine.Session;
using FixEngine.Tests.Infrastructure;

namespace FixEngine.Tests.Logging;

/// <summary>The message log as an audit trail: nothing lost when the ring is full (the caller waits), one entry is one
/// line whatever the counterparty sent, levels, and QuickFIX's per-session file layout.</summary>
public class AuditLogTests
{
    private static readonly TimeSpan s_wait = TimeSpan.FromSeconds(30);

    private static string[] Lines(string text) => text.Split('\n', StringSplitOptions.RemoveEmptyEntries);

    private static string Text(string line) => line[(line.IndexOf(']') + 2)..];

    [Fact]
    public void AFullRingMakesTheCallerWaitAndLosesNothingInManualMode()
    {
        var sink = new StringWriter();
        var log = new FixLog(sink, new FixLogOptions { BackgroundDrain = false, RingCapacityBytes = 4096 });
        int id = log.RegisterEvent("n={0} {payload}");
        LogProducer producer = log.CreateProducer("p");
        // 64-byte records without payload and 100-byte ones with: the 4 KiB ring is full many times over.
        for (int i = 0; i < 5_000; i++)
        {
            if (i % 2 == 0) producer.Log(LogLevel.Information, id, i);
            else producer.Log(LogLevel.Information, id, i, "35=D\u000111=X\u0001"u8);
        }
        log.Dispose();
        string[] lines = Lines(sink.ToString());
        Assert.Equal(5_000, lines.Length);
        for (int i = 0; i < lines.Length; i++) Assert.StartsWith($"n={i}", Text(lines[i]));
        Assert.Equal(0, producer.DroppedCount);
        Assert.True(producer.WaitCount > 0, "the ring never filled: the test did not exercise the wait");
        Assert.DoesNotContain(lines, l => l.Contains("dropped"));
    }

    [Fact]
    public void AProducerFasterThanABlockedSinkWaitsForItAndEveryLineArrivesInOrder()
    {
        var sink = new GatedWriter();
        using var log = new FixLog(sink, new FixLogOptions { RingCapacityBytes = 4096 });
        int id = log.RegisterEvent("n={0}");
        LogProducer producer = log.CreateProducer("p");
        const int Entries = 20_000;
        var thread = new Thread(() =>
        {
            for (int i = 0; i < Entries; i++) producer.Log(LogLevel.Information, id, i);
        });
        thread.Start();
        // The sink takes nothing until released: the producer fills the 64-entry ring and the drain's 64 KiB char
        // buffer, then has to wait.
        Assert.True(EngineWait(() => producer.WaitCount > 0), "the producer never waited");
        Assert.True(thread.IsAlive, "the producer finished while the sink was blocked: entries were lost");
        sink.Release();
        Assert.True(thread.Join(s_wait), "the producer did not finish after the sink was released");
        Assert.True(log.Flush(s_wait));
        string[] lines = Lines(sink.ToString());
        Assert.Equal(Entries, lines.Length);
        for (int i = 0; i < lines.Length; i++) Assert.Equal($"n={i}", Text(lines[i]));
        Assert.Equal(0, producer.DroppedCount);
    }

    [Fact]
    public void AfterDisposeAFullRingDropsInsteadOfWaitingForever()
    {
        var log = new FixLog(TextWriter.Null, new FixLogOptions { RingCapacityBytes = 4096 });
        int id = log.RegisterEvent("n={0}");
        LogProducer producer = log.CreateProducer("p");
        log.Dispose();
        for (int i = 0; i < 200; i++) producer.Log(LogLevel.Information, id, i);
        Assert.Equal(136, producer.DroppedCount);
    }

    [Fact]
    public void AForgedLineInAFieldValueStaysInsideItsOwnLine()
    {
        var writer = new StringWriter();
        using (var fixLog = new FixLog(writer, new FixLogOptions { SohReplacement = '|' }))
        {
            var log = new FixLogSessionLog(fixLog, "FIX.4.4:EXEC->CLIENT");
            byte[] message = Encoding.ASCII.GetBytes(
                "8=FIX.4.4\u000135=D\u000158=x\n2026-11-25T10:00:00.000000000Z INF [FIX.4.4:EXEC->GOOD] Disconnected: FORGED-BY-CLIENT\r\u000110=000\u0001");
            log.OnIncoming(message, 0);
            log.OnEvent("Reject sent: text was x\ny", 0);
            Assert.True(fixLog.Flush(s_wait));
        }
        string[] lines = Lines(writer.ToString());
        Assert.Equal(2, lines.Length);
        Assert.EndsWith(@"< 8=FIX.4.4|35=D|58=x\n2026-11-25T10:00:00.000000000Z INF [FIX.4.4:EXEC->GOOD] Disconnected: FORGED-BY-CLIENT\r|10=000|", lines[0]);
        Assert.EndsWith(@"Reject sent: text was x\ny", lines[1]);
        Assert.DoesNotContain(lines, l => l.Contains("EXEC->GOOD] Disconnected", StringComparison.Ordinal) && l.StartsWith("2026-11-25T10", StringComparison.Ordinal));
    }

    [Fact]
    public void EveryControlAndNonAsciiByteIsEscapedReversibly()
    {
        var writer = new StringWriter();
        var log = new FixLog(writer, new FixLogOptions { BackgroundDrain = false });
        int id = log.RegisterEvent("{payload}");
        LogProducer producer = log.CreateProducer("p");
        byte[] all = new byte[256];
        for (int i = 0; i < 256; i++) all[i] = (byte)i;
        producer.Log(LogLevel.Information, id, all);
        log.Dispose();
        string line = Lines(writer.ToString()).Single();
        string text = Text(line);
        Assert.All(text, c => Assert.True(c == '\u0001' || (c >= 0x20 && c < 0x7F), $"raw char 0x{(int)c:X2} in the line"));
        Assert.Equal(all, Unescape(text));
    }

    [Fact]
    public void EventsCarryTheirLevel()
    {
        var writer = new StringWriter();
        using (var fixLog = new FixLog(writer))
        {
            ISessionLog log = new FixLogSessionLog(fixLog, "S");
            log.OnEvent("Logon received", 0);
            log.OnEvent(LogLevel.Warning, "Reject sent: Invalid tag number", 0);
            log.OnEvent(LogLevel.Error, "Disconnected: MsgSeqNum too low", 0);
            Assert.True(fixLog.Flush(s_wait));
        }
        string[] lines = Lines(writer.ToString());
        Assert.Contains(" INF [S] Logon received", lines[0]);
        Assert.Contains(" WRN [S] Reject sent: Invalid tag number", lines[1]);
        Assert.Contains(" ERR [S] Disconnected: MsgSeqNum too low", lines[2]);
    }

    [Fact]
    public void AMinimumLevelOfWarningKeepsOnlyRejectsAndDisconnects()
    {
        var writer = new StringWriter();
        using (var fixLog = new FixLog(writer, new FixLogOptions { MinimumLevel = LogLevel.Warning }))
        {
            var log = new FixLogSessionLog(fixLog, "S");
            log.OnIncoming("8=FIX.4.4\u000135=0\u0001"u8, 0);
            log.OnEvent("Logon received", 0);
            log.OnEvent(LogLevel.Error, "Disconnected", 0);
            Assert.True(fixLog.Flush(s_wait));
        }
        Assert.Contains(" ERR [S] Disconnected", Lines(writer.ToString()).Single());
    }

    [Fact]
    public void AnOlderSessionLogWithoutLevelsStillGetsLevelledEvents()
    {
        var old = new TextOnlyLog();
        ((ISessionLog)old).OnEvent(LogLevel.Error, "Disconnected", 5);
        Assert.Equal(["Disconnected"], old.Events);
        NullSessionLog.Instance.OnEvent(LogLevel.Error, "ignored", 0);
    }

    [Fact]
    public void PerSessionFilesSplitMessagesFromEventsForEachSession()
    {
        string directory = Path.Combine(Path.GetTempPath(), "fixlog-layout-" + Guid.NewGuid().ToString("N"));
        try
        {
            string a = FixLogSessionLog.FilePrefix("FIX.4.4", "EXEC", "CLIENT");
            string b = FixLogSessionLog.FilePrefix("FIX.4.2", "EXEC", "OTHER/DESK", "q1");
            Assert.Equal("FIX.4.4-EXEC-CLIENT", a);
            Assert.Equal("FIX.4.2-EXEC-OTHER_DESK-q1", b);
            using (var fixLog = new FixLog(TextWriter.Null, new FixLogOptions { SohReplacement = '|' }))
            {
                var logA = FixLogSessionLog.CreatePerSessionFiles(fixLog, directory, "FIX.4.4:EXEC->CLIENT", a);
                var logB = FixLogSessionLog.CreatePerSessionFiles(fixLog, directory, "FIX.4.2:EXEC->OTHER/DESK", b);
                logA.OnIncoming("8=FIX.4.4\u000135=A\u0001"u8, 0);
                logB.OnIncoming("8=FIX.4.2\u000135=A\u0001"u8, 0);
                logA.OnEvent("Logon received", 0);
                logA.OnOutgoing("8=FIX.4.4\u000135=A\u0001"u8, 0);
                logB.OnEvent(LogLevel.Error, "Disconnected", 0);
                Assert.True(fixLog.Flush(s_wait));
            }
            Assert.Equal(
                new[] { b + ".event.log", b + ".messages.log", a + ".event.log", a + ".messages.log" },
                Directory.GetFiles(directory).Select(f => Path.GetFileName(f)!).Order(StringComparer.Ordinal).ToArray());
            string[] aMessages = File.ReadAllLines(Path.Combine(directory, a + ".messages.log"));
            Assert.Equal(2, aMessages.Length);
            Assert.EndsWith("< 8=FIX.4.4|35=A|", aMessages[0]);
            Assert.EndsWith("> 8=FIX.4.4|35=A|", aMessages[1]);
            Assert.EndsWith("INF [FIX.4.4:EXEC->CLIENT] Logon received", File.ReadAllLines(Path.Combine(directory, a + ".event.log")).Single());
            Assert.EndsWith("< 8=FIX.4.2|35=A|", File.ReadAllLines(Path.Combine(directory, b + ".messages.log")).Single());
            Assert.EndsWith("ERR [FIX.4.2:EXEC->OTHER/DESK] Disconnected", File.ReadAllLines(Path.Combine(directory, b + ".event.log")).Single());
        }
        finally
        {
            if (Directory.Exists(directory)) Directory.Delete(directory, true);
        }
    }

    private static bool EngineWait(Func<bool> condition)
    {
        var watch = System.Diagnostics.Stopwatch.StartNew();
        while (watch.Elapsed < s_wait)
        {
            if (condition()) return true;
            Thread.Sleep(2);
        }
        return condition();
    }

    private static byte[] Unescape(string text)
    {
        var bytes = new List<byte>();
        for (int i = 0; i < text.Length; i++)
        {
            char c = text[i];
            if (c != '\\')
            {
                bytes.Add((byte)c);
                continue;
            }
            char e = text[++i];
            switch (e)
            {
                case 'n': bytes.Add((byte)'\n'); break;
                case 'r': bytes.Add((byte)'\r'); break;
                case 't': bytes.Add((byte)'\t'); break;
                case '\\': bytes.Add((byte)'\\'); break;
                case 'x':
                    bytes.Add(Convert.ToByte(text.Substring(i + 1, 2), 16));
                    i += 2;
                    break;
                default: throw new FormatException($"unknown escape \\{e} at {i}");
            }
        }
        return bytes.ToArray();
    }

    /// <summary>A sink whose writes block until released.</summary>
    private sealed class GatedWriter : StringWriter
    {
        private readonly ManualResetEventSlim _open = new(false);

        public void Release() => _open.Set();

        public override void Write(char[] buffer, int index, int count)
        {
            _open.Wait();
            base.Write(buffer, index, count);
        }
    }

    private sealed class TextOnlyLog : ISessionLog
    {
        public List<string> Events { get; } = [];

        public void OnIncoming(ReadOnlySpan<byte> message, long epochNs)
        {
        }

        public void OnOutgoing(ReadOnlySpan<byte> message, long epochNs)
        {
        }

        public void OnEvent(string text, long epochNs) => Events.Add(text);
    }
}

[Collection(nameof(AllocationMeasurement))]
public class AuditLogAllocationTests
{
    [Fact]
    public void WaitingForRoomAllocatesNothing()
    {
        var log = new FixLog(TextWriter.Null, new FixLogOptions { BackgroundDrain = false, RingCapacityBytes = 4096 });
        int id = log.RegisterEvent("x={0} {payload}");
        LogProducer producer = log.CreateProducer("wait");
        byte[] payload = Encoding.ASCII.GetBytes("8=FIX.4.4\u00019=12\u000135=0\u000158=a\nb\u0001");
        long bytes = Allocations.Measure(() =>
        {
            producer.Log(LogLevel.Information, id, 1);
            producer.Log(LogLevel.Information, id, 2, payload);
        }, warmup: 1_000, iterations: 10_000);
        Assert.Equal(0, bytes);
        Assert.True(producer.WaitCount > 100);
        Assert.Equal(0, producer.DroppedCount);
        log.Dispose();
    }

    [Fact]
    public void SessionLogMessagesAllocateNothingInEitherLayout()
    {
        string directory = Path.Combine(Path.GetTempPath(), "fixlog-alloc-" + Guid.NewGuid().ToString("N"));
        try
        {
            using var fixLog = new FixLog(TextWriter.Null, new FixLogOptions { Clock = SessionLogClock.Instance, RingCapacityBytes = 64 << 20 });
            var shared = new FixLogSessionLog(fixLog, "A");
            var split = FixLogSessionLog.CreatePerSessionFiles(fixLog, directory, "B");
            byte[] message = Encoding.ASCII.GetBytes("8=FIX.4.4\u00019=12\u000135=0\u000110=000\u0001");
            long now = 1;
            long bytes = Allocations.Measure(() =>
            {
                now++;
                shared.OnIncoming(message, now);
                shared.OnOutgoing(message, now);
                split.OnIncoming(message, now);
                split.OnOutgoing(message, now);
            }, warmup: 1_000, iterations: 20_000);
            Assert.Equal(0, bytes);
            Assert.Equal(0, shared.DroppedCount + split.DroppedCount);
        }
        finally
        {
            if (Directory.Exists(directory)) Directory.Delete(directory, true);
        }
    }
}
