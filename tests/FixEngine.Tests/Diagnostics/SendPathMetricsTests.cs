using System;
using System.Collections.Generic;
using System.Diagnostics.Metrics;
using FixEngine.Codec;
using FixEngine.Diagnostics;
using FixEngine.Tests.Session;

namespace FixEngine.Tests.Diagnostics;

/// <summary><c>fix.messages.sent</c> counts every message the session writes, whichever path composed it (Send inside a
/// callback and outside one, TrySendFromAnyThread, the session's admin messages, Rejects, resends and their GapFills, a
/// message held by a full transport), each once; <c>fix.send.duration</c> measures the two application send paths, with
/// their tag, and nothing else. Read through a <see cref="MeterListener"/>, as an exporter does.</summary>
public sealed class SendPathMetricsTests
{
    private sealed class Probe : IDisposable
    {
        private readonly MeterListener _listener = new();
        private long _sent;
        public readonly Dictionary<string, int> Durations = [];

        public Probe(Meter meter)
        {
            _listener.InstrumentPublished = (instrument, l) =>
            {
                if (ReferenceEquals(instrument.Meter, meter) && instrument.Name is "fix.messages.sent" or "fix.send.duration") l.EnableMeasurementEvents(instrument);
            };
            _listener.SetMeasurementEventCallback<long>((instrument, value, tags, _) => _sent = value);
            _listener.SetMeasurementEventCallback<double>((instrument, value, tags, _) =>
            {
                foreach (KeyValuePair<string, object?> tag in tags)
                {
                    if (tag.Key == FixEngineMetrics.SendPathTag) Durations[(string)tag.Value!] = Durations.GetValueOrDefault((string)tag.Value!) + 1;
                }
            });
            _listener.Start();
        }

        /// <summary><c>fix.messages.sent</c> now, as a collection reads it.</summary>
        public long Sent()
        {
            _sent = -1;
            _listener.RecordObservableInstruments();
            return _sent;
        }

        public void Dispose() => _listener.Dispose();
    }

    [Fact]
    public void EverySendPathIsCountedOnceAndTheApplicationPathsAreTimedWithTheirTag()
    {
        using var h = new SessionHarness("FIX.4.4", s => s with { ResetOnLogon = false });
        using var meterFactory = new TestMeterFactory();
        using var metrics = new FixEngineMetrics(() => [h.Session], meterFactory);
        h.Session.Latency = metrics.CreateSessionLatency(h.Session.Id, () => h.Now + 3_000);
        using var probe = new Probe(meterFactory.Meter!);
        int seq = 1;

        // Runs one path; the counter moved by exactly the messages the transport got (and by `expected`).
        void Path(string name, int expected, Action act)
        {
            long before = probe.Sent();
            int written = h.Connection.Sent.Count;
            act();
            long counted = probe.Sent() - before;
            int onTheWire = h.Connection.Sent.Count - written;
            Assert.True(counted == expected && onTheWire == expected, $"{name}: fix.messages.sent moved by {counted}, the transport got {onTheWire}, expected {expected}");
            h.Read = h.Connection.Sent.Count;
        }

        string Order(string id) => $"35=D|34={++seq}|11={id}|21=3|38=100|40=1|54=1|55=INTC|60={h.Time()}";

        Path("Logon (admin)", 1, () => h.Receive("35=A|34=1|98=0|108=30"));
        Assert.True(h.Session.IsLoggedOn);
        Path("Send inside FromApp", 1, () => h.Receive(Order("IN-CALLBACK")));
        Path("Send outside a callback (owner thread)", 1, () =>
            h.Session.Send(MsgTypes.NewOrderSingle, 7, static (ref FixWriter w, scoped in int id) =>
            {
                w.Write(FixTags.ClOrdID, id);
                w.Write(FixTags.Symbol, "INTC"u8);
            }, h.Now));
        Path("TrySendFromAnyThread", 1, () =>
        {
            Assert.True(h.Session.TrySendFromAnyThread(MsgTypes.NewOrderSingle, 8, static (ref FixWriter w, scoped in int id) =>
            {
                w.Write(FixTags.ClOrdID, id);
                w.Write(FixTags.Symbol, "INTC"u8);
            }));
            h.Session.Poll(h.Now);
        });
        Assert.Equal(2, probe.Durations.GetValueOrDefault("send"));
        Assert.Equal(1, probe.Durations.GetValueOrDefault("any_thread"));

        Path("Heartbeat answering a TestRequest (admin)", 1, () => h.Receive($"35=1|34={++seq}|112=PING"));
        Path("Heartbeat on the timer (admin)", 1, () => h.Advance(31 * SessionHarness.Second));
        Path("session Reject", 1, () => h.Receive(Order("BAD").Replace("38=100", "38=x")));
        // Stored so far: Logon 1, reply 2, orders 3 and 4, Heartbeats 5 and 6, Reject 7. A ResendRequest for all of it:
        // the Logon's GapFill, messages 2-4 again (PossDup), a GapFill over 5-7.
        Path("resend (PossDup and GapFills)", 5, () => h.Receive($"35=2|34={++seq}|7=1|16=0"));
        Path("ResendRequest for a gap (admin)", 1, () => h.Receive($"35=0|34={seq + 5}"));
        seq += 5;
        // A full transport: the reply is counted when the session takes it (held in its backlog), not again when the
        // backlog drains.
        h.Connection.FreeBytes = 0;
        long held = probe.Sent();
        h.Session.Send(MsgTypes.NewOrderSingle, 9, static (ref FixWriter w, scoped in int id) => w.Write(FixTags.ClOrdID, id), h.Now);
        Assert.Equal(held + 1, probe.Sent());
        Assert.Equal(h.Read, h.Connection.Sent.Count);
        h.Connection.FreeBytes = null;
        h.Session.Poll(h.Now);
        Assert.Equal(h.Read + 1, h.Connection.Sent.Count);
        Assert.Equal(held + 1, probe.Sent());
        h.Read = h.Connection.Sent.Count;
        Path("Logout (admin)", 1, () => h.Session.Logout("end of day", h.Now));

        // Admin messages, Rejects and resends are counted, not timed: the histogram is the application's send paths. The
        // held Send is not timed either (it waited in the backlog: fix.send.backpressure counts it).
        Assert.Equal(2, probe.Durations.GetValueOrDefault("send"));
        Assert.Equal(1, probe.Durations.GetValueOrDefault("any_thread"));
        Assert.Equal(h.Connection.Sent.Count, probe.Sent());
    }

    private sealed class TestMeterFactory : IMeterFactory
    {
        public Meter? Meter { get; private set; }

        public Meter Create(MeterOptions options) => Meter = new Meter(options);

        public void Dispose() => Meter?.Dispose();
    }
}
