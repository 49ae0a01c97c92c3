using System.Linq;
using Microsoft.CodeAnalysis;

namespace FixEngine.Generators.Tests;

/// <summary>Typed writers take a FixTimestamp for UTCTimestamp fields, so a long (a DateTime's Ticks) does not compile.</summary>
public sealed class TimestampSetterTests
{
    private const string Dictionary = """
        <fix type="FIX" major="4" minor="4">
          <header><field name="BeginString" required="Y"/><field name="BodyLength" required="Y"/><field name="MsgType" required="Y"/></header>
          <trailer><field name="CheckSum" required="Y"/></trailer>
          <messages>
            <message name="Order" msgtype="D" msgcat="app">
              <field name="ClOrdID" required="Y"/>
              <field name="TransactTime" required="Y"/>
              <field name="ExpireTime" required="N"/>
              <group name="NoEvents" required="N"><field name="EventTime" required="Y"/></group>
            </message>
          </messages>
          <components/>
          <fields>
            <field number="8" name="BeginString" type="STRING"/><field number="9" name="BodyLength" type="LENGTH"/>
            <field number="35" name="MsgType" type="STRING"/><field number="10" name="CheckSum" type="STRING"/>
            <field number="11" name="ClOrdID" type="STRING"/><field number="60" name="TransactTime" type="UTCTIMESTAMP"/>
            <field number="126" name="ExpireTime" type="UTCTIMESTAMP"/><field number="864" name="NoEvents" type="NUMINGROUP"/>
            <field number="1145" name="EventTime" type="UTCTIMESTAMP"/>
          </fields>
        </fix>
        """;

    private static GeneratorHarness.Result Run(string body) => GeneratorHarness.Run(
        "using FixEngine.Codec; using System; public static class Use { " + body + " }",
        new GeneratorHarness.Dictionary("/app/VENUE.xml", Dictionary, "Venue"));

    [Fact]
    public void EveryTimestampSetterTakesAFixTimestampMadeFromANamedSource()
    {
        GeneratorHarness.Result result = Run("""
            public static bool A(ref FixWriter w, DateTimeOffset at) => Venue.Order.Begin(ref w).ClOrdID("A"u8).TransactTime(FixTimestamp.FromDateTimeOffset(at))
                .ExpireTime(FixTimestamp.FromDateTime(DateTime.UtcNow)).NoEvents(1).EventTime(FixTimestamp.FromUnixNanoseconds(1)).EndNoEvents().End();
            public static bool B(ref FixWriter w, FixTimestamp? expiry) => Venue.Order.Begin(ref w).ClOrdID("A"u8).TransactTime(FixTimestamp.UtcNow).ExpireTime(expiry).End();
            public static bool C(ref FixWriter w) => Venue.Order.Write(ref w, clOrdID: "A"u8, transactTime: FixTimestamp.UtcNow, expireTime: null,
                noEvents: new Venue.Groups.NoEvents.Data[] { new(FixTimestamp.UtcNow) });
            """);
        Assert.Empty(result.GeneratorDiagnostics);
        Assert.True(result.CompileErrors.IsEmpty, string.Join("\n", result.CompileErrors));
    }

    [Theory]
    [InlineData("""public static bool S(ref FixWriter w) => Venue.Order.Begin(ref w).ClOrdID("A"u8).TransactTime(DateTime.UtcNow.Ticks).End();""")]
    [InlineData("""public static bool S(ref FixWriter w) => Venue.Order.Begin(ref w).ClOrdID("A"u8).TransactTime(FixTimestamp.UtcNow).ExpireTime(DateTime.UtcNow.Ticks).End();""")]
    [InlineData("""public static bool S(ref FixWriter w) => Venue.Order.Write(ref w, clOrdID: "A"u8, transactTime: DateTime.UtcNow.Ticks);""")]
    [InlineData("""public static object S() => new Venue.Groups.NoEvents.Data(DateTime.UtcNow.Ticks);""")]
    [InlineData("""public static bool S(ref FixWriter w) => Venue.Order.Begin(ref w).ClOrdID("A"u8).TransactTime(FixTimestamp.UtcNow).NoEvents(1).EventTime(DateTime.UtcNow.Ticks).EndNoEvents().End();""")]
    public void ALongOfTicksDoesNotCompileAsATimestamp(string body)
    {
        GeneratorHarness.Result result = Run(body);
        Assert.Empty(result.GeneratorDiagnostics);
        Diagnostic error = Assert.Single(result.CompileErrors);
        Assert.Equal("CS1503", error.Id); // cannot convert from 'long' to 'FixEngine.Codec.FixTimestamp'
        Assert.Contains("FixTimestamp", error.GetMessage());
    }

    [Fact]
    public void TheNamesSayNoUnitAnyMore()
    {
        string source = Assert.Single(Run("").Sources);
        Assert.Contains("TransactTime(global::FixEngine.Codec.FixTimestamp value", source);
        Assert.DoesNotContain("TransactTimeNs(", source);
        Assert.Contains(".UnixNanoseconds", source);
    }
}
