using System;
using System.Collections.Generic;
using System.IO;
using System.Threading;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Session;
using FixEngine.Timing;

namespace FixEngine.Benchmarks.RoundTrip;

/// <summary>FixEngine session ↔ FixEngine session in one process: two <see cref="FixEngineHost"/>s (acceptor and
/// initiator) logged on over loopback; each order goes through the initiator session's cross-thread outbox, the
/// acceptor's application answers with an ExecutionReport from its FromApp callback.</summary>
/// <remarks>
/// The receive mode (busy-poll: the agent polls the sockets; completion: inbound messages are processed on socket
/// completion threads, the agent only runs timers and the outbox), the idle strategy and the store (memory, or a file
/// store in a temporary directory deleted on <see cref="Stop"/>) are the configuration's parameters. The intended send
/// time travels in ClOrdID. Start-up allocates; the steady state relies on the engine's allocation-free paths.
/// </remarks>
public sealed class EngineSessionSystem : IRoundTripSystem
{
    // Design: SendOrder runs on the harness's sender thread, the single producer of the initiator session's outbox
    // (TrySendFromAnyThread). Everything else (both applications' callbacks) runs on the engine agent threads (busy-poll)
    // or on socket completion threads under the session's gate (completion mode); either way the initiator application
    // calls the harness's IReplyHandler from one thread at a time, which is the "receive thread".
    private readonly IdleStrategyKind _idle;
    private readonly ReceiveMode _receiveMode;
    private readonly bool _fileStore;
    private readonly string? _storeRoot;
    private FixEngineHost? _acceptorHost;
    private FixEngineHost? _initiatorHost;
    private InitiatorApplication? _initiatorApp;
    private FixSession? _session;

    /// <summary>Creates the configuration (nothing starts until <see cref="Start"/>).</summary>
    public EngineSessionSystem(string name, IdleStrategyKind idle, bool fileStore, ReceiveMode receiveMode = ReceiveMode.BusyPoll)
    {
        Name = name;
        _idle = idle;
        _receiveMode = receiveMode;
        _fileStore = fileStore;
        if (fileStore) _storeRoot = Path.Combine(Path.GetTempPath(), "fixengine-roundtrip-" + Guid.NewGuid().ToString("N"));
    }

    /// <summary>Store index entries preallocated per session: a deployment sizes this to a session period's volume;
    /// here it covers a full-mode run (warm-up + 3 x 1M orders) so the index never grows inside the measured window.
    /// The memory store still keeps every message's bytes (that is its job), so its B/msg is the stored message.</summary>
    private const int StoreIndexCapacity = 1 << 22;

    /// <inheritdoc/>
    public string Name { get; }

    /// <inheritdoc/>
    public void Start(IReplyHandler handler)
    {
        string common =
            $"""
            [DEFAULT]
            HeartBtInt=30
            StartTime=00:00:00
            EndTime=00:00:00
            UseDataDictionary=N
            ResetOnLogon=Y
            SocketNodelay=Y
            IdleStrategy={_idle}
            ReceiveMode={_receiveMode}
            StoreIndexCapacity={StoreIndexCapacity}
            {(_fileStore ? "FileStorePath=" + _storeRoot : "")}
            """;
        // The settings validation rejects port 0, so borrow a free port from the OS (a tiny race, fine on loopback).
        int freePort;
        using (System.Net.Sockets.Socket probe = LoopbackTcp.Listen(0)) freePort = LoopbackTcp.PortOf(probe);
        _acceptorHost = new FixEngineHost(
            SettingsFile.Parse(common + $"\nConnectionType=acceptor\nSocketAcceptPort={freePort}\n[SESSION]\nBeginString=FIX.4.4\nSenderCompID=BROKER01\nTargetCompID=CLIENT01\n", "<roundtrip acceptor>"),
            new AcceptorApplication());
        _acceptorHost.Start();
        int port = _acceptorHost.AcceptorPorts[0];
        _initiatorApp = new InitiatorApplication(handler);
        _initiatorHost = new FixEngineHost(
            SettingsFile.Parse(common + $"\nConnectionType=initiator\nSocketConnectHost=127.0.0.1\nSocketConnectPort={port}\nReconnectInterval=1\n[SESSION]\nBeginString=FIX.4.4\nSenderCompID=CLIENT01\nTargetCompID=BROKER01\n", "<roundtrip initiator>"),
            _initiatorApp);
        _initiatorHost.Start();
        if (!_initiatorApp.LoggedOn.Wait(TimeSpan.FromSeconds(15)))
        {
            throw new InvalidOperationException($"{Name}: no logon within 15 s");
        }
        _session = _initiatorHost.Sessions[0];
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
    public void Stop()
    {
        _initiatorHost?.Stop(TimeSpan.FromSeconds(3));
        _initiatorHost?.Dispose();
        _acceptorHost?.Stop(TimeSpan.FromSeconds(3));
        _acceptorHost?.Dispose();
        _initiatorHost = null;
        _acceptorHost = null;
        _session = null;
        if (_storeRoot is not null && Directory.Exists(_storeRoot))
        {
            try
            {
                Directory.Delete(_storeRoot, true);
            }
            catch (IOException)
            {
            }
        }
    }

    /// <inheritdoc/>
    public void Dispose() => Stop();

    /// <summary>The registry entries: busy-poll receive with {busy-spin, yielding, backoff idle} × {memory, file store},
    /// and completion-mode receive (yielding agent) × {memory, file store}, one process.</summary>
    public static void Register(List<RoundTripConfiguration> list)
    {
        foreach ((string mode, IdleStrategyKind idle) in new[] { ("busy", IdleStrategyKind.BusySpin), ("yield", IdleStrategyKind.Yielding), ("backoff", IdleStrategyKind.Backoff) })
        {
            foreach (bool file in new[] { false, true })
            {
                string key = $"session-{mode}-{(file ? "file" : "mem")}-1proc";
                list.Add(new RoundTripConfiguration(
                    key,
                    $"FixEngine session ↔ FixEngine session, busy-poll receive, {idle} idle strategy, {(file ? "file" : "memory")} store, one process",
                    _ => new EngineSessionSystem(key, idle, file),
                    null));
            }
        }
        foreach (bool file in new[] { false, true })
        {
            string key = $"session-completion-{(file ? "file" : "mem")}-1proc";
            list.Add(new RoundTripConfiguration(
                key,
                $"FixEngine session ↔ FixEngine session, completion-mode receive, Yielding agent (timers, outbox), {(file ? "file" : "memory")} store, one process",
                _ => new EngineSessionSystem(key, IdleStrategyKind.Yielding, file, ReceiveMode.Completion),
                null));
        }
    }

    private sealed class AcceptorApplication : IApplication
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
