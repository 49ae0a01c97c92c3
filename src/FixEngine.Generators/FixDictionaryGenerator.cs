using System;
using System.Collections.Generic;
using System.Collections.Immutable;
using System.IO;
using System.Linq;
using System.Text;
using System.Threading;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;
using Microsoft.CodeAnalysis.CSharp.Syntax;
using Microsoft.CodeAnalysis.Diagnostics;
using Microsoft.CodeAnalysis.Text;

namespace FixEngine.Generators;

/// <summary>
/// Generates typed, allocation-free readers and writers, enums, tag and MsgType constants and a message cracker from
/// every QuickFIX XML dictionary listed as <c>&lt;AdditionalFiles Include="..." FixDictionary="true" /&gt;</c>.
/// </summary>
/// <remarks>
/// Optional item metadata: <c>FixNamespace</c> (the namespace of the generated types; default <c>FixMessages.&lt;FileName&gt;</c>)
/// and <c>FixMessages</c> (message names separated by ','; only those get readers, writers and cracker overloads).
/// A malformed dictionary is reported as diagnostic FIXGEN001 naming the file and line; nothing is generated for it.
/// </remarks>
[Generator(LanguageNames.CSharp)]
public sealed class FixDictionaryGenerator : IIncrementalGenerator
{
    internal static readonly DiagnosticDescriptor InvalidDictionary = new(
        "FIXGEN001", "Invalid FIX dictionary", "{0}({1}): {2}", "FixEngine.Generators", DiagnosticSeverity.Error, isEnabledByDefault: true,
        description: "A FIX dictionary listed with FixDictionary=\"true\" is not well-formed XML or not a valid QuickFIX dictionary.");

    internal static readonly DiagnosticDescriptor InvalidNamespace = new(
        "FIXGEN002", "Invalid FixNamespace", "{0}: FixNamespace '{1}' is not a valid namespace", "FixEngine.Generators", DiagnosticSeverity.Error, isEnabledByDefault: true);

    internal static readonly DiagnosticDescriptor UnknownMessage = new(
        "FIXGEN003", "Unknown message in FixMessages", "{0}: FixMessages names '{1}', which the dictionary does not define", "FixEngine.Generators", DiagnosticSeverity.Error, isEnabledByDefault: true);

    internal static readonly DiagnosticDescriptor NoDictionary = new(
        "FIXGEN004", "No FIX dictionary marked FixDictionary=\"true\"",
        "'{0}' is generated from a FIX dictionary, but no AdditionalFiles item has FixDictionary=\"true\": add it to the dictionary's item in {1}, as in <AdditionalFiles Include=\"{2}\" FixDictionary=\"true\" />",
        "FixEngine.Generators", DiagnosticSeverity.Error, isEnabledByDefault: true,
        description: "Code uses the FixMessages namespace, which the generator makes from the dictionaries listed as AdditionalFiles with FixDictionary=\"true\"; none is.");

    /// <summary>The namespace generated code goes to unless an item sets <c>FixNamespace</c>.</summary>
    private const string DefaultRoot = "FixMessages";

    /// <inheritdoc/>
    public void Initialize(IncrementalGeneratorInitializationContext context)
    {
        IncrementalValuesProvider<(AdditionalText File, AnalyzerConfigOptions Options)> files = context.AdditionalTextsProvider
            .Combine(context.AnalyzerConfigOptionsProvider)
            .Select(static (pair, _) => (pair.Left, pair.Right.GetOptions(pair.Left)));
        IncrementalValuesProvider<Input> inputs = files
            .Select(static (pair, ct) => Input.Create(pair.File, pair.Options, ct))
            .WithTrackingName(TrackingNames.Input)
            .Where(static input => input is not null)!;
        IncrementalValuesProvider<Output> outputs = inputs.Select(static (input, ct) => Generate(input, ct)).WithTrackingName(TrackingNames.Output);
        context.RegisterSourceOutput(outputs, static (spc, output) =>
        {
            foreach (Diagnostic d in output.Diagnostics) spc.ReportDiagnostic(d);
            if (output.Source is not null) spc.AddSource(output.HintName, SourceText.From(output.Source, Encoding.UTF8));
        });

        // FIXGEN004: code naming FixMessages while no dictionary is marked. Kept apart from generation, so an edit in user
        // code re-runs only this cheap syntax check, never the dictionary's generation.
        IncrementalValueProvider<Presence> presence = files
            .Select(static (pair, _) => (Flagged: IsFlagged(pair.Options), Path: pair.File.Path))
            .Collect()
            .Combine(context.AnalyzerConfigOptionsProvider)
            .Select(static (pair, _) => Presence.Create(pair.Left, pair.Right.GlobalOptions));
        IncrementalValueProvider<ImmutableArray<RootReference>> references = context.SyntaxProvider
            .CreateSyntaxProvider(static (node, _) => RootReference.IsCandidate(node), static (ctx, ct) => RootReference.Create(ctx, ct))
            .Where(static r => r is not null)
            .Collect()!;
        context.RegisterSourceOutput(references.Combine(presence), static (spc, pair) => ReportMissingDictionary(spc, pair.Left, pair.Right));
    }

