using System;
using System.Collections.Generic;
using System.Threading.Tasks;
using FixEngine.Config;
using FixEngine.DependencyInjection;
using FixEngine.Engine;
using FixEngine.PostgreSQL;
using FixEngine.Session;
using FixEngine.Store;
using FixEngine.Tests.Engine;
using FixEngine.Tests.Session;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Diagnostics.HealthChecks;
using Microsoft.Extensions.Hosting;

namespace FixEngine.Tests.DependencyInjection;

/// <summary>The engine's health check, with real sessions driven into each state: logged on (healthy), not logged on
/// inside the schedule or holding for the store (degraded), Logon refused or store failed or taken over (unhealthy),
/// outside the schedule (healthy).</summary>
public sealed class FixEngineHealthCheckTests
{
    private sealed class RefusingApp : IApplication
    {
        public void FromAdmin(FixSession session, global::FixEngine.Codec.FixMessage message)
        {
            if (message.MsgType.SequenceEqual(global::FixEngine.Codec.MsgTypes.Logon)) throw new RejectLogonException("unknown counterparty password");
        }

        public FromAppResult FromApp(FixSession session, global::FixEngine.Codec.FixMessage message) => FromAppResult.Accepted;
    }

    [Fact]
    public void ALoggedOnSessionIsHealthyAndADisconnectedOneInsideItsScheduleIsDegraded()
    {
        using var h = new SessionHarness("FIX.4.4", s => s with { ResetOnLogon = false });
        (HealthStatus status, string reason) = FixEngineHealthCheck.CheckSession(h.Session, h.Now);
        Assert.Equal(HealthStatus.Degraded, status);
        Assert.Contains("waiting for the counterparty's Logon", reason, StringComparison.Ordinal);
        h.Logon();
        Assert.Equal((HealthStatus.Healthy, "logged on"), FixEngineHealthCheck.CheckSession(h.Session, h.Now));
        h.Session.Disconnect("test: the line dropped", h.Now);
        (status, reason) = FixEngineHealthCheck.CheckSession(h.Session, h.Now);
        Assert.Equal(HealthStatus.Degraded, status);
        Assert.Contains("waiting for the counterparty to connect", reason, StringComparison.Ordinal);
    }

    [Fact]
    public void OutsideItsScheduleAnIdleSessionIsHealthy()
    {
        // 08:00-17:00 UTC; the harness's clock reads 12:00 UTC: in session. 20:00 is outside.
        using var h = new SessionHarness("FIX.4.4", s => s with
        {
            NonStopSession = false,
            StartTime = new TimeOnly(8, 0),
            EndTime = new TimeOnly(17, 0),
        }, connect: false);
        Assert.Equal(HealthStatus.Degraded, FixEngineHealthCheck.CheckSession(h.Session, h.Now).Status);
        Assert.Equal((HealthStatus.Healthy, "outside its schedule"), FixEngineHealthCheck.CheckSession(h.Session, h.Now + 8 * 3600 * SessionHarness.Second));
    }

    [Fact]
    public void ARefusedLogonIsUnhealthyWithTheReasonUntilALogonCompletes()
    {
        using var h = new SessionHarness("FIX.4.4", s => s with { ResetOnLogon = false }, application: new RefusingApp());
        h.Receive("35=A|34=1|98=0|108=30");
        (HealthStatus status, string reason) = FixEngineHealthCheck.CheckSession(h.Session, h.Now);
        Assert.Equal(HealthStatus.Unhealthy, status);
        Assert.Equal("logon refused: unknown counterparty password", reason);
    }

    [Fact]
    public void ALogonRefusedForItsMsgSeqNumIsUnhealthy()
    {
        using var h = new SessionHarness("FIX.4.4", s => s with { ResetOnLogon = false });
        h.Store.SetNextTargetMsgSeqNum(10);
        h.Receive("35=A|34=3|98=0|108=30");
        (HealthStatus status, string reason) = FixEngineHealthCheck.CheckSession(h.Session, h.Now);
        Assert.Equal(HealthStatus.Unhealthy, status);
        Assert.Equal("logon refused: MsgSeqNum too low, expecting 10 but received 3", reason);
    }

    [Fact]
    public void HoldingForTheStoreIsDegradedAndAFailedOrTakenOverStoreIsUnhealthy()
    {
        var store = new SwitchableStore();
        using (var h = new SessionHarness("FIX.4.4", s => s with { ResetOnLogon = false, StoreFailurePolicy = StoreFailurePolicy.Hold }, store))
        {
            h.Logon();
            store.Failing = new PostgresStoreException(PostgresStoreFailure.Unavailable, "test: the database is away");
            h.Receive("35=0|34=2");
            Assert.True(h.Session.IsStoreHeld);
            (HealthStatus status, string reason) = FixEngineHealthCheck.CheckSession(h.Session, h.Now);
            Assert.Equal(HealthStatus.Degraded, status);
            Assert.Contains("holding for its message store: test: the database is away", reason, StringComparison.Ordinal);
        }

        var failing = new SwitchableStore();
        using (var h = new SessionHarness("FIX.4.4", s => s with { ResetOnLogon = false }, failing))
        {
            h.Logon();
            failing.Failing = new MessageStoreException("disk full", "/data/store.journal", MessageStoreOperation.Append);
            h.Receive("35=0|34=2");
            Assert.NotNull(h.Session.StoreFailure);
            Assert.Equal((HealthStatus.Unhealthy, "message store failed: disk full"), FixEngineHealthCheck.CheckSession(h.Session, h.Now));
        }

        var fenced = new SwitchableStore();
        using (var h = new SessionHarness("FIX.4.4", s => s with { ResetOnLogon = false }, fenced))
        {
            h.Logon();
            fenced.Failing = new PostgresStoreException(PostgresStoreFailure.Fenced, "test: fenced by epoch 7");
            h.Receive("35=0|34=2");
            (HealthStatus status, string reason) = FixEngineHealthCheck.CheckSession(h.Session, h.Now);
            Assert.Equal(HealthStatus.Unhealthy, status);
            Assert.StartsWith("taken over by another engine: ", reason, StringComparison.Ordinal);
        }
    }

    [Fact]
    public async Task TheRegisteredCheckReportsTheHostedEnginesSessions()
    {
        using IHost host = HostedAcceptor.Build(HostedAcceptor.Config(), b => b.Services.AddHealthChecks().AddFixEngineHealthChecks());
        await host.StartAsync();
        HealthCheckService checks = host.Services.GetRequiredService<HealthCheckService>();

        HealthReport before = await checks.CheckHealthAsync();
        HealthReportEntry entry = before.Entries[FixEngineHealthCheckBuilderExtensions.DefaultName];
        Assert.Equal(HealthStatus.Degraded, entry.Status);
        Assert.Contains("FIX.4.4:EXEC->CLIENT degraded: not logged on inside its schedule", entry.Description, StringComparison.Ordinal);

        (FixEngineHost initiator, _) = HostedAcceptor.LogOnTo(host);
        using (initiator)
        {
            HealthReport after = default!;
            Assert.True(EngineTestSupport.WaitFor(() =>
            {
                after = checks.CheckHealthAsync().GetAwaiter().GetResult();
                return after.Status == HealthStatus.Healthy;
            }), "the acceptor's session reported healthy once logged on");
            Assert.Equal("Healthy: logged on", after.Entries[FixEngineHealthCheckBuilderExtensions.DefaultName].Data["FIX.4.4:EXEC->CLIENT"]);
            initiator.Stop(TimeSpan.FromSeconds(1));
        }
        await host.StopAsync();
    }
}
