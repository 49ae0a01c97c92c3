using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Runtime.InteropServices;
using System.Threading;
using FixEngine.Config;
using FixEngine.Dictionary;
using FixEngine.Engine;
using FixEngine.PostgreSQL;
using FixEngine.Samples;
using FixEngine.Samples.Acceptor;
using FixEngine.Session;

// Usage:
//   dotnet run --project samples/Acceptor                      acceptor on the embedded config (port 5001), Ctrl+C to stop
//   dotnet run --project samples/Acceptor -- --demo [--orders N] [--port P]   (--port 0: the system picks, printed)
//                                                             acceptor + in-process initiator: N orders round-trip, then exit
//   dotnet run --project samples/Acceptor -- settings.cfg      acceptor on a QuickFIX-style settings file
//                                                             (HttpAcceptPort=8089 in it: the web console, docs/console.md)
//   dotnet run --project samples/Acceptor -- --at settings.cfg acceptance-test application (echo), for .ci/acceptance.sh
bool demo = false;
bool at = false;
int orders = 1000;
int port = 5001;
string? cfg = null;
for (int i = 0; i < args.Length; i++)
{
    switch (args[i])
    {
        case "--demo": demo = true; break;
        case "--at": at = true; break;
        case "--orders" when i + 1 < args.Length && int.TryParse(args[i + 1], CultureInfo.InvariantCulture, out int n) && n > 0: orders = n; i++; break;
        case "--port" when i + 1 < args.Length && int.TryParse(args[i + 1], CultureInfo.InvariantCulture, out int p) && p is >= 0 and < 65536: port = p; i++; break;
        case "--orders" or "--port":
            Console.Error.WriteLine($"[acceptor] {(args[i] == "--port" ? "--port needs a port number 0..65535 (0: the system picks one)" : "--orders needs a positive number")}");
            return 2;
        default: cfg = args[i]; break;
    }
}

// The demo finishes in seconds, so both engines yield instead of parking (Backoff parks ~1 ms when idle, which
// would dominate a one-order-at-a-time round trip); the long-running acceptor keeps Backoff to leave the core free.
string idle = demo ? "Yielding" : "Backoff";
IApplication application = at ? new AtApplication() : new FillApplication();
Action<string> print = line => Console.WriteLine("[acceptor] " + line);
IReadOnlyList<SessionSettings> settings;
FixEngineHost engine;
try
{
    settings = cfg is null ? SettingsFile.Parse(EmbeddedConfig(port, idle), "<embedded acceptor config>") : SettingsFile.Load(cfg);
    if (settings.Count == 0) throw new ConfigException(cfg, 0, "[SESSION]", "no [SESSION] section: the file defines no session to run");
    // A session whose settings name a PostgreSQL store (PostgreSQLStoreConnectionString, samples/postgres-standby.cfg) gets
    // one from the FixEngine.PostgreSQL package; every other session the file or memory store its settings ask for.
    engine = new FixEngineHost(settings, application, new EngineOptions { Console = print, MessageStoreFactory = PostgresMessageStoreFactory.Instance });
    engine.Start();
}
catch (Exception e)
{
    // A start-up failure is one line and an exit code, not a crash (exit codes: docs/samples.md).
    (int code, string line) = e switch
    {
        ConfigException or DataDictionaryException => (2, e.Message),
        FixEngine.Store.MessageStoreException => (3, "message store: " + e.Message),
        System.Net.Sockets.SocketException s => (2, $"network: {s.Message} (socket error {s.SocketErrorCode})"),
        IOException or UnauthorizedAccessException => (4, e.Message),
        _ => (70, $"unexpected {e.GetType().Name}: {e.Message}"),
    };
    Console.Error.WriteLine($"[acceptor] cannot start: {line}");
    if (code == 70) Console.Error.WriteLine(e.StackTrace);
    return code;
}
using var engineScope = engine;
Console.WriteLine($"[acceptor] listening on port(s) {string.Join(", ", engine.AcceptorPorts)} for {settings.Count} session(s):");
foreach (FixSession s in engine.Sessions) Console.WriteLine($"[acceptor]   {s.Id}");

if (demo)
{
    var client = new OrderClient(orders);
    IReadOnlyList<SessionSettings> initiator = SettingsFile.Parse(
        $"""
        [DEFAULT]
        ConnectionType=initiator
        SocketConnectHost=127.0.0.1
        SocketConnectPort={engine.AcceptorPorts[0]}
        HeartBtInt=30
        ReconnectInterval=1
        StartTime=00:00:00
        EndTime=00:00:00
        UseDataDictionary=N
        ResetOnLogon=Y
        IdleStrategy=Yielding
        [SESSION]
        BeginString=FIX.4.4
        SenderCompID=CLIENT
        TargetCompID=EXEC
        """, "<embedded demo initiator config>");
    using var initiatorEngine = new FixEngineHost(initiator, client, console: line => Console.WriteLine("[initiator] " + line));
    initiatorEngine.Start();
    bool ok = client.Run(TimeSpan.FromSeconds(30));
    initiatorEngine.Stop(TimeSpan.FromSeconds(3));
    engine.Stop(TimeSpan.FromSeconds(3));
    Console.WriteLine(ok ? "[demo] done: all orders filled" : "[demo] FAILED");
    return ok ? 0 : 1;
}

// SIGINT (Ctrl+C), SIGTERM (a service manager's stop) and SIGQUIT all stop the engine the same way: every session
// logs out before the process exits.
using var stop = new ManualResetEventSlim(false);
using PosixSignalRegistration sigint = PosixSignalRegistration.Create(PosixSignal.SIGINT, OnStopSignal);
using PosixSignalRegistration sigterm = PosixSignalRegistration.Create(PosixSignal.SIGTERM, OnStopSignal);
using PosixSignalRegistration sigquit = PosixSignalRegistration.Create(PosixSignal.SIGQUIT, OnStopSignal);
Console.WriteLine("[acceptor] running; Ctrl+C or SIGTERM to stop");
stop.Wait();
engine.Stop(TimeSpan.FromSeconds(3));
Console.WriteLine("[acceptor] stopped");
return 0;

void OnStopSignal(PosixSignalContext context)
{
    context.Cancel = true;
    stop.Set();
}

static string EmbeddedConfig(int port, string idleStrategy) =>
    $"""
    [DEFAULT]
    ConnectionType=acceptor
    SocketAcceptPort={port}
    IdleStrategy={idleStrategy}
    StartTime=00:00:00
    EndTime=00:00:00
    UseDataDictionary=N
    [SESSION]
    BeginString=FIX.4.4
    SenderCompID=EXEC
    TargetCompID=CLIENT
    """;
