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
//    or: FixEngine.CrashPeer log <dir> <lines> (LogPeer: the session file log under SIGKILL)
// Runs until killed (the crash test SIGKILLs it) or until standard input closes / SIGTERM / SIGINT (then it stops the
// engine with a Logout). The ledger is <dir>/<role>.ledger, the engine's log is under <dir>/<role>-log, the store under
// <dir>/<role>-store.
if (args.Length == 3 && args[0] == "log")
{
    return LogPeer.Run(args[1], int.Parse(args[2], CultureInfo.InvariantCulture));
}
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

string ledgerPath = Path.Combine(dir, role + ".ledger");
var app = new PeerApplication(acceptor, PeerApplication.ProcessedOrders(ledgerPath));
using var ledger = new Ledger(ledgerPath);
app.Ledger = ledger;
using var engine = new FixEngineHost(settings, app, console: line => Console.WriteLine($"[{role}] {line}"));
if (!acceptor)
{
    // Orders the engine stored before the last crash but whose OnSendStored the ledger did not get to record: the
    // store has them (docs/guarantees.md, "Sending": after a restart, read the store from the last MsgSeqNum you recorded).
    int recovered = PeerApplication.RecoverStoredOrders(engine.Sessions[0], ledgerPath, ledger);
    if (recovered > 0) Console.WriteLine($"[{role}] {recovered} stored orders recovered from the store into the ledger");
}
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
    long next = PeerApplication.NextOrderId(ledgerPath);
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
            // The token is the order id: OnSendStored reports it with the MsgSeqNum once the order is stored.
            if (session.TrySendFromAnyThread(MsgTypes.NewOrderSingle, id, id, static (ref FixWriter w, scoped in long clOrdId) =>
            {
                w.Write(FixTags.ClOrdID, clOrdId);
                w.Write(FixTags.Symbol, "EURUSD"u8);
                w.Write(FixTags.Side, '1');
                w.Write(FixTags.OrderQty, 100);
                w.Write(FixTags.OrdType, '1');
            }))
            {
                // Accepted, not yet stored: the ledger's S line comes from OnSendStored.
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

internal sealed class PeerApplication(bool acceptor, HashSet<long> processed) : IApplication
{
    public Ledger Ledger { get; set; } = null!;

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

    // Acceptor: the orders this application answered (a P line is written after the answer is stored).
    public static HashSet<long> ProcessedOrders(string ledgerPath)
    {
        var ids = new HashSet<long>();
        if (!File.Exists(ledgerPath)) return ids;
        foreach (string line in File.ReadLines(ledgerPath))
        {
            string[] parts = line.Split(' ');
            if (parts.Length == 3 && parts[0] == "P" && long.TryParse(parts[1], CultureInfo.InvariantCulture, out long id)) ids.Add(id);
        }
        return ids;
    }

    // Initiator, before the engine starts: every NewOrderSingle stored after the last S line's MsgSeqNum gets its S line.
    public static int RecoverStoredOrders(FixSession session, string ledgerPath, Ledger ledger)
    {
        int lastSeq = 0;
        if (File.Exists(ledgerPath))
        {
            foreach (string line in File.ReadLines(ledgerPath))
            {
                string[] parts = line.Split(' ');
                if (parts.Length == 3 && parts[0] == "S" && int.TryParse(parts[2], CultureInfo.InvariantCulture, out int seq)) lastSeq = Math.Max(lastSeq, seq);
            }
        }
        var reader = new StoredOrders { Found = [] };
        session.Store.ReadRange(lastSeq + 1, 0, ref reader);
        foreach ((long id, int seq) in reader.Found) ledger.Write($"S {id} {seq}");
        return reader.Found.Count;
    }

    // Off the session's thread: a line lost to a crash is rebuilt from the store at the next start.
    public void OnSendStored(FixSession session, long token, int msgSeqNum) => Ledger.WriteLater($"S {token} {msgSeqNum}");

    public void OnSendNotStored(FixSession session, long token, SendNotStoredReason reason) =>
        Console.WriteLine($"order {token} not stored: {reason}");

    public void OnStoreFailure(FixSession session, FixEngine.Store.MessageStoreException error) =>
        Console.WriteLine($"store failed: {error.Message}");

    public FromAppResult FromApp(FixSession session, FixMessage message)
    {
        // The engine's flag: this delivery may repeat one this application already saw.
        bool again = session.IsPossibleRedelivery;
        message.TryGetLong(FixTags.ClOrdID, out long id);
        if (acceptor)
        {
            if (!message.MsgType.SequenceEqual(MsgTypes.NewOrderSingle)) return FromAppResult.UnsupportedMessageType;
            // A flagged delivery of an order already answered is not answered again (the engine drops the ones whose
            // answer it stored; this covers the application's own records).
            if (!(again && processed.Contains(id)))
            {
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
                processed.Add(id);
            }
            Ledger.Write($"P {id} {(again ? 'Y' : 'N')}");
        }
        else
        {
            if (!message.MsgType.SequenceEqual(MsgTypes.ExecutionReport)) return FromAppResult.UnsupportedMessageType;
            Ledger.Write($"R {id} {(again ? 'Y' : 'N')}");
        }
        return FromAppResult.Accepted;
    }

    private struct StoredOrders : FixEngine.Store.IStoredMessageHandler
    {
        public List<(long Id, int Seq)> Found;

        public bool OnMessage(int seqNum, ReadOnlySpan<byte> message)
        {
            var index = new FixMessageIndex();
            index.Parse(message);
            var m = new FixMessage(message, index);
            if (m.MsgType.SequenceEqual(MsgTypes.NewOrderSingle) && m.TryGetLong(FixTags.ClOrdID, out long id) == FixValueStatus.Ok) Found.Add((id, seqNum));
            return true;
        }
    }
}
