using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Text.RegularExpressions;
using FixEngine.Tests.Engine;

namespace FixEngine.Tests.Durability;

/// <summary>Issue #34: the session file log loses no line its drain has taken when the process is SIGKILLed, even while the
/// drain is never idle (another session logs without pause). A child process (tests/FixEngine.CrashPeer, "log" mode) logs
/// numbered messages through per-session files, says once the drain has taken them and SIGKILLs itself at once (no idle drain
/// pass can write them out in between); its file must then hold every one.</summary>
[Collection(nameof(ChildProcessTests))]
public sealed partial class SessionLogCrashTests
{
    private const int Lines = 200;
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(60);

    [Fact]
    public void LinesTheDrainTookSurviveASigkillWhileTheDrainIsBusy()
    {
        string dir = EngineTestSupport.TempDirectory("fixengine-logcrash-");
        Directory.CreateDirectory(dir);
        string dll = Path.Combine(AppContext.BaseDirectory.Replace("FixEngine.Tests", "FixEngine.CrashPeer", StringComparison.Ordinal), "FixEngine.CrashPeer.dll");
        var info = new ProcessStartInfo("dotnet") { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        info.ArgumentList.Add(dll);
        info.ArgumentList.Add("log");
        info.ArgumentList.Add(dir);
        info.ArgumentList.Add(Lines.ToString(System.Globalization.CultureInfo.InvariantCulture));
        var output = new List<string>();
        using var logged = new System.Threading.ManualResetEventSlim(false);
        using Process child = Process.Start(info)!;
        try
        {
            child.OutputDataReceived += (_, e) =>
            {
                if (e.Data is null) return;
                lock (output) output.Add(e.Data);
                if (e.Data.StartsWith("logged ", StringComparison.Ordinal)) logged.Set();
            };
            child.ErrorDataReceived += (_, e) => { if (e.Data is not null) lock (output) output.Add("ERR " + e.Data); };
            child.BeginOutputReadLine();
            child.BeginErrorReadLine();
            Assert.True(logged.Wait(Bound), "the child never said its lines were logged: " + Tail(output));
            Assert.True(child.WaitForExit(Bound), "the child did not die");
            child.WaitForExit();
            // 128 + SIGKILL: it died without a flush, a dispose or a finalizer.
            Assert.True(child.ExitCode == 137, $"exit code {child.ExitCode}, not a SIGKILL: {Tail(output)}");

            string file = Directory.GetFiles(dir, "*CLIENT*EXEC*.messages.log").Single();
            string text = File.ReadAllText(file);
            var found = new HashSet<int>(LineMarker().Matches(text).Select(m => int.Parse(m.Groups[1].Value, System.Globalization.CultureInfo.InvariantCulture)));
            int[] missing = Enumerable.Range(1, Lines).Where(i => !found.Contains(i)).ToArray();
            Assert.True(missing.Length == 0,
                $"{missing.Length} of {Lines} logged lines lost by the SIGKILL (first missing: {string.Join(", ", missing.Take(5))}); child: {Tail(output)}");
        }
        finally
        {
            if (!child.HasExited) child.Kill();
            EngineTestSupport.DeleteDirectory(dir);
        }
    }

    private static string Tail(List<string> output)
    {
        lock (output) return string.Join(" | ", output.Skip(Math.Max(0, output.Count - 10)));
    }

    [GeneratedRegex("11=line-([0-9]+)-end")]
    private static partial Regex LineMarker();
}
