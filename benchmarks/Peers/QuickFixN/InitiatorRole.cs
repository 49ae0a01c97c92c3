using System;
using System.Globalization;
using System.IO;
using System.Runtime.InteropServices;
using System.Threading;
using QuickFix;
using QuickFix.Fields;
using QuickFix.Store;
using QuickFix.Transport;

namespace QuickFixN;

/// <summary>QuickFIX/n initiator: the main thread sends NewOrderSingles (closed-loop warm-up, then open loop at the rate
/// or closed loop), the session thread records each ExecutionReport's latency from the order's intended send time
/// (carried in ClOrdID; coordinated-omission corrected). Same protocol and sample file as the QuickFIX C++ peer.</summary>
/// <remarks>The warm-up also runs until a 200 ms slice compiled no method (at most twice the count or 5 s), like the
/// harness's, so tier-1 compilation does not land in the measured window.</remarks>
internal static class InitiatorRole
{
    public static int Run(PeerOptions o)
    {
        long measured = o.MeasuredOrders;
        PeerClock.SpinPacing = o.SpinPacing;
        var settings = new SessionSettings(new StringReader(o.SettingsText()));
        var app = new Client(measured + 16);
        using var initiator = new SocketInitiator(app, new MemoryStoreFactory(), settings, (QuickFix.Logger.ILogFactory?)null);
        initiator.Start();
        long logonDeadline = PeerClock.NowNs() + 15_000_000_000;
        while (!Volatile.Read(ref app.LoggedOn))
        {
            if (PeerClock.NowNs() > logonDeadline)
            {
                Console.Error.WriteLine("qfnpeer initiator: no logon within 15 s");
                initiator.Stop(true);
                return 3;
            }
            Thread.Sleep(1);
        }
        AcceptorRole.Say("LOGON");

        long sent = 0;
        long lagLimitNs = (long)(o.LagLimitSeconds * 1e9);
        bool ok = WarmUp(app, o, ref sent);
        if (ok && o.Rate > 0)
        {
            OpenLoop(app, Math.Max(1, (long)(o.Rate * 0.2)), PeerClock.NowNs() + 100_000, o.Rate, lagLimitNs, ref sent);
            ok = WaitForReplies(app, sent, o.ReplyTimeoutSeconds);
        }
        // The harness may ask for more warm-up (MORE: another 200 ms closed loop) while its own JIT is still compiling.
        AcceptorRole.Say("WARM");
        while (true)
        {
            int command = ReadGoOrMore();
            if (command == 0)
            {
                initiator.Stop(true);
                return 4;
            }
            if (command == 1) break;
            if (ok) ok = ClosedLoop(app, long.MaxValue, PeerClock.NowNs() + 200_000_000, ref sent, o.ReplyTimeoutSeconds);
            AcceptorRole.Say("WARM");
        }
        long warmupSent = sent;

        GcWindow before = GcWindow.Settled();
        long receivedBefore = Volatile.Read(ref app.Received);
        Volatile.Write(ref app.Recording, true);
        long first = PeerClock.NowNs();
        bool saturated = false;
        bool completed = ok;
        if (ok && o.Rate <= 0)
        {
            long deadline = o.Seconds > 0 ? first + (long)(o.Seconds * 1e9) : long.MaxValue;
            completed = ClosedLoop(app, measured, deadline, ref sent, o.ReplyTimeoutSeconds);
        }
        else if (ok)
        {
            first = PeerClock.NowNs() + 100_000;
            saturated = !OpenLoop(app, measured, first, o.Rate, lagLimitNs, ref sent);
            completed = WaitForReplies(app, sent, o.ReplyTimeoutSeconds);
        }
        GcWindow window = GcWindow.Now().Since(before);
        Volatile.Write(ref app.Recording, false);
        long received = Volatile.Read(ref app.Received) - receivedBefore;
        long recorded = Volatile.Read(ref app.Recorded);
        using (var file = new FileStream(o.Out, FileMode.Create, FileAccess.Write))
        {
            file.Write(MemoryMarshal.AsBytes(app.Samples.AsSpan(0, (int)recorded)));
        }
        AcceptorRole.Say(string.Create(CultureInfo.InvariantCulture,
            $"DONE sent={sent - warmupSent} received={received} errors={Interlocked.Read(ref app.Errors)} saturated={(saturated ? 1 : 0)} completed={(completed ? 1 : 0)} first={first} last={Volatile.Read(ref app.LastReplyNs)} warmup={warmupSent} outstanding={sent - Volatile.Read(ref app.Received)} gc={window.Gen0}/{window.Gen1}/{window.Gen2} bytes={window.Bytes}"));
        ReadCommand("EXIT");
        initiator.Stop();
        return 0;
    }

