using System;
using System.IO;
using System.Linq;
using System.Security.Authentication;
using System.Text;
using FixEngine.Config;
using FixEngine.Tests.Infrastructure;

namespace FixEngine.Tests.Config;

/// <summary>QuickFIX/n and QuickFIX C++ settings as their users write them: every key accepted (with its meaning, or
/// with a warning naming the key and why), every value spelling, and their settings files loaded unchanged.</summary>
public sealed class QuickFixSettingsTests
{
    private const string Acceptor = """
        [DEFAULT]
        ConnectionType=acceptor
        SocketAcceptPort=5001
        StartTime=00:00:00
        EndTime=00:00:00
        SenderCompID=ISLD
        UseDataDictionary=N
        [SESSION]
        BeginString=FIX.4.2
        TargetCompID=TW
        """;

    private static SessionSettings One(string text) => Assert.Single(SettingsFile.Parse(text, "venue.cfg"));

    private static ConfigException Fails(string text) => Assert.Throws<ConfigException>(() => SettingsFile.Parse(text, "venue.cfg"));

    private static string RefCfg(string name) => Path.Combine(SharedPaths.FixAt, "reference-cfg", name);

    [SharedFact]
    public void ReferenceConfigsLoadUnchangedWithoutWarnings()
    {
        var at = SettingsFile.Parse(File.ReadAllText(RefCfg("quickfix-at.cfg")).Replace("$PORT", "5001"), "quickfix-at.cfg");
        Assert.Equal(10, at.Count);
        Assert.Empty(SettingsFile.Warnings(at));
        Assert.All(at, s => Assert.Equal(3, s.Origin!.LineOf("SocketAcceptPort")));
        foreach (string name in new[] { "quickfixn-at_42.cfg", "quickfixn-at_44.cfg", "quickfixn-at_50_sp2.cfg" })
        {
            SessionSettings s = Assert.Single(SettingsFile.Load(RefCfg(name)));
            Assert.Empty(s.Warnings);
            // Verbose, SocketReuseAddress: parsed into properties (honoured by the engine, not dropped).
            Assert.True(s.Verbose);
            Assert.True(s.SocketReuseAddress);
            Assert.Equal(RefCfg(name), s.Origin!.FileName);
            Assert.Equal(2, s.Origin.LineOf("Verbose"));
        }
    }

    [Theory]
    [InlineData("Mo", DayOfWeek.Monday)]
    [InlineData("mon", DayOfWeek.Monday)]
    [InlineData("MONDA", DayOfWeek.Monday)]
    [InlineData("Monday", DayOfWeek.Monday)]
    [InlineData("tu", DayOfWeek.Tuesday)]
    [InlineData("Tues", DayOfWeek.Tuesday)]
    [InlineData("we", DayOfWeek.Wednesday)]
    [InlineData("th", DayOfWeek.Thursday)]
    [InlineData("Thur", DayOfWeek.Thursday)]
    [InlineData("fr", DayOfWeek.Friday)]
    [InlineData("sa", DayOfWeek.Saturday)]
    [InlineData("SU", DayOfWeek.Sunday)]
    public void DayNamesAndAbbreviations(string spelling, DayOfWeek day)
    {
        SessionSettings s = One(Acceptor + $"\nStartDay={spelling}\nEndDay={spelling}");
        Assert.Equal(day, s.StartDay);
        Assert.Equal(day, s.EndDay);
    }

