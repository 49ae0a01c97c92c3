using System.Linq;
using Microsoft.CodeAnalysis;

namespace FixEngine.Generators.Tests;

public sealed class FixDictionaryGeneratorTests
{
    // Line numbers below are those of this text (line 1 is "<fix ...>").
    private const string Valid = """
        <fix type="FIX" major="4" minor="4">
          <header>
            <field name="BeginString" required="Y"/><field name="BodyLength" required="Y"/><field name="MsgType" required="Y"/>
          </header>
          <trailer><field name="CheckSum" required="Y"/></trailer>
          <messages>
            <message name="Order" msgtype="D" msgcat="app">
              <field name="ClOrdID" required="Y"/>
              <field name="Side" required="Y"/>
              <component name="Legs" required="N"/>
              <field name="Price" required="N"/>
            </message>
          </messages>
          <components>
            <component name="Legs">
              <group name="NoLegs" required="N"><field name="LegSymbol" required="Y"/><field name="LegQty" required="N"/></group>
            </component>
          </components>
          <fields>
            <field number="8" name="BeginString" type="STRING"/><field number="9" name="BodyLength" type="LENGTH"/>
            <field number="35" name="MsgType" type="STRING"/><field number="10" name="CheckSum" type="STRING"/>
            <field number="11" name="ClOrdID" type="STRING"/>
            <field number="54" name="Side" type="CHAR"><value enum="1" description="BUY"/><value enum="2" description="SELL"/></field>
            <field number="44" name="Price" type="PRICE"/>
            <field number="555" name="NoLegs" type="NUMINGROUP"/><field number="600" name="LegSymbol" type="STRING"/>
            <field number="687" name="LegQty" type="QTY"/>
          </fields>
        </fix>
        """;

    private const string UseOrder = """
        using FixEngine.Codec;
        public static class Use
        {
            public static bool Send(System.Span<byte> buffer)
            {
                var w = new FixWriter(buffer);
                return Venue.Order.Write(ref w, clOrdID: "A"u8, side: Venue.Side.Buy, price: new FixDecimal(1, 0),
                    noLegs: new Venue.Groups.NoLegs.Data[] { new("X"u8.ToArray()) { LegQty = new FixDecimal(2, 0) } });
            }
        }
        """;

    private static GeneratorHarness.Result Run(string xml, string code = "", string? messages = null) =>
        GeneratorHarness.Run(code, new GeneratorHarness.Dictionary("/venue/VENUE.xml", xml, "Venue", messages));

    private static Diagnostic Single(GeneratorHarness.Result result, string id)
    {
        Diagnostic d = Assert.Single(result.GeneratorDiagnostics);
        Assert.Equal(id, d.Id);
        Assert.Equal(DiagnosticSeverity.Error, d.Severity);
        // What can be generated still is (FIXGEN001: the empty namespace; FIXGEN003: the messages the dictionary defines).
        Assert.DoesNotContain(result.Sources, s => id == "FIXGEN001" && s.Contains("class "));
        return d;
    }

    [Fact]
    public void AValidDictionaryGeneratesCodeThatCompilesWithItsUsers()
    {
        GeneratorHarness.Result result = Run(Valid, UseOrder);
        Assert.Empty(result.GeneratorDiagnostics);
        Assert.True(result.CompileErrors.IsEmpty, string.Join("\n", result.CompileErrors));
        string source = Assert.Single(result.Sources);
        Assert.Contains("public readonly ref struct Reader", source);
        Assert.Contains("public abstract class MessageCracker", source);
    }

    [Fact]
    public void ARequiredFieldLeftOutOfAWriteDoesNotCompile()
    {
        const string missingSide = """
            public static class Use
            {
                public static bool Send(System.Span<byte> buffer)
                {
                    var w = new FixEngine.Codec.FixWriter(buffer);
                    return Venue.Order.Write(ref w, clOrdID: "A"u8);
                }
            }
            """;
        GeneratorHarness.Result result = Run(Valid, missingSide);
        Assert.Empty(result.GeneratorDiagnostics);
        Diagnostic error = Assert.Single(result.CompileErrors);
        Assert.Equal("CS7036", error.Id); // no argument given for the required parameter 'side'
        Assert.Contains("side", error.GetMessage());
    }

