using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Net;
using System.Net.Sockets;
using System.Text;
using System.Threading;
using FixEngine.Benchmarks.RoundTrip;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.PostgreSQL;
using FixEngine.Session;
using FixEngine.Store;

namespace FixEngine.Benchmarks.Takeover;

/// <summary><c>standby-takeover</c>: how long a PostgreSQL-backed acceptor's standby takes to trade after the primary is
/// SIGKILLed, with and without the counterparty sending NextExpectedMsgSeqNum(789), and whether an order is lost or
/// answered twice on the way.</summary>
/// <remarks>
/// <para>Each run: a primary acceptor process (this executable, <c>standby-takeover --acceptor</c>) on a PostgreSQL store
/// with its own SenderCompID; this process's FixEngine initiator logs on and hands it NewOrderSingles at a steady rate;
/// after <c>--before</c> seconds of trading the primary is SIGKILLed and a standby process is started at once on the same
/// settings file (it waits for the dead primary's lease to expire, then listens on the same port and resumes the
/// session from the database). The run measures from the kill to: the standby holding the lease and listening, the
/// initiator's Logon being answered, and the first ExecutionReport the initiator receives after that Logon (trading
/// again). Trading goes on for <c>--after</c> seconds, then every order handed over must be answered within 30 s.</para>
/// <para>Counted per run: orders stored by the initiator (OnSendStored), orders with no ExecutionReport at the end (lost),
/// orders with more than one ExecutionReport (duplicates, split by the repeat's PossDupFlag), Logons the initiator saw
/// refused (Logout before a Logon answer) between the kill and the takeover.</para>
/// <para>Primary and standby listen on one port (the counterparty's settings name one): a port the system picks for a
/// socket this process holds bound (SO_REUSEADDR, never listening) for the whole run, so the acceptors
/// (SocketReuseAddress=Y, the default) can bind it in turn and no other program can take it between the kill and the
/// standby's start.</para>
/// </remarks>
internal static class StandbyTakeoverCommand
{
    private const string Usage =
        "usage: standby-takeover --connection <npgsql connection string> [--runs N] [--rate orders/s] [--before s] [--after s]\n" +
        "                        [--lease s] [--sync GroupCommit|PerMessage|LocalJournalFirst] [--next-expected both|Y|N] [--work dir]\n" +
        "       (--connection defaults to FIXENGINE_TEST_POSTGRES)";

