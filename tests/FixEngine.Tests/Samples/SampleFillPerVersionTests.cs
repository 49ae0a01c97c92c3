using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Text;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Session;
using FixEngine.Tests.Engine;
using FixEngine.Tests.Infrastructure;
using FixEngine.Tests.Session;

namespace FixEngine.Tests.Samples;

/// <summary>The sample acceptor answers a NewOrderSingle on every FIX version with an ExecutionReport that QuickFIX's
/// dictionary for that version accepts (FIX.4.2 needs ExecTransType(20) and has no ExecType F, FIX.4.0/4.1 need
/// LastShares, LastPx and OrderQty, and so on). The initiator validates with the same dictionaries, and every report is
/// checked again here so a failure names the tag.</summary>
[Collection(nameof(SampleProcesses))]
public sealed class SampleFillPerVersionTests
{
    private static readonly (string Target, string BeginString, string Dictionaries, string Order)[] s_versions =
    [
        ("C40", "FIX.4.0", "DataDictionary=FIX40.xml", "11=O1|21=1|38=100|40=1|54=1|55=INTC"),
        ("C41", "FIX.4.1", "DataDictionary=FIX41.xml", "11=O1|21=1|38=100|40=1|54=1|55=INTC"),
        ("C42", "FIX.4.2", "DataDictionary=FIX42.xml", "11=O1|21=1|38=100|40=1|54=1|55=INTC|60=20260105-12:00:00"),
        ("C43", "FIX.4.3", "DataDictionary=FIX43.xml", "11=O1|21=1|38=100|40=1|54=1|55=INTC|60=20260105-12:00:00"),
        ("C44", "FIX.4.4", "DataDictionary=FIX44.xml", "11=O1|38=100|40=1|54=1|55=INTC|60=20260105-12:00:00"),
        ("C50", "FIXT.1.1", "DefaultApplVerID=FIX.5.0|TransportDataDictionary=FIXT11.xml|AppDataDictionary=FIX50.xml", "11=O1|38=100|40=1|54=1|55=INTC|60=20260105-12:00:00"),
        ("C50SP1", "FIXT.1.1", "DefaultApplVerID=FIX.5.0SP1|TransportDataDictionary=FIXT11.xml|AppDataDictionary=FIX50SP1.xml", "11=O1|38=100|40=1|54=1|55=INTC|60=20260105-12:00:00"),
        ("C50SP2", "FIXT.1.1", "DefaultApplVerID=FIX.5.0SP2|TransportDataDictionary=FIXT11.xml|AppDataDictionary=FIX50SP2.xml", "11=O1|38=100|40=1|54=1|55=INTC|60=20260105-12:00:00"),
    ];

    private static string SampleDll(string name) => Path.Combine(
        AppContext.BaseDirectory.Replace(Path.Combine("tests", "FixEngine.Tests"), Path.Combine("samples", name), StringComparison.Ordinal), name + ".dll");

    private static string Sessions(string self, bool acceptor)
    {
        var sb = new StringBuilder();
        foreach ((string target, string begin, string dictionaries, _) in s_versions)
        {
            sb.Append("[SESSION]\nBeginString=").Append(begin).Append('\n');
            sb.Append("SenderCompID=").Append(acceptor ? self : target).Append("\nTargetCompID=").Append(acceptor ? target : self).Append('\n');
            foreach (string kv in dictionaries.Split('|'))
            {
                int eq = kv.IndexOf('=');
                string value = kv.Substring(eq + 1);
                sb.Append(kv.AsSpan(0, eq)).Append('=').Append(value.EndsWith(".xml", StringComparison.Ordinal) ? SharedPaths.Dictionary(value) : value).Append('\n');
            }
        }
        return sb.ToString();
    }

