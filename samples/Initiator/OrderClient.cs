using System;
using System.Diagnostics;
using System.Threading;
using FixEngine.Codec;
using FixEngine.Diagnostics;
using FixEngine.Session;
using FixMessages.Fix44;

namespace FixEngine.Samples;

/// <summary>Initiator application: once logged on, sends NewOrderSingles one at a time and records the round trip to the fill.</summary>
internal sealed class OrderClient : IApplication
{
    private readonly int _orders;
    private readonly LatencyHistogram _histogram = new(1, 10_000_000_000L, 3);
    private readonly ManualResetEventSlim _loggedOn = new(false);
    private readonly SemaphoreSlim _filled = new(0);
    private long _sentTicks;
    private int _fills;

    public OrderClient(int orders) => _orders = orders;

    public FixSession? Session { get; private set; }

    public void OnLogon(FixSession session)
    {
        Session = session;
        Console.WriteLine($"[initiator] logged on {session.Id}");
        _loggedOn.Set();
    }

    public void OnLogout(FixSession session) => Console.WriteLine($"[initiator] logged out {session.Id}");

    public FromAppResult FromApp(FixSession session, FixMessage message)
    {
        if (!message.MsgType.SequenceEqual(ExecutionReport.MsgType)) return FromAppResult.UnsupportedMessageType;
        long elapsedTicks = Stopwatch.GetTimestamp() - Volatile.Read(ref _sentTicks);
        _histogram.RecordValue((long)(elapsedTicks * (1_000_000_000.0 / Stopwatch.Frequency)));
        _fills++;
        _filled.Release();
        return FromAppResult.Accepted;
    }

    /// <summary>Runs the order loop on the calling thread; returns false on timeout.</summary>
    public bool Run(TimeSpan timeout)
    {
        if (!_loggedOn.Wait(timeout) || Session is null)
        {
            Console.WriteLine("[initiator] no logon within " + timeout);
            return false;
        }
        FixSession session = Session;
        Console.WriteLine($"[initiator] sending {_orders} orders (one at a time)");
        for (int i = 0; i < _orders; i++)
        {
            Volatile.Write(ref _sentTicks, Stopwatch.GetTimestamp());
            long orderNumber = i;
            while (!session.TrySendFromAnyThread(NewOrderSingle.MsgType, orderNumber, static (ref FixWriter w, scoped in long n) =>
            {
                // The ClOrdID is formatted on the stack: FixWriter's and the typed writer's text parameters are scoped.
                Span<byte> clOrdId = stackalloc byte[20];
                FixValueFormatter.TryFormatLong(n, clOrdId, out int length);
                // The typed body writer generated from FIX44.xml: fields in dictionary order, each required one
                // (ClOrdID, Side, TransactTime, OrdType) leads to the next stretch of optional ones, End on the last.
                NewOrderSingle.Begin(ref w)
                    .ClOrdID(clOrdId[..length])
                    .HandlInst(HandlInst.AutomatedExecutionNoIntervention)
                    .Symbol("EUR/USD"u8)
                    .Side(Side.Buy)
                    .TransactTime(FixTimestamp.UtcNow)      // or FixTimestamp.FromDateTimeOffset(...), FromUnixNanoseconds(clock.EpochNs)
                    .OrderQty(100)                     // a whole quantity (a FixDecimal also works)
                    .OrdType(OrdType.Limit)
                    .Price(new FixDecimal(10852, 4))
                    .End();
            }))
            {
                Thread.Yield();
            }
            if (!_filled.Wait(TimeSpan.FromSeconds(10)))
            {
                Console.WriteLine($"[initiator] no fill for order {i} within 10 s");
                return false;
            }
        }
        Console.WriteLine($"[initiator] {_fills} fills received. Round trip (order -> fill), microseconds:");
        foreach (double p in new[] { 50.0, 90.0, 99.0, 99.9, 100.0 })
        {
            Console.WriteLine($"[initiator]   p{p,-5} {_histogram.ValueAtPercentile(p) / 1000.0,10:F1} us");
        }
        return true;
    }
}