    [Theory]
    [InlineData("0", 0, false)]
    [InlineData("1", 3, true)]
    [InlineData("2", 3, true)]
    [InlineData("3", 3, false)]
    [InlineData("4", 6, true)]
    [InlineData("6", 6, false)]
    [InlineData("7", 9, true)]
    [InlineData("9", 9, false)]
    [InlineData("Seconds", 0, false)]
    [InlineData("Second", 0, false)]
    [InlineData("Milliseconds", 3, false)]
    [InlineData("millisecond", 3, false)]
    [InlineData("Microseconds", 6, false)]
    [InlineData("Nanoseconds", 9, false)]
    [InlineData("NANOSECOND", 9, false)]
    public void TimestampPrecisionNamesAndDigits(string spelling, int digits, bool warned)
    {
        SessionSettings s = One(Acceptor + $"\nTimeStampPrecision={spelling}");
        Assert.Equal(digits, s.EffectiveTimestampPrecision);
        if (!warned)
        {
            Assert.Empty(s.Warnings);
            return;
        }
        ConfigWarning w = Assert.Single(s.Warnings);
        Assert.Equal(new ConfigWarning("venue.cfg", 11, "TimeStampPrecision", $"{spelling} fraction digits are sent as {digits} (FixEngine writes 0, 3, 6 or 9 digits)"), w);
    }

    [Theory]
    [InlineData("08:00:00", 8, 0, 0, 0)]
    [InlineData("08:00:00.000", 8, 0, 0, 0)]
    [InlineData("8:00:00", 8, 0, 0, 0)]
    [InlineData("17:30:15.5", 17, 30, 15, 500)]
    [InlineData("23:59:59.999999999", 23, 59, 59, 999)]
    public void TimesWithFractions(string spelling, int h, int m, int sec, int ms)
    {
        SessionSettings s = One(Acceptor.Replace("StartTime=00:00:00", "StartTime=" + spelling));
        Assert.Equal(h, s.StartTime!.Value.Hour);
        Assert.Equal(m, s.StartTime.Value.Minute);
        Assert.Equal(sec, s.StartTime.Value.Second);
        Assert.Equal(ms, s.StartTime.Value.Millisecond);
        // Written back and read again: the same time.
        Assert.Equal(s.StartTime, Assert.Single(SettingsFile.Parse(SettingsFile.ToSettingsText(s))).StartTime);
    }

    [Fact]
    public void WeekdaysRunADailySessionOnListedDaysOnly()
    {
        SessionSettings s = One(Acceptor.Replace("StartTime=00:00:00\nEndTime=00:00:00", "StartTime=08:00:00\nEndTime=17:00:00") + "\nWeekdays=Mo,Tue,wed,Thursday,fr");
        Assert.Equal(new[] { DayOfWeek.Monday, DayOfWeek.Tuesday, DayOfWeek.Wednesday, DayOfWeek.Thursday, DayOfWeek.Friday }, s.Weekdays.ToArray());
        SessionSchedule schedule = s.CreateSchedule();
        Assert.True(schedule.IsInSession(EpochNs(2026, 11, 23, 9)));   // Monday 09:00
        Assert.False(schedule.IsInSession(EpochNs(2026, 11, 23, 18)));  // Monday 18:00
        Assert.True(schedule.IsInSession(EpochNs(2026, 11, 27, 16)));   // Friday 16:00
        Assert.False(schedule.IsInSession(EpochNs(2026, 11, 28, 9)));   // Saturday 09:00
        Assert.False(schedule.IsInSession(EpochNs(2026, 11, 29, 12)));  // Sunday 12:00
        Assert.Equal("Weekdays=Monday,Tuesday,Wednesday,Thursday,Friday", SettingsFile.ToSettingsText(s).Split('\n').Single(l => l.StartsWith("Weekdays", StringComparison.Ordinal)));

        // Overnight session: the day it starts on counts (Sunday 22:00 - Monday 06:00 belongs to Sunday).
        SchedulePair overnight = new(One(Acceptor.Replace("StartTime=00:00:00\nEndTime=00:00:00", "StartTime=22:00:00\nEndTime=06:00:00") + "\nWeekdays=Mon"));
        Assert.False(overnight.Schedule.IsInSession(EpochNs(2026, 11, 23, 2)));  // Monday 02:00: Sunday's period
        Assert.True(overnight.Schedule.IsInSession(EpochNs(2026, 11, 23, 23)));  // Monday 23:00
        Assert.True(overnight.Schedule.IsInSession(EpochNs(2026, 11, 24, 5)));   // Tuesday 05:00: Monday's period

        ConfigException e = Fails(Acceptor + "\nWeekdays=Mon\nStartDay=Mon\nEndDay=Fri");
        Assert.Equal(("Weekdays", 11, "cannot be combined with StartDay/EndDay"), (e.Key, e.LineNumber, e.Reason));
    }

