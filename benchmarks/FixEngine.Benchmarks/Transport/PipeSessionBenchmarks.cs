using System;
using System.Collections.Generic;
using System.IO.Pipelines;
using System.Linq;
using System.Net;
using System.Net.Sockets;
using System.Threading;
using System.Threading.Tasks;
using BenchmarkDotNet.Attributes;
using FixEngine.AspNetCore;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Session;
using FixEngine.Transport;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Connections;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Http.Features;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;

namespace FixEngine.Benchmarks.Transport;

/// <summary>The cost of the pipe path: one order round trip (NewOrderSingle in, ExecutionReport back, both through real
/// sessions) over the engine's own socket transport, over Kestrel (loopback TCP, then Kestrel's pipe into the engine through
/// <see cref="FixConnectionHandler"/>), and over the in-memory pipe pair of the testing entry point (no sockets, no
/// threads).</summary>
/// <remarks>
/// <para>EngineSocket and Kestrel: an initiator engine (dedicated receive thread, Yielding agent, so the hand-off is drained at once) sends each order from the
/// benchmark thread (<see cref="FixSession.TrySendFromAnyThread{TState}(ReadOnlySpan{byte}, long, in TState, BodyWriter{TState})"/>)
/// and spins until its fill comes back; the acceptor answers inside FromApp. Only the acceptor's transport differs.
/// InMemoryPipePair: both sessions on the benchmark thread over two <see cref="Pipe"/>s, pumped until the fill arrives.
/// PersistMessages=N everywhere so the memory stores do not grow with millions of orders.</para>
/// <para>Run: <c>dotnet run -c Release --project benchmarks/FixEngine.Benchmarks -- --filter '*PipeSessionBenchmarks*'</c>.
/// Results and the conditions they were measured in: docs/benchmarks/pipe-transport.md.</para>
/// </remarks>
[MemoryDiagnoser]
public class PipeSessionBenchmarks
{
    private const string Defaults = "[DEFAULT]\nHeartBtInt=30\nStartTime=00:00:00\nEndTime=00:00:00\nUseDataDictionary=N\nIdleStrategy=Yielding\nPersistMessages=N\nResetOnLogon=Y\n";

    private readonly FillCounter _client = new();
    private FixEngineHost? _acceptor;
    private FixEngineHost? _initiator;
    private WebApplication? _web;
    private long _next;

    // In-memory pair.
    private FixSession? _pairAcceptor;
    private FixSession? _pairInitiator;
    private PipeSessionConnection? _acceptorSide;
    private PipeSessionConnection? _initiatorSide;
    private SessionFactory? _pairFactory;
    private long _nowNs;

    private static IReadOnlyList<SessionSettings> AcceptorSettings(int port) =>
        SettingsFile.Parse(Defaults + $"ConnectionType=acceptor\nSocketAcceptPort={port}\n[SESSION]\nBeginString=FIX.4.4\nSenderCompID=EXEC\nTargetCompID=CLIENT\n", "acceptor");

    private static IReadOnlyList<SessionSettings> InitiatorSettings(int port) =>
        SettingsFile.Parse(Defaults + $"ConnectionType=initiator\nSocketConnectHost=127.0.0.1\nSocketConnectPort={port}\nReconnectInterval=1\n[SESSION]\nBeginString=FIX.4.4\nSenderCompID=CLIENT\nTargetCompID=EXEC\n", "initiator");

    // Both listeners bind port 0 (the system picks a free port as it binds) and the initiator connects to the port they
    // report: nothing probes a port another process could take before it is bound.

    [GlobalSetup(Target = nameof(EngineSocket))]
    public void SetupSocket()
    {
        _acceptor = new FixEngineHost(AcceptorSettings(0), new Filler());
        _acceptor.Start();
        StartInitiator(InitiatorSettings(_acceptor.AcceptorPorts[0]));
    }

    [GlobalSetup(Target = nameof(Kestrel))]
    public void SetupKestrel()
    {
        WebApplicationBuilder builder = WebApplication.CreateSlimBuilder();
        builder.Logging.ClearProviders();
        // SocketAcceptPort is not bound by the engine here (ListenOnAcceptorPorts = false): Kestrel owns the port.
        builder.Services.AddSingleton(new FixEngineHost(AcceptorSettings(0), new Filler(), new EngineOptions { ListenOnAcceptorPorts = false }));
        builder.WebHost.ConfigureKestrel(k => k.Listen(IPAddress.Loopback, 0, listen => listen.UseConnectionHandler<FixConnectionHandler>()));
        _web = builder.Build();
        _acceptor = _web.Services.GetRequiredService<FixEngineHost>();
        _acceptor.Start();
        _web.StartAsync().GetAwaiter().GetResult();
        string address = _web.Services.GetRequiredService<IServer>().Features.GetRequiredFeature<IServerAddressesFeature>().Addresses.Single();
        StartInitiator(InitiatorSettings(new Uri(address).Port));
    }

