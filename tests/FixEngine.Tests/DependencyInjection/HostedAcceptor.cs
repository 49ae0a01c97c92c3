using System;
using System.Collections.Generic;
using System.Globalization;
using FixEngine.Config;
using FixEngine.DependencyInjection;
using FixEngine.Engine;
using FixEngine.Tests.Engine;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;

namespace FixEngine.Tests.DependencyInjection;

/// <summary>The hosting tests' set-up: an EXEC acceptor (FillerApp) configured through IConfiguration in a generic host,
/// and a CLIENT initiator engine that logs on to it.</summary>
internal static class HostedAcceptor
{
    /// <summary>The "FixEngine" section of one FIX.4.4 acceptor session EXEC->CLIENT on <paramref name="port"/> (0: the
    /// system picks one).</summary>
    public static Dictionary<string, string?> Config(int port = 0) => new()
    {
        ["FixEngine:Default:ConnectionType"] = "acceptor",
        ["FixEngine:Default:SocketAcceptPort"] = port.ToString(CultureInfo.InvariantCulture),
        ["FixEngine:Default:StartTime"] = "00:00:00",
        ["FixEngine:Default:EndTime"] = "00:00:00",
        ["FixEngine:Default:HeartBtInt"] = "30",
        ["FixEngine:Default:UseDataDictionary"] = "N",
        ["FixEngine:Default:IdleStrategy"] = "Backoff",
        ["FixEngine:Sessions:0:BeginString"] = "FIX.4.4",
        ["FixEngine:Sessions:0:SenderCompID"] = "EXEC",
        ["FixEngine:Sessions:0:TargetCompID"] = "CLIENT",
    };

    /// <summary>A host (no defaults) with <paramref name="config"/> and <c>AddFixEngine&lt;FillerApp&gt;</c> on its
    /// "FixEngine" section; <paramref name="configure"/> adds services (before AddFixEngine), logging, health checks.</summary>
    public static IHost Build(Dictionary<string, string?> config, Action<HostApplicationBuilder>? configure = null)
    {
        HostApplicationBuilder builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        builder.Configuration.AddInMemoryCollection(config);
        configure?.Invoke(builder);
        builder.Services.AddFixEngine<FillerApp>(builder.Configuration.GetSection("FixEngine"));
        return builder.Build();
    }

    /// <summary>Starts a CLIENT initiator on the hosted acceptor's port and waits until it is logged on.</summary>
    public static (FixEngineHost Initiator, ClientApp Client) LogOnTo(IHost host)
    {
        int port = EngineTestSupport.PortOf(host.Services.GetRequiredService<FixEngineHost>());
        Assert.NotEqual(0, port);
        (_, IReadOnlyList<SessionSettings> settings) = EngineTestSupport.ExecClientPair(
            "[DEFAULT]\nHeartBtInt=30\nStartTime=00:00:00\nEndTime=00:00:00\nUseDataDictionary=N\nIdleStrategy=Backoff", 0);
        var client = new ClientApp();
        var initiator = new FixEngineHost(EngineTestSupport.WithConnectPort(settings, port), client);
        try
        {
            initiator.Start();
            Assert.True(client.LoggedOn.Wait(EngineTestSupport.Wait), "the initiator logged on to the hosted acceptor");
        }
        catch
        {
            initiator.Dispose();
            throw;
        }
        return (initiator, client);
    }
}
