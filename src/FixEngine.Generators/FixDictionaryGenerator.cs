using System;
using System.Collections.Generic;
using System.Collections.Immutable;
using System.IO;
using System.Linq;
using System.Text;
using System.Threading;
using Microsoft.CodeAnalysis;
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

    /// <inheritdoc/>
    public void Initialize(IncrementalGeneratorInitializationContext context)
    {
        IncrementalValuesProvider<Input> inputs = context.AdditionalTextsProvider
            .Combine(context.AnalyzerConfigOptionsProvider)
            .Select(static (pair, ct) => Input.Create(pair.Left, pair.Right.GetOptions(pair.Left), ct))
            .Where(static input => input is not null)!;
        IncrementalValuesProvider<Output> outputs = inputs.Select(static (input, ct) => Generate(input, ct));
        context.RegisterSourceOutput(outputs, static (spc, output) =>
        {
            foreach (Diagnostic d in output.Diagnostics) spc.ReportDiagnostic(d);
            if (output.Source is not null) spc.AddSource(output.HintName, SourceText.From(output.Source, Encoding.UTF8));
        });
    }

    internal static Output Generate(Input input, CancellationToken ct)
    {
        string fileName = Path.GetFileName(input.Path);
        var diagnostics = new List<Diagnostic>();
        string ns = input.Namespace ?? "FixMessages." + Naming.FileIdentifier(Path.GetFileNameWithoutExtension(input.Path));
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
            return new Output(fileName, null, diagnostics);
        }
        ct.ThrowIfCancellationRequested();
        HashSet<string>? only = null;
        if (input.Messages is not null)
        {
            only = new HashSet<string>(input.Messages.Split(new[] { ';', ',' }, StringSplitOptions.RemoveEmptyEntries).Select(s => s.Trim()).Where(s => s.Length > 0), StringComparer.Ordinal);
            foreach (string name in only)
            {
                if (!model.Messages.Any(m => m.Name == name)) diagnostics.Add(Diagnostic.Create(UnknownMessage, Location.None, input.Path, name));
            }
            if (diagnostics.Count > 0) return new Output(fileName, null, diagnostics);
        }
        string source = new CodeEmitter(model, ns, fileName, only).Emit();
        return new Output(ns + ".g.cs", source, diagnostics);
    }

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
            if (!options.TryGetValue("build_metadata.AdditionalFiles.FixDictionary", out string? flag) || !string.Equals(flag, "true", StringComparison.OrdinalIgnoreCase))
            {
                return null;
            }
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
}
