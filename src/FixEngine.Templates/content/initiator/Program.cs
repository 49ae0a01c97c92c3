using System;
using System.IO;
using System.Threading;
using FixApp;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Messages.Fix44;
using FixEngine.Session;

// A FIX.4.4 initiator: connects as in initiator.cfg, sends one limit order and waits for its fill (exit code 0), or
// gives up after 30 seconds (exit code 1).
Directory.SetCurrentDirectory(AppContext.BaseDirectory);   // initiator.cfg, dictionaries/, store/ and log/ sit beside the app
var client = new OrderClient();
using var engine = new FixEngineHost(SettingsFile.Load("initiator.cfg"), client);
engine.Start();
var timeout = TimeSpan.FromSeconds(30);
if (!client.LoggedOn.Wait(timeout))
{
    Console.WriteLine("no logon within " + timeout.TotalSeconds + " s: is the acceptor running on port 5001?");
    return 1;
}

FixSession session = engine.Sessions[0];
// Any thread may send: the body is encoded here, the session numbers, stores and sends it in order.
while (!session.TrySendFromAnyThread(NewOrderSingle.MsgType, FixTimestamp.UtcNow, static (ref FixWriter w, scoped in FixTimestamp now) =>
    NewOrderSingle.Begin(ref w)                // fields in dictionary order; leaving out a required one does not compile
        .ClOrdID("ORDER-1"u8)
        .HandlInst(HandlInst.AutomatedExecutionNoIntervention)
        .Symbol("EUR/USD"u8)
        .Side(Side.Buy)
        .TransactTime(now)
        .OrderQty(100)
        .OrdType(OrdType.Limit)
        .Price(new FixDecimal(10852, 4))       // 1.0852
        .End()))
{
    Thread.Sleep(1);                           // not accepted yet (a slow peer): retry
}

bool filled = client.Filled.Wait(timeout);
Console.WriteLine(filled ? "filled: " + client.Fill : "no fill within " + timeout.TotalSeconds + " s");
engine.Stop(TimeSpan.FromSeconds(5));
return filled ? 0 : 1;
