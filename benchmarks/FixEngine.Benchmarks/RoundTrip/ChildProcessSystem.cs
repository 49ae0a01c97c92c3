using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.IO;

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
    // Design: the harness's sender thread calls every public member (start, orders, window commands, stop); the child's
    // stdout is read by LineProcess's own thread.
    /// <summary>Role name of the codec acceptor.</summary>
    public const string CodecAcceptorRole = "codec";

    /// <summary>Role prefix of the raw-TCP floor's acceptor: <c>floor:&lt;order bytes&gt;:&lt;reply bytes&gt;</c>.</summary>
    public const string FloorAcceptorRole = "floor";

    /// <summary>Environment variable naming the child's file-store directory (chosen here, so this process can delete
    /// it if the child is killed).</summary>
    public const string StoreRootVariable = "FIXENGINE_ROUNDTRIP_STORE_ROOT";

    private static readonly TimeSpan s_startTimeout = TimeSpan.FromSeconds(60);
    private static readonly TimeSpan s_replyTimeout = TimeSpan.FromSeconds(30);

    private readonly string _role;
    private readonly Func<int, IRoundTripSystem> _createInitiator;
    private readonly string? _childStoreRoot;
    private readonly Func<ProcessStartInfo>? _peerStart;
    private LineProcess? _child;
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

    private ChildProcessSystem(string name, Func<ProcessStartInfo> peerStart, Func<int, IRoundTripSystem> createInitiator)
        : this(name, "peer", createInitiator)
    {
        _peerStart = peerStart;
    }

    /// <summary>A system whose acceptor is a QuickFIX peer program (<see cref="PeerPrograms"/>) speaking the same
    /// protocol (PORT, BEGIN/BEGUN, END/WINDOW, JIT, EXIT); it has no FixEngine session counters, and its window is
    /// reported as the peer's, not added to FixEngine's.</summary>
    /// <param name="name">Report key.</param>
    /// <param name="peerStart">Start info of the peer acceptor (its port chosen by the caller).</param>
    /// <param name="createInitiator">Creates this process's side for the peer's port.</param>
    public static ChildProcessSystem ForPeer(string name, Func<ProcessStartInfo> peerStart, Func<int, IRoundTripSystem> createInitiator) =>
        new(name, peerStart, createInitiator);

    /// <inheritdoc/>
    public string Name { get; }

    /// <summary>The child's process id while it runs (diagnostics and tests), else 0.</summary>
    public int ChildProcessId => _child?.Id ?? 0;

    /// <inheritdoc/>
    public bool IsFixEngineProcess => _peerStart is null;

    /// <inheritdoc/>
    public void Start(IReplyHandler handler)
    {
        ProcessStartInfo info;
        if (_peerStart is not null)
        {
            info = _peerStart();
        }
        else
        {
            info = HarnessChildStartInfo();
            info.ArgumentList.Add("roundtrip");
            info.ArgumentList.Add("--acceptor-only");
            info.ArgumentList.Add(_role);
            if (_childStoreRoot is not null)
            {
                info.Environment[StoreRootVariable] = _childStoreRoot;
                HarnessCleanup.TrackDirectory(_childStoreRoot);
            }
        }
        _child = new LineProcess(Name + " acceptor", info);
        string line = _child.Expect("PORT ", s_startTimeout);
        int port = _peerStart is not null ? PeerPrograms.ReportedPort(_child, line) : 0;
        if (_peerStart is null && (!int.TryParse(line.AsSpan(5), NumberStyles.None, CultureInfo.InvariantCulture, out port) || port is < 1 or > 65535))
        {
            throw new InvalidOperationException($"{Name}: acceptor process reported a bad port ('{line}')");
        }
        _initiator = _createInitiator(port);
        _initiator.Start(handler);
    }

    /// <summary>Start info for this harness executable (through <c>dotnet</c> when it runs as a dll).</summary>
    public static ProcessStartInfo HarnessChildStartInfo()
    {
        string processPath = Environment.ProcessPath ?? throw new InvalidOperationException("no process path");
        var info = new ProcessStartInfo(processPath);
        if (Path.GetFileNameWithoutExtension(processPath).Equals("dotnet", StringComparison.OrdinalIgnoreCase))
        {
            info.ArgumentList.Add(typeof(ChildProcessSystem).Assembly.Location);
        }
        return info;
    }

    /// <inheritdoc/>
    public void SendOrder(long msgSeqNum, long intendedSendNs) => _initiator!.SendOrder(msgSeqNum, intendedSendNs);

    /// <inheritdoc/>
    public void BeginWindow()
    {
        Child.Command("BEGIN");
        Child.Expect("BEGUN", s_replyTimeout);
    }

    /// <inheritdoc/>
    public ProcessWindow? EndWindow()
    {
        Child.Command("END");
        string line = Child.Expect("WINDOW ", s_replyTimeout);
        return ParseWindow(Name, line);
    }

    /// <summary>Parses <c>WINDOW g0 g1 g2 bytes</c>; <c>WINDOW n/a</c> (a native peer: no GC) gives null.</summary>
    public static ProcessWindow? ParseWindow(string name, string line)
    {
        string[] parts = line.Split(' ');
        if (parts.Length == 2 && parts[1] == "n/a") return null;
        if (parts.Length != 5
            || !int.TryParse(parts[1], CultureInfo.InvariantCulture, out int gen0)
            || !int.TryParse(parts[2], CultureInfo.InvariantCulture, out int gen1)
            || !int.TryParse(parts[3], CultureInfo.InvariantCulture, out int gen2)
            || !long.TryParse(parts[4], CultureInfo.InvariantCulture, out long bytes))
        {
            throw new InvalidOperationException($"{name}: acceptor process sent a bad window line ('{line}')");
        }
        return new ProcessWindow(gen0, gen1, gen2, bytes);
    }

    /// <inheritdoc/>
    public long? PeakResidentBytes() => _child?.PeakResidentBytes();

    /// <inheritdoc/>
    public long CompiledMethodCount()
    {
        Child.Command("JIT");
        string line = Child.Expect("JIT ", s_replyTimeout);
        return long.TryParse(line.AsSpan(4), NumberStyles.None, CultureInfo.InvariantCulture, out long count)
            ? count
            : throw new InvalidOperationException($"{Name}: acceptor process sent a bad JIT line ('{line}')");
    }

    /// <inheritdoc/>
    public IReadOnlyList<SessionSideCounters> ReadSessionCounters()
    {
        var list = new List<SessionSideCounters>(2);
        if (_initiator is ISessionCounterSource initiator) list.AddRange(initiator.ReadSessionCounters());
        if (_role == CodecAcceptorRole || _role.StartsWith(FloorAcceptorRole + ":", StringComparison.Ordinal) || _peerStart is not null || _child is null) return list;
        Child.Command("COUNTERS");
        string line = Child.Expect("COUNTERS ", s_replyTimeout);
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
        LineProcess? child = _child;
        if (child is null) return;
        _child = null;
        try
        {
            child.Stop();
        }
        finally
        {
            HarnessCleanup.DeleteDirectory(_childStoreRoot);
        }
    }

    /// <inheritdoc/>
    public void Dispose() => Stop();

    /// <summary>The child's main: serves the acceptor for <paramref name="role"/> until EXIT or stdin EOF.</summary>
    /// <returns>Process exit code.</returns>
    public static int RunAcceptorOnly(string role) => AcceptorProcess.Run(role);

    private LineProcess Child => _child ?? throw new InvalidOperationException($"{Name}: acceptor process not running");
}
