using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Threading;

namespace FixEngine.Benchmarks.RoundTrip;

/// <summary>Runs the acceptor side in a child process (this same executable with <c>roundtrip --acceptor-only role</c>)
/// and the initiator here, so the two sides share no runtime, GC or thread pool.</summary>
/// <remarks>
/// <para>Protocol, one ASCII line each way (<see cref="AcceptorProcess"/> is the child's side):</para>
/// <code>
///   child  → parent   PORT 40123            acceptor listening (the only line before any command)
///   parent → child    BEGIN                 settle the heap, snapshot GC counts and allocated bytes
///   child  → parent   BEGUN
///   parent → child    END                   snapshot again
///   child  → parent   WINDOW g0 g1 g2 bytes counts since BEGIN
///   parent → child    JIT                   (during warm-up)
///   child  → parent   JIT n                 methods compiled so far
///   parent → child    COUNTERS              (after a run's window, session roles only)
///   child  → parent   COUNTERS acceptor ... the acceptor session's counters (SessionSideCounters.ToWire)
///   parent → child    EXIT (or stdin EOF)   stop the acceptor and exit
/// </code>
/// <para>The child exits when its stdin reaches end of file, so it cannot outlive this process however this process
/// ends (the pipe closes with it, even on SIGKILL). This process also kills every child it started on exit, Ctrl+C or
/// an unhandled exception (<see cref="HarnessCleanup"/>), and <see cref="Stop"/> kills a child that has not exited
/// 5 s after EXIT. Start-up waits at most 60 s for the PORT line and fails with the child's exit code if it exits
/// first.</para>
/// <para>Not thread-safe: the harness's sender thread drives it.</para>
/// </remarks>
public sealed class ChildProcessSystem : IRoundTripSystem, IMeasuredWindow, ISessionCounterSource
{
    // Design: two threads. The harness's sender thread calls every public member (start, orders, window commands,
    // stop) and is the only writer of the child's stdin. The "acceptor-stdout" thread is the only reader of the
    // child's stdout; it hands each line to the sender thread through _lines (a BlockingCollection, which provides
    // the ordering) and adds null at end of file. The sender waits for an expected line with a timeout, so a child
    // that hangs or dies fails the run instead of blocking it. The reader allocates a string per line: the child
    // writes lines only in answer to commands, which are never sent inside this process's measured window.
    /// <summary>Role name of the codec acceptor.</summary>
    public const string CodecAcceptorRole = "codec";

    /// <summary>Environment variable naming the child's file-store directory (chosen here, so this process can delete
    /// it if the child is killed).</summary>
    public const string StoreRootVariable = "FIXENGINE_ROUNDTRIP_STORE_ROOT";

    private static readonly TimeSpan s_startTimeout = TimeSpan.FromSeconds(60);
    private static readonly TimeSpan s_replyTimeout = TimeSpan.FromSeconds(30);

    private readonly string _role;
    private readonly Func<int, IRoundTripSystem> _createInitiator;
    private readonly string? _childStoreRoot;
    private readonly BlockingCollection<string?> _lines = new();
    private Process? _child;
    private Thread? _stdoutReader;
    private IRoundTripSystem? _initiator;

    /// <summary>Creates the system; nothing starts until <see cref="Start"/>.</summary>
    /// <param name="name">Report key.</param>
    /// <param name="role">Acceptor role passed to the child (<see cref="CodecAcceptorRole"/> or an
    /// <see cref="EngineSessionSpec.ToRole"/> string).</param>
    /// <param name="createInitiator">Creates this process's side for the child's acceptor port.</param>
    /// <param name="childStoreRoot">Directory for the child's file store, or null when it has none.</param>
    public ChildProcessSystem(string name, string role, Func<int, IRoundTripSystem> createInitiator, string? childStoreRoot = null)
    {
        Name = name;
        _role = role;
        _createInitiator = createInitiator;
        _childStoreRoot = childStoreRoot;
    }

    /// <inheritdoc/>
    public string Name { get; }

    /// <summary>The child's process id while it runs (diagnostics and tests), else 0.</summary>
    public int ChildProcessId => _child?.Id ?? 0;

    /// <inheritdoc/>
    public void Start(IReplyHandler handler)
    {
        string processPath = Environment.ProcessPath ?? throw new InvalidOperationException("no process path");
        var info = new ProcessStartInfo(processPath)
        {
            RedirectStandardInput = true,
            RedirectStandardOutput = true,
            UseShellExecute = false,
        };
        if (Path.GetFileNameWithoutExtension(processPath).Equals("dotnet", StringComparison.OrdinalIgnoreCase))
        {
            info.ArgumentList.Add(typeof(ChildProcessSystem).Assembly.Location);
        }
        info.ArgumentList.Add("roundtrip");
        info.ArgumentList.Add("--acceptor-only");
        info.ArgumentList.Add(_role);
        if (_childStoreRoot is not null)
        {
            info.Environment[StoreRootVariable] = _childStoreRoot;
            HarnessCleanup.TrackDirectory(_childStoreRoot);
        }
        _child = Process.Start(info) ?? throw new InvalidOperationException("could not start the acceptor process");
        HarnessCleanup.Track(_child);
        Process child = _child;
        _stdoutReader = new Thread(() =>
        {
            try
            {
                string? line;
                while ((line = child.StandardOutput.ReadLine()) is not null) _lines.Add(line);
            }
            catch (IOException)
            {
            }
            catch (ObjectDisposedException)
            {
            }
            _lines.Add(null);
        }) { IsBackground = true, Name = "acceptor-stdout" };
        _stdoutReader.Start();

        string line = Expect("PORT ", s_startTimeout);
        if (!int.TryParse(line.AsSpan(5), NumberStyles.None, CultureInfo.InvariantCulture, out int port) || port is < 1 or > 65535)
        {
            throw new InvalidOperationException($"{Name}: acceptor process reported a bad port ('{line}')");
        }
        _initiator = _createInitiator(port);
        _initiator.Start(handler);
    }

