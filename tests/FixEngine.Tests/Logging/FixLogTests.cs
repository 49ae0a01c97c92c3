using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Text;
using System.Threading;
using FixEngine.Logging;
using FixEngine.Timing;
using FixEngine.Tests.Infrastructure;

namespace FixEngine.Tests.Logging;

public class FixLogTests
{
    private static readonly TimeSpan s_wait = TimeSpan.FromSeconds(20);

    // 2026-01-02T03:04:05.123456789Z
    private static readonly long s_epochNs = (new DateTime(2026, 1, 2, 3, 4, 5, DateTimeKind.Utc) - DateTime.UnixEpoch).Ticks * 100 + 123_456_789;

    private static string[] Lines(StringWriter writer) =>
        writer.ToString().Split('\n', StringSplitOptions.RemoveEmptyEntries);

    [Fact]
    public void FormatsTemplateArgumentsPayloadAndTimestamp()
    {
        var clock = new FakeClock(nowNs: 5_000, epochNs: s_epochNs);
        var sink = new StringWriter();
        var log = new FixLog(sink, new FixLogOptions { Clock = clock, BackgroundDrain = false, SohReplacement = '|' });
        int sent = log.RegisterEvent("sent seq={0} len={1}: {payload}");
        int plain = log.RegisterEvent("logon {{ok}} heartbeat={0}s");
        LogProducer producer = log.CreateProducer("FIX.4.4:A->B");
        producer.Log(LogLevel.Information, sent, 42, 17, "8=FIX.4.4\u00019=5\u0001"u8);
        clock.Advance(1_000);
        producer.Log(LogLevel.Warning, plain, 30);
        producer.LogText(LogLevel.Error, sent, "héllo");
        producer.Log(LogLevel.Information, 999, 1, 2);
        Assert.Equal(4, log.DrainPending());
        string[] lines = Lines(sink);
        Assert.Equal(
        [
            "2026-01-02T03:04:05.123456789Z INF [FIX.4.4:A->B] sent seq=42 len=17: 8=FIX.4.4|9=5|",
            "2026-01-02T03:04:05.123457789Z WRN [FIX.4.4:A->B] logon {ok} heartbeat=30s",
            "2026-01-02T03:04:05.123457789Z ERR [FIX.4.4:A->B] sent seq=0 len=0: h?llo",
            "2026-01-02T03:04:05.123457789Z INF [FIX.4.4:A->B] event#999 1 2",
        ], lines);
        log.Dispose();
    }

    [Fact]
    public void DefaultClockRecordsRawTicksAndTheDrainFormatsThemAsEpochTime()
    {
        var sink = new StringWriter();
        var log = new FixLog(sink, new FixLogOptions { BackgroundDrain = false, RingCapacityBytes = 4096, FullPolicy = LogFullPolicy.Drop });
        int id = log.RegisterEvent("x={0}");
        LogProducer producer = log.CreateProducer("p");
        long before = EpochClock.Shared.EpochNs;
        for (int i = 0; i < 70; i++) producer.Log(LogLevel.Information, id, i); // 64 fit, 6 dropped
        log.Dispose(); // drains, then writes the drop line with a timestamp read at dispose
        long after = EpochClock.Shared.EpochNs;
        string[] lines = Lines(sink);
        Assert.Equal(65, lines.Length);
        Assert.EndsWith("dropped 6 entries", lines[^1]);
        long previous = long.MinValue;
        foreach (string line in lines)
        {
            // Converted with the same anchor as before/after; 1 ms of slack covers a re-anchor step in between.
            long logged = ParseEpochNs(line);
            Assert.InRange(logged, before - 1_000_000, after + 1_000_000);
            Assert.True(logged >= previous, "timestamps go backwards");
            previous = logged;
        }
    }

    [Fact]
    public void CallerSuppliedTimeIsWrittenAsGivenWithoutReadingTheClock()
    {
        var clock = new FakeClock(nowNs: 5_000, epochNs: s_epochNs);
        var sink = new StringWriter();
        var log = new FixLog(sink, new FixLogOptions { Clock = clock, BackgroundDrain = false, SohReplacement = '|' });
        int id = log.RegisterEvent("seq={0} {1}");
        int payloadEvent = log.RegisterEvent("{0}: {payload}");
        LogProducer producer = log.CreateProducer("p");
        producer.LogAt(5_250, LogLevel.Information, id, 1, 2);
        producer.LogAt(5_000 + 1_000_000, LogLevel.Warning, payloadEvent, 3, "35=0\u0001"u8);
        producer.LogAt(4_000, LogLevel.Error, id, 1, 2, 3, 4);
        producer.LogAt(6_000, LogLevel.Information, id);
        producer.LogAt(6_001, LogLevel.Information, id, 9);
        producer.LogAt(6_002, LogLevel.Information, payloadEvent, "x"u8);
        producer.LogAt(6_003, LogLevel.Debug, id, 1, 2); // below the minimum level: skipped
        producer.Log(LogLevel.Information, id, 7, 8); // reads the clock: 5_000
        Assert.Equal(7, log.DrainPending());
        Assert.Equal(
        [
            "2026-01-02T03:04:05.123457039Z INF [p] seq=1 2",
            "2026-01-02T03:04:05.124456789Z WRN [p] 3: 35=0|",
            "2026-01-02T03:04:05.123455789Z ERR [p] seq=1 2",
            "2026-01-02T03:04:05.123457789Z INF [p] seq=0 0",
            "2026-01-02T03:04:05.123457790Z INF [p] seq=9 0",
            "2026-01-02T03:04:05.123457791Z INF [p] 0: x",
            "2026-01-02T03:04:05.123456789Z INF [p] seq=7 8",
        ], Lines(sink));
        Assert.Equal(5_000, clock.NowNs);
        log.Dispose();
    }

