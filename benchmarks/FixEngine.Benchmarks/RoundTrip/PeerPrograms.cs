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

    /// <summary>A loopback port free right now (another process may take it before the peer binds; the peer then fails
    /// to start and the run is reported failed).</summary>
    public static int FreePort()
    {
        using Socket probe = LoopbackTcp.Listen(0);
        return LoopbackTcp.PortOf(probe);
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
