using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Threading;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.CrashPeer;
using FixEngine.Engine;
using FixEngine.Session;

// Usage: FixEngine.CrashPeer acceptor|initiator <dir> <port> [ordersPerSecond] [orders]
// Runs until killed (the crash test SIGKILLs it) or until standard input closes / SIGTERM / SIGINT (then it stops the
// engine with a Logout). The ledger is <dir>/<role>.ledger, the engine's log is under <dir>/<role>-log, the store under
// <dir>/<role>-store.
if (args.Length < 3)
{
    Console.Error.WriteLine("usage: FixEngine.CrashPeer acceptor|initiator <dir> <port> [ordersPerSecond] [orders]");
    return 2;
}
string role = args[0];
string dir = args[1];
int port = int.Parse(args[2], CultureInfo.InvariantCulture);
int rate = args.Length > 3 ? int.Parse(args[3], CultureInfo.InvariantCulture) : 1000;
long orders = args.Length > 4 ? long.Parse(args[4], CultureInfo.InvariantCulture) : long.MaxValue;
bool acceptor = role == "acceptor";
Directory.CreateDirectory(dir);

string common = $"""
    [DEFAULT]
    StartTime=00:00:00
    EndTime=00:00:00
    HeartBtInt=5
    ReconnectInterval=1
    UseDataDictionary=N
    ResetOnLogon=N
    ResetOnLogout=N
    ResetOnDisconnect=N
    PersistMessages=Y
    FileStoreSync=PerMessage
    IdleStrategy=Backoff
    FileStorePath={Path.Combine(dir, role + "-store")}
    FileLogPath={Path.Combine(dir, role + "-log")}
    """;
string text = acceptor
    ? common + $"\nConnectionType=acceptor\nSocketAcceptPort={port}\n[SESSION]\nBeginString=FIX.4.4\nSenderCompID=EXEC\nTargetCompID=CLIENT\n"
    : common + $"\nConnectionType=initiator\nSocketConnectHost=127.0.0.1\nSocketConnectPort={port}\n[SESSION]\nBeginString=FIX.4.4\nSenderCompID=CLIENT\nTargetCompID=EXEC\n";
IReadOnlyList<SessionSettings> settings = SettingsFile.Parse(text, role + ".cfg");

using var ledger = new Ledger(Path.Combine(dir, role + ".ledger"));
var app = new PeerApplication(ledger, acceptor);
using var engine = new FixEngineHost(settings, app, console: line => Console.WriteLine($"[{role}] {line}"));
engine.Start();
Console.WriteLine($"[{role}] started, pid {Environment.ProcessId}");

using var stop = new ManualResetEventSlim(false);
Console.CancelKeyPress += (_, e) => { e.Cancel = true; stop.Set(); };
AppDomain.CurrentDomain.ProcessExit += (_, _) => stop.Set();
var stdinWatch = new Thread(() =>
{
    try
    {
        while (Console.In.Read() >= 0)
        {
        }
    }
    catch (IOException)
    {
    }
    stop.Set();
}) { IsBackground = true };
stdinWatch.Start();

if (!acceptor)
{
    FixSession session = engine.Sessions[0];
    long next = PeerApplication.NextOrderId(Path.Combine(dir, role + ".ledger"));
    var sender = new Thread(() =>
    {
        long intervalTicks = Stopwatch.Frequency / Math.Max(1, rate);
        long due = Stopwatch.GetTimestamp();
        string stopFile = Path.Combine(dir, "stop-sending");
        while (!stop.IsSet && next < orders && !File.Exists(stopFile))
        {
            if (!session.IsLoggedOn)
            {
                Thread.Sleep(10);
                due = Stopwatch.GetTimestamp();
                continue;
            }
            while (Stopwatch.GetTimestamp() < due) Thread.SpinWait(20);
            due += intervalTicks;
            long id = next;
            if (session.TrySendFromAnyThread(MsgTypes.NewOrderSingle, id, static (ref FixWriter w, scoped in long clOrdId) =>
            {
                w.Write(FixTags.ClOrdID, clOrdId);
                w.Write(FixTags.Symbol, "EURUSD"u8);
                w.Write(FixTags.Side, '1');
                w.Write(FixTags.OrderQty, 100);
                w.Write(FixTags.OrdType, '1');
            }))
            {
                // Today the only promise is "queued for the session's thread": the ledger records that promise.
                ledger.Write($"S {id} 0");
                next++;
            }
        }
    }) { IsBackground = true, Name = "strategy" };
    sender.Start();
}

stop.Wait();
engine.Stop(TimeSpan.FromSeconds(3));
Console.WriteLine($"[{role}] stopped");
return 0;

internal sealed class PeerApplication(Ledger ledger, bool acceptor) : IApplication
{
    public static long NextOrderId(string ledgerPath)
    {
        long next = 0;
        if (!File.Exists(ledgerPath)) return 0;
        foreach (string line in File.ReadLines(ledgerPath))
        {
            string[] parts = line.Split(' ');
            if (parts.Length >= 2 && parts[0] == "S" && long.TryParse(parts[1], CultureInfo.InvariantCulture, out long id)) next = Math.Max(next, id + 1);
        }
        return next;
    }

    public FromAppResult FromApp(FixSession session, FixMessage message)
    {
        bool possDup = message.TryGetChar(FixTags.PossDupFlag, out char flag) == FixValueStatus.Ok && flag == 'Y';
        message.TryGetLong(FixTags.ClOrdID, out long id);
        if (acceptor)
        {
            if (!message.MsgType.SequenceEqual(MsgTypes.NewOrderSingle)) return FromAppResult.UnsupportedMessageType;
            ledger.Write($"P {id} {(possDup ? 'Y' : 'N')}");
            session.Send(MsgTypes.ExecutionReport, id, static (ref FixWriter w, scoped in long clOrdId) =>
            {
                w.Write(FixTags.ClOrdID, clOrdId);
                w.Write(FixTags.ExecID, clOrdId);
                w.Write(FixTags.OrderID, clOrdId);
                w.Write(FixTags.ExecType, 'F');
                w.Write(FixTags.OrdStatus, '2');
                w.Write(FixTags.Symbol, "EURUSD"u8);
                w.Write(FixTags.Side, '1');
                w.Write(FixTags.LeavesQty, 0);
                w.Write(FixTags.CumQty, 100);
                w.Write(FixTags.AvgPx, 100);
            });
        }
        else
        {
            if (!message.MsgType.SequenceEqual(MsgTypes.ExecutionReport)) return FromAppResult.UnsupportedMessageType;
            ledger.Write($"R {id} {(possDup ? 'Y' : 'N')}");
        }
        return FromAppResult.Accepted;
    }
}