    private sealed record SchedulePair(SessionSettings Settings)
    {
        public SessionSchedule Schedule { get; } = Settings.CreateSchedule();
    }

    private static long EpochNs(int y, int mo, int d, int h) => (new DateTime(y, mo, d, h, 0, 0, DateTimeKind.Utc) - DateTime.UnixEpoch).Ticks * 100;

    [Fact]
    public void UseLocalTimeUsesTheMachineZoneAndConflictsWithTimeZone()
    {
        SessionSettings s = One(Acceptor + "\nUseLocalTime=Y");
        Assert.True(s.UseLocalTime);
        Assert.Contains(TimeZoneInfo.Local.Id, s.CreateSchedule().ToString(), StringComparison.Ordinal);
        ConfigException e = Fails(Acceptor + "\nUseLocalTime=Y\nTimeZone=America/New_York");
        Assert.Equal(("TimeZone", 12, "'America/New_York' conflicts with UseLocalTime=Y (set one of them)"), (e.Key, e.LineNumber, e.Reason));
    }

    [Theory]
    [InlineData("Y", FixEngine.Store.FileStoreSyncPolicy.PerMessage)]
    [InlineData("N", FixEngine.Store.FileStoreSyncPolicy.OS)]
    [InlineData("batched", FixEngine.Store.FileStoreSyncPolicy.Batched)]
    public void FileStoreSyncSpellings(string spelling, FixEngine.Store.FileStoreSyncPolicy expected) => Assert.Equal(expected, One(Acceptor + "\nFileStoreSync=" + spelling).FileStoreSync);

    [Theory]
    [InlineData("SSLProtocols=Tls12", SslProtocols.Tls12, null)]
    [InlineData("SSLProtocols=Tls12,Tls13", SslProtocols.Tls12 | SslProtocols.Tls13, null)]
    [InlineData("SSLProtocols=Default", SslProtocols.None, null)]
    [InlineData("SSLProtocols=Tls11,Tls12", SslProtocols.Tls12, "Tls11 not offered (insecure, disabled by the platform); the other versions are used")]
    [InlineData("SSLProtocol=TLSv1_2", SslProtocols.Tls12, null)]
    [InlineData("SSLProtocol=all -SSLv2", SslProtocols.Tls12 | SslProtocols.Tls13, null)]
    [InlineData("SSLProtocol=all -SSLv2 -SSLv3 -TLSv1 -TLSv1_1", SslProtocols.Tls12 | SslProtocols.Tls13, null)]
    [InlineData("SSLProtocol=+TLSv1_2 +TLSv1_3", SslProtocols.Tls12 | SslProtocols.Tls13, null)]
    [InlineData("SSLProtocol=all -TLSv1_3", SslProtocols.Tls12, null)]
    [InlineData("SSLProtocol=TLSv1 +TLSv1_2", SslProtocols.Tls12, "TLSv1 not offered (insecure, disabled by the platform); the other versions are used")]
    public void SslProtocolSpellings(string line, SslProtocols expected, string? warning)
    {
        SessionSettings s = One(Acceptor + "\nSSLCertificate=server.pfx\n" + line);
        Assert.Equal(expected, s.SSLProtocols);
        if (warning is null) Assert.Empty(s.Warnings);
        else Assert.Equal(warning, Assert.Single(s.Warnings).Reason);
    }

