using System;
using System.Collections.Generic;
using System.Collections.Immutable;
using System.IO;
using System.Linq;
using System.Threading;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;
using Microsoft.CodeAnalysis.Diagnostics;
using Microsoft.CodeAnalysis.Text;

namespace FixEngine.Generators.Tests;

/// <summary>Runs <see cref="FixDictionaryGenerator"/> over in-memory dictionaries and compiles the result with user code.</summary>
public static class GeneratorHarness
{
    public sealed record Dictionary(string Path, string Xml, string? Namespace = null, string? Messages = null, bool Flagged = true);

    public sealed record Result(ImmutableArray<Diagnostic> GeneratorDiagnostics, ImmutableArray<Diagnostic> CompileErrors, ImmutableArray<string> Sources);

    public static readonly CSharpParseOptions ParseOptions = new(LanguageVersion.Preview);

    public static Result Run(string userCode, params Dictionary[] dictionaries) => Run(userCode, null, dictionaries);

    /// <summary>Runs with global analyzer options (e.g. <c>build_property.MSBuildProjectFullPath</c>).</summary>
    public static Result Run(string userCode, IReadOnlyDictionary<string, string>? globalOptions, params Dictionary[] dictionaries)
    {
        CSharpCompilation compilation = Compile(CSharpSyntaxTree.ParseText(userCode, ParseOptions, path: "/app/Program.cs"));
        GeneratorDriver driver = CreateDriver(dictionaries, globalOptions, trackSteps: false);
        driver = driver.RunGeneratorsAndUpdateCompilation(compilation, out Compilation output, out ImmutableArray<Diagnostic> diagnostics);
        GeneratorDriverRunResult run = driver.GetRunResult();
        ImmutableArray<Diagnostic> errors = output.GetDiagnostics().Where(d => d.Severity == DiagnosticSeverity.Error).ToImmutableArray();
        return new Result(diagnostics, errors, run.GeneratedTrees.Select(t => t.ToString()).ToImmutableArray());
    }

    public static CSharpCompilation Compile(params SyntaxTree[] trees) => CSharpCompilation.Create(
        "UserAssembly",
        trees,
        References.Value,
        new CSharpCompilationOptions(OutputKind.DynamicallyLinkedLibrary, nullableContextOptions: NullableContextOptions.Enable));

    public static ImmutableArray<AdditionalText> Texts(Dictionary[] dictionaries) => dictionaries.Select(d => (AdditionalText)new InMemoryText(d.Path, d.Xml)).ToImmutableArray();

    public static GeneratorDriver CreateDriver(Dictionary[] dictionaries, IReadOnlyDictionary<string, string>? globalOptions = null, bool trackSteps = true) =>
        CreateDriver(Texts(dictionaries), dictionaries, globalOptions, trackSteps);

    public static GeneratorDriver CreateDriver(ImmutableArray<AdditionalText> texts, Dictionary[] dictionaries, IReadOnlyDictionary<string, string>? globalOptions = null, bool trackSteps = true) =>
        CSharpGeneratorDriver.Create(
            [new FixDictionaryGenerator().AsSourceGenerator()],
            texts,
            ParseOptions,
            new OptionsProvider(dictionaries, globalOptions),
            new GeneratorDriverOptions(IncrementalGeneratorOutputKind.None, trackIncrementalGeneratorSteps: trackSteps));

    private static readonly Lazy<MetadataReference[]> References = new(() =>
    {
        string tpa = (string)AppContext.GetData("TRUSTED_PLATFORM_ASSEMBLIES")!;
        var refs = tpa.Split(Path.PathSeparator).Where(p => Path.GetFileName(p).StartsWith("System.", StringComparison.Ordinal) || Path.GetFileName(p) is "netstandard.dll" or "mscorlib.dll")
            .Select(p => (MetadataReference)MetadataReference.CreateFromFile(p)).ToList();
        refs.Add(MetadataReference.CreateFromFile(typeof(FixEngine.Codec.FixMessage).Assembly.Location));
        return refs.ToArray();
    });

    /// <summary>The analyzer options a build gives for these dictionaries' item metadata.</summary>
    public static AnalyzerConfigOptionsProvider OptionsFor(Dictionary[] dictionaries) => new OptionsProvider(dictionaries, null);

    public sealed class InMemoryText(string path, string text) : AdditionalText
    {
        public override string Path => path;

        public override SourceText GetText(CancellationToken cancellationToken = default) => SourceText.From(text);
    }

    private sealed class OptionsProvider(Dictionary[] dictionaries, IReadOnlyDictionary<string, string>? globalOptions) : AnalyzerConfigOptionsProvider
    {
        public override AnalyzerConfigOptions GlobalOptions => new Options(globalOptions?.ToDictionary(p => p.Key, p => p.Value) ?? []);

        public override AnalyzerConfigOptions GetOptions(SyntaxTree tree) => new Options([]);

        public override AnalyzerConfigOptions GetOptions(AdditionalText textFile)
        {
            Dictionary d = dictionaries.First(x => x.Path == textFile.Path);
            var values = new Dictionary<string, string>();
            if (d.Flagged) values["build_metadata.AdditionalFiles.FixDictionary"] = "true";
            if (d.Namespace is not null) values["build_metadata.AdditionalFiles.FixNamespace"] = d.Namespace;
            if (d.Messages is not null) values["build_metadata.AdditionalFiles.FixMessages"] = d.Messages;
            return new Options(values);
        }
    }

    private sealed class Options(Dictionary<string, string> values) : AnalyzerConfigOptions
    {
        public override bool TryGetValue(string key, out string value)
        {
            bool found = values.TryGetValue(key, out string? v);
            value = v ?? "";
            return found;
        }
    }
}
