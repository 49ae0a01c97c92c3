using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Threading;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Session;
using FixEngine.Timing;

namespace FixEngine.Benchmarks.RoundTrip;

/// <summary>FixEngine session ↔ FixEngine session: an initiator <see cref="FixEngineHost"/> here and an acceptor host
/// either in this process or already running in a child process (<see cref="ChildProcessSystem"/>). Each order goes
/// through the initiator session's cross-thread outbox; the acceptor's application answers with an ExecutionReport from
/// its FromApp callback.</summary>
/// <remarks>
/// The idle strategy, receive mode and store (memory, or a file store in a temporary directory deleted on
/// <see cref="Stop"/>) come from the <see cref="EngineSessionSpec"/>, which the child process uses too. The intended
/// send time travels in ClOrdID. Start-up allocates (including the stores' preallocated capacity); the steady state
/// relies on the engine's allocation-free paths.
/// </remarks>
public sealed class EngineSessionSystem : IRoundTripSystem, ISessionCounterSource
{
    // Design: SendOrder runs on the harness's sender thread, the single producer of the initiator session's outbox
    // (TrySendFromAnyThread). Everything else (both applications' callbacks) runs on the engine agent threads; the
    // initiator application calls the harness's IReplyHandler from its engine thread, which is the "receive thread".
    private readonly EngineSessionSpec _spec;
    private readonly int _remoteAcceptorPort;
    private readonly string? _storeRoot;
    private readonly ConsoleMonitor? _console;
    private AdminConsoleLoad? _consoleLoad;
    private readonly TracingListener _tracing;
    private System.Diagnostics.ActivityListener? _listener;
    private FixEngineHost? _acceptorHost;
    private FixEngineHost? _initiatorHost;
    private InitiatorApplication? _initiatorApp;
    private FixSession? _session;
    private volatile bool _running;

    /// <summary>FIXENGINE_GATE_TRACE=1: each run prints how often a receiving thread waited for its session's gate.</summary>
    private static readonly bool s_gateTrace = Environment.GetEnvironmentVariable("FIXENGINE_GATE_TRACE") == "1";

    /// <summary>Creates the configuration (nothing starts until <see cref="Start"/>).</summary>
    /// <param name="name">Report key.</param>
    /// <param name="spec">Settings shared with the acceptor.</param>
    /// <param name="remoteAcceptorPort">0 to run the acceptor in this process, else the port of an acceptor running
    /// elsewhere with the same <paramref name="spec"/>.</param>
    /// <param name="console">Run the admin console and health checks over the acceptor (this process), with this monitor
    /// (<see cref="AdminConsoleLoad"/>); null: no console.</param>
    /// <param name="tracing">What listens to the engine's ActivitySources while the system runs (<see cref="TracingListener"/>).</param>
    public EngineSessionSystem(string name, EngineSessionSpec spec, int remoteAcceptorPort = 0, ConsoleMonitor? console = null, TracingListener tracing = TracingListener.None)
    {
        _tracing = tracing;
        Name = name;
        _spec = spec;
        _remoteAcceptorPort = remoteAcceptorPort;
        _console = console;
        if (spec.FileStore) _storeRoot = NewStoreRoot();
    }

    /// <inheritdoc/>
    public string Name { get; }

    /// <summary>A fresh temporary directory name for a file store (created by the store), deleted on exit if its
    /// owner has not deleted it by then.</summary>
    public static string NewStoreRoot()
    {
        string root = Path.Combine(Path.GetTempPath(), "fixengine-roundtrip-" + Guid.NewGuid().ToString("N"));
        HarnessCleanup.TrackDirectory(root);
        return root;
    }

