using System;
using System.Globalization;
using System.Net.Sockets;
using System.Text;
using System.Threading;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Benchmarks.RoundTrip;
using FixEngine.Session;

namespace FixEngine.Benchmarks.Scale;

/// <summary>The FixEngine acceptor of the scale mode, in its own process (<c>scale --acceptor-child N mem|file
/// heartbeat receiveMode storeRoot [console]</c>): N sessions BROKER01 ← CLIENT00001..N on one port with the engine's
/// defaults except the receive mode and the store; answers each NewOrderSingle with an ExecutionReport. With
/// <c>console</c>, the settings-file admin console too (<c>HttpAcceptPort=0</c>, loopback, a port the system picks).</summary>
/// <remarks>
/// Protocol on stdin/stdout: prints <c>PORT p</c> once listening (and <c>CONSOLE url</c> with the console);
/// <c>ALLOC</c> → <c>ALLOC bytes= gen0= gen1= gen2=</c> (bytes this process allocated so far, all threads, and the
/// collections so far; no collection forced); <c>STATS</c> → <c>STATS logons= logouts= testreq_sent=
/// testreq_received= gc_heap= gc_committed= orders= gc_pause_ms= gen2_collections= forced_gc_ms=</c> (heap and committed
/// after a full collection; the pause total and gen2 count before it; how long the forced collections took); <c>EXIT</c> or end of
/// file stops the host. TestRequests sent mean this engine missed a heartbeat of a counterparty; received, that a
/// counterparty missed one of ours.
/// </remarks>
internal static class ScaleAcceptorChild
{
    public static int Run(string[] args)
    {
        if (args.Length is not (5 or 6) || !int.TryParse(args[0], NumberStyles.None, CultureInfo.InvariantCulture, out int sessions) || sessions < 1
            || (args.Length == 6 && args[5] != "console"))
        {
            Console.Error.WriteLine("scale --acceptor-child: expected N mem|file heartbeat receiveMode storeRoot|- [console]");
            return 2;
        }
        bool file = args[1] == "file";
        int heartbeat = int.Parse(args[2], CultureInfo.InvariantCulture);
        string receiveMode = args[3];
        string? storeRoot = args[4] == "-" ? null : args[4];
        bool console = args.Length == 6;
        var app = new Responder();
        FixEngineHost host;
        string? consoleUrl = null;
        try
        {
            host = Start(sessions, file, heartbeat, receiveMode, storeRoot, console, app, url => consoleUrl = url);
        }
        catch (Exception e) when (e is SocketException or ConfigException or InvalidOperationException)
        {
            Console.Error.WriteLine($"scale --acceptor-child: could not start: {e.Message}");
            return 3;
        }
        using ScaleTrace? trace = ScaleTrace.RequestedByParent
            ? ScaleTrace.Start("acceptor", () => string.Create(CultureInfo.InvariantCulture,
                $"logons={Volatile.Read(ref app.Logons)} orders={Volatile.Read(ref app.Orders)} testreq_sent={Volatile.Read(ref app.TestRequestsSent)} agent_sweeps={Volatile.Read(ref host.Runtime.Agent.FullSweeps)} agent_hot={Volatile.Read(ref host.Runtime.Agent.HotVisits)}"))
            : null;
        try
        {
            Console.Out.Write($"PORT {host.AcceptorPorts[0]}\n");
            if (console) Console.Out.Write($"CONSOLE {consoleUrl ?? "none"}\n");
            Console.Out.Flush();
            string? line;
            while ((line = Console.In.ReadLine()) is not null)
            {
                line = line.Trim();
                if (line == "EXIT") break;
                if (line == "ALLOC")
                {
                    Console.Out.Write(string.Create(CultureInfo.InvariantCulture,
                        $"ALLOC bytes={GC.GetTotalAllocatedBytes(true)} gen0={GC.CollectionCount(0)} gen1={GC.CollectionCount(1)} gen2={GC.CollectionCount(2)}\n"));
                    Console.Out.Flush();
                }
                else if (line == "STATS")
                {
                    // The pauses and full collections the acceptor had on its own, before the ones forced here.
                    double pauseMs = GC.GetTotalPauseDuration().TotalMilliseconds;
                    int gen2 = GC.CollectionCount(2);
                    long forcedStart = System.Diagnostics.Stopwatch.GetTimestamp();
                    GC.Collect();
                    GC.WaitForPendingFinalizers();
                    GC.Collect();
                    double forcedMs = System.Diagnostics.Stopwatch.GetElapsedTime(forcedStart).TotalMilliseconds;
                    GCMemoryInfo info = GC.GetGCMemoryInfo();
                    Console.Out.Write(string.Create(CultureInfo.InvariantCulture,
                        $"STATS logons={Volatile.Read(ref app.Logons)} logouts={Volatile.Read(ref app.Logouts)} testreq_sent={Volatile.Read(ref app.TestRequestsSent)} testreq_received={Volatile.Read(ref app.TestRequestsReceived)} gc_heap={GC.GetTotalMemory(false)} gc_committed={info.TotalCommittedBytes} orders={Volatile.Read(ref app.Orders)} gc_pause_ms={pauseMs:0} gen2_collections={gen2} forced_gc_ms={forcedMs:0}\n"));
                    Console.Out.Flush();
                }
                else
                {
                    Console.Error.WriteLine($"scale --acceptor-child: unknown command '{line}'");
                }
            }
        }
        finally
        {
            host.Stop(TimeSpan.FromSeconds(5));
            host.Dispose();
        }
        return 0;
    }