    [Fact]
    public void CallerSuppliedTimeStampsTheDropMarkerToo()
    {
        var clock = new FakeClock(nowNs: 0, epochNs: s_epochNs);
        var sink = new StringWriter();
        var log = new FixLog(sink, new FixLogOptions { Clock = clock, BackgroundDrain = false, RingCapacityBytes = 4096, FullPolicy = LogFullPolicy.Drop });
        int id = log.RegisterEvent("x={0}");
        LogProducer producer = log.CreateProducer("p");
        for (int i = 0; i < 70; i++) producer.LogAt(1_000 + i, LogLevel.Information, id, i); // 64 fit, 6 dropped
        Assert.Equal(64, log.DrainPending());
        producer.LogAt(2_000, LogLevel.Information, id, 70);
        Assert.Equal(2, log.DrainPending());
        string[] lines = Lines(sink);
        Assert.Equal("2026-01-02T03:04:05.123457852Z INF [p] x=63", lines[63]);
        Assert.Equal("2026-01-02T03:04:05.123458789Z WRN [p] dropped 6 entries", lines[64]);
        Assert.Equal("2026-01-02T03:04:05.123458789Z INF [p] x=70", lines[65]);
        log.Dispose();
    }

    [Fact]
    public void DefaultClockFormatsCallerTimeFromHighResTime()
    {
        var sink = new StringWriter();
        var log = new FixLog(sink, new FixLogOptions { BackgroundDrain = false });
        int id = log.RegisterEvent("x={0}");
        LogProducer producer = log.CreateProducer("p");
        long before = EpochClock.Shared.EpochNs;
        producer.LogAt(HighResTime.NowNs(), LogLevel.Information, id, 1);
        producer.LogAt(TscClock.NowNs(), LogLevel.Information, id, 2);
        producer.Log(LogLevel.Information, id, 3);
        log.DrainPending();
        long after = EpochClock.Shared.EpochNs;
        log.Dispose();
        string[] lines = Lines(sink);
        Assert.Equal(3, lines.Length);
        foreach (string line in lines)
        {
            // 2 ms of slack: TscClock follows HighResTime within its calibration error, and a re-anchor may step EpochClock.
            Assert.InRange(ParseEpochNs(line), before - 2_000_000, after + 2_000_000);
        }
    }

    [Fact]
    public void CachedClockTimestampsFormatAsItsEpochTime()
    {
        using var clock = new CachedClock();
        var sink = new StringWriter();
        var log = new FixLog(sink, new FixLogOptions { BackgroundDrain = false, Clock = clock });
        int id = log.RegisterEvent("x={0}");
        LogProducer producer = log.CreateProducer("p");
        long before = clock.EpochNs;
        producer.Log(LogLevel.Information, id, 1);
        log.DrainPending();
        long after = clock.EpochNs;
        log.Dispose();
        // NowNs and EpochNs are refreshed separately and may come from adjacent refreshes: allow a few intervals.
        Assert.InRange(ParseEpochNs(Lines(sink).Single()), before - 100_000_000, after + 100_000_000);
    }

    private static long ParseEpochNs(string line)
    {
        // yyyy-MM-ddTHH:mm:ss.fffffffffZ
        DateTime seconds = DateTime.ParseExact(line[..19], "yyyy-MM-dd'T'HH:mm:ss", CultureInfo.InvariantCulture,
            DateTimeStyles.AdjustToUniversal | DateTimeStyles.AssumeUniversal);
        Assert.Equal('Z', line[29]);
        return (seconds - DateTime.UnixEpoch).Ticks * 100 + long.Parse(line[20..29], CultureInfo.InvariantCulture);
    }

