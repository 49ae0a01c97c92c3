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
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;

namespace FixEngine.Tests.DependencyInjection;

public sealed class HostedEngineTests
{
    private static Dictionary<string, string?> AcceptorConfig(int port) => new()
    {
        ["FixEngine:Default:ConnectionType"] = "acceptor",
        ["FixEngine:Default:SocketAcceptPort"] = port.ToString(System.Globalization.CultureInfo.InvariantCulture),
        ["FixEngine:Default:StartTime"] = "00:00:00",
        ["FixEngine:Default:EndTime"] = "00:00:00",
        ["FixEngine:Default:HeartBtInt"] = "30",
        ["FixEngine:Default:UseDataDictionary"] = "N",
        ["FixEngine:Default:IdleStrategy"] = "Backoff",
        ["FixEngine:Sessions:0:BeginString"] = "FIX.4.4",
        ["FixEngine:Sessions:0:SenderCompID"] = "EXEC",
        ["FixEngine:Sessions:0:TargetCompID"] = "CLIENT",
    };

    [Fact]
    public async Task TheHostStartsTheEngineLogsOnAndLogsOutAtShutdown()
    {
        int port = 0;
        var logs = new ListLoggerProvider();
        HostApplicationBuilder builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        builder.Configuration.AddInMemoryCollection(AcceptorConfig(port));
        builder.Logging.AddProvider(logs);
        builder.Services.AddFixEngine<FillerApp>(builder.Configuration.GetSection("FixEngine"));
        using IHost host = builder.Build();
        await host.StartAsync();

        FixEngineHost acceptor = host.Services.GetRequiredService<FixEngineHost>();
        port = EngineTestSupport.PortOf(acceptor);
        Assert.NotEqual(0, port);
        var filler = (FillerApp)host.Services.GetRequiredService<IApplication>();

        (_, IReadOnlyList<SessionSettings> initiatorSettings) = EngineTestSupport.ExecClientPair("[DEFAULT]\nHeartBtInt=30\nStartTime=00:00:00\nEndTime=00:00:00\nUseDataDictionary=N\nIdleStrategy=Backoff", port);
        var client = new ClientApp();
        using var initiator = new FixEngineHost(initiatorSettings, client);
        initiator.Start();
        Assert.True(client.LoggedOn.Wait(EngineTestSupport.Wait), "the initiator logged on to the hosted acceptor");
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

    private static IHost Build(Dictionary<string, string?> config, Action<IServiceCollection>? register = null)
    {
        HostApplicationBuilder builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        builder.Configuration.AddInMemoryCollection(config);
        register?.Invoke(builder.Services);
        builder.Services.AddFixEngine<FillerApp>(builder.Configuration.GetSection("FixEngine"));
        return builder.Build();
    }

    [Fact]
    public void AStoreFactoryRegisteredInTheContainerMakesTheHostedSessionsStores()
    {
        var factory = new CountingStoreFactory();
        using IHost host = Build(AcceptorConfig(0), s => s.AddSingleton<IMessageStoreFactory>(factory));
        FixEngineHost engine = host.Services.GetRequiredService<FixEngineHost>();
        Assert.Equal(1, factory.Created);
        Assert.IsType<MemoryMessageStore>(engine.Sessions[0].Store);
    }

    [Fact]
    public void ThePostgresKeysNeedThePackagesFactoryInTheContainerAndItsErrorsNameThePathAndKey()
    {
        Dictionary<string, string?> config = AcceptorConfig(0);
        config["FixEngine:Sessions:0:PostgreSQLStoreConnectionString"] = "Host=127.0.0.1;Port=1;Timeout=1";
        // No factory registered: the engine refuses the session before opening anything, naming the package.
        using (IHost host = Build(config))
        {
            var e = Assert.Throws<ConfigException>(() => host.Services.GetRequiredService<FixEngineHost>());
            Assert.Equal("FixEngine:Sessions:0", e.FileName);
            Assert.Equal("PostgreSQLStoreConnectionString", e.Key);
            Assert.Contains("reference FixEngine.PostgreSQL", e.Message);
        }
        // The package's factory registered: the hosted engine uses it, and it checks its keys before connecting.
        config["FixEngine:Sessions:0:PostgreSQLStoreSync"] = "Sometimes";
        using (IHost host = Build(config, s => s.AddSingleton<IMessageStoreFactory>(PostgresMessageStoreFactory.Instance)))
        {
            var e = Assert.Throws<ConfigException>(() => host.Services.GetRequiredService<FixEngineHost>());
            Assert.Equal("FixEngine:Sessions:0: PostgreSQLStoreSync: 'Sometimes' is not one of PerMessage, GroupCommit, LocalJournalFirst", e.Message);
        }
    }

    [Fact]
    public void AConfigurationErrorNamesTheConfigurationPathAndKey()
    {
        Dictionary<string, string?> values = AcceptorConfig(0);
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
        Dictionary<string, string?> values = AcceptorConfig(0);
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

    private sealed class ListLoggerProvider : ILoggerProvider
    {
        public readonly List<(string Category, LogLevel Level, string Text)> Lines = [];

        public ILogger CreateLogger(string categoryName) => new ListLogger(this, categoryName);

        public void Dispose()
        {
        }

        private sealed class ListLogger(ListLoggerProvider owner, string category) : ILogger
        {
            public IDisposable? BeginScope<TState>(TState state) where TState : notnull => null;

            public bool IsEnabled(LogLevel logLevel) => true;

            public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
            {
                lock (owner.Lines) owner.Lines.Add((category, logLevel, formatter(state, exception)));
            }
        }
    }
}