    [Fact]
    public void QuickFixCppSslAcceptorFile()
    {
        SessionSettings s = One("""
            [DEFAULT]
            ConnectionType=acceptor
            SocketAcceptPort=5001
            StartTime=00:00:00.000
            EndTime=00:00:00.000
            UseDataDictionary=N
            ServerCertificateFile=/etc/fix/server.crt
            ServerCertificateKeyFile=/etc/fix/server.key
            ClientCertificateFile=/etc/fix/client.crt
            ClientCertificateKeyFile=/etc/fix/client.key
            CertificationAuthoritiesFile=/etc/fix/ca-bundle.crt
            CertificationAuthoritiesDirectory=/etc/fix/ca
            CertificateVerifyLevel=1
            SSLProtocol=all -SSLv2 -SSLv3
            SSLCipherSuite=HIGH:!RC4
            [SESSION]
            BeginString=FIX.4.4
            SenderCompID=EXEC
            TargetCompID=CLIENT
            """);
        Assert.True(s.SocketUseSSL); // the certificate keys stand for QuickFIX C++'s SSL acceptor
        Assert.Equal("/etc/fix/server.crt", s.SSLCertificate);
        Assert.Equal("/etc/fix/server.key", s.SSLCertificateKeyFile);
        Assert.Equal("/etc/fix/ca-bundle.crt", s.SSLCACertificate);
        Assert.Equal("/etc/fix/ca", s.SSLCACertificateDirectory);
        Assert.True(s.SSLRequireClientCertificate);
        Assert.Equal(SslProtocols.Tls12 | SslProtocols.Tls13, s.SSLProtocols);
        Assert.Equal(new[]
        {
            new ConfigWarning("venue.cfg", 9, "ClientCertificateFile", "applies to initiators; ignored for this acceptor session"),
            new ConfigWarning("venue.cfg", 10, "ClientCertificateKeyFile", "applies to initiators; ignored for this acceptor session"),
            new ConfigWarning("venue.cfg", 15, "SSLCipherSuite", "accepted but not applied: cipher suites come from the operating system's TLS policy (OpenSSL configuration on Linux)"),
        }, s.Warnings.ToArray());
    }

    [Fact]
    public void QuickFixCppSslInitiatorAndVerifyLevels()
    {
        const string Initiator = """
            [DEFAULT]
            ConnectionType=initiator
            SocketConnectHost=fix.venue.example
            SocketConnectPort=9823
            HeartBtInt=30
            NonStopSession=Y
            UseDataDictionary=N
            ServerCertificateFile=/etc/fix/server.crt
            ClientCertificateFile=/etc/fix/client.pem
            CertificationAuthoritiesFile=/etc/fix/ca-bundle.crt
            CertificateVerifyLevel=0
            [SESSION]
            BeginString=FIX.4.2
            SenderCompID=TW
            TargetCompID=ISLD
            """;
        SessionSettings s = One(Initiator);
        Assert.True(s.SocketUseSSL);
        Assert.Equal("/etc/fix/client.pem", s.SSLCertificate);
        Assert.Null(s.SSLCertificateKeyFile);
        Assert.Equal(new[] { "ServerCertificateFile", "CertificateVerifyLevel" }, s.Warnings.Select(w => w.Key).ToArray());

        // Acceptor levels: 0 none, 1 required, 2 optional (warned: not asked for), 3 not set; a contradiction is an error.
        const string Ssl = "\nServerCertificateFile=/etc/fix/server.pem";
        Assert.False(One(Acceptor + Ssl + "\nCertificateVerifyLevel=0").SSLRequireClientCertificate);
        Assert.True(One(Acceptor + Ssl + "\nCertificateVerifyLevel=1").SSLRequireClientCertificate);
        SessionSettings optional = One(Acceptor + Ssl + "\nCertificateVerifyLevel=2");
        Assert.False(optional.SSLRequireClientCertificate);
        Assert.Equal("CertificateVerifyLevel", Assert.Single(optional.Warnings).Key);
        Assert.Empty(One(Acceptor + Ssl + "\nCertificateVerifyLevel=3").Warnings);
        ConfigException e = Fails(Acceptor + Ssl + "\nCertificateVerifyLevel=1\nSSLRequireClientCertificate=N");
        Assert.Equal(("CertificateVerifyLevel", 12, "1 contradicts SSLRequireClientCertificate (line 13)"), (e.Key, e.LineNumber, e.Reason));
    }

