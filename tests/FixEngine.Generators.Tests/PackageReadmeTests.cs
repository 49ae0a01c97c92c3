using System.IO;
using System.Linq;
using System.Text.RegularExpressions;

namespace FixEngine.Generators.Tests;

/// <summary>The typed-messages example of the package README compiles against code generated from the shared FIX44.xml.</summary>
public sealed class PackageReadmeTests
{
    private static string RepositoryRoot()
    {
        string? dir = System.AppContext.BaseDirectory;
        while (dir is not null && !File.Exists(Path.Combine(dir, "FixEngine.sln"))) dir = Path.GetDirectoryName(dir);
        return dir ?? throw new DirectoryNotFoundException("FixEngine.sln above " + System.AppContext.BaseDirectory);
    }

    [Fact]
    public void TheTypedMessagesExampleCompilesWithTheItemItShows()
    {
        string root = RepositoryRoot();
        string readme = File.ReadAllText(Path.Combine(root, "src", "FixEngine", "README.md")).Replace("\r\n", "\n");
        int section = readme.IndexOf("\n## Typed messages\n", System.StringComparison.Ordinal);
        Assert.True(section >= 0, "no '## Typed messages' section");
        int next = readme.IndexOf("\n## ", section + 1, System.StringComparison.Ordinal);
        string text = readme.Substring(section, next - section);
        Assert.True(readme.IndexOf("\n## An acceptor\n", System.StringComparison.Ordinal) > section, "typed messages come before the raw API");

        Match item = Regex.Match(text, "<AdditionalFiles Include=\"(?<file>[^\"]+)\" FixDictionary=\"true\" FixMessages=\"(?<messages>[^\"]+)\" />");
        Assert.True(item.Success, "no AdditionalFiles item in the section");
        string code = Regex.Match(text, "```csharp\n(?<code>.*?)```", RegexOptions.Singleline).Groups["code"].Value;
        Assert.Contains("class TypedFills", code);

        string xml = File.ReadAllText(Path.Combine(root, "dictionaries", item.Groups["file"].Value));
        GeneratorHarness.Result result = GeneratorHarness.Run(code,
            new GeneratorHarness.Dictionary("/app/" + item.Groups["file"].Value, xml, Messages: item.Groups["messages"].Value));
        Assert.Empty(result.GeneratorDiagnostics);
        Assert.True(result.CompileErrors.IsEmpty, string.Join("\n", result.CompileErrors.Select(e => e.ToString())));
    }
}
