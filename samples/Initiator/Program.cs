using System;
using System.Collections.Generic;
using System.Globalization;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Samples;

// Usage: dotnet run --project samples/Initiator -- [--orders N] [--port P] [settings.cfg]
int orders = 1000;
int port = 5001;
string? cfg = null;
for (int i = 0; i < args.Length; i++)
{
    if (args[i] == "--orders" && i + 1 < args.Length) orders = int.Parse(args[++i], CultureInfo.InvariantCulture);
    else if (args[i] == "--port" && i + 1 < args.Length) port = int.Parse(args[++i], CultureInfo.InvariantCulture);
    else cfg = args[i];
}

IReadOnlyList<SessionSettings> settings = cfg is null
    ? SettingsFile.Parse(
        $"""
        [DEFAULT]
        ConnectionType=initiator
        SocketConnectHost=127.0.0.1
        SocketConnectPort={port}
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
        """, "<embedded initiator config>")
    : SettingsFile.Load(cfg);

var client = new OrderClient(orders);
using var engine = new FixEngineHost(settings, client, console: line => Console.WriteLine("[engine] " + line));
engine.Start();
bool ok = client.Run(TimeSpan.FromSeconds(30));
engine.Stop(TimeSpan.FromSeconds(3));
Console.WriteLine(ok ? "[initiator] done" : "[initiator] FAILED");
return ok ? 0 : 1;
