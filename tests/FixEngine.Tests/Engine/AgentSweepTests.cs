using System;
using System.Linq;
using System.Text;
using System.Threading;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Session;
using static FixEngine.Tests.Engine.DynamicSessionTests;
using static FixEngine.Tests.Engine.EngineTestSupport;

namespace FixEngine.Tests.Engine;

/// <summary>Past <see cref="EngineAgent.SweepEveryCycleItems"/> connections and sessions the agent sweeps them all at
/// once only when asked, and otherwise in slices, each item once per <see cref="EngineAgent.SweepIntervalNs"/>
/// (Engine/EngineAgent.cs, "Sweeps"; AgentSliceTests): every session's logon, timers, hand-offs and disconnects still
/// happen.</summary>
public sealed class AgentSweepTests
{
    private const int Sessions = 300;

    [Fact]
    public void PastTheItemsSweptEveryCycleTheSweepIntervalIsItsBound()
    {
        Assert.Equal(0, EngineAgent.SweepIntervalNs(1));
        Assert.Equal(0, EngineAgent.SweepIntervalNs(EngineAgent.SweepEveryCycleItems));
        // Quiet visits make a sweep cheap: it is not made more frequent for that (each item once per second: the timer wheel fires the timers).
        Assert.Equal(EngineAgent.MaxSweepIntervalNs, EngineAgent.SweepIntervalNs(EngineAgent.SweepEveryCycleItems + 1));
        Assert.Equal(EngineAgent.MaxSweepIntervalNs, EngineAgent.SweepIntervalNs(20_000));
    }

    [Fact]
    public void ManySessionsLogOnTradeHeartbeatAndNoticeDisconnects()
    {
        var acceptor = new StringBuilder("[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=0\nHeartBtInt=1\nStartTime=00:00:00\nEndTime=00:00:00\n"
            + "UseDataDictionary=N\nReceiveMode=Completion\nBeginString=FIX.4.4\nSenderCompID=GW\n");
        for (int i = 1; i <= Sessions; i++) acceptor.Append($"[SESSION]\nTargetCompID=C{i:D3}\n");
        var gatewayApp = new MultiApp();
        var clientApp = new MultiApp();
        using var gateway = new FixEngineHost(SettingsFile.Parse(acceptor.ToString(), "<acceptors>"), gatewayApp);
        gateway.Start();
        int port = PortOf(gateway);
        var initiator = new StringBuilder($"[DEFAULT]\nConnectionType=initiator\nSocketConnectHost=127.0.0.1\nSocketConnectPort={port}\nReconnectInterval=1\n"
            + "HeartBtInt=1\nStartTime=00:00:00\nEndTime=00:00:00\nUseDataDictionary=N\nReceiveMode=Completion\nBeginString=FIX.4.4\nTargetCompID=GW\n");
        for (int i = 1; i <= Sessions; i++) initiator.Append($"[SESSION]\nSenderCompID=C{i:D3}\n");
        using (var clients = new FixEngineHost(SettingsFile.Parse(initiator.ToString(), "<initiators>"), clientApp))
        {
            clients.Start();
            Assert.True(WaitFor(() => gatewayApp.Logons.Count == Sessions && clientApp.Logons.Count == Sessions),
                $"{gatewayApp.Logons.Count} of {Sessions} logged on");

            // Orders handed over from this thread on every session: each is answered.
            FixSession[] sessions = [.. clients.Sessions];
            foreach (FixSession s in sessions) SendOrder(s, 1);
            Assert.True(WaitFor(() => sessions.All(s => clientApp.FillsOf(s.Id) == 1)), "not every order was answered");

            // Heartbeats (HeartBtInt=1) keep flowing from the timers both sides sweep: sequence numbers move on.
            int[] before = [.. gateway.Sessions.Select(s => s.Store.NextSenderMsgSeqNum)];
            Assert.True(WaitFor(() => gateway.Sessions.Select((s, i) => s.Store.NextSenderMsgSeqNum > before[i] + 1).All(b => b)),
                "some gateway sessions sent no heartbeat");
            Assert.Empty(gatewayApp.Logouts);
            clients.Stop(TimeSpan.FromSeconds(10));
        }
        // Every gateway session notices its counterparty's Logout and disconnect.
        Assert.True(WaitFor(() => gateway.Sessions.All(s => !s.IsConnected)), "some gateway sessions still connected");
        gateway.Stop(TimeSpan.FromSeconds(5));
    }
}