    [Fact]
    public void EntriesBelowTheMinimumLevelAreSkipped()
    {
        var sink = new StringWriter();
        var log = new FixLog(sink, new FixLogOptions { BackgroundDrain = false, MinimumLevel = LogLevel.Warning });
        int id = log.RegisterEvent("x={0}");
        LogProducer producer = log.CreateProducer("p");
        Assert.False(producer.IsEnabled(LogLevel.Information));
        Assert.True(producer.IsEnabled(LogLevel.Error));
        producer.Log(LogLevel.Information, id, 1);
        producer.Log(LogLevel.Error, id, 2);
        log.MinimumLevel = LogLevel.Trace;
        producer.Log(LogLevel.Trace, id, 3);
        log.MinimumLevel = LogLevel.None;
        producer.Log(LogLevel.Critical, id, 4);
        log.DrainPending();
        string[] lines = Lines(sink);
        Assert.Equal(2, lines.Length);
        Assert.EndsWith("ERR [p] x=2", lines[0]);
        Assert.EndsWith("TRC [p] x=3", lines[1]);
        log.Dispose();
    }

    [Theory]
    [InlineData("bad {4}", "{4}", 4)]
    [InlineData("bad {name} here", "{name}", 4)]
    [InlineData("open { here", "Unclosed", 5)]
    [InlineData("close } here", "Unbalanced", 6)]
    public void BadTemplatesAreRejectedWithTheOffset(string template, string expected, int offset)
    {
        using var log = new FixLog(TextWriter.Null, new FixLogOptions { BackgroundDrain = false });
        var ex = Assert.Throws<ArgumentException>(() => log.RegisterEvent(template));
        Assert.Contains(expected, ex.Message);
        Assert.Contains($"offset {offset}", ex.Message);
    }

    [Fact]
    public void FullRingDropsAndCountsEveryDropExactly()
    {
        var sink = new StringWriter();
        var log = new FixLog(sink, new FixLogOptions { BackgroundDrain = false, RingCapacityBytes = 4096, FullPolicy = LogFullPolicy.Drop });
        int id = log.RegisterEvent("n={0}");
        LogProducer producer = log.CreateProducer("p");
        // Each record is 64 bytes (56-byte header + 8-byte ring header): 64 fit in 4096.
        for (int i = 0; i < 200; i++) producer.Log(LogLevel.Information, id, i);
        Assert.Equal(136, producer.DroppedCount);
        log.DrainPending();
        producer.Log(LogLevel.Information, id, 1000); // space is back: marker then entry
        for (int i = 0; i < 70; i++) producer.Log(LogLevel.Information, id, 2000 + i); // marker + 1000 took 2 slots: 62 fit, 8 dropped
        log.DrainPending();
        producer.Log(LogLevel.Information, id, 3000);
        log.Dispose();

        string[] lines = Lines(sink);
        var texts = lines.Select(l => l[(l.IndexOf(']') + 2)..]).ToList();
        var expected = new List<string>();
        for (int i = 0; i < 64; i++) expected.Add($"n={i}");
        expected.Add("dropped 136 entries");
        expected.Add("n=1000");
        for (int i = 0; i < 62; i++) expected.Add($"n={2000 + i}");
        expected.Add("dropped 8 entries");
        expected.Add("n=3000");
        Assert.Equal(expected, texts);
        Assert.Equal(144, producer.DroppedCount);
        Assert.All(lines.Where(l => l.Contains("dropped")), l => Assert.Contains(" WRN [p] ", l));
    }

    [Fact]
    public void DropsNotYetReportedAppearOnDispose()
    {
        var sink = new StringWriter();
        var log = new FixLog(sink, new FixLogOptions { BackgroundDrain = false, RingCapacityBytes = 4096, FullPolicy = LogFullPolicy.Drop });
        int id = log.RegisterEvent("n={0}");
        LogProducer producer = log.CreateProducer("p");
        for (int i = 0; i < 70; i++) producer.Log(LogLevel.Information, id, i);
        log.Dispose();
        string[] lines = Lines(sink);
        Assert.Equal(65, lines.Length);
        Assert.EndsWith("dropped 6 entries", lines[^1]);
    }

    [Fact]
    public void OversizedPayloadIsTruncatedAndMarked()
    {
        var sink = new StringWriter();
        var log = new FixLog(sink, new FixLogOptions { BackgroundDrain = false, RingCapacityBytes = 4096, FullPolicy = LogFullPolicy.Drop });
        int id = log.RegisterEvent("{payload}");
        LogProducer producer = log.CreateProducer("p");
        byte[] payload = Enumerable.Repeat((byte)'A', 5000).ToArray();
        producer.Log(LogLevel.Information, id, payload);
        log.Dispose();
        string line = Lines(sink).Single();
        Assert.EndsWith(new string('A', producer.MaxPayloadLength) + " [truncated]", line);
        Assert.Equal(0, producer.DroppedCount);
    }