    /// <inheritdoc/>
    public void Start(IReplyHandler handler)
    {
        if (_tracing != TracingListener.None)
        {
            TracingListener tracing = _tracing;
            _listener = new System.Diagnostics.ActivityListener
            {
                ShouldListenTo = source => source.Name == FixEngine.Diagnostics.FixEngineMetrics.ActivitySourceName
                    || (tracing != TracingListener.Lifecycle && source.Name == FixEngine.Diagnostics.FixEngineMetrics.MessageActivitySourceName),
                Sample = tracing == TracingListener.BothSampleNothing
                    ? static (ref System.Diagnostics.ActivityCreationOptions<System.Diagnostics.ActivityContext> _) => System.Diagnostics.ActivitySamplingResult.None
                    : static (ref System.Diagnostics.ActivityCreationOptions<System.Diagnostics.ActivityContext> _) => System.Diagnostics.ActivitySamplingResult.AllDataAndRecorded,
            };
            System.Diagnostics.ActivitySource.AddActivityListener(_listener);
        }
        int port = _remoteAcceptorPort;
        if (port == 0)
        {
            _acceptorHost = _spec.StartAcceptor(_storeRoot, OnEngineEvent);
            port = _acceptorHost.AcceptorPorts[0];
            if (_console is ConsoleMonitor monitor) _consoleLoad = AdminConsoleLoad.Start(_acceptorHost, monitor);
        }
        _initiatorApp = new InitiatorApplication(handler);
        _initiatorHost = _spec.StartInitiator(port, _storeRoot, _initiatorApp, OnEngineEvent);
        if (!_initiatorApp.LoggedOn.Wait(TimeSpan.FromSeconds(15)))
        {
            throw new InvalidOperationException($"{Name}: no logon within 15 s");
        }
        _session = _initiatorHost.Sessions[0];
        _running = true;
    }

    /// <inheritdoc/>
    public void SendOrder(long msgSeqNum, long intendedSendNs)
    {
        FixSession session = _session!;
        while (!session.TrySendFromAnyThread(MsgTypes.NewOrderSingle, intendedSendNs, static (ref FixWriter w, scoped in long intended) =>
        {
            long epochNs = EpochClock.Shared.EpochNs;
            w.Write(FixTags.ClOrdID, intended);
            w.Write(FixTags.Account, "ACCT0001"u8);
            w.Write(FixTags.HandlInst, '1');
            w.Write(FixTags.Symbol, "MSFT"u8);
            w.Write(FixTags.Side, '1');
            w.WriteTimestamp(FixTags.TransactTime, epochNs, TimestampPrecision.Micros);
            w.Write(FixTags.OrderQty, 100L);
            w.Write(FixTags.OrdType, '2');
            w.Write(FixTags.Price, new FixDecimal(12345, 2));
            w.Write(FixTags.TimeInForce, '0');
        }))
        {
            Thread.Yield();
        }
    }

    /// <inheritdoc/>
    public IReadOnlyList<SessionSideCounters> ReadSessionCounters()
    {
        var list = new List<SessionSideCounters>(2);
        if (_session is FixSession initiator) list.Add(SessionSideCounters.Of("initiator", initiator));
        if (_acceptorHost is FixEngineHost acceptor) list.Add(SessionSideCounters.Of("acceptor", acceptor.Sessions[0]));
        return list;
    }

    /// <inheritdoc/>
    public void Stop()
    {
        _running = false;
        if (s_gateTrace && (_initiatorHost is not null || _acceptorHost is not null))
        {
            // How often a receiving thread waited for its session's gate (another thread was in the session: a direct
            // send from the sender, the agent's timers), over the whole run, warm-up included.
            string initiator = _initiatorHost is FixEngineHost i && _session is FixSession s ? i.GateWaitsOf(s.Id).ToString("N0", CultureInfo.InvariantCulture) : "n/a";
            string acceptor = _acceptorHost is FixEngineHost a && a.Sessions.Count > 0 ? a.GateWaitsOf(a.Sessions[0].Id).ToString("N0", CultureInfo.InvariantCulture) : "n/a";
            Console.Error.WriteLine($"gate-trace {Name}: gate waits initiator {initiator}, acceptor {acceptor} (whole run)");
        }
        _consoleLoad?.Dispose();
        _consoleLoad = null;
        _initiatorHost?.Stop(TimeSpan.FromSeconds(3));
        _initiatorHost?.Dispose();
        _acceptorHost?.Stop(TimeSpan.FromSeconds(3));
        _acceptorHost?.Dispose();
        _initiatorHost = null;
        _acceptorHost = null;
        _session = null;
        // After the hosts: the configurations that run next in this process are measured without it.
        _listener?.Dispose();
        _listener = null;
        HarnessCleanup.DeleteDirectory(_storeRoot);
    }

    /// <inheritdoc/>
    public void Dispose() => Stop();

