using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Text;
using System.Threading;
using FixEngine.Benchmarks.Takeover;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.PostgreSQL;
using FixEngine.Session;
using FixEngine.Store;
using FixEngine.Tests.Engine;
using FixEngine.Tests.Infrastructure;
using FixEngine.Tests.Transport;
using static FixEngine.Tests.Engine.EngineTestSupport;

namespace FixEngine.Tests.Store;

/// <summary>Primary and standby engine processes on one database: the primary is SIGKILLed under load and the standby
/// resumes the session with nothing lost and no unflagged duplicate at the counterparty.</summary>
public sealed class PostgresTakeoverTests : IDisposable
{
    public const string Probe = "postgres-takeover-acceptor";
    private const string ConfigVariable = "FIXENGINE_TAKEOVER_CONFIG";
    private const int Orders = 1500;
    private readonly string _directory = TempDirectory("fixengine-takeover-");
    private readonly List<Process> _children = [];

    private readonly Xunit.Abstractions.ITestOutputHelper _log;

    public PostgresTakeoverTests(Xunit.Abstractions.ITestOutputHelper log)
    {
        _log = log;
        Directory.CreateDirectory(_directory);
    }

    public void Dispose()
    {
        foreach (Process child in _children)
        {
            try
            {
                if (!child.HasExited) child.Kill();
                child.WaitForExit(5000);
            }
            catch (InvalidOperationException)
            {
            }
            child.Dispose();
        }
        DeleteDirectory(_directory);
    }

    [PostgresTheory]
    [InlineData(PostgresSyncPolicy.PerMessage)]
    public void StandbyResumesAfterThePrimaryIsKilledUnderLoad(PostgresSyncPolicy policy)
    {
        // The standby child binds the primary's port after the kill: a port known before the start.
        using System.Net.Sockets.Socket held = HeldPort(out int port);
        string exec = "EXEC" + Guid.NewGuid().ToString("N")[..8].ToUpperInvariant();
        string config = Path.Combine(_directory, "acceptor.cfg");
        File.WriteAllText(config, $"""
            [DEFAULT]
            ConnectionType=acceptor
            SocketAcceptPort={port}
            SocketReuseAddress=Y
            NonStopSession=Y
            UseDataDictionary=N
            IdleStrategy=Backoff
            PostgreSQLStoreConnectionString={PostgresTestServer.ConnectionString}
            PostgreSQLStoreTablePrefix=fixengine_test_
            PostgreSQLStoreSync={policy}
            PostgreSQLStoreLeaseTimeout=4
            [SESSION]
            BeginString=FIX.4.4
            SenderCompID={exec}
            TargetCompID=CLIENT
            """);
        EngineChild primary = Start(config, "primary");
        Assert.True(primary.Ready.Wait(TimeSpan.FromSeconds(60)), "the primary did not start: " + primary.Output);
        EngineChild standby = Start(config, "standby");
        Assert.True(standby.Waiting.Wait(TimeSpan.FromSeconds(60)), "the standby did not start: " + standby.Output);

        var client = new CounterpartyApp();
        using var initiator = new FixEngineHost(SettingsFile.Parse($"""
            [DEFAULT]
            ConnectionType=initiator
            SocketConnectHost=127.0.0.1
            SocketConnectPort={port}
            HeartBtInt=5
            ReconnectInterval=1
            NonStopSession=Y
            UseDataDictionary=N
            IdleStrategy=Backoff
            [SESSION]
            BeginString=FIX.4.4
            SenderCompID=CLIENT
            TargetCompID={exec}
            """, "initiator"), client);
        initiator.Start();
        FixSession session = initiator.Sessions[0];
        Assert.True(WaitFor(() => session.IsLoggedOn), "no logon to the primary");

        // Orders flow with up to 50 in flight; the primary is killed once 400 are filled, mid-stream.
        bool killed = false;
        bool standbyReadyBeforeKill = false;
        var clock = Stopwatch.StartNew();
        for (int i = 0; i < Orders; i++)
        {
            while (!session.IsLoggedOn || i - client.FilledCount >= 50)
            {
                if (clock.Elapsed > TimeSpan.FromSeconds(120)) Assert.Fail($"stalled at order {i}: {client.Describe()}\nprimary: {primary.Output}\nstandby: {standby.Output}");
                Thread.Sleep(1);
            }
            SendOrder(session, i);
            if (!killed && client.FilledCount >= 400)
            {
                standbyReadyBeforeKill = standby.Ready.IsSet;
                primary.Process.Kill(); // SIGKILL
                killed = true;
            }
        }
        Assert.True(killed);
        Assert.False(standbyReadyBeforeKill, "the standby started while the primary held the lease");
        Assert.True(standby.Ready.Wait(TimeSpan.FromSeconds(60)), "the standby did not take over: " + standby.Output);
        Assert.True(WaitFor(() => client.FilledCount >= Orders, TimeSpan.FromSeconds(120)),
            $"not every order was filled: {client.Describe()}\nstandby: {standby.Output}");
        Assert.True(WaitFor(() => client.ReportsFor(Orders - 1) > 0));
        _log.WriteLine(client.Describe());
        _log.WriteLine(standby.Output);
        Assert.Equal(0, client.Lost(Orders));
        Assert.Equal(0, client.UnflaggedDuplicates);
        Assert.True(client.Logons >= 2, "the counterparty never logged on to the standby");
    }

