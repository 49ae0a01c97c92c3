using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Runtime.InteropServices;
using System.Threading;

namespace FixEngine.Benchmarks.RoundTrip;

/// <summary>Child processes and temporary store directories that must not outlive the harness: removed by their
/// owners on the normal path, and by this class when the process exits early (SIGTERM, SIGINT/Ctrl+C, SIGHUP, an
/// unhandled exception).</summary>
/// <remarks>Thread-safe (one lock). A SIGKILL runs no handler: children then exit on their own when their stdin closes
/// (see <see cref="ChildProcessSystem"/>) and delete their store directories; this process's directory remains.</remarks>
internal static class HarnessCleanup
{
    // Design: callers on any thread add and remove entries under s_lock; the exit handlers (signal thread, ProcessExit,
    // UnhandledException) take a copy under the lock and clean up outside it, so a handler never waits on a caller.
    private static readonly object s_lock = new();
    private static readonly HashSet<Process> s_processes = [];
    private static readonly HashSet<string> s_directories = new(StringComparer.Ordinal);
    private static int s_installed;
    private static PosixSignalRegistration[]? s_signals;

    /// <summary>Kills <paramref name="process"/> (and its children) if this process exits first.</summary>
    public static void Track(Process process)
    {
        Install();
        lock (s_lock) s_processes.Add(process);
    }

    /// <summary>Stops tracking <paramref name="process"/>.</summary>
    public static void Untrack(Process process)
    {
        lock (s_lock) s_processes.Remove(process);
    }

    /// <summary>Deletes <paramref name="directory"/> if this process exits before <see cref="DeleteDirectory"/>.</summary>
    public static void TrackDirectory(string directory)
    {
        Install();
        lock (s_lock) s_directories.Add(directory);
    }

    /// <summary>Deletes a directory tree now, ignoring errors, and stops tracking it.</summary>
    public static void DeleteDirectory(string? directory)
    {
        if (directory is null) return;
        lock (s_lock) s_directories.Remove(directory);
        DeleteQuietly(directory);
    }

    /// <summary>Kills <paramref name="process"/> and its children, ignoring one that already exited.</summary>
    public static void Kill(Process process)
    {
        try
        {
            if (!process.HasExited) process.Kill(entireProcessTree: true);
        }
        catch (InvalidOperationException)
        {
        }
        catch (System.ComponentModel.Win32Exception)
        {
        }
    }

    private static void Install()
    {
        if (Interlocked.Exchange(ref s_installed, 1) != 0) return;
        AppDomain.CurrentDomain.ProcessExit += (_, _) => CleanUpAll();
        AppDomain.CurrentDomain.UnhandledException += (_, _) => CleanUpAll();
        // SIGTERM, SIGINT and SIGHUP otherwise end the process without running ProcessExit; the handler cleans up and
        // lets the default action (termination) proceed.
        s_signals =
        [
            PosixSignalRegistration.Create(PosixSignal.SIGTERM, _ => CleanUpAll()),
            PosixSignalRegistration.Create(PosixSignal.SIGINT, _ => CleanUpAll()),
            PosixSignalRegistration.Create(PosixSignal.SIGHUP, _ => CleanUpAll()),
        ];
    }

    private static void CleanUpAll()
    {
        Process[] processes;
        string[] directories;
        lock (s_lock)
        {
            processes = [.. s_processes];
            directories = [.. s_directories];
            s_processes.Clear();
            s_directories.Clear();
        }
        foreach (Process p in processes)
        {
            Kill(p);
            p.WaitForExit(2_000);
        }
        // Engine threads may still be writing a store while the process exits: retry a directory that refills.
        for (int attempt = 0; attempt < 5; attempt++)
        {
            bool left = false;
            foreach (string d in directories)
            {
                DeleteQuietly(d);
                left |= Directory.Exists(d);
            }
            if (!left) break;
            Thread.Sleep(20);
        }
    }

    private static void DeleteQuietly(string directory)
    {
        if (!Directory.Exists(directory)) return;
        try
        {
            Directory.Delete(directory, true);
        }
        catch (IOException)
        {
        }
        catch (UnauthorizedAccessException)
        {
        }
    }
}
