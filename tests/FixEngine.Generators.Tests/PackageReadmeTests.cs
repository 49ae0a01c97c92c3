using System.IO;
using System.Linq;
using System.Text.RegularExpressions;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;

namespace FixEngine.Generators.Tests;

/// <summary>The typed-messages example of the package README compiles against the prebuilt FixEngine.Messages.FIX44 and, for
/// the dictionary item it shows, against code generated from the shared FIX44.xml.</summary>
public sealed class PackageReadmeTests
{
    private static string RepositoryRoot()
    {
        string? dir = System.AppContext.BaseDirectory;
        while (dir is not null && !File.Exists(Path.Combine(dir, "FixEngine.sln"))) dir = Path.GetDirectoryName(dir);
        return dir ?? throw new DirectoryNotFoundException("FixEngine.sln above " + System.AppContext.BaseDirectory);
    }

    [Fact]
    public void TheTypedMessagesExampleCompilesAgainstThePrebuiltPackageAndAgainstTheItemItShows()
    {
        string root = RepositoryRoot();
        string readme = File.ReadAllText(Path.Combine(root, "src", "FixEngine", "README.md")).Replace("\r\n", "\n");
        int section = readme.IndexOf("\n## Typed messages\n", System.StringComparison.Ordinal);
        Assert.True(section >= 0, "no '## Typed messages' section");
        int next = readme.IndexOf("\n## ", section + 1, System.StringComparison.Ordinal);
        string text = readme.Substring(section, next - section);
        Assert.True(readme.IndexOf("\n## An acceptor\n", System.StringComparison.Ordinal) > section, "typed messages come before the raw API");

        string code = Regex.Match(text, "```csharp\n(?<code>.*?)```", RegexOptions.Singleline).Groups["code"].Value;
        Assert.Contains("class TypedFills", code);
        Assert.True(text.IndexOf("```csharp", System.StringComparison.Ordinal) < text.IndexOf("```xml", System.StringComparison.Ordinal),
            "the prebuilt package's example comes before the generator's item");

        // With the prebuilt package (FixEngine.Messages.FIX44, referenced by this test project), no generator runs.
        Assert.Contains("using FixEngine.Messages.Fix44;", code);
        CSharpCompilation prebuilt = GeneratorHarness.Compile(CSharpSyntaxTree.ParseText(code, GeneratorHarness.ParseOptions, path: "/app/Program.cs"))
            .AddReferences(MetadataReference.CreateFromFile(typeof(FixEngine.Messages.Fix44.NewOrderSingle).Assembly.Location));
        Diagnostic[] errors = prebuilt.GetDiagnostics().Where(d => d.Severity == DiagnosticSeverity.Error).ToArray();
        Assert.True(errors.Length == 0, string.Join("\n", errors.Select(e => e.ToString())));

        // With a dictionary of one's own: the item shown, the same class against the generated namespace.
        Match item = Regex.Match(text, "<AdditionalFiles Include=\"(?<file>[^\"]+)\" FixDictionary=\"true\" FixMessages=\"(?<messages>[^\"]+)\" />");
        Assert.True(item.Success, "no AdditionalFiles item in the section");
        string xml = File.ReadAllText(Path.Combine(root, "dictionaries", item.Groups["file"].Value));
        GeneratorHarness.Result generated = GeneratorHarness.Run(code.Replace("using FixEngine.Messages.Fix44;", "using FixMessages.Fix44;"),
            new GeneratorHarness.Dictionary("/app/" + item.Groups["file"].Value, xml, Messages: item.Groups["messages"].Value));
        Assert.Empty(generated.GeneratorDiagnostics);
        Assert.True(generated.CompileErrors.IsEmpty, string.Join("\n", generated.CompileErrors.Select(e => e.ToString())));
    }
}
