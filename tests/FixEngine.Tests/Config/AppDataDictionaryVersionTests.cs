using System;
using System.Collections.Generic;
using System.IO;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Tests.Infrastructure;
using FixEngine.Tests.Session;

namespace FixEngine.Tests.Config;

/// <summary>QuickFIX's <c>AppDataDictionary.&lt;version&gt;</c> keys (AppDataDictionary.FIX.4.4 ...): read into
/// <see cref="SessionSettings.AppDataDictionaries"/>, loaded by the session factory, and refused with file, line and key
/// when they cannot apply.</summary>
public sealed class AppDataDictionaryVersionTests
{
    private static string Fixt(string extra, string defaults = "") => $"""
        [DEFAULT]
        ConnectionType=acceptor
        SocketAcceptPort=5001
        NonStopSession=Y
        SenderCompID=ISLD
        {defaults}
        [SESSION]
        BeginString=FIXT.1.1
        TargetCompID=TW50SP2
        DefaultApplVerID=FIX.5.0SP2
        TransportDataDictionary={SharedPaths.Dictionary("FIXT11.xml")}
        {extra}
        """;

    private static readonly string Sp2 = "AppDataDictionary=" + SharedPaths.Dictionary("FIX50SP2.xml");

    private static SessionSettings One(string text) => Assert.Single(SettingsFile.Parse(text, "venue.cfg"));

    private static ConfigException Fails(string text) => Assert.Throws<ConfigException>(() => SettingsFile.Parse(text, "venue.cfg"));

    [Fact]
    public void PerVersionKeysAreReadUnderTheVersionNameWhateverTheirCase()
    {
        SessionSettings s = One(Fixt(Sp2 + "\nAppDataDictionary.FIX.4.4=FIX44.xml\nappdatadictionary.fix.5.0sp1=FIX50SP1.xml"));
        Assert.Equal(2, s.AppDataDictionaries.Count);
        Assert.Equal("FIX44.xml", s.AppDataDictionaries["FIX.4.4"]);
        Assert.Equal("FIX50SP1.xml", s.AppDataDictionaries["FIX.5.0SP1"]);
        Assert.Empty(s.Warnings);
        Assert.Equal(13, s.Origin!.LineOf("AppDataDictionary.FIX.4.4"));
        Assert.Equal(14, s.Origin.LineOf("AppDataDictionary.FIX.5.0SP1"));

        string text = SettingsFile.ToSettingsText(s);
        Assert.Contains("\nAppDataDictionary.FIX.4.4=FIX44.xml\n", text, StringComparison.Ordinal);
        SessionSettings back = One(text);
        Assert.Equal(text, SettingsFile.ToSettingsText(back));
        Assert.Equal("FIX50SP1.xml", back.AppDataDictionaries["FIX.5.0SP1"]);
    }

    [Fact]
    public void ASessionOverridesTheDefaultSectionsDictionaryOfAVersion()
    {
        SessionSettings s = One(Fixt(Sp2 + "\nAppDataDictionary.FIX.4.4=venue44.xml", defaults: "AppDataDictionary.FIX.4.4=FIX44.xml\nAppDataDictionary.FIX.4.2=FIX42.xml"));
        Assert.Equal("venue44.xml", s.AppDataDictionaries["FIX.4.4"]);
        Assert.Equal("FIX42.xml", s.AppDataDictionaries["FIX.4.2"]);
    }