    /// <summary>The names of the generator's tracked steps (tests check that an edit in user code leaves them cached).</summary>
    public static class TrackingNames
    {
        /// <summary>Reading a marked dictionary's text and item metadata (cached while neither changes).</summary>
        public const string Input = "FixDictionaryInput";

        /// <summary>Parsing the dictionary and emitting its code (cached while its input is).</summary>
        public const string Output = "FixDictionaryOutput";
    }

    private static bool IsFlagged(AnalyzerConfigOptions options) =>
        options.TryGetValue("build_metadata.AdditionalFiles.FixDictionary", out string? flag) && string.Equals(flag?.Trim(), "true", StringComparison.OrdinalIgnoreCase);

    private static void ReportMissingDictionary(SourceProductionContext spc, ImmutableArray<RootReference> references, Presence presence)
    {
        if (presence.AnyFlagged || references.IsDefaultOrEmpty) return;
        RootReference first = references.OrderBy(r => r.Location.SourceTree?.FilePath, StringComparer.Ordinal).ThenBy(r => r.Location.SourceSpan.Start).First();
        string example = presence.UnflaggedXml is null ? "FIX44.xml" : Path.GetFileName(presence.UnflaggedXml);
        spc.ReportDiagnostic(Diagnostic.Create(NoDictionary, first.Location, first.Name, presence.ProjectFile, example));
        // The namespaces named by using directives are declared (empty), so the using lines compile and the first error in
        // a file is FIXGEN004 on the first of them, not CS0246; each use of a generated type still fails after it.
        var namespaces = references.Select(r => r.UsingNamespace).Where(n => n is not null).Distinct(StringComparer.Ordinal).OrderBy(n => n, StringComparer.Ordinal).ToList();
        if (namespaces.Count == 0) return;
        var source = new StringBuilder("// <auto-generated/>\n// No FIX dictionary is marked FixDictionary=\"true\" (FIXGEN004): these namespaces are declared empty.\n");
        foreach (string? ns in namespaces) source.Append("namespace ").Append(ns).Append(" { }\n");
        spc.AddSource("FixMessages.NoDictionary.g.cs", SourceText.From(source.ToString(), Encoding.UTF8));
    }

    internal static Output Generate(Input input, CancellationToken ct)
    {
        string fileName = Path.GetFileName(input.Path);
        var diagnostics = new List<Diagnostic>();
        string ns = input.Namespace ?? DefaultRoot + "." + Naming.FileIdentifier(Path.GetFileNameWithoutExtension(input.Path));
        if (!ns.Split('.').All(Naming.IsIdentifier))
        {
            diagnostics.Add(Diagnostic.Create(InvalidNamespace, Location.None, input.Path, ns));
            return new Output(fileName, null, diagnostics);
        }
        DictionaryModel model;
        try
        {
            model = DictionaryModel.Parse(input.Text);
        }
        catch (DictionaryError e)
        {
            diagnostics.Add(Diagnostic.Create(InvalidDictionary, LineLocation(input.Path, e.Line), input.Path, e.Line, e.Message));
            // The namespace is still declared (empty), so `using` lines compile and the first error a user sees is this one.
            return new Output(ns + ".g.cs", EmptyNamespace(ns, input.Path), diagnostics);
        }
        ct.ThrowIfCancellationRequested();
        HashSet<string>? only = null;
        if (input.Messages is not null)
        {
            only = new HashSet<string>(input.Messages.Split(new[] { ';', ',' }, StringSplitOptions.RemoveEmptyEntries).Select(s => s.Trim()).Where(s => s.Length > 0), StringComparer.Ordinal);
            foreach (string name in only.OrderBy(n => n, StringComparer.Ordinal))
            {
                if (!model.Messages.Any(m => m.Name == name)) diagnostics.Add(Diagnostic.Create(UnknownMessage, Location.None, input.Path, name));
            }
            // The messages the dictionary does define are still generated, so code using them does not add errors to this one.
        }
        string source = new CodeEmitter(model, ns, fileName, only).Emit();
        return new Output(ns + ".g.cs", source, diagnostics);
    }

    private static string EmptyNamespace(string ns, string path) =>
        "// <auto-generated/>\n// " + Path.GetFileName(path) + " is not a valid dictionary (FIXGEN001): nothing is generated.\nnamespace " + ns + " { }\n";

    private static Location LineLocation(string path, int line)
    {
        var position = new LinePosition(Math.Max(line - 1, 0), 0);
        return Location.Create(path, new TextSpan(0, 0), new LinePositionSpan(position, position));
    }

    /// <summary>One dictionary to generate from (equatable, so unchanged files are not regenerated).</summary>
    internal sealed class Input : IEquatable<Input>
    {
        public Input(string path, string text, string? ns, string? messages)
        {
            Path = path;
            Text = text;
            Namespace = ns;
            Messages = messages;
        }