    [Fact]
    public void QuickFixNSslKeys()
    {
        SessionSettings s = One(Acceptor + """

            SSLEnable=Y
            SSLCertificate=server.pfx
            SSLCertificatePassword=pw
            SSLCheckCertificateRevocation=Y
            SSLValidateCertificates=Y
            SSLRequireClientCertificate=Y
            SSLCACertificate=ca.cer
            SSLServerName=venue
            SSLProtocols=Tls12
            """);
        Assert.True(s.SocketUseSSL);
        Assert.True(s.SSLCheckCertificateRevocation);
        Assert.Equal("server.pfx", s.SSLCertificate);
        Assert.Empty(s.Warnings);
        // QuickFIX/n: a certificate without SSLEnable turns SSL on; SSLEnable=N keeps it off, with a warning.
        Assert.True(One(Acceptor + "\nSSLCertificate=server.pfx").SocketUseSSL);
        SessionSettings off = One(Acceptor + "\nSSLCertificate=server.pfx\nSSLEnable=N");
        Assert.False(off.SocketUseSSL);
        Assert.Equal(new ConfigWarning("venue.cfg", 12, "SSLEnable", "N: TLS is off although a certificate is configured"), Assert.Single(off.Warnings));
    }

    [Fact]
    public void SettingsThatCannotTakeEffectAreWarned()
    {
        // TLS keys without TLS.
        SessionSettings plain = One(Acceptor + "\nSSLServerName=venue\nCertificationAuthoritiesFile=ca.pem");
        Assert.Equal(new ConfigWarning("venue.cfg", 11, "SSLServerName", "TLS is off (SocketUseSSL/SSLEnable not Y): the SSL keys of this session have no effect"),
            Assert.Single(plain.Warnings));
        // Schedule keys with NonStopSession=Y (QuickFIX/n refuses them; FixEngine ignores them and says so).
        SessionSettings nonStop = One(Acceptor + "\nNonStopSession=Y");
        Assert.Equal(new[] { ("StartTime", 4), ("EndTime", 5) }, nonStop.Warnings.Select(w => (w.Key, w.LineNumber)).ToArray());
        Assert.All(nonStop.Warnings, w => Assert.Equal("ignored: NonStopSession=Y (the session never ends)", w.Reason));
    }

    [Fact]
    public void TwoSpellingsOfOneSettingInOneSectionAreAnErrorAndASessionOverridesDefaults()
    {
        ConfigException e = Fails(Acceptor + "\nSSLEnable=Y\nSocketUseSSL=N");
        Assert.Equal(("SocketUseSSL", 12, "sets the same setting as SSLEnable (line 11); keep one of them"), (e.Key, e.LineNumber, e.Reason));
        e = Fails(Acceptor + "\nServerCertificateFile=a.pem\nSSLCertificate=b.pem");
        Assert.Equal(("ServerCertificateFile", 11), (e.Key, e.LineNumber));
        SessionSettings s = One(Acceptor.Replace("UseDataDictionary=N", "UseDataDictionary=N\nMaxMessagesInResendRequest=500") + "\nResendRequestChunkSize=100");
        Assert.Equal(100, s.ResendRequestChunkSize);
        Assert.Equal(2500, One(Acceptor + "\nMaxMessagesInResendRequest=2500").ResendRequestChunkSize);
    }