    public static int Run(string[] args)
    {
        if (args.Length >= 1 && args[0] == "--acceptor") return AcceptorChild(args[1..]);
        string? connection = Environment.GetEnvironmentVariable("FIXENGINE_TEST_POSTGRES");
        int runs = 5;
        int rate = 500;
        double before = 5;
        double after = 5;
        int lease = 10;
        string sync = "GroupCommit";
        string nextExpected = "both";
        string work = Path.Combine(Path.GetTempPath(), "fixengine-takeover-" + Guid.NewGuid().ToString("N")[..8]);
        try
        {
            for (int i = 0; i < args.Length; i++)
            {
                string a = args[i];
                if (i + 1 >= args.Length) throw new ArgumentException($"{a} needs a value");
                string v = args[++i];
                switch (a)
                {
                    case "--connection": connection = v; break;
                    case "--runs": runs = int.Parse(v, CultureInfo.InvariantCulture); break;
                    case "--rate": rate = int.Parse(v, CultureInfo.InvariantCulture); break;
                    case "--before": before = double.Parse(v, CultureInfo.InvariantCulture); break;
                    case "--after": after = double.Parse(v, CultureInfo.InvariantCulture); break;
                    case "--lease": lease = int.Parse(v, CultureInfo.InvariantCulture); break;
                    case "--sync": sync = v; break;
                    case "--next-expected":
                        if (v is not ("both" or "Y" or "N")) throw new ArgumentException($"--next-expected: '{v}' is not both, Y or N");
                        nextExpected = v;
                        break;
                    case "--work": work = v; break;
                    default: throw new ArgumentException($"unknown argument '{a}'");
                }
            }
            if (string.IsNullOrEmpty(connection)) throw new ArgumentException("no --connection and FIXENGINE_TEST_POSTGRES is not set");
            if (runs < 1 || rate < 1 || before <= 0 || after < 0 || lease < 1) throw new ArgumentException("--runs, --rate, --lease must be >= 1, --before > 0, --after >= 0");
        }
        catch (Exception e) when (e is ArgumentException or FormatException or OverflowException)
        {
            Console.Error.WriteLine("standby-takeover: " + e.Message);
            Console.Error.WriteLine(Usage);
            return 2;
        }

        Directory.CreateDirectory(work);
        bool[] modes = nextExpected switch { "Y" => [true], "N" => [false], _ => [false, true] };
        Console.WriteLine($"standby-takeover: {runs} run(s) per mode, {rate} orders/s, kill after {before:0.#} s, {after:0.#} s after the takeover, " +
            $"PostgreSQLStoreSync={sync}, PostgreSQLStoreLeaseTimeout={lease}; logs in {work}");
        Console.WriteLine($"machine: {Environment.ProcessorCount} cores, load {File.ReadAllText("/proc/loadavg").Trim()}");
        var results = new List<RunResult>();
        int failed = 0;
        // The modes alternate run by run, so a slow phase of a shared machine does not land on one mode only.
        for (int run = 1; run <= runs; run++)
        {
            foreach (bool with789 in modes)
            {
                string dir = Path.Combine(work, $"run{run}-{(with789 ? "789" : "no789")}");
                Directory.CreateDirectory(dir);
                try
                {
                    RunResult r = OneRun(connection!, dir, with789, rate, before, after, lease, sync);
                    results.Add(r);
                    Console.WriteLine($"run {run} {Mode(with789)}: {r}");
                    if (!r.Ok) failed++;
                }
                catch (Exception e) when (e is InvalidOperationException or TimeoutException or IOException)
                {
                    failed++;
                    Console.WriteLine($"run {run} {Mode(with789)}: FAILED {e.Message}");
                }
            }
        }

        Console.WriteLine();
        Console.WriteLine("| mode | runs | kill → standby listening (median, s) | kill → Logon answered | kill → first ExecutionReport | standby behind by | refused Logons | lost | answered twice (unflagged) |");
        Console.WriteLine("|---|---|---|---|---|---|---|---|---|");
        foreach (bool with789 in modes)
        {
            RunResult[] rs = results.Where(r => r.With789 == with789).ToArray();
            if (rs.Length == 0) continue;
            Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"| {Mode(with789)} | {rs.Length} | {Median(rs.Select(r => r.ListeningS)):0.00} | {Median(rs.Select(r => r.LogonS)):0.00} | {Median(rs.Select(r => r.FirstReportS)):0.00} " +
                $"| {string.Join(", ", rs.Select(r => r.Behind))} | {string.Join(", ", rs.Select(r => r.RefusedLogons))} | {rs.Sum(r => r.Lost)} | {rs.Sum(r => r.Duplicates)} ({rs.Sum(r => r.UnflaggedDuplicates)}) |"));
        }
        Console.WriteLine($"{results.Count(r => r.Ok)} passed, {failed} failed");
        return failed == 0 ? 0 : 1;
    }

    private static string Mode(bool with789) => with789 ? "with 789" : "without 789";

    private static double Median(IEnumerable<double> values)
    {
        double[] v = values.Where(x => !double.IsNaN(x)).OrderBy(x => x).ToArray();
        if (v.Length == 0) return double.NaN;
        return v.Length % 2 == 1 ? v[v.Length / 2] : (v[v.Length / 2 - 1] + v[v.Length / 2]) / 2;
    }

    private static RunResult OneRun(string connection, string dir, bool with789, int rate, double before, double after, int lease, string sync)
    {
        string exec = "EXEC" + Guid.NewGuid().ToString("N")[..8].ToUpperInvariant();
        string Settings(int port) => $"""
            [DEFAULT]
            ConnectionType=acceptor
            SocketAcceptPort={port}
            NonStopSession=Y
            UseDataDictionary=N
            HeartBtInt=30
            PostgreSQLStoreConnectionString={connection}
            PostgreSQLStoreTablePrefix=fixengine_takeover_
            PostgreSQLStoreSync={sync}
            PostgreSQLStoreLeaseTimeout={lease}
            StoreFailurePolicy=Hold
            FileLogPath={Path.Combine(dir, "acceptor-messages")}
            [SESSION]
            BeginString=FIX.4.4
            SenderCompID={exec}
            TargetCompID=CLIENT
            """;
        using Socket held = HeldPort(out int port);
        string primaryConfig = Path.Combine(dir, "primary.cfg");
        File.WriteAllText(primaryConfig, Settings(port));
        LineProcess? primary = null;
        LineProcess? standby = null;
        FixEngineHost? initiator = null;
        var client = new Counterparty();
        using var stopSending = new CancellationTokenSource();
        Thread? sender = null;
        try
        {
            primary = StartAcceptor("primary", primaryConfig, Path.Combine(dir, "primary.log"));
            if (PortOf(primary.Expect("PORT ", TimeSpan.FromSeconds(60))) != port) throw new InvalidOperationException("the primary listens on another port");
            string standbyConfig = Path.Combine(dir, "standby.cfg");
            File.WriteAllText(standbyConfig, Settings(port));

            initiator = new FixEngineHost(SettingsFile.Parse($"""
                [DEFAULT]
                ConnectionType=initiator
                SocketConnectHost=127.0.0.1
                SocketConnectPort={port}
                HeartBtInt=30
                ReconnectInterval=1
                NonStopSession=Y
                UseDataDictionary=N
                EnableNextExpectedMsgSeqNum={(with789 ? "Y" : "N")}
                FileLogPath={Path.Combine(dir, "initiator-messages")}
                [SESSION]
                BeginString=FIX.4.4
                SenderCompID=CLIENT
                TargetCompID={exec}
                """, "initiator"), client, new EngineOptions { Console = client.Log });
            initiator.Start();
            FixSession session = initiator.Sessions[0];
            if (!WaitFor(() => session.IsLoggedOn, TimeSpan.FromSeconds(30))) throw new InvalidOperationException("no logon to the primary");

            sender = new Thread(() => SendSteadily(session, rate, client, stopSending.Token)) { IsBackground = true, Name = "orders" };
            sender.Start();
            Thread.Sleep(TimeSpan.FromSeconds(before));
            if (client.Reports == 0) throw new InvalidOperationException("no ExecutionReport from the primary before the kill");

            // SIGKILL the primary, then start the standby on the same settings (and the primary's port).
            using (Process p = Process.GetProcessById(primary.Id)) p.Kill();
            long killed = Stopwatch.GetTimestamp();
            client.MarkKill(killed);
            standby = StartAcceptor("standby", standbyConfig, Path.Combine(dir, "standby.log"));
            standby.Expect("PORT ", TimeSpan.FromSeconds(120));
            client.MarkStandbyListening();
            double listening = Stopwatch.GetElapsedTime(killed).TotalSeconds;
            // How far behind the counterparty the standby opened: the numbers the counterparty received from the primary
            // (its next expected, read while it is disconnected) that the database did not get (GroupCommit's tail).
            int standbyNextSender = int.Parse(standby.Expect("STATE ", TimeSpan.FromSeconds(10)).Split(' ')[1], CultureInfo.InvariantCulture);
            int behind = session.NextTargetMsgSeqNum - standbyNextSender;
            if (!WaitFor(() => client.FirstReportAfterTakeover != 0, TimeSpan.FromSeconds(120)))
            {
                throw new InvalidOperationException($"no ExecutionReport from the standby within 120 s of the kill: {client.Describe()}");
            }
            Thread.Sleep(TimeSpan.FromSeconds(after));
            stopSending.Cancel();
            sender.Join();
            WaitFor(() => client.Unanswered() == 0, TimeSpan.FromSeconds(30));
            return new RunResult(
                with789,
                listening,
                Stopwatch.GetElapsedTime(killed, client.LogonAfterTakeover).TotalSeconds,
                Stopwatch.GetElapsedTime(killed, client.FirstReportAfterTakeover).TotalSeconds,
                client.RefusedLogons,
                behind,
                client.Stored,
                client.Unanswered(),
                client.Duplicates,
                client.UnflaggedDuplicates,
                client.FirstRefusal);
        }
        finally
        {
            stopSending.Cancel();
            sender?.Join();
            initiator?.Stop(TimeSpan.FromSeconds(2));
            initiator?.Dispose();
            standby?.Stop();
            primary?.Stop();
            File.WriteAllLines(Path.Combine(dir, "initiator.log"), client.Lines());
        }
    }

    /// <summary>A loopback port the system picked, held by the returned socket (bound with SO_REUSEADDR, not listening)
    /// while it lives: acceptors with SocketReuseAddress=Y can listen on it one after the other, nobody else can.</summary>
    private static Socket HeldPort(out int port)
    {
        var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        socket.SetSocketOption(SocketOptionLevel.Socket, SocketOptionName.ReuseAddress, true);
        socket.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        port = ((IPEndPoint)socket.LocalEndPoint!).Port;
        return socket;
    }

    private static int PortOf(string line) => int.Parse(line.AsSpan(5), NumberStyles.None, CultureInfo.InvariantCulture);

    private static LineProcess StartAcceptor(string name, string config, string log)
    {
        ProcessStartInfo info = ChildProcessSystem.HarnessChildStartInfo();
        foreach (string a in new[] { "standby-takeover", "--acceptor", config, log }) info.ArgumentList.Add(a);
        return new LineProcess(name, info);
    }

    /// <summary>Hands order i to the session at i/rate seconds after the start; an order the session does not accept
    /// (hand-off ring full while it is not logged on) is retried every millisecond, so the sender falls behind the
    /// schedule while the session is down and catches up after.</summary>
    private static void SendSteadily(FixSession session, int rate, Counterparty client, CancellationToken stop)
    {
        long start = Stopwatch.GetTimestamp();
        for (long id = 1; !stop.IsCancellationRequested; id++)
        {
            long due = start + (long)(id * (double)Stopwatch.Frequency / rate);
            while (Stopwatch.GetTimestamp() < due && !stop.IsCancellationRequested) Thread.Sleep(1);
            try
            {
                while (!stop.IsCancellationRequested && !session.TrySendFromAnyThread(MsgTypes.NewOrderSingle, id, id, static (ref FixWriter w, scoped in long i) =>
                {
                    w.Write(FixTags.ClOrdID, i);
                    w.Write(FixTags.Symbol, "EUR/USD"u8);
                    w.Write(FixTags.Side, '1');
                    w.Write(FixTags.OrderQty, 100);
                    w.Write(FixTags.OrdType, '1');
                }))
                {
                    Thread.Sleep(1);
                }
            }
            catch (InvalidOperationException)
            {
                return; // the session's store failed (not expected: the initiator's store is in memory)
            }
            client.Handed(id);
        }
    }

    private static bool WaitFor(Func<bool> condition, TimeSpan timeout)
    {
        var clock = Stopwatch.StartNew();
        while (!condition())
        {
            if (clock.Elapsed > timeout) return false;
            Thread.Sleep(5);
        }
        return true;
    }

    /// <summary>The acceptor process: <c>standby-takeover --acceptor settings.cfg engine.log</c>. Blocks in Start until it
    /// holds the session's lease, prints <c>PORT p</c>, fills orders until EXIT or the end of its standard input.</summary>
    private static int AcceptorChild(string[] args)
    {
        if (args.Length != 2)
        {
            Console.Error.WriteLine("standby-takeover --acceptor <settings file> <engine log file>");
            return 2;
        }
        using var log = new StreamWriter(args[1], append: true) { AutoFlush = true };
        object gate = new();
        void Log(string line)
        {
            lock (gate) log.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{DateTime.UtcNow:HH:mm:ss.fff} {line}"));
        }
        Log("starting; waiting for the session lease");
        using var engine = new FixEngineHost(SettingsFile.Load(args[0]), new DedupFillApplication(), new EngineOptions
        {
            MessageStoreFactory = PostgresMessageStoreFactory.Instance,
            Console = Log,
        });
        engine.Start();
        var store = (PostgresMessageStore)engine.Sessions[0].Store;
        Log($"holding the lease (fencing token {store.FencingToken}), next sender {store.NextSenderMsgSeqNum}, next target {store.NextTargetMsgSeqNum}, port {engine.AcceptorPorts[0]}");
        Console.Out.Write(string.Create(CultureInfo.InvariantCulture, $"PORT {engine.AcceptorPorts[0]}\nSTATE {store.NextSenderMsgSeqNum} {store.NextTargetMsgSeqNum}\n"));
        Console.Out.Flush();
        string? line;
        while ((line = Console.In.ReadLine()) is not null && line.Trim() != "EXIT")
        {
        }
        engine.Stop(TimeSpan.FromSeconds(5));
        Log("stopped");
        return 0;
    }

    /// <summary>The initiator's application: which orders were stored, the ExecutionReports per ClOrdID, and the
    /// moments of the takeover as the counterparty sees them.</summary>
    private sealed class Counterparty : IApplication
    {
        private readonly object _sync = new();
        private readonly Dictionary<long, int> _reports = [];
        private readonly HashSet<long> _stored = [];
        private readonly List<string> _lines = [];
        private long _handed;
        private long _killedAt;
        private bool _standbyListening;

        public int Reports { get; private set; }

        public int Duplicates { get; private set; }

        public int UnflaggedDuplicates { get; private set; }

        public int LogonAttempts { get; private set; }

        public int RefusedLogons => Math.Max(0, LogonAttempts - 1);

        public string? FirstRefusal { get; private set; }

        public long LogonAfterTakeover { get; private set; }

        public long FirstReportAfterTakeover { get; private set; }

        public int Stored
        {
            get { lock (_sync) return _stored.Count; }
        }

        public void Handed(long id) => Volatile.Write(ref _handed, id);

        public void MarkKill(long timestamp)
        {
            lock (_sync)
            {
                _killedAt = timestamp;
                _lines.Add($"{DateTime.UtcNow:HH:mm:ss.fff} -- primary SIGKILLed");
            }
        }

        public void Log(string line)
        {
            lock (_sync) _lines.Add($"{DateTime.UtcNow:HH:mm:ss.fff} {line}");
        }

        public string[] Lines()
        {
            lock (_sync) return [.. _lines];
        }

        public void OnSendStored(FixSession session, long token, int msgSeqNum)
        {
            lock (_sync) _stored.Add(token);
        }

        public void OnLogon(FixSession session)
        {
            lock (_sync)
            {
                if (_killedAt != 0 && LogonAfterTakeover == 0) LogonAfterTakeover = Stopwatch.GetTimestamp();
            }
        }

        /// <summary>Counts the Logons this side sends to the standby before the takeover: each one but the last was
        /// refused (by this side, a Logon answer numbered too low; or by the standby). A Logon sent before the standby
        /// listens went to the dying primary (a connection accepted in the instant of the kill) and is not counted.</summary>
        public void ToAdmin(FixSession session, ReadOnlySpan<byte> msgType, ref FixWriter body)
        {
            if (!msgType.SequenceEqual(MsgTypes.Logon)) return;
            lock (_sync)
            {
                if (_standbyListening && LogonAfterTakeover == 0) LogonAttempts++;
            }
        }

        public void MarkStandbyListening()
        {
            lock (_sync) _standbyListening = true;
        }

        public void FromAdmin(FixSession session, FixMessage message)
        {
            if (!message.MsgType.SequenceEqual(MsgTypes.Logout)) return;
            lock (_sync)
            {
                if (_killedAt == 0 || LogonAfterTakeover != 0) return;
                if (message.TryGetSpan(FixTags.Text, out ReadOnlySpan<byte> text)) FirstRefusal ??= "standby: " + Encoding.ASCII.GetString(text);
            }
        }

        public FromAppResult FromApp(FixSession session, FixMessage message)
        {
            if (!message.MsgType.SequenceEqual(MsgTypes.ExecutionReport)) return FromAppResult.UnsupportedMessageType;
            message.TryGetLong(FixTags.ClOrdID, out long id);
            bool possDup = message.TryGetSpan(FixTags.PossDupFlag, out ReadOnlySpan<byte> flag) && flag.SequenceEqual("Y"u8);
            lock (_sync)
            {
                Reports++;
                if (LogonAfterTakeover != 0 && FirstReportAfterTakeover == 0) FirstReportAfterTakeover = Stopwatch.GetTimestamp();
                _reports.TryGetValue(id, out int count);
                _reports[id] = count + 1;
                if (count > 0)
                {
                    Duplicates++;
                    if (!possDup) UnflaggedDuplicates++;
                }
            }
            return FromAppResult.Accepted;
        }

        /// <summary>Orders stored by the session without an ExecutionReport yet.</summary>
        public int Unanswered()
        {
            lock (_sync) return _stored.Count(id => !_reports.ContainsKey(id));
        }

        public string Describe()
        {
            lock (_sync) return $"{_stored.Count} orders stored, {_reports.Count} answered, {Reports} reports, {RefusedLogons} refused logons ({FirstRefusal}), handed up to {Volatile.Read(ref _handed)}";
        }
    }

    private sealed record RunResult(bool With789, double ListeningS, double LogonS, double FirstReportS, int RefusedLogons,
        int Behind, int Stored, int Lost, int Duplicates, int UnflaggedDuplicates, string? FirstRefusal)
    {
        public bool Ok => Lost == 0;

        public override string ToString() => string.Create(CultureInfo.InvariantCulture,
            $"{(Ok ? "ok" : "LOST ORDERS")}: kill → standby listening {ListeningS:0.00} s, → Logon answered {LogonS:0.00} s, → first ExecutionReport {FirstReportS:0.00} s; " +
            $"standby opened {Behind} behind; {RefusedLogons} refused Logon(s){(FirstRefusal is null ? "" : $" (\"{FirstRefusal}\")")}; {Stored} orders stored, {Lost} lost, {Duplicates} answered twice ({UnflaggedDuplicates} without PossDupFlag)");
    }
}
