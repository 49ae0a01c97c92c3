using System;
using System.IO;
using System.Linq;
using FixEngine.Config;
using FixEngine.Transport;
using FixEngine.Tests.Infrastructure;

namespace FixEngine.Tests.Config;

public sealed class SettingsFileTests
{
    private static string RefCfg(string name) => Path.Combine(SharedPaths.FixAt, "reference-cfg", name);

    [SharedFact]
    public void ParsesTheQuickFixAcceptanceConfig()
    {
        string text = File.ReadAllText(RefCfg("quickfix-at.cfg")).Replace("$PORT", "5001");
        var sessions = SettingsFile.Parse(text, "quickfix-at.cfg");
        Assert.Equal(10, sessions.Count);
        Assert.All(sessions, s =>
        {
            Assert.Equal(ConnectionType.Acceptor, s.ConnectionType);
            Assert.Equal(5001, s.SocketAcceptPort);
            Assert.Equal("ISLD", s.SenderCompID);
            Assert.True(s.ResetOnLogon);
            Assert.True(s.SocketReuseAddress);
            Assert.Equal(new TimeOnly(0, 0, 0), s.StartTime);
            Assert.Equal(new TimeOnly(0, 0, 0), s.EndTime);
            Assert.Equal("store", s.FileStorePath);
            Assert.True(s.CreateSchedule().IsInSession(0));
        });
        SessionSettings fix42 = sessions.Single(s => s.TargetCompID == "TW42");
        Assert.Equal(new SessionId("FIX.4.2", "ISLD", "TW42"), fix42.SessionId);
        Assert.Equal("../spec/FIX42.xml", fix42.DataDictionary);
        SessionSettings sp2 = sessions.Single(s => s.TargetCompID == "TW50SP2");
        Assert.Equal("FIXT.1.1", sp2.BeginString);
        Assert.Equal("FIX.5.0SP2", sp2.DefaultApplVerID);
        Assert.Equal("../spec/FIXT11.xml", sp2.TransportDataDictionary);
        Assert.Equal("../spec/FIX50SP2.xml", sp2.AppDataDictionary);
        Assert.False(sessions.Single(s => s.TargetCompID == "NO_CHECK_FIELDS_HAVE_VALUES").ValidateFieldsHaveValues);
        Assert.True(fix42.ValidateFieldsHaveValues);
        // QuickFIX defaults the acceptance tests rely on.
        Assert.Equal(120, fix42.MaxLatency);
        Assert.True(fix42.CheckLatency);
        Assert.True(fix42.PersistMessages);
        Assert.Equal(3, fix42.EffectiveTimestampPrecision);
        Assert.True(fix42.ValidateUserDefinedFields);
        Assert.True(fix42.ValidateFieldsOutOfOrder);
    }

    [SharedTheory]
    [InlineData("quickfixn-at_42.cfg", "FIX.4.2", 5003)]
    [InlineData("quickfixn-at_44.cfg", "FIX.4.4", 0)]
    [InlineData("quickfixn-at_50_sp2.cfg", "FIXT.1.1", 5008)]
    public void ParsesTheQuickFixNAcceptanceConfigs(string file, string beginString, int port)
    {
        var sessions = SettingsFile.Load(RefCfg(file));
        SessionSettings s = Assert.Single(sessions);
        Assert.Equal(beginString, s.BeginString);
        Assert.Equal("TW", s.TargetCompID);
        Assert.Equal("log", s.FileLogPath);
        Assert.True(s.Verbose);
        if (port != 0) Assert.Equal(port, s.SocketAcceptPort);
        if (beginString == "FIXT.1.1") Assert.Equal(@"spec\fix\FIX50SP2.xml", s.AppDataDictionary);
    }

    [Fact]
    public void SessionsInheritAndOverrideDefaults()
    {
        var sessions = SettingsFile.Parse("""
            # comment
            [DEFAULT]
              ConnectionType = initiator
            SocketConnectHost=localhost   
            SocketConnectPort=9000
            HeartBtInt=30
            StartTime=08:00:00
            EndTime=17:00:00
            SenderCompID=ME

            [SESSION]
            BeginString=FIX.4.4
            TargetCompID=A
            [SESSION]
            BeginString=FIX.4.4
            TargetCompID=B
            HeartBtInt=5
            SocketConnectHost1=backup1
            SocketConnectPort1=9001
            SocketConnectHost2=backup2
            SocketConnectPort2=9002
            CpuAffinity=2-3,5
            ReceiveMode=BusyPoll
            IdleStrategy=busyspin
            FileStoreSync=PerMessage
            StartDay=Sun
            EndDay=friday
            TimeZone=America/New_York
            SSLProtocols=Tls12,Tls13
            """);
        Assert.Equal(2, sessions.Count);
        Assert.Equal(30, sessions[0].HeartBtInt);
        Assert.Equal(5, sessions[1].HeartBtInt);
        Assert.Equal("localhost", sessions[1].SocketConnectHost);
        Assert.Equal(new[] { new SocketEndpoint("localhost", 9000), new SocketEndpoint("backup1", 9001), new SocketEndpoint("backup2", 9002) },
            sessions[1].SocketConnectEndpoints.ToArray());
        Assert.Equal(new[] { 2, 3, 5 }, sessions[1].CpuAffinity.ToArray());
        Assert.Equal(ReceiveMode.BusyPoll, sessions[1].ReceiveMode);
        Assert.Equal(IdleStrategyKind.BusySpin, sessions[1].IdleStrategy);
        Assert.Equal(FixEngine.Store.FileStoreSyncPolicy.PerMessage, sessions[1].FileStoreSync);
        Assert.Equal(DayOfWeek.Sunday, sessions[1].StartDay);
        Assert.Equal(DayOfWeek.Friday, sessions[1].EndDay);
        Assert.Equal(System.Security.Authentication.SslProtocols.Tls12 | System.Security.Authentication.SslProtocols.Tls13, sessions[1].SSLProtocols);
        Assert.True(sessions[1].CreateSchedule().IsWeekly);
        Assert.Empty(sessions[0].CpuAffinity);
        Assert.Equal(ReceiveMode.Dedicated, sessions[0].ReceiveMode);
    }