    /// <summary>The settings text of the acceptor: the defaults except what the scenario fixes.</summary>
    public static string Settings(int sessions, bool file, int heartbeat, string receiveMode, string? storeRoot, int port, bool console = false)
    {
        var s = new StringBuilder(64 * sessions + 512);
        s.Append(CultureInfo.InvariantCulture, $"""
            [DEFAULT]
            ConnectionType=acceptor
            SocketAcceptPort={port}
            HeartBtInt={heartbeat}
            StartTime=00:00:00
            EndTime=00:00:00
            UseDataDictionary=N
            ResetOnLogon=Y
            ReceiveMode={receiveMode}
            BeginString=FIX.4.4
            SenderCompID=BROKER01

            """);
        if (file) s.Append("FileStorePath=").Append(storeRoot).Append('\n');
        if (console) s.Append("HttpAcceptPort=0\n");
        for (int i = 1; i <= sessions; i++) s.Append("[SESSION]\nTargetCompID=").Append(ScaleInitiators.CompId(i)).Append('\n');
        return s.ToString();
    }

    private static FixEngineHost Start(int sessions, bool file, int heartbeat, string receiveMode, string? storeRoot, bool console, Responder app, Action<string> consoleUrl)
    {
        for (int attempt = 1; ; attempt++)
        {
            int port;
            using (Socket probe = LoopbackTcp.Listen(0)) port = LoopbackTcp.PortOf(probe);
            var host = new FixEngineHost(
                SettingsFile.Parse(Settings(sessions, file, heartbeat, receiveMode, storeRoot, port, console), "<scale acceptor>"),
                app,
                new EngineOptions
                {
                    Console = line =>
                    {
                        if (line.StartsWith("Web console at ", StringComparison.Ordinal)) consoleUrl(line["Web console at ".Length..].Trim());
                        if (!line.StartsWith("Logon ", StringComparison.Ordinal) && !line.StartsWith("Accepted connection", StringComparison.Ordinal)) Console.Error.WriteLine("  acceptor: " + line);
                    },
                });
            try
            {
                host.Start();
                return host;
            }
            catch (SocketException) when (attempt < 5)
            {
                host.Dispose();
            }
        }
    }

    private sealed class Responder : IApplication
    {
        public long Logons;
        public long Logouts;
        public long TestRequestsSent;
        public long TestRequestsReceived;
        public long Orders;
        private readonly ExecutionReportResponder _responder = new();

        public void OnLogon(FixSession session) => Interlocked.Increment(ref Logons);

        public void OnLogout(FixSession session) => Interlocked.Increment(ref Logouts);

        public void ToAdmin(FixSession session, ReadOnlySpan<byte> msgType, ref FixWriter body)
        {
            if (msgType.SequenceEqual(MsgTypes.TestRequest)) Interlocked.Increment(ref TestRequestsSent);
        }

        public void FromAdmin(FixSession session, FixMessage message)
        {
            if (message.MsgType.SequenceEqual(MsgTypes.TestRequest)) Interlocked.Increment(ref TestRequestsReceived);
        }

        public FromAppResult FromApp(FixSession session, FixMessage message)
        {
            Interlocked.Increment(ref Orders);
            return _responder.FromApp(session, message);
        }
    }
}
