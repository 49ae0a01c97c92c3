using System;
using System.Collections.Concurrent;
using System.IO;
using System.Linq;
using System.Text;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Logging;
using FixEngine.Session;
using FixEngine.Tests.Infrastructure;
using static FixEngine.Tests.Engine.DynamicSessionTests;
using static FixEngine.Tests.Engine.EngineTestSupport;

namespace FixEngine.Tests.Logging;

/// <summary>Issue 33: RedactFieldsInLogs/RedactionLogText (QuickFIX/n): the message log writes the listed tags' values as
/// the text; the store, the wire and the application keep them.</summary>
public sealed class LogRedactionTests
{
    private static byte[] Msg(string fields) => Encoding.ASCII.GetBytes(fields.Replace('|', '\u0001'));

    private static string Drain(Action<FixLogSessionLog> log, LogRedaction? redaction)
    {
        var writer = new StringWriter();
        using var fixLog = new FixLog(writer, new FixLogOptions { BackgroundDrain = false, SohReplacement = '|' });
        var session = new FixLogSessionLog(fixLog, "S") { Redaction = redaction };
        log(session);
        fixLog.DrainPending();
        return writer.ToString();
    }

    [Fact]
    public void TheListedTagsValuesAreWrittenAsTheTextAndNothingElseChanges()
    {
        byte[] order = Msg("8=FIX.4.4|9=99|35=D|49=C|56=E|553=trader1|11=7|554=s3cr3t|5540=keep|55=EURUSD|10=123|");
        string text = Drain(s =>
        {
            s.OnIncoming(order, 1);
            s.OnOutgoing(order, 2);
            s.OnEvent("Logon with 554=s3cr3t in an event is not a message", 3);
        }, new LogRedaction([554, 553], "<redacted>"));
        string[] lines = text.Split('\n', StringSplitOptions.RemoveEmptyEntries);
        const string Expected = "8=FIX.4.4|9=99|35=D|49=C|56=E|553=<redacted>|11=7|554=<redacted>|5540=keep|55=EURUSD|10=123|";
        Assert.EndsWith("< " + Expected, lines[0], StringComparison.Ordinal);
        Assert.EndsWith("> " + Expected, lines[1], StringComparison.Ordinal);
        Assert.EndsWith("Logon with 554=s3cr3t in an event is not a message", lines[2], StringComparison.Ordinal);
        Assert.DoesNotContain("trader1", lines[0] + lines[1], StringComparison.Ordinal);
        // The caller's bytes are the message: the log only wrote a redacted copy.
        Assert.Contains("554=s3cr3t", Encoding.ASCII.GetString(order), StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("8=FIX.4.4|554=", "8=FIX.4.4|554=***")] // an empty value, the message's last bytes
    [InlineData("554=x|554=y|", "554=***|554=***|")] // repeated
    [InlineData("55", "55")] // a tag without '=' (truncated)
    [InlineData("554=a\nb|58=c|", "554=***|58=c|")] // a control byte inside a redacted value is not written
    [InlineData("58=a\nb|554=z|", "58=a\\nb|554=***|")] // ... and still escaped elsewhere
    public void EdgeCasesKeepOneLineAndRedactEveryOccurrence(string message, string expected)
    {
        string text = Drain(s => s.OnIncoming(Msg(message), 1), new LogRedaction([554], "***"));
        Assert.EndsWith("< " + expected + "\n", text, StringComparison.Ordinal);
    }

    [Fact]
    public void WithoutRedactionTheMessageIsWrittenAsBefore()
    {
        string text = Drain(s => s.OnIncoming(Msg("35=A|554=pw|"), 1), null);
        Assert.EndsWith("< 35=A|554=pw|\n", text, StringComparison.Ordinal);
    }

    [Fact]
    public void TheKeysParseWithQuickFixDefaultsAndBadValuesNameTheKey()
    {
        SessionSettings s = AcceptorSession(1234, "C", "RedactFieldsInLogs=554, 553,554\n");
        Assert.Equal([554, 553], s.RedactFieldsInLogs);
        Assert.Equal("<redacted>", s.RedactionLogText);
        Assert.Contains("RedactFieldsInLogs=554,553", SettingsFile.ToSettingsText(s), StringComparison.Ordinal);
        Assert.DoesNotContain("RedactionLogText", SettingsFile.ToSettingsText(s), StringComparison.Ordinal);
        Assert.Equal("###", AcceptorSession(1234, "C", "RedactionLogText=###\n").RedactionLogText);
        ConfigException e = Assert.Throws<ConfigException>(() => AcceptorSession(1234, "C", "RedactFieldsInLogs=554,Password\n"));
        Assert.Equal(("RedactFieldsInLogs", 7), (e.Key, e.LineNumber));
        Assert.Contains("'Password' is not a tag number", e.Message, StringComparison.Ordinal);
        e = Assert.Throws<ConfigException>(() => AcceptorSession(1234, "C", "RedactFieldsInLogs=0\n"));
        Assert.Contains("'0' is not a tag number", e.Message, StringComparison.Ordinal);
        e = Assert.Throws<ConfigException>(() => AcceptorSession(1234, "C", "RedactionLogText=\u00e9\n"));
        Assert.Equal("RedactionLogText", e.Key);
        Assert.Contains("not printable ASCII", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void AnEngineLogsTheOrderRedactedWhileTheWireTheStoreAndThePeerKeepTheValues()
    {
        int port = 0;
        string dir = TempDirectory("fe-redact-");
        try
        {
            string logs = Path.Combine(dir, "log"), store = Path.Combine(dir, "store");
            var seen = new ConcurrentQueue<string>();
            var acceptorApp = new PasswordCapture(seen);
            using var acceptor = new FixEngineHost([AcceptorSession(port, "CLIENT")], acceptorApp);
            acceptor.Start();
            port = PortOf(acceptor);
            var clientApp = new MultiApp();
            var id = new SessionId("FIX.4.4", "CLIENT", "EXEC");
            using (var client = new FixEngineHost([InitiatorSession(port, "CLIENT", $"FileLogPath={logs}\nFileStorePath={store}\nRedactFieldsInLogs=553,554\n")], clientApp))
            {
                client.Start();
                Assert.True(WaitFor(() => clientApp.LogonsOf(id) == 1));
                Assert.True(client.TrySend(id, MsgTypes.NewOrderSingle, 0, static (ref FixWriter w, scoped in int _) =>
                {
                    w.Write(FixTags.ClOrdID, "R1"u8);
                    w.Write(FixTags.Username, "trader1"u8);
                    w.Write(FixTags.Password, "s3cr3t"u8);
                    w.Write(FixTags.Symbol, "EURUSD"u8);
                }));
                Assert.True(WaitFor(() => !seen.IsEmpty));
                client.Stop(TimeSpan.FromSeconds(10));
            }
            // The peer got the values (they crossed the wire as sent).
            Assert.Equal("trader1/s3cr3t", Assert.Single(seen));
            // The log wrote them redacted.
            string log = File.ReadAllText(Path.Combine(logs, "fixengine.log"));
            string orderLine = Assert.Single(log.Split('\n'), l => l.Contains("> 8=FIX.4.4", StringComparison.Ordinal) && l.Contains("35=D", StringComparison.Ordinal));
            Assert.Contains("\u0001553=<redacted>\u0001", orderLine, StringComparison.Ordinal);
            Assert.Contains("\u0001554=<redacted>\u0001", orderLine, StringComparison.Ordinal);
            Assert.DoesNotContain("s3cr3t", log, StringComparison.Ordinal);
            Assert.DoesNotContain("trader1", log, StringComparison.Ordinal);
            // The store kept the message as sent (a resend sends the values again).
            Assert.Contains(Directory.GetFiles(store, "*", SearchOption.AllDirectories),
                f => Encoding.Latin1.GetString(File.ReadAllBytes(f)).Contains("\u0001554=s3cr3t\u0001", StringComparison.Ordinal));
        }
        finally
        {
            DeleteDirectory(dir);
        }
    }

    private sealed class PasswordCapture(ConcurrentQueue<string> seen) : IApplication
    {
        public void OnLogon(FixSession session)
        {
        }

        public void OnLogout(FixSession session)
        {
        }

        public void FromAdmin(FixSession session, FixMessage message)
        {
        }

        public FromAppResult FromApp(FixSession session, FixMessage message)
        {
            if (message.TryGetSpan(FixTags.Username, out ReadOnlySpan<byte> user) && message.TryGetSpan(FixTags.Password, out ReadOnlySpan<byte> password))
            {
                seen.Enqueue(Encoding.ASCII.GetString(user) + "/" + Encoding.ASCII.GetString(password));
            }
            return FromAppResult.Accepted;
        }
    }
}

[Collection(nameof(AllocationMeasurement))]
public sealed class LogRedactionAllocationTests
{
    [Fact]
    public void LoggingAndWritingARedactedMessageAllocatesNothing()
    {
        // The drain runs on this thread (manual drain): both the session's side (copy into the ring) and the drain's side
        // (format with redaction, write) are measured.
        using var fixLog = new FixLog(TextWriter.Null, new FixLogOptions { BackgroundDrain = false, SohReplacement = '|', Clock = SessionLogClock.Instance });
        var session = new FixLogSessionLog(fixLog, "S") { Redaction = new LogRedaction([553, 554], "<redacted>") };
        byte[] order = Encoding.ASCII.GetBytes("8=FIX.4.4\u00019=99\u000135=D\u0001553=trader1\u000111=7\u0001554=s3cr3t\u000155=EURUSD\u000110=123\u0001");
        long now = 1;
        long bytes = Allocations.Measure(() =>
        {
            now++;
            session.OnIncoming(order, now);
            session.OnOutgoing(order, now);
            fixLog.DrainPending();
        }, warmup: 1_000, iterations: 10_000);
        Assert.Equal(0, bytes);
        Assert.Equal(0, session.DroppedCount);
    }
}