    [Fact]
    public void LoadsFromTextReaderWithDisplayName()
    {
        using var reader = new StringReader("[SESSION]\nConnectionType=acceptor\n");
        ConfigException e = Assert.Throws<ConfigException>(() => SettingsFile.Load(reader, "embedded:default.cfg"));
        Assert.Equal("embedded:default.cfg", e.FileName);
        Assert.Equal(1, e.LineNumber);
        Assert.Equal("BeginString", e.Key);
    }

    [Fact]
    public void MissingFileIsAConfigException()
    {
        string path = Path.Combine(Path.GetTempPath(), "missing-" + Guid.NewGuid() + ".cfg");
        ConfigException e = Assert.Throws<ConfigException>(() => SettingsFile.Load(path));
        Assert.Equal(path, e.FileName);
    }

    [Fact]
    public void DefaultsRoundTripThroughText()
    {
        var original = new SessionSettings
        {
            ConnectionType = ConnectionType.Initiator,
            BeginString = "FIX.4.4",
            SenderCompID = "ME",
            TargetCompID = "YOU",
            HeartBtInt = 30,
            SocketConnectHost = "127.0.0.1",
            SocketConnectPort = 5001,
            StartTime = new TimeOnly(0, 0, 0),
            EndTime = new TimeOnly(0, 0, 0),
        };
        original.Validate();
        string text = SettingsFile.ToSettingsText(original);
        SessionSettings parsed = Assert.Single(SettingsFile.Parse(text, "roundtrip"));
        Assert.Equal(text, SettingsFile.ToSettingsText(parsed));
        Assert.Contains("ValidateFieldsOutOfOrder=Y\n", text);
        Assert.Contains("ReconnectInterval=30\n", text);
        Assert.Contains("LogonTimeout=10\n", text);
        Assert.Contains("LogoutTimeout=2\n", text);
        Assert.Contains("MaxLatency=120\n", text);
        // Without a dictionary the default UseDataDictionary=Y is left out: written, it would be refused on reading.
        Assert.DoesNotContain("UseDataDictionary", text);
        Assert.Contains(parsed.Warnings, w => w.Key == "DataDictionary");
        Assert.Contains("TimeZone=UTC\n", text);
        Assert.Equal(original with
        {
            SocketConnectFailovers = parsed.SocketConnectFailovers,
            CpuAffinity = parsed.CpuAffinity,
            Weekdays = parsed.Weekdays,
            Warnings = parsed.Warnings,
            Origin = parsed.Origin,
        }, parsed);
    }

    [Fact]
    public void EverySettingRoundTrips()
    {
        var original = new SessionSettings
        {
            ConnectionType = ConnectionType.Acceptor,
            BeginString = "FIXT.1.1",
            DefaultApplVerID = "FIX.5.0SP2",
            SenderCompID = "S",
            TargetCompID = "T",
            SenderSubID = "SS",
            SenderLocationID = "SL",
            TargetSubID = "TS",
            TargetLocationID = "TL",
            SessionQualifier = "Q",
            HeartBtInt = 15,
            SocketAcceptHost = "0.0.0.0",
            SocketAcceptPort = 7000,
            SocketConnectHost = "h",
            SocketConnectPort = 7001,
            SocketConnectFailovers = [new SocketEndpoint("f1", 7002)],
            StartTime = new TimeOnly(17, 0, 0),
            EndTime = new TimeOnly(16, 30, 5),
            TimeZone = "America/New_York",
            StartDay = DayOfWeek.Sunday,
            EndDay = DayOfWeek.Friday,
            TimestampPrecision = 6,
            CpuAffinity = [1, 2],
            SocketUseSSL = true,
            SSLCertificate = "c.pfx",
            SSLProtocols = System.Security.Authentication.SslProtocols.Tls13,
            MaxMessageSize = 4096,
            ResetOnLogon = true,
        };
        original.Validate();
        string text = SettingsFile.ToSettingsText(original);
        SessionSettings parsed = Assert.Single(SettingsFile.Parse(text));
        Assert.Equal(text, SettingsFile.ToSettingsText(parsed));
        Assert.Equal(new[] { 1, 2 }, parsed.CpuAffinity.ToArray());
        Assert.Equal(new SessionId("FIXT.1.1", "S", "T", "Q"), parsed.SessionId);
        Assert.Equal("FIXT.1.1:S->T:Q", parsed.SessionId.ToString());
    }
}
