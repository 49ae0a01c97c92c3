using System;
using System.IO;
using Xunit;

namespace FixEngine.Tests.Infrastructure;

/// <summary>Locates test data: the QuickFIX dictionaries in the repository's <c>dictionaries/</c>, and the optional
/// <c>../shared/fix-at</c> folder (QuickFIX's acceptance scripts and reference settings) that CI lays beside the checkout.</summary>
public static class SharedPaths
{
    private static readonly Lazy<string> s_repository = new(FindRepository);

    /// <summary>Absolute path of the repository root (the folder holding FixEngine.sln).</summary>
    public static string Repository => s_repository.Value;

    /// <summary>Path of a QuickFIX data dictionary in the repository, e.g. <c>Dictionary("FIX44.xml")</c>.</summary>
    public static string Dictionary(string fileName) => Path.Combine(Repository, "dictionaries", fileName);

    /// <summary>Path of ../shared/fix-at beside the checkout (exists in CI; tests that need it use
    /// <see cref="SharedFactAttribute"/> or <see cref="SharedTheoryAttribute"/>).</summary>
    public static string FixAt => Path.GetFullPath(Path.Combine(Repository, "..", "shared", "fix-at"));

    /// <summary>Why a test that needs ../shared/fix-at cannot run here, or null when it can. With CI=true never null: a
    /// missing folder then fails the test instead of hiding it.</summary>
    public static string? FixAtSkipReason =>
        Directory.Exists(FixAt) || string.Equals(Environment.GetEnvironmentVariable("CI"), "true", StringComparison.OrdinalIgnoreCase)
            ? null
            : $"needs QuickFIX's reference files at {FixAt} (CI lays ../shared beside the checkout; run 'bash .ci/run' there)";

    private static string FindRepository()
    {
        for (var dir = new DirectoryInfo(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
        {
            if (File.Exists(Path.Combine(dir.FullName, "FixEngine.sln"))) return dir.FullName;
        }
        throw new DirectoryNotFoundException("Could not find the repository root (FixEngine.sln) above " + AppContext.BaseDirectory);
    }
}

/// <summary>A fact that reads ../shared/fix-at: skipped with the reason when the folder is absent, outside CI.</summary>
public sealed class SharedFactAttribute : FactAttribute
{
    public SharedFactAttribute()
    {
        if (SharedPaths.FixAtSkipReason is string reason) Skip = reason;
    }
}

/// <summary>A theory that reads ../shared/fix-at: skipped with the reason when the folder is absent, outside CI.</summary>
public sealed class SharedTheoryAttribute : TheoryAttribute
{
    public SharedTheoryAttribute()
    {
        if (SharedPaths.FixAtSkipReason is string reason) Skip = reason;
    }
}