        public string Path { get; }

        public string Text { get; }

        public string? Namespace { get; }

        public string? Messages { get; }

        public static Input? Create(AdditionalText file, AnalyzerConfigOptions options, CancellationToken ct)
        {
            if (!IsFlagged(options)) return null;
            string text = file.GetText(ct)?.ToString() ?? "";
            options.TryGetValue("build_metadata.AdditionalFiles.FixNamespace", out string? ns);
            options.TryGetValue("build_metadata.AdditionalFiles.FixMessages", out string? messages);
            return new Input(file.Path, text, string.IsNullOrWhiteSpace(ns) ? null : ns!.Trim(), string.IsNullOrWhiteSpace(messages) ? null : messages);
        }

        public bool Equals(Input? other) => other is not null && Path == other.Path && Text == other.Text && Namespace == other.Namespace && Messages == other.Messages;

        public override bool Equals(object? obj) => Equals(obj as Input);

        public override int GetHashCode() => Path.GetHashCode() ^ Text.Length;
    }

    internal sealed class Output
    {
        public Output(string hintName, string? source, List<Diagnostic> diagnostics)
        {
            HintName = hintName;
            Source = source;
            Diagnostics = diagnostics.ToImmutableArray();
        }

        public string HintName { get; }

        public string? Source { get; }

        public ImmutableArray<Diagnostic> Diagnostics { get; }
    }

    /// <summary>Whether any additional file is a marked dictionary, an unmarked XML file to name in FIXGEN004, and the project file.</summary>
    internal sealed class Presence : IEquatable<Presence>
    {
        private Presence(bool anyFlagged, string? unflaggedXml, string projectFile)
        {
            AnyFlagged = anyFlagged;
            UnflaggedXml = unflaggedXml;
            ProjectFile = projectFile;
        }

        public bool AnyFlagged { get; }

        public string? UnflaggedXml { get; }

        public string ProjectFile { get; }

        public static Presence Create(ImmutableArray<(bool Flagged, string Path)> files, AnalyzerConfigOptions global)
        {
            // MSBuildProjectFullPath is made visible by the package's FixEngine.props.
            string project = global.TryGetValue("build_property.MSBuildProjectFullPath", out string? full) && !string.IsNullOrWhiteSpace(full)
                ? "the project file " + Path.GetFileName(full)
                : "the project file (.csproj)";
            string? xml = files.Where(f => !f.Flagged && f.Path.EndsWith(".xml", StringComparison.OrdinalIgnoreCase)).Select(f => f.Path).FirstOrDefault();
            return new Presence(files.Any(f => f.Flagged), xml, project);
        }

        public bool Equals(Presence? other) => other is not null && AnyFlagged == other.AnyFlagged && UnflaggedXml == other.UnflaggedXml && ProjectFile == other.ProjectFile;

        public override bool Equals(object? obj) => Equals(obj as Presence);

        public override int GetHashCode() => (AnyFlagged ? 1 : 0) ^ (UnflaggedXml?.Length ?? 0) ^ ProjectFile.Length;
    }

    /// <summary>A use of the default root namespace (<c>FixMessages</c>) in user code that does not resolve to anything.</summary>
    internal sealed class RootReference
    {
        private RootReference(Location location, string name, string? usingNamespace)
        {
            Location = location;
            Name = name;
            UsingNamespace = usingNamespace;
        }

        public Location Location { get; }

        /// <summary>The name as written, e.g. <c>FixMessages.Fix44</c>.</summary>
        public string Name { get; }

        /// <summary>The namespace a using directive names, or null.</summary>
        public string? UsingNamespace { get; }

        public static bool IsCandidate(SyntaxNode node) =>
            node is IdentifierNameSyntax id && id.Identifier.ValueText == DefaultRoot
            && (node.Parent is QualifiedNameSyntax q && q.Left == node
                || node.Parent is MemberAccessExpressionSyntax m && m.Expression == node
                || node.Parent is UsingDirectiveSyntax);

        public static RootReference? Create(GeneratorSyntaxContext ctx, CancellationToken ct)
        {
            // A FixMessages of the user's own (a namespace or type) resolves, and is none of this generator's business.
            if (ctx.SemanticModel.GetSymbolInfo(ctx.Node, ct).Symbol is not null) return null;
            SyntaxNode outer = ctx.Node;
            while (outer.Parent is QualifiedNameSyntax or MemberAccessExpressionSyntax) outer = outer.Parent;
            string? usingNamespace = outer.Parent is UsingDirectiveSyntax u && u.Alias is null && !u.StaticKeyword.IsKind(SyntaxKind.StaticKeyword)
                ? outer.ToString()
                : null;
            string name = ctx.Node.Parent is QualifiedNameSyntax or MemberAccessExpressionSyntax
                ? ctx.Node.Parent.ToString()
                : DefaultRoot;
            return new RootReference(ctx.Node.GetLocation(), name, usingNamespace);
        }
    }
}
