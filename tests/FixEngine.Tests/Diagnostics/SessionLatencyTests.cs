using System;
using System.Collections.Generic;
using System.Diagnostics.Metrics;
using System.Linq;
using System.Threading;
using FixEngine.Config;
using FixEngine.Diagnostics;
using FixEngine.Engine;
using FixEngine.Tests.Engine;
using FixEngine.Tests.Infrastructure;
using FixEngine.Tests.Session;

namespace FixEngine.Tests.Diagnostics;

/// <summary>The latency histograms: recorded while a listener wants them, with the session's tag, and without allocating
/// on the message path either way.</summary>
[Collection(nameof(AllocationMeasurement))]
public sealed class SessionLatencyTests
{
    /// <summary>Sums what it receives, allocation-free (the listener's own cost must not hide the engine's).</summary>
    private sealed class SummingListener : IDisposable
    {
        private readonly MeterListener _listener = new();
        public long InboundCount;
        public long SendCount;
        public double InboundSumUs;
        public double SendSumUs;
        public bool TagsRight = true;

        public SummingListener(Meter meter)
        {
            _listener.InstrumentPublished = (instrument, l) =>
            {
                if (ReferenceEquals(instrument.Meter, meter)) l.EnableMeasurementEvents(instrument);
            };
            _listener.SetMeasurementEventCallback<double>((instrument, value, tags, _) =>
            {
                if (tags.Length < 1 || tags[0].Key != FixEngineMetrics.SessionTag || tags[0].Value is not string) TagsRight = false;
                if (instrument.Name == "fix.send.duration" && (tags.Length != 2 || tags[1].Key != FixEngineMetrics.SendPathTag || (string?)tags[1].Value != "send")) TagsRight = false;
                if (instrument.Name == "fix.inbound.duration")
                {
                    InboundCount++;
                    InboundSumUs += value;
                }
                else if (instrument.Name == "fix.send.duration")
                {
                    SendCount++;
                    SendSumUs += value;
                }
            });
            _listener.Start();
        }

        public void Dispose() => _listener.Dispose();
    }

    [Fact]
    public void TheMessagePathAllocatesNothingWithOrWithoutAListener()
    {
        using var meterFactory = new TestMeterFactory();
        FixEngineMetrics? metrics = null;
        // The clock the latency reads: 3 us (3e-6 s) after the receive time of every message.
        using var w = new OrderWindows(h =>
        {
            metrics = new FixEngineMetrics(() => [h.Session], meterFactory);
            h.Session.Latency = metrics.CreateSessionLatency(h.Session.Id, () => h.Now + 3_000);
        });
        using FixEngineMetrics ownedMetrics = metrics!;
        long[] withoutListener = w.Measure();
        Assert.Equal(OrderWindows.Count + 2, w.H.Session.NextTargetMsgSeqNum);

        using var listener = new SummingListener(meterFactory.Meter!);
        w.Run();
        long[] withListener = new long[3];
        for (int i = 0; i < withListener.Length; i++)
        {
            listener.InboundCount = listener.SendCount = 0;
            listener.InboundSumUs = listener.SendSumUs = 0;
            withListener[i] = w.Run();
        }

        Assert.True(withoutListener.Min() == 0, $"bytes allocated per {OrderWindows.Count}-message window without a listener: {OrderWindows.Describe(withoutListener)}");
        Assert.True(withListener.Min() == 0, $"bytes allocated per {OrderWindows.Count}-message window with a listener: {OrderWindows.Describe(withListener)}");
        // Every order was measured on its way in, and every reply the application sent from FromApp on its way out.
        Assert.Equal(OrderWindows.Count, listener.InboundCount);
        Assert.Equal(3e-6, listener.InboundSumUs / listener.InboundCount, 12);
        Assert.Equal(OrderWindows.Count, listener.SendCount);
        Assert.True(listener.TagsRight, "every measurement carries the fix.session tag (and a send its fix.send.path)");
    }