    private EngineChild Start(string config, string name)
    {
        string assembly = typeof(PostgresTakeoverTests).Assembly.Location;
        string? host = Environment.ProcessPath;
        if (host is null || !Path.GetFileNameWithoutExtension(host).Equals("dotnet", StringComparison.OrdinalIgnoreCase)) host = "dotnet";
        var start = new ProcessStartInfo(host) { RedirectStandardOutput = true, RedirectStandardError = true, RedirectStandardInput = true, UseShellExecute = false };
        start.ArgumentList.Add("exec");
        start.ArgumentList.Add(assembly);
        start.Environment["DOTNET_STARTUP_HOOKS"] = assembly;
        start.Environment[IsolatedProcess.ProbeVariable] = Probe;
        start.Environment[ConfigVariable] = config;
        Process process = Process.Start(start) ?? throw new InvalidOperationException("could not start " + host);
        _children.Add(process);
        var child = new EngineChild(process, name);
        process.OutputDataReceived += (_, e) => child.OnLine(e.Data);
        process.ErrorDataReceived += (_, e) => child.OnLine(e.Data);
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
        return child;
    }

    private sealed class EngineChild(Process process, string name)
    {
        private readonly StringBuilder _output = new();

        public Process Process { get; } = process;

        public ManualResetEventSlim Waiting { get; } = new();

        public ManualResetEventSlim Ready { get; } = new();

        public string Output
        {
            get
            {
                lock (_output) return $"[{name}] " + _output;
            }
        }

        public void OnLine(string? line)
        {
            if (line is null) return;
            lock (_output) _output.AppendLine(line);
            if (line.StartsWith("WAITING", StringComparison.Ordinal)) Waiting.Set();
            if (line.StartsWith("READY", StringComparison.Ordinal)) Ready.Set();
        }
    }

    /// <summary>The engine process (run by <see cref="IsolatedProcess"/>'s startup hook): an acceptor on the settings file
    /// named by FIXENGINE_TAKEOVER_CONFIG; it blocks at start until it holds the session's lease, then fills orders until
    /// it is killed or its standard input closes.</summary>
    internal static int RunAcceptor(TextWriter output)
    {
        string config = Environment.GetEnvironmentVariable(ConfigVariable) ?? throw new InvalidOperationException(ConfigVariable + " is not set");
        output.WriteLine("WAITING for the session lease");
        output.Flush();
        using var engine = new FixEngineHost(SettingsFile.Load(config), new DedupFillApplication(), new EngineOptions
        {
            MessageStoreFactory = PostgresMessageStoreFactory.Instance,
            Console = line =>
            {
                output.WriteLine(line);
                output.Flush();
            },
        });
        engine.Start();
        var store = (PostgresMessageStore)engine.Sessions[0].Store;
        output.WriteLine($"READY holding the lease with fencing token {store.FencingToken}, next sender {store.NextSenderMsgSeqNum}, next target {store.NextTargetMsgSeqNum}");
        output.Flush();
        Console.In.ReadToEnd();
        return 0;
    }

    /// <summary>The counterparty: counts ExecutionReports per ClOrdID, and those that repeat one without PossDupFlag=Y.</summary>
    private sealed class CounterpartyApp : IApplication
    {
        private readonly object _sync = new();
        private readonly Dictionary<long, int> _reports = new();
        private int _filled;
        private int _possDup;
        private int _unflagged;
        private int _logons;

        public int FilledCount => Volatile.Read(ref _filled);