    [Fact]
    public void SeveralProducerThreadsLoseNothingBelowCapacityAndKeepOrder()
    {
        const int Producers = 4;
        const int PerProducer = 10_000; // 10,000 x 64 B = 640 KB < 1 MiB ring: fits even if the drain never ran
        var sink = new StringWriter();
        var log = new FixLog(sink);
        int id = log.RegisterEvent("seq={0} thread={1}");
        var threads = new Thread[Producers];
        var producers = new LogProducer[Producers];
        for (int t = 0; t < Producers; t++)
        {
            producers[t] = log.CreateProducer("t" + t);
            int index = t;
            threads[t] = new Thread(() =>
            {
                for (int i = 0; i < PerProducer; i++) producers[index].Log(LogLevel.Information, id, i, index);
            }) { IsBackground = true };
        }
        foreach (Thread thread in threads) thread.Start();
        foreach (Thread thread in threads) Assert.True(thread.Join(s_wait));
        log.Dispose();

        var next = new int[Producers];
        foreach (string line in Lines(sink))
        {
            int t = line[line.IndexOf('[') + 2] - '0';
            Assert.EndsWith($"seq={next[t]} thread={t}", line);
            next[t]++;
        }
        Assert.All(next, n => Assert.Equal(PerProducer, n));
        Assert.All(producers, p => Assert.Equal(0, p.DroppedCount));
    }

    [Fact]
    public void BackgroundDrainWritesWithoutDisposeAndFlushWaits()
    {
        var sink = new StringWriter();
        using var log = new FixLog(sink);
        int id = log.RegisterEvent("hello {0}");
        LogProducer producer = log.CreateProducer("bg");
        producer.Log(LogLevel.Information, id, 7);
        Assert.True(log.Flush(s_wait));
        Assert.EndsWith("INF [bg] hello 7", Lines(sink).Single());
        Assert.Equal(1, log.LinesWritten);
    }

    [Fact]
    public void LogCallsAllocateNothingAfterWarmUp()
    {
        // A ring large enough for every entry of the loop: this measures the steady (non-dropping) path whatever the
        // drain thread's speed on a loaded machine; the drop path has its own test (DroppingAllocatesNothing).
        using var log = new FixLog(TextWriter.Null, new FixLogOptions { RingCapacityBytes = 32 << 20 });
        int id = log.RegisterEvent("seq={0} {1} {2} {3} {payload}");
        LogProducer producer = log.CreateProducer("alloc");
        byte[] payload = Encoding.ASCII.GetBytes("8=FIX.4.4\u00019=12\u000135=0\u0001");
        long bytes = Allocations.Measure(() =>
        {
            producer.Log(LogLevel.Information, id, 1, 2, 3, 4, payload);
            producer.Log(LogLevel.Information, id, 1);
            producer.Log(LogLevel.Debug, id, 1); // filtered
            producer.LogText(LogLevel.Warning, id, "text");
            producer.LogAt(12_345, LogLevel.Information, id, 1, 2);
            producer.LogAt(12_345, LogLevel.Information, id, 1, payload);
        }, warmup: 1_000, iterations: 20_000);
        Assert.Equal(0, bytes);
        Assert.Equal(0, producer.DroppedCount);
    }

    [Fact]
    public void DroppingAllocatesNothing()
    {
        var log = new FixLog(TextWriter.Null, new FixLogOptions { BackgroundDrain = false, RingCapacityBytes = 4096, FullPolicy = LogFullPolicy.Drop });
        int id = log.RegisterEvent("x={0}");
        LogProducer producer = log.CreateProducer("drop");
        long calls = 0;
        long bytes = Allocations.Measure(() =>
        {
            calls++;
            producer.Log(LogLevel.Information, id, 1);
        }, warmup: 100, iterations: 10_000);
        Assert.Equal(0, bytes);
        Assert.True(calls >= 10_100);
        Assert.Equal(calls - 64, producer.DroppedCount);
        log.Dispose();
    }

    [Fact]
    public void FileSinkAppendsLines()
    {
        string path = Path.Combine(Path.GetTempPath(), "fixlog-" + Guid.NewGuid().ToString("N") + ".log");
        try
        {
            using (var log = FixLog.CreateFile(path))
            {
                int id = log.RegisterEvent("file {0}");
                log.CreateProducer("f").Log(LogLevel.Information, id, 1);
            }
            string[] lines = File.ReadAllLines(path);
            Assert.Single(lines);
            Assert.EndsWith("INF [f] file 1", lines[0]);
        }
        finally
        {
            File.Delete(path);
        }
    }

    [Fact]
    public void DrainPendingIsOnlyForManualMode()
    {
        using var log = new FixLog(TextWriter.Null);
        Assert.Throws<InvalidOperationException>(() => log.DrainPending());
    }
}