    [Fact]
    public void TheBodyWriterCompilesForFieldsInDictionaryOrderWithStackallocText()
    {
        const string ordered = """
            using FixEngine.Codec;
            public static class Use
            {
                public static bool Send(ref FixWriter w)
                {
                    System.Span<byte> id = stackalloc byte[8];
                    id[0] = (byte)'A';
                    return Venue.Order.Begin(ref w).ClOrdID(id.Slice(0, 1)).Side(Venue.Side.Buy)
                        .NoLegs(new Venue.Groups.NoLegs.Data[] { new("X"u8.ToArray()) }).Price((FixDecimal?)null).End();
                }
            }
            """;
        GeneratorHarness.Result result = Run(Valid, ordered);
        Assert.True(result.CompileErrors.IsEmpty, string.Join("\n", result.CompileErrors));
    }

    [Fact]
    public void ABodyWriterWithoutARequiredFieldHasNoEnd()
    {
        // Side is required: the stretch after ClOrdID leads only to Side, so End (and Price) are not reachable without it.
        const string missingSide = """
            public static class Use
            {
                public static bool Send(ref FixEngine.Codec.FixWriter w) => Venue.Order.Begin(ref w).ClOrdID("A"u8).End();
            }
            """;
        GeneratorHarness.Result result = Run(Valid, missingSide);
        Assert.Empty(result.GeneratorDiagnostics);
        Diagnostic error = Assert.Single(result.CompileErrors);
        Assert.Equal("CS1061", error.Id); // 'BeforeSide' does not contain a definition for 'End'
        Assert.Contains("BeforeSide", error.GetMessage());
        Assert.Contains("End", error.GetMessage());
    }

    [Fact]
    public void AGroupWrittenEntryByEntryCompilesAndARequiredEntryMemberCannotBeLeftOut()
    {
        // LegQty made required: in an entry, LegSymbol (the delimiter) leads only to LegQty, so neither the next entry
        // nor EndNoLegs is reachable without it; whole quantities take a long.
        string xml = Valid.Replace("<field name=\"LegQty\" required=\"N\"/>", "<field name=\"LegQty\" required=\"Y\"/>");
        const string complete = """
            public static class Use
            {
                public static bool Send(ref FixEngine.Codec.FixWriter w) => Venue.Order.Begin(ref w).ClOrdID("A"u8).Side(Venue.Side.Buy)
                    .NoLegs(2).LegSymbol("X"u8).LegQty(5).LegSymbol("Y"u8).LegQty(new FixEngine.Codec.FixDecimal(25, 1)).EndNoLegs()
                    .Price(100).End();
            }
            """;
        GeneratorHarness.Result result = Run(xml, complete);
        Assert.Empty(result.GeneratorDiagnostics);
        Assert.True(result.CompileErrors.IsEmpty, string.Join("\n", result.CompileErrors));

        const string missingLegQty = """
            public static class Use
            {
                public static bool Send(ref FixEngine.Codec.FixWriter w) => Venue.Order.Begin(ref w).ClOrdID("A"u8).Side(Venue.Side.Buy)
                    .NoLegs(1).LegSymbol("X"u8).EndNoLegs().End();
            }
            """;
        result = Run(xml, missingLegQty);
        Diagnostic error = Assert.Single(result.CompileErrors);
        Assert.Equal("CS1061", error.Id); // 'BeforeLegQty<Tail>' does not contain a definition for 'EndNoLegs'
        Assert.Contains("BeforeLegQty", error.GetMessage());
        Assert.Contains("EndNoLegs", error.GetMessage());
    }

    [Fact]
    public void ARequiredGroupMemberIsAConstructorParameter()
    {
        const string missingLegSymbol = """
            public static class Use
            {
                public static object Entry() => new Venue.Groups.NoLegs.Data();
                public static object Entry2() => new Venue.Groups.NoLegs.Data { LegQty = new FixEngine.Codec.FixDecimal(1, 0) }.IsComplete;
            }
            """;
        GeneratorHarness.Result result = Run(Valid, missingLegSymbol);
        // A struct always has a parameterless constructor, so the check is at run time: IsComplete is false.
        Assert.True(result.CompileErrors.IsEmpty, string.Join("\n", result.CompileErrors));
        Assert.Contains("public Data(global::System.ReadOnlyMemory<byte> legSymbol)", result.Sources[0]);
    }

