using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Net.Sockets;

namespace FixEngine.Benchmarks.RoundTrip;

/// <summary>The incumbent FIX engines the harness compares against, each a peer program in benchmarks/Peers.</summary>
public enum PeerKind
{
    /// <summary>QuickFIX C++ 1.15 (Debian's libquickfix-dev), benchmarks/Peers/QuickFixCpp/qfpeer.</summary>
    QuickFixCpp,

    /// <summary>QuickFIX/n 1.14.1, benchmarks/Peers/QuickFixN (QuickFixN.dll).</summary>
    QuickFixN,
}

/// <summary>Finds, builds and starts the peer programs; finds the FIX44 data dictionary they load
/// (<c>../shared/dictionaries/FIX44.xml</c> beside the repository, used by path, never copied).</summary>
/// <remarks>Each peer is built at most once per harness run, the first time a selected configuration needs it: the
/// QuickFIX C++ peer by its build.sh (which installs libquickfix-dev and g++ when missing), the QuickFIX/n peer by
/// <c>dotnet build -c Release</c> of its own project (which restores QuickFIXn.* through its own nuget.config).
/// A build that fails makes the configurations that need it unavailable, with the reason. Not thread-safe: called
/// from the harness's main thread.</remarks>
public static class PeerPrograms
{
    private static readonly Dictionary<PeerKind, string?> s_buildErrors = [];

    /// <summary>The repository root (the folder holding FixEngine.sln), searched upwards from this assembly.</summary>
    public static string? RepositoryRoot { get; } = FindRoot();

    /// <summary>The FIX44 dictionary the QuickFIX peers validate with.</summary>
    public static string? Fix44Dictionary =>
        RepositoryRoot is null ? null : Path.GetFullPath(Path.Combine(RepositoryRoot, "..", "shared", "dictionaries", "FIX44.xml"));

    /// <summary>Display name for reports.</summary>
    public static string DisplayName(PeerKind kind) => kind == PeerKind.QuickFixCpp ? "QuickFIX C++" : "QuickFIX/n";

    /// <summary>Builds <paramref name="kind"/> if not done in this run; returns null when it is ready, else why not.</summary>
    public static string? EnsureBuilt(PeerKind kind)
    {
        if (s_buildErrors.TryGetValue(kind, out string? known)) return known;
        string? error = Build(kind);
        s_buildErrors[kind] = error;
        return error;
    }

    /// <summary>Start info for <paramref name="kind"/> in <paramref name="role"/> on <paramref name="port"/>, with
    /// <paramref name="extra"/> arguments (see the peers' usage).</summary>
    public static ProcessStartInfo StartInfo(PeerKind kind, string role, int port, IEnumerable<string>? extra = null)
    {
        string root = RepositoryRoot ?? throw new InvalidOperationException("repository root (FixEngine.sln) not found");
        ProcessStartInfo info;
        if (kind == PeerKind.QuickFixCpp)
        {
            info = new ProcessStartInfo(Path.Combine(root, CppBinary));
        }
        else
        {
            info = new ProcessStartInfo("dotnet");
            info.ArgumentList.Add(Path.Combine(root, QuickFixNDll));
        }
        info.ArgumentList.Add(role);
        info.ArgumentList.Add("--port");
        info.ArgumentList.Add(port.ToString(CultureInfo.InvariantCulture));
        info.ArgumentList.Add("--dict");
        info.ArgumentList.Add(Fix44Dictionary!);
        if (extra is not null)
        {
            foreach (string a in extra) info.ArgumentList.Add(a);
        }
        return info;
    }

    /// <summary>The port a peer acceptor reports on its <c>PORT p</c> line. The harness starts peer acceptors with port 0:
    /// the system picks a free port as the QuickFIX acceptor binds it, so no port is probed and bound later by another
    /// process. QuickFIX C++ and QuickFIX/n do not say which port they got, so a peer reports <c>PORT 0</c> and the port
    /// is read from the peer's own listening socket in /proc (<see cref="ListeningPortOf"/>).</summary>
    internal static int ReportedPort(LineProcess peer, string portLine)
    {
        if (!int.TryParse(portLine.AsSpan(5), NumberStyles.None, CultureInfo.InvariantCulture, out int port) || port > 65535)
        {
            throw new InvalidOperationException($"{peer.Name}: bad PORT line '{portLine}'");
        }
        return port != 0 ? port : ListeningPortOf(peer.Id, TimeSpan.FromSeconds(30));
    }