    [Theory]
    [InlineData("AppDataDictionary.FIX.4.5=x.xml", "AppDataDictionary.FIX.4.5", "'FIX.4.5' is not an application version")]
    [InlineData("AppDataDictionary.9=x.xml", "AppDataDictionary.9", "'9' is not an application version: name one as QuickFIX does, FIX.4.0, FIX.4.1")]
    [InlineData("AppDataDictionary.FIXT.1.1=x.xml", "AppDataDictionary.FIXT.1.1", "is not an application version")]
    [InlineData("AppDataDictionary.FIX.4.4=", "AppDataDictionary.FIX.4.4", "empty value")]
    [InlineData("AppDataDictionary.FIX.5.0SP2=other.xml", "AppDataDictionary.FIX.5.0SP2", "names the same version as DefaultApplVerID=FIX.5.0SP2, whose dictionary is AppDataDictionary")]
    public void AKeyThatCannotApplyIsAnErrorNamingFileLineAndKey(string line, string key, string reason)
    {
        ConfigException e = Fails(Fixt(Sp2 + "\n" + line));
        Assert.StartsWith($"venue.cfg(13): {key}: ", e.Message, StringComparison.Ordinal);
        Assert.Contains(reason, e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void TheDefaultVersionIsComparedByItsApplVerIdWhicheverWayDefaultApplVerIdIsWritten()
    {
        ConfigException e = Fails(Fixt(Sp2 + "\nAppDataDictionary.FIX.5.0SP2=other.xml").Replace("DefaultApplVerID=FIX.5.0SP2", "DefaultApplVerID=9"));
        Assert.Contains("names the same version as DefaultApplVerID=9", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void OnANonFixtSessionTheKeyIsAnError()
    {
        string text = """
            [DEFAULT]
            ConnectionType=acceptor
            SocketAcceptPort=5001
            NonStopSession=Y
            SenderCompID=ISLD
            UseDataDictionary=N
            AppDataDictionary.FIX.4.4=FIX44.xml
            [SESSION]
            BeginString=FIX.4.4
            TargetCompID=TW44
            """;
        ConfigException e = Fails(text);
        Assert.Equal("venue.cfg(7): AppDataDictionary.FIX.4.4: applies to FIXT.1.1 sessions only; this session is FIX.4.4 (its messages are validated "
            + "against DataDictionary): remove it, or move it from [DEFAULT] to the FIXT.1.1 sessions", e.Message);
    }

    [Fact]
    public void PerVersionDictionariesWithoutAppDataDictionarySatisfyUseDataDictionary()
    {
        SessionSettings s = One(Fixt("UseDataDictionary=Y\nAppDataDictionary.FIX.5.0SP2=FIX50SP2.xml"));
        Assert.Null(s.AppDataDictionary);
        Assert.Single(s.AppDataDictionaries);
        Assert.Empty(s.Warnings);
    }

    [Fact]
    public void SettingsBuiltInCodeAreCheckedByValidate()
    {
        var s = new SessionSettings
        {
            ConnectionType = ConnectionType.Acceptor, BeginString = "FIXT.1.1", DefaultApplVerID = "FIX.5.0SP2", SenderCompID = "A", TargetCompID = "B",
            SocketAcceptPort = 1, NonStopSession = true,
            AppDataDictionaries = new Dictionary<string, string> { ["FIX.4.4"] = "FIX44.xml" },
        };
        s.Validate();
        ConfigException e = Assert.Throws<ConfigException>(() => (s with { AppDataDictionaries = new Dictionary<string, string> { ["FIX.6.0"] = "x.xml" } }).Validate());
        Assert.StartsWith("AppDataDictionary.FIX.6.0: 'FIX.6.0' is not an application version", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void TheFactoryNamesFileLineAndKeyOfAVersionsDictionaryThatDoesNotExist()
    {
        string missing = Path.Combine(Path.GetTempPath(), "fixengine-no-such-dictionary", "FIX44.xml");
        SessionSettings s = One(Fixt(Sp2 + "\nAppDataDictionary.FIX.4.4=" + missing));
        using var factory = new SessionFactory();
        ConfigException e = Assert.Throws<ConfigException>(() => factory.Create(s, new EchoApp(), 1));
        Assert.StartsWith($"venue.cfg(13): AppDataDictionary.FIX.4.4: the data dictionary '{missing}' does not exist", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void ASessionMadeFromTheSettingsValidatesEachVersionAgainstItsDictionary()
    {
        SessionSettings s = One(Fixt(Sp2 + "\nAppDataDictionary.FIX.4.4=" + SharedPaths.Dictionary("FIX44.xml")));
        using var factory = new SessionFactory();
        var app = new EchoApp();
        using FixEngine.Session.FixSession session = factory.Create(s, app, 1);
        // Messages built as the harness builds them (same CompIDs), handed to the factory's session.
        using var builder = new SessionHarness("FIXT.1.1", connect: false);
        var connection = new FakeConnection();
        session.OnConnected(connection, builder.Now);
        session.OnMessage(builder.Build("35=A|34=1|98=0|108=30|1137=9"), builder.Now);
        Assert.True(session.IsLoggedOn);
        session.OnMessage(builder.Build(ApplicationVersionDictionaryTests.Order(builder, 2, "6", "8")), builder.Now);
        session.OnMessage(builder.Build(ApplicationVersionDictionaryTests.Order(builder, 3, "9", "8")), builder.Now);
        session.OnMessage(builder.Build(ApplicationVersionDictionaryTests.Order(builder, 4, "8", "0")), builder.Now);
        var sent = connection.Sent.ConvertAll(b => new Sent(b));
        Assert.Equal(new[] { "A", "3", "D", "3" }, sent.ConvertAll(m => m[35]!));
        Assert.Equal(("5", "59"), (sent[1][373], sent[1][371]));
        Assert.Equal(("18", "1128"), (sent[3][373], sent[3][371]));
        Assert.Equal(1, app.FromAppCount);
    }
}
