using System;
using FixEngine.Config;

namespace FixEngine.Tests.Config;

public sealed class SettingsErrorTests
{
    private const string Acceptor = """
        [DEFAULT]
        ConnectionType=acceptor
        SocketAcceptPort=5001
        StartTime=00:00:00
        EndTime=00:00:00
        SenderCompID=ISLD
        [SESSION]
        BeginString=FIX.4.2
        TargetCompID=TW
        """;

    private static ConfigException Fails(string text)
        => Assert.Throws<ConfigException>(() => SettingsFile.Parse(text, "venue.cfg"));

    private static void AssertError(ConfigException e, int line, string key, string reason)
    {
        Assert.Equal("venue.cfg", e.FileName);
        Assert.Equal(line, e.LineNumber);
        Assert.Equal(key, e.Key);
        Assert.Equal(reason, e.Reason);
        Assert.Equal($"venue.cfg({line}): {key}: {reason}", e.Message);
    }

    [Fact]
    public void BaselineIsValid() => Assert.Single(SettingsFile.Parse(Acceptor));

    [Fact]
    public void UnknownKeySuggestsTheClosestKnownKey()
    {
        AssertError(Fails(Acceptor + "\nHeartbeatInt=30"), 10, "HeartbeatInt", "unknown key (did you mean HeartBtInt?)");
        AssertError(Fails(Acceptor + "\nSocketAcceptPrt=5002"), 10, "SocketAcceptPrt", "unknown key (did you mean SocketAcceptPort?)");
        AssertError(Fails(Acceptor + "\nservercertificatefil=a.pem"), 10, "servercertificatefil", "unknown key (did you mean ServerCertificateFile?)");
        AssertError(Fails(Acceptor + "\nScreenLogShowIncomming=Y"), 10, "ScreenLogShowIncomming", "unknown key (did you mean ScreenLogShowIncoming?)");
        AssertError(Fails(Acceptor + "\nQwerty=1"), 10, "Qwerty", "unknown key");
    }

    [Theory]
    [InlineData("ResetOnLogon=yes", "ResetOnLogon", "'yes' is not Y or N")]
    [InlineData("HeartBtInt=3O", "HeartBtInt", "'3O' is not an integer")]
    [InlineData("StartDay=Funday", "StartDay", "'Funday' is not a day name (Monday, Mon or Mo ...)")]
    [InlineData("ReceiveMode=Polling", "ReceiveMode", "'Polling' is not one of Completion, BusyPoll, Dedicated")]
    [InlineData("IdleStrategy=Sleep", "IdleStrategy", "'Sleep' is not one of BusySpin, Yielding, Backoff, Blocking")]
    [InlineData("CpuAffinity=2-x", "CpuAffinity", "'2-x' is not a CPU list like 2, 2,3 or 2-3")]
    [InlineData("CpuAffinity=3-2", "CpuAffinity", "'3-2': range 3-2 is reversed")]
    [InlineData("SSLProtocols=Tls14", "SSLProtocols", "'Tls14' is not Tls12, Tls13, None or Default")]
    [InlineData("SSLProtocols=Ssl3", "SSLProtocols", "'Ssl3' enables only TLS 1.0/1.1 or SSL, which are not offered (use Tls12 or Tls13)")]
    [InlineData("SSLProtocol=TLSv1_1", "SSLProtocol", "'TLSv1_1' leaves no protocol this platform offers (TLSv1_2, TLSv1_3)")]
    [InlineData("SSLProtocol=all -TLSv1_2 -TLSv1_3", "SSLProtocol", "'all -TLSv1_2 -TLSv1_3' leaves no protocol this platform offers (TLSv1_2, TLSv1_3)")]
    [InlineData("SSLProtocol=TLSv2", "SSLProtocol", "'TLSv2' is not all, SSLv2, SSLv3, TLSv1, TLSv1_1, TLSv1_2 or TLSv1_3")]
    [InlineData("StartDay=M", "StartDay", "'M' is not a day name (Monday, Mon or Mo ...)")]
    [InlineData("StartDay=Mondays", "StartDay", "'Mondays' is not a day name (Monday, Mon or Mo ...)")]
    [InlineData("Weekdays=Mon,Xyz", "Weekdays", "'Xyz' is not a day name (Monday, Mon or Mo ...)")]
    [InlineData("TimestampPrecision=Minutes", "TimestampPrecision", "'Minutes' is not 0-9, Seconds, Milliseconds, Microseconds or Nanoseconds")]
    [InlineData("TimestampPrecision=12", "TimestampPrecision", "'12' is not 0-9, Seconds, Milliseconds, Microseconds or Nanoseconds")]
    [InlineData("StartTime=08:00:00.", "StartTime", "'08:00:00.' is not a time HH:MM:SS[.fff]")]
    [InlineData("EndTime=08:00:00.1234567890", "EndTime", "'08:00:00.1234567890' is not a time HH:MM:SS[.fff]")]
    [InlineData("EndTime=08:00:00.12a", "EndTime", "'08:00:00.12a' is not a time HH:MM:SS[.fff]")]
    [InlineData("FileStoreSync=Maybe", "FileStoreSync", "'Maybe' is not one of PerMessage, Batched, OS")]
    [InlineData("SocketSendTimeout=soon", "SocketSendTimeout", "'soon' is not an integer")]
    [InlineData("ScreenLogShowIncoming=yes", "ScreenLogShowIncoming", "'yes' is not Y or N")]
    [InlineData("CertificateVerifyLevel=5", "CertificateVerifyLevel", "'5' is not 0 (none), 1 (required), 2 (optional) or 3 (not set)")]
    [InlineData("SocketConnectHost=bad host!", "SocketConnectHost", "'bad host!' is not an IP address or a host name")]
    [InlineData("SocketAcceptHost=my host", "SocketAcceptHost", "'my host' is not an IP address or a host name")]
    [InlineData("FileStorePath=", "FileStorePath", "empty value")]
    [InlineData("SocketLocalHost=gateway", "SocketLocalHost", "'gateway' is not an IP address (the address of this machine the initiator connects from)")]
    public void BadValueNamesLineAndKey(string line, string key, string reason)
        => AssertError(Fails(Acceptor + "\n" + line), 10, key, reason);