    [Fact]
    public void TheSampleAnswersEveryVersionWithAFillItsDictionaryAccepts()
    {
        int port = 0; // the sample binds a port the system picks and prints it
        string common = "[DEFAULT]\nHeartBtInt=30\nStartTime=00:00:00\nEndTime=00:00:00\nUseDataDictionary=Y\nResetOnLogon=Y\nIdleStrategy=Backoff\n";
        string cfg = Path.Combine(Path.GetTempPath(), "fixengine-fills-" + Guid.NewGuid().ToString("N") + ".cfg");
        File.WriteAllText(cfg, common + $"ConnectionType=acceptor\nSocketAcceptPort={port}\n" + Sessions("EXEC", acceptor: true));
        Process? acceptor = null;
        try
        {
            acceptor = Process.Start(new ProcessStartInfo("dotnet") { ArgumentList = { SampleDll("Acceptor"), cfg }, RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false })!;
            System.Threading.Tasks.Task<int> reported = EngineTestSupport.ReportedPort(acceptor);
            acceptor.BeginOutputReadLine();
            port = EngineTestSupport.AwaitPort(reported, acceptor);
            IReadOnlyList<SessionSettings> initiator = SettingsFile.Parse(
                common + $"ConnectionType=initiator\nSocketConnectHost=127.0.0.1\nSocketConnectPort={port}\nReconnectInterval=1\n" + Sessions("EXEC", acceptor: false), "initiator");
            var client = new OrderSender();
            using var engine = new FixEngineHost(initiator, client);
            engine.Start();
            Assert.True(EngineTestSupport.WaitFor(() => client.Reports.Count + client.Rejects.Count >= s_versions.Length),
                $"every version answered: reports from {string.Join(", ", client.Reports.Keys)}; rejects {string.Join("; ", client.Rejects)}");
            Assert.Empty(client.Rejects);
            foreach ((string target, string begin, _, _) in s_versions)
            {
                Assert.True(client.Reports.TryGetValue(target, out OwnedFixMessage? report), "an ExecutionReport on " + begin);
                SessionSettings settings = Find(initiator, target);
                var validator = new MessageValidator(
                    SessionHarness.Dictionary(Path.GetFileName(settings.BeginString == "FIXT.1.1" ? settings.TransportDataDictionary! : settings.DataDictionary!)),
                    settings.BeginString == "FIXT.1.1" ? SessionHarness.Dictionary(Path.GetFileName(settings.AppDataDictionary!)) : null,
                    new ValidationOptions());
                ValidationError error = validator.Validate(report!.Message);
                Assert.True(error.IsValid, $"{begin}: {error} in {report}");
                Assert.Equal("O1", report.Message.GetString(FixTags.ClOrdID));
                Assert.Equal("2", report.Message.GetString(FixTags.OrdStatus));
            }
            engine.Stop(TimeSpan.FromSeconds(2));
        }
        finally
        {
            if (acceptor is not null && !acceptor.HasExited) acceptor.Kill();
            acceptor?.Dispose();
            File.Delete(cfg);
        }
    }

    private static SessionSettings Find(IReadOnlyList<SessionSettings> all, string sender)
    {
        foreach (SessionSettings s in all)
        {
            if (s.SenderCompID == sender) return s;
        }
        throw new InvalidOperationException(sender);
    }

    private sealed class OrderSender : IApplication
    {
        public ConcurrentDictionary<string, OwnedFixMessage> Reports { get; } = new();

        public ConcurrentQueue<string> Rejects { get; } = new();

        public void OnLogon(FixEngine.Session.FixSession session)
        {
            string order = "";
            foreach ((string target, _, _, string o) in s_versions)
            {
                if (target == session.Id.SenderCompID) order = o;
            }
            session.Send("D"u8, order, static (ref FixWriter w, scoped in string fields) =>
            {
                foreach (string field in fields.Split('|'))
                {
                    int eq = field.IndexOf('=');
                    w.Write(int.Parse(field.AsSpan(0, eq), CultureInfo.InvariantCulture), Encoding.ASCII.GetBytes(field.Substring(eq + 1)));
                }
            });
        }

        public void FromAdmin(FixEngine.Session.FixSession session, FixMessage message)
        {
            if (message.MsgType.SequenceEqual("3"u8)) Rejects.Enqueue(session.Id.SenderCompID + ": " + message.ToString());
        }

        public void ToAdmin(FixEngine.Session.FixSession session, ReadOnlySpan<byte> msgType, ref FixWriter body)
        {
            // A Reject we send: our validator refused the sample's report (its text names the reason in the log).
            if (msgType.SequenceEqual("3"u8)) Rejects.Enqueue(session.Id.SenderCompID + ": the initiator rejected an inbound message");
        }

        public FromAppResult FromApp(FixEngine.Session.FixSession session, FixMessage message)
        {
            if (message.MsgType.SequenceEqual("8"u8)) Reports[session.Id.SenderCompID] = message.ToOwned();
            else Rejects.Enqueue(session.Id.SenderCompID + ": " + message.ToString());
            return FromAppResult.Accepted;
        }
    }
}