    [Fact]
    public void EveryWarnedKeyIsAcceptedWithAWarningNamingItsLine()
    {
        var text = new StringBuilder(Acceptor);
        // A key another part of the engine has since learned to apply is no longer warned.
        var keys = CompatibilityKeys.All.Where(w => SettingKeys.Find(w.Name) is null).ToArray();
        foreach (CompatibilityKeys.Warned w in keys)
        {
            string value = w.Kind switch
            {
                CompatibilityKeys.ValueKind.Bool => w.Honoured == "Y" ? "N" : "Y",
                CompatibilityKeys.ValueKind.Int => "7",
                _ => "x",
            };
            text.Append('\n').Append(w.Name).Append('=').Append(value);
        }
        SessionSettings s = One(text.ToString());
        Assert.Equal(keys.Length, s.Warnings.Count);
        for (int i = 0; i < keys.Length; i++)
        {
            ConfigWarning w = s.Warnings[i];
            Assert.Equal(keys[i].Name, w.Key);
            Assert.Equal(11 + i, w.LineNumber);
            Assert.Equal("accepted but not applied: " + keys[i].Reason, w.Reason);
            Assert.Equal($"venue.cfg({11 + i}): {keys[i].Name}: accepted but not applied: {keys[i].Reason}", w.ToString());
        }
        // A [DEFAULT] key warns once per file, not once per session.
        var two = SettingsFile.Parse(Acceptor.Replace("UseDataDictionary=N", "UseDataDictionary=N\nSSLCipherSuite=HIGH") + "\n[SESSION]\nBeginString=FIX.4.4\nTargetCompID=TW", "venue.cfg");
        Assert.All(two, x => Assert.Single(x.Warnings));
        Assert.Equal("SSLCipherSuite", Assert.Single(SettingsFile.Warnings(two)).Key);
    }

    [Fact]
    public void WarnedKeysWithFixEnginesOwnBehaviourDoNotWarn()
    {
        SessionSettings s = One(Acceptor + """

            RequiresOrigSendingTime=Y
            SendLogoutBeforeDisconnectFromTimeout=N
            IgnorePossDupResendRequests=N
            ResendSessionLevelRejects=N
            AllowUnknownEnumValues=N
            SocketIgnoreProxy=Y
            SocketSendTimeout=0
            SocketReceiveTimeout=0
            PreserveMessageFieldsOrder=Y
            ContinueInitializationOnError=N
            CmeEnhancedResend=N
            """);
        Assert.Empty(s.Warnings);
    }

    [Fact]
    public void TheKeysQuickFixUsersReportedAsUnknownAreAccepted()
    {
        string[] keys =
        [
            "UseLocalTime=N", "Weekdays=Mon,Fri", "AllowUnknownEnumValues=N", "ResendSessionLevelRejects=N", "MaxMessagesInResendRequest=0",
            "SendLogoutBeforeDisconnectFromTimeout=N", "SocketSendTimeout=0", "SocketReceiveTimeout=0", "IgnorePossDupResendRequests=N",
            "RequiresOrigSendingTime=Y", "SocketIgnoreProxy=Y", "Encoding=UTF-8", "CmeEnhancedResend=N",
            "SSLEnable=N", "SSLCheckCertificateRevocation=N", "ScreenLogShowIncoming=N", "ScreenLogShowOutgoing=N",
            "ScreenLogShowEvents=N", "ScreenLogShowHeartBeats=N", "FileLogBackupPath=backup", "DebugFileLogPath=debug",
            "ContinueInitializationOnError=N", "HttpAcceptPort=8080", "PreserveMessageFieldsOrder=Y", "FileStoreMaxCachedMsgs=1000",
            "SSLProtocol=all -SSLv2", "ValidateLengthAndChecksum=N", "ValidateUnorderedGroupFields=N", "SocketReuseAddress=N", "Verbose=Y",
        ];
        SessionSettings s = One(Acceptor + "\n" + string.Join("\n", keys));
        Assert.False(s.ValidateLengthAndChecksum);
        Assert.False(s.ValidateUnorderedGroupFields);
        Assert.False(s.SocketReuseAddress);
        Assert.True(s.Verbose);
    }