    [GlobalSetup(Target = nameof(InMemoryPipePair))]
    public void SetupPair()
    {
        IReadOnlyList<SessionSettings> acceptor = AcceptorSettings(5001), initiator = InitiatorSettings(5001);   // no socket: the port is not used
        _nowNs = (DateTime.UtcNow - DateTime.UnixEpoch).Ticks * 100;
        _pairFactory = new SessionFactory(MemoryMessageStoreFactory.Instance, null);
        _pairAcceptor = _pairFactory.Create(acceptor[0], new Filler(), _nowNs);
        _pairInitiator = _pairFactory.Create(initiator[0], _client, _nowNs);
        var toAcceptor = new Pipe(new PipeOptions(pauseWriterThreshold: 0, useSynchronizationContext: false));
        var toInitiator = new Pipe(new PipeOptions(pauseWriterThreshold: 0, useSynchronizationContext: false));
        _acceptorSide = new PipeSessionConnection(new DuplexPipe(toAcceptor.Reader, toInitiator.Writer), 1 << 20);
        _initiatorSide = new PipeSessionConnection(new DuplexPipe(toInitiator.Reader, toAcceptor.Writer), 1 << 20);
        _acceptorSide.Attach(_pairAcceptor, _nowNs);
        _initiatorSide.Attach(_pairInitiator, _nowNs);
        Pump();
        if (!_pairInitiator.IsLoggedOn) throw new InvalidOperationException("the in-memory pair did not log on");
    }

    private void StartInitiator(IReadOnlyList<SessionSettings> settings)
    {
        _initiator = new FixEngineHost(settings, _client);
        _initiator.Start();
        if (!_client.LoggedOn.Wait(TimeSpan.FromSeconds(30))) throw new InvalidOperationException("the initiator did not log on");
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _initiator?.Dispose();
        _acceptor?.Stop(TimeSpan.FromSeconds(1));
        _web?.StopAsync().GetAwaiter().GetResult();
        _acceptor?.Dispose();
        _pairInitiator?.Dispose();
        _pairAcceptor?.Dispose();
        _pairFactory?.Dispose();
    }

    /// <summary>The engine's own TCP transport on the acceptor (its default ReceiveMode, Dedicated).</summary>
    [Benchmark(Baseline = true)]
    public void EngineSocket() => RoundTripThroughEngines();

    /// <summary>Kestrel accepts and reads the socket; the engine runs the session over Kestrel's pipe.</summary>
    [Benchmark]
    public void Kestrel() => RoundTripThroughEngines();

    /// <summary>Both sessions on this thread over an in-memory pipe pair (the testing entry point's path).</summary>
    [Benchmark]
    public void InMemoryPipePair()
    {
        long target = Volatile.Read(ref _client.Fills) + 1;
        _pairInitiator!.Send(MsgTypes.NewOrderSingle, _next++, Order, _nowNs);
        while (Volatile.Read(ref _client.Fills) < target) Pump();
    }

    private void RoundTripThroughEngines()
    {
        long target = Volatile.Read(ref _client.Fills) + 1;
        FixSession session = _client.Session!;
        while (!session.TrySendFromAnyThread(MsgTypes.NewOrderSingle, _next, Order)) Thread.SpinWait(1);
        _next++;
        while (Volatile.Read(ref _client.Fills) < target) Thread.SpinWait(1);
    }

    private void Pump()
    {
        int n;
        do
        {
            n = _acceptorSide!.PumpInbound(_nowNs) + _initiatorSide!.PumpInbound(_nowNs);
            n += _pairAcceptor!.Poll(_nowNs) + _pairInitiator!.Poll(_nowNs);
        }
        while (n > 0);
    }

    private static void Order(ref FixWriter w, scoped in long id)
    {
        w.Write(FixTags.ClOrdID, id);
        w.Write(FixTags.Symbol, "EURUSD"u8);
        w.Write(FixTags.Side, '1');
        w.Write(FixTags.OrderQty, 100);
        w.Write(FixTags.OrdType, '1');
    }

    private sealed class DuplexPipe(PipeReader input, PipeWriter output) : IDuplexPipe
    {
        public PipeReader Input { get; } = input;

        public PipeWriter Output { get; } = output;
    }

    /// <summary>Answers each NewOrderSingle with an ExecutionReport carrying its ClOrdID.</summary>
    private sealed class Filler : IApplication
    {
        public FromAppResult FromApp(FixSession session, FixMessage message)
        {
            session.Send(MsgTypes.ExecutionReport, message, static (ref FixWriter w, scoped in FixMessage o) =>
            {
                o.TryGetSpan(FixTags.ClOrdID, out ReadOnlySpan<byte> clOrdId);
                w.Write(FixTags.ClOrdID, clOrdId);
                w.Write(FixTags.ExecType, 'F');
                w.Write(FixTags.OrdStatus, '2');
            });
            return FromAppResult.Accepted;
        }
    }

    /// <summary>Counts ExecutionReports (any thread reads <see cref="Fills"/>).</summary>
    private sealed class FillCounter : IApplication
    {
        public readonly ManualResetEventSlim LoggedOn = new(false);
        public FixSession? Session;
        public long Fills;

        public void OnLogon(FixSession session)
        {
            Session = session;
            LoggedOn.Set();
        }

        public FromAppResult FromApp(FixSession session, FixMessage message)
        {
            if (message.MsgType.SequenceEqual(MsgTypes.ExecutionReport)) Volatile.Write(ref Fills, Fills + 1);
            return FromAppResult.Accepted;
        }
    }
}