    [Fact]
    public void BadTimeInDefaults()
        => AssertError(Fails(Acceptor.Replace("StartTime=00:00:00", "StartTime=8:00")), 4, "StartTime", "'8:00' is not a time HH:MM:SS[.fff]");

    [Fact]
    public void BadConnectionType()
        => AssertError(Fails(Acceptor.Replace("=acceptor", "=server")), 2, "ConnectionType", "'server' is not acceptor or initiator");

    [Theory]
    [InlineData("SocketAcceptPort=5001", "SocketAcceptPort=-1", 3, "SocketAcceptPort", "-1 is not a port (1..65535, or 0 for one the system picks)")]
    [InlineData("SocketAcceptPort=5001", "SocketAcceptPort=65536", 3, "SocketAcceptPort", "65536 is not a port (1..65535, or 0 for one the system picks)")]
    [InlineData("BeginString=FIX.4.2", "BeginString=FIX.4.9", 8, "BeginString", "'FIX.4.9' is not FIX.4.0 .. FIX.4.4 or FIXT.1.1")]
    public void OutOfRangeValueNamesItsLine(string from, string to, int line, string key, string reason)
        => AssertError(Fails(Acceptor.Replace(from, to)), line, key, reason);

    [Theory]
    [InlineData("BeginString=FIX.4.2\n", "BeginString", "missing")]
    [InlineData("TargetCompID=TW", "TargetCompID", "missing")]
    [InlineData("SenderCompID=ISLD\n", "SenderCompID", "missing")]
    [InlineData("SocketAcceptPort=5001\n", "SocketAcceptPort", "missing (required for acceptors)")]
    [InlineData("ConnectionType=acceptor\n", "ConnectionType", "missing (acceptor or initiator)")]
    [InlineData("StartTime=00:00:00\n", "StartTime", "missing (required unless NonStopSession=Y)")]
    public void MissingKeyNamesTheSectionLine(string removed, string key, string reason)
        => AssertError(Fails(Acceptor.Replace(removed, removed.EndsWith('\n') ? "# removed\n" : "# removed")), 7, key, reason);

