using System;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Reflection;
using Microsoft.CodeAnalysis;

namespace FixEngine.Generators.Tests;

/// <summary>
/// The ```csharp blocks of the other packages' READMEs, read from the markdown so they cannot drift: FixEngine.Testing's
/// example is compiled and run (against a small filling application); FixEngine.Extensions.Hosting's program runs as a
/// process the root README's initiator trades with; the FixEngine.Messages README's line (a using directive) is compiled.
/// </summary>
public sealed partial class ReadmeExampleTests
{
    private static string ReadmeOf(params string[] path) => Path.Combine([Root(), .. path, "README.md"]);

    // What a README's example calls the user's application: answers each NewOrderSingle with a filled ExecutionReport.
    private const string FillsSource = """
        using System;

        public sealed class Fills : FixEngine.Session.IApplication
        {
            public void OnLogon(FixEngine.Session.FixSession session) { }
            public void OnLogout(FixEngine.Session.FixSession session) { }
            public FixEngine.Session.FromAppResult FromApp(FixEngine.Session.FixSession session, FixEngine.Codec.FixMessage message)
            {
                if (!message.MsgType.SequenceEqual(FixEngine.Codec.MsgTypes.NewOrderSingle)) return FixEngine.Session.FromAppResult.UnsupportedMessageType;
                session.Send(FixEngine.Codec.MsgTypes.ExecutionReport, message, static (ref FixEngine.Codec.FixWriter w, scoped in FixEngine.Codec.FixMessage m) =>
                {
                    w.Write(FixEngine.Codec.FixTags.OrderID, "O1"u8);
                    w.Write(FixEngine.Codec.FixTags.ExecID, "E1"u8);
                    w.Write(FixEngine.Codec.FixTags.ExecType, '2');
                    w.Write(FixEngine.Codec.FixTags.OrdStatus, '2');
                    if (m.TryGetSpan(FixEngine.Codec.FixTags.ClOrdID, out System.ReadOnlySpan<byte> id)) w.Write(FixEngine.Codec.FixTags.ClOrdID, id);
                });
                return FixEngine.Session.FromAppResult.Accepted;
            }
        }
        """;

    [Fact]
    public void EveryOtherPackageReadmeCSharpBlockHasAHarness()
    {
        Assert.Equal(["Example"], Blocks(ReadmeOf("src", "FixEngine.Testing")).Where(b => b.Language == "csharp").Select(b => b.Heading).ToArray());
        Assert.Single(Blocks(ReadmeOf("src", "FixEngine.Extensions.Hosting")), b => b.Language == "csharp");
        Assert.Single(Blocks(ReadmeOf("src", "Messages")), b => b.Language == "csharp");
    }

    [Fact]
    public void TheTestingPackageExampleRunsAndSeesTheApplicationsExecutionReport()
    {
        Block block = CSharp(ReadmeOf("src", "FixEngine.Testing"), "Example");
        string program = """
            using System;
            using FixEngine.Codec;
            using FixEngine.Config;
            using FixEngine.Testing;

            public static class TestingReadme
            {
                public static int Run()
                {
                    string myAcceptorConfig = "[SESSION]\nConnectionType=acceptor\nBeginString=FIX.4.4\nSenderCompID=BROKER\nTargetCompID=CLIENT\nSocketAcceptPort=5001\nNonStopSession=Y\nUseDataDictionary=N\n";
            """ + block.Code + """
                    return pair.Received.Count;
                }
            }

            // The README's Assert is xUnit's; the harness brings the one call it makes.
            public static class Assert
            {
                public static void Equal(string expected, string actual)
                {
                    if (expected != actual) throw new InvalidOperationException($"expected {expected}, got {actual}");
                }
            }
            """;
        byte[] assembly = Build("TestingReadme", OutputKind.DynamicallyLinkedLibrary, [program, FillsSource]);
        object? received = Assembly.Load(assembly).GetType("TestingReadme")!.GetMethod("Run")!.Invoke(null, null);
        // Logon, the ExecutionReport, and at least one Heartbeat after the 31 seconds the example moves the clock.
        Assert.True((int)received! >= 3, "messages the counterparty received: " + received);
    }

    [Fact]
    public void TheHostingPackageProgramRunsWithAppSettingsAndTradesWithTheRootInitiator()
    {
        Block block = Assert.Single(Blocks(ReadmeOf("src", "FixEngine.Extensions.Hosting")), b => b.Language == "csharp");
        string dir = TempDirectory();
        try
        {
            // The root README's appsettings.json (port 0, read back from the host's start line); a worker project's implicit
            // usings (Microsoft.NET.Sdk.Worker), which the README's program relies on; the Fills class it names.
            File.WriteAllText(Path.Combine(dir, "appsettings.json"), Other(RootReadme, "In a generic host, on Kestrel, in tests", "json").Code.Replace("5001", "0"));
            string program = "using System;\nusing Microsoft.Extensions.Hosting;\nusing Microsoft.Extensions.DependencyInjection;\nusing System.Threading.Tasks;\n"
                + block.Code + FillsSource.Replace("using System;\n", "", StringComparison.Ordinal);
            string host = Program(Path.Combine(dir, "host"), "HostingReadme", program);
            var output = new ChildOutput();
            using Process server = Start(host, dir, output);
            RunPair(server, () => Program(Path.Combine(dir, "initiator"), "ReadmeInitiator",
                CSharp(RootReadme, "An initiator, sending from any thread").Code.Replace("5001", ReportedPort(server, output, HostStartedLine).ToString())), dir);
        }
        finally
        {
            Cleanup(dir);
        }
    }

    [Fact]
    public void TheMessagesReadmeLineCompilesAgainstThePrebuiltFix44Package()
    {
        Block block = Assert.Single(Blocks(ReadmeOf("src", "Messages")), b => b.Language == "csharp");
        string source = block.Code + "public static class MessagesReadme { public static System.Type Reader => typeof(NewOrderSingle.Reader); }\n";
        Build("MessagesReadme", OutputKind.DynamicallyLinkedLibrary, [source]);
    }
}