    [Fact]
    public void UseDataDictionaryWithoutADictionaryIsAnError()
    {
        string explicitY = Acceptor.Replace("UseDataDictionary=N", "UseDataDictionary=Y");
        ConfigException e = Fails(explicitY);
        Assert.Equal("venue.cfg(7): UseDataDictionary: Y but DataDictionary is not set (set DataDictionary, or UseDataDictionary=N)", e.Message);
        Assert.Equal("FIX42.xml", One(explicitY + "\nDataDictionary=FIX42.xml").DataDictionary);

        string fixt = explicitY.Replace("BeginString=FIX.4.2", "BeginString=FIXT.1.1\nDefaultApplVerID=FIX.5.0SP2");
        Assert.Equal("venue.cfg(7): UseDataDictionary: Y but TransportDataDictionary is not set (set TransportDataDictionary, or UseDataDictionary=N)", Fails(fixt).Message);
        Assert.Equal("venue.cfg(7): UseDataDictionary: Y but AppDataDictionary is not set (set AppDataDictionary, or UseDataDictionary=N)",
            Fails(fixt + "\nTransportDataDictionary=FIXT11.xml").Message);
        One(fixt + "\nTransportDataDictionary=FIXT11.xml\nAppDataDictionary=FIX50SP2.xml");

        // Not written: QuickFIX's default Y applies, with a warning (QuickFIX/n runs this way, QuickFIX C++ refuses it).
        SessionSettings implicitY = One(Acceptor.Replace("UseDataDictionary=N\n", ""));
        ConfigWarning w = Assert.Single(implicitY.Warnings);
        Assert.Equal(("DataDictionary", 7), (w.Key, w.LineNumber));
    }

    [Fact]
    public void CompatibilityTableListsEveryKey()
    {
        string? root = AppContext.BaseDirectory;
        while (root is not null && !File.Exists(Path.Combine(root, "FixEngine.sln"))) root = Path.GetDirectoryName(root);
        Assert.NotNull(root);
        string doc = File.ReadAllText(Path.Combine(root, "docs", "quickfix-compatibility.md"));
        var names = SettingKeys.All.Select(k => k.Name)
            .Concat(CompatibilityKeys.All.Select(w => w.Name))
            .Concat(CompatibilityKeys.RoleKeys.Select(r => r.Name))
            .Append(CompatibilityKeys.VerifyLevel);
        Assert.All(names, name => Assert.Contains("`" + name, doc, StringComparison.Ordinal));
    }

    [Fact]
    public void CodeBuiltSettingsHaveNoOriginOrWarnings()
    {
        var s = new SessionSettings { ConnectionType = ConnectionType.Acceptor, BeginString = "FIX.4.4", SenderCompID = "A", TargetCompID = "B", SocketAcceptPort = 1, NonStopSession = true };
        s.Validate();
        Assert.Null(s.Origin);
        Assert.Empty(s.Warnings);
        ConfigException e = SettingsOrigin.Error(s, "SocketAcceptHost", "cannot resolve 'x'");
        Assert.Equal("SocketAcceptHost: cannot resolve 'x'", e.Message);
    }

    [Fact]
    public void AppliedQuickFixNKeysSetTheirSettings()
    {
        SessionSettings s = One(Acceptor + "\nAllowUnknownFieldValues=Y\nIgnorePossDupResendRequests=Y\nSendLogoutBeforeDisconnectFromTimeout=Y\nContinueInitializationOnError=N");
        Assert.True(s.AllowUnknownEnumValues);
        Assert.True(s.IgnorePossDupResendRequests);
        Assert.True(s.SendLogoutBeforeDisconnectFromTimeout);
        Assert.Empty(s.Warnings);
        Assert.True(One(Acceptor + "\nAllowUnknownEnumValues=Y").AllowUnknownEnumValues);
    }
}
