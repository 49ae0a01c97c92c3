using System;
using System.Collections.Generic;
using System.Globalization;
using System.Threading;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Samples;
using FixEngine.Samples.Acceptor;
using FixEngine.Session;

// Usage:
//   dotnet run --project samples/Acceptor                      acceptor on the embedded config (port 5001), Ctrl+C to stop
//   dotnet run --project samples/Acceptor -- --demo [--orders N] [--port P]
//                                                             acceptor + in-process initiator: N orders round-trip, then exit
//   dotnet run --project samples/Acceptor -- settings.cfg      acceptor on a QuickFIX-style settings file
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
        case "--orders" when i + 1 < args.Length: orders = int.Parse(args[++i], CultureInfo.InvariantCulture); break;
        case "--port" when i + 1 < args.Length: port = int.Parse(args[++i], CultureInfo.InvariantCulture); break;
        default: cfg = args[i]; break;
    }
}

IReadOnlyList<SessionSettings> settings = cfg is null ? SettingsFile.Parse(EmbeddedConfig(port), "<embedded acceptor config>") : SettingsFile.Load(cfg);
IApplication application = at ? new AtApplication() : new FillApplication();
Action<string> print = line => Console.WriteLine("[acceptor] " + line);
using var engine = new FixEngineHost(settings, application, console: print);
engine.Start();
Console.WriteLine($"[acceptor] listening on port(s) {string.Join(", ", engine.AcceptorPorts)} for {settings.Count} session(s):");
foreach (Session s in engine.Sessions) Console.WriteLine($"[acceptor]   {s.Id}");

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

using var stop = new ManualResetEventSlim(false);
Console.CancelKeyPress += (_, e) =>
{
    e.Cancel = true;
    stop.Set();
};
AppDomain.CurrentDomain.ProcessExit += (_, _) => stop.Set();
Console.WriteLine("[acceptor] running; Ctrl+C to stop");
stop.Wait();
engine.Stop(TimeSpan.FromSeconds(3));
Console.WriteLine("[acceptor] stopped");
return 0;

static string EmbeddedConfig(int port) =>
    $"""
    [DEFAULT]
    ConnectionType=acceptor
    SocketAcceptPort={port}
    StartTime=00:00:00
    EndTime=00:00:00
    UseDataDictionary=N
    [SESSION]
    BeginString=FIX.4.4
    SenderCompID=EXEC
    TargetCompID=CLIENT
    """;