    /// <summary>Engine events (disconnects, reconnects) between logon and <see cref="Stop"/> are abnormal in a run:
    /// print them, so a run that loses replies says why. Start-up and shutdown events are not printed, nor Logon lines:
    /// the in-process acceptor prints its own just after answering the initiator, which may already have started the
    /// run (a later re-logon follows a Disconnected line, which is printed).</summary>
    private void OnEngineEvent(string line)
    {
        if (_running && !line.StartsWith("Logon ", StringComparison.Ordinal)) Console.Error.WriteLine($"  {Name} engine: {line}");
    }

    private sealed class InitiatorApplication(IReplyHandler handler) : IApplication
    {
        public ManualResetEventSlim LoggedOn { get; } = new(false);

        public void OnLogon(FixSession session) => LoggedOn.Set();

        public FromAppResult FromApp(FixSession session, FixMessage message)
        {
            if (message.MsgType.SequenceEqual(MsgTypes.ExecutionReport)
                && message.TryGetLong(FixTags.ClOrdID, out long intendedSendNs) == FixValueStatus.Ok)
            {
                handler.OnReply(intendedSendNs);
            }
            else
            {
                handler.OnReplyError();
            }
            return FromAppResult.Accepted;
        }
    }
}

/// <summary>The acceptor's application: answers each NewOrderSingle with an ExecutionReport echoing its ClOrdID.</summary>
/// <remarks>Runs on the acceptor engine's thread; allocation-free.</remarks>
internal sealed class ExecutionReportResponder : IApplication
{
    public FromAppResult FromApp(FixSession session, FixMessage message)
    {
        if (!message.MsgType.SequenceEqual(MsgTypes.NewOrderSingle)) return FromAppResult.UnsupportedMessageType;
        if (!message.Contains(FixTags.ClOrdID)) return FromAppResult.RequiredTagMissing(FixTags.ClOrdID);
        session.Send(MsgTypes.ExecutionReport, in message, static (ref FixWriter w, scoped in FixMessage order) =>
        {
            order.TryGetSpan(FixTags.ClOrdID, out ReadOnlySpan<byte> clOrdId);
            order.TryGetSpan(FixTags.Symbol, out ReadOnlySpan<byte> symbol);
            order.TryGetDecimal(FixTags.OrderQty, out FixDecimal quantity);
            order.TryGetDecimal(FixTags.Price, out FixDecimal price);
            order.TryGetChar(FixTags.Side, out char side);
            w.Write(FixTags.OrderID, clOrdId);
            w.Write(FixTags.ClOrdID, clOrdId);
            w.Write(FixTags.ExecID, clOrdId);
            w.Write(FixTags.ExecType, '0');
            w.Write(FixTags.OrdStatus, '0');
            if (order.TryGetSpan(FixTags.Account, out ReadOnlySpan<byte> account)) w.Write(FixTags.Account, account);
            w.Write(FixTags.Symbol, symbol);
            w.Write(FixTags.Side, side);
            w.Write(FixTags.OrderQty, quantity);
            w.Write(FixTags.OrdType, '2');
            w.Write(FixTags.Price, price);
            w.Write(FixTags.LeavesQty, quantity);
            w.Write(FixTags.CumQty, 0L);
            w.Write(FixTags.AvgPx, FixDecimal.Zero);
            w.WriteTimestamp(FixTags.TransactTime, EpochClock.Shared.EpochNs, TimestampPrecision.Micros);
        });
        return FromAppResult.Accepted;
    }
}

/// <summary>What listens to the engine's two ActivitySources while a round-trip system runs (docs/operations.md,
/// "Tracing"): the lifecycle source <c>FixEngine</c> and the message source <c>FixEngine.MessageTraces</c>.</summary>
public enum TracingListener
{
    /// <summary>No listener: each source's check is one field read.</summary>
    None,

    /// <summary>The lifecycle source only, every activity sampled and recorded (an OpenTelemetry
    /// <c>AddSource("FixEngine")</c>): the message source has no listener, so the message path is as with none.</summary>
    Lifecycle,

    /// <summary>Both sources, a sampler that keeps nothing: the message path asks the sampler per inbound application
    /// message on each side and records nothing.</summary>
    BothSampleNothing,

    /// <summary>Both sources, every activity sampled and recorded (nothing exported): each message's <c>fix.receive</c>
    /// and reply <c>fix.send</c> are created, tagged and stopped, the cost of tracing every message for a diagnosis.</summary>
    BothSampled,
}
