using System.Globalization;

namespace FixEngine.Benchmarks.Scale;

/// <summary>What one scenario (acceptor kind, N sessions) measured; null where it did not get that far or the acceptor
/// cannot say (a GC heap for a native process).</summary>
internal sealed class ScaleResult
{
    public ScaleAcceptorKind Acceptor { get; init; }

    public int Sessions { get; init; }

    public int Busy { get; init; }

    public string? Error { get; set; }

    /// <summary>The acceptor process died during the scenario (Error says how and after how many logons).</summary>
    public bool AcceptorExited { get; set; }

    public long LoggedOn { get; set; }

    public double? LogonSeconds { get; set; }

    public long? RssStartBytes { get; set; }

    public long? RssIdleBytes { get; set; }

    public long? RssIdleAfterGcBytes { get; set; }

    public long? RssBusyBytes { get; set; }

    public long? GcHeapIdleBytes { get; set; }

    public long? GcCommittedIdleBytes { get; set; }

    public long? GcHeapBusyBytes { get; set; }

    public long? GcCommittedBusyBytes { get; set; }

    public int? ThreadsIdle { get; set; }

    public int? ThreadsBusy { get; set; }

    public double? CpuIdleSeconds { get; set; }

    public double? IdleWindowSeconds { get; set; }

    public double? CpuBusySeconds { get; set; }

    public double? BusyWindowSeconds { get; set; }

    public long TestRequestsByAcceptor { get; set; }

    public long TestRequestsByInitiators { get; set; }

    public long Disconnects { get; set; }

    public long Sent { get; set; }

    public long Replies { get; set; }

    public long ReplyErrors { get; set; }

    public long Measured { get; set; }

    public double? P50Us { get; set; }

    public double? P99Us { get; set; }

    public double? P999Us { get; set; }

    public double? MaxUs { get; set; }

    /// <summary>The console mode of the run (none, idle, poll).</summary>
    public string ConsoleMode { get; init; } = "none";

    /// <summary>Bytes the acceptor process allocated over the busy window (all threads; FixEngine only).</summary>
    public long? AcceptorAllocatedBusyBytes { get; set; }

    /// <summary>Collections in the acceptor process over the busy window (gen0/gen1/gen2).</summary>
    public string? AcceptorGcBusy { get; set; }

    /// <summary>Bytes the harness process (the initiators and the order sender) allocated over the busy window.</summary>
    public long? HarnessAllocatedBusyBytes { get; set; }

    /// <summary>Collections in the harness process over the busy window (gen0/gen1/gen2) and their pauses in ms: a
    /// pause there delays the replies it measures as much as one in the acceptor.</summary>
    public string? HarnessGcBusy { get; set; }

    /// <summary>With <c>--console poll</c>: the GETs of api/sessions made, failed, and what they took.</summary>
    public int ConsolePolls { get; set; }

    public int ConsolePollErrors { get; set; }

    public double? ConsoleP50Ms { get; set; }

    public double? ConsoleMaxMs { get; set; }

    public long? ConsoleBytes { get; set; }

    public int? ConsoleSessionsListed { get; set; }

    /// <summary>The acceptor's allocation per poll over what the same window allocates without polls is the difference
    /// of two runs; per poll, this run's allocation divided by the polls (an upper bound).</summary>
    public double? AllocatedPerPollBytes => ConsolePolls > 0 && AcceptorAllocatedBusyBytes is long a ? (double)a / ConsolePolls : null;

    /// <summary>Idle RSS per session in KB, against the process before any logon (its runtime, code and configured
    /// sessions): (idle - start) / N.</summary>
    public double? RssPerIdleSessionKb => RssIdleBytes is long idle && RssStartBytes is long start ? (idle - start) / 1024.0 / Sessions : null;

    /// <summary>Idle RSS per session in KB against another (1-session) run's idle RSS.</summary>
    public double? RssPerIdleSessionAgainstKb(ScaleResult? one) =>
        one is { RssIdleBytes: long baseline } && RssIdleBytes is long idle && Sessions > one.Sessions ? (idle - baseline) / 1024.0 / (Sessions - one.Sessions) : null;

    public double? RssPerBusySessionKb => RssBusyBytes is long busy && RssStartBytes is long start ? (busy - start) / 1024.0 / Sessions : null;

    public double? GcHeapPerSessionKb => GcHeapIdleBytes is long heap ? heap / 1024.0 / Sessions : null;

    /// <summary>Acceptor CPU per idle session, in microseconds of CPU per second.</summary>
    public double? CpuPerIdleSessionUsPerS => CpuIdleSeconds is double cpu && IdleWindowSeconds is double w && w > 0 ? cpu / w / Sessions * 1e6 : null;

    public static ScaleResult Failed(ScaleAcceptorKind kind, int n, int busy, string error) => new() { Acceptor = kind, Sessions = n, Busy = busy, Error = error };

    public string Summary() => Error is not null
        ? $"{ScaleOptions.Key(Acceptor)} N={Sessions}: FAILED: {Error}"
        : string.Create(CultureInfo.InvariantCulture,
            $"{ScaleOptions.Key(Acceptor)} N={Sessions}: logon {LogonSeconds:0.00} s, RSS idle {RssIdleBytes / 1048576.0:0.0} MB ({RssPerIdleSessionKb:0.0} KB/session), busy {RssBusyBytes / 1048576.0:0.0} MB, "
            + $"threads {ThreadsIdle}/{ThreadsBusy}, CPU idle {CpuPerIdleSessionUsPerS:0.0} µs/s per session, TestRequests {TestRequestsByAcceptor}/{TestRequestsByInitiators}, disconnects {Disconnects}, "
            + $"{Busy} busy: {Replies:N0}/{Sent:N0} replies, p50 {P50Us:0} µs p99 {P99Us:0} µs max {MaxUs:0} µs") + ConsoleSummary();

    private string ConsoleSummary() =>
        (AcceptorAllocatedBusyBytes is long alloc ? string.Create(CultureInfo.InvariantCulture, $"; console {ConsoleMode}: acceptor allocated {alloc:N0} B in the busy window, GCs {AcceptorGcBusy}") : "")
        + (HarnessAllocatedBusyBytes is long halloc ? string.Create(CultureInfo.InvariantCulture, $"; harness allocated {halloc:N0} B, GCs {HarnessGcBusy}") : "")
        + (ConsolePolls > 0 ? string.Create(CultureInfo.InvariantCulture, $", {ConsolePolls} polls ({ConsolePollErrors} failed) of {ConsoleSessionsListed} sessions, {ConsoleBytes:N0} B each, p50 {ConsoleP50Ms:0.0} ms max {ConsoleMaxMs:0.0} ms, {AllocatedPerPollBytes:N0} B allocated per poll at most") : "");
}
