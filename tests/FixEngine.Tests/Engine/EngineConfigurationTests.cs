using System;
using System.Collections.Generic;
using System.IO;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Session;
using FixEngine.Transport;

namespace FixEngine.Tests.Engine;

/// <summary>Engine-wide keys (one agent thread) and per-port keys (one listening socket) must agree across sessions.</summary>
public sealed class EngineConfigurationTests
{
    private sealed class NoApp : IApplication
    {
        public FromAppResult FromApp(FixSession session, FixEngine.Codec.FixMessage message) => FromAppResult.Accepted;
    }

    private static SessionSettings Acceptor(string target, int port) => new()
    {
        ConnectionType = ConnectionType.Acceptor, BeginString = "FIX.4.4", SenderCompID = "EXEC", TargetCompID = target,
        SocketAcceptPort = port, NonStopSession = true, UseDataDictionary = false,
    };

    private static SessionSettings Initiator(string target) => new()
    {
        ConnectionType = ConnectionType.Initiator, BeginString = "FIX.4.4", SenderCompID = "CLIENT", TargetCompID = target,
        SocketConnectHost = "127.0.0.1", SocketConnectPort = 9, HeartBtInt = 30, NonStopSession = true, UseDataDictionary = false,
    };

    private static ConfigException Rejected(IReadOnlyList<SessionSettings> settings, EngineOptions? options = null) =>
        Assert.Throws<ConfigException>(() => new FixEngineHost(settings, new NoApp(), options ?? new EngineOptions()).Dispose());

    [Fact]
    public void SessionsThatDisagreeOnTheIdleStrategyAreRejectedNamingKeyAndSessions()
    {
        ConfigException e = Rejected([Acceptor("A", 7001), Initiator("B") with { IdleStrategy = IdleStrategyKind.Yielding }]);
        Assert.Equal("IdleStrategy", e.Key);
        Assert.Contains("FIX.4.4:CLIENT->B has Yielding", e.Message);
        Assert.Contains("FIX.4.4:EXEC->A has Backoff", e.Message);
        Assert.Contains("[DEFAULT]", e.Message);
    }

    [Fact]
    public void SessionsThatDisagreeOnCpuAffinityAreRejectedNamingKeyAndSessions()
    {
        ConfigException e = Rejected([Acceptor("A", 7001) with { CpuAffinity = [1] }, Acceptor("B", 7002) with { CpuAffinity = [0, 1] }]);
        Assert.Equal("CpuAffinity", e.Key);
        Assert.Contains("FIX.4.4:EXEC->B has 0,1 but session FIX.4.4:EXEC->A has 1", e.Message);
    }

    [Fact]
    public void EngineOptionsSetTheEngineWideValuesWhateverTheSessionsSay()
    {
        var settings = new List<SessionSettings> { Acceptor("A", 7001), Initiator("B") with { IdleStrategy = IdleStrategyKind.Yielding, CpuAffinity = [3] } };
        using var host = new FixEngineHost(settings, new NoApp(), new EngineOptions { IdleStrategy = IdleStrategyKind.BusySpin, CpuAffinity = [] });
        Assert.Equal(IdleStrategyKind.BusySpin, host.IdleStrategy);
        Assert.Empty(host.CpuAffinity);
    }

    [Fact]
    public void EngineWideKeysSetOnceInDefaultApplyToEverySession()
    {
        IReadOnlyList<SessionSettings> settings = SettingsFile.Parse("""
            [DEFAULT]
            IdleStrategy=Yielding
            CpuAffinity=0
            NonStopSession=Y
            BeginString=FIX.4.4
            SenderCompID=EXEC
            ConnectionType=acceptor
            SocketAcceptPort=7001
            UseDataDictionary=N
            [SESSION]
            TargetCompID=A
            [SESSION]
            TargetCompID=B
            """);
        using var host = new FixEngineHost(settings, new NoApp());
        Assert.Equal(IdleStrategyKind.Yielding, host.IdleStrategy);
        Assert.Equal(new[] { 0 }, host.CpuAffinity);
    }

    [Fact]
    public void SessionsOnOnePortThatDisagreeOnTheReceiveModeAreRejected()
    {
        ConfigException e = Rejected([Acceptor("A", 7001), Acceptor("B", 7002) with { ReceiveMode = ReceiveMode.BusyPoll }, Acceptor("C", 7001) with { ReceiveMode = ReceiveMode.BusyPoll }]);
        Assert.Equal("ReceiveMode", e.Key);
        Assert.Contains("FIX.4.4:EXEC->C has BusyPoll but session FIX.4.4:EXEC->A has Dedicated", e.Message);
        Assert.Contains("SocketAcceptPort 7001", e.Message);
        // Different ports may differ.
        using var host = new FixEngineHost([Acceptor("A", 7001), Acceptor("B", 7002) with { ReceiveMode = ReceiveMode.BusyPoll }], new NoApp());
    }

    [Fact]
    public void SessionsOnOnePortThatDisagreeOnSslAreRejected()
    {
        ConfigException e = Rejected([Acceptor("A", 7001), Acceptor("B", 7001) with { SocketUseSSL = true, SSLCertificate = "server.pfx" }]);
        Assert.Equal("SocketUseSSL", e.Key);
        Assert.Contains("FIX.4.4:EXEC->B has Y but session FIX.4.4:EXEC->A has N", e.Message);
        e = Rejected([Acceptor("A", 7001) with { SocketUseSSL = true, SSLCertificate = "a.pfx" }, Acceptor("B", 7001) with { SocketUseSSL = true, SSLCertificate = "b.pfx" }]);
        Assert.Equal("SSLCertificate", e.Key);
    }

    [Fact]
    public void BusyPollWithSslIsRejected()
    {
        ConfigException e = Assert.Throws<ConfigException>(() => (Initiator("B") with { SocketUseSSL = true, ReceiveMode = ReceiveMode.BusyPoll }).Validate());
        Assert.Equal("ReceiveMode", e.Key);
        Assert.Contains("SocketUseSSL", e.Reason);
    }

    [Fact]
    public void AnUnloadableCertificateIsAConfigErrorNamingKeyAndSession()
    {
        string missing = Path.Combine(Path.GetTempPath(), "fixengine-no-such-" + Guid.NewGuid().ToString("N") + ".pfx");
        ConfigException e = Rejected([Acceptor("A", 7001) with { SocketUseSSL = true, SSLCertificate = missing }]);
        Assert.Equal("SSLCertificate", e.Key);
        Assert.Contains("FIX.4.4:EXEC->A", e.Message);
        Assert.Contains(missing, e.Message);
        e = Rejected([Initiator("B") with { SocketUseSSL = true, SSLCACertificate = missing }]);
        Assert.Equal("SSLCACertificate", e.Key);
        Assert.Contains("FIX.4.4:CLIENT->B", e.Message);
    }
}
