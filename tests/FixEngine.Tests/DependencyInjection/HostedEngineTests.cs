using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using FixEngine.Config;
using FixEngine.DependencyInjection;
using FixEngine.Engine;
using FixEngine.PostgreSQL;
using FixEngine.Session;
using FixEngine.Store;
using FixEngine.Tests.Engine;
using FixEngine.Tests.Infrastructure;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;

namespace FixEngine.Tests.DependencyInjection;

public sealed class HostedEngineTests
{
    [Fact]
    public async Task TheHostStartsTheEngineLogsOnAndLogsOutAtShutdown()
    {
        var logs = new CapturingLoggerProvider();
        using IHost host = HostedAcceptor.Build(HostedAcceptor.Config(), b => b.Logging.AddProvider(logs));
        await host.StartAsync();
        var filler = (FillerApp)host.Services.GetRequiredService<IApplication>();

        (FixEngineHost started, ClientApp client) = HostedAcceptor.LogOnTo(host);
        using FixEngineHost initiator = started;
        EngineTestSupport.SendOrder(client.Session!, 0);
        Assert.True(EngineTestSupport.WaitFor(() => Interlocked.Read(ref client.Fills) == 1), "the hosted application filled the order");
        Assert.Equal(1, Interlocked.Read(ref filler.Orders));

        await host.StopAsync();
        // A graceful stop: the hosted acceptor sent a Logout, which the initiator received.
        Assert.True(EngineTestSupport.WaitFor(() => client.CountAdmin("5") >= 1), "the initiator received the acceptor's Logout");
        Assert.True(EngineTestSupport.WaitFor(() => Volatile.Read(ref filler.Logouts) == 1), "the hosted application saw its session log out");
        initiator.Stop(TimeSpan.FromSeconds(1));
        filler.AssertClean();

        Assert.Contains(logs.Lines, l => l.Category == FixEngineServiceCollectionExtensions.EngineLoggerCategory);
    }

    private sealed class CountingStoreFactory : IMessageStoreFactory
    {
        public int Created;

        public IMessageStore Create(SessionSettings settings, long epochNs)
        {
            Interlocked.Increment(ref Created);
            return MemoryMessageStoreFactory.Instance.Create(settings, epochNs);
        }
    }

    [Fact]
    public void AStoreFactoryRegisteredInTheContainerMakesTheHostedSessionsStores()
    {
        var factory = new CountingStoreFactory();
        using IHost host = HostedAcceptor.Build(HostedAcceptor.Config(), b => b.Services.AddSingleton<IMessageStoreFactory>(factory));
        FixEngineHost engine = host.Services.GetRequiredService<FixEngineHost>();
        Assert.Equal(1, factory.Created);
        Assert.IsType<MemoryMessageStore>(engine.Sessions[0].Store);
    }

    [Fact]
    public void ThePostgresKeysNeedThePackagesFactoryInTheContainerAndItsErrorsNameThePathAndKey()
    {
        Dictionary<string, string?> config = HostedAcceptor.Config();
        config["FixEngine:Sessions:0:PostgreSQLStoreConnectionString"] = "Host=127.0.0.1;Port=1;Timeout=1";
        // No factory registered: the engine refuses the session before opening anything, naming the package.
        using (IHost host = HostedAcceptor.Build(config))
        {
            var e = Assert.Throws<ConfigException>(() => host.Services.GetRequiredService<FixEngineHost>());
            Assert.Equal("FixEngine:Sessions:0", e.FileName);
            Assert.Equal("PostgreSQLStoreConnectionString", e.Key);
            Assert.Contains("reference FixEngine.PostgreSQL", e.Message);
        }
        // The package's factory registered: the hosted engine uses it, and it checks its keys before connecting.
        config["FixEngine:Sessions:0:PostgreSQLStoreSync"] = "Sometimes";
        using (IHost host = HostedAcceptor.Build(config, b => b.Services.AddSingleton<IMessageStoreFactory>(PostgresMessageStoreFactory.Instance)))
        {
            var e = Assert.Throws<ConfigException>(() => host.Services.GetRequiredService<FixEngineHost>());
            Assert.Equal("FixEngine:Sessions:0: PostgreSQLStoreSync: 'Sometimes' is not one of PerMessage, GroupCommit, LocalJournalFirst", e.Message);
        }
    }

    [Fact]
    public void AConfigurationErrorNamesTheConfigurationPathAndKey()
    {
        Dictionary<string, string?> values = HostedAcceptor.Config();
        values["FixEngine:Sessions:1:BeginString"] = "FIX.4.4";
        values["FixEngine:Sessions:1:SenderCompID"] = "EXEC";
        values["FixEngine:Sessions:1:TargetCompID"] = "OTHER";
        values["FixEngine:Sessions:1:HeartBtIntt"] = "30";
        IConfiguration config = new ConfigurationBuilder().AddInMemoryCollection(values).Build();
        var e = Assert.Throws<ConfigException>(() => ConfigurationSettings.Load(config.GetSection("FixEngine")));
        Assert.Equal("FixEngine:Sessions:1", e.FileName);
        Assert.Equal("HeartBtIntt", e.Key);
    }

    [Fact]
    public void SessionsInheritTheDefaultBlockAndOverrideIt()
    {
        Dictionary<string, string?> values = HostedAcceptor.Config();
        values["FixEngine:Sessions:1:BeginString"] = "FIX.4.2";
        values["FixEngine:Sessions:1:SenderCompID"] = "EXEC";
        values["FixEngine:Sessions:1:TargetCompID"] = "OTHER";
        values["FixEngine:Sessions:1:HeartBtInt"] = "5";
        IConfiguration config = new ConfigurationBuilder().AddInMemoryCollection(values).Build();
        IReadOnlyList<SessionSettings> sessions = ConfigurationSettings.Load(config.GetSection("FixEngine"));
        Assert.Equal(2, sessions.Count);
        Assert.Equal(30, sessions[0].HeartBtInt);
        Assert.Equal(5, sessions[1].HeartBtInt);
        Assert.All(sessions, s => Assert.Equal(ConnectionType.Acceptor, s.ConnectionType));
    }

    [Fact]
    public void ASectionWithoutSessionsIsAnError()
    {
        IConfiguration config = new ConfigurationBuilder().AddInMemoryCollection(new Dictionary<string, string?> { ["FixEngine:Default:ConnectionType"] = "acceptor" }).Build();
        var e = Assert.Throws<ConfigException>(() => ConfigurationSettings.Load(config.GetSection("FixEngine")));
        Assert.Equal("FixEngine:Sessions", e.FileName);
    }
}
