using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using FixEngine.Config;
using FixEngine.Dictionary;
using FixEngine.Engine;
using FixEngine.Samples;

// Usage: dotnet run --project samples/Initiator -- [--orders N] [--port P] [settings.cfg]
int orders = 1000;
int port = 5001;
string? cfg = null;
for (int i = 0; i < args.Length; i++)
{
    if (args[i] is "--orders" or "--port")
    {
        if (i + 1 >= args.Length || !int.TryParse(args[i + 1], CultureInfo.InvariantCulture, out int n) || n <= 0 || (args[i] == "--port" && n > 65535))
        {
            Console.Error.WriteLine($"[initiator] {args[i]} needs a positive number{(args[i] == "--port" ? " below 65536" : "")}");
            return 2;
        }
        if (args[i] == "--orders") orders = n;
        else port = n;
        i++;
    }
    else
    {
        cfg = args[i];
    }
}

var client = new OrderClient(orders);
FixEngineHost engine;
try
{
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
    if (settings.Count == 0) throw new ConfigException(cfg, 0, "[SESSION]", "no [SESSION] section: the file defines no session to run");
    engine = new FixEngineHost(settings, client, console: line => Console.WriteLine("[engine] " + line));
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
    Console.Error.WriteLine($"[initiator] cannot start: {line}");
    if (code == 70) Console.Error.WriteLine(e.StackTrace);
    return code;
}
using var engineScope = engine;
bool ok = client.Run(TimeSpan.FromSeconds(30));
engine.Stop(TimeSpan.FromSeconds(3));
Console.WriteLine(ok ? "[initiator] done" : "[initiator] FAILED");
return ok ? 0 : 1;
