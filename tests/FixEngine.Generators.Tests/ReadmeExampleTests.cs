using System;
using System.Collections.Generic;
using System.Collections.Immutable;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Reflection;
using System.Text;
using System.Text.RegularExpressions;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Dictionary;
using FixEngine.Session;
using FixEngine.Testing;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;

namespace FixEngine.Generators.Tests;

/// <summary>
/// Every ```csharp block of the package README (src/FixEngine/README.md) and of the repository README is compiled and run.
/// </summary>
/// <remarks>
/// Blocks are found by the heading of their section. The harness, per kind of block:
/// <list type="bullet">
/// <item>A complete program (an acceptor, an initiator) is compiled as a console application against the built
/// FixEngine assemblies and run as a process in a temporary directory: each initiator against its README's acceptor, the
/// generic-host block as a process the root initiator then trades with. The only edit is the port: 5001 becomes a free
/// port, in the code and in the settings blocks.</item>
/// <item>A program without <c>using</c> lines (the package README's initiator) gets those of its README's acceptor.</item>
/// <item>The settings blocks beside a program are its files: the root README's ```ini block is <c>acceptor.cfg</c> (with
/// the repository's dictionaries/ beside it), its ```json block <c>appsettings.json</c>; the generic-host block gets the
/// acceptor block's <c>Fills</c> class, which it names.</item>
/// <item>The typed-message blocks (a class) are compiled with the code the generator makes from the ```xml block's item
/// (dictionary and FixMessages) and their class is run as the application of a real session (FixSessionTestPair) that
/// is sent an order: it must answer with a filled ExecutionReport.</item>
/// <item>The repeating-group fragment: its <c>static readonly</c> line becomes a field and the rest the body of a method
/// given <c>message</c> (an order with two parties) and <c>w</c> (a writer); the test checks what it read and wrote.</item>
/// </list>
/// </remarks>
public sealed partial class ReadmeExampleTests
{
    private sealed record Block(string Heading, string Language, string Code);