    /// <summary>The TCP port process <paramref name="pid"/> listens on (the first listening socket among its file
    /// descriptors, from /proc/PID/fd and /proc/PID/net/tcp{,6}); waits at most <paramref name="timeout"/> for it.
    /// Linux only, like the peers.</summary>
    public static int ListeningPortOf(int pid, TimeSpan timeout)
    {
        if (!OperatingSystem.IsLinux()) throw new PlatformNotSupportedException("finding a peer's listening port needs /proc (Linux)");
        DateTime deadline = DateTime.UtcNow + timeout;
        while (true)
        {
            var inodes = new HashSet<string>(StringComparer.Ordinal);
            try
            {
                foreach (string fd in Directory.EnumerateFileSystemEntries($"/proc/{pid}/fd"))
                {
                    string? target = null;
                    try
                    {
                        target = new FileInfo(fd).LinkTarget;
                    }
                    catch (IOException)
                    {
                        // closed since the listing
                    }
                    if (target is not null && target.StartsWith("socket:[", StringComparison.Ordinal)) inodes.Add(target[8..^1]);
                }
                foreach (string table in new[] { $"/proc/{pid}/net/tcp", $"/proc/{pid}/net/tcp6" })
                {
                    if (!File.Exists(table)) continue;
                    foreach (string line in File.ReadLines(table))
                    {
                        // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode; st 0A = LISTEN
                        string[] f = line.Split(' ', StringSplitOptions.RemoveEmptyEntries);
                        if (f.Length > 9 && f[3] == "0A" && inodes.Contains(f[9]))
                        {
                            return int.Parse(f[1].AsSpan(f[1].LastIndexOf(':') + 1), NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture);
                        }
                    }
                }
            }
            catch (DirectoryNotFoundException)
            {
                throw new InvalidOperationException($"process {pid} exited before it listened on a port");
            }
            if (DateTime.UtcNow >= deadline) throw new InvalidOperationException($"process {pid} listens on no TCP port after {timeout.TotalSeconds} s");
            System.Threading.Thread.Sleep(20);
        }
    }

    private const string CppBinary = "benchmarks/Peers/QuickFixCpp/build/qfpeer";
    private const string QuickFixNProject = "benchmarks/Peers/QuickFixN";
    private const string QuickFixNDll = "benchmarks/Peers/QuickFixN/bin/Release/net10.0/QuickFixN.dll";

    private static string? Build(PeerKind kind)
    {
        string? root = RepositoryRoot;
        if (root is null) return "repository root (FixEngine.sln) not found above " + AppContext.BaseDirectory;
        if (Fix44Dictionary is not string dictionary || !File.Exists(dictionary)) return $"no FIX44 dictionary at {Fix44Dictionary} (../shared beside the repository)";
        ProcessStartInfo info;
        if (kind == PeerKind.QuickFixCpp)
        {
            info = new ProcessStartInfo("bash");
            info.ArgumentList.Add(Path.Combine(root, "benchmarks/Peers/QuickFixCpp/build.sh"));
        }
        else
        {
            info = new ProcessStartInfo("dotnet");
            foreach (string a in new[] { "build", "-c", "Release", "--nologo", "-v", "q", Path.Combine(root, QuickFixNProject) }) info.ArgumentList.Add(a);
        }
        info.UseShellExecute = false;
        Console.WriteLine($"building the {DisplayName(kind)} peer: {info.FileName} {string.Join(' ', info.ArgumentList)}");
        using Process? p = Process.Start(info);
        if (p is null) return $"could not start {info.FileName}";
        if (!p.WaitForExit(600_000))
        {
            HarnessCleanup.Kill(p);
            return $"building the {DisplayName(kind)} peer took more than 10 minutes";
        }
        if (p.ExitCode != 0) return $"building the {DisplayName(kind)} peer failed (exit code {p.ExitCode}; run it by hand: {info.FileName} {string.Join(' ', info.ArgumentList)})";
        string binary = Path.Combine(root, kind == PeerKind.QuickFixCpp ? CppBinary : QuickFixNDll);
        return File.Exists(binary) ? null : $"the {DisplayName(kind)} peer build produced no {binary}";
    }

    private static string? FindRoot()
    {
        for (DirectoryInfo? d = new(AppContext.BaseDirectory); d is not null; d = d.Parent)
        {
            if (File.Exists(Path.Combine(d.FullName, "FixEngine.sln"))) return d.FullName;
        }
        return null;
    }
}
