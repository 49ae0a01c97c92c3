using System.Collections.Generic;
using System.Collections.Immutable;
using System.IO;
using System.Linq;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;

namespace FixEngine.Generators.Tests;

/// <summary>
/// Generation is cached on the dictionary's content and item metadata: an edit in user code re-runs nothing of it, while
/// an edit of the dictionary or of its metadata does.
/// </summary>
public sealed class IncrementalGenerationTests
{
    private static readonly string s_fix44 = File.ReadAllText(Path.Combine(RepositoryRoot(), "dictionaries", "FIX44.xml"));

    private static readonly GeneratorHarness.Dictionary[] s_dictionaries =
        [new("/app/FIX44.xml", s_fix44, Messages: "NewOrderSingle,ExecutionReport"), new("/app/notes.xml", "<notes/>", Flagged: false)];

    private const string Program = """
        using FixMessages.Fix44;
        public static class Program { public static int Main() => NewOrderSingle.MsgType.Length; }
        """;

    private const string Other = "public static class Other { public static int X => 1; }";

    private static string RepositoryRoot()
    {
        string? dir = System.AppContext.BaseDirectory;
        while (dir is not null && !File.Exists(Path.Combine(dir, "FixEngine.sln"))) dir = Path.GetDirectoryName(dir);
        return dir ?? throw new DirectoryNotFoundException("FixEngine.sln above " + System.AppContext.BaseDirectory);
    }

    private static IEnumerable<IncrementalStepRunReason> Reasons(GeneratorDriver driver, string step) =>
        driver.GetRunResult().Results.Single().TrackedSteps[step].SelectMany(s => s.Outputs).Select(o => o.Reason);

    private static readonly ImmutableArray<AdditionalText> s_texts = GeneratorHarness.Texts(s_dictionaries);

    private static (GeneratorDriver Driver, Compilation Compilation) FirstRun()
    {
        Compilation compilation = GeneratorHarness.Compile(
            CSharpSyntaxTree.ParseText(Program, GeneratorHarness.ParseOptions, path: "/app/Program.cs"),
            CSharpSyntaxTree.ParseText(Other, GeneratorHarness.ParseOptions, path: "/app/Other.cs"));
        GeneratorDriver driver = GeneratorHarness.CreateDriver(s_texts, s_dictionaries).RunGenerators(compilation);
        Assert.All(Reasons(driver, FixDictionaryGenerator.TrackingNames.Output), r => Assert.Equal(IncrementalStepRunReason.New, r));
        Assert.Single(Reasons(driver, FixDictionaryGenerator.TrackingNames.Output));
        return (driver, compilation);
    }

    [Fact]
    public void AnEditInUserCodeLeavesGenerationCached()
    {
        (GeneratorDriver driver, Compilation compilation) = FirstRun();
        SyntaxTree other = compilation.SyntaxTrees.Single(t => t.FilePath == "/app/Other.cs");
        SyntaxTree program = compilation.SyntaxTrees.Single(t => t.FilePath == "/app/Program.cs");
        Compilation edited = compilation
            .ReplaceSyntaxTree(other, other.WithChangedText(other.GetText().Replace(0, 0, "// a comment\n")))
            .ReplaceSyntaxTree(program, program.WithChangedText(program.GetText().Replace(program.GetText().Length, 0, "\npublic static class Added { }\n")));
        driver = driver.RunGenerators(edited);

        foreach (string step in new[] { FixDictionaryGenerator.TrackingNames.Input, FixDictionaryGenerator.TrackingNames.Output })
        {
            IncrementalStepRunReason[] reasons = Reasons(driver, step).ToArray();
            Assert.NotEmpty(reasons);
            Assert.All(reasons, r => Assert.True(r is IncrementalStepRunReason.Cached or IncrementalStepRunReason.Unchanged, step + ": " + r));
        }
        Assert.Contains("NewOrderSingle", driver.GetRunResult().GeneratedTrees.Single().ToString());
    }

    [Fact]
    public void AnEditOfTheDictionaryOrItsMetadataRegenerates()
    {
        (GeneratorDriver driver, Compilation compilation) = FirstRun();
        string before = driver.GetRunResult().GeneratedTrees.Single().ToString();
        AdditionalText old = s_texts[0];
        string edited = s_fix44.Replace("description='BUY'", "description='BUY_SIDE'");
        Assert.NotEqual(s_fix44, edited);
        GeneratorDriver textEdited = driver.ReplaceAdditionalText(old, new GeneratorHarness.InMemoryText(old.Path, edited)).RunGenerators(compilation);
        Assert.Contains(IncrementalStepRunReason.Modified, Reasons(textEdited, FixDictionaryGenerator.TrackingNames.Output));
        Assert.NotEqual(before, textEdited.GetRunResult().GeneratedTrees.Single().ToString());

        GeneratorHarness.Dictionary[] narrower = [s_dictionaries[0] with { Messages = "NewOrderSingle" }, s_dictionaries[1]];
        GeneratorDriver optionsEdited = driver.WithUpdatedAnalyzerConfigOptions(GeneratorHarness.OptionsFor(narrower)).RunGenerators(compilation);
        Assert.Contains(IncrementalStepRunReason.Modified, Reasons(optionsEdited, FixDictionaryGenerator.TrackingNames.Output));
        Assert.DoesNotContain("class ExecutionReport", optionsEdited.GetRunResult().GeneratedTrees.Single().ToString());
    }
}