        public int UnflaggedDuplicates => Volatile.Read(ref _unflagged);

        public int Logons => Volatile.Read(ref _logons);

        public void OnLogon(FixSession session) => Interlocked.Increment(ref _logons);

        public FromAppResult FromApp(FixSession session, FixMessage message)
        {
            if (!message.MsgType.SequenceEqual(MsgTypes.ExecutionReport)) return FromAppResult.UnsupportedMessageType;
            message.TryGetLong(FixTags.ClOrdID, out long id);
            bool possDup = message.TryGetSpan(FixTags.PossDupFlag, out ReadOnlySpan<byte> flag) && flag.SequenceEqual("Y"u8);
            lock (_sync)
            {
                _reports.TryGetValue(id, out int count);
                _reports[id] = count + 1;
                if (possDup) _possDup++;
                if (count == 0) _filled++;
                else if (!possDup) _unflagged++;
            }
            return FromAppResult.Accepted;
        }

        public int ReportsFor(long id)
        {
            lock (_sync) return _reports.TryGetValue(id, out int n) ? n : 0;
        }

        public int Lost(int orders)
        {
            int lost = 0;
            lock (_sync)
            {
                for (long id = 0; id < orders; id++) if (!_reports.ContainsKey(id)) lost++;
            }
            return lost;
        }

        public string Describe()
        {
            lock (_sync) return $"{_filled} orders filled, {_possDup} PossDup reports, {_unflagged} unflagged duplicates, {_logons} logons";
        }
    }
}

/// <summary>An engine whose PostgreSQL store lost its lease does not act for the session: it refuses the Logon.</summary>
public sealed class PostgresLeaseEngineTests
{
    [PostgresFact]
    public void AnEngineWhoseStoreLostTheLeaseNeverLogsOn()
    {
        int port = 0;
        string exec = "EXEC" + Guid.NewGuid().ToString("N")[..8].ToUpperInvariant();
        var events = new System.Collections.Concurrent.ConcurrentQueue<string>();
        using var acceptor = new FixEngineHost(SettingsFile.Parse($"""
            [DEFAULT]
            ConnectionType=acceptor
            SocketAcceptPort={port}
            NonStopSession=Y
            UseDataDictionary=N
            IdleStrategy=Backoff
            PostgreSQLStoreConnectionString={PostgresTestServer.ConnectionString}
            PostgreSQLStoreTablePrefix=fixengine_test_
            PostgreSQLStoreLeaseTimeout=1
            [SESSION]
            BeginString=FIX.4.4
            SenderCompID={exec}
            TargetCompID=CLIENT
            """, "acceptor"), new FillerApp(), new EngineOptions { Console = events.Enqueue, MessageStoreFactory = PostgresMessageStoreFactory.Instance });
        var store = (PostgresMessageStore)acceptor.Sessions[0].Store;
        store.SuspendLeaseRenewal();
        Assert.True(WaitFor(() => !store.HoldsLease), "the store kept its lease without renewing");
        acceptor.Start();
        port = PortOf(acceptor);

        var client = new ClientApp();
        using var initiator = new FixEngineHost(SettingsFile.Parse($"""
            [DEFAULT]
            ConnectionType=initiator
            SocketConnectHost=127.0.0.1
            SocketConnectPort={port}
            HeartBtInt=5
            ReconnectInterval=1
            NonStopSession=Y
            UseDataDictionary=N
            [SESSION]
            BeginString=FIX.4.4
            SenderCompID=CLIENT
            TargetCompID={exec}
            """, "initiator"), client);
        initiator.Start();
        // The initiator connects and sends its Logon; the acceptor's store refuses the change, so no Logon answer: the
        // session takes the store failure (no Logout: it never logged on), drops the connection and refuses every later one.
        Assert.True(WaitFor(() => acceptor.Sessions[0].StoreFailure is not null), "no store failure: " + string.Join(" | ", events));
        PostgresStoreException failure = Assert.IsType<PostgresStoreException>(acceptor.Sessions[0].StoreFailure);
        Assert.Equal(PostgresStoreFailure.LeaseLost, failure.Failure);
        Assert.Contains("was not renewed within 750 ms", failure.Message, StringComparison.Ordinal);
        Assert.False(acceptor.Sessions[0].IsLoggedOn);
        Assert.Equal(0, Volatile.Read(ref client.Logons));
        Assert.Equal(PostgresStoreFailure.LeaseLost, store.Fault!.Failure);
    }
}
