using System;
using System.Collections.Generic;
using System.Globalization;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using FixEngine.Engine;
using FixEngine.Session;
using FixEngine.Store;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Diagnostics.HealthChecks;

namespace FixEngine.DependencyInjection;

/// <summary>Reports every session of a <see cref="FixEngineHost"/>: healthy when logged on inside its schedule (or
/// outside it and idle), degraded while it connects or reconnects inside its schedule or holds for its store, unhealthy
/// when its Logon was refused or its store failed (docs/operations.md, "Health checks").</summary>
/// <remarks>The result is the worst session's; its description names every session that is not healthy, with the
/// reason, and its data has one entry per SessionID ("Healthy: logged on", ...). Reads each session's recent state from
/// the calling thread (the values the session's thread publishes; no lock, nothing on the message path). Thread-safe.</remarks>
public sealed class FixEngineHealthCheck : IHealthCheck
{
    private readonly FixEngineHost _host;
    private readonly TimeProvider _time;

    /// <summary>Creates the check.</summary>
    /// <param name="host">The engine whose sessions are reported.</param>
    /// <param name="time">The clock the schedules are read with; the system's when null.</param>
    public FixEngineHealthCheck(FixEngineHost host, TimeProvider? time = null)
    {
        ArgumentNullException.ThrowIfNull(host);
        _host = host;
        _time = time ?? TimeProvider.System;
    }

    /// <inheritdoc/>
    public Task<HealthCheckResult> CheckHealthAsync(HealthCheckContext context, CancellationToken cancellationToken = default)
    {
        long nowNs = (_time.GetUtcNow() - DateTimeOffset.UnixEpoch).Ticks * 100;
        HealthStatus worst = HealthStatus.Healthy;
        var data = new Dictionary<string, object>(StringComparer.Ordinal);
        var description = new StringBuilder();
        IReadOnlyList<FixSession> sessions = _host.Sessions;
        foreach (FixSession session in sessions)
        {
            (HealthStatus status, string reason) = CheckSession(session, nowNs);
            string id = session.Id.ToString();
            data[id] = status.ToString() + ": " + reason;
            if (status == HealthStatus.Healthy) continue;
            if (status < worst) worst = status;
            if (description.Length > 0) description.Append("; ");
            description.Append(id).Append(' ').Append(status == HealthStatus.Degraded ? "degraded" : "unhealthy").Append(": ").Append(reason);
        }
        string text = description.Length > 0
            ? description.ToString()
            : string.Create(CultureInfo.InvariantCulture, $"{sessions.Count} session(s) healthy");
        HealthStatus failure = context?.Registration?.FailureStatus ?? HealthStatus.Unhealthy;
        // The registration's failure status stands for Unhealthy (as IHealthCheck implementations do).
        HealthStatus reported = worst == HealthStatus.Unhealthy ? failure : worst;
        return Task.FromResult(new HealthCheckResult(reported, text, null, data));
    }

    /// <summary>The health of one session at <paramref name="utcEpochNs"/>, with the reason (also for an admin console).</summary>
    /// <param name="session">The session (any thread: its recent state is read).</param>
    /// <param name="utcEpochNs">Now, UTC epoch nanoseconds (the schedule is read at this time).</param>
    /// <returns>The status and a one-line reason.</returns>
    public static (HealthStatus Status, string Reason) CheckSession(FixSession session, long utcEpochNs)
    {
        ArgumentNullException.ThrowIfNull(session);
        if (session.StoreFailure is MessageStoreException failed)
        {
            return failed.Ownership == MessageStoreOwnership.TakenOver
                ? (HealthStatus.Unhealthy, "taken over by another engine: " + failed.Message)
                : (HealthStatus.Unhealthy, "message store failed: " + failed.Message);
        }
        SessionState state = session.State;
        bool loggedOn = state is SessionState.LoggedOn or SessionState.LogoutSent;
        if (!loggedOn && session.LastLogonRefusal is string refusal)
        {
            return (HealthStatus.Unhealthy, "logon refused: " + refusal);
        }
        if (session.IsStoreHeld)
        {
            string why = session.StoreHoldReason?.Message ?? "the store cannot take writes";
            return (HealthStatus.Degraded, "holding for its message store: " + why);
        }
        bool inSchedule = session.Schedule.IsInSession(utcEpochNs);
        // Inside the session time but outside its logon window (LogonTime-LogoutTime): not logged on by design.
        bool inLogonWindow = inSchedule && session.IsLogonTime(utcEpochNs);
        if (loggedOn)
        {
            return (HealthStatus.Healthy, !inSchedule ? "logged on (outside its schedule: logging out)"
                : !inLogonWindow ? "logged on (outside its logon window: logging out)" : "logged on");
        }
        if (!inSchedule) return (HealthStatus.Healthy, "outside its schedule");
        if (!inLogonWindow) return (HealthStatus.Healthy, "outside its logon window (" + session.Settings.DescribeLogonWindow() + ")");
        return state switch
        {
            SessionState.AwaitingLogon => (HealthStatus.Degraded, "connected, waiting for the counterparty's Logon"),
            SessionState.LogonSent => (HealthStatus.Degraded, "Logon sent, waiting for the counterparty's answer"),
            _ => (HealthStatus.Degraded, session.IsInitiator
                ? "not logged on inside its schedule: connecting or reconnecting"
                : "not logged on inside its schedule: waiting for the counterparty to connect"),
        };
    }
}

/// <summary>Registers <see cref="FixEngineHealthCheck"/>.</summary>
public static class FixEngineHealthCheckBuilderExtensions
{
    /// <summary>The check's default name.</summary>
    public const string DefaultName = "fixengine";

    /// <summary>Adds the engine's health check (one result reporting every session; the engine registered by
    /// <c>AddFixEngine</c>, resolved when the check first runs).</summary>
    /// <param name="builder">The health checks builder (<c>services.AddHealthChecks()</c>).</param>
    /// <param name="name">The check's name.</param>
    /// <param name="failureStatus">What an unhealthy session is reported as (default <see cref="HealthStatus.Unhealthy"/>).</param>
    /// <param name="tags">Tags for filtering checks (e.g. <c>ready</c>), or null.</param>
    /// <returns><paramref name="builder"/>.</returns>
    public static IHealthChecksBuilder AddFixEngineHealthChecks(this IHealthChecksBuilder builder, string name = DefaultName,
        HealthStatus? failureStatus = null, IEnumerable<string>? tags = null)
    {
        ArgumentNullException.ThrowIfNull(builder);
        ArgumentException.ThrowIfNullOrEmpty(name);
        return builder.Add(new HealthCheckRegistration(name,
            sp => new FixEngineHealthCheck((FixEngineHost)(sp.GetService(typeof(FixEngineHost))
                ?? throw new InvalidOperationException("AddFixEngineHealthChecks: no FixEngineHost in the container; call services.AddFixEngine(...) first.")),
                (TimeProvider?)sp.GetService(typeof(TimeProvider))),
            failureStatus, tags));
    }
}