    [Theory]
    [InlineData("<field number=\"44\" name=\"Price\" type=\"PRICE\"/>", "<field number=\"11\" name=\"Price\" type=\"PRICE\"/>", 24, "duplicate field number 11")]
    [InlineData("<field name=\"Price\" required=\"N\"/>", "<field name=\"Prize\" required=\"N\"/>", 11, "unknown field 'Prize'")]
    [InlineData("<component name=\"Legs\" required=\"N\"/>", "<component name=\"Leg\" required=\"N\"/>", 10, "unknown component 'Leg'")]
    [InlineData("type=\"PRICE\"", "type=\"MONEY\"", 24, "unknown type 'MONEY'")]
    [InlineData("<field name=\"Side\" required=\"Y\"/>", "<field name=\"Side\" required=\"yes\"/>", 9, "required='yes' must be Y or N")]
    [InlineData("<field name=\"LegSymbol\" required=\"Y\"/>", "<component name=\"Legs\"/>", 16, "component cycle: Legs -> Legs")]
    [InlineData("<message name=\"Order\" msgtype=\"D\" msgcat=\"app\">", "<message name=\"Order\" msgcat=\"app\">", 7, "missing attribute 'msgtype'")]
    public void AnInvalidDictionaryIsADiagnosticNamingFileAndLine(string from, string to, int line, string reason)
    {
        string xml = Valid.Replace(from, to);
        Assert.NotEqual(Valid, xml);
        Diagnostic d = Single(Run(xml), "FIXGEN001");
        Assert.Equal("/venue/VENUE.xml", d.Location.GetLineSpan().Path);
        Assert.Equal(line, d.Location.GetLineSpan().StartLinePosition.Line + 1);
        Assert.Contains("/venue/VENUE.xml(" + line + "):", d.GetMessage());
        Assert.Contains(reason, d.GetMessage());
    }

    [Fact]
    public void MalformedXmlIsADiagnosticWithTheParsersLine()
    {
        string xml = Valid.Replace("<trailer><field name=\"CheckSum\" required=\"Y\"/></trailer>", "<trailer><field name=\"CheckSum\" required=\"Y\"></trailer>");
        Diagnostic d = Single(Run(xml), "FIXGEN001");
        Assert.Equal(5, d.Location.GetLineSpan().StartLinePosition.Line + 1);
        Assert.Contains("malformed XML", d.GetMessage());
    }

    [Fact]
    public void AnUnknownMessageInFixMessagesIsReported()
    {
        Diagnostic d = Single(Run(Valid, messages: "Order,Quote"), "FIXGEN003");
        Assert.Contains("'Quote'", d.GetMessage());
    }

    [Fact]
    public void FixMessagesLimitsTheGeneratedMessages()
    {
        string xml = Valid.Replace("</messages>", "<message name=\"Ack\" msgtype=\"U1\" msgcat=\"app\"><field name=\"ClOrdID\" required=\"Y\"/></message></messages>");
        GeneratorHarness.Result all = Run(xml);
        GeneratorHarness.Result one = Run(xml, messages: "Ack");
        Assert.Contains("public static class Order", all.Sources[0]);
        Assert.Contains("public static class Ack", one.Sources[0]);
        Assert.DoesNotContain("public static class Order", one.Sources[0]);
        Assert.True(one.CompileErrors.IsEmpty, string.Join("\n", one.CompileErrors));
    }

    [Fact]
    public void FilesWithoutTheFixDictionaryFlagAreIgnored()
    {
        GeneratorHarness.Result result = GeneratorHarness.Run("", new GeneratorHarness.Dictionary("/other.xml", "not even xml", Flagged: false));
        Assert.Empty(result.GeneratorDiagnostics);
        Assert.Empty(result.Sources);
    }

    [Fact]
    public void TheDefaultNamespaceComesFromTheFileName()
    {
        GeneratorHarness.Result result = GeneratorHarness.Run("", new GeneratorHarness.Dictionary("/d/FIX44.xml", Valid));
        Assert.Contains("namespace FixMessages.Fix44", Assert.Single(result.Sources));
        Assert.True(result.CompileErrors.IsEmpty, string.Join("\n", result.CompileErrors));
    }
}
