using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Threading;
using FixEngine.Tests.Engine;
using Xunit.Abstractions;

namespace FixEngine.Tests.Durability;

/// <summary>Runs a real acceptor and a real initiator as child processes (tests/FixEngine.CrashPeer) with file stores
/// synced per message, SIGKILLs one of them at random instants under a steady flow of orders, restarts it, and then
/// checks both applications' ledgers: nothing the initiator's application was promised is lost, nothing is delivered
/// twice to either application without being flagged, and the sequence numbers re-converge without a "MsgSeqNum too
/// low" Logout.</summary>
/// <remarks>Bounded: <c>CRASH_KILLS</c> kills (10 by default), a few seconds apart, then at most 60 s to converge.
/// Seeded (<c>CRASH_SEED</c>, printed on failure) so a failing schedule can be replayed.</remarks>
[Collection(nameof(ChildProcessTests))]
public sealed class CrashTests(ITestOutputHelper output)
{
    private static readonly TimeSpan HangBound = TimeSpan.FromSeconds(300);

    [Fact]
    public void RandomSigkillsOfEitherPeerLoseNothingAndDoubleNothing()
    {
        int kills = EnvInt("CRASH_KILLS", 10);
        int seed = EnvInt("CRASH_SEED", Environment.TickCount & 0x7FFF_FFFF);
        var random = new Random(seed);
        string dir = EngineTestSupport.TempDirectory("fixengine-crash-");
        Directory.CreateDirectory(dir);
        // A killed acceptor child starts again on the same port: a port known before the start.
        using System.Net.Sockets.Socket held = EngineTestSupport.HeldPort(out int port);
        var peers = new Dictionary<string, Peer>
        {
            ["acceptor"] = Peer.Start("acceptor", dir, port),
            ["initiator"] = Peer.Start("initiator", dir, port),
        };
        var schedule = new List<string>();
        try
        {
            // Bounds against a hang, not a speed: on a loaded machine (load 30-40 on 2 cores) two .NET processes take far
            // longer than usual to start, log on and fill the first orders.
            Assert.True(EngineTestSupport.WaitFor(() => Count(dir, "initiator", 'R') > 100, HangBound), "orders flow before the first kill");
            for (int k = 0; k < kills; k++)
            {
                Thread.Sleep(random.Next(1000, 3000));
                string victim = random.Next(2) == 0 ? "acceptor" : "initiator";
                peers[victim].Kill();
                int downMs = random.Next(100, 800);
                schedule.Add($"kill {victim} after {Count(dir, "initiator", 'S')} sends, down {downMs} ms");
                Thread.Sleep(downMs);
                peers[victim] = Peer.Start(victim, dir, port);
            }
            File.WriteAllText(Path.Combine(dir, "stop-sending"), "");
            // The last victim must be up again before the ledgers are compared: a restarting initiator first adds to its
            // ledger the orders its store kept but whose OnSendStored the crash swallowed, and only then resends them.
            Assert.True(EngineTestSupport.WaitFor(() => peers.Values.All(p => p.HasStarted), HangBound), "a peer did not start again after the last kill");
            bool converged = EngineTestSupport.WaitFor(() =>
            {
                HashSet<long> sent = Ids(dir, "initiator", 'S');
                HashSet<long> filled = Ids(dir, "initiator", 'R');
                return sent.IsSubsetOf(filled);
            }, HangBound);
            foreach (Peer p in peers.Values) p.Stop();

            var problems = new List<string>();
            HashSet<long> s = Ids(dir, "initiator", 'S');
            HashSet<long> r = Ids(dir, "initiator", 'R');
            long[] lost = s.Except(r).OrderBy(x => x).ToArray();
            if (lost.Length > 0) problems.Add($"{lost.Length} orders the initiator's application was promised got no ExecutionReport (lost), e.g. {string.Join(", ", lost.Take(10))}");
            problems.AddRange(UnflaggedDuplicates(dir, "acceptor", 'P', "orders delivered again to the acceptor's application without a PossDup flag"));
            problems.AddRange(UnflaggedDuplicates(dir, "initiator", 'R', "ExecutionReports delivered again to the initiator's application without a PossDup flag"));
            foreach (string log in Directory.EnumerateFiles(dir, "*.log", SearchOption.AllDirectories))
            {
                int tooLow = File.ReadLines(log).Count(l => l.Contains("MsgSeqNum too low", StringComparison.Ordinal));
                if (tooLow > 0) problems.Add($"{tooLow} 'MsgSeqNum too low' lines in {Path.GetFileName(log)}: sequence numbers did not re-converge");
            }
            if (!converged) problems.Add($"the initiator's ledger did not converge (sent ⊆ filled) within {HangBound.TotalSeconds} s of the last kill");
            if (problems.Count > 0)
            {
                output.WriteLine($"seed {seed}, {kills} kills:");
                foreach (string line in schedule) output.WriteLine("  " + line);
                foreach (Peer p in peers.Values) output.WriteLine(p.Tail());
            }
            Assert.True(problems.Count == 0, $"CRASH_SEED={seed}: " + string.Join("; ", problems) + " | schedule: " + string.Join("; ", schedule));
            Assert.True(s.Count > 1000, $"only {s.Count} orders were sent");
        }
        finally
        {
            foreach (Peer p in peers.Values) p.Kill();
            EngineTestSupport.DeleteDirectory(dir);
        }
    }