    [Fact]
    public void InitiatorRequiresConnectHostPortAndHeartBtInt()
    {
        const string Initiator = """
            [SESSION]
            ConnectionType=initiator
            BeginString=FIX.4.4
            SenderCompID=A
            TargetCompID=B
            NonStopSession=Y
            """;
        AssertError(Fails(Initiator), 1, "SocketConnectHost", "missing (required for initiators)");
        AssertError(Fails(Initiator + "\nSocketConnectHost=h"), 1, "SocketConnectPort", "missing (required for initiators)");
        AssertError(Fails(Initiator + "\nSocketConnectHost=h\nSocketConnectPort=1"), 1, "HeartBtInt", "missing (required for initiators)");
        AssertError(Fails(Initiator + "\nSocketConnectHost=h\nSocketConnectPort=1\nHeartBtInt=0"), 9, "HeartBtInt", "0 must be at least 1");
        Assert.Single(SettingsFile.Parse(Initiator + "\nSocketConnectHost=h\nSocketConnectPort=1\nHeartBtInt=30"));
        AssertError(Fails(Initiator + "\nSocketConnectHost=h\nSocketConnectPort=1\nHeartBtInt=30\nSocketConnectHost1=f\nSocketConnectPort1=99999"),
            11, "SocketConnectPort1", "99999 is not a port (1..65535)");
        AssertError(Fails(Initiator + "\nSocketConnectHost=h\nSocketConnectPort=1\nHeartBtInt=30\nSocketConnectHost1=f"),
            1, "SocketConnectPort1", "missing (SocketConnectHost1 is set)");
        AssertError(Fails(Initiator + "\nSocketConnectHost=h\nSocketConnectPort=1\nHeartBtInt=30\nSocketConnectHost2=f\nSocketConnectPort2=5"),
            10, "SocketConnectHost2", "failover 2 follows failover 0: numbers must be 1, 2, 3 ...");
    }

    [Fact]
    public void FixtRequiresDefaultApplVerId()
        => AssertError(Fails(Acceptor.Replace("FIX.4.2", "FIXT.1.1")), 7, "DefaultApplVerID", "missing (required with FIXT.1.1)");

    [Fact]
    public void WeeklyNeedsBothDays()
        => AssertError(Fails(Acceptor + "\nStartDay=Mon"), 7, "EndDay", "missing (StartDay is set)");

    [Fact]
    public void UnknownTimeZone()
        => AssertError(Fails(Acceptor + "\nTimeZone=Mars/Olympus"), 10, "TimeZone", "unknown time zone 'Mars/Olympus'");

    [Fact]
    public void DuplicateSession()
        => AssertError(Fails(Acceptor + "\n[SESSION]\nBeginString=FIX.4.2\nTargetCompID=TW"), 10, "[SESSION]",
            "duplicate session FIX.4.2:ISLD->TW (first defined on line 7)");

    [Fact]
    public void SameCompIdsWithQualifierAreDistinct()
        => Assert.Equal(2, SettingsFile.Parse(Acceptor + "\n[SESSION]\nBeginString=FIX.4.2\nTargetCompID=TW\nSessionQualifier=2").Count);

    [Fact]
    public void DuplicateKeyInOneSection()
        => AssertError(Fails(Acceptor + "\nTargetCompID=TX"), 10, "TargetCompID", "duplicate key (first set on line 9)");

    [Fact]
    public void SyntaxErrors()
    {
        AssertError(Fails("[SESSIONS]\n"), 1, "[SESSIONS]", "unknown section (expected [DEFAULT] or [SESSION])");
        AssertError(Fails("[DEFAULT\n"), 1, "[DEFAULT", "section header must end with ']'");
        AssertError(Fails("BeginString=FIX.4.2\n"), 1, "BeginString", "key outside of a [DEFAULT] or [SESSION] section");
        AssertError(Fails("[DEFAULT]\nJustAWord\n"), 2, "JustAWord", "expected Key=Value");
    }

    [Fact]
    public void SslAcceptorNeedsCertificate()
        => AssertError(Fails(Acceptor + "\nSocketUseSSL=Y"), 7, "SSLCertificate", "missing (required for SSL acceptors)");

    [Fact]
    public void CodeApiValidatesWithPropertyNames()
    {
        var s = new SessionSettings
        {
            ConnectionType = ConnectionType.Acceptor,
            BeginString = "FIX.4.4",
            SenderCompID = "A",
            TargetCompID = "B",
            SocketAcceptPort = 70000,
            NonStopSession = true,
        };
        ConfigException e = Assert.Throws<ConfigException>(s.Validate);
        Assert.Null(e.FileName);
        Assert.Equal(nameof(SessionSettings.SocketAcceptPort), e.Key);
        Assert.Equal("SocketAcceptPort: 70000 is not a port (1..65535, or 0 for one the system picks)", e.Message);
        (s with { SocketAcceptPort = 7000 }).Validate();
        Assert.Equal("MaxLatency", Assert.Throws<ConfigException>((s with { SocketAcceptPort = 7000, MaxLatency = 0 }).Validate).Key);
        Assert.Equal("TimestampPrecision", Assert.Throws<ConfigException>((s with { SocketAcceptPort = 7000, TimestampPrecision = 4 }).Validate).Key);
        Assert.Equal("SenderCompID", Assert.Throws<ConfigException>((s with { SenderCompID = null }).Validate).Key);
    }
}