    private static string Root()
    {
        for (var dir = new DirectoryInfo(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
        {
            if (File.Exists(Path.Combine(dir.FullName, "FixEngine.sln"))) return dir.FullName;
        }
        throw new DirectoryNotFoundException("FixEngine.sln above " + AppContext.BaseDirectory);
    }

    private static string PackageReadme => Path.Combine(Root(), "src", "FixEngine", "README.md");

    private static string RootReadme => Path.Combine(Root(), "README.md");

    private static List<Block> Blocks(string file)
    {
        string text = File.ReadAllText(file).Replace("\r\n", "\n");
        var blocks = new List<Block>();
        string heading = "";
        string[] lines = text.Split('\n');
        for (int i = 0; i < lines.Length; i++)
        {
            if (lines[i].StartsWith("## ", StringComparison.Ordinal)) heading = lines[i][3..].Trim();
            if (!lines[i].StartsWith("```", StringComparison.Ordinal)) continue;
            string language = lines[i][3..].Trim();
            var code = new StringBuilder();
            for (i++; i < lines.Length && !lines[i].StartsWith("```", StringComparison.Ordinal); i++) code.Append(lines[i]).Append('\n');
            blocks.Add(new Block(heading, language, code.ToString()));
        }
        return blocks;
    }

    private static Block CSharp(string file, string heading) => Assert.Single(Blocks(file), b => b.Language == "csharp" && b.Heading == heading);

    private static Block Other(string file, string heading, string language) => Assert.Single(Blocks(file), b => b.Language == language && b.Heading == heading);

    // The headings of the sections whose ```csharp block each test below compiles and runs. A block anywhere else fails
    // EveryCSharpBlockHasAHarness: give it one here.
    private static readonly string[] PackageHeadings = ["Typed messages", "An acceptor", "An initiator, sending from a strategy thread", "Repeating groups"];

    private static readonly string[] RootHeadings = ["An acceptor", "An initiator, sending from any thread", "Typed messages", "In a generic host, on Kestrel, in tests"];

    [Fact]
    public void EveryCSharpBlockHasAHarness()
    {
        Assert.Equal(PackageHeadings, Blocks(PackageReadme).Where(b => b.Language == "csharp").Select(b => b.Heading).ToArray());
        Assert.Equal(RootHeadings, Blocks(RootReadme).Where(b => b.Language == "csharp").Select(b => b.Heading).ToArray());
    }

    // ---- compiling ----

    private static readonly Lazy<MetadataReference[]> References = new(() =>
    {
        string tpa = (string)AppContext.GetData("TRUSTED_PLATFORM_ASSEMBLIES")!;
        return tpa.Split(Path.PathSeparator)
            .Where(p => !Path.GetFileName(p).StartsWith("Microsoft.CodeAnalysis", StringComparison.Ordinal) && !Path.GetFileName(p).StartsWith("xunit", StringComparison.Ordinal))
            .Select(p => (MetadataReference)MetadataReference.CreateFromFile(p)).ToArray();
    });

    /// <summary>Compiles the sources (with the code generated from <paramref name="dictionary"/>, if given) and returns the
    /// assembly's bytes; fails with every compile error.</summary>
    private static byte[] Build(string name, OutputKind kind, string[] sources, GeneratorHarness.Dictionary? dictionary = null)
    {
        var trees = sources.Select((s, i) => CSharpSyntaxTree.ParseText(s, GeneratorHarness.ParseOptions, path: $"/readme/{name}{i}.cs")).ToArray();
        Compilation compilation = CSharpCompilation.Create(name, trees, References.Value,
            new CSharpCompilationOptions(kind, nullableContextOptions: NullableContextOptions.Enable, allowUnsafe: true));
        if (dictionary is not null)
        {
            GeneratorDriver driver = GeneratorHarness.CreateDriver([dictionary], trackSteps: false);
            driver.RunGeneratorsAndUpdateCompilation(compilation, out compilation, out ImmutableArray<Diagnostic> generatorDiagnostics);
            Assert.Empty(generatorDiagnostics);
        }
        using var bytes = new MemoryStream();
        Microsoft.CodeAnalysis.Emit.EmitResult result = compilation.Emit(bytes);
        Assert.True(result.Success, name + " does not compile:\n" + string.Join("\n", result.Diagnostics.Where(d => d.Severity == DiagnosticSeverity.Error)));
        return bytes.ToArray();
    }

    // The acceptors run with port 0 (the system picks a free port as it binds) and the test reads the port the child
    // reports, so nothing probes a port that another process could take before the child binds it.

    /// <summary>The README's acceptor program with port 0 and one line added after <c>engine.Start();</c> that prints
    /// the port it bound ("listening on port(s) P"), for <see cref="ReportedPort"/>.</summary>
    private static string ReportingPort(string acceptorCode)
    {
        const string Start = "engine.Start();";
        Assert.Contains(Start, acceptorCode);
        return acceptorCode.Replace("5001", "0").Replace(Start,
            Start + " System.Console.WriteLine(\"listening on port(s) \" + string.Join(\", \", engine.AcceptorPorts));");
    }

    private static readonly Regex ListeningLine = new(@"listening on port\(s\) (?<port>[0-9]+)");

    /// <summary>The generic host's log line for the engine's start (FixEngineHostedService).</summary>
    private static readonly Regex HostStartedLine = new(@"FIX engine started: .*acceptor port\(s\) \[(?<port>[0-9]+)");

    /// <summary>The port in the first line of <paramref name="output"/> that matches <paramref name="line"/>, waiting for
    /// it at most 60 s; fails if the child exits first.</summary>
    private static int ReportedPort(Process server, ChildOutput output, Regex line)
    {
        var deadline = DateTime.UtcNow.AddSeconds(60);
        while (DateTime.UtcNow < deadline)
        {
            Match match = line.Match(output.Text);
            if (match.Success)
            {
                int port = int.Parse(match.Groups["port"].Value, System.Globalization.CultureInfo.InvariantCulture);
                Assert.NotEqual(0, port);
                return port;
            }
            Assert.False(server.HasExited, "the acceptor exited with code " + (server.HasExited ? server.ExitCode : 0) + " before reporting its port:\n" + output.Text);
            System.Threading.Thread.Sleep(100);
        }
        Assert.Fail("the acceptor reported no port within 60 s:\n" + output.Text);
        return 0;
    }

    /// <summary>A child's standard output and error, line by line.</summary>
    private sealed class ChildOutput
    {
        private readonly System.Text.StringBuilder _text = new();

        public void Add(string? line)
        {
            if (line is null) return;
            lock (_text) _text.Append(line).Append('\n');
        }

        public string Text
        {
            get { lock (_text) return _text.ToString(); }
        }
    }

    /// <summary>A console program from a block, written with its runtimeconfig and the FixEngine assemblies into a
    /// directory of its own.</summary>
    private static string Program(string directory, string name, string code)
    {
        Directory.CreateDirectory(directory);
        byte[] assembly = Build(name, OutputKind.ConsoleApplication, [code]);
        string dll = Path.Combine(directory, name + ".dll");
        File.WriteAllBytes(dll, assembly);
        File.WriteAllText(Path.Combine(directory, name + ".runtimeconfig.json"),
            "{\"runtimeOptions\":{\"tfm\":\"net10.0\",\"frameworks\":[{\"name\":\"Microsoft.NETCore.App\",\"version\":\"10.0.0\"},{\"name\":\"Microsoft.AspNetCore.App\",\"version\":\"10.0.0\"}]}}");
        // The FixEngine assemblies and Npgsql (the PostgreSQL package's one dependency outside the shared frameworks).
        foreach (string file in Directory.GetFiles(AppContext.BaseDirectory, "FixEngine*.dll").Concat(Directory.GetFiles(AppContext.BaseDirectory, "Npgsql.dll"))
            .Where(f => !Path.GetFileName(f).StartsWith("FixEngine.Generators", StringComparison.Ordinal)))
        {
            File.Copy(file, Path.Combine(directory, Path.GetFileName(file)), overwrite: true);
        }
        return dll;
    }

    private static Process Start(string dll, string workingDirectory, ChildOutput? output = null)
    {
        var info = new ProcessStartInfo("dotnet") { WorkingDirectory = workingDirectory, RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        info.ArgumentList.Add(dll);
        var process = Process.Start(info)!;
        process.OutputDataReceived += (_, e) => output?.Add(e.Data);
        process.ErrorDataReceived += (_, e) => output?.Add(e.Data);
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
        return process;
    }

    /// <summary>Builds the initiator (for the port the acceptor reported) and runs it to its end against the running
    /// acceptor, then stops the acceptor with SIGINT (Ctrl+C).</summary>
    private static void RunPair(Process acceptor, Func<string> initiatorDll, string workingDirectory)
    {
        try
        {
            string initiatorPath = initiatorDll();
            using Process initiator = Start(initiatorPath, workingDirectory);
            if (!initiator.WaitForExit(120_000))
            {
                initiator.Kill(entireProcessTree: true);
                Assert.Fail("the initiator did not finish within 120 s");
            }
            Assert.Equal(0, initiator.ExitCode);
        }
        finally
        {
            if (!acceptor.HasExited) Interrupt(acceptor);
        }
        bool stopped = acceptor.WaitForExit(30_000);
        if (!stopped) acceptor.Kill(entireProcessTree: true);   // never leave a child program running after the test
        Assert.True(stopped, "the acceptor did not stop within 30 s of Ctrl+C" + (SigIntIgnored()
            ? " (SIGINT is ignored in this test process and so in its children: it was started as a background job without job control)"
            : ""));
        Assert.Equal(0, acceptor.ExitCode);
    }

    /// <summary>Whether this process ignores SIGINT (bit 1 of /proc/self/status SigIgn), which its children inherit.</summary>
    private static bool SigIntIgnored()
    {
        if (!OperatingSystem.IsLinux()) return false;
        string? line = File.ReadLines("/proc/self/status").FirstOrDefault(l => l.StartsWith("SigIgn:", StringComparison.Ordinal));
        return line is not null && (Convert.ToUInt64(line["SigIgn:".Length..].Trim(), 16) & 2) != 0;
    }

    [System.Runtime.InteropServices.DllImport("libc", SetLastError = true)]
    private static extern int kill(int pid, int sig);

    private static void Interrupt(Process process)
    {
        if (OperatingSystem.IsWindows())
        {
            process.Kill();
            return;
        }
        _ = kill(process.Id, 2);   // SIGINT, what Ctrl+C sends: Console.CancelKeyPress and the host's shutdown see it
    }

    private static void Cleanup(string dir)
    {
        try
        {
            Directory.Delete(dir, recursive: true);
        }
        catch (IOException)
        {
            // A process of a failed run may still hold a file: the temporary directory stays, the failure is reported.
        }
    }

    private static string TempDirectory()
    {
        string dir = Path.Combine(Path.GetTempPath(), "fixengine-readme-" + Guid.NewGuid().ToString("N")[..8]);
        Directory.CreateDirectory(dir);
        return dir;
    }

    private static string Usings(string code) => string.Concat(code.Split('\n').Where(l => UsingDirective.IsMatch(l)).Select(l => l + "\n"));

    private static readonly Regex UsingDirective = new(@"^using [A-Za-z0-9_.]+;\s*$");

    // ---- the programs ----

    [Fact]
    public void ThePackageReadmeAcceptorAndInitiatorRunAgainstEachOther()
    {
        string acceptorCode = CSharp(PackageReadme, "An acceptor").Code;
        string initiatorCode = CSharp(PackageReadme, "An initiator, sending from a strategy thread").Code;
        Assert.Empty(Usings(initiatorCode));
        string dir = TempDirectory();
        try
        {
            string acceptor = Program(Path.Combine(dir, "acceptor"), "ReadmeAcceptor", ReportingPort(acceptorCode));
            var output = new ChildOutput();
            using Process server = Start(acceptor, dir, output);
            RunPair(server, () => Program(Path.Combine(dir, "initiator"), "ReadmeInitiator",
                Usings(acceptorCode) + initiatorCode.Replace("5001", ReportedPort(server, output, ListeningLine).ToString())), dir);
        }
        finally
        {
            Cleanup(dir);
        }
    }

    [Fact]
    public void TheRootReadmeAcceptorWithItsSettingsFileFillsTheRootReadmeInitiatorsOrders()
    {
        string dir = TempDirectory();
        try
        {
            File.WriteAllText(Path.Combine(dir, "acceptor.cfg"), Other(RootReadme, "An acceptor", "ini").Code.Replace("5001", "0"));
            Directory.CreateDirectory(Path.Combine(dir, "dictionaries"));
            File.Copy(Path.Combine(Root(), "dictionaries", "FIX44.xml"), Path.Combine(dir, "dictionaries", "FIX44.xml"));
            string acceptor = Program(Path.Combine(dir, "acceptor"), "ReadmeAcceptor", ReportingPort(CSharp(RootReadme, "An acceptor").Code));
            var output = new ChildOutput();
            using Process server = Start(acceptor, dir, output);
            RunPair(server, () => Program(Path.Combine(dir, "initiator"), "ReadmeInitiator",
                CSharp(RootReadme, "An initiator, sending from any thread").Code.Replace("5001", ReportedPort(server, output, ListeningLine).ToString())), dir);

            // The acceptor's message log (FileLogPath=log) shows the orders and the fills it sent for them.
            string log = string.Concat(Directory.GetFiles(Path.Combine(dir, "log"), "*", SearchOption.AllDirectories).Select(File.ReadAllText));
            Assert.Contains("\u000135=D\u0001", log.Replace('|', '\u0001'));
            Assert.Contains("\u000135=8\u0001", log.Replace('|', '\u0001'));
        }
        finally
        {
            Cleanup(dir);
        }
    }

    [Fact]
    public void TheRootReadmeGenericHostBlockRunsWithItsAppSettingsAndTradesWithTheInitiator()
    {
        string dir = TempDirectory();
        try
        {
            string acceptorCode = CSharp(RootReadme, "An acceptor").Code;
            string fills = acceptorCode[acceptorCode.IndexOf("sealed class Fills", StringComparison.Ordinal)..];
            string hostCode = CSharp(RootReadme, "In a generic host, on Kestrel, in tests").Code;
            Assert.Contains("AddFixEngine<Fills>", hostCode);
            File.WriteAllText(Path.Combine(dir, "appsettings.json"), Other(RootReadme, "In a generic host, on Kestrel, in tests", "json").Code.Replace("5001", "0"));
            string host = Program(Path.Combine(dir, "host"), "ReadmeHost", string.Concat(Usings(acceptorCode).Split('\n').Where(u => u.Length > 0 && !hostCode.Contains(u, StringComparison.Ordinal)).Select(u => u + "\n")) + hostCode + fills);
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

    // ---- what the acceptor examples send ----

    [Theory]
    [InlineData("package")]
    [InlineData("root")]
    public void TheAcceptorExamplesFillIsValidForItsVersionsDictionary(string which)
    {
        string readme = which == "package" ? PackageReadme : RootReadme;
        string code = CSharp(readme, "An acceptor").Code;
        string settingsText = which == "root" ? Other(readme, "An acceptor", "ini").Code : code;
        Match version = Regex.Match(settingsText, @"BeginString=(?<v>\S+)");
        Assert.True(version.Success, "no BeginString in the acceptor's settings");
        string beginString = version.Groups["v"].Value;
        string fills = code[code.IndexOf("sealed class Fills", StringComparison.Ordinal)..];
        byte[] bytes = Build("ReadmeFills" + which, OutputKind.DynamicallyLinkedLibrary, [Usings(code) + fills]);
        var app = (IApplication)Activator.CreateInstance(Assembly.Load(bytes).GetType("Fills", throwOnError: true)!, nonPublic: true)!;
        ReceivedFixMessage report = FillOneOrder(app, beginString);
        AssertValid(report, beginString, which + " README's acceptor");
    }

    /// <summary>Sends <paramref name="app"/> one NewOrderSingle in a real session and returns its single answer.</summary>
    private static ReceivedFixMessage FillOneOrder(IApplication app, string beginString)
    {
        SessionSettings settings = SettingsFile.Parse(
            $"[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=5001\nNonStopSession=Y\nUseDataDictionary=N\n[SESSION]\nBeginString={beginString}\nSenderCompID=EXEC\nTargetCompID=CLIENT\n")[0];
        using var pair = FixSessionTestPair.Create(settings, app);
        pair.Connect();
        pair.SendFromCounterparty(MsgTypes.NewOrderSingle, 0, static (ref FixWriter w, scoped in int _) =>
        {
            w.Write(FixTags.ClOrdID, "R-1"u8);
            w.Write(FixTags.HandlInst, '1');
            w.Write(FixTags.Symbol, "INTC"u8);
            w.Write(FixTags.Side, '2');
            w.WriteTimestamp(FixTags.TransactTime, 1_780_000_000_000_000_000L, TimestampPrecision.Millis);
            w.Write(FixTags.OrderQty, 300);
            w.Write(FixTags.OrdType, '2');
            w.Write(FixTags.Price, new FixDecimal(2150, 2));
        });
        ReceivedFixMessage report = Assert.Single(pair.ReceivedApplicationMessages);
        Assert.Equal("8", report.MsgType);
        return report;
    }

    /// <summary>Validates a message with the engine's validator against the version's dictionary in dictionaries/, as a
    /// validating counterparty (QuickFIX's checks, in its order) would.</summary>
    private static void AssertValid(ReceivedFixMessage message, string beginString, string what)
    {
        string file = beginString.Replace("FIX.", "FIX", StringComparison.Ordinal).Replace(".", "", StringComparison.Ordinal) + ".xml";
        var validator = new MessageValidator(DataDictionary.Load(Path.Combine(Root(), "dictionaries", file)), null, new ValidationOptions());
        var index = new FixMessageIndex();
        Assert.True(index.Parse(message.Bytes), what + ": the message does not parse: " + message);
        ValidationError error = validator.Validate(new FixMessage(message.Bytes, index));
        Assert.True(error.IsValid, $"{what} sends an invalid {beginString} message ({error}): {message}");
    }

    // ---- the typed-message classes, in a real session ----

    [Theory]
    [InlineData("package")]
    [InlineData("root")]
    public void TheTypedMessagesBlockCompilesWithItsItemAndFillsAnOrderInASession(string which)
    {
        string readme = which == "package" ? PackageReadme : RootReadme;
        Match item = Regex.Match(Other(readme, "Typed messages", "xml").Code, "<AdditionalFiles Include=\"(?<file>[^\"]+)\" FixDictionary=\"true\" FixMessages=\"(?<messages>[^\"]+)\" />");
        Assert.True(item.Success, "no AdditionalFiles item in the section's xml block");
        string file = item.Groups["file"].Value;
        string xml = File.ReadAllText(Path.Combine(Root(), "dictionaries", Path.GetFileName(file)));
        string code = CSharp(readme, "Typed messages").Code;
        // A block that uses a prebuilt message package compiles against it (referenced by this test project) alone.
        bool prebuilt = code.Contains("using FixEngine.Messages.", StringComparison.Ordinal);
        byte[] bytes = Build("ReadmeTyped" + which, OutputKind.DynamicallyLinkedLibrary, [code],
            prebuilt ? null : new GeneratorHarness.Dictionary("/app/" + file, xml, Messages: item.Groups["messages"].Value));

        Type type = Assembly.Load(bytes).GetType("TypedFills", throwOnError: true)!;
        var app = (IApplication)Activator.CreateInstance(type, nonPublic: true)!;
        SessionSettings settings = SettingsFile.Parse(
            "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=5001\nNonStopSession=Y\nUseDataDictionary=N\n[SESSION]\nBeginString=FIX.4.4\nSenderCompID=EXEC\nTargetCompID=CLIENT\n")[0];
        using var pair = FixSessionTestPair.Create(settings, app);
        pair.Connect();
        pair.SendFromCounterparty(MsgTypes.NewOrderSingle, 0, static (ref FixWriter w, scoped in int _) =>
        {
            w.Write(FixTags.ClOrdID, "R-1"u8);
            w.Write(FixTags.Symbol, "INTC"u8);
            w.Write(FixTags.Side, '2');
            w.WriteTimestamp(FixTags.TransactTime, 1_780_000_000_000_000_000L, TimestampPrecision.Millis);
            w.Write(FixTags.OrderQty, 300);
            w.Write(FixTags.OrdType, '2');
            w.Write(FixTags.Price, new FixDecimal(2150, 2));
        });
        ReceivedFixMessage report = Assert.Single(pair.ReceivedApplicationMessages);
        Assert.Equal("8", report.MsgType);
        Assert.Equal("R-1", report[FixTags.ClOrdID]);
        Assert.Equal("2", report[FixTags.OrdStatus]);
        Assert.Equal("INTC", report[FixTags.Symbol]);
        Assert.Equal("2", report[FixTags.Side]);
        Assert.Equal("300", report[FixTags.CumQty]);
        Assert.Equal("21.50", report[FixTags.AvgPx]);
        AssertValid(report, "FIX.4.4", which + " README's typed acceptor");
    }

    // ---- the repeating-group fragment ----

    [Fact]
    public void TheRepeatingGroupsFragmentReadsTheGroupAndWritesOne()
    {
        string code = CSharp(PackageReadme, "Repeating groups").Code;
        string[] lines = code.Split('\n');
        string members = string.Concat(lines.Where(l => l.StartsWith("static readonly", StringComparison.Ordinal)).Select(l => "    " + l + "\n"));
        string body = string.Concat(lines.Where(l => !l.StartsWith("static readonly", StringComparison.Ordinal)).Select(l => "        " + l + "\n"));
        string harness = """
            using System;
            using System.Collections.Generic;
            using FixEngine.Codec;

            public static class Fragment
            {
            """ + "\n" + members + """
                public static readonly List<string> PartyIds = new();

                private static void Body(FixMessage message, ref FixWriter w)
                {
                    var read = PartyIds;
            """ + "\n" + body.Replace("party.TryGetSpan(448, out var partyId);", "party.TryGetSpan(448, out var partyId); read.Add(System.Text.Encoding.ASCII.GetString(partyId));") + """
                }

                public static string Run()
                {
                    byte[] input = new byte[512];
                    var raw = new FixWriter(input);
                    raw.Begin("FIX.4.4"u8, "D"u8);
                    raw.Write(11, "O1"u8);
                    raw.Write(453, 2);
                    raw.Write(448, "BROKER"u8); raw.Write(447, 'D'); raw.Write(452, 1);
                    raw.Write(448, "CLIENT"u8); raw.Write(447, 'D'); raw.Write(452, 3);
                    raw.Write(55, "X"u8);
                    if (!raw.TryFinish(out int inLength)) return "the input did not encode";
                    var inIndex = new FixMessageIndex();
                    if (!inIndex.Parse(input.AsSpan(0, inLength))) return "the input did not parse";

                    byte[] output = new byte[512];
                    var w = new FixWriter(output);
                    w.Begin("FIX.4.4"u8, "D"u8);
                    Body(new FixMessage(input.AsSpan(0, inLength), inIndex), ref w);
                    if (!w.TryFinish(out int outLength)) return "the fragment's writes did not encode";
                    var outIndex = new FixMessageIndex();
                    if (!outIndex.Parse(output.AsSpan(0, outLength))) return "the fragment's message did not parse";
                    FixGroup written = new FixMessage(output.AsSpan(0, outLength), outIndex).GetGroup(Parties);
                    if (written.Status != FixGroupStatus.Ok || written.DeclaredCount != 2) return "written group: " + written.Status + ", " + written.DeclaredCount;
                    return string.Join(",", PartyIds);
                }
            }
            """;
        byte[] bytes = Build("ReadmeGroups", OutputKind.DynamicallyLinkedLibrary, [harness]);
        object? result = Assembly.Load(bytes).GetType("Fragment", throwOnError: true)!.GetMethod("Run")!.Invoke(null, null);
        Assert.Equal("BROKER,CLIENT", result);
    }
}