    private static IEnumerable<string> UnflaggedDuplicates(string dir, string role, char kind, string what)
    {
        var seen = new HashSet<long>();
        var doubles = new List<long>();
        foreach (string[] parts in Lines(dir, role, kind))
        {
            long id = long.Parse(parts[1], CultureInfo.InvariantCulture);
            if (!seen.Add(id) && parts[2] != "Y") doubles.Add(id);
        }
        if (doubles.Count > 0) yield return $"{doubles.Count} {what}, e.g. {string.Join(", ", doubles.Take(10))}";
    }

    private static IEnumerable<string[]> Lines(string dir, string role, char kind)
    {
        string path = Path.Combine(dir, role + ".ledger");
        if (!File.Exists(path)) yield break;
        using var reader = new StreamReader(new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite));
        string? line;
        while ((line = reader.ReadLine()) is not null)
        {
            string[] parts = line.Split(' ');
            // A line torn by the kill (no newline yet) is not an event.
            if (parts.Length == 3 && parts[0].Length == 1 && parts[0][0] == kind && long.TryParse(parts[1], CultureInfo.InvariantCulture, out _)) yield return parts;
        }
    }

    private static HashSet<long> Ids(string dir, string role, char kind) =>
        Lines(dir, role, kind).Select(p => long.Parse(p[1], CultureInfo.InvariantCulture)).ToHashSet();

    private static int Count(string dir, string role, char kind) => Lines(dir, role, kind).Count();

    private static int EnvInt(string name, int fallback) =>
        int.TryParse(Environment.GetEnvironmentVariable(name), CultureInfo.InvariantCulture, out int v) ? v : fallback;

    private sealed class Peer
    {
        private readonly Process _process;
        private readonly List<string> _output = [];

        private Peer(Process process)
        {
            _process = process;
        }

        public static Peer Start(string role, string dir, int port)
        {
            string dll = Path.Combine(AppContext.BaseDirectory.Replace("FixEngine.Tests", "FixEngine.CrashPeer", StringComparison.Ordinal), "FixEngine.CrashPeer.dll");
            var info = new ProcessStartInfo("dotnet")
            {
                RedirectStandardInput = true,
                RedirectStandardOutput = true,
                RedirectStandardError = true,
                UseShellExecute = false,
            };
            info.ArgumentList.Add(dll);
            info.ArgumentList.Add(role);
            info.ArgumentList.Add(dir);
            info.ArgumentList.Add(port.ToString(CultureInfo.InvariantCulture));
            var peer = new Peer(Process.Start(info)!);
            peer._process.OutputDataReceived += (_, e) => { if (e.Data is not null) lock (peer._output) peer._output.Add(e.Data); };
            peer._process.ErrorDataReceived += (_, e) => { if (e.Data is not null) lock (peer._output) peer._output.Add("ERR " + e.Data); };
            peer._process.BeginOutputReadLine();
            peer._process.BeginErrorReadLine();
            return peer;
        }

        /// <summary>The peer printed "started": its ledger recovery is done and its engine runs.</summary>
        public bool HasStarted
        {
            get
            {
                lock (_output) return _output.Exists(l => l.Contains("] started, pid", StringComparison.Ordinal));
            }
        }

        /// <summary>SIGKILL: the process gets no chance to flush, log out or close anything.</summary>
        public void Kill()
        {
            try
            {
                if (!_process.HasExited) _process.Kill();
                _process.WaitForExit(10_000);
            }
            catch (InvalidOperationException)
            {
            }
        }

        /// <summary>Graceful: closing standard input makes the peer stop its engine with a Logout.</summary>
        public void Stop()
        {
            try
            {
                _process.StandardInput.Close();
                if (!_process.WaitForExit(10_000)) Kill();
            }
            catch (InvalidOperationException)
            {
            }
        }

        public string Tail()
        {
            lock (_output) return string.Join("\n", _output.Skip(Math.Max(0, _output.Count - 40)));
        }
    }
}

/// <summary>Tests that run engines in child processes: they load the machine, so they run alone, not beside other tests.</summary>
[CollectionDefinition(nameof(ChildProcessTests), DisableParallelization = true)]
public sealed class ChildProcessTests;
