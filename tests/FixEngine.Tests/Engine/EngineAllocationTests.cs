using System;
using System.IO;
using System.Threading;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Session;
using FixEngine.Tests.Infrastructure;

namespace FixEngine.Tests.Engine;

[Collection(nameof(AllocationMeasurement))]
public class EngineAllocationTests
{
    private const int Warmup = 10_000;
    private const int Measured = 20_000;

    [Fact]
    public void OrderToFillRoundTripsOverRealSocketsAllocateNothingPerMessage()
    {
        string store = Path.Combine(Path.GetTempPath(), "fixengine-alloc-" + Guid.NewGuid().ToString("N"));
        int port = FreePort();
        string common = $"""
            [DEFAULT]
            StartTime=00:00:00
            EndTime=00:00:00
            UseDataDictionary=N
            ResetOnLogon=Y
            IdleStrategy=Yielding
            FileStorePath={store}
            StoreIndexCapacity=262144
            HeartBtInt=30
            """;
        var client = new CountingClient();
        try
        {
            using var acceptor = new FixEngineHost(SettingsFile.Parse(common + $"\nConnectionType=acceptor\nSocketAcceptPort={port}\n[SESSION]\nBeginString=FIX.4.4\nSenderCompID=EXEC\nTargetCompID=CLIENT\n", "acceptor"), new Filler());
            acceptor.Start();
            using var initiator = new FixEngineHost(SettingsFile.Parse(common + $"\nConnectionType=initiator\nSocketConnectHost=127.0.0.1\nSocketConnectPort={port}\nReconnectInterval=1\n[SESSION]\nBeginString=FIX.4.4\nSenderCompID=CLIENT\nTargetCompID=EXEC\n", "initiator"), client);
            initiator.Start();
            Assert.True(client.LoggedOn.Wait(TimeSpan.FromSeconds(20)), "initiator did not log on");

            RoundTrips(client, Warmup);
            // Process-wide, every thread: the two engine agents, the sockets, the stores, but also whatever background
            // threads earlier tests left behind (a few KB seen). The smallest object is 24 B, so one allocation per
            // message (or per three) would exceed 8 B per round trip; one-off runtime work stays well below it.
            GC.Collect();
            GC.WaitForPendingFinalizers();
            long before = GC.GetTotalAllocatedBytes(true);
            RoundTrips(client, Measured);
            long allocated = GC.GetTotalAllocatedBytes(true) - before;
            Assert.True(allocated < 8L * Measured, $"{allocated} bytes allocated for {Measured} round trips ({(double)allocated / Measured:F2} B each)");

            initiator.Stop(TimeSpan.FromSeconds(3));
            acceptor.Stop(TimeSpan.FromSeconds(3));
        }
        finally
        {
            try
            {
                Directory.Delete(store, true);
            }
            catch (IOException)
            {
            }
        }
    }

    private static void RoundTrips(CountingClient client, int count)
    {
        FixSession session = client.Session!;
        for (int i = 0; i < count; i++)
        {
            long target = Volatile.Read(ref client.Fills) + 1;
            while (!session.TrySendFromAnyThread(MsgTypes.NewOrderSingle, i, static (ref FixWriter w, scoped in int id) =>
            {
                w.Write(FixTags.ClOrdID, (long)id);
                w.Write(FixTags.Symbol, "EURUSD"u8);
                w.Write(FixTags.Side, '1');
                w.Write(FixTags.OrderQty, 100);
                w.Write(FixTags.OrdType, '1');
            }))
            {
                Thread.Yield();
            }
            var spin = new SpinWait();
            long deadline = Environment.TickCount64 + 20_000;
            while (Volatile.Read(ref client.Fills) < target)
            {
                spin.SpinOnce(sleep1Threshold: -1);
                if (Environment.TickCount64 > deadline) Assert.Fail($"no fill for order {i} within 20 s");
            }
        }
    }

    private static int FreePort()
    {
        using var probe = new System.Net.Sockets.Socket(System.Net.Sockets.AddressFamily.InterNetwork, System.Net.Sockets.SocketType.Stream, System.Net.Sockets.ProtocolType.Tcp);
        probe.Bind(new System.Net.IPEndPoint(System.Net.IPAddress.Loopback, 0));
        return ((System.Net.IPEndPoint)probe.LocalEndPoint!).Port;
    }

    private sealed class Filler : IApplication
    {
        public FromAppResult FromApp(FixSession session, FixMessage order)
        {
            session.Send(MsgTypes.ExecutionReport, order, static (ref FixWriter w, scoped in FixMessage o) =>
            {
                o.TryGetSpan(FixTags.ClOrdID, out ReadOnlySpan<byte> id);
                w.Write(FixTags.ClOrdID, id);
                w.Write(FixTags.ExecType, 'F');
                w.Write(FixTags.OrdStatus, '2');
            });
            return FromAppResult.Accepted;
        }
    }

    private sealed class CountingClient : IApplication
    {
        public readonly ManualResetEventSlim LoggedOn = new(false);
        public FixSession? Session;
        public long Fills;

        public void OnLogon(FixSession session)
        {
            Session = session;
            LoggedOn.Set();
        }

        public FromAppResult FromApp(FixSession session, FixMessage message)
        {
            Interlocked.Increment(ref Fills);
            return FromAppResult.Accepted;
        }
    }
}
