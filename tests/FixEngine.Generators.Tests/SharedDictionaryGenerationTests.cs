using System;
using System.IO;

namespace FixEngine.Generators.Tests;

/// <summary>Every message of the repository's FIX.4.2 and FIXT.1.1 dictionaries is generated and the result compiles.</summary>
public sealed class SharedDictionaryGenerationTests
{
    private static string SharedDictionary(string file)
    {
        for (var dir = new DirectoryInfo(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
        {
            if (File.Exists(Path.Combine(dir.FullName, "FixEngine.sln"))) return Path.Combine(dir.FullName, "dictionaries", file);
        }
        throw new DirectoryNotFoundException("repository root not found above " + AppContext.BaseDirectory);
    }

    [Theory]
    [InlineData("FIX42.xml", "FixMessages.Fix42")]
    [InlineData("FIXT11.xml", "FixMessages.Fixt11")]
    public void AWholeSharedDictionaryCompiles(string file, string ns)
    {
        string path = SharedDictionary(file);
        GeneratorHarness.Result result = GeneratorHarness.Run("", new GeneratorHarness.Dictionary(path, File.ReadAllText(path)));
        Assert.Empty(result.GeneratorDiagnostics);
        Assert.Contains("namespace " + ns, Assert.Single(result.Sources));
        Assert.True(result.CompileErrors.IsEmpty, string.Join("\n", result.CompileErrors));
    }
}
