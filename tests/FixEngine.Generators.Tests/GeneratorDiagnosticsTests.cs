using System.Collections.Generic;
using System.Linq;
using Microsoft.CodeAnalysis;

namespace FixEngine.Generators.Tests;

/// <summary>The errors a user sees first when a dictionary is missing, unmarked or wrong.</summary>
public sealed class GeneratorDiagnosticsTests
{
    private const string Dictionary = """
        <fix type="FIX" major="4" minor="4">
          <header><field name="BeginString" required="Y"/><field name="BodyLength" required="Y"/><field name="MsgType" required="Y"/></header>
          <trailer><field name="CheckSum" required="Y"/></trailer>
          <messages>
            <message name="Order" msgtype="D" msgcat="app"><field name="ClOrdID" required="Y"/></message>
          </messages>
          <components/>
          <fields>
            <field number="8" name="BeginString" type="STRING"/><field number="9" name="BodyLength" type="LENGTH"/>
            <field number="35" name="MsgType" type="STRING"/><field number="10" name="CheckSum" type="STRING"/>
            <field number="11" name="ClOrdID" type="STRING"/>
          </fields>
        </fix>
        """;

    // Line 2 (index 1) is the first use of FixMessages; the type uses come after it.
    private const string UsesFix44 = """
        using System;
        using FixMessages.Fix44;
        public static class Use
        {
            public static bool Send(ref FixEngine.Codec.FixWriter w) => Order.Begin(ref w).ClOrdID("A"u8).End();
            public static string Name => FixMessages.Fix44.MessageTypes.Order.ToString();
        }
        """;

    private static readonly Dictionary<string, string> s_project = new() { ["build_property.MSBuildProjectFullPath"] = "/app/Trading.App.csproj" };

    [Fact]
    public void FixMessagesWithoutAMarkedDictionaryIsOneErrorSayingWhatToAddAndWhere()
    {
        GeneratorHarness.Result result = GeneratorHarness.Run(UsesFix44, s_project,
            new GeneratorHarness.Dictionary("/app/FIX44.xml", Dictionary, Flagged: false), new GeneratorHarness.Dictionary("/app/readme.txt", "x", Flagged: false));
        Diagnostic d = Assert.Single(result.GeneratorDiagnostics);
        Assert.Equal("FIXGEN004", d.Id);
        Assert.Equal(DiagnosticSeverity.Error, d.Severity);
        Assert.Equal(1, d.Location.GetLineSpan().StartLinePosition.Line);
        Assert.Equal(
            "'FixMessages.Fix44' is generated from a FIX dictionary, but no AdditionalFiles item has FixDictionary=\"true\": add it to the dictionary's item "
            + "in the project file Trading.App.csproj, as in <AdditionalFiles Include=\"FIX44.xml\" FixDictionary=\"true\" />", d.GetMessage());
        // The using line itself compiles (the namespace is declared empty): FIXGEN004 is the first error in the file.
        Assert.NotEmpty(result.CompileErrors);
        Assert.All(result.CompileErrors, e => Assert.True(e.Location.GetLineSpan().StartLinePosition.Line > 1, e.ToString()));
    }

    [Fact]
    public void WithoutProjectPathOrXmlFileTheMessageStillSaysWhere()
    {
        GeneratorHarness.Result result = GeneratorHarness.Run("public static class Use { public static object X => FixMessages.Fix44.Tags.ClOrdID; }");
        Diagnostic d = Assert.Single(result.GeneratorDiagnostics);
        Assert.Equal("FIXGEN004", d.Id);
        Assert.Contains("'FixMessages.Fix44'", d.GetMessage());
        Assert.Contains("in the project file (.csproj), as in <AdditionalFiles Include=\"FIX44.xml\" FixDictionary=\"true\" />", d.GetMessage());
    }

    [Fact]
    public void AMarkedDictionaryOrAFixMessagesOfTheUsersOwnIsNotReported()
    {
        GeneratorHarness.Result marked = GeneratorHarness.Run(UsesFix44, new GeneratorHarness.Dictionary("/app/FIX44.xml", Dictionary));
        Assert.Empty(marked.GeneratorDiagnostics);
        Assert.True(marked.CompileErrors.IsEmpty, string.Join("\n", marked.CompileErrors));

        const string own = """
            using FixMessages.Mine;
            namespace FixMessages.Mine { public static class Thing { public const int X = 1; } }
            public static class Use { public static int Y => FixMessages.Mine.Thing.X + Thing.X; }
            """;
        GeneratorHarness.Result result = GeneratorHarness.Run(own);
        Assert.Empty(result.GeneratorDiagnostics);
        Assert.True(result.CompileErrors.IsEmpty, string.Join("\n", result.CompileErrors));
    }

    [Fact]
    public void AnInvalidDictionaryIsTheFirstErrorAndItsUsingLinesStillCompile()
    {
        string broken = Dictionary.Replace("<field name=\"ClOrdID\" required=\"Y\"/></message>", "<field name=\"ClOrdId\" required=\"Y\"/></message>");
        GeneratorHarness.Result result = GeneratorHarness.Run(UsesFix44, new GeneratorHarness.Dictionary("/app/FIX44.xml", broken));
        Diagnostic d = Assert.Single(result.GeneratorDiagnostics);
        Assert.Equal("FIXGEN001", d.Id);
        Assert.Contains("unknown field 'ClOrdId'", d.GetMessage());
        Assert.Contains("namespace FixMessages.Fix44 { }", Assert.Single(result.Sources));
        Assert.NotEmpty(result.CompileErrors);
        Assert.All(result.CompileErrors, e => Assert.True(e.Location.GetLineSpan().StartLinePosition.Line > 1, e.ToString()));
    }

    [Fact]
    public void AnUnknownMessageInFixMessagesStillGeneratesTheOthersSoNoCascadeFollows()
    {
        GeneratorHarness.Result result = GeneratorHarness.Run(UsesFix44, new GeneratorHarness.Dictionary("/app/FIX44.xml", Dictionary, Messages: "Order,Quote,Allocation"));
        Assert.Equal(["FIXGEN003", "FIXGEN003"], result.GeneratorDiagnostics.Select(d => d.Id));
        Assert.Contains("'Allocation'", result.GeneratorDiagnostics[0].GetMessage());
        Assert.Contains("'Quote'", result.GeneratorDiagnostics[1].GetMessage());
        Assert.True(result.CompileErrors.IsEmpty, string.Join("\n", result.CompileErrors));
    }
}