    private static bool WarmUp(Client app, PeerOptions o, ref long sent)
    {
        long start = PeerClock.NowNs();
        long softDeadline = o.WarmupSeconds > 0 ? start + (long)(o.WarmupSeconds * 1e9) : long.MaxValue;
        long hardDeadline = o.WarmupSeconds > 0 ? start + 5_000_000_000 : long.MaxValue;
        long hardCount = 2 * o.Warmup;
        long compiled = System.Runtime.JitInfo.GetCompiledMethodCount();
        while (true)
        {
            long sliceEnd = Math.Min(PeerClock.NowNs() + 200_000_000, hardDeadline);
            if (!ClosedLoop(app, hardCount - sent, sliceEnd, ref sent, o.ReplyTimeoutSeconds)) return false;
            long compiledNow = System.Runtime.JitInfo.GetCompiledMethodCount();
            bool settled = compiledNow == compiled;
            compiled = compiledNow;
            long now = PeerClock.NowNs();
            bool bounded = sent >= o.Warmup || now >= softDeadline;
            if ((bounded && settled) || now >= hardDeadline || sent >= hardCount) return true;
        }
    }

    private static void SendOrder(Client app, long intendedNs)
    {
        var order = new QuickFix.FIX44.NewOrderSingle(
            new ClOrdID(intendedNs.ToString(CultureInfo.InvariantCulture)), new Symbol("MSFT"), new Side(Side.BUY),
            new TransactTime(DateTime.UtcNow), new OrdType(OrdType.LIMIT));
        order.Set(new Account("ACCT0001"));
        order.Set(new HandlInst('1'));
        order.Set(new OrderQty(100));
        order.Set(new Price(123.45m));
        order.Set(new TimeInForce(TimeInForce.DAY));
        QuickFix.Session.SendToTarget(order, app.Session!);
    }

    private static bool WaitForReplies(Client app, long target, double timeoutSeconds)
    {
        long deadline = PeerClock.NowNs() + (long)(timeoutSeconds * 1e9);
        int spins = 0;
        while (Volatile.Read(ref app.Received) < target)
        {
            if (++spins < 50)
            {
                Thread.SpinWait(10);
                continue;
            }
            Thread.Yield();
            if ((spins & 1023) == 0 && PeerClock.NowNs() > deadline) return false;
        }
        return true;
    }

    private static bool ClosedLoop(Client app, long count, long deadlineNs, ref long sent, double timeoutSeconds)
    {
        for (long i = 0; i < count; i++)
        {
            long now = PeerClock.NowNs();
            if (now >= deadlineNs) break;
            SendOrder(app, now);
            sent++;
            if (!WaitForReplies(app, sent, timeoutSeconds)) return false;
        }
        return true;
    }

    private static bool OpenLoop(Client app, long count, long startNs, double rate, long lagLimitNs, ref long sent)
    {
        double intervalNs = 1e9 / rate;
        for (long i = 0; i < count; i++)
        {
            long intended = startNs + (long)(i * intervalNs);
            PeerClock.WaitUntil(intended);
            if (lagLimitNs > 0 && PeerClock.NowNs() - intended > lagLimitNs) return false;
            SendOrder(app, intended);
            sent++;
        }
        return true;
    }

    /// <summary>1 for GO, 2 for MORE, 0 for EXIT or end of file.</summary>
    private static int ReadGoOrMore()
    {
        string? line;
        while ((line = Console.In.ReadLine()) is not null)
        {
            line = line.TrimEnd('\r');
            if (line == "GO") return 1;
            if (line == "MORE") return 2;
            if (line == "EXIT") return 0;
            Console.Error.WriteLine($"qfnpeer initiator: unexpected command '{line}'");
        }
        return 0;
    }

    private static bool ReadCommand(string expected)
    {
        string? line;
        while ((line = Console.In.ReadLine()) is not null)
        {
            line = line.TrimEnd('\r');
            if (line == expected) return true;
            if (line == "EXIT") return false;
            Console.Error.WriteLine($"qfnpeer initiator: unexpected command '{line}'");
        }
        return false;
    }

    private sealed class Client(long capacity) : IApplication
    {
        // Written by the session thread (one session): Samples, Recorded, Received, LastReplyNs, Errors.
        public readonly long[] Samples = new long[capacity];
        public long Recorded;
        public long Received;
        public long Errors;
        public long LastReplyNs;
        public bool Recording;
        public bool LoggedOn;
        public SessionID? Session;

        public void FromApp(Message message, SessionID sessionID)
        {
            long now = PeerClock.NowNs();
            if (message.Header.GetString(Tags.MsgType) != MsgType.EXECUTION_REPORT
                || !message.IsSetField(Tags.ClOrdID)
                || !long.TryParse(message.GetString(Tags.ClOrdID), NumberStyles.None, CultureInfo.InvariantCulture, out long intended))
            {
                Interlocked.Increment(ref Errors);
                return;
            }
            if (Volatile.Read(ref Recording) && Recorded < Samples.Length)
            {
                Samples[Recorded] = now - intended;
                Volatile.Write(ref Recorded, Recorded + 1);
            }
            LastReplyNs = now;
            Volatile.Write(ref Received, Received + 1);
        }

        public void OnLogon(SessionID sessionID)
        {
            Session = sessionID;
            Volatile.Write(ref LoggedOn, true);
        }

        public void OnLogout(SessionID sessionID) => Volatile.Write(ref LoggedOn, false);

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
    }
}
