using System;
using System.Collections.Generic;
using System.Diagnostics.Metrics;
using System.Threading;
using FixEngine.Config;
using FixEngine.Diagnostics;
using FixEngine.Engine;
using FixEngine.Tests.Engine;

namespace FixEngine.Tests.Diagnostics;

/// <summary>The engine's counters reach a <see cref="MeterListener"/> (what dotnet-counters and OpenTelemetry use) and
/// move with the traffic.</summary>
public sealed class FixEngineMetricsTests
{
    [Fact]
    public void AMeterListenerSeesEachSessionsCountersMove()
    {
        int port = 0;
        // CompIDs no other test uses: the listener sees every FixEngine meter in the test process, and tests running
        // beside this one publish their own EXEC->CLIENT sessions' counters under the same tag.
        const string Defaults = "[DEFAULT]\nHeartBtInt=30\nStartTime=00:00:00\nEndTime=00:00:00\nUseDataDictionary=N\nResetOnLogon=Y\nIdleStrategy=Backoff";
        IReadOnlyList<SessionSettings> acceptorSettings = SettingsFile.Parse(Defaults
            + $"\nConnectionType=acceptor\nSocketAcceptPort={port}\n[SESSION]\nBeginString=FIX.4.4\nSenderCompID=METRICS-EXEC\nTargetCompID=METRICS-CLIENT\n", "acceptor");
        IReadOnlyList<SessionSettings> initiatorSettings = SettingsFile.Parse(Defaults
            + $"\nConnectionType=initiator\nSocketConnectHost=127.0.0.1\nSocketConnectPort={(port == 0 ? 1 : port)}\nReconnectInterval=1\n[SESSION]\nBeginString=FIX.4.4\nSenderCompID=METRICS-CLIENT\nTargetCompID=METRICS-EXEC\n", "initiator");
        var filler = new FillerApp();
        var client = new ClientApp();
        using var acceptor = new FixEngineHost(acceptorSettings, filler);

        var values = new Dictionary<(string Instrument, string Session), long>();
        using var listener = new MeterListener();
        listener.InstrumentPublished = (instrument, l) =>
        {
            if (instrument.Meter.Name == FixEngineMetrics.MeterName) l.EnableMeasurementEvents(instrument);
        };
        listener.SetMeasurementEventCallback<long>((instrument, value, tags, _) =>
        {
            string session = "";
            foreach (KeyValuePair<string, object?> tag in tags)
            {
                if (tag.Key == FixEngineMetrics.SessionTag) session = (string)tag.Value!;
            }
            lock (values) values[(instrument.Name, session)] = value;
        });
        listener.Start();

        acceptor.Start();
        using var initiator = new FixEngineHost(EngineTestSupport.WithConnectPort(initiatorSettings, EngineTestSupport.PortOf(acceptor)), client);
        initiator.Start();
        Assert.True(client.LoggedOn.Wait(EngineTestSupport.Wait));
        for (int i = 0; i < 10; i++) EngineTestSupport.SendOrder(client.Session!, i);
        Assert.True(EngineTestSupport.WaitFor(() => Interlocked.Read(ref client.Fills) == 10));

        const string Exec = "FIX.4.4:METRICS-EXEC->METRICS-CLIENT";
        const string Client = "FIX.4.4:METRICS-CLIENT->METRICS-EXEC";
        listener.RecordObservableInstruments();
        lock (values)
        {
            Assert.Equal(1, values[("fix.logons", Exec)]);
            Assert.Equal(1, values[("fix.sessions.logged_on", Client)]);
            // Logon + 10 orders at least (a Heartbeat may add one).
            Assert.InRange(values[("fix.messages.received", Exec)], 11, 20);
            Assert.InRange(values[("fix.messages.sent", Exec)], 11, 20);
            Assert.Equal(0, values[("fix.rejects.sent", Exec)]);
            Assert.Equal(0, values[("fix.disconnects", Exec)]);
        }

        initiator.Stop(TimeSpan.FromSeconds(5));
        // The session leaves the logged-on state when the Logout exchange ends, and counts the disconnect when its
        // connection has been torn down after that: wait for the second, through the listener.
        Assert.True(EngineTestSupport.WaitFor(() =>
        {
            listener.RecordObservableInstruments();
            lock (values) return values[("fix.disconnects", Exec)] == 1;
        }));
        lock (values) Assert.Equal(0, values[("fix.sessions.logged_on", Exec)]);
        acceptor.Stop(TimeSpan.FromSeconds(1));
    }
}
