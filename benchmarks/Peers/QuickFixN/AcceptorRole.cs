using System;
using System.Globalization;
using System.IO;
using System.Threading;
using QuickFix;
using QuickFix.Fields;
using QuickFix.Store;

namespace QuickFixN;

/// <summary>QuickFIX/n acceptor: a ThreadedSocketAcceptor (thread per session), memory store, no log, answering each
/// NewOrderSingle with an ExecutionReport (ExecType=New) echoing ClOrdID, the same reply as the harness's FixEngine
/// responder and the QuickFIX C++ peer. Serves the harness's commands on stdin (PORT, BEGIN/BEGUN, END/WINDOW, JIT,
/// EXIT), like the harness's own acceptor child process.</summary>
internal static class AcceptorRole
{
    public static int Run(PeerOptions options)
    {
        var settings = new SessionSettings(new StringReader(options.SettingsText()));
        var app = new Responder();
        using var acceptor = new ThreadedSocketAcceptor(app, new MemoryStoreFactory(), settings, (QuickFix.Logger.ILogFactory?)null);
        acceptor.Start();
        Say($"PORT {options.Port}");
        GcWindow start = default;
        string? line;
        while ((line = Console.In.ReadLine()) is not null)
        {
            line = line.TrimEnd('\r');
            if (line == "BEGIN")
            {
                start = GcWindow.Settled();
                Say("BEGUN");
            }
            else if (line == "END")
            {
                GcWindow w = GcWindow.Now().Since(start);
                Say(string.Create(CultureInfo.InvariantCulture, $"WINDOW {w.Gen0} {w.Gen1} {w.Gen2} {w.Bytes}"));
            }
            else if (line == "JIT")
            {
                Say(string.Create(CultureInfo.InvariantCulture, $"JIT {System.Runtime.JitInfo.GetCompiledMethodCount()}"));
            }
            else if (line == "EXIT")
            {
                break;
            }
            else
            {
                Console.Error.WriteLine($"qfnpeer acceptor: unknown command '{line}'");
            }
        }
        acceptor.Stop();
        Console.Error.WriteLine($"qfnpeer acceptor: {Volatile.Read(ref app.Orders)} orders answered, {Volatile.Read(ref app.Errors)} errors");
        return app.Errors == 0 ? 0 : 1;
    }

    internal static void Say(string line)
    {
        Console.Out.Write(line + "\n");
        Console.Out.Flush();
    }

    private sealed class Responder : IApplication
    {
        public long Orders;
        public long Errors;

        public void FromApp(Message message, SessionID sessionID)
        {
            if (message.Header.GetString(Tags.MsgType) != MsgType.NEWORDERSINGLE)
            {
                Interlocked.Increment(ref Errors);
                throw new UnsupportedMessageType();
            }
            string clOrdId = message.GetString(Tags.ClOrdID);
            decimal quantity = message.GetDecimal(Tags.OrderQty);
            var report = new QuickFix.FIX44.ExecutionReport(
                new OrderID(clOrdId), new ExecID(clOrdId), new ExecType(ExecType.NEW), new OrdStatus(OrdStatus.NEW),
                new Symbol(message.GetString(Tags.Symbol)), new Side(message.GetChar(Tags.Side)), new LeavesQty(quantity),
                new CumQty(0), new AvgPx(0));
            report.Set(new ClOrdID(clOrdId));
            if (message.IsSetField(Tags.Account)) report.Set(new Account(message.GetString(Tags.Account)));
            report.Set(new OrderQty(quantity));
            report.Set(new OrdType(OrdType.LIMIT));
            report.Set(new Price(message.GetDecimal(Tags.Price)));
            report.Set(new TransactTime(DateTime.UtcNow));
            Interlocked.Increment(ref Orders);
            QuickFix.Session.SendToTarget(report, sessionID);
        }

        public void FromAdmin(Message message, SessionID sessionID)
        {
        }

        public void ToAdmin(Message message, SessionID sessionID)
        {
        }

        public void ToApp(Message message, SessionID sessionID)
        {
        }

        public void OnCreate(SessionID sessionID)
        {
        }

        public void OnLogon(SessionID sessionID)
        {
        }

        public void OnLogout(SessionID sessionID)
        {
        }
    }
}
