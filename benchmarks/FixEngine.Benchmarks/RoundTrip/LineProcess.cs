using System;
using System.Collections.Concurrent;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Threading;

namespace FixEngine.Benchmarks.RoundTrip;

/// <summary>A child process driven by one-line commands on its stdin and answering with lines on its stdout: the
/// harness's own acceptor child (<see cref="AcceptorProcess"/>) and the QuickFIX peers (benchmarks/Peers).</summary>
/// <remarks>
/// <para>Two threads. The owner (the harness's sender thread) calls every public member and is the only writer of the
/// child's stdin. A background thread is the only reader of the child's stdout; it hands each line to the owner through
/// a BlockingCollection (which provides the ordering) and adds null at end of file. <see cref="Expect"/> waits for a
/// line with a timeout, so a child that hangs or dies fails the run instead of blocking it; lines that do not match are
/// echoed on stderr. The reader allocates a string per line: children write lines only in answer to commands or at
/// phase changes, never inside a measured window's message path.</para>
/// <para>The process is tracked by <see cref="HarnessCleanup"/> (killed if the harness exits first); the children also
/// exit at end of file on stdin, so they cannot outlive the harness even on SIGKILL.</para>
/// </remarks>
internal sealed class LineProcess : IDisposable
{
    private readonly BlockingCollection<string?> _lines = new();
    private readonly Process _process;
    private readonly Thread _stdoutReader;
    private bool _stopped;
    private long _readerAllocatedBytes;

    /// <summary>Starts <paramref name="info"/> (stdin and stdout are redirected here).</summary>
    /// <param name="name">Shown in errors.</param>
    /// <param name="info">What to start.</param>
    public LineProcess(string name, ProcessStartInfo info)
    {
        Name = name;
        info.RedirectStandardInput = true;
        info.RedirectStandardOutput = true;
        info.UseShellExecute = false;
        _process = Process.Start(info) ?? throw new InvalidOperationException($"{name}: could not start '{info.FileName}'");
        HarnessCleanup.Track(_process);
        Process child = _process;
        _stdoutReader = new Thread(() =>
        {
            try
            {
                string? line;
                while ((line = child.StandardOutput.ReadLine()) is not null)
                {
                    // Published before the line is queued as well as after: a caller that takes the line and reads the
                    // count at once (a window's end) must see the line's own string counted, or it is charged to the
                    // window (seen as 288 B in busy-poll acceptor windows, where this thread is often preempted
                    // between the two). The second write covers the queue's own (occasional) segment allocation.
                    Volatile.Write(ref _readerAllocatedBytes, GC.GetAllocatedBytesForCurrentThread());
                    _lines.Add(line);
                    Volatile.Write(ref _readerAllocatedBytes, GC.GetAllocatedBytesForCurrentThread());
                }
            }
            catch (IOException)
            {
            }
            catch (ObjectDisposedException)
            {
            }
            _lines.Add(null);
        }) { IsBackground = true, Name = name + "-stdout" };
        _stdoutReader.Start();
    }

    /// <summary>Shown in errors.</summary>
    public string Name { get; }

    /// <summary>Bytes the stdout reader thread had allocated after its last line (its strings and queue nodes), so a
    /// caller measuring its process's allocation over a window can leave this harness plumbing out.</summary>
    public long ReaderAllocatedBytes => Volatile.Read(ref _readerAllocatedBytes);

    /// <summary>The child's process id.</summary>
    public int Id => _process.Id;

    /// <summary>True once the child has exited (and was not stopped through <see cref="Stop"/>).</summary>
    public bool HasExited => !_stopped && _process.HasExited;

    /// <summary>How the child ended: "code N", or "signal S (NAME)" for a child the kernel killed (the runtime reports
    /// those as exit code 128 + S); "still running" when it has not.</summary>
    public string ExitDescription()
    {
        if (!_process.HasExited) return "still running";
        int code = _process.ExitCode;
        if (code <= 128 || code > 128 + 64) return "code " + code.ToString(CultureInfo.InvariantCulture);
        int signal = code - 128;
        string name = signal switch { 4 => "SIGILL", 6 => "SIGABRT", 7 => "SIGBUS", 9 => "SIGKILL (out of memory?)", 11 => "SIGSEGV", 15 => "SIGTERM", _ => "signal" };
        return $"signal {signal.ToString(CultureInfo.InvariantCulture)} ({name}; exit code {code.ToString(CultureInfo.InvariantCulture)})";
    }

    /// <summary>The child's peak resident set size so far (Linux VmHWM), or null where it cannot be read.</summary>
    public long? PeakResidentBytes()
    {
        try
        {
            foreach (string line in File.ReadLines($"/proc/{_process.Id}/status"))
            {
                if (!line.StartsWith("VmHWM:", StringComparison.Ordinal)) continue;
                string[] parts = line.Split(' ', StringSplitOptions.RemoveEmptyEntries);
                return parts.Length >= 2 && long.TryParse(parts[1], NumberStyles.None, CultureInfo.InvariantCulture, out long kb) ? kb * 1024 : null;
            }
        }
        catch (IOException)
        {
        }
        catch (UnauthorizedAccessException)
        {
        }
        return null;
    }

    /// <summary>Writes one command line.</summary>
    public void Command(string command)
    {
        try
        {
            _process.StandardInput.WriteLine(command);
            _process.StandardInput.Flush();
        }
        catch (IOException e)
        {
            throw new InvalidOperationException($"{Name}: process stopped reading commands ({e.Message})", e);
        }
    }

    /// <summary>Waits for the next line starting with <paramref name="prefix"/>; throws when the child closes its
    /// output first (with its exit code) or nothing comes within <paramref name="timeout"/>.</summary>
    public string Expect(string prefix, TimeSpan timeout)
    {
        DateTime deadline = DateTime.UtcNow + timeout;
        while (true)
        {
            TimeSpan left = deadline - DateTime.UtcNow;
            if (left <= TimeSpan.Zero || !_lines.TryTake(out string? line, left))
            {
                throw new InvalidOperationException($"{Name}: process sent no '{prefix.Trim()}' line within {timeout.TotalSeconds:0} s");
            }
            if (line is null)
            {
                _process.WaitForExit(2_000);
                string code = _process.HasExited ? _process.ExitCode.ToString(CultureInfo.InvariantCulture) : "unknown";
                throw new InvalidOperationException($"{Name}: process closed its output before '{prefix.Trim()}' (exit code {code})");
            }
            if (line.StartsWith(prefix, StringComparison.Ordinal)) return line;
            Console.Error.WriteLine($"  {Name}: {line}");
        }
    }

    /// <summary>Sends EXIT, closes stdin and waits up to 5 s for the exit, then kills the process tree. Idempotent.</summary>
    /// <returns>The exit code, or null when the process had to be killed.</returns>
    public int? Stop()
    {
        if (_stopped) return null;
        _stopped = true;
        try
        {
            try
            {
                _process.StandardInput.WriteLine("EXIT");
                _process.StandardInput.Close();
            }
            catch (IOException)
            {
            }
            int? code = null;
            if (_process.WaitForExit(5_000))
            {
                code = _process.ExitCode;
            }
            else
            {
                Console.Error.WriteLine($"  {Name}: process {_process.Id} did not exit 5 s after EXIT; killing it");
                HarnessCleanup.Kill(_process);
                _process.WaitForExit(5_000);
            }
            _stdoutReader.Join(5_000);
            return code;
        }
        finally
        {
            HarnessCleanup.Untrack(_process);
            _process.Dispose();
        }
    }

    /// <inheritdoc/>
    public void Dispose() => Stop();
}