    [Fact]
    public void TrySendFromAnyThreadIsMeasuredOnItsOwnPathWithoutAllocating()
    {
        using var h = new SessionHarness("FIX.4.4", s => s with { ResetOnLogon = false }, store: SessionHarness.ReservedStore());
        h.Connection.CaptureEnabled = false;
        using var meterFactory = new TestMeterFactory();
        using var metrics = new FixEngineMetrics(() => [h.Session], meterFactory);
        h.Session.Latency = metrics.CreateSessionLatency(h.Session.Id, () => h.Now + 3_000);
        h.Session.OnMessage(h.Build("35=A|34=1|98=0|108=30"), h.Now);
        Assert.True(h.Session.IsLoggedOn);
        var paths = new Dictionary<string, long>();
        using var listener = new MeterListener();
        listener.InstrumentPublished = (instrument, l) =>
        {
            if (ReferenceEquals(instrument.Meter, meterFactory.Meter) && instrument.Name == "fix.send.duration") l.EnableMeasurementEvents(instrument);
        };
        listener.SetMeasurementEventCallback<double>((instrument, value, tags, _) =>
        {
            foreach (KeyValuePair<string, object?> tag in tags)
            {
                if (tag.Key == FixEngineMetrics.SendPathTag) paths[(string)tag.Value!] = paths.GetValueOrDefault((string)tag.Value!) + 1;
            }
        });
        listener.Start();
        const int count = 500;

        long RunAll()
        {
            h.Session.Poll(h.Now);
            long before = GC.GetAllocatedBytesForCurrentThread();
            for (int i = 0; i < count; i++)
            {
                Assert.True(h.Session.TrySendFromAnyThread(global::FixEngine.Codec.MsgTypes.NewOrderSingle, i, i, static (ref global::FixEngine.Codec.FixWriter w, scoped in int id) =>
                {
                    w.Write(global::FixEngine.Codec.FixTags.ClOrdID, id);
                    w.Write(global::FixEngine.Codec.FixTags.Symbol, "INTC"u8);
                }));
                h.Session.Poll(h.Now);
            }
            return GC.GetAllocatedBytesForCurrentThread() - before;
        }

        RunAll();
        long[] windows = [RunAll(), RunAll(), RunAll()];
        Assert.True(windows.Min() == 0, $"bytes allocated per {count}-message window: {string.Join(", ", windows)}");
        // Every message handed over was measured on the any_thread path; none on the Send path.
        Assert.Equal(4 * count, paths.GetValueOrDefault("any_thread"));
        Assert.Equal(0, paths.GetValueOrDefault("send"));
    }

    [Fact]
    public void AMeterListenerSeesTheEnginesLatencyHistograms()
    {
        int port = 0;
        (IReadOnlyList<SessionSettings> acceptorSettings, IReadOnlyList<SessionSettings> initiatorSettings) =
            EngineTestSupport.ExecClientPair("[DEFAULT]\nHeartBtInt=30\nStartTime=00:00:00\nEndTime=00:00:00\nUseDataDictionary=N\nResetOnLogon=Y\nIdleStrategy=Backoff", port);
        var filler = new FillerApp();
        var client = new ClientApp();
        var seen = new Dictionary<(string Instrument, string Session), (long Count, double Max)>();
        using var listener = new MeterListener();
        listener.InstrumentPublished = (instrument, l) =>
        {
            if (instrument.Meter.Name == FixEngineMetrics.MeterName && instrument is Histogram<double>) l.EnableMeasurementEvents(instrument);
        };
        listener.SetMeasurementEventCallback<double>((instrument, value, tags, _) =>
        {
            string session = "";
            foreach (KeyValuePair<string, object?> tag in tags)
            {
                if (tag.Key == FixEngineMetrics.SessionTag) session = (string)tag.Value!;
            }
            lock (seen)
            {
                seen.TryGetValue((instrument.Name, session), out (long Count, double Max) v);
                seen[(instrument.Name, session)] = (v.Count + 1, Math.Max(v.Max, value));
            }
        });
        listener.Start();
        using var acceptor = new FixEngineHost(acceptorSettings, filler);
        acceptor.Start();
        using var initiator = new FixEngineHost(EngineTestSupport.WithConnectPort(initiatorSettings, EngineTestSupport.PortOf(acceptor)), client);
        initiator.Start();
        Assert.True(client.LoggedOn.Wait(EngineTestSupport.Wait));
        for (int i = 0; i < 20; i++) EngineTestSupport.SendOrder(client.Session!, i);
        Assert.True(EngineTestSupport.WaitFor(() => Interlocked.Read(ref client.Fills) == 20));
        initiator.Stop(TimeSpan.FromSeconds(5));
        acceptor.Stop(TimeSpan.FromSeconds(1));

        lock (seen)
        {
            // The acceptor's application got 20 orders and answered each with Send; the initiator's got 20 reports.
            Assert.Equal(20, seen[("fix.inbound.duration", "FIX.4.4:EXEC->CLIENT")].Count);
            Assert.Equal(20, seen[("fix.inbound.duration", "FIX.4.4:CLIENT->EXEC")].Count);
            (long sends, double maxSendUs) = seen[("fix.send.duration", "FIX.4.4:EXEC->CLIENT")];
            Assert.InRange(sends, 1, 20);
            // Seconds (OpenTelemetry's unit), not microseconds: a send on loopback takes well under a second.
            Assert.InRange(maxSendUs, 0, 1.0);
        }
    }

    private sealed class TestMeterFactory : IMeterFactory
    {
        public Meter? Meter { get; private set; }

        public Meter Create(MeterOptions options) => Meter = new Meter(options);

        public void Dispose() => Meter?.Dispose();
    }
}