    /// <inheritdoc/>
    public void SendOrder(long msgSeqNum, long intendedSendNs) => _initiator!.SendOrder(msgSeqNum, intendedSendNs);

    /// <inheritdoc/>
    public void BeginWindow()
    {
        Command("BEGIN");
        Expect("BEGUN", s_replyTimeout);
    }

    /// <inheritdoc/>
    public ProcessWindow EndWindow()
    {
        Command("END");
        string line = Expect("WINDOW ", s_replyTimeout);
        string[] parts = line.Split(' ');
        if (parts.Length != 5
            || !int.TryParse(parts[1], CultureInfo.InvariantCulture, out int gen0)
            || !int.TryParse(parts[2], CultureInfo.InvariantCulture, out int gen1)
            || !int.TryParse(parts[3], CultureInfo.InvariantCulture, out int gen2)
            || !long.TryParse(parts[4], CultureInfo.InvariantCulture, out long bytes))
        {
            throw new InvalidOperationException($"{Name}: acceptor process sent a bad window line ('{line}')");
        }
        return new ProcessWindow(gen0, gen1, gen2, bytes);
    }

    /// <inheritdoc/>
    public long CompiledMethodCount()
    {
        Command("JIT");
        string line = Expect("JIT ", s_replyTimeout);
        return long.TryParse(line.AsSpan(4), NumberStyles.None, CultureInfo.InvariantCulture, out long count)
            ? count
            : throw new InvalidOperationException($"{Name}: acceptor process sent a bad JIT line ('{line}')");
    }

    /// <inheritdoc/>
    public IReadOnlyList<SessionSideCounters> ReadSessionCounters()
    {
        var list = new List<SessionSideCounters>(2);
        if (_initiator is ISessionCounterSource initiator) list.AddRange(initiator.ReadSessionCounters());
        if (_role == CodecAcceptorRole || _child is null) return list;
        Command("COUNTERS");
        string line = Expect("COUNTERS ", s_replyTimeout);
        if (!SessionSideCounters.TryParseWire(line, out SessionSideCounters acceptor))
        {
            throw new InvalidOperationException($"{Name}: acceptor process sent a bad counters line ('{line}')");
        }
        list.Add(acceptor);
        return list;
    }

    /// <inheritdoc/>
    public void Stop()
    {
        _initiator?.Stop();
        _initiator = null;
        Process? child = _child;
        if (child is null) return;
        _child = null;
        try
        {
            try
            {
                child.StandardInput.WriteLine("EXIT");
                child.StandardInput.Close();
            }
            catch (IOException)
            {
            }
            if (!child.WaitForExit(5_000))
            {
                Console.Error.WriteLine($"  {Name}: acceptor process {child.Id} did not exit 5 s after EXIT; killing it");
                HarnessCleanup.Kill(child);
                child.WaitForExit(5_000);
            }
            _stdoutReader?.Join(5_000);
        }
        finally
        {
            HarnessCleanup.Untrack(child);
            child.Dispose();
            HarnessCleanup.DeleteDirectory(_childStoreRoot);
        }
    }

    /// <inheritdoc/>
    public void Dispose() => Stop();

    /// <summary>The child's main: serves the acceptor for <paramref name="role"/> until EXIT or stdin EOF.</summary>
    /// <returns>Process exit code.</returns>
    public static int RunAcceptorOnly(string role) => AcceptorProcess.Run(role);

    private void Command(string command)
    {
        Process child = _child ?? throw new InvalidOperationException($"{Name}: acceptor process not running");
        try
        {
            child.StandardInput.WriteLine(command);
            child.StandardInput.Flush();
        }
        catch (IOException e)
        {
            throw new InvalidOperationException($"{Name}: acceptor process stopped reading commands ({e.Message})", e);
        }
    }

    private string Expect(string prefix, TimeSpan timeout)
    {
        Process child = _child ?? throw new InvalidOperationException($"{Name}: acceptor process not running");
        DateTime deadline = DateTime.UtcNow + timeout;
        while (true)
        {
            TimeSpan left = deadline - DateTime.UtcNow;
            if (left <= TimeSpan.Zero || !_lines.TryTake(out string? line, left))
            {
                throw new InvalidOperationException($"{Name}: acceptor process sent no '{prefix.Trim()}' line within {timeout.TotalSeconds:0} s");
            }
            if (line is null)
            {
                child.WaitForExit(2_000);
                string code = child.HasExited ? child.ExitCode.ToString(CultureInfo.InvariantCulture) : "unknown";
                throw new InvalidOperationException($"{Name}: acceptor process closed its output before '{prefix.Trim()}' (exit code {code})");
            }
            if (line.StartsWith(prefix, StringComparison.Ordinal)) return line;
            Console.Error.WriteLine($"  {Name} acceptor: {line}");
        }
    }
}
